"""Tests of svmcompare.solvers."""
