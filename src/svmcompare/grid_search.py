"""Scoring a hyper-parameter grid on splits, reusing work across the grid.

Section 4 of the paper fits a 10 x 10 grid of models (C = 10^-3..10^3,
kernel width gamma = 2^-7..2^4, both log-spaced) on a training set and keeps
the one with the smallest validation zero-one error (Figure 4) or the largest
validation AUC (Figure 5).

For a fixed gamma, the fits along C share everything but the costs: the
pairs are validated, standardized and flipped once, the item kernel matrix is
computed once (up to half of ``cache_size`` or :data:`PATH_GRAM_BYTES`,
whichever is larger), and each dual solve starts from the previous one's
solution scaled by C_new / C_old, which stays feasible for the box
[0, C_new] and the equality constraint of (18) (alpha seeding; from 0
where the dual is lower there, see :func:`_seeded_start`).
:func:`fit_C_path` does this; :func:`validation_search` (the paper's
train/validation protocol) and
:class:`~svmcompare.model_selection.SVMCompareCV` (cross-validation) are
built on it.  Every estimator also works unchanged in scikit-learn's
``GridSearchCV``, which refits each grid point from scratch.
"""

from __future__ import annotations

import itertools
import numbers
import time
from contextlib import nullcontext
from dataclasses import replace

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone
from tqdm.auto import tqdm

from ._base import expansion_index, prepare, primal_rows, solve, store, training_spread
from ._problem import row_expansion
from ._validation import check_C, check_costs, check_pairs_labels, take_rows
from .exceptions import NoRankingError, degenerate_warnings_silenced, fit_named
from .kernels import BlockBases, KernelChain
from .metrics import comparison_report
from .ranking_function import standardized_pairs
from .solvers.csr_products import kept_csr
from .solvers.interrupt import bar_options

# The item kernel matrix a C path keeps (8 bytes a value: up to 8,192 items).
PATH_GRAM_BYTES = 512 * 2**20
# The primal Newton method's first smoothing level when a linear path starts
# it from the previous C's (u, beta): on a fold of 16,000 club-football pairs
# (196 columns, C = 0.1..100) 177-193 steps against 223-256 from the first
# level, 1.0 (0.1: 182-235; 0.001: 139-270).
PATH_FIRST_SMOOTHING = 0.01


def paper_grid(n_C=10, n_gamma=10):
    """The paper's grid: C = 10^-3..10^3 and gamma = 2^-7..2^4, log-spaced.

    gamma comes first so that C varies fastest, as in the paper's scripts,
    which matters only for breaking ties between equally good grid points.
    """
    return {
        "gamma": np.logspace(-7, 4, n_gamma, base=2.0),
        "C": np.logspace(-3, 3, n_C),
    }


def grid_points(param_grid):
    """Grid points of a dict (Cartesian product) or a list of dicts (their union)."""
    grids = [param_grid] if isinstance(param_grid, dict) else list(param_grid)
    points = []
    for grid in grids:
        if not isinstance(grid, dict):
            raise TypeError(f"param_grid must be a dict or a list of dicts; got {grid!r}.")
        names = list(grid)
        for name, values in grid.items():
            # A scalar, or a string read letter by letter ("linear" as 'l', 'i', ...).
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") \
                    or getattr(values, "ndim", 1) != 1:
                raise TypeError(f"param_grid[{name!r}] must be a list of values; got "
                                f"{values!r} (write [{values!r}] for one value).")
        for values in itertools.product(*grid.values()):
            points.append(dict(zip(names, values, strict=True)))
    return points


