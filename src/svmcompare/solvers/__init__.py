"""Pure numerical solvers: no estimator state, each testable alone."""

from .smo import DualResult, solve_dual

__all__ = ["DualResult", "solve_dual"]
