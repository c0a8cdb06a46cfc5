"""Machinery shared by the kernel comparison estimators.

Every estimator here learns a ranking function r(z) = sum_j c_j k(e_j, z) over
a set of expansion items e_j (standardized training items), then compares a
pair by the thresholded rank difference c_tau(x, x') = t_tau(r(x') - r(x))
(eqs. 4 and 5).  Each estimator class names a ``ProblemKind`` (_problem.py):
which binary problem to build from the pairs, whether it has a bias, and how
its solution becomes the ranking scale and the threshold tau.  The fit's steps
are functions with explicit inputs (``prepare``, ``solve``, ``store``,
``fit_solution``) that the estimators, the C paths, the graded fits and the
calibration folds (calibration/held_out.py) call alike.
"""

from __future__ import annotations

import warnings
from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin

from ._parameters import check_parameters, setting
from ._problem import (
    Prepared,
    Standardizer,
    nystroem_rows,
    oriented_gaps,
    row_expansion,
    rows_of_pairs,
)
from ._validation import (
    check_context,
    check_costs,
    check_fit_context,
    check_kernel_scale,
    check_pairs_labels,
    check_sample_weight,
    check_weighted_labels,
    column_names,
)
from .exceptions import (
    DegenerateWarning,
    degenerate_advice,
    degenerate_warnings_silenced,
    degenerate_warnings_wanted,
    outside_stacklevel,
    probabilities_follow_wanted,
    search_found,
)
from .kernels import LINEAR, NystroemMap, exact_feature_map
from .ranking_function import (
    ComparisonMixin,
    score_spread,
    set_feature_names,
    set_ranking,
)
from .solvers import solve_dual
from .solvers.dual_cd import solve_linear_rows
from .solvers.linear import differences
from .solvers.lp import hinge_has_no_direction
from .solvers.smo import merges_duplicates
from .sparse_pairs import SparsePairs

AUTO_NYSTROEM_PAIRS = 50_000  # "auto" approximates nonlinear kernels above this many pairs
LINEAR_PRIMAL_MAX_FEATURES = 1_000  # "auto" takes the dual for wider linear problems
# The LP that certifies a degenerate fit without a direction covers every row:
# at 50,000 rows 3 s with 30 dense features (0.3 s with ids); left out past that.
NO_DIRECTION_MAX_ROWS = 50_000


def _if_context(prepared, context_coef):
    """v when the fit had a pair context, else None."""
    return None if prepared.context is None else context_coef