def fit_C_path(estimator, X, y, Cs, context=None, sample_weight=None):
    """Fit ``estimator`` at every C in ``Cs``, sharing work between the fits.

    Parameters
    ----------
    estimator : SVMCompare, SVMRank, SVMRank2 or SVMCompareLP
        Its other hyper-parameters (kernel, gamma, class_weight...) are used.
    X, y : pair array and labels
    Cs : sequence of float > 0
    context : array of shape (n_pairs, q), optional
        The pair context (see :meth:`SVMCompare.fit`).
    sample_weight : array of shape (n_pairs,), optional
        Pair weights (see :meth:`SVMCompare.fit`).

    Returns
    -------
    list
        One fitted estimator per C, in the order of ``Cs``; ``None`` where the
        fit has no ranking function (:class:`svmcompare.NoRankingError`).
    """
    return _fit_path(estimator, X, y, Cs, context, sample_weight)[0]


def _fit_path(estimator, X, y, Cs, context=None, sample_weight=None, bases=None, chain=None,
              ends=None):
    """:func:`fit_C_path`'s models and the prepared problem they share (the item
    kernel's base kept in ``bases``, a :class:`~svmcompare.kernels.BlockBases`;
    the item kernel itself carried on to the next path in ``chain``, a
    :class:`~svmcompare.kernels.KernelChain`).  ``ends(index, model,
    prepared)``, called after each fit in increasing C (the model None where
    it has no ranking function), returning True ends the path there: the C
    values not reached have no model (None)."""
    Cs = [float(C) for C in Cs]
    for C in Cs:
        check_C(C)
    prepared = prepare(clone(estimator).set_params(C=1.0), X, y, context, sample_weight)
    kept = nullcontext()
    unit_cost = prepared.problem.C
    check_costs(unit_cost, max(Cs, default=1.0))
    if prepared.solver in ("exact", "lp"):
        items = prepared.problem.items
        # A path solves many problems on these items: their kernel matrix, by
        # matrix products, is worth keeping up to PATH_GRAM_BYTES even where
        # cache_size is smaller (football_odds, 7,400 items: a path of four C
        # 4.1 -> 0.8 s); the solver's row cache of Q still has cache_size.
        if 8.0 * items.shape[0] ** 2 <= path_budget(estimator):
            gram = prepared.kernel.block(items, items, bases) if chain is None else \
                chain.gram(prepared.kernel, items, bases)
            prepared = replace(prepared, gram=gram)
    elif prepared.solver in ("linear", "nystroem"):
        # The same rows at every C: formed once (Nystroem's feature map over
        # both items of every row was a tenth of club football's search).
        rows = primal_rows(prepared)
        if isinstance(rows, np.ndarray):
            # Made for this path and read-only: the solvers convert them to CSR
            # once for the whole path (kept_csr below) instead of once per C.
            rows.flags.writeable = False
            kept = kept_csr(rows)
        prepared = replace(prepared, rows=rows)
    models = [None] * len(Cs)
    alpha, gradient, primal, previous = None, None, None, None
    try_dual = True  # until a C of the path needs the Newton method
    with kept:  # the rows' CSR copy, where the solvers make one, for every C
        for i in np.argsort(Cs, kind="stable"):
            C = Cs[i]
            model = clone(estimator).set_params(C=C)
            step = replace(prepared, problem=replace(prepared.problem, C=unit_cost * C))
            # Alpha seeding: scaling keeps 0 <= alpha <= C and y^T alpha = 0, and
            # scales Q alpha with it: G = Q alpha - 1 goes to k (G + 1) - 1.
            start = {}
            if alpha is None and prepared.solver == "exact" and prepared.gram is not None \
                    and model.problem_kind.bias:
                start = _corner_start(step.problem, prepared.gram)
            if alpha is not None and prepared.solver == "exact":
                start = _seeded_start(alpha, gradient, C / previous)
            elif alpha is not None:
                # The primal solvers: (u, beta) for Newton's steps, which start past
                # its coarsest smoothing levels, and the scaled alphas for
                # coordinate descent.
                start = {"v0": primal, "alpha0": alpha * (C / previous),
                         "first_smoothing": PATH_FIRST_SMOOTHING, "try_dual": try_dual}
            with fit_named(f"at C={C:g}"):
                result, feature_map = solve(model, step, **start)
            if prepared.solver == "exact":
                alpha, gradient, previous = result.alpha, result.gradient, C
            elif prepared.solver in ("linear", "nystroem"):  # the same features along the path
                alpha, previous = result.alpha, C
                primal = np.append(result.u, result.bias) if model.problem_kind.bias else result.u
                # Coordinate descent's passes grow with C: where they failed (or
                # did not suit) at this C, they mostly fail at the larger ones
                # too, their passes thrown away for Newton's (football_20k: all 64
                # such attempts); where they would have converged, Newton's
                # solution is the same optimum to the tolerance.
                try_dual = try_dual and result.solver == "dual_cd"
            try:
                # A degenerate point is recorded (``degenerate_``), not shouted once
                # per fold and C; a refit of the chosen point still warns.
                with degenerate_warnings_silenced():
                    models[i] = store(model, step, result, feature_map)
            except NoRankingError:
                models[i] = None
            if ends is not None and ends(i, models[i], prepared):
                break
    # The item kernel and rows go with the fits (the validation block comes next).
    return models, replace(prepared, gram=None, rows=None)


