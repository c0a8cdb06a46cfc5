"""Pure numerical solvers: no estimator state, each testable alone."""

from .linear import LinearResult, solve_linear
from .smo import DualResult, solve_dual, solver_threads

__all__ = ["DualResult", "LinearResult", "solve_dual", "solve_linear", "solver_threads"]
