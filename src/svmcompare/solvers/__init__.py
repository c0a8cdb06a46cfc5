"""Pure numerical solvers: no estimator state, each testable alone.

The graded items' all-pairs solver (:mod:`.all_pairs`) is compiled by numba,
whose import costs a process 0.25-0.3 s: its names load on first use."""

from .dual_cd import solve_linear_dual
from .linear import LinearResult, solve_linear
from .smo import DualResult, solve_dual
from .threads import solver_threads

__all__ = ["AllPairsResult", "DualResult", "GradedProblem", "LinearResult", "graded_problem",
           "solve_all_pairs", "solve_dual", "solve_linear", "solve_linear_dual",
           "solver_threads"]

_ALL_PAIRS = ("AllPairsResult", "GradedProblem", "graded_problem", "solve_all_pairs")


def __getattr__(name):
    if name in _ALL_PAIRS:
        from . import all_pairs

        return getattr(all_pairs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
