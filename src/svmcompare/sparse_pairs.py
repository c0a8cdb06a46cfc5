"""Pairs of sparse items: identities (one-hot players, teams, models) without
a dense one-hot.

A pair set with ``p`` sparse features is given as a scipy sparse matrix of
shape ``(n_pairs, 2 p)``, the wide layout: x's features in the first ``p``
columns, x''s in the last ``p`` (as the ``a_`` / ``b_`` columns of a
DataFrame).  :func:`svmcompare.pairs_from_frame` builds one for identities
(``sparse=True``), two non-zeros a pair.  Inside, :class:`SparsePairs` holds
x and x' as two CSR matrices and offers the few array operations the fit
needs (``Xs[:, 0]``, ``Xs[rows]``, ``shape``), so that memory grows with the
non-zeros, not with pairs x features.

Only the linear kernel takes sparse pairs: its fit sees differences
d = x' - x alone, on which centering the features has no effect (eq. 8's
rows are differences), so standardization divides by each feature's
standard deviation and never densifies (:meth:`Standardizer.transform_pairs`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


class SparsePairs:
    """x (``first``) and x' (``second``) of each pair as CSR matrices (n, p).

    ``center`` (p,), when set by a standardization, is what the dense layout
    would subtract from every item (mean / scale): differences never need it,
    the pair tie features' (x + x') / 2 does, so that both layouts give a
    link the same features.
    """

    ndim = 3

    def __init__(self, first, second, center=None):
        self.first = sp.csr_matrix(first, dtype=np.float64)
        self.second = sp.csr_matrix(second, dtype=np.float64)
        if self.first.shape != self.second.shape:
            raise ValueError(f"x and x' have shapes {self.first.shape} and {self.second.shape}.")
        self.center = center

    @classmethod
    def from_wide(cls, X):
        """From a sparse (n_pairs, 2 p) matrix: x in the first p columns."""
        X = sp.csc_matrix(X)
        p = X.shape[1] // 2
        return cls(X[:, :p], X[:, p:])

    @property
    def shape(self):
        n, p = self.first.shape
        return (n, 2, p)

    def __len__(self):
        return self.first.shape[0]

    def __getitem__(self, key):
        if isinstance(key, tuple):
            rows, side = key
            if isinstance(rows, slice) and rows == slice(None) and side in (0, 1):
                return self.first if side == 0 else self.second
            raise IndexError("SparsePairs supports [:, 0], [:, 1] and row selections.")
        return SparsePairs(self.first[key], self.second[key], self.center)

    def items(self):
        """x rows then x' rows (n_pairs * 2, p), as ``stack_items`` stacks them."""
        return sp.vstack([self.first, self.second], format="csr")

    def any_difference(self):
        """Whether some pair has x != x'."""
        return (self.second - self.first).count_nonzero() > 0

    def is_finite(self):
        return bool(np.all(np.isfinite(self.first.data)) and np.all(np.isfinite(self.second.data)))


def check_sparse_pairs(X, n_features=None):
    """A validated :class:`SparsePairs` from a scipy sparse (n_pairs, 2 p)
    matrix or a SparsePairs."""
    if not isinstance(X, SparsePairs):
        if X.ndim != 2 or X.shape[1] % 2:
            raise ValueError("Sparse pairs are a matrix of shape (n_pairs, 2 * n_features): x's "
                             f"features, then x''s; got shape {X.shape}.")
        if X.dtype.kind not in "biuf":
            raise TypeError(f"Sparse pairs must be numeric; got dtype {X.dtype}.")
        X = SparsePairs.from_wide(X)
    n, _, p = X.shape
    if n == 0:
        raise ValueError("X has no pairs (n_pairs = 0).")
    if p == 0:
        raise ValueError("X has no features (n_features = 0).")
    if not X.is_finite():
        raise ValueError("X contains NaN or infinity.")
    if n_features is not None and p != n_features:
        raise ValueError(f"X has {p} features per item, but the model was fitted with "
                         f"{n_features}.")
    return X
