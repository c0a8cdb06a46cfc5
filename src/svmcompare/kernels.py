"""Kernel specifications and kernel blocks.

Conventions follow kernlab, which the paper's grid of kernel widths refers to:

========== ===================================== =========================
name       k(x, z)                               kernlab
========== ===================================== =========================
linear     <x, z>                                ``vanilladot``
poly       (gamma <x, z> + coef0) ** degree      ``polydot``
rbf        exp(-gamma ||x - z||_2^2)             ``rbfdot(sigma=gamma)``
laplacian  exp(-gamma ||x - z||_2)               ``laplacedot(sigma=gamma)``
========== ===================================== =========================

Note that the Laplacian kernel here uses the Euclidean distance, as kernlab
does; scikit-learn's ``laplacian_kernel`` uses the L1 distance.  A callable
``k(A, B) -> ndarray of shape (len(A), len(B))`` is accepted too.
"""

from __future__ import annotations

import collections
import hashlib
import numbers
import threading
from collections.abc import Callable
from dataclasses import dataclass
from math import comb

import numpy as np
import scipy.sparse as sp

from ._blocks import finish_distances, scaled_exp

# Codes shared with the SMO core (solvers/_smo_core.pyx checks them when imported).
PRECOMPUTED = 0
LINEAR = 1
POLY = 2
RBF = 3
LAPLACIAN = 4

# The solver code of each named kernel (model files are checked against it).
KERNEL_CODES = {"linear": LINEAR, "poly": POLY, "rbf": RBF, "laplacian": LAPLACIAN}
_CHUNK_ELEMENTS = 1 << 22  # kernel entries held at once by KernelSpec.block_dot