_SEARCHED = ("kernel", "gamma", "class_weight", "scale_indicators", "loss")


def _dual_value(alpha, gradient):
    """The dual (18) at ``alpha`` from its gradient G = Q alpha - 1:
    1/2 alpha^T Q alpha - sum alpha = 1/2 alpha^T (G + 1) - sum alpha."""
    return 0.5 * float(alpha @ (gradient + 1.0)) - float(alpha.sum())


def _seeded_start(alpha, gradient, factor):
    """The previous C's solution scaled by ``factor`` = C_new / C_old (alpha
    seeding), or no start ({}: SMO from 0) when the dual (18) is higher there
    than at 0.

    Scaled, the dual's value is 1/2 k^2 alpha^T Q alpha - k sum alpha with
    Q alpha = G + 1: free to compute.  At small C most rows sit at their bound
    and scale with it, and the seed is far ahead of 0 (sushi's folds at
    C = 0.1: 1,584 SMO steps against 5,007 cold); at large C the free alphas
    do not grow tenfold with C, and the scaled point can lie above 0 (an RBF
    path's C = 10 on sushi: 82,977 steps and 2.6 s from the seed, 43,618 and
    1.7 s from 0).  Of the two feasible starts, the lower is taken, as
    :func:`_corner_start` does for a path's first C."""
    scaled_gradient = (gradient + 1.0) * factor - 1.0
    start = alpha * factor
    if _dual_value(start, scaled_gradient) > 0.0:
        return {}
    return {"alpha0": start, "gradient0": scaled_gradient}


def _corner_start(problem, gram):
    """Every alpha_t at its bound C_t, the start of an exact path's first
    (smallest) C when the dual (18) is lower there than at 0; else no start ({}).

    At small C nearly every row of the flipped data is a margin violator with
    alpha_t = C_t (club football and sushi at C = 0.01: 90-95% of them), so a
    cold start spent one SMO step a row getting them there (~5,000 steps,
    0.2 s a path on their folds; from the corner, 250-1,000 steps).  The
    corner is feasible for eq. (18) when y^T C = 0, which balanced class
    weights give (both labels weigh the same in total); of the two feasible
    starts, 0 and the corner, the one with the lower dual objective is taken
    (on simulated pairs at C = 0.01 the corner is the optimum; at C = 1, 100
    and 10^4 it is above 0 and SMO starts cold, as it should: from the
    corner it took 1.5x the steps at C = 100).  Q alpha comes from the
    path's item kernel: r = K c over the items, c the rows' coefficients
    alpha_t y_t at b_t and -alpha_t y_t at a_t (eq. 17), and (K~ alpha y)_t
    = r(b_t) - r(a_t) + c_t^T v."""
    alpha = np.array(problem.C, dtype=np.float64)
    weight = problem.y * alpha
    # y^T C = 0 up to the rounding of the sums (a nearly balanced class_weight
    # dict would leave SMO that far off the equality).
    if not alpha.size or abs(float(weight.sum())) > 1e-12 * float(alpha.sum()):
        return {}
    keep, coef = row_expansion(problem.a, problem.b, weight, gram.shape[0])
    item_coef = np.zeros(gram.shape[0])
    item_coef[keep] = coef
    score = gram @ item_coef
    fitted = score[problem.b] - score[problem.a] + problem.context @ (problem.context.T @ weight)
    gradient = problem.y * fitted - 1.0
    if _dual_value(alpha, gradient) >= 0.0:  # the cold start, alpha = 0, has 0
        return {}
    return {"alpha0": alpha, "gradient0": gradient}


