"""SVMCompareLP: the kernelized comparison LP with slack (the paper's future work)."""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ._base import PairwiseKernelModel
from .compare import COMPARISON_MACHINE, lemma1_scale, machine_threshold
from .ranking_function import set_ranking
from .solvers.lp import solve_l1_svm
from .sparse_pairs import SparsePairs


class SVMCompareLP(PairwiseKernelModel):
    """Kernel comparison machine by linear programming (an L1-regularized SVM).

    Section 6 of the paper proposes "a kernelized version of the LP (7) with
    slack variables".  This estimator solves one: on the flipped data of
    eq. (8) (m rows (x~_i, x~'_i, y~_i)), with the ranking function expanded
    over the N standardized training items z_j (every x and x'),

        r_a(x) = sum_j a_j k(z_j, x),

    it solves the linear program

        minimize    ||a||_1 + sum_i C_i xi_i                         (LP-1)
        subject to  y~_i (beta + r_a(x~'_i) - r_a(x~_i)) >= 1 - xi_i,
                    xi_i >= 0,

    with C_i = C times the class weight of y~_i, by HiGHS.  This is the
    soft-margin QP (15) with the squared norm of u replaced by the L1 norm of
    the expansion coefficients, so the solution is sparse in a.  Lemma 1's
    argument applies unchanged: the margin constraints read like those of
    (12) with u^T Phi replaced by r_a, so r(x) = r_a(x) / (-beta) with the
    comparison function c_1 (eq. 5); for a linear kernel and data separable
    without slack, (mu, w) = (-1/beta, -u/beta) with u = sum_j a_j z_j is
    feasible for the LP (7).  As for :class:`SVMCompare`, beta >= 0 means
    Lemma 1 gives no ranking function (see ``on_degenerate``).

    The LP has 2N + 1 + m variables and m constraints with m x N dense
    kernel entries; it suits a few thousand pairs (n = 800 pairs: about a
    second per fit).

    Parameters
    ----------
    C : float, default=1.0
        Cost of the slack variables in (LP-1).
    kernel : {"rbf", "linear", "poly", "laplacian"} or callable, default="rbf"
    gamma, degree, coef0 : kernel parameters, as :class:`SVMCompare`.
    class_weight : None, "auto", "balanced" or dict, default="auto"
        As :class:`SVMCompare`.
    on_degenerate : {"fallback", "raise"}, default="fallback"
        As :class:`SVMCompare`: at beta >= 0, "fallback" keeps the LP's
        direction r = r_a with a tie threshold chosen on the training pairs
        (eq. 6) and a :class:`DegenerateWarning`; "raise" raises
        :class:`NoRankingError`.

    Attributes
    ----------
    intercept_ : float
        beta of (LP-1); negative.
    margin_ : float
        -1 / beta.
    expansion_items_, expansion_coef_ : ndarray
        The items z_j with a_j != 0 and their coefficients a_j / (-beta).
    n_nonzero_ : int
        Number of nonzero a_j (the sparsity of the solution).
    objective_ : float
        Optimal value of (LP-1).
    support_ : ndarray
        Indices (in the flipped data of eq. 8) of the rows whose margin
        constraint has a positive multiplier.
    n_iter_ : int
        HiGHS's iterations.
    coef_ : ndarray
        Ranking weights (linear kernel only).
    """

    # Its binary problem is the comparison machine's (eq. 8); its own solve and
    # store turn the LP's solution into the ranking function.
    problem_kind = COMPARISON_MACHINE

    def __init__(self, *, C=1.0, kernel="rbf", gamma=1.0, degree=3, coef0=1.0,
                 class_weight="auto", on_degenerate="fallback"):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.class_weight = class_weight
        self.on_degenerate = on_degenerate

    def _resolve_solver(self, kernel, n_pairs, n_features=1):
        return "lp"

    def fit(self, X, y, context=None, sample_weight=None):
        """Solve (LP-1) on labeled pairs ``X`` (n, 2, p), ``y`` in {-1, 0, 1}."""
        if context is not None:
            raise ValueError("SVMCompareLP does not take a pair context; SVMCompare does.")
        if sp.issparse(X) or isinstance(X, SparsePairs):
            raise ValueError("SVMCompareLP solves on the item kernel of dense pairs; sparse pairs "
                             "(e.g. identities) are fitted by SVMCompare(kernel='linear').")
        return super().fit(X, y, sample_weight=sample_weight)

    def _solve(self, prepared, alpha0=None):
        """Solve (LP-1); ``prepared.gram`` (the item kernel matrix) is shared along
        C paths."""
        problem = prepared.problem
        K = prepared.gram
        if K is None:
            K = prepared.kernel.block(problem.items, problem.items)
        # The basis: the items of rows that weigh (a pair of weight 0 is left
        # out, items and all: its items' columns moved the fit by 0.34).
        weighs = problem.C > 0
        used = np.unique(np.concatenate([problem.a[weighs], problem.b[weighs]]))
        # G_ij = k(z_j, x~'_i) - k(z_j, x~_i)
        G = K[np.ix_(problem.b, used)] - K[np.ix_(problem.a, used)]
        result = solve_l1_svm(G, problem.y, problem.C)
        a = np.zeros(problem.items.shape[0])
        a[used] = result.a
        return dataclasses.replace(result, a=a), None

    def _store(self, prepared, result, feature_map):
        problem = prepared.problem
        # Lemma 1, as for SVMCompare (NoRankingError or a fallback when beta >= 0).
        scale, self.degenerate_ = lemma1_scale(result.bias, 0.0, self.C, self.on_degenerate,
                                               "SVMCompareLP", class_weight=self.class_weight)
        nonzero = np.flatnonzero(np.abs(result.a) > 1e-12 * max(1.0, np.abs(result.a).max()))
        set_ranking(self, prepared.scaler, prepared.kernel, "lp",
                    expansion=(problem.items[nonzero], scale * result.a[nonzero]))
        self.intercept_ = result.bias
        self.n_nonzero_ = int(nonzero.size)
        self.objective_ = result.objective
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        # Rows whose margin constraint binds with a positive multiplier.
        self.support_ = np.flatnonzero(result.dual > 1e-9 * max(1.0, float(result.dual.max())))
        self.threshold_, self.margin_ = machine_threshold(
            lambda: self.ranking_.difference(prepared.Xs), prepared.y, self.degenerate_,
            result.bias, prepared.sample_weight)
        return self
