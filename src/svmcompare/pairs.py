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

import numpy as np
from sklearn.utils import check_random_state

from ._validation import _as_float_matrix, _check_finite, check_vector


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
    Xi = _as_float_matrix(Xi, "Xi")
    Xip = _as_float_matrix(Xip, "Xip")
    if Xi.shape != Xip.shape:
        raise ValueError(
            f"Xi and Xip must have the same shape; got {Xi.shape} and {Xip.shape}."
        )
    return np.stack([Xi, Xip], axis=1)


TIES = ("keep", "drop")


def check_grades(y, n_items, groups=None):
    """Validate grades (n_items,) and optional groups (n_items,); None groups: one group."""
    y = check_vector(y, n_items, "y (grades)",
                     lambda k: f"y has {k} grades but X has {n_items} items.")
    if groups is None:
        return y, np.zeros(n_items, dtype=np.int64)
    groups = np.asarray(groups).ravel()
    if groups.shape[0] != n_items:
        raise ValueError(f"groups has {groups.shape[0]} entries but X has {n_items} items.")
    return y, groups


def check_items(X, y, groups=None):
    """Validate items (n, p), grades (n,) and optional groups (n,)."""
    X = _as_float_matrix(X, "X")
    _check_finite(X, "X")
    y, groups = check_grades(y, X.shape[0], groups)
    return X, y, groups


def group_members(groups):
    """Index arrays of the items of each group, groups in sorted order."""
    _, codes = np.unique(groups, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(codes[order])) + 1)


def pair_indices(y, groups, ties="keep", max_pairs_per_group=None, random_state=None):
    """Index pairs (i, j), i before j, of items in the same group, and their labels.

    Labels are sign(y_j - y_i): 1 when the second item has the higher grade.

    Returns
    -------
    first, second : ndarray of int
    labels : ndarray of int in {-1, 0, 1}
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}; got {ties!r}.")
    if max_pairs_per_group is not None and (
            not isinstance(max_pairs_per_group, numbers.Integral) or max_pairs_per_group < 1):
        raise ValueError(
            f"max_pairs_per_group must be a positive integer or None; got {max_pairs_per_group!r}."
        )
    rng = check_random_state(random_state)
    firsts, seconds = [], []
    for members in group_members(groups):
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