def path_budget(estimator):
    """Bytes a C path may hold in one kernel block: half of ``cache_size``
    or :data:`PATH_GRAM_BYTES`, whichever is larger (SVMCompareLP has no
    cache_size: it builds the whole item kernel anyway)."""
    return max(getattr(estimator, "cache_size", np.inf) * 2**20 / 2, PATH_GRAM_BYTES)


def _decision_block_bytes(n_val, prepared):
    """Bytes of :func:`_path_decisions`' block: both items of ``n_val``
    validation pairs against the path's training items."""
    return 16.0 * n_val * prepared.problem.items.shape[0]


def _path_decisions(estimator, prepared, models, X_val, context_val, bases=None):
    """d = r(x') - r(x) (+ v^T context) on validation pairs for every model of
    one exact C path, from a single kernel block of the validation items
    against the path's training items (:func:`_validation_block`).  None per
    model where the block does not apply or would exceed the path's kernel
    budget (the item kernel's, freed by then: with half of ``cache_size``
    instead, football_odds' 1,000 validation pairs against 7,400 items took a
    block per model, 121 blocks in a search instead of 10)."""
    fitted = [model for model in models if model is not None]
    block = _validation_block(estimator, prepared, fitted[0], X_val, bases) if fitted else None
    return [None if block is None or model is None else
            _block_decision(block, prepared, model, context_val) for model in models]


def _validation_block(estimator, prepared, model, X_val, bases=None, held_bytes=0):
    """Both items of the validation pairs (x rows, then x' rows) against an
    exact path's training items: every model's expansion is a subset of those
    items, so with this block a model's decisions cost a matrix-vector
    product instead of a kernel block of their own.  None for other solvers,
    or where the block beside ``held_bytes`` (an item kernel still held)
    would exceed the path's kernel budget.  ``model``: any model of the path
    (they share its scaler)."""
    if prepared.solver != "exact" or \
            held_bytes + _decision_block_bytes(X_val.shape[0], prepared) > path_budget(estimator):
        return None
    Xs = standardized_pairs(model, X_val)
    return prepared.kernel.block(np.concatenate([Xs[:, 0], Xs[:, 1]]), prepared.problem.items,
                                 bases)


def _block_decision(block, prepared, model, context_val):
    """One model's validation decisions from :func:`_validation_block`'s block."""
    n_val = block.shape[0] // 2
    coef = np.zeros(prepared.problem.items.shape[0])
    coef[expansion_index(model)] = model.expansion_coef_
    rank = block @ coef  # eq. (19) on x then x'
    d = rank[n_val:] - rank[:n_val]
    return d if context_val is None else d + context_val @ model.context_coef_


