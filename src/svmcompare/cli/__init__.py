"""Command line: ``svmcompare <command>`` (entry point :func:`main`)."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
