"""Tests of svmcompare.datasets."""