class PairwiseKernelModel(ComparisonMixin, ClassifierMixin, BaseEstimator):
    """Base class: fit a kernel ranking function from labeled pairs.

    A subclass names its :class:`ProblemKind` (``problem_kind``): the
    binary problem its pairs make and how the solution becomes a ranking
    function and a threshold.

    Three solvers fit the same model:

    * ``"exact"``: SMO on the kernel dual (18), rows of K~ on demand
      (:func:`svmcompare.solvers.solve_dual`);
    * ``"linear"`` (``kernel="linear"`` only): the primal hinge-loss problem
      on the difference vectors, O(n p) memory
      (:func:`svmcompare.solvers.solve_linear`);
    * ``"nystroem"``: the linear solver on a Nystroem feature map of the
      kernel with ``n_components`` landmarks (an approximation);
    * ``"auto"``: ``"linear"`` for the linear kernel (``"exact"`` when it has
      more than 1,000 features and more features than pairs); for a polynomial kernel
      with a small feature space, the linear solver on an exact feature map
      (:func:`svmcompare.kernels.exact_feature_map`: SMO needs millions of
      steps on such low-rank duals at large C); otherwise ``"exact"`` up to
      50,000 pairs and ``"nystroem"`` beyond.
    """

    problem_kind = None  # a ProblemKind, set by each estimator class

    def _check_sparse_settings(self, kernel):
        """Sparse pairs (identities) are fitted by the linear solver on their
        differences; what needs dense items is refused by name."""
        solver = setting(self, "solver")
        if kernel.code != LINEAR or solver not in ("auto", "linear"):
            raise ValueError(
                "Sparse pairs (e.g. identities) need kernel='linear' (solver 'auto' or "
                f"'linear'); got kernel={kernel.name!r}, solver={solver!r}. Pass dense "
                "pairs (X.toarray(), reshaped to (n_pairs, 2, n_features)) for other kernels.")
        if setting(self, "calibration") == "loo":
            raise ValueError("calibration='loo' needs the exact solver; sparse pairs are "
                             "calibrated on five folds or in-sample (calibration='auto').")

    def _resolve_solver(self, kernel, n_pairs, n_features=1):
        if self.solver != "auto":
            return self.solver
        if kernel.code == LINEAR and self.loss == "squared_hinge":
            return "linear"  # a primal solver (coordinate descent on wide rows)
        if kernel.code == LINEAR:
            # The primal solver's Newton steps hold a (p + 1)^2 Hessian and cost
            # O(m p^2): with many more features than pairs the dual is the
            # cheap side (p = 5,000 with 50 pairs: 30 s and 677 MB primal,
            # 0.1 s dual).
            wide = n_features > LINEAR_PRIMAL_MAX_FEATURES and n_features > n_pairs
            return "exact" if wide else "linear"
        return "exact" if n_pairs <= AUTO_NYSTROEM_PAIRS else "nystroem"

    def fit(self, X, y, context=None, sample_weight=None):
        """Fit the model on labeled pairs ``X`` (n_pairs, 2, n_features) and
        labels ``y`` in {-1, 0, 1}; see :class:`svmcompare.SVMCompare`."""
        fit_solution(self, X, y, context, sample_weight)
        return self

    def _solve(self, prepared, alpha0=None, v0=None, gradient0=None, keep_rows=False,
               first_smoothing=1.0, try_dual=True):
        """Run the chosen solver; ``prepared.gram``, ``alpha0`` and ``gradient0``
        (exact), ``v0`` (the primal solvers' (u, beta)), ``alpha0`` (dual
        coordinate descent), ``first_smoothing`` (the primal Newton method's
        first level) and ``try_dual`` (False: dense rows straight to the
        Newton method) serve warm-started paths and refits."""
        problem, kernel = prepared.problem, prepared.kernel
        n_jobs = setting(self, "n_jobs")
        if prepared.solver == "exact":
            result = solve_dual(
                problem, kernel, bias=self.problem_kind.bias, tol=self.tol, max_iter=self.max_iter,
                cache_size=self.cache_size, shrinking=bool(self.shrinking), alpha0=alpha0,
                gram=prepared.gram, n_threads=n_jobs,
                progress=bool(setting(self, "verbose")), gradient0=gradient0,
                keep_rows=keep_rows,
            )
            return result, None
        D = primal_rows(prepared)
        if v0 is not None and v0.size != D.shape[1] + bool(self.problem_kind.bias):
            v0 = None  # a refit whose pairs dropped a constant feature starts cold
        result = solve_linear_rows(D, problem.y, problem.C, bias=self.problem_kind.bias,
                                   tol=self.tol, v0=v0, alpha0=alpha0,
                                   first_smoothing=first_smoothing, loss=self.loss,
                                   n_threads=n_jobs, try_dual=try_dual)
        return result, prepared.feature_map

    def _folds_read_rows(self, prepared):
        """Whether this fit's calibration folds will start from its cached rows
        of Q (``solve_dual(keep_rows=True)``): probability=True with the row
        folds of the exact solver (every pair has a row), unless the solve
        merges equal rows, which keeping rows would undo: the fit must be the
        one probability=False gives (an attack, stop 70: ids' duplicate games
        ended at another optimum of the dual, another ranking)."""
        return bool(setting(self, "probability")) \
            and setting(self, "calibration") in ("auto", "cv") \
            and prepared.solver == "exact" \
            and rows_of_pairs(prepared.problem) is not None \
            and not merges_duplicates(prepared.problem)

    def _store(self, prepared, result, feature_map):
        """Set the fitted attributes from a solver result."""
        problem = prepared.problem
        without_direction = hinge_without_direction(self, prepared, result)
        # May raise (SVMCompare with beta >= 0) before any fitted state is set;
        # a fit certified without a direction says so in a warning of its own,
        # and one whose Lemma 1 scale nothing uses says nothing.
        quiet = without_direction or not lemma1_matters(self, prepared, result)
        with degenerate_warnings_silenced() if quiet else nullcontext():
            scale, degenerate = self.problem_kind.rank_scale(self, result.bias,
                                                             result.bias_noise)
        # A refit sets its own: an exact fit's dual objective must not outlive a
        # linear refit, nor a probability link a refit without probabilities
        # (set_params(probability=True) would have used the old link); after
        # rank_scale, which may refuse the fit with the earlier one intact.
        for name in _FIT_SPECIFIC:
            vars(self).pop(name, None)
        if degenerate is not None:
            self.degenerate_ = degenerate
        if without_direction and degenerate:
            warn_without_direction(self, result.bias)
        sv = np.flatnonzero(result.alpha > 0)
        dual_coef = problem.y[sv] * result.alpha[sv]
        if prepared.solver == "exact":
            # u = sum_t alpha_t y_t (Phi(b_t) - Phi(a_t)) (eq. 17).
            keep, coef = row_expansion(problem.a[sv], problem.b[sv], scale * dual_coef,
                                       problem.items.shape[0])
            # v = sum_t alpha_t y_t c_t: the context block's share of eq. (17).
            context_coef = scale * (problem.context[sv].T @ dual_coef)
            set_ranking(self, prepared.scaler, prepared.kernel, prepared.solver,
                              expansion=(problem.items[keep], coef),
                              context_coef=_if_context(prepared, context_coef))
            self._expansion_index = keep  # of the training items (a C path's scoring)
            self.dual_objective_ = result.objective
            self.kkt_violation_ = result.kkt_violation
            self.n_iter_ = result.n_iter
            gaps = gaps_from_gradient(self, prepared, result, scale, context_coef)
        else:
            # The primal solver returns u itself: r(z) = scale * u^T phi(z).
            q = problem.context.shape[1]
            u = result.u[:result.u.size - q]
            context_coef = scale * result.u[u.size:]
            set_ranking(self, prepared.scaler, prepared.kernel, prepared.solver,
                              weights=scale * u, feature_map=feature_map,
                              context_coef=_if_context(prepared, context_coef))
            self.primal_objective_ = result.objective
            self.n_iter_ = result.n_iter
            gaps = None
        self.support_ = sv
        self.dual_coef_ = dual_coef
        self.n_support_ = np.array(
            [np.count_nonzero(problem.y[sv] < 0), np.count_nonzero(problem.y[sv] > 0)]
        )
        self.intercept_ = float(result.bias)
        # False after a ConvergenceWarning: the fit stopped short of its tolerance.
        self.converged_ = bool(result.converged)
        # The training pairs' spread is kept when it came free (the probability
        # link and SVMCompareCV's scoring divide by it).
        self._fit_spread = None if gaps is None else score_spread(gaps)

        def training_decision():
            d = self.ranking_.difference(prepared.Xs) if gaps is None else gaps
            return d if prepared.context is None else d + prepared.context @ context_coef

        self.problem_kind.finish(self, training_decision, prepared.y, prepared.sample_weight)
        return self

    def compact_copy(self):
        """A shallow copy without the arrays of the training pairs
        (``support_``, ``dual_coef_``, a ``partial_fit``'s kept pairs and
        solver state): what scoring and refitting need, as
        model files keep it (a linear model on 10.5 M pairs was a 213 MB file
        for its three weights).  This estimator is unchanged."""
        import copy

        copied = copy.copy(self)
        for name in ("support_", "dual_coef_", "_expansion_index", "_increment"):
            vars(copied).pop(name, None)
        return copied


