"""Pure numerical solvers: no estimator state, each testable alone."""

from .all_pairs import AllPairsResult, GradedProblem, graded_problem, solve_all_pairs
from .dual_cd import solve_linear_dual
from .linear import LinearResult, solve_linear
from .smo import DualResult, solve_dual
from .threads import solver_threads

__all__ = ["AllPairsResult", "DualResult", "GradedProblem", "LinearResult", "graded_problem",
           "solve_all_pairs", "solve_dual", "solve_linear", "solve_linear_dual",
           "solver_threads"]