def _scores(model, X, y, context, split, held_out, diff=None, Xs_train=None):
    """Validation error, AUC and (``held_out``) the validation rank gaps in units
    of the model's training spread, for a probability link; NaN when the fit failed.
    ``Xs_train``: the standardized training pairs when the caller has them (a
    path's models share them)."""
    if model is None:
        return {"error": np.nan, "auc": np.nan, "failed": True, "pruned": False,
                "degenerate": False, "held_out": None}
    train, val = split
    if diff is None:
        diff = model.decision_function(X[val], take_rows(context, val))
    report = comparison_report(y[val], diff, model.threshold_)
    gap = None
    if held_out:
        # The link's input: rank gaps without the context term, in training units.
        gap = diff if context is None else diff - context[val] @ model.context_coef_
        if Xs_train is None:
            Xs_train = standardized_pairs(model, X[train])
        gap = gap / training_spread(model, Xs_train)
    return {"error": report["error_rate"], "auc": report["auc"], "failed": False,
            "pruned": False, "degenerate": bool(getattr(model, "degenerate_", False)),
            "held_out": gap}


def _path_on_split(estimator, Cs, X, y, context, sample_weight, split, keep_models,
                   held_out, bases=None, split_name=None, chain=None, rule=None):
    """Fit the C path on the split's training pairs, score on its validation
    pairs (``split_name``, e.g. "split 2 of 5", names it in solver warnings).
    ``rule`` (a race's path rule, see :func:`search_grid`): each model is
    scored as it comes and the path ends where the rule says; the C values
    not reached are scored as pruned."""
    train, val = split
    params = estimator.get_params()
    point = ", ".join(f"{name}={params[name]!r}" for name in _SEARCHED if name in params
                      and not (name == "gamma" and params.get("kernel") == "linear"))
    where = f"of a search's point {point}" + (f" on {split_name}" if split_name else "") + \
        f" ({len(train)} training pairs; the search scored the point there as it stood)"
    scored, ends = {}, None
    if rule is not None:
        trail = []  # the fitted points' scores on the split, in increasing C
        block = []  # the validation block of an exact path, made at its first model

        def ends(index, model, prepared):
            diff = None
            if model is not None:
                if not block:
                    held = 0 if prepared.gram is None else prepared.gram.nbytes
                    block.append(_validation_block(estimator, prepared, model, X[val], bases,
                                                   held))
                if block[0] is not None:
                    diff = _block_decision(block[0], prepared, model, take_rows(context, val))
            score = _scores(model, X, y, context, split, held_out, diff, prepared.Xs)
            # The race reads these losses of the first split again (not refitted).
            score["race_losses"] = rule.losses(score)
            scored[index] = score
            trail.append(score)
            return rule.ends(trail)

    with fit_named(where):
        models, prepared = _fit_path(estimator, X[train], y[train], Cs,
                                     take_rows(context, train), take_rows(sample_weight, train),
                                     bases, chain, ends)
    if rule is not None:
        scores = [scored.get(index, _PRUNED) for index in range(len(models))]
        return models if keep_models else [None] * len(models), scores
    if chain is not None and \
            chain.nbytes + _decision_block_bytes(len(val), prepared) > path_budget(estimator):
        chain.release()  # the validation block takes the item kernel's place, as unchained
    decisions = _path_decisions(estimator, prepared, models, X[val], take_rows(context, val),
                                bases)
    # The path's models share its scaler, hence its standardized training pairs
    # (standardizing them again for each model cost 9 s of a 245 s search at 20,000 pairs).
    scores = [_scores(model, X, y, context, split, held_out, diff, prepared.Xs)
              for model, diff in zip(models, decisions, strict=True)]
    return models if keep_models else [None] * len(models), scores