@dataclass(frozen=True)
class KernelSpec:
    """A validated kernel: a name, its solver code and its parameters."""

    name: str
    code: int
    gamma: float
    degree: int
    coef0: float
    func: Callable | None = None

    def block(self, A, B, bases=None, out=None):
        """The kernel matrix ``k(A[i], B[j])`` of shape (len(A), len(B)).

        ``bases`` (a :class:`BlockBases`) keeps the part of the block that
        does not depend on gamma, coef0 or degree (inner products or
        distances) for later blocks of the same items, e.g. every gamma of a
        grid search; the values are the same either way.  ``out`` (RBF
        kernels only): a C-contiguous float64 array of the block's shape to
        write the block into, with the same values.
        """
        if out is not None and (self.func is not None or self.code != RBF):
            raise ValueError(f"block(out=...) takes RBF kernels only; this is {self.name!r}.")
        if self.func is not None:
            return _call_user_kernel(self.func, A, B)
        if self.code == RBF and (bases is None or 8.0 * A.shape[0] * B.shape[0] > bases.max_bytes):
            # No base to keep: exp(-gamma ||a - b||^2) finished band by band
            # with the distances (one pass over the block instead of six).
            return _squared_distances(A, B, scale=-self.gamma, exponentiate=True, out=out)
        if bases is None:
            return self._from_base(self._base(A, B), in_place=True)
        base = bases.get(_FAMILY[self.code], A, B, self._base)
        if out is not None:  # as _from_base's copy, into out
            np.copyto(out, base)
            scaled_exp(out.reshape(-1), -self.gamma)
            return out
        # A base too large to keep is no one else's: overwrite it rather than
        # allocate a second block (a fresh 400 MB array cost 0.3 s of page
        # faults on top of the 0.1 s of arithmetic).
        return self._from_base(base, in_place=base.flags.writeable)

    def _base(self, A, B):
        """The gamma-free part of the block: <a, b> (linear, poly), ||a - b||^2
        (rbf) or ||a - b|| (laplacian)."""
        if self.code in (LINEAR, POLY):
            return A @ B.T
        out = _squared_distances(A, B)
        if self.code == RBF:
            return out
        if self.code == LAPLACIAN:
            # Near duplicates keep only the rounding of the norms in
            # ||a||^2 + ||b||^2 - 2 a.b, which the square root magnifies: sum
            # their distances from the differences (see solvers/_smo_core.pyx).
            norms = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
            close = np.nonzero(out < 1e-6 * norms)
            if close[0].size:
                diff = A[close[0]] - B[close[1]]
                out[close] = np.einsum("ij,ij->i", diff, diff)
            return np.sqrt(out, out=out)
        raise AssertionError(f"unknown kernel code {self.code}")  # pragma: no cover

    def _from_base(self, base, in_place):
        """The block from :meth:`_base`'s output (overwritten when ``in_place``)."""
        if self.code == LINEAR:
            return base if in_place else base.copy()
        if self.code == POLY:
            out = np.multiply(base, self.gamma, out=base if in_place else None)
            out += self.coef0
            out **= self.degree  # as ``**`` (numpy squares degree 2 exactly)
            return out
        # rbf, laplacian: exp(-gamma base) in one sweep (the C extension's exp).
        out = base if in_place else base.copy()
        out = np.ascontiguousarray(out, dtype=np.float64)
        scaled_exp(out.reshape(-1), -self.gamma)
        return out

    def paired(self, A, B):
        """k(A[i], B[i]) for each row i: the diagonal of ``block(A, B)``
        without the block."""
        if self.func is not None:
            step = max(1, int(np.sqrt(_CHUNK_ELEMENTS)))
            return np.concatenate([np.diagonal(self.block(A[i:i + step], B[i:i + step]))
                                   for i in range(0, A.shape[0], step)] or [np.zeros(0)])
        if self.code in (LINEAR, POLY):
            base = np.einsum("ij,ij->i", A, B)
        else:
            diff = A - B
            base = np.einsum("ij,ij->i", diff, diff)
            if self.code == LAPLACIAN:
                base = np.sqrt(base)
        return self._from_base(base, in_place=True)

    def block_dot(self, A, B, M):
        """k(A, B) @ M, holding at most about 4M kernel entries at a time.

        Parameters
        ----------
        A : ndarray of shape (n_a, p)
        B : ndarray of shape (n_b, p)
        M : ndarray of shape (n_b,) or (n_b, k)
        """
        out = np.zeros((A.shape[0],) + M.shape[1:])
        if B.shape[0] == 0:
            return out
        step = max(1, _CHUNK_ELEMENTS // B.shape[0])
        for start in range(0, A.shape[0], step):
            out[start:start + step] = self.block(A[start:start + step], B) @ M
        return out


# Kernels whose blocks share a gamma-free base (see KernelSpec._base).
_FAMILY = {LINEAR: "dot", POLY: "dot", RBF: "squared distance", LAPLACIAN: "distance"}


class BlockBases:
    """Gamma-free parts of kernel blocks, kept for the next block of the same
    items (least recently used first out).

    A grid search fits one path over C per gamma on the same training items
    and scores the same validation items: their squared distances (rbf),
    distances (laplacian) or inner products (linear, poly) are computed once
    per split instead of once per gamma.  Entries are keyed by the kernel
    family and a digest of both item arrays, so a changed array is never
    served stale.

    Parameters
    ----------
    max_bytes : float
        Memory for the kept arrays; an array larger than this is not kept.
    """

    def __init__(self, max_bytes):
        self.max_bytes = float(max_bytes)
        self._entries = collections.OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, family, A, B, compute):
        """``compute(A, B)``, or the array kept from an earlier call with the
        same family and items.  A kept array is read-only; one too large to
        keep is returned writable, the caller's alone."""
        key = (family, A.shape, B.shape, _digest(A), _digest(B))
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self.hits += 1
                return self._entries[key]
        base = compute(A, B)
        if base.nbytes > self.max_bytes:
            return base  # not kept: the caller's to overwrite
        base.flags.writeable = False
        with self._lock:
            self._entries[key] = base
            while self._held() > self.max_bytes:
                self._entries.popitem(last=False)
        return base

    def _held(self):
        return sum(b.nbytes for b in self._entries.values())

    def __reduce__(self):
        # A copy sent to another process (joblib's workers) starts empty.
        return (BlockBases, (self.max_bytes,))

    @property
    def nbytes(self):
        """Memory held now."""
        with self._lock:
            return self._held()