# Attributes some fits set and others do not (the solver's, the link's).
_FIT_SPECIFIC = ("dual_objective_", "kkt_violation_", "primal_objective_", "calibrator_",
                 "calibration_", "degenerate_", "_increment")


def lemma1_applies(beta, bias_noise):
    """Whether beta < 0 clearly, beyond the solver's rounding (or smoothing)
    noise ``bias_noise``: a beta within it is treated as 0, since its sign,
    and a ranking of scale 1 / (-beta) ~ 1e16, would depend on the order of
    the pairs."""
    return float(beta) < -max(float(bias_noise), 1e-300)


def lemma1_matters(model, prepared, result):
    """Whether a degenerate fit (beta >= 0: Lemma 1's tie band has no scale)
    is worth a warning.  Not for the squared hinge with a probability link
    (``probability=True``, or a search's refit calibrated afterwards) and a
    direction: its solution is unique and the link, not the band, makes the
    predictions (the README's races warned for nothing).  Without a direction
    (every item's weight 0 up to rounding: pairs that cancel) it still warns,
    since every score is then the same."""
    if getattr(model, "loss", "hinge") != "squared_hinge" or not (
            getattr(model, "probability", False) or probabilities_follow_wanted()):
        return True
    u = getattr(result, "u", None)
    if u is None:
        return True
    items = np.abs(np.asarray(u)[:u.size - prepared.problem.context.shape[1]])
    # u ~ C sum_t y_t d_t at small C: a real direction is far above C 1e-9.
    return not (items.size and np.max(items) > 1e-9 * float(np.max(prepared.problem.C)))


