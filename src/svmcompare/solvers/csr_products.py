"""Products with a sparse matrix of rows on the solver's threads.

A x and A^T z are most of a linear solver's work on sparse rows (ids: two
non-zeros a row) and on dense rows that are mostly zeros (their CSR copy):
SciPy's products run on one thread, and each call builds and checks its
operands again (a transposed view is a new matrix whose indices SciPy scans:
0.4 ms of a 3.4 ms Newton step on 20,000 rows of 186 columns).  Here the
matrix is checked once and the products call the compiled loops directly.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

from ._linear_core import csr_matvec, csr_rmatvec
from .threads import threads_now

# Up to this many columns A^T z is summed from A's own rows into sixteen
# partial sums of the columns (16 x 8 bytes a column); past it through a
# copy of A^T, whose rows read z at random.
SCATTER_MAX_COLUMNS = 500_000


class ParallelCSR:
    """A sparse matrix A whose products ``dot(x)`` = A x and ``tdot(z)`` =
    A^T z run on the solve's threads (:mod:`._linear_core`; SciPy's use one
    thread, and they are most of a large solve: 10,000 ids x 1,000,000
    games, 154 products, 18 ms each).  A x sums each row in SciPy's order
    (the same bits); A^T z adds A's rows in a fixed order of chunks (the
    same bits on any number of threads), 6x faster than SciPy's on two
    threads at that size."""

    def __init__(self, A):
        self.A = self._checked(sp.csr_matrix(A, dtype=np.float64))
        self.shape = self.A.shape
        self.At = self._checked(self.A.T.tocsr()) \
            if self.shape[1] > SCATTER_MAX_COLUMNS else None

    @staticmethod
    def _checked(A):
        if A.indptr.dtype != A.indices.dtype:
            A = sp.csr_matrix((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                              shape=A.shape)
        if A.nnz and (A.indices.min() < 0 or A.indices.max() >= A.shape[1]):
            raise ValueError("a column index is outside the matrix")
        if not A.data.flags.c_contiguous:
            A.data = np.ascontiguousarray(A.data)
        return A

    @staticmethod
    def _vector(x, size):
        x = np.ascontiguousarray(x, dtype=np.float64)
        if x.shape != (size,):
            raise ValueError(f"the vector needs {size} entries; got shape {x.shape}.")
        return x

    def dot(self, x):
        A = self.A
        out = np.empty(A.shape[0])
        csr_matvec(A.indptr, A.indices, A.data, self._vector(x, A.shape[1]), out,
                   threads_now())
        return out

    def tdot(self, z):
        z = self._vector(z, self.shape[0])
        out = np.empty(self.shape[1])
        if self.At is not None:
            At = self.At
            csr_matvec(At.indptr, At.indices, At.data, z, out, threads_now())
        else:
            A = self.A
            csr_rmatvec(A.indptr, A.indices, A.data, z, out, threads_now())
        return out


# A C path solves many problems on one array of rows: within ``kept_csr(rows)``
# their CSR copy is made once (football_20k's search converted its rows at each
# of 283 solves, 6 s serially).
_kept = {}  # id(rows) -> [the rows, their CSR copy or None until made]


@contextmanager
def kept_csr(rows):
    """Within this block :func:`dense_csr` converts ``rows`` once and returns
    that copy again.  The caller owns ``rows`` and does not change them inside
    the block (a C path's rows, made for it and read-only)."""
    key = id(rows)
    _kept[key] = [rows, None]
    try:
        yield
    finally:
        _kept.pop(key, None)


def dense_csr(D):
    """The non-zeros of a dense ``D`` (float32 or float64) as a float64 CSR
    matrix: the arrays SciPy's conversion builds (through COO), read off the
    flat array in one masked pass: 0.016 against 0.16 s for 10,000 x 300
    Nystroem features, of which a search solves ~100 by coordinate descent,
    and more by Newton's method.  Inside :func:`kept_csr` for ``D``, the copy
    is made once (treat it as read-only)."""
    kept = _kept.get(id(D))
    if kept is None or kept[0] is not D:
        return _converted(D)
    if kept[1] is None:
        kept[1] = _converted(D)
    return kept[1]


def _converted(D):
    m, p = D.shape
    flat = np.ascontiguousarray(D).ravel()
    keep = flat != 0
    index = np.int32 if flat.size < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(m + 1, dtype=index)
    np.cumsum(np.count_nonzero(keep.reshape(m, p), axis=1), out=indptr[1:])
    return sp.csr_matrix((flat[keep].astype(np.float64),
                          np.tile(np.arange(p, dtype=index), m)[keep], indptr), shape=(m, p))
