"""The paper's experiments: each returns tidy DataFrames; plotting is separate."""

from .figure3 import Figure3Result, run_figure3

__all__ = ["Figure3Result", "run_figure3"]