def hinge_without_direction(model, prepared, result):
    """Whether a degenerate SVMCompare fit that will warn has u = 0 as the
    exact solution of its hinge problem (:func:`solvers.lp.hinge_has_no_direction`
    on its rows): then the direction it keeps is where the solver stopped.
    Checked where the rows are explicit (linear kernel, Nystroem) and at most
    :data:`NO_DIRECTION_MAX_ROWS` (an LP over every row), only for fits whose
    warning is wanted (not a search's points or calibration folds)."""
    if getattr(model, "on_degenerate", None) != "fallback" or model.loss != "hinge" \
            or not model.problem_kind.bias or not degenerate_warnings_wanted():
        return False
    if lemma1_applies(result.bias, result.bias_noise):
        return False  # not degenerate
    problem = prepared.problem
    if problem.y.size > NO_DIRECTION_MAX_ROWS or (
            prepared.solver == "exact" and prepared.kernel.code != LINEAR):
        return False
    return hinge_has_no_direction(primal_rows(prepared), problem.y, problem.C, result.bias)


def warn_without_direction(model, beta):
    found = f"SVMCompare found beta = {float(beta) + 0.0:.4g}, >= 0 (C={model.C})"
    weigh = "more weight on ties (class_weight='balanced', what the default 'auto' does " \
        "when ties are under a third of the pairs)" if model.class_weight is None else \
        "more weight on ties than now (class_weight={1: 1, -1: w}, w above the balanced " \
        "weight of ties)"
    advice = degenerate_advice(
        f"For a ranking the problem defines: {weigh} or loss='squared_hinge'; "
        "on_degenerate='raise' makes it an error.")
    warnings.warn(
        f"{search_found(found)}, and the exact solution of its hinge problem here is u = 0 "
        "(an LP of the optimality conditions says so): the SVM finds no ranking at these "
        "class weights, and the direction the model keeps (degenerate_ = True, the tie "
        "threshold chosen on the training pairs) is where the solver stopped on its way to "
        "0, which can change with tol or the solver's start. Such directions often rank "
        "well (on the suite's engine games they order the engines much as their shares of "
        f"net wins do; BENCHMARKS.md), but nothing defines them. {advice}",
        DegenerateWarning, stacklevel=outside_stacklevel())


def prepare(model, X, y, context=None, sample_weight=None):
    """Validate, standardize and build the binary problem (no solving)."""
    kernel = check_parameters(model)
    X, y = check_pairs_labels(X, y)
    context = check_context(context, X.shape[0])
    check_fit_context(context)
    sample_weight = check_sample_weight(sample_weight, X.shape[0])
    check_weighted_labels(model.problem_kind.check_labels, y, sample_weight,
                          type(model).__name__)
    sparse = isinstance(X, SparsePairs)
    if sparse:
        model._check_sparse_settings(kernel)
    scaler = Standardizer.fit(X, sample_weight,
                              scale_indicators=setting(model, "scale_indicators"))
    Xs = scaler.transform_pairs(X)
    if not (Xs.any_difference() if sparse else np.any(Xs[:, 0] != Xs[:, 1])):
        raise ValueError(
            "x and x' are identical in every pair (on the features that vary), so the "
            "pairs say nothing about which item is better; check how X was built."
        )
    if not sparse:
        check_kernel_scale(kernel, Xs)
    problem = model.problem_kind.build(model, Xs, y, context, sample_weight)
    check_costs(problem.C)
    solver = "linear" if sparse else model._resolve_solver(kernel, X.shape[0], Xs.shape[2])
    feature_map = None
    if solver == "nystroem":
        feature_map = NystroemMap(kernel, model.n_components, model.random_state)
        feature_map.fit(problem.items)
    elif solver == "exact" and model.solver == "auto":
        feature_map = exact_feature_map(kernel, problem.items, problem.a.size)
        if feature_map is not None:
            solver = "nystroem"
    return Prepared(kernel=kernel, y=y, scaler=scaler, Xs=Xs, problem=problem,
                    solver=solver, feature_map=feature_map, X=X, context=context,
                    sample_weight=sample_weight)


def solve(model, prepared, **start):
    """Run ``model``'s solver on a prepared problem; ``start`` holds the warm
    start (``alpha0``, ``gradient0``, ``v0``, ``keep_rows``, ``first_smoothing``; see
    :meth:`PairwiseKernelModel._solve`).  Returns (result, feature map)."""
    return model._solve(prepared, **start)


def store(model, prepared, result, feature_map):
    """Set ``model``'s fitted attributes from a solver result; returns ``model``."""
    return model._store(prepared, result, feature_map)