class KernelChain:
    """The memory of one RBF item kernel, carried from a C path to the next on
    the same items (a split's RBF paths, one gamma after another).

    Each path's item kernel is computed as a new block would be, with the
    same values to the last bit, but into the previous path's matrix: a new
    328 MB array (sushi's 6,400 items) costs 0.3-0.7 s, most of it page
    faults, where writing into memory already touched costs the product and
    the exp alone, 0.28 s.  Release it (:meth:`release`) before a block that
    should not sit beside it.
    """

    def __init__(self):
        self._items = self._gram = None

    def gram(self, kernel, items, bases=None):
        """``kernel.block(items, items, bases)``, in the chain's memory when it
        holds an RBF matrix of items of the same values."""
        if kernel.func is not None or kernel.code != RBF:
            return kernel.block(items, items, bases)
        if self._gram is not None and items.shape == self._items.shape and \
                (items is self._items or np.array_equal(items, self._items)):
            return kernel.block(items, items, bases, out=self._gram)
        self.release()  # freed before the next block is built
        gram = kernel.block(items, items, bases)
        if not (gram.flags.writeable and gram.flags.c_contiguous):
            gram = np.array(gram, order="C")
        self._items, self._gram = items, gram
        return gram

    @property
    def nbytes(self):
        """Memory held now."""
        return 0 if self._gram is None else self._gram.nbytes

    def release(self):
        """Let the held matrix go (the next :meth:`gram` computes a new one)."""
        self._items = self._gram = None


def _digest(array):
    return hashlib.blake2b(np.ascontiguousarray(array).view(np.uint8), digest_size=16).digest()


# The rows of a distance block whose product is finished at once (about the
# size of a core's share of the last-level cache).
_DISTANCE_BAND_BYTES = 4 * 2**20
_BAND_ROWS = 64
_BAND_MAX_FEATURES = 32


def _squared_distances(A, B, scale=1.0, exponentiate=False, out=None):
    """``scale`` ||a - b||^2 for all rows (its exp with ``exponentiate``), by
    one matrix product and one pass that adds the norms; into ``out`` (a
    C-contiguous float64 array of the block's shape) when given.

    Distances do not move when a column is shifted by a constant: columns
    whose entries mostly equal one value (one-hot identities, standardized
    or not) are shifted to that value, their median, and multiplied as a
    sparse matrix; the rest by BLAS.  Same distances up to rounding, from a
    fraction of the work where most columns are identities (football_odds'
    7,400 items of 237 columns, 219 of them one-hot: 0.25 -> 0.17 s).
    """
    A = np.asarray(A, dtype=np.float64)
    B = A if B is A else np.asarray(B, dtype=np.float64)
    sparse = _sparse_columns(A, B)
    if sparse is None:
        a_norms = np.einsum("ij,ij->i", A, A)
        b_norms = a_norms if B is A else np.einsum("ij,ij->i", B, B)
        if A.shape[1] <= _BAND_MAX_FEATURES:
            return _banded_distances(A, B, a_norms, b_norms, float(scale), exponentiate, out)
        out = np.matmul(A, B.T, out=out)
    else:
        columns, center = sparse
        A_dense, A_sparse, a_norms = _split_shifted(A, columns, center)
        B_dense, B_sparse, b_norms = (A_dense, A_sparse, a_norms) if B is A else \
            _split_shifted(B, columns, center)
        out = np.matmul(A_dense, B_dense.T, out=out)
        cross = (A_sparse @ B_sparse.T).tocoo()  # canonical: each (row, col) once
        out[cross.row, cross.col] += cross.data
    _finish_distances(out, a_norms, b_norms, float(scale), exponentiate)
    return out


