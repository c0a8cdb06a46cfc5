"""Tests of svmcompare.experiments."""