def search_grid(estimator, param_grid, X, y, splits, *, context=None, sample_weight=None,
                n_jobs=None, progress=False, description=None, keep_models=False,
                held_out=False, race=None):
    """Score every grid point on every (train, validation) split.

    The one search engine under :func:`validation_search` (one split) and
    :class:`SVMCompareCV` (K folds): the grid points that differ only in C
    form one warm-started path (:func:`fit_C_path`) per split, and the paths
    run in parallel through joblib.

    Parameters
    ----------
    estimator : estimator
        A comparison estimator; its other hyper-parameters are kept.
    param_grid : dict of name -> sequence, or list of such dicts
        The Cartesian product of the values, in ``itertools.product`` order
        (the union over the dicts of a list, in order).
    X, y : pair array and labels
    splits : list of (train indices, validation indices)
    context : array of shape (n_pairs, q), optional
    sample_weight : array of shape (n_pairs,), optional
        Pair weights of the fits (validation scores are unweighted).
    n_jobs, progress, description : parallelism and the progress bar
    keep_models : bool, default=False
        Return the fitted models too (memory: one model per point and split).
    held_out : bool, default=False
        Also return each point's validation rank gaps for a probability link
        (the exact solver has them free; other solvers score the training
        pairs once more per point).
    race : callable, optional
        ``race(points, done)``, given the grid points and their scores on
        the splits done so far (the first, then the first two), returns a
        boolean mask of the points worth scoring on the next splits; the
        others are not fitted there (their scores say ``pruned``), and a
        path runs through its kept C values only.  None, or fewer than three
        splits: every point on every split.  A race with a ``path_rule(k)``
        method also ends C paths early on the first split: the rule (or
        None) has ``losses(score)``, a point's per-pair losses on split
        ``k`` (kept in its scores as ``race_losses``), and ``ends(trail)``,
        whether a path whose points so far (their scores, in increasing C)
        goes no further; the points not reached are scored as pruned there.

    Returns
    -------
    points : list of dict
        The grid points.
    scores : list (per split) of list (per point) of dict
        ``error``, ``auc``, ``failed`` (no ranking function), ``pruned``
        (left out by ``race``: NaN scores) and ``held_out`` (with
        ``held_out=True``: validation rank gaps over the model's training
        spread, else None) of each point.
    models : list (per split) of list (per point), or None
    """
    points = grid_points(param_grid)
    groups = _grouped_by_C(points, estimator)
    check_progress(progress)
    if "n_jobs" in estimator.get_params() and effective_n_jobs(n_jobs) > 1:
        # The fits run side by side: one solver thread each, not every core each.
        estimator = clone(estimator).set_params(n_jobs=1)
    # The paths of one split share their items: their kernel blocks' gamma-free
    # parts are computed once (within a process; up to cache_size more memory).
    bases = BlockBases(getattr(estimator, "cache_size", 200.0) * 2**20)
    scores = [[_PRUNED] * len(points) for _ in splits]
    models = [[None] * len(points) for _ in splits]
    seconds_per_C = {}  # a path's time on its last split, per C value
    # With a race: the first split, the second, then the rest, the race
    # judging after each of the first two (a point once left out stays out).
    waves = [range(len(splits))] if race is None or len(splits) < 3 else \
        [range(1), range(1, 2), range(2, len(splits))]
    # "auto": the bar appears once the search has run PROGRESS_AFTER seconds.
    with tqdm(total=len(splits) * len(groups), desc=description or type(estimator).__name__,
              leave=False, **bar_options(progress)) as bar:
        for wave, folds in enumerate(waves):
            if wave > 0:
                keep = np.asarray(race(points, scores[:wave]), dtype=bool)
                # A path runs through its kept C values only (warm-started as before).
                groups = [(others, kept) for others, entries in groups
                          if (kept := [(i, C) for i, C in entries if keep[i]])]
                # Every split still to come with the paths kept: the total only
                # shrinks as the race drops points (it had counted this wave's
                # splits alone, so it fell, then grew again: 30, 11, 26).
                bar.total = bar.n + (len(splits) - folds[0]) * len(groups)
                bar.refresh()
            # A wave of one split (the race's first two) keeps its kernel paths
            # apart: chained, one worker would run them all while the others idle.
            chains = _kernel_chains(groups, estimator) \
                if len(folds) >= effective_n_jobs(n_jobs) else [[group] for group in groups]
            tasks = _longest_first([(k, chain) for k in folds for chain in chains],
                                   seconds_per_C)
            # The first split's paths may end where the race would drop the rest.
            rules = {k: race.path_rule(k) if wave == 0 and len(waves) > 1 and
                     hasattr(race, "path_rule") else None for k in folds}
            outputs = Parallel(n_jobs=n_jobs)(
                delayed(_timed_chain)(estimator, chain, X, y, context, sample_weight,
                                      splits[k], keep_models, held_out, bases,
                                      f"split {k + 1} of {len(splits)}", rules[k])
                for k, chain in _counted(tasks, bar))
            for (k, chain), timed in zip(tasks, outputs, strict=True):
                for (others, entries), (seconds, (path_models, path_scores)) in \
                        zip(chain, timed, strict=True):
                    # Per C fitted (a path the race's rule ended fitted fewer).
                    fitted = sum(not score["pruned"] for score in path_scores)
                    seconds_per_C[repr(others)] = seconds / max(fitted, 1)
                    for (index, _), model, score in zip(entries, path_models, path_scores,
                                                        strict=True):
                        scores[k][index] = score
                        models[k][index] = model
    return points, scores, models if keep_models else None