def expansion_index(model):
    """The training items (of the prepared problem) that ``model``'s expansion
    keeps, in its order: exact-solver fits only."""
    return model._expansion_index


def fit_solution(model, X, y, context=None, sample_weight=None, start=None):
    """``fit`` without probabilities (its solver started by ``start(prepared)``
    when given); returns the prepared problem, the solver result and the
    feature map, from which the calibration folds start."""
    column_names(context)  # a repeated name refused before the solve, not after
    prepared = prepare(model, X, y, context, sample_weight)
    options = {} if start is None else dict(start(prepared))
    if model._folds_read_rows(prepared):
        options["keep_rows"] = True
    result, feature_map = model._solve(prepared, **options)
    model._store(prepared, result, feature_map)
    set_feature_names(model, X, context)
    return prepared, result, feature_map


def training_spread(model, Xs):
    """:func:`score_spread` of r(x') - r(x) on ``Xs``, the standardized
    pairs of the last fit (from the solver when it has it)."""
    spread = getattr(model, "_fit_spread", None)
    return spread if spread is not None else score_spread(model.ranking_.difference(Xs))


def store_all_pairs(model, scaler, kernel, result, Xs_sample, y_sample, w_sample=None):
    """Fitted state from :func:`svmcompare.solvers.all_pairs.solve_all_pairs`
    (graded items: r(z) = scale * u^T z, no rows and so no support vectors);
    a threshold of eq. (6) is chosen on the sample of training pairs."""
    scale, degenerate = model.problem_kind.rank_scale(model, result.bias, result.bias_noise)
    if degenerate is not None:
        model.degenerate_ = degenerate
    set_ranking(model, scaler, kernel, "all-pairs", weights=scale * result.u)
    model._fit_spread = None
    model.primal_objective_ = result.objective
    model.n_iter_ = result.n_iter
    model.intercept_ = float(result.bias)
    model.converged_ = bool(result.converged)
    model.problem_kind.finish(model, lambda: model.ranking_.difference(Xs_sample), y_sample,
                              w_sample)
    return model


def primal_rows(prepared):
    """The rows d_t of the primal solvers: differences of the items'
    features (explicit, or Nystroem's), then the pair's context."""
    if prepared.rows is not None:
        return prepared.rows
    problem, feature_map = prepared.problem, prepared.feature_map
    if feature_map is not None and not getattr(feature_map, "exact", False):
        return nystroem_rows(feature_map, problem)
    if sp.issparse(problem.items):  # sparse pairs: d_t = x'_t - x_t, still sparse
        D = problem.items[problem.b] - problem.items[problem.a]
        if problem.context.shape[1]:
            D = sp.hstack([D, sp.csr_matrix(problem.context)], format="csr")
        return D
    features = problem.items if feature_map is None else feature_map.transform(
        problem.items)
    D = differences(features, problem.a, problem.b)
    del features
    if problem.context.shape[1]:
        D = np.hstack([D, problem.context])  # v is the last q weights
    return D


def gaps_from_gradient(model, prepared, result, scale, context_coef):
    """r(x') - r(x) on the training pairs, read off the dual gradient
    instead of kernel blocks against the expansion.

    SMO returns G = Q alpha - 1 on every row, and y_t (G_t + 1)
    = sum_s alpha_s y_s K~_ts = u^T (Phi(b_t) - Phi(a_t)) + v^T c_t
    (eqs. 17, 18): times Lemma 1's scale, less the context term, it is
    r(b_t) - r(a_t), the rank gap of the row's pair with the row's
    orientation.  Pairs without a row (SVMRank's equality pairs) are
    computed: from the item kernel when a C path has it, else by kernel
    blocks against the expansion.
    """
    problem, Xs = prepared.problem, prepared.Xs
    n = Xs.shape[0]
    pairs, first_row = np.unique(problem.pair, return_index=True)
    fitted = (result.gradient[first_row] + 1.0) * problem.y[first_row]
    gaps = np.empty(n)
    gaps[pairs] = oriented_gaps(problem, first_row, scale * fitted, context_coef)
    if pairs.size < n:
        rest = np.ones(n, dtype=bool)
        rest[pairs] = False
        if prepared.gram is None:
            gaps[rest] = model.ranking_.difference(Xs[rest])
        else:
            # r(x') - r(x) by eq. (19) over the training items.
            x, x2 = problem.pair_items[np.flatnonzero(rest)].T
            rows = prepared.gram[x2] - prepared.gram[x]
            gaps[rest] = rows[:, model._expansion_index] @ model.ranking_.coef
    return gaps
