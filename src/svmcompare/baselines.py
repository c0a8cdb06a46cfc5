"""The SVMrank baselines of the paper: "rank" (section 2.2) and "rank2" (Table 2).

Both learn a kernel RankSVM, the kernelized eq. (3):

    minimize_w  1/2 ||w||^2 + C sum_i xi_i
    subject to  xi_i >= 0,  xi_i >= 1 - w^T (Phi(x'_i) - Phi(x_i)) y_i,

with no bias.  Orienting each pair toward its better item turns it into a
binary SVM without bias whose rows are the differences Phi(better) -
Phi(worse), all labeled 1; its dual is (18) without the equality constraint
y^T v = 0.  The ranking function is r(z) = w^T Phi(z) = sum_i v_i
[k(better_i, z) - k(worse_i, z)].

Neither model can predict ties by itself, so a threshold tau on
|r(x') - r(x)| is learned afterwards by minimizing the zero-one loss over all
training pairs (eq. 6), and pairs are compared with c_tau (eq. 5).
"""

from __future__ import annotations

import numpy as np

from ._base import PairwiseKernelModel
from ._problem import ProblemKind, flip_rank, flip_rank2
from ._threshold import fit_threshold
from .calibration.held_out import HeldOutCalibration


def _no_scale(model, beta, bias_noise=0.0):
    # r(z) = w^T Phi(z): the SVM's own weight vector, eq. (3); no bias, no
    # degenerate case.
    return 1.0, None


def _rank_threshold(model, decision, y, sample_weight):
    model.threshold_ = fit_threshold(decision(), y, sample_weight)


def _inequality_pairs(y, model="SVMRank"):
    if not np.any(y != 0):
        raise ValueError(
            f"{model} learns from inequality pairs (y = +-1) and y has none. "
            "With only equality pairs no ranking can be learned."
        )


def _any_labels(y, model="SVMRank2"):
    # Every label set gives inequality pairs here: nothing to refuse.
    return None


def _rank_pairs(model, Xs, y, context=None, sample_weight=None):
    # Eq. (3) on I_1 and I_-1, each pair oriented toward its better item.
    return flip_rank(Xs, y, float(model.C), context, sample_weight)


def _rank2_pairs(model, Xs, y, context=None, sample_weight=None):
    return flip_rank2(Xs, y, float(model.C), context, sample_weight)


# RankSVM (no bias) on the inequality pairs, or on every pair made inequality
# pairs (Table 2's rank2), then the threshold of eq. (6).
RANK_SVM = ProblemKind(check_labels=_inequality_pairs, build=_rank_pairs, bias=False,
                       rank_scale=_no_scale, finish=_rank_threshold)
RANK2_SVM = ProblemKind(check_labels=_any_labels, build=_rank2_pairs, bias=False,
                        rank_scale=_no_scale, finish=_rank_threshold)


class _RankSVMBase(HeldOutCalibration, PairwiseKernelModel):
    """Kernel RankSVM (no bias) followed by the threshold of eq. (6)."""

    def __init__(self, *, C=1.0, kernel="rbf", gamma=1.0, degree=3, coef0=1.0, loss="hinge",
                 tol=1e-3,
                 max_iter=None, cache_size=200.0, shrinking=True, solver="auto", n_components=100,
                 probability=False, calibration="auto", cost=None, n_jobs=None, random_state=None,
                 verbose=False):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.solver = solver
        self.n_components = n_components
        self.probability = probability
        self.calibration = calibration
        self.cost = cost
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose


class SVMRank(_RankSVMBase):
    """The paper's "rank" baseline: kernel RankSVM on inequality pairs + threshold.

    A kernel RankSVM (eq. 3) is trained on the inequality pairs only; the
    equality pairs are used just to choose the threshold tau of eq. (6),
    which minimizes the zero-one loss over all training pairs.  Pairs are
    then compared with c_tau (eq. 5).

    Parameters
    ----------
    C : float, default=1.0
        Cost of the slack variables in eq. (3).
    kernel, gamma, degree, coef0, loss : see :class:`svmcompare.SVMCompare`.
    tol : float, default=1e-3
        Stopping tolerance on the largest projected gradient of the dual.
    max_iter : int or None, default=None
        Maximum coordinate steps; None means max(10_000_000, 100 m).
    cache_size : float, default=200
        Megabytes for kernel rows during fitting (exact solver); see
        :class:`svmcompare.SVMCompare` for its share with ``probability=True``.
    shrinking : bool, default=True
        LIBSVM's shrinking in the exact solver; see :class:`svmcompare.SVMCompare`.
    solver, n_components, probability, calibration, cost, n_jobs, random_state, verbose : see
        :class:`svmcompare.SVMCompare`.

    Attributes
    ----------
    threshold_ : float
        tau of eq. (6).
    support_ : ndarray
        Indices of the support vectors among the oriented inequality pairs.
    dual_coef_ : ndarray
        Their dual variables v_i.
    intercept_ : float
        Always 0 (RankSVM has no bias).
    n_support_, classes_, n_features_in_, dual_objective_, kkt_violation_, n_iter_, converged_,
    expansion_items_, expansion_coef_ : as :class:`svmcompare.SVMCompare`.
    """

    problem_kind = RANK_SVM


class SVMRank2(_RankSVMBase):
    """The paper's "rank2" baseline (Table 2): every pair as inequality pairs.

    Each equality pair (x, x', 0) becomes two opposite inequality pairs
    (x, x', 1) and (x', x, 1), and each inequality pair is duplicated so that
    every input pair weighs the same in the cost (2n pairs in all).  A kernel
    RankSVM (eq. 3) is trained on them, then the threshold of eq. (6) is
    learned as for :class:`SVMRank`.  A duplicated pair is stored once with
    cost 2C, which is the same optimization problem.

    Parameters and attributes are those of :class:`SVMRank`.
    """

    problem_kind = RANK2_SVM