# The scores of a point the race left out on a split.
_PRUNED = {"error": np.nan, "auc": np.nan, "failed": False, "pruned": True,
           "degenerate": False, "held_out": None}


def _timed_chain(estimator, chain, X, y, context, sample_weight, split, keep_models,
                 held_out, bases, split_name, rule=None):
    """:func:`_path_on_split`'s output and seconds (to order the next waves)
    for each path of ``chain`` (:func:`_kernel_chains`) on one split, in
    order, the item kernel carried from each path to the next."""
    carried = KernelChain()
    out = []
    for others, entries in chain:
        start = time.perf_counter()
        result = _path_on_split(clone(estimator).set_params(**dict(others)),
                                [C for _, C in entries], X, y, context, sample_weight, split,
                                keep_models, held_out, bases, split_name, carried, rule)
        out.append((time.perf_counter() - start, result))
    return out


def _kernel_chains(groups, estimator):
    """The C paths (:func:`_grouped_by_C`'s groups) in chains run one after
    another in one task: exact RBF paths that differ only in gamma and class
    weight share a :class:`~svmcompare.kernels.KernelChain` (one item
    kernel's memory per split instead of one per path: sushi's folds of
    6,400 items, four paths each); every other path is a chain of its own.
    The values are a new block's, so chaining changes no result."""
    params = estimator.get_params()
    chains = {}
    for others, entries in groups:
        setting = {**params, **dict(others)}
        chained = setting.get("kernel") == "rbf" and \
            setting.get("solver") not in ("nystroem", "linear")
        key = repr(tuple((k, v) for k, v in others if k not in ("gamma", "class_weight"))) \
            if chained else len(chains)
        chains.setdefault(key, []).append((others, entries))
    return list(chains.values())


def _longest_first(tasks, seconds_per_C):
    """The tasks (split, chain of (other parameters, C entries)) in the order
    the workers should take them: the longest first, so that no long path
    starts last while the other workers sit idle (club football's first
    split: an RBF path of 4.1 s in a wave of 8.5 s, dispatched fifth of
    six).  A path's time is its time per C on the split before; on the
    first, exact kernel paths (SMO on every row) before linear ones, wider
    gamma later, more C values first.  Only the order of dispatch changes,
    not any result."""
    def path(others, entries):
        known = seconds_per_C.get(repr(others))
        if known is not None:
            return (1, known * len(entries))
        params = dict(others)
        kernel = params.get("kernel", "rbf") != "linear"
        gamma = params.get("gamma")
        gamma = float(gamma) if kernel and isinstance(gamma, numbers.Real) else 0.0
        return (0, kernel, gamma, len(entries))

    def expected(task):
        parts = [path(others, entries) for others, entries in task[1]]
        if all(part[0] == 1 for part in parts):
            return (1, sum(part[1] for part in parts))
        _, kernel, gamma, n_C = max(part for part in parts if part[0] == 0)
        return (0, kernel, len(parts), gamma, n_C)

    return sorted(tasks, key=expected, reverse=True)


