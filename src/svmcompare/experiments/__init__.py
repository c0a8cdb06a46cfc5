"""The paper's experiments: each returns tidy DataFrames; plotting is separate."""

from .figure3 import Figure3Result, run_figure3
from .figure4 import FigureResult, run_figure4
from .figure5 import run_figure5

__all__ = ["Figure3Result", "FigureResult", "run_figure3", "run_figure4", "run_figure5"]
