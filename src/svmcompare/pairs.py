"""Pairs: stacking two item arrays into pairs, and graded items into labeled pairs.

A pair set is an array ``X`` of shape ``(n_pairs, 2, n_features)``: ``X[:, 0]``
holds x and ``X[:, 1]`` holds x'.  Labels follow eq. (1) of the paper: ``1``
means x' is better, ``-1`` means x is better and ``0`` no significant difference.

Learning to rank starts from items with grades (relevance, ratings) inside
query groups.  The pairwise transform (the RankSVM tutorial, Herbrich et al.
1999) turns every two items of the same group into a pair labeled by the
sign of their grade difference.  The usual transform drops pairs with equal
grades; ``ties="keep"`` keeps them as y = 0 pairs, the information SVMCompare
learns from.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ._validation import (
    as_float_matrix,
    check_allocation,
    check_finite,
    check_groups,
    check_outcome_map,
    check_unique_columns,
    check_vector,
    first_missing,
    listed,
    plain_value,
)
from .exceptions import outside_stacklevel


def make_pairs(Xi, Xip):
    """Stack two ``(n, p)`` arrays of items into a pair array.

    Parameters
    ----------
    Xi : array-like of shape (n_pairs, n_features)
        The first item x of each pair.
    Xip : array-like of shape (n_pairs, n_features)
        The second item x' of each pair.

    Returns
    -------
    X : ndarray of shape (n_pairs, 2, n_features)
        ``X[:, 0] == Xi`` and ``X[:, 1] == Xip``.
    """
    Xi = as_float_matrix(Xi, "Xi")
    Xip = as_float_matrix(Xip, "Xip")
    if Xi.shape != Xip.shape:
        raise ValueError(
            f"Xi and Xip must have the same shape; got {Xi.shape} and {Xip.shape}."
        )
    return np.stack([Xi, Xip], axis=1)


TIES = ("keep", "drop")


def check_grades(y, n_items, groups=None):
    """Validate grades (n_items,) and optional groups (n_items,); None groups: one group.

    Query ids go through :func:`check_groups`: a missing id (None, NaN) would
    otherwise make one group of the items of different queries (NumPy sorts
    every NaN together) or break the sort that finds the groups (None), and
    text mixed with numbers would merge 1 and "1".
    """
    y = check_vector(y, n_items, "y (grades)",
                     lambda k: f"y has {k} grades but X has {n_items} items.")
    if groups is None:
        return y, np.zeros(n_items, dtype=np.int64)
    if hasattr(groups, "to_numpy"):  # a pandas Series or Index: by position
        groups = groups.to_numpy()
    if np.ndim(groups) == 0:
        raise TypeError(f"groups must be an array-like of one query id per item; got "
                        f"{type(groups).__name__}.")
    if isinstance(groups, np.ndarray) and groups.ndim == 2 and 1 in groups.shape:
        groups = groups.ravel()  # a column (or row) of ids
    if len(groups) != n_items:
        raise ValueError(f"groups has {len(groups)} entries but X has {n_items} items.")
    return y, check_groups(groups, n_items, row="item")


def check_items(X, y, groups=None):
    """Validate items (n, p), grades (n,) and optional groups (n,)."""
    X = as_float_matrix(X, "X")
    check_finite(X, "X")
    y, groups = check_grades(y, X.shape[0], groups)
    return X, y, groups


def group_members(groups):
    """Index arrays of the items of each group, groups in sorted order."""
    _, codes = np.unique(groups, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(codes[order])) + 1)


def pair_indices(y, groups=None, ties="keep", max_pairs_per_group=None, random_state=None):
    """Index pairs (i, j), i before j, of items in the same group, and their labels.

    Labels are sign(y_j - y_i): 1 when the second item has the higher grade.

    Parameters
    ----------
    y : array-like of shape (n_items,)
        Grades (numbers); a pandas Series is read by position, not by its index.
    groups : array-like of shape (n_items,), optional
        Query ids; pairs are formed only inside a group.  None: one group.
    ties, max_pairs_per_group, random_state :
        As :func:`pairwise_transform`.

    Returns
    -------
    first, second : ndarray of int
        Positions of the two items of each pair (i < j).
    labels : ndarray of int in {-1, 0, 1}
    """
    if hasattr(y, "to_numpy"):  # a pandas Series: positions, not index labels
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one grade per item); got shape {y.shape}.")
    y, groups = check_grades(y, y.shape[0], groups)
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}; got {ties!r}.")
    if max_pairs_per_group is not None and (
            not isinstance(max_pairs_per_group, numbers.Integral)
            or isinstance(max_pairs_per_group, bool) or max_pairs_per_group < 1):
        raise ValueError(
            f"max_pairs_per_group must be a positive integer or None; got {max_pairs_per_group!r}."
        )
    rng = check_random_state(random_state)
    firsts, seconds = [], []
    for members in group_members(groups):
        if max_pairs_per_group is not None and \
                members.size * (members.size - 1) // 2 > _LISTED_PAIRS:
            # Too many pairs to list before drawing some: drawn without
            # listing them (30,000 items asked for 3.4 GB: an attack, stop 70).
            i, j = _drawn_pairs(members, y, ties, max_pairs_per_group, rng)
            firsts.append(i)
            seconds.append(j)
            continue
        i, j = np.triu_indices(members.size, k=1)
        i, j = members[i], members[j]
        if ties == "drop":
            keep = y[i] != y[j]
            i, j = i[keep], j[keep]
        if max_pairs_per_group is not None and i.size > max_pairs_per_group:
            pick = np.sort(rng.choice(i.size, size=max_pairs_per_group, replace=False))
            i, j = i[pick], j[pick]
        firsts.append(i)
        seconds.append(j)
    first = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
    second = np.concatenate(seconds) if seconds else np.zeros(0, dtype=np.int64)
    labels = np.sign(y[second] - y[first]).astype(np.int64)
    return first, second, labels


# A group's pairs listed (two int64 arrays of this many) before a cap draws
# some; past it a capped group's pairs are drawn without listing them.
_LISTED_PAIRS = 1 << 24


def _drawn_pairs(members, y, ties, cap, rng):
    """Up to ``cap`` distinct pairs (i, j), i before j, of ``members``, each as
    likely as any other (of different grades with ``ties="drop"``), drawn
    without listing the group's pairs: rounds of random index pairs, repeats
    and left-out pairs rejected, until ``cap`` are found.  Where the group has
    at most 2 ``cap`` such pairs, they are listed and ``cap`` of them drawn
    (all of them up to ``cap``)."""
    n = members.size
    grades = y[members]
    _, counts = np.unique(grades, return_counts=True)
    eligible = n * (n - 1) // 2 - (int((counts * (counts - 1) // 2).sum()) if ties == "drop"
                                   else 0)
    if 2 * cap >= eligible:  # every eligible pair listed (at most 2 cap), then a draw
        chosen = _eligible_pairs(grades, ties)
        if chosen.shape[0] > cap:
            chosen = chosen[np.sort(rng.choice(chosen.shape[0], size=cap, replace=False))]
    else:
        found = np.zeros(0, dtype=np.int64)  # pair codes a * n + b, a < b
        # Raw draws per round scaled by the share of pairs eligible (imbalanced
        # grades: few pairs of different grades among many ties; a review),
        # at most 2^22 a round.
        share = eligible / (n * (n - 1) / 2.0)
        while found.size < cap:
            want = int(min(2 * (cap - found.size) / share + 16, 1 << 22))
            a = rng.randint(0, n, size=want)
            b = rng.randint(0, n, size=want)
            a, b = np.minimum(a, b), np.maximum(a, b)
            keep = a != b
            if ties == "drop":
                keep &= grades[a] != grades[b]
            found = np.unique(np.concatenate([found, a[keep] * n + b[keep]]))
        found = rng.choice(found, size=cap, replace=False)
        chosen = np.stack([found // n, found % n], axis=1)
        chosen = chosen[np.lexsort((chosen[:, 1], chosen[:, 0]))]
    return members[chosen[:, 0]], members[chosen[:, 1]]


def _eligible_pairs(grades, ties):
    """Every pair (a, b), a < b, of positions in ``grades`` (of different
    grades with ``ties="drop"``), in lexicographic order.  With ties dropped
    every such pair has an item outside the commonest grade, so the pairs are
    listed from those k items (O(k n), at most twice the pairs listed), not
    from all n (n - 1) / 2 pairs (1.9 s at 30,000 items, three of them
    outside the commonest grade)."""
    n = grades.size
    if ties != "drop":
        return np.stack(np.triu_indices(n, k=1), axis=1)
    _, inverse, counts = np.unique(grades, return_inverse=True, return_counts=True)
    codes = [np.zeros(0, dtype=np.int64)]  # pair codes a * n + b, a < b
    for x in np.flatnonzero(inverse.ravel() != np.argmax(counts)):
        partners = np.flatnonzero(grades != grades[x])
        codes.append(np.minimum(x, partners) * n + np.maximum(x, partners))
    codes = np.unique(np.concatenate(codes))
    return np.stack([codes // n, codes % n], axis=1)


def sample_pair_indices(y, groups, n_samples, random_state=None):
    """``n_samples`` random pairs (i, j), i != j, of items in the same group, each
    pair of a group as likely as any other (drawn with replacement, without
    listing the pairs: O(n_samples) memory for groups of any size).

    Returns ``first, second, labels`` as :func:`pair_indices`.
    """
    rng = check_random_state(random_state)
    members = group_members(groups)
    sizes = np.array([m.size for m in members], dtype=np.float64)
    n_pairs = sizes * (sizes - 1) / 2
    if n_pairs.sum() == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    which = rng.choice(len(members), size=n_samples, p=n_pairs / n_pairs.sum())
    size = sizes[which].astype(np.int64)
    i = (rng.random(n_samples) * size).astype(np.int64)
    j = (rng.random(n_samples) * (size - 1)).astype(np.int64)
    j += j >= i  # a second, different member
    starts = np.concatenate([[0], np.cumsum(sizes[:-1])]).astype(np.int64)
    flat = np.concatenate(members)
    first, second = flat[starts[which] + i], flat[starts[which] + j]
    return first, second, np.sign(y[second] - y[first]).astype(np.int64)


def pairwise_transform(X, y, groups=None, ties="keep", max_pairs_per_group=None,
                       random_state=None):
    """All pairs of items within each group, labeled by their grade order.

    Parameters
    ----------
    X : array-like of shape (n_items, n_features)
    y : array-like of shape (n_items,)
        Grades (any ordered numbers: relevance levels, ratings).
    groups : array-like of shape (n_items,), optional
        Query ids; pairs are formed only inside a group.  None: one group.
    ties : {"keep", "drop"}, default="keep"
        Keep pairs with equal grades as y = 0 (for SVMCompare) or drop them
        (the tutorial's RankSVM transform).
    max_pairs_per_group : int, optional
        Keep at most this many pairs of each group, drawn at random.
    random_state : int, RandomState or None
        Seed of that subsampling.

    Returns
    -------
    X_pairs : ndarray of shape (n_pairs, 2, n_features)
        ``X_pairs[k] = (X[i], X[j])`` with i before j in the input order.
    y_pairs : ndarray of shape (n_pairs,)
        sign(y_j - y_i) in {-1, 0, 1} (eq. 1: 1 when the second item is better).
    """
    X, y, groups = check_items(X, y, groups)
    first, second, labels = pair_indices(y, groups, ties, max_pairs_per_group, random_state)
    return np.stack([X[first], X[second]], axis=1), labels


def _id_period(ids, periods):
    """(id, period) keys as a 1-D object array (not a 2-D array of pairs)."""
    keys = np.empty(len(ids), dtype=object)
    keys[:] = list(zip(ids, periods, strict=True))
    return keys


def pairs_from_frame(matches, items=None, *, a, b, outcome=None, outcome_map=None,
                     context=None, features=None, id_column="id", period=None,
                     as_frame=False, allow_self=False, sparse=False, unknown="error", ids=None):
    """Pairs, labels and context from a table of comparisons (and of items).

    Parameters
    ----------
    matches : pandas.DataFrame
        One row per comparison: the ids of its two items, optionally an
        outcome and pair-context columns.
    items : pandas.DataFrame, optional
        One row per item: an ``id_column`` (or the ids as the index, when
        there is no such column) and its features.  None: identities only, one-hot
        columns over the ids of ``matches`` (a Bradley-Terry-style ranking
        from who beat whom; pass ``sparse=True``: a linear fit on sparse
        identities takes a fraction of the dense one's time, 0.15 s against
        1.5-3.9 s at 46 ids and 3,464 pairs, with the same solution, and dense
        identities cost 16 bytes x comparisons x ids).  Pairs to predict
        need the training pairs' columns: pass ``ids=train.ids``.
    a, b : str
        Columns of the ids of x and x'.
    outcome : str, optional
        Column of the result.
    outcome_map : dict, required with ``outcome``
        Each outcome value to its label: -1 (x better), 0 (tie), 1 (x'
        better).  Never guessed: ``{"H": -1, "D": 0, "A": 1}`` when x is the
        home team, ``{-1: -1, 0: 0, 1: 1}`` when the column already holds labels.
    context : str or list of str, optional
        Pair-context columns (the advantage of x' over x, see
        :meth:`SVMCompare.fit`).
    features : str or list of str, optional
        Column(s) of ``items`` to use, each of numbers or booleans; default
        every numeric or boolean column but the id (booleans as 0 / 1, as the
        command line reads them).
    id_column : str, default="id"
        The column of ``items`` holding the ids.  Without it the index holds
        them (``items.set_index("team")``); an index of row numbers (an
        unnamed RangeIndex, such as the default) is refused, since row k is
        not item k.
    period : str, optional
        A column of both tables (season, date, rating period): the items
        table then holds per-period features, one row per (id, period), and
        each comparison takes its items' rows of its own period (features as
        they stood then, e.g. from :func:`svmcompare.datasets.games_features`
        or last season's statistics).
    as_frame : bool, default=False
        Return ``X`` as a DataFrame in the wide layout (``a_<feature>``,
        ``b_<feature>`` columns): estimators fitted on it record the feature
        names (``feature_names_in_``) and refuse other names or orders later.
    allow_self : bool, default=False
        Accept rows whose two ids are the same item (refused by default: an
        item compared with itself is usually a data error).
    unknown : {"error", "mean"}, default="error"
        An id of ``matches`` missing from ``items`` (or from ``ids``): an
        error, or "mean": the mean item's features (so that prediction can go
        on for newcomers, e.g. promoted teams; for identities 1/K on each of
        the K ids, so that a linear model scores it as the mean rating); with
        ``period``, the mean of the items of the comparison's own period.
    ids : sequence, optional
        Identities only (no ``items``): the ids of the one-hot columns, in
        order, instead of the ids of ``matches``.  Pass the ``ids`` of the
        training pairs when building pairs to predict, so that each column
        means the same id as in training (pairs built on their own get their
        own columns: other ids, another order, a model that silently mixes
        them up).  Ids are compared as text, as in training.
    sparse : bool, default=False
        Return ``X`` as a scipy sparse matrix of shape (n, 2 p), x's features
        then x''s (:mod:`svmcompare.sparse_pairs`): identities cost two
        non-zeros a comparison instead of 2 p floats.  Linear models fit it
        (``SVMCompare(kernel="linear")``, ``SVMCompareCV``).

    Returns
    -------
    sklearn.utils.Bunch
        ``X`` (n, 2, p) (sparse: (n, 2 p)), ``y`` (n,) or None, ``context`` (n, q) or None,
        ``a_ids`` and ``b_ids`` (the ids of each pair, for joining results
        back), ``feature_names`` and, for identities only, ``ids`` (the id of
        each one-hot column, as text; pass it as ``ids`` for new pairs).
    """
    import pandas as pd
    from sklearn.utils import Bunch

    if not isinstance(matches, pd.DataFrame):
        raise TypeError(f"matches must be a pandas DataFrame; got {type(matches).__name__}.")
    check_unique_columns(matches, "matches")
    if len(matches) == 0:
        raise ValueError("matches has no rows: there are no comparisons to make pairs of.")
    names = [a, b] + ([outcome] if outcome is not None else []) + _as_list(context)
    missing = [c for c in names if c not in matches.columns]
    if missing:
        raise ValueError(f"matches has no column(s) {missing}; it has {list(matches.columns)}.")
    a_ids, b_ids = matches[a].to_numpy(), matches[b].to_numpy()
    _check_ids(matches, a, b, allow_self)
    if as_frame and sparse:
        raise ValueError("as_frame=True gives a dense DataFrame; choose it or sparse=True.")
    if ids is not None and items is not None:
        raise ValueError("ids names the columns of identities only; with an items table the "
                         "columns are its features.")
    given_ids = ids  # a fit's ids for new pairs, else None: the pairs' own
    if items is None:
        # Identities are keyed by the ids as text (1 and "1" are one team).
        a_key, b_key = id_text(a_ids), id_text(b_ids)
        ids = np.unique(np.concatenate([a_key, b_key])) if ids is None else _vocabulary(ids)
        check_id_spacing(ids, f"matches columns {a} and {b}")
        if not sparse:
            check_allocation(16 * len(matches) * ids.size,
                             f"dense one-hot pairs of {ids.size} ids", "pass sparse=True.")
        table = sp.identity(ids.size, format="csr") if sparse else np.eye(ids.size)
        feature_names = [f"is_{item}" for item in ids]
        key = pd.Series(np.arange(ids.size), index=ids)
    else:
        if not isinstance(items, pd.DataFrame):
            raise TypeError(f"items must be a pandas DataFrame; got {type(items).__name__}.")
        check_unique_columns(items, "items")
        if len(items) == 0:
            raise ValueError("items has no rows: no item has features to compare.")
        item_ids = _item_ids(items, id_column)
        if period is not None:
            for table, what in ((matches, "matches"), (items, "items")):
                if period not in table.columns:
                    raise ValueError(f"{what} has no period column {period!r}.")
            item_ids = pd.Series(list(zip(item_ids, items[period], strict=True)),
                                 index=items.index)
        check_id_spacing(item_ids.unique() if period is None else
                         pd.unique(np.array([i for i, _ in item_ids], dtype=object)),
                         f"items column {id_column}" if id_column in items.columns
                         else "the items table's index")
        if item_ids.duplicated().any():
            what = "(id, period)" if period is not None else "id"
            repeated = item_ids[item_ids.duplicated()].iloc[0]
            raise ValueError(f"items repeats the {what} {repeated!r}.")
        features = _item_features(items, features, (id_column, period))
        table = as_float_matrix(items[features], "items features")
        check_finite(table, "items features")
        if sparse:
            table = sp.csr_matrix(table)
        feature_names = list(features)
        key = pd.Series(np.arange(len(items)), index=pd.Index(list(item_ids), tupleize_cols=False))
        a_key, b_key = a_ids, b_ids
        if period is not None:
            when = matches[period].to_numpy()
            a_key, b_key = _id_period(a_ids, when), _id_period(b_ids, when)
    if unknown not in ("error", "mean"):
        raise ValueError(f"unknown must be 'error' or 'mean'; got {unknown!r}.")
    positions = {}
    for column, values in ((a, a_key), (b, b_key)):
        known = pd.Index(key.index).get_indexer(values)
        if np.any(known < 0) and items is not None:
            where = id_column if id_column in items.columns else "index"
            _check_id_types(values[known < 0], key.index, column, where, period is not None)
        if np.any(known < 0) and unknown == "error":
            first = int(np.flatnonzero(known < 0)[0])
            item = plain_value(values[first] if period is None else values[first][0])
            where = "" if period is None else f" for its {period} {values[first][1]}"
            missing = len({values[k] for k in np.flatnonzero(known < 0)})
            table_name = "the items table" if items is not None else "ids"
            raise ValueError(f"matches {row_name(matches, first)}, column {column}: item {item!r} "
                             f"is not in {table_name}{where} ({missing} such id(s) in "
                             f"{column}); unknown='mean' scores them as the mean item.")
        positions[column] = known
    if items is None and given_ids is None and outcome is not None:
        # Results to fit on (not new pairs in a fit's columns, nor fixtures to predict).
        warn_separate_groups(positions[a], positions[b], ids, f"matches columns {a} and {b}")
    if any(np.any(known < 0) for known in positions.values()):  # unknown="mean"
        values = dict(((a, a_key), (b, b_key)))
        new = list(dict.fromkeys(plain_value(values[column][k] if period is None
                                             else values[column][k][0])
                                 for column, known in positions.items()
                                 for k in np.flatnonzero(known < 0)))
        shown = listed(new, show=repr)
        warnings.warn(f"{len(new)} id(s) not in "
                      f"{'the items table' if items is not None else 'ids'} scored as the "
                      f"mean item (unknown='mean'): {shown}.", UserWarning,
                      stacklevel=outside_stacklevel())
        if period is None:
            table = with_mean_item(table)
            for known in positions.values():
                known[known < 0] = table.shape[0] - 1
        else:
            table = _with_period_means(table, items[period], positions, values, period)
    rows = [table[positions[a]], table[positions[b]]]
    y = None
    if outcome is not None:
        if outcome_map is None:
            raise ValueError("outcome_map is required with outcome (it is never guessed): a dict "
                             "from each outcome value to -1 (x better), 0 (tie) or 1 (x' better).")
        check_outcome_map(outcome_map)
        mapped = matches[outcome].map(outcome_map)
        if mapped.isna().any():
            first = int(np.flatnonzero(mapped.isna().to_numpy())[0])
            value = plain_value(matches[outcome].iloc[first])
            raise ValueError(f"matches {row_name(matches, first)}: outcome {value!r} is "
                             f"not in outcome_map (keys {sorted(outcome_map, key=str)})"
                             f"{true_false_advice(matches[outcome], outcome)}.")
        y = mapped.to_numpy().astype(np.int64)
    ctx = None
    if context is not None:
        ctx = as_float_matrix(matches[_as_list(context)], "context")
        check_finite(ctx, "context")
    X = sp.hstack(rows, format="csr") if sparse else np.stack(rows, axis=1)
    if as_frame:
        X = pd.DataFrame(np.hstack([X[:, 0], X[:, 1]]), index=matches.index,
                         columns=[f"a_{n}" for n in feature_names]
                         + [f"b_{n}" for n in feature_names])
    extra = {"ids": np.asarray(ids, dtype=object)} if items is None else {}
    return Bunch(X=X, y=y, context=ctx, a_ids=a_ids, b_ids=b_ids, feature_names=feature_names,
                 **extra)


# Ids are names: their text forms are fixed-width arrays as wide as the
# longest id, so one id of 5 MB among 960 games took 19 GB (a review).
MAX_ID_CHARS = 1000


def id_text(values):
    """Ids as text, the key of identities: a whole number held as a float (a
    column with a gap becomes float64 in pandas) as the integer it is, so that
    1 and 1.0 are one team, not two; each value on its own, so a column's
    other values (1.5) do not change its key.  An id longer than
    :data:`MAX_ID_CHARS` characters is refused."""
    import pandas as pd

    values = np.asarray(values)
    # Text alone (the usual ids; not a str subclass, whose str() may differ from
    # its characters, e.g. an Enum's) is measured by C-level iteration and
    # converted at once (a Python loop over the values took 6 s of 1,000,000 games).
    text_only = values.dtype.kind == "O" and values.ndim == 1 and values.size > 0 and \
        pd.api.types.infer_dtype(values, skipna=False) == "string" and \
        set(map(type, values)) == {str}
    if text_only:
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=values.size)
        longest = values[int(np.argmax(lengths))]
    elif values.dtype.kind == "O":
        longest = max((v for v in values.ravel() if isinstance(v, str)), key=len, default="")
    if values.dtype.kind == "O" and len(longest) > MAX_ID_CHARS:
        raise ValueError(f"an id of {len(longest):,} characters ({longest[:40]!r}...): ids "
                         f"are names of at most {MAX_ID_CHARS:,} characters.")
    if text_only:
        return values.astype(str)
    if values.dtype.kind == "f":
        whole = np.isfinite(values) & (values == np.round(values)) & (np.abs(values) < 2.0**53)
        text = values.astype(str).astype(object)
        text[whole] = values[whole].astype(np.int64).astype(str)
        return text.astype(str)
    if values.dtype.kind == "O":
        return np.array([id_text(np.array([v], dtype=float))[0]
                         if isinstance(v, float) else str(v) for v in values], dtype=str)
    return values.astype(str)


def _vocabulary(ids):
    """The ids of identity columns as text, each once."""
    if isinstance(ids, str) or not hasattr(ids, "__len__"):
        raise TypeError(f"ids must be a sequence of ids (the training pairs' ids); got "
                        f"{type(ids).__name__}.")
    text = id_text(np.asarray(list(ids), dtype=object)).astype(object)
    if text.size == 0:
        raise ValueError("ids is empty: pass the ids of the training pairs (train.ids).")
    _, first, counts = np.unique(text, return_index=True, return_counts=True)
    if (counts > 1).any():
        raise ValueError(f"ids repeats {text[first[counts > 1][0]]!r}; each id names one column.")
    return text


def with_mean_item(table):
    """An items table (dense or sparse) with one more row: the mean item, the
    stand-in for ids it lacks (for identities, 1/K on each of the K ids, so
    that a linear model's r(x) of it is the mean of the known ratings)."""
    return with_mean_items(table, [None])


def with_mean_items(table, groups):
    """An items table (dense or sparse) with one more row per group of rows:
    the mean of that group's rows.

    Parameters
    ----------
    table : ndarray or scipy.sparse matrix of shape (n_items, n_features)
    groups : list of (ndarray of int or None)
        Row positions of ``table``, each non-empty; None: every row (no copy
        of a large table of identities).

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n_items + len(groups), n_features)
    """
    means = np.vstack([np.asarray((table if rows is None else table[rows]).mean(axis=0))
                       .reshape(1, -1) for rows in groups])
    if sp.issparse(table):
        return sp.vstack([table, sp.csr_matrix(means)], format="csr")
    return np.vstack([table, means])


def _with_period_means(table, item_periods, positions, keys, period):
    """The items table with the mean item of each period that has an unknown
    id, and the unknown ids' positions (-1 in ``positions``) set to it.

    A newcomer stands in for an item of its own period: the mean of later
    periods' rows would hand it features of seasons not played yet.

    Parameters
    ----------
    table : ndarray or scipy.sparse matrix
        One row per items row.
    item_periods : pandas.Series
        The items table's period column.
    positions : dict
        Column of ``matches`` -> row of ``table`` per comparison (-1:
        unknown), changed in place.
    keys : dict
        Column of ``matches`` -> (id, period) key per comparison.
    period : str
        The period column, for messages.

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix
    """
    wanted = list(dict.fromkeys(keys[column][k][1] for column, known in positions.items()
                                for k in np.flatnonzero(known < 0)))
    groups = [np.flatnonzero((item_periods == when).to_numpy()) for when in wanted]
    for when, rows in zip(wanted, groups, strict=True):
        if rows.size == 0:
            raise ValueError(f"items has no row of {period} {plain_value(when)!r}, so the mean "
                             f"item of that {period} is not known (unknown='mean' gives an "
                             "unknown id the mean of its own period's items).")
    row_of = {when: table.shape[0] + k for k, when in enumerate(wanted)}
    for column, known in positions.items():
        for k in np.flatnonzero(known < 0):
            known[k] = row_of[keys[column][k][1]]
    return with_mean_items(table, groups)


def _item_ids(items, id_column):
    """The ids of the items table: its ``id_column``, else its index when it
    was set to the ids.

    An unnamed RangeIndex (the default, or left by a slice) is row numbers,
    not ids: read as ids, item 0 would silently be whichever row came first.
    """
    import pandas as pd

    if id_column in items.columns:
        return items[id_column]
    index = items.index
    if isinstance(index, pd.RangeIndex) and index.name is None:
        raise ValueError(f"items has no id column {id_column!r} and its index is row numbers "
                         f"(an unnamed RangeIndex), not ids; pass id_column= naming the column "
                         f"of ids (items has {list(items.columns)}) or set the ids as the index "
                         "(items.set_index(column)).")
    return index.to_series()


def _item_features(items, features, not_features):
    """The feature columns of the items table as a list: ``features`` (one
    column name or a list), or every numeric or boolean column but
    ``not_features``; each must exist and hold numbers or booleans."""
    import pandas as pd

    if features is None:
        return [c for c in items.select_dtypes(["number", "bool"]).columns
                if c not in not_features]
    features = _as_list(features)
    bad = [c for c in features if c not in items.columns]
    if bad:
        raise ValueError(f"items has no feature column(s) {bad}.")
    for column in features:
        dtype = items[column].dtype
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
            raise TypeError(f"items feature column {column!r} must hold numbers or booleans; "
                            f"got dtype {dtype}.")
    return features


def true_false_advice(column, name):
    """How to read a True / False column whose values a map does not map.

    Parameters
    ----------
    column : pandas.Series
        The outcome or result column.
    name : str
        Its name, for the message.

    Returns
    -------
    str
        Advice to append to the message, or "" when the column is not boolean
        (an outcome map's keys are numbers or text, which True / False never
        match).
    """
    import pandas as pd

    if not pd.api.types.is_bool_dtype(column.dtype):
        return ""
    return (f"; column {name!r} holds True / False, which no key of a map matches: convert "
            f"it first, e.g. column.astype(int) (True -> 1, False -> 0), or map True / False "
            "to labels yourself")


def apart_from_main_group(a, b, ids):
    """Whether each id in ``ids`` played in the games (``a``, ``b``) but apart
    from their main group: the largest set of ids that met one another,
    directly or through others (the most ids, then the most games).  In a
    model of ids alone, an id apart (a regional side that only ever played
    its neighbours) has a score on no common scale with the main group's:
    its level there is the model's prior, not results.  An id without games
    is not apart (its games say 0)."""
    import pandas as pd

    index = pd.Index(id_text(np.asarray(ids, dtype=object)))
    return apart_of_positions(index.get_indexer(id_text(np.asarray(a, dtype=object))),
                              index.get_indexer(id_text(np.asarray(b, dtype=object))),
                              len(index))


def apart_of_positions(ia, ib, n):
    """:func:`apart_from_main_group` on the games' positions ``ia``, ``ib`` among
    ``n`` ids (-1: an id not among them): 0.3 s at 1,000,000 games."""
    from scipy.sparse.csgraph import connected_components

    met = (ia >= 0) & (ib >= 0)
    graph = sp.csr_matrix((np.ones(int(met.sum()), dtype=bool), (ia[met], ib[met])),
                          shape=(n, n))  # bool: repeated games cannot sum to 0
    _, label = connected_components(graph, directed=False)
    played = np.bincount(ia[met], minlength=n) + np.bincount(ib[met], minlength=n)
    if not played.any():
        return np.zeros(n, dtype=bool)  # no group at all: nothing stands apart
    # The main group: the most ids that played, then the most games.
    ids_in = np.bincount(label, weights=played > 0)
    games_in = np.bincount(label, weights=played)
    main = np.lexsort((games_in, ids_in))[-1]
    return (label != main) & (played > 0)


def warn_separate_groups(ia, ib, ids, where):
    """Warn when the games between ``ids`` (their positions ``ia``, ``ib``) fall
    into groups that never meet: an identities model puts each group's ids on
    no common scale with the main group's (their level there is its prior, not
    results)."""
    apart = apart_of_positions(np.asarray(ia), np.asarray(ib), len(ids))
    if not apart.any():
        return
    names = np.asarray(ids, dtype=object)[apart]
    warnings.warn(f"{where}: {len(names)} of {len(apart)} ids never meet the main group, not "
                  f"even through others: {listed(names)}. A model of ids alone places them on "
                  "no common scale with it (where they stand is its prior, not results); a "
                  "leaderboard flags them (column 'apart').", UserWarning,
                  stacklevel=outside_stacklevel())


def check_id_spacing(ids, where):
    """Refuse ids that differ only in spaces ("Arsenal" and "Arsenal ", or
    "Real  Madrid" and "Real Madrid"): they would be two items where the data
    mean one, each with half of its games (a trailing space of a spreadsheet
    cell is the usual cause).  ``where`` names the ids in the message."""
    seen = {}
    for item in ids:
        if not isinstance(item, str):
            continue
        item = str(item)  # numpy's str_ shows as np.str_('...')
        first = seen.setdefault(" ".join(item.split()), item)
        if first != item:
            raise ValueError(f"{where}: the ids {first!r} and {item!r} differ only in spaces, so "
                             "they would be two items. Strip the spaces around the ids and "
                             "make those inside them single (in pandas: "
                             "frame[column].str.split().str.join(' ')).")


def _check_id_types(unknown, known, column, id_column, with_period):
    """Refuse ids that miss the items table only by their type: text '1' in
    the items, the number 1 in the matches (every id would be unknown, and
    unknown='mean' would score them all as the mean item).  ``with_period``:
    keys are (id, period), and an id matches only in its own period."""
    known, unknown = list(known), list(unknown)

    def as_text(keys):
        if not with_period:
            return list(id_text(np.asarray(keys, dtype=object)))
        ids = id_text(np.asarray([k[0] for k in keys], dtype=object))
        return list(zip(ids, (k[1] for k in keys), strict=True))

    by_text = dict(zip(as_text(known), known, strict=True))
    texts = as_text(unknown)
    # One id that reads as a known one is enough: a new id beside it (the
    # test season's promoted side) must not hide the mismatch of the rest.
    at = next((k for k, t in enumerate(texts) if t in by_text), None)
    if at is None:
        return
    ours, theirs = unknown[at], by_text[texts[at]]
    if with_period:
        ours, theirs = ours[0], theirs[0]
    ours, theirs = plain_value(ours), plain_value(theirs)
    raise ValueError(f"matches column {column} holds {ours!r} ({type(ours).__name__}) where the "
                     f"items table's {id_column} holds {theirs!r} ({type(theirs).__name__}): "
                     "ids match by value and type; convert one column (e.g. .astype(str)) "
                     "first.")


def row_name(frame, position):
    """Where the row at ``position`` of ``frame`` is, for messages: "row k"
    on a default index, else its label, which is what ``.loc`` finds (a
    filtered frame's row 7601, not its position 23)."""
    import pandas as pd

    index = frame.index
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return f"row {position}"
    label = index[position]
    label = tuple(map(plain_value, label)) if isinstance(label, tuple) else plain_value(label)
    return f"the row labelled {label!r} (position {position})"


def _check_ids(matches, a, b, allow_self):
    """Refuse a missing id and, unless allowed, an item compared with itself."""
    missing = first_missing(matches, (a, b))
    if missing is not None:
        row, column = missing
        raise ValueError(f"matches {row_name(matches, row)}, column {column}: the id is missing.")
    same = id_text(matches[a].to_numpy()) == id_text(matches[b].to_numpy())
    if same.any() and not allow_self:
        row = int(np.flatnonzero(same)[0])
        item = plain_value(matches[a].iloc[row])
        raise ValueError(f"matches {row_name(matches, row)}: item {item!r} is compared with itself "
                         f"({a} = {b}); remove such rows or pass allow_self=True.")


def _as_list(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


RANKING_WEIGHTS = ("item", "pair")
UNPLACED = ("error", "last", "drop")
RANKING_COLUMNS = ("event", "item_a", "item_b", "y", "weight")


def matches_from_rankings(results, *, event, item, position, weight="item", unplaced="error",
                          keep=None, max_pairs_per_event=None, random_state=None):
    """Every two items of each event (a race, a multi-way comparison, one
    judge's ranking) as a matches table, ties kept.

    A result of k items says who finished ahead of whom for each of its
    k (k - 1) / 2 pairs ("full rank breaking"); items with the same position
    (a dead heat, equal grades) are a tie.  The table goes on to
    :func:`pairs_from_frame` (``outcome="outcome"``, ``outcome_map={-1: -1,
    0: 0, 1: 1}``, ``sample_weight`` from the ``weight`` column).

    Parameters
    ----------
    results : pandas.DataFrame
        One row per item and event.
    event, item, position : str
        Columns of the event id, the item id and the finishing position
        (numbers, lower is better: 1 the winner; equal positions tie).
    weight : {"item", "pair"}, default="item"
        The ``weight`` column: "item" 1 / (k - 1) in an event of k items, so
        that each item's pairs of an event weigh 1 in all and a field of 20
        counts as much per item as a field of 3 (the pairs of one event share
        its noise); "pair" 1 for every pair.  On simulated races "item" ranks
        better at every size tried (BENCHMARKS.md, "Many-item results").
    unplaced : {"error", "last", "drop"}, default="error"
        Rows without a position (NaN: did not finish, unranked): an error
        naming them, tied below every placed item of their event, or left out.
    keep : str or list of str, optional
        Event columns (a date, a season, a venue) copied to the pairs; each
        must hold one value per event.
    max_pairs_per_event : int, optional
        At most this many pairs of each event, drawn at random (large fields
        give k^2 / 2 pairs).
    random_state : int, RandomState or None
        Seed of that draw.

    Returns
    -------
    pandas.DataFrame
        Columns ``event`` (the event id), ``item_a`` and ``item_b`` (the item
        ids, ``item_a`` the smaller as text, so that the pairs do not all
        point one way whatever the table's order), ``y`` (-1: ``item_a``
        finished ahead, 0: a tie, 1: ``item_b`` ahead), ``weight`` and the
        ``keep`` columns; events in order of first appearance.
    """
    import pandas as pd

    if not isinstance(results, pd.DataFrame):
        raise TypeError(f"results must be a pandas DataFrame; got {type(results).__name__}.")
    check_unique_columns(results, "results")
    if weight not in RANKING_WEIGHTS:
        raise ValueError(f"weight must be one of {RANKING_WEIGHTS}; got {weight!r}.")
    if unplaced not in UNPLACED:
        raise ValueError(f"unplaced must be one of {UNPLACED}; got {unplaced!r}.")
    if max_pairs_per_event is not None and (
            not isinstance(max_pairs_per_event, numbers.Integral)
            or isinstance(max_pairs_per_event, bool) or max_pairs_per_event < 1):
        # (pair_indices would name its own parameter, max_pairs_per_group)
        raise ValueError("max_pairs_per_event must be a positive integer or None; got "
                         f"{max_pairs_per_event!r}.")
    keep = _as_list(keep)
    names = [event, item, position, *keep]
    missing = [c for c in names if c not in results.columns]
    if missing:
        raise ValueError(f"results has no column(s) {missing}; it has {list(results.columns)}.")
    clash = [c for c in keep if c in RANKING_COLUMNS]
    if clash:
        raise ValueError(f"keep column(s) {clash} would overwrite the table's own columns; "
                         "rename them first.")
    gap = first_missing(results, (event, item))
    if gap is not None:
        raise ValueError(f"results {row_name(results, gap[0])}, column {gap[1]}: the id is "
                         "missing.")
    places = _positions_of(results, position, unplaced)
    if unplaced == "drop":
        results, places = results[~np.isnan(places)], places[~np.isnan(places)]
    events, codes = _factorized(results[event])
    _check_single_entries(results, codes, event, item)
    kept = {column: _per_event(results, column, codes, len(events), event) for column in keep}
    places = _unplaced_last(places, codes, len(events))
    order = np.argsort(codes, kind="stable")
    first, second, labels = pair_indices(-places[order], codes[order], "keep",
                                         max_pairs_per_event, random_state)
    first, second = order[first], order[second]
    ids = results[item].to_numpy()
    text = ids.astype(str)
    swap = text[first] > text[second]
    first, second = np.where(swap, second, first), np.where(swap, first, second)
    labels = np.where(swap, -labels, labels)
    size = np.bincount(codes, minlength=len(events))[codes[first]]
    table = pd.DataFrame({"event": events[codes[first]], "item_a": ids[first],
                          "item_b": ids[second], "y": labels.astype(np.int64),
                          "weight": 1.0 / (size - 1) if weight == "item" else 1.0})
    for column, values in kept.items():
        table[column] = values[codes[first]]
    return table


def _positions_of(results, position, unplaced):
    """Positions as floats; NaN for an unplaced row, refused with ``"error"``."""
    import pandas as pd

    column = results[position]
    if not (pd.api.types.is_numeric_dtype(column) or column.isna().all()) \
            or pd.api.types.is_bool_dtype(column):
        raise TypeError(f"results column {position!r} must hold numbers (lower is better); "
                        f"got {column.dtype}.")
    places = column.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(places).any():
        row = int(np.flatnonzero(np.isinf(places))[0])
        raise ValueError(f"results {row_name(results, row)}: position {places[row]} is not "
                         "finite.")
    if unplaced == "error" and np.isnan(places).any():
        rows = np.flatnonzero(np.isnan(places))
        raise ValueError(f"results has {rows.size} row(s) without a position (first: row "
                         f"{int(rows[0])}); pass unplaced='last' (tied below every placed "
                         "item of the event) or unplaced='drop'.")
    return places


def _factorized(values):
    """Distinct values in order of first appearance, and each row's code."""
    import pandas as pd

    codes, distinct = pd.factorize(values, sort=False)
    return np.asarray(distinct, dtype=object), codes.astype(np.int64)


def _check_single_entries(results, codes, event, item):
    """An item appears at most once in an event."""
    twice = results.assign(_code=codes).duplicated(subset=["_code", item])
    if twice.any():
        row = int(np.flatnonzero(twice.to_numpy())[0])
        which, where = (plain_value(results[c].iloc[row]) for c in (item, event))
        raise ValueError(f"results {row_name(results, row)}: item {which!r} appears twice in event "
                         f"{where!r}.")


def _per_event(results, column, codes, n_events, event):
    """One value of ``column`` per event (refused when an event has two)."""
    import pandas as pd

    values = results[column].to_numpy()
    first = np.empty(n_events, dtype=np.int64)
    first[codes[::-1]] = np.arange(codes.size)[::-1]  # each event's first row
    per_event = values[first]
    spread = pd.Series(values)
    same = spread.eq(pd.Series(per_event[codes])) | (spread.isna()
                                                     & pd.Series(per_event[codes]).isna())
    if not same.all():
        row = int(np.flatnonzero(~same.to_numpy())[0])
        where, one, other = (plain_value(v) for v in (results[event].iloc[row],
                                                      per_event[codes[row]], values[row]))
        raise ValueError(f"keep column {column!r} has two values in event {where!r}: {one!r} "
                         f"and {other!r} (row {row}); keep only columns of the event.")
    return per_event


def _unplaced_last(places, codes, n_events):
    """NaN positions one past the event's last placed position (tied there)."""
    missing = np.isnan(places)
    if not missing.any():
        return places
    last = np.full(n_events, -np.inf)
    np.maximum.at(last, codes[~missing], places[~missing])
    last[np.isinf(last)] = 0.0  # an event without a placed item: all tied
    out = places.copy()
    out[missing] = last[codes[missing]] + 1.0
    return out