def _counted(tasks, bar):
    for task in tasks:
        yield task
        bar.update(len(task[1]))


def _grouped_by_C(points, estimator):
    """Grid points grouped by everything but C: one warm-started path per group.

    Returns [(other parameters as (name, value) pairs, [(point index, C), ...]), ...].
    """
    groups = {}
    for index, point in enumerate(points):
        others = tuple((k, v) for k, v in point.items() if k != "C")
        # Values may be unhashable (a class_weight dict): group by their repr.
        key = repr(others)
        groups.setdefault(key, (others, []))[1].append((index, point.get("C", estimator.C)))
    return list(groups.values())


def C_paths(points, estimator):
    """The indices of ``points`` by warm-started C path (the points equal but
    for C, as :func:`search_grid` fits them), each path in increasing C."""
    return [[index for index, _ in sorted(entries, key=lambda entry: entry[1])]
            for _, entries in _grouped_by_C(points, estimator)]


def check_progress(progress):
    """``progress`` is True, False or "auto"."""
    if not (isinstance(progress, (bool, np.bool_)) or progress == "auto"):
        raise ValueError(f'progress must be True, False or "auto"; got {progress!r}.')


def best_index(values, scoring):
    values = np.asarray(values, dtype=float)
    larger_is_better = scoring == "auc"
    worst = -np.inf if larger_is_better else np.inf
    values = np.where(np.isnan(values), worst, values)
    return int(np.argmax(values) if larger_is_better else np.argmin(values))


def validation_search(estimator, param_grid, X_train, y_train, X_val, y_val, *,
                      scoring="error", n_jobs=None, progress=False, description=None):
    """Fit every grid point on the training pairs; keep the best on validation.

    The fits along C for each value of the other parameters form one
    warm-started path (:func:`fit_C_path`); paths run in parallel.

    Parameters
    ----------
    estimator : estimator
        A comparison estimator (``SVMCompare``, ``SVMRank``, ``SVMRank2``).
    param_grid : dict of name -> sequence
        Grid points are the Cartesian product; the first best one wins ties,
        in the order of ``itertools.product`` over the dict's values.
    X_train, y_train, X_val, y_val : pair arrays and labels
    scoring : {"error", "auc"}
        Minimum validation zero-one error, or maximum validation AUC (Table 3).
    n_jobs : int or None
        Parallel paths through joblib.
    progress : bool
        Show a progress bar over the paths.

    Returns
    -------
    best : fitted estimator
    results : pandas.DataFrame
        One row per grid point: its parameters, validation ``error`` and
        ``auc``, and ``failed`` (beta >= 0 for SVMCompare: no ranking).
    """
    if scoring not in ("error", "auc"):
        raise ValueError(f"scoring must be 'error' or 'auc'; got {scoring!r}.")
    X_train, y_train = check_pairs_labels(X_train, y_train)
    X_val, y_val = check_pairs_labels(X_val, y_val)
    n_train = X_train.shape[0]
    split = (np.arange(n_train), np.arange(n_train, n_train + X_val.shape[0]))
    points, scores, models = search_grid(
        estimator, param_grid, np.concatenate([X_train, X_val]),
        np.concatenate([y_train, y_val]), [split], n_jobs=n_jobs, progress=progress,
        description=description, keep_models=True)
    results = pd.DataFrame([{**p, **{k: v for k, v in score.items() if k != "held_out"}}
                            for p, score in zip(points, scores[0], strict=True)])
    if results["failed"].all():
        raise NoRankingError(
            f"Every grid point failed for {type(estimator).__name__}: beta >= 0 everywhere. "
            "Try more weight on ties: class_weight='balanced' when ties are under a third "
            "of the pairs, else {1: 1, -1: w} with w > 1."
        )
    best = best_index(results[scoring], scoring)
    results["selected"] = np.arange(len(results)) == best
    return models[0][best], results
