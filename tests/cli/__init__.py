"""Tests of svmcompare.cli."""
