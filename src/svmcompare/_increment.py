"""``SVMCompare.partial_fit``: pairs added to a linear squared-hinge model and
the model refitted on every pair so far, from the solution before them
(:mod:`solvers.incremental`), as a week of new results arrives (issue 32).

The state kept between calls (``_increment``, never written to a model file)
holds the solver's expansion of the earlier rows and the pairs themselves
(their threshold, probability link and calibration folds see every pair, as
``fit``'s do).  The class weights of eq. (8)'s flipped labels are resolved on
every pair so far; when they move, the solver scales the earlier rows' costs
by label group, so the model stays the one ``fit`` would give on all pairs.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._base import primal_rows, store
from ._problem import BinaryProblem, Prepared, Standardizer, flip_compare, label_weights
from ._validation import (
    check_context,
    check_costs,
    check_feature_names,
    check_fit_context,
    check_pairs_labels,
    check_sample_weight,
    check_weighted_labels,
    column_names,
    pair_feature_names,
)
from .kernels import LINEAR
from .ranking_function import set_names
from .solvers.incremental import SquaredHingeIncrement
from .sparse_pairs import SparsePairs

# Parameters that only say how to run a fit, not what it fits: they may change
# between calls.
_RUN_PARAMETERS = ("n_jobs", "verbose", "cache_size", "random_state")


@dataclass
class _Batch:
    Xs: object  # SparsePairs or (n, 2, p) array, unstandardized
    y: np.ndarray
    context: np.ndarray  # (n, q) or None
    weight: np.ndarray  # the pairs' weights as given (None: 1)
    factor: float = 1.0  # the product of later calls' earlier_weight


@dataclass
class Increment:
    """What partial_fit keeps: the solver state, every batch of pairs, what
    the model's parameters and input names were at the first call, and
    running totals over the pairs (their labels' weights, the largest cost
    of each label group's rows)."""

    solver: SquaredHingeIncrement
    params: dict
    sparse: bool
    n_features: int
    n_context: int
    feature_names: list = None
    context_names: list = None
    batches: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # each batch's flipped rows (eq. 8)
    multipliers: dict = None  # the class weights of the flipped labels in use
    decided: float = 0.0  # weighted pairs labelled -1 or 1
    ties: float = 0.0  # weighted pairs labelled 0, twice (two flipped rows each)
    cost_max: np.ndarray = field(default_factory=lambda: np.zeros(2))  # per label group
    ranking: object = None  # the ranking_ the last call stored (whose state this is)


def _pairs(batches, factors):
    """Every pair of ``batches`` (pairs, labels, context, weights times ``factors``)."""
    if isinstance(batches[0].Xs, SparsePairs):
        Xs = SparsePairs(*(sp.vstack([getattr(b.Xs, side) for b in batches], format="csr")
                           for side in ("first", "second")))
    else:
        Xs = np.concatenate([b.Xs for b in batches])
    y = np.concatenate([b.y for b in batches])
    context = None if batches[0].context is None else \
        np.concatenate([b.context for b in batches])
    weight = None
    if any(b.weight is not None or f != 1.0 for b, f in zip(batches, factors, strict=True)):
        weight = np.concatenate([(np.ones(b.y.size) if b.weight is None else b.weight) * f
                                 for b, f in zip(batches, factors, strict=True)])
    return Xs, y, context, weight


def _label_weights(y, weight):
    """The batch's weighted numbers of flipped rows labelled 1 and -1 (two a tie)."""
    w = np.ones(y.size) if weight is None else weight
    return float(w[y != 0].sum()), 2.0 * float(w[y == 0].sum())


def _feature_range(X, weight):
    """Each feature's largest and smallest value over the items of pairs ``X``
    whose weight is positive (the items fit's standardization looks at; the
    caller has checked that some pair weighs something)."""
    if isinstance(X, SparsePairs):
        keep = None if weight is None else weight > 0
        ranges = [_csr_column_range(side, keep) for side in (X.first, X.second)]
        return np.maximum(ranges[0][0], ranges[1][0]), np.minimum(ranges[0][1], ranges[1][1])
    items = (X if weight is None else X[weight > 0]).reshape(-1, X.shape[2])
    return items.max(axis=0), items.min(axis=0)


def _csr_column_range(A, keep=None):
    """Each column's largest and smallest value over the rows of CSR ``A``
    (those where ``keep`` is True), implicit zeros included, from the stored
    entries as they lie (SciPy's ``max(axis=0)`` converts to CSC first: 74 ms
    of a week's ``partial_fit`` at 1,000,000 pairs)."""
    if not A.has_canonical_format:
        # Entries stored twice (0.5 + 0.5 for a 1) would hide a column's zeros
        # from the count below and split its values (an attack, stop 70).
        A = A.copy()
        A.sum_duplicates()
    n, p = A.shape
    columns, values = A.indices, A.data
    if keep is not None:
        on = np.repeat(keep, np.diff(A.indptr))
        columns, values, n = columns[on], values[on], int(np.count_nonzero(keep))
    high, low = np.full(p, -np.inf), np.full(p, np.inf)
    np.maximum.at(high, columns, values)
    np.minimum.at(low, columns, values)
    # A column with fewer stored entries than rows holds a zero somewhere.
    sparse = np.bincount(columns, minlength=p) < n
    high[sparse] = np.maximum(high[sparse], 0.0)
    low[sparse] = np.minimum(low[sparse], 0.0)
    return high, low


def _check_settings(model, kernel):
    solver = model.solver
    if kernel.code != LINEAR or model.loss != "squared_hinge" or solver not in ("auto", "linear"):
        raise ValueError(
            "partial_fit refits the linear squared hinge from its last solution: it needs "
            "kernel='linear', loss='squared_hinge' and solver 'auto' or 'linear' (got "
            f"kernel={model.kernel!r}, loss={model.loss!r}, solver={solver!r}); fit "
            "refits any model on all pairs.")


def gives_fits_model(estimator, X):
    """Whether ``partial_fit`` batches of the (validated) pairs ``X`` give the
    model ``estimator.fit`` gives on them: an estimator with ``partial_fit``
    for its settings, ``scale_indicators=False`` and features of 0 and 1 only
    (identities: unscaled, so fit's standardization only centers them, which
    no difference sees)."""
    if not hasattr(estimator, "partial_fit") or estimator.get_params().get("scale_indicators"):
        return False
    try:
        from ._parameters import check_parameters

        _check_settings(estimator, check_parameters(estimator))
    except ValueError:
        return False
    if isinstance(X, SparsePairs):
        values = np.concatenate([X.first.data, X.second.data])
    else:
        values = np.asarray(X).ravel()
    return bool(np.all((values == 0.0) | (values == 1.0)))


def _check_earlier_weight(value):
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        number = np.nan
    if not isinstance(value, numbers.Real) or isinstance(value, bool) \
            or not np.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ValueError(f"earlier_weight must be a number in [0, 1]; got {value!r} (a time "
                         "decay's factor for the time since the last call, e.g. "
                         "2 ** (-days / half_life); 0 forgets every earlier pair).")
    return number


def _run_free_params(model):
    """The model's parameters that say what it fits (not how to run the fit)."""
    return {k: v for k, v in model.get_params(deep=False).items() if k not in _RUN_PARAMETERS}


def _start(model, params, X, context, names):
    return Increment(solver=SquaredHingeIncrement(n_groups=2, bias=True, tol=model.tol),
                     params=params, sparse=isinstance(X, SparsePairs), n_features=X.shape[2],
                     n_context=0 if context is None else context.shape[1],
                     feature_names=names[0], context_names=names[1])


def _check_continues(state, params, X, context, names):
    changed = sorted(k for k in params if not _same(params[k], state.params.get(k)))
    if changed:
        raise ValueError(f"partial_fit continues the model its first call fitted; "
                         f"{', '.join(changed)} changed since (fit starts over).")
    sparse = isinstance(X, SparsePairs)
    if sparse != state.sparse or X.shape[2] != state.n_features:
        kind = ("sparse", "dense")
        raise ValueError(f"X must be {kind[not state.sparse]} pairs of {state.n_features} "
                         f"features, as the pairs before; got {kind[not sparse]} pairs of "
                         f"{X.shape[2]} features.")
    q = 0 if context is None else context.shape[1]
    if q != state.n_context:
        raise ValueError(f"context has {q} columns; the pairs before had {state.n_context}.")
    # A DataFrame's columns are read in its own order: another order than the
    # first call's would put each value under another feature.
    check_feature_names(state.feature_names, names[0], "X (the pairs before had other names)")
    check_feature_names(state.context_names, names[1],
                        "context (the pairs before had other names)")


def _same(a, b):
    try:
        return bool(a == b) if not isinstance(a, np.ndarray | list) else \
            np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    except (TypeError, ValueError):
        return a is b


def _concatenated_problem(problems, C):
    """One BinaryProblem of the batches' problems in order (items, pairs and
    rows offset), with the costs ``C`` the solver holds now."""
    items_offset = pairs_offset = 0
    a, b, pair, pair_items = [], [], [], []
    for problem in problems:
        a.append(problem.a + items_offset)
        b.append(problem.b + items_offset)
        pair.append(problem.pair + pairs_offset)
        pair_items.append(problem.pair_items + items_offset)
        items_offset += problem.items.shape[0]
        pairs_offset += problem.pair_items.shape[0]
    items = sp.vstack([p.items for p in problems], format="csr") \
        if sp.issparse(problems[0].items) else np.concatenate([p.items for p in problems])
    return BinaryProblem(items, np.concatenate(a), np.concatenate(b),
                         np.concatenate([p.y for p in problems]), C,
                         np.concatenate([p.context for p in problems]),
                         np.concatenate(pair), np.concatenate([p.flipped for p in problems]),
                         np.concatenate(pair_items))


def partial_fit(model, X, y, context=None, sample_weight=None, earlier_weight=1.0):
    """The fit layer of :meth:`SVMCompare.partial_fit`: the batch checked, the
    solver's rows added and the model's ranking stored; returns (prepared,
    result, state).  ``model._increment`` is None from the solve on: a call
    that fails there leaves nothing to continue from (the caller sets the
    state after its own steps succeed); a call refused before it leaves the
    state as it was."""
    from ._parameters import check_parameters

    state = getattr(model, "_increment", None)
    if state is None and hasattr(model, "ranking_"):
        raise ValueError(
            f"This {type(model).__name__} holds no partial_fit state (it was fitted by fit, "
            "which keeps no pairs, read from a file, or its last partial_fit failed): "
            "partial_fit continues only what partial_fit began; give it the first batch "
            "too, or fit on all pairs.")
    if state is not None and state.ranking is not getattr(model, "ranking_", None):
        raise ValueError(
            "This model's partial_fit state was moved on by another model that shares it (a "
            "shallow copy, copy.copy, updated since): it no longer holds this model's pairs. "
            "Copy with copy.deepcopy to continue copies apart.")
    kernel = check_parameters(model)
    _check_settings(model, kernel)
    earlier_weight = _check_earlier_weight(earlier_weight)
    names = (pair_feature_names(X), column_names(context))
    X, y = check_pairs_labels(X, y)
    context = check_context(context, X.shape[0])
    check_fit_context(context)
    sample_weight = check_sample_weight(sample_weight, X.shape[0], positive_sum=False)
    params = _run_free_params(model)
    fresh = state is None
    if fresh:
        state = _start(model, params, X, context, names)
    else:
        _check_continues(state, params, X, context, names)
    # Kept (the caller's arrays may change later), features as given: no center.
    X = SparsePairs(X.first.copy(), X.second.copy()) if isinstance(X, SparsePairs) else \
        np.array(X, dtype=np.float64)
    batch = _Batch(X, y, context, sample_weight)

    # Everything below the solve is checked on the pairs so far before the
    # state changes, so that a refused batch leaves it as it was.
    batches = state.batches + [batch]
    factors = [b.factor * earlier_weight for b in state.batches] + [1.0]
    Xs_all, y_all, context_all, weight_all = _pairs(batches, factors)
    if weight_all is not None and not weight_all.sum() > 0:
        raise ValueError("sample_weight is zero for every pair so far (with earlier_weight "
                         f"{earlier_weight} on the pairs before).")
    check_weighted_labels(model.problem_kind.check_labels, y_all, weight_all,
                          type(model).__name__)
    decided, ties = _label_weights(y, sample_weight)
    decided += earlier_weight * state.decided
    ties += earlier_weight * state.ties
    multipliers = label_weights(model.class_weight, decided, ties)
    problem = flip_compare(X, y, float(model.C), multipliers, context, sample_weight)
    # The features fit would keep: those varying over the items that weigh
    # something now (a decay that underflowed to 0 drops items, as in fit).
    high, low = _feature_range(Xs_all, weight_all)
    n_kept = int(np.count_nonzero(high > low))
    if n_kept == 0:
        raise ValueError("Every feature is constant over the items so far (zero variance); no "
                         "ranking function can be learned.")
    old = state.multipliers or multipliers
    scale = earlier_weight * np.array([multipliers[1] / old[1], multipliers[-1] / old[-1]])
    # The earlier rows' costs move with the decay and the class weights: the
    # largest of them is checked as fit checks every pair's.
    earlier_max = state.cost_max * scale
    check_costs(np.concatenate([problem.C, earlier_max]))
    scaler = Standardizer(mean=np.zeros(state.n_features), scale=np.ones(state.n_features),
                          keep=np.ones(state.n_features, dtype=bool))
    batch_prepared = Prepared(kernel=kernel, y=y, scaler=scaler, Xs=X, problem=problem,
                              solver="linear")
    D = primal_rows(batch_prepared)
    values = np.abs(D.data if sp.issparse(D) else D)
    # Squared (the Hessian's terms), differences past 1e50 lose every digit or
    # overflow (fit standardizes and refuses kernel values past 1e100 alike).
    if values.size and not float(values.max()) <= 1e50:
        raise ValueError("X: a difference x' - x (or a context value) reaches "
                         f"{float(values.max()):.3g}; partial_fit uses features as given, and "
                         "past 1e50 their squares lose every digit: scale them first.")

    for earlier, factor in zip(state.batches, factors, strict=False):
        earlier.factor = factor
    state.batches.append(batch)
    state.decided, state.ties = decided, ties
    group = (problem.y < 0).astype(np.int64)
    state.cost_max = np.maximum(earlier_max, [np.max(problem.C[group == k], initial=0.0)
                                              for k in (0, 1)])
    model._increment = None
    result = state.solver.add(D, problem.y, problem.C, group=group, scale=scale)
    state.multipliers = multipliers
    state.problems.append(problem)
    C_all = np.concatenate([block.C for block in state.solver.blocks])
    prepared = Prepared(kernel=kernel, y=y_all, scaler=scaler, Xs=Xs_all,
                        problem=_concatenated_problem(state.problems, C_all), solver="linear",
                        X=Xs_all, context=context_all, sample_weight=weight_all,
                        n_kept=n_kept)
    store(model, prepared, result, None)
    state.ranking = model.ranking_
    set_names(model, state.feature_names, state.context_names)
    return prepared, result, state