def _banded_distances(A, B, a_norms, b_norms, scale, exponentiate, out):
    """:func:`_squared_distances` of few features by BLAS, band by band of
    rows, each band finished while its product is still in cache: with few
    features the product is bound by memory, and a whole block's product,
    then its finish, wrote the block twice and read it once (sushi's 6,400
    items of 14 features: 0.21-0.23 -> 0.13-0.21 s).  With many features the
    product is bound by arithmetic and bands cost more than they spare
    (3,000 x 227: 0.10 -> 0.14 s): those take the whole block's product."""
    if out is None:
        out = np.empty((A.shape[0], B.shape[0]))
    # Whole multiples of 64 rows: BLAS's kernels take rows 4 to 16 at a time,
    # and bands of such multiples leave its edge kernels the rows they would
    # have in the whole product (mostly: a threaded whole product splits its
    # rows elsewhere, and entries can differ from it by an ulp).
    rows = _BAND_ROWS * max(1, _DISTANCE_BAND_BYTES // (8 * _BAND_ROWS * max(B.shape[0], 1)))
    for start in range(0, max(A.shape[0], 1), rows):  # no rows: the finish checks scale
        band = out[start:start + rows]
        np.matmul(A[start:start + rows], B.T, out=band)
        _finish_distances(band, a_norms[start:start + rows], b_norms, scale, exponentiate)
    return out


def _finish_distances(out, a_norms, b_norms, scale, exponentiate):
    """out[i, j] = scale * max(|a_i|^2 + |b_j|^2 - 2 <a_i, b_j>, 0) in place,
    then exp of it if ``exponentiate``: one sweep a row in C (``_blocks``; as
    numpy passes, even band by band, the finish of a 6,400-item block took
    0.28 s, half of it numpy's exp)."""
    finish_distances(out, np.ascontiguousarray(a_norms, dtype=np.float64),
                     np.ascontiguousarray(b_norms, dtype=np.float64), scale, exponentiate)


# A block worth checking for sparse columns (the medians cost O(n p log n)),
# and the fewest rows on each side: splitting a side costs tens of ns an
# entry, its product a fraction of one per entry and row of the other side
# (32,000 items against Nystroem's 100 landmarks: the split cost 6 s of a
# 20,000-pair search, far more than the products it spared).
_SPARSE_MIN_WORK = 1 << 24
_SPARSE_MIN_ROWS = 1024
# A column goes sparse when the shares of its entries off the median, in A
# and in B, multiply to at most this: an entry of a sparse product costs
# hundreds of times a BLAS multiply-add, so only columns whose products touch
# under a thousandth of the row pairs gain (one-hot identities of hundreds of
# ids: ~1e-5 each; binary features set in 1/16 of the rows lost, 0.10 ->
# 0.55 s at 4,000 x 200).
_SPARSE_MAX_SHARES = 1.0 / 1024
_SPARSE_MIN_COLUMNS = 8
# At most this share of the block's entries come from the sparse product.
_SPARSE_MAX_FILL = 1.0 / 64


def _sparse_columns(A, B):
    """(mask of the columns to multiply sparsely, every column's median in
    B), or None when too few columns qualify to be worth the split."""
    n_a, p = A.shape
    if p < _SPARSE_MIN_COLUMNS or min(n_a, B.shape[0]) < _SPARSE_MIN_ROWS \
            or n_a * B.shape[0] * p < _SPARSE_MIN_WORK:
        return None
    center = np.median(B, axis=0)
    share_b = np.count_nonzero(B != center, axis=0) / max(B.shape[0], 1)
    share_a = share_b if B is A else np.count_nonzero(A != center, axis=0) / max(n_a, 1)
    # The sparse product's entries add up over its columns: the sparsest
    # columns, each sparse enough, while the product stays sparse.
    products = share_a * share_b
    order = np.argsort(products, kind="stable")
    within = (products[order] <= _SPARSE_MAX_SHARES) & \
        (np.cumsum(products[order]) <= _SPARSE_MAX_FILL)
    columns = np.zeros(p, dtype=bool)
    columns[order[within]] = True
    if np.count_nonzero(columns) < _SPARSE_MIN_COLUMNS:
        return None
    return columns, center


def _split_shifted(M, columns, center):
    """M - center split into its dense columns (an array), its sparse ones (a
    CSR matrix) and each row's squared norm."""
    dense = M[:, ~columns] - center[~columns]
    rows, cols = np.nonzero(M[:, columns] != center[columns])
    values = M[:, columns][rows, cols] - center[columns][cols]
    sparse = sp.csr_matrix((values, (rows, cols)), shape=(M.shape[0], int(columns.sum())))
    norms = np.einsum("ij,ij->i", dense, dense)
    norms += np.bincount(rows, weights=values * values, minlength=M.shape[0])
    return np.ascontiguousarray(dense), sparse, norms


def _call_user_kernel(func, A, B):
    K = np.asarray(func(A, B), dtype=np.float64)
    if K.shape != (A.shape[0], B.shape[0]):
        raise ValueError(
            f"The kernel callable returned shape {K.shape}; expected {(A.shape[0], B.shape[0])}."
        )
    if not np.all(np.isfinite(K)):
        raise ValueError("The kernel callable returned NaN or infinity.")
    return K


def _as_float(value):
    """A real number as a float, an int too large for one as infinity."""
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


# The largest polynomial degree (model files hold no higher: (gamma <x, z> +
# coef0) ** 100 already spans every double past |base| of 1.001 or 0.999).
MAX_DEGREE = 100


def resolve_kernel(kernel, gamma=1.0, degree=3, coef0=1.0):
    """Validate kernel hyper-parameters and return a :class:`KernelSpec`.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "laplacian"} or callable
    gamma : float > 0
        Scale of the poly, rbf and laplacian kernels.
    degree : int >= 1
        Degree of the poly kernel.
    coef0 : float
        Offset of the poly kernel.
    """
    if callable(kernel):
        return KernelSpec("callable", PRECOMPUTED, 1.0, 1, 0.0, kernel)
    if not isinstance(kernel, str) or kernel not in KERNEL_CODES:
        raise ValueError(
            f"kernel must be one of {sorted(KERNEL_CODES)} or a callable k(A, B); got "
            f"{kernel!r}."
        )
    code = KERNEL_CODES[kernel]
    if code != LINEAR:
        if not isinstance(gamma, numbers.Real) or isinstance(gamma, bool):
            raise TypeError(f"gamma must be a positive number; got {gamma!r}.")
        if not 0 < _as_float(gamma) < np.inf:  # (10**400 or a Fraction: float first)
            raise ValueError(f"gamma must be a positive finite number; got {gamma}.")
    if code == POLY:
        if not isinstance(degree, numbers.Integral) or isinstance(degree, bool) \
                or not 1 <= degree <= MAX_DEGREE:
            # (a model file holds degrees up to MAX_DEGREE: a fit past it was
            # saved and never read back, an attack, stop 70)
            raise ValueError(f"degree must be an integer in 1..{MAX_DEGREE}; got {degree!r}.")
        if not isinstance(coef0, numbers.Real) or not np.isfinite(_as_float(coef0)):
            raise ValueError(f"coef0 must be a finite number; got {coef0!r}.")
    return KernelSpec(kernel, code, float(gamma), int(degree), float(coef0))


class NystroemMap:
    """Explicit features whose inner products approximate a kernel (Nystroem).

    With landmarks L (a random subset of the training items) and
    K_LL = U diag(s) U^T, the map phi(z) = k(z, L) U diag(s)^(-1/2) U^T gives
    phi(x)^T phi(z) = k(x, L) K_LL^+ k(L, z), exact on the landmarks.  Works
    for every kernel of this module, callables included.

    Parameters
    ----------
    kernel : KernelSpec
    n_components : int
        Number of landmarks (at most the number of distinct items).
    random_state : int, RandomState or None
    """

    def __init__(self, kernel, n_components, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, items):
        from sklearn.utils import check_random_state  # here: scoring needs no sklearn

        rng = check_random_state(self.random_state)
        unique = sorted_unique_rows(items)
        size = min(self.n_components, unique.shape[0])
        self.landmarks_ = unique[rng.choice(unique.shape[0], size=size, replace=False)]
        K = self.kernel.block(self.landmarks_, self.landmarks_)
        s, U = np.linalg.eigh((K + K.T) / 2)
        keep = s > s.max() * 1e-12
        self.projection_ = U[:, keep] / np.sqrt(s[keep])
        return self

    def transform(self, Z):
        """phi(Z), shape (n, n_kept_components)."""
        return self.kernel.block_dot(Z, self.landmarks_, self.projection_)


def sorted_unique_rows(rows):
    """``np.unique(rows, axis=0)`` (the distinct rows in lexicographic order,
    compared as numbers; of rows that differ only in the sign of a zero, the
    first), by sorting column by column only the rows still tied
    on the columns before: numpy sorts every row as a record of p fields,
    0.37 s for 40,000 items x 237 features, once per Nystroem fit (13 of them,
    5 s of a 20,000-pair search), where the first few columns leave most rows
    alone."""
    rows = np.asarray(rows)
    n, p = rows.shape
    if n == 0 or p == 0:
        return np.unique(rows, axis=0)
    order = np.argsort(rows[:, 0], kind="stable")
    first = rows[order, 0]
    start = np.ones(n, dtype=bool)  # the row begins a run of rows tied so far
    start[1:] = first[1:] != first[:-1]
    for j in range(1, p):
        ends = np.ones(n, dtype=bool)
        ends[:-1] = start[1:]
        tied = np.flatnonzero(~(start & ends))  # rows in runs of two or more
        if not tied.size:
            break
        run = np.cumsum(start)[tied]
        values = rows[order[tied], j]
        within = np.lexsort((values, run))  # runs stay in place, sorted inside by column j
        order[tied] = order[tied][within]
        run, values = run[within], values[within]
        begins = np.ones(tied.size, dtype=bool)
        begins[1:] = (run[1:] != run[:-1]) | (values[1:] != values[:-1])
        start[tied] = begins
    return rows[order[start]]


# A polynomial kernel's feature space has comb(p + degree, degree) dimensions;
# up to this many, exact_feature_map makes it explicit.
MAX_EXACT_FEATURES = 500


def exact_feature_map(kernel, items, n_rows):
    """An explicit feature map that reproduces a polynomial kernel exactly, or None.

    The SVM dual of a low-rank kernel (rank r much below the number of rows of
    the problem) is degenerate, and at large C times kernel scale SMO needs
    millions of steps (measured: linear and polynomial kernels at
    C max K~_tt above about 1e5-1e6, LIBSVM alike; full-rank RBF and Laplacian
    kernels converge at the same scale), while the primal problem on r explicit
    features takes a few dozen Newton steps.  A polynomial kernel on p features
    has rank at most r = comb(p + degree, degree), so Nystroem with 2 r
    landmarks in general position reproduces it exactly.  The map is returned
    only if it is exact on every item to 1e-9 of k(z, z) (degenerate items,
    e.g. binary features, can leave the landmarks short of a basis), and only
    when r is below ``n_rows`` and at most :data:`MAX_EXACT_FEATURES`.

    Parameters
    ----------
    kernel : KernelSpec
    items : ndarray of shape (n_items, p)
    n_rows : int
        Rows of the binary problem (the dual's size).
    """
    if kernel.code != POLY or kernel.func is not None:
        return None
    rank = comb(items.shape[1] + kernel.degree, kernel.degree)
    if rank > MAX_EXACT_FEATURES or rank >= n_rows:
        return None
    # The landmarks do not change the map's inner products, only which basis
    # spans them: a fixed seed keeps fits deterministic whatever random_state.
    feature_map = NystroemMap(kernel, 2 * rank, random_state=0).fit(items)
    features = feature_map.transform(items)
    diagonal = (kernel.gamma * np.einsum("ij,ij->i", items, items) + kernel.coef0) \
        ** kernel.degree
    residual = np.abs(diagonal - np.einsum("ij,ij->i", features, features))
    if np.any(residual > 1e-9 * np.maximum(np.abs(diagonal), 1e-300)):
        return None
    feature_map.exact = True  # not an approximation: the solver keeps float64 rows
    return feature_map
