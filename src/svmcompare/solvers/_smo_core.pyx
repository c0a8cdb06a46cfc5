# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""SMO for the SVM duals of SVMcompare and SVMrank, on rows of K~ computed on demand
(compiled ahead of time: a C extension built at install, nothing to compile on
the first fit).

The problem solved is the binary SVM dual, eq. (18) of the paper::

    minimize_v   1/2 v^T Q v - 1^T v
    subject to   y^T v = 0            (only with a bias; omitted for SVMrank)
                 0 <= v_t <= C_t

with ``Q_st = y_s y_t K~_st`` and ``K~ = M^T K M`` (eq. 18).  Row ``t`` of the
problem is the difference ``Phi(Z[b_t]) - Phi(Z[a_t])`` of two items, so

    K~_st = k(Z[b_s], Z[b_t]) - k(Z[b_s], Z[a_t]) - k(Z[a_s], Z[b_t]) + k(Z[a_s], Z[a_t])

and one row of K~ costs two kernel rows over the items.  Nothing of size
m x m is ever allocated: rows go through an LRU cache bounded in megabytes.
Only a user-supplied callable kernel, which cannot run inside the compiled
loop, is evaluated once on all items (an n_items x n_items matrix).

With a bias (SVMcompare), working pairs are chosen by the second-order rule
of Fan, Chen and Lin (2005) (LIBSVM's WSS2) and the two-variable subproblem
is solved analytically; the bias comes from the KKT conditions.  Without a
bias (SVMrank, eq. 3 kernelized), the dual has no equality constraint and is
solved by greedy coordinate descent with the same second-order gain.
Past two chunks of active rows, WSS2's two loops (and the coordinate
selection without a bias) run in fixed chunks on all threads (OpenMP), the
chunk winners combined by the serial loop's tie rule, so the steps do not
depend on the thread count; rows of Q over all items are computed in
parallel chunks as well.

The stopping rule is LIBSVM's: the maximal KKT violation
``max_{I_up} -y_t G_t + max_{I_low} y_t G_t`` (with a bias) or the largest
projected gradient (without) is below ``tol``.

Shrinking (LIBSVM's, Joachims 1999) sets aside variables at a bound whose
gradient would have to move by more than the current violation before they
could join a step.  Selection, gradient updates and new rows then cost
O(active rows), and a new row needs kernel values for the active rows' items
only.  Unlike LIBSVM no gradient of the set-aside rows is kept up to date
(that needs whole rows whenever a variable reaches or leaves C, which here
costs as much as the rows saved): it is rebuilt from the support items, or
from cached whole rows, when the violation on the active rows first falls
below 10 tol and again when they are optimal, and the whole problem is
checked before stopping.  Because that rebuild costs about one
kernel row per support vector, shrinking starts only once the number of
steps exceeds the number of support vectors, i.e. once steps revisit
variables and rows are reused.

Why C and not numba (which the other solvers use): numba compiled this loop
on the first fit after an install, 15-20 s of typing and lowering
(BENCHMARKS.md, "First fit after an install"); a C extension is compiled
once, by the install.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY, fabs, pow, sqrt
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

import numpy as np

from .. import kernels as _kernels

ctypedef int64_t i64

# Kernel codes, as kernels.py numbers them (checked at import below).
cdef enum:
    PRECOMPUTED = 0
    LINEAR = 1
    POLY = 2
    RBF = 3
    LAPLACIAN = 4

if (_kernels.PRECOMPUTED, _kernels.LINEAR, _kernels.POLY, _kernels.RBF,
        _kernels.LAPLACIAN) != (PRECOMPUTED, LINEAR, POLY, RBF, LAPLACIAN):
    raise ImportError("svmcompare: kernel codes of kernels.py and the SMO core differ")


# Chunks of the parallel loops: active rows of a selection task, items of a
# task of a row over all items.
SELECT_CHUNK = 8192
cdef i64 _SELECT_CHUNK = SELECT_CHUNK
cdef i64 _PARALLEL_SELECT = 2 * SELECT_CHUNK
cdef i64 _CHUNK = 2048
# Items whose inner products _dots advances together (their sums stay in L1).
cdef i64 _DOT_BLOCK = 256
# The most memory the items' copy by feature may take (see _Problem).
TRANSPOSED_BYTES = 64 * 2**20
# The loops of chunk_winners.
UP, LOW, COORDINATE = 0, 1, 2

# Fields of the int64 ``state`` array shared with solve_dual.
N_ITER, COUNTER, UNSHRUNK, MOST_SHRUNK, DONE, PERIOD = range(6)
# Fields of the int64 ``clock`` array: [0] orders the cache slots by last use,
# [1] adds up the work of the rows and gradients computed (in units of about a
# nanosecond, see row_work), which bounds the work done before handing the
# loop to a worker thread; [2] != 0 asks the loop to stop (Ctrl-C); [3] the
# threads of the parallel loops (1: no chunked selection).
LRU, WORK, STOP, THREADS = range(4)
# clock[STOP] set by the loop itself: a scratch allocation failed (the entries
# then raise MemoryError rather than return a gradient left half computed).
cdef i64 OUT_OF_MEMORY = 2


# --- The problem, as C structs over the arrays' memory ---------------------------

cdef struct Kern:
    int code
    const double* items  # n x p, C order
    const double* itemsT  # p x n, C order (the same values by feature), or NULL
    i64 n
    i64 p
    const double* sqnorm
    double gamma
    double coef0
    double degree
    const double* gram  # n x n item Gram matrix (PRECOMPUTED), else unused


cdef struct Pairs:
    const i64* a
    const i64* b
    const double* y
    const double* ctx  # m x nc pair context, a linear block c_s . c_t of K~
    i64 m
    i64 nc


cdef struct Work:  # scratch over the items
    double* ka
    double* d
    double* arg
    double* expd
    double* arg_b  # the parallel rows' second exponent and values
    double* k_a
    double* k_b


cdef struct Cache:
    # An LRU cache of rows of Q.  A row is valid on the active rows if it was
    # computed in the current generation (the active set only shrinks within
    # one) and on all rows if ``full``.
    double* data  # n_slots x m
    i64* slot_of
    i64* owner
    i64* stamp
    uint8_t* full
    i64* slot_gen
    i64 n_slots
    i64* clock
    # The active set: rows[:size[0]] are the active rows (sorted), a
    # permutation of 0..m-1; items[:size[1]] the items they use; gen[0] counts
    # the times the active set grew (unshrinking).
    i64* rows
    i64* items
    i64* size
    i64* gen
    # The start (alpha0, G0): see rebuild_gradient.
    double* alpha0
    double* G0


# --- Pointers into numpy arrays (kept alive by their owner) ---------------------

cdef double* _dp(object array) except? NULL:
    cdef double[::1] view = array.reshape(-1)
    if view.shape[0] == 0:
        return NULL
    return &view[0]


cdef i64* _ip(object array) except? NULL:
    cdef i64[::1] view = array.reshape(-1)
    if view.shape[0] == 0:
        return NULL
    return &view[0]


cdef uint8_t* _bp(object array) except? NULL:
    cdef uint8_t[::1] view = array.reshape(-1).view(np.uint8)
    if view.shape[0] == 0:
        return NULL
    return &view[0]


def _f64(array):
    return np.ascontiguousarray(array, dtype=np.float64)


def _i64(array):
    return np.ascontiguousarray(array, dtype=np.int64)


# The entries below check every array's dimensions before its shape is read:
# with boundscheck off, ``x.shape[0]`` of a 0-d array reads past the tuple.

def _vector(array, n, name, convert=_f64):
    """``array`` as a contiguous 1-D array of n entries (converted), else ValueError."""
    array = convert(array)
    if array.ndim != 1 or array.shape[0] != n:
        raise ValueError(f"{name} must be a 1-D array of {n} entries")
    return array


def _in_place(array, n, name, dtype=np.float64):
    """``array`` itself, checked to be written in place: a contiguous 1-D numpy
    array of ``dtype`` and n entries."""
    if not (isinstance(array, np.ndarray) and array.dtype == dtype and array.ndim == 1
            and array.shape[0] == n and array.flags.c_contiguous and array.flags.writeable):
        raise ValueError(f"{name} must be a writeable contiguous 1-D {np.dtype(dtype).name} "
                         f"array of {n} entries (updated in place)")
    return array


def _indices(array, upper, name):
    """Row or item indices as a 1-D int64 array, each in [0, upper)."""
    array = np.asarray(array)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(f"{name} must be a 1-D array of integer indices")
    array = _i64(array)
    if array.shape[0] and (array.min() < 0 or array.max() >= upper):
        raise ValueError(f"{name}: an index is outside 0..{upper - 1}")
    return array


cdef extern from "../_parallel.h":
    int _team "svmc_team"(int n_threads, i64 tasks) noexcept nogil


cdef class _Problem:
    """The kernel pack and the rows (``kernel_pack`` and the (a, b, y, context)
    of solve_dual) as structs, holding the arrays they point into."""
    cdef Kern k
    cdef Pairs p
    cdef list keep

    def __init__(self, kp, pairs):
        code, items, sqnorm, gamma, coef0, degree, gram = kp
        items, gram = _f64(items), _f64(gram)
        if items.ndim != 2 or gram.ndim != 2:
            raise ValueError("the items and the Gram matrix must be 2-D arrays")
        if int(code) not in (PRECOMPUTED, LINEAR, POLY, RBF, LAPLACIAN):
            raise ValueError(f"unknown kernel code {code!r}")
        n = items.shape[0]
        sqnorm = _vector(sqnorm, n, "the items' squared norms")
        if int(code) == PRECOMPUTED and gram.shape != (n, n):
            raise ValueError("a precomputed kernel needs the n_items x n_items Gram matrix")
        a = _indices(pairs[0], n, "a")
        m = a.shape[0]
        b = _indices(pairs[1], n, "b")
        if b.shape[0] != m:
            raise ValueError("a and b must have one entry per row")
        y = _vector(pairs[2], m, "y")
        ctx = _f64(pairs[3])
        if ctx.ndim != 2 or ctx.shape[0] != m:
            raise ValueError("the context must be a 2-D array with one row per row")
        # The items by feature as well, for rows over every item (see _dots):
        # up to TRANSPOSED_BYTES more memory, like the items outside cache_size
        # (past it the rows go item by item); none for a Gram matrix's values,
        # which are read, not computed (a review).
        itemsT = np.ascontiguousarray(items.T) \
            if int(code) != PRECOMPUTED and items.size \
            and 8 * items.size <= TRANSPOSED_BYTES else None
        self.keep = [items, itemsT, sqnorm, gram, a, b, y, ctx]
        self.k.code = int(code)
        self.k.items = _dp(items)
        self.k.itemsT = NULL if itemsT is None else _dp(itemsT)
        self.k.n = n
        self.k.p = items.shape[1]
        self.k.sqnorm = _dp(sqnorm)
        self.k.gamma = float(gamma)
        self.k.coef0 = float(coef0)
        self.k.degree = float(degree)
        self.k.gram = _dp(gram)
        self.p.a = _ip(a)
        self.p.b = _ip(b)
        self.p.y = _dp(y)
        self.p.ctx = _dp(ctx)
        self.p.m = m
        self.p.nc = ctx.shape[1]


# --- Kernel values ------------------------------------------------------------------

cdef extern from "../_exp.h":
    void exp_nonpositive_c "svmc_exp_nonpositive"(const double* x, i64 count,
                                                  double* out) noexcept nogil

cdef extern from *:
    """
    static const double SVMC_TAU = 1e-12;
    /* The stop flag is set by another thread (Ctrl-C, a stopped search): read
       it from memory at every step, never from a copy the compiler hoisted
       out of the loop. */
    static inline int64_t svmc_read_flag(const int64_t *flag) {
        return *(const volatile int64_t *)flag;
    }
    """
    const double TAU "SVMC_TAU"  # curvature floor for degenerate (duplicate) rows, as LIBSVM
    i64 stop_asked "svmc_read_flag"(const i64* flag) noexcept nogil


def exp_nonpositive(x):
    """exp(x) for x <= 0 by the kernel rows' own exp (see svmc_exp_nonpositive)."""
    cdef double[::1] xv = _f64(x)
    out = np.empty(xv.shape[0])
    cdef double[::1] ov = out
    if xv.shape[0]:
        exp_nonpositive_c(&xv[0], xv.shape[0], &ov[0])
    return out


cdef inline bint _exponential(int code) noexcept nogil:
    return code == RBF or code == LAPLACIAN


cdef inline double _kernel_pre(const Kern* k, double dot, double sq_s, double sq_t) noexcept nogil:
    """k(z_s, z_t) from their inner product and squared norms, except that for
    the rbf and laplacian kernels the exponent is returned (see _exponential)."""
    cdef double d2
    if k.code == LINEAR:
        return dot
    if k.code == POLY:
        return pow(k.gamma * dot + k.coef0, k.degree)
    d2 = sq_s + sq_t - 2.0 * dot
    if d2 < 0.0:
        d2 = 0.0
    if k.code == RBF:
        return -k.gamma * d2
    return -k.gamma * sqrt(d2)  # LAPLACIAN


cdef inline bint _near_duplicates(double d2, double sq_s, double sq_t) noexcept nogil:
    """Whether ||a||^2 + ||b||^2 - 2 a.b = d2 keeps only the rounding of the
    norms, which the Laplacian kernel's square root magnifies (kernel errors of
    1e-6 at gamma = 16): such distances are summed from the differences."""
    return d2 < 1e-6 * (sq_s + sq_t)


cdef inline double _squared_distance(const Kern* k, i64 s, i64 t) noexcept nogil:
    cdef double d2 = 0.0, diff
    cdef i64 f
    for f in range(k.p):
        diff = k.items[s * k.p + f] - k.items[t * k.p + f]
        d2 += diff * diff
    return d2


cdef inline double _dot(const Kern* k, i64 s, i64 t) noexcept nogil:
    cdef double total = 0.0
    cdef i64 f
    cdef const double* zs = k.items + s * k.p
    cdef const double* zt = k.items + t * k.p
    for f in range(k.p):
        total += zt[f] * zs[f]
    return total


cdef inline double _refined(const Kern* k, i64 s, i64 t, double arg) noexcept nogil:
    """A Laplacian exponent -gamma ||z_s - z_t|| recomputed from the differences
    when the items are near duplicates (the distance read back from it)."""
    if _near_duplicates((arg / k.gamma) * (arg / k.gamma), k.sqnorm[s], k.sqnorm[t]):
        return -k.gamma * sqrt(_squared_distance(k, s, t))
    return arg


cdef void _dots(const Kern* k, i64 s, i64 lo, i64 count, double* out) noexcept nogil:
    """out[j] = <z_s, z_(lo + j)> for j < count from the items by feature, a
    block of items at a time: each sum runs over the features in _dot's order
    from 0.0 (no fused products: -ffp-contract=off), so the same bits as _dot,
    but the items' sums advance side by side in SIMD lanes where _dot's one
    sum waits on each addition (sushi's refit, 7,987 items of 14 features
    without an item Gram: 0.94 -> 0.59 s)."""
    cdef const double* zs = k.items + s * k.p
    cdef const double* column
    cdef double* block
    cdef double zf
    cdef i64 start = 0, size, f, j
    while start < count:
        size = min(_DOT_BLOCK, count - start)
        block = out + start
        for j in range(size):
            block[j] = 0.0
        for f in range(k.p):
            zf = zs[f]
            column = k.itemsT + f * k.n + lo + start
            for j in range(size):
                block[j] = block[j] + column[j] * zf
        start += size


cdef void _pre_row(const Kern* k, i64 s, const i64* subset, i64 lo, i64 count,
                   double* out) noexcept nogil:
    """out[j] = _kernel_pre between item s and item t_j for j < count, t_j =
    subset[j] (lo + j when ``subset`` is NULL): one loop per kernel, so that
    no loop branches on the kernel (a third of a row's time when it did)."""
    cdef double sq_s = k.sqnorm[s], d2, gamma = k.gamma
    cdef i64 j, t
    # The inner products first: a run of consecutive items by blocks (_dots),
    # listed items one at a time; the same sums either way.
    if subset == NULL and k.itemsT != NULL:
        _dots(k, s, lo, count, out)
    else:
        for j in range(count):
            t = lo + j if subset == NULL else subset[j]
            out[j] = _dot(k, s, t)
    if k.code == RBF:
        for j in range(count):
            t = lo + j if subset == NULL else subset[j]
            d2 = sq_s + k.sqnorm[t] - 2.0 * out[j]
            out[j] = -gamma * (d2 if d2 > 0.0 else 0.0)
    elif k.code != LINEAR:
        for j in range(count):
            t = lo + j if subset == NULL else subset[j]
            out[j] = _kernel_pre(k, out[j], sq_s, k.sqnorm[t])
        if k.code == LAPLACIAN:
            for j in range(count):
                t = lo + j if subset == NULL else subset[j]
                out[j] = _refined(k, s, t, out[j])


cdef inline double _exp1(double v) noexcept nogil:
    """exp(v) for one v <= 0, by the kernel rows' exp."""
    cdef double out
    exp_nonpositive_c(&v, 1, &out)
    return out


cdef inline double kernel_value(const Kern* k, double dot, double sq_s, double sq_t) noexcept nogil:
    """k(z_s, z_t) from their inner product and squared norms."""
    cdef double v = _kernel_pre(k, dot, sq_s, sq_t)
    return _exp1(v) if _exponential(k.code) else v


cdef inline bint _whole_row(i64 n_subset, i64 n_items) noexcept nogil:
    """Whether a row over n_subset of the items is computed over all of them
    instead (a sweep without gathers beats one past half the items)."""
    return 2 * n_subset > n_items


cdef void item_kernel_row(const Kern* k, i64 s, const i64* subset, i64 n_subset, double* out,
                          Work* w) noexcept nogil:
    """out[t] = k(items[s], items[t]) for the items t in subset[:n_subset].

    When the subset covers more than half of the items, the whole row is
    computed instead (the other entries are harmless)."""
    cdef i64 n = k.n, t, j
    cdef bint dense = _whole_row(n_subset, n)
    cdef double* target
    if k.code == PRECOMPUTED:
        if dense:
            memcpy(out, k.gram + s * n, n * sizeof(double))
        else:
            for j in range(n_subset):
                out[subset[j]] = k.gram[s * n + subset[j]]
        return
    if dense:
        target = w.arg if _exponential(k.code) else out
        _pre_row(k, s, NULL, 0, n, target)
        if _exponential(k.code):
            exp_nonpositive_c(w.arg, n, out)
        return
    _pre_row(k, s, subset, 0, n_subset, w.arg)
    if _exponential(k.code):
        exp_nonpositive_c(w.arg, n_subset, w.expd)
        for j in range(n_subset):
            out[subset[j]] = w.expd[j]
    else:
        for j in range(n_subset):
            out[subset[j]] = w.arg[j]


cdef void _difference_chunk(const Kern* k, i64 sa, i64 sb, double* d, i64 lo, i64 size,
                            Work* w) noexcept nogil:
    """d[t] = k(z_sb, z_t) - k(z_sa, z_t) for the items t in lo..lo+size-1 (the
    scratch of those items only: chunks run side by side)."""
    cdef i64 j, t
    cdef double* arg_a = w.arg + lo
    cdef double* arg_b = w.arg_b + lo
    _pre_row(k, sa, NULL, lo, size, arg_a)
    _pre_row(k, sb, NULL, lo, size, arg_b)
    if _exponential(k.code):
        exp_nonpositive_c(arg_a, size, w.k_a + lo)
        exp_nonpositive_c(arg_b, size, w.k_b + lo)
        for j in range(size):
            d[lo + j] = w.k_b[lo + j] - w.k_a[lo + j]
    else:
        for j in range(size):
            d[lo + j] = arg_b[j] - arg_a[j]


cdef void dense_difference_row(const Kern* k, i64 sa, i64 sb, double* d, Work* w,
                               int n_threads) noexcept nogil:
    """d[t] = k(z_sb, z_t) - k(z_sa, z_t) for every item t, in parallel chunks.

    Each value is computed alone, by the same operations on any number of
    threads, so the row has the same bits on one core as on many.  A row of
    one chunk is computed without a parallel region, which costs more than
    it saves there."""
    cdef i64 n = k.n, c, lo, n_chunks
    if n <= _CHUNK or n_threads <= 1:
        _difference_chunk(k, sa, sb, d, 0, n, w)
        return
    n_chunks = (n + _CHUNK - 1) // _CHUNK
    for c in prange(n_chunks, nogil=True, num_threads=_team(n_threads, n_chunks),
                    schedule="static"):
        lo = c * _CHUNK
        _difference_chunk(k, sa, sb, d, lo, min(n, lo + _CHUNK) - lo, w)


cdef inline double context_dot(const Pairs* p, i64 s, i64 t) noexcept nogil:
    """c_s . c_t, the context block of K~."""
    cdef double total = 0.0
    cdef i64 f
    for f in range(p.nc):
        total += p.ctx[s * p.nc + f] * p.ctx[t * p.nc + f]
    return total


cdef void q_row(const Kern* k, const Pairs* p, i64 s, const i64* rows, i64 n_rows,
                const i64* item_subset, i64 n_item_subset, Work* w, double* out,
                int n_threads) noexcept nogil:
    """out[t] = Q_st = y_s y_t K~_st (eq. 18) for the rows t in rows[:n_rows] (all
    rows when ``rows`` is NULL).

    K~_st = k(b_s, b_t) - k(b_s, a_t) - k(a_s, b_t) + k(a_s, a_t) = d(b_t) - d(a_t)
    with d = k(b_s, .) - k(a_s, .): two kernel rows, over the items of the
    listed rows only.  A pair context adds its linear block: K~_st += c_s . c_t.
    """
    cdef double* ka = w.ka
    cdef double* d = w.d
    cdef bint whole = _whole_row(n_item_subset, k.n)
    cdef i64 j, t, z
    cdef double ys = p.y[s]
    if whole and k.code != PRECOMPUTED:
        dense_difference_row(k, p.a[s], p.b[s], d, w, n_threads)
    else:
        item_kernel_row(k, p.a[s], item_subset, n_item_subset, ka, w)
        item_kernel_row(k, p.b[s], item_subset, n_item_subset, d, w)
        if whole:
            for z in range(k.n):
                d[z] -= ka[z]
        else:
            for j in range(n_item_subset):
                d[item_subset[j]] -= ka[item_subset[j]]
    if rows == NULL:
        for t in range(n_rows):
            out[t] = ys * p.y[t] * (d[p.b[t]] - d[p.a[t]])
    else:
        for j in range(n_rows):
            t = rows[j]
            out[t] = ys * p.y[t] * (d[p.b[t]] - d[p.a[t]])
    if p.nc > 0:  # a separate loop: the one above stays as fast without context
        for j in range(n_rows):
            t = j if rows == NULL else rows[j]
            out[t] += ys * p.y[t] * context_dot(p, s, t)


cdef i64 items_of(const i64* rows, i64 n_rows, const Pairs* p, i64 n_items,
                  i64* subset) noexcept nogil:
    """Write the items of ``rows`` into ``subset`` (sorted); return their number."""
    cdef uint8_t* used = <uint8_t*>calloc(n_items + 1, 1)
    cdef i64 j, t, count = 0
    for j in range(n_rows):
        used[p.a[rows[j]]] = 1
        used[p.b[rows[j]]] = 1
    for t in range(n_items):
        if used[t]:
            subset[count] = t
            count += 1
    free(used)
    return count


cdef void q_diagonal(const Kern* k, const Pairs* p, double* out) noexcept nogil:
    """QD_t = K~_tt = k(b, b) - 2 k(a, b) + k(a, a) (+ |c_t|^2), without any kernel row."""
    cdef i64 t, ia, ib, n = k.n
    cdef double kab, kaa, kbb
    for t in range(p.m):
        ia = p.a[t]
        ib = p.b[t]
        if k.code == PRECOMPUTED:
            out[t] = (k.gram[ib * n + ib] - 2.0 * k.gram[ia * n + ib] + k.gram[ia * n + ia]
                      + context_dot(p, t, t))
            continue
        if k.code == LAPLACIAN:
            kab = _kernel_pre(k, _dot(k, ia, ib), k.sqnorm[ia], k.sqnorm[ib])
            kab = _exp1(_refined(k, ia, ib, kab))
        else:
            kab = kernel_value(k, _dot(k, ia, ib), k.sqnorm[ia], k.sqnorm[ib])
        kaa = kernel_value(k, k.sqnorm[ia], k.sqnorm[ia], k.sqnorm[ia])
        kbb = kernel_value(k, k.sqnorm[ib], k.sqnorm[ib], k.sqnorm[ib])
        out[t] = kbb - 2.0 * kab + kaa + context_dot(p, t, t)


# --- The row cache ------------------------------------------------------------------

cdef inline i64 row_work(i64 n_items, i64 n_rows, i64 n_features) noexcept nogil:
    """Work of one row of Q: two kernel rows over the items and a gather over
    the rows.  Measured costs are about (p + 2) ns per kernel value and 2 ns per
    gathered entry; only the ratio to a step's 3 ns per active row matters."""
    return 2 * n_items * (n_features + 2) + 2 * n_rows


cdef i64 _row(i64 s, const Kern* k, const Pairs* p, Cache* c, Work* w) noexcept nogil:
    """Slot of row s of Q in the cache, computing it if missing or too short."""
    cdef i64 m = p.m, slot, oldest, j
    c.clock[0] += 1
    slot = c.slot_of[s]
    if slot >= 0:
        c.stamp[slot] = c.clock[0]
        if c.full[slot] or c.slot_gen[slot] == c.gen[0]:
            return slot
    else:
        slot = 0
        oldest = c.stamp[0]
        for j in range(1, c.n_slots):
            if c.stamp[j] < oldest:
                oldest = c.stamp[j]
                slot = j
        if c.owner[slot] >= 0:
            c.slot_of[c.owner[slot]] = -1
        c.owner[slot] = s
        c.slot_of[s] = slot
        c.stamp[slot] = c.clock[0]
    if c.size[0] == m:
        q_row(k, p, s, NULL, m, c.items, k.n, w, c.data + slot * m, <int>c.clock[3])
        c.full[slot] = 1
    else:
        q_row(k, p, s, c.rows, c.size[0], c.items, c.size[1], w, c.data + slot * m,
              <int>c.clock[3])
        c.full[slot] = 0
    c.slot_gen[slot] = c.gen[0]
    # A Gram matrix's values are read, not computed: no per-feature cost.
    c.clock[1] += row_work(c.size[1], c.size[0], 0 if k.code == PRECOMPUTED else k.p)
    return slot


cdef void _activate_all(Cache* c, i64 m, i64 n_items) noexcept nogil:
    """Make every row active again (unshrinking); rows computed before go stale."""
    cdef i64 t
    for t in range(m):
        c.rows[t] = t
    for t in range(n_items):
        c.items[t] = t
    c.size[0] = m
    c.size[1] = n_items
    c.gen[0] += 1


# --- Optimality and shrinking -------------------------------------------------------

cdef inline bint _in_up(double y_t, double alpha_t, double C_t) noexcept nogil:
    """A row may move in the direction that increases y_t alpha_t (LIBSVM's I_up)."""
    return (y_t > 0 and alpha_t < C_t) or (y_t < 0 and alpha_t > 0.0)


cdef inline bint _in_low(double y_t, double alpha_t, double C_t) noexcept nogil:
    """A row may move in the direction that decreases y_t alpha_t (I_low)."""
    return (y_t > 0 and alpha_t > 0.0) or (y_t < 0 and alpha_t < C_t)


cdef inline double _projected_gradient(double g, double alpha_t, double C_t) noexcept nogil:
    """The gradient component that can still decrease the objective in the box [0, C_t]."""
    if C_t <= 0.0:
        # A row of weight 0: its box is the point 0, nothing to move (read as
        # at 0 only, a negative gradient was a violation no step could
        # remove, and SVMRank(solver="exact") with weights of 0 never converged).
        return 0.0
    if alpha_t <= 0.0:
        return g if g < 0.0 else 0.0
    if alpha_t >= C_t:
        return g if g > 0.0 else 0.0
    return g


cdef void _violation_bounds(const i64* rows, i64 n, const double* y, const double* G,
                            const double* alpha, const double* C, bint use_bias,
                            double* g1_out, double* g2_out) noexcept nogil:
    """(max_{I_up} -y_t G_t, max_{I_low} y_t G_t) over ``rows[:n]`` (all rows
    when NULL); their sum is the maximal KKT violation.  Without a bias:
    (max |projected gradient|, 0)."""
    cdef double g1 = -INFINITY, g2 = -INFINITY, v
    cdef i64 j, t
    if not use_bias:
        g1 = 0.0
        g2 = 0.0
    for j in range(n):
        t = j if rows == NULL else rows[j]
        if use_bias:
            if _in_up(y[t], alpha[t], C[t]):
                v = -y[t] * G[t]
                if v > g1:
                    g1 = v
            if _in_low(y[t], alpha[t], C[t]):
                v = y[t] * G[t]
                if v > g2:
                    g2 = v
        else:
            v = fabs(_projected_gradient(G[t], alpha[t], C[t]))
            if v > g1:
                g1 = v
    g1_out[0] = g1
    g2_out[0] = g2


cdef inline bint _be_shrunk(double y_t, double G_t, double alpha_t, double C_t, double g1,
                            double g2, bint use_bias) noexcept nogil:
    """Row t sits at a bound, and its gradient would have to move by more than
    the current violation before it could join a violating pair (LIBSVM's rule;
    without a bias the same idea on the projected gradient)."""
    if alpha_t >= C_t:
        if not use_bias:
            return -G_t > g1
        return -G_t > (g1 if y_t > 0 else g2)
    if alpha_t <= 0.0:
        if not use_bias:
            return G_t > g1
        return G_t > (g2 if y_t > 0 else g1)
    return False


cdef int gradient_on(const i64* rows, i64 n_rows, const Kern* k, const Pairs* p,
                     const double* alpha, Cache* c, Work* w, double* G) noexcept nogil:
    """Set G_t = (Q alpha)_t - 1 for the listed rows (warm starts, unshrinking).

    A support row s whose whole row of Q is cached adds alpha_s Q_st directly.
    The others go through the items: their part of (Q alpha)_t is
    y_t (f(b_t) - f(a_t)) with f(z) = sum_i c_i k(z_i, z) and
    c = sum_s alpha_s y_s (e_{b_s} - e_{a_s}) (eqs. 17 and 19), one kernel row
    per item with a nonzero coefficient, over the items of the listed rows.
    Returns -1 when out of memory (clock[STOP] = OUT_OF_MEMORY) or interrupted
    (G is then abandoned).
    """
    cdef i64 n = k.n, m = p.m, j, t, s, i, slot, f, n_targets
    cdef double* coef = <double*>calloc(n + 1, sizeof(double))
    cdef double* v = <double*>calloc(p.nc + 1, sizeof(double))
    cdef double* fz = <double*>calloc(n + 1, sizeof(double))
    cdef i64* targets = <i64*>malloc((n + 1) * sizeof(i64))
    cdef double* krow = w.ka
    cdef double* qrow
    cdef double as_
    cdef int status = 0
    if coef == NULL or v == NULL or fz == NULL or targets == NULL:
        c.clock[2] = OUT_OF_MEMORY
        status = -1
    else:
        for j in range(n_rows):
            G[rows[j]] = -1.0
        for s in range(m):
            if alpha[s] == 0.0:
                continue
            slot = c.slot_of[s]
            as_ = alpha[s]
            if slot >= 0 and c.full[slot]:
                qrow = c.data + slot * m
                for j in range(n_rows):
                    t = rows[j]
                    G[t] += as_ * qrow[t]
            else:
                coef[p.b[s]] += as_ * p.y[s]
                coef[p.a[s]] -= as_ * p.y[s]
                for f in range(p.nc):
                    v[f] += as_ * p.y[s] * p.ctx[s * p.nc + f]
        n_targets = items_of(rows, n_rows, p, n, targets)
        for i in range(n):
            if coef[i] != 0.0:
                if stop_asked(&c.clock[2]) != 0:
                    status = -1  # interrupted: G is abandoned with the fit
                    break
                item_kernel_row(k, i, targets, n_targets, krow, w)
                for j in range(n_targets):
                    fz[targets[j]] += coef[i] * krow[targets[j]]
                c.clock[1] += n_targets * (k.p + 3)
        if status == 0:
            for j in range(n_rows):
                t = rows[j]
                G[t] += p.y[t] * (fz[p.b[t]] - fz[p.a[t]])
                for f in range(p.nc):
                    G[t] += p.y[t] * v[f] * p.ctx[t * p.nc + f]
    free(coef)
    free(v)
    free(fz)
    free(targets)
    return status


cdef int _rebuild_gradient(const i64* rows, i64 n_rows, const Kern* k, const Pairs* p,
                           const double* alpha, Cache* c, Work* w, double* G) noexcept nogil:
    """G_t = (Q alpha)_t - 1 on the listed rows (set-aside rows coming back),
    as G0_t + (Q (alpha - alpha0))_t from the start (alpha0, G0): the kernel
    rows of the variables that moved since the start, not of every support
    vector, which is what a warm start near its optimum saves (a calibration
    fold moves a few hundred of thousands).  From a cold start (alpha0 = 0,
    G0 = -1) it is :func:`gradient_on` itself."""
    cdef i64 m = p.m, t, j
    cdef double* change = <double*>malloc((m + 1) * sizeof(double))
    cdef int status
    if change == NULL:
        c.clock[2] = OUT_OF_MEMORY
        return -1
    for t in range(m):
        change[t] = alpha[t] - c.alpha0[t]
    status = gradient_on(rows, n_rows, k, p, change, c, w, G)  # (Q change)_t - 1
    free(change)
    if status == 0:
        for j in range(n_rows):
            t = rows[j]
            G[t] += c.G0[t] + 1.0
    return status


cdef i64 _moved_since_start(const double* alpha, const Cache* c, i64 m) noexcept nogil:
    """How many variables differ from the start: the support rows whose
    kernel rows :func:`_rebuild_gradient` needs."""
    cdef i64 moved = 0, t
    for t in range(m):
        moved += alpha[t] != c.alpha0[t]
    return moved


cdef bint _shrink(const Kern* k, const Pairs* p, Cache* c, Work* w, double* G,
                  const double* alpha, const double* C, bint use_bias, double tol,
                  bint unshrunk) noexcept nogil:
    """Set aside the rows that cannot take part in a step soon (LIBSVM's shrinking).

    The first time the violation on the active rows falls below 10 tol, every
    row comes back once (with its gradient reconstructed), so that the final
    iterations work on the whole problem.  Returns the updated ``unshrunk``.
    """
    cdef const double* y = p.y
    cdef double g1, g2
    cdef i64 m = p.m, n, drop, keep, j, t
    cdef i64* shrunk
    _violation_bounds(c.rows, c.size[0], y, G, alpha, C, use_bias, &g1, &g2)
    if not unshrunk and g1 + g2 <= 10.0 * tol:
        unshrunk = True
        if c.size[0] < m:
            _rebuild_gradient(c.rows + c.size[0], m - c.size[0], k, p, alpha, c, w, G)
            _activate_all(c, m, k.n)
            _violation_bounds(NULL, m, y, G, alpha, C, use_bias, &g1, &g2)
    n = c.size[0]
    drop = 0
    for j in range(n):
        t = c.rows[j]
        drop += _be_shrunk(y[t], G[t], alpha[t], C[t], g1, g2, use_bias)
    # Loops over a subset gather through ``rows`` at about 1.5x the cost per
    # row of loops over all rows: leaving the whole set pays only for a cut of
    # a quarter or more.
    if drop == 0 or (n == m and 4 * (n - drop) > 3 * m):
        return unshrunk
    shrunk = <i64*>malloc(drop * sizeof(i64))
    if shrunk == NULL:
        return unshrunk
    keep = 0
    drop = 0
    for j in range(n):  # stable partition: kept rows stay sorted
        t = c.rows[j]
        if _be_shrunk(y[t], G[t], alpha[t], C[t], g1, g2, use_bias):
            shrunk[drop] = t
            drop += 1
        else:
            c.rows[keep] = t
            keep += 1
    for j in range(drop):
        c.rows[keep + j] = shrunk[j]
    free(shrunk)
    c.size[0] = keep
    c.size[1] = items_of(c.rows, keep, p, k.n, c.items)
    return unshrunk


# --- Working-set selection and steps ------------------------------------------------

cdef inline void _up_winner(i64 lo, i64 hi, const i64* rows, const double* y,
                            const double* G, const double* alpha, const double* C,
                            double* best, double* top, i64* at) noexcept nogil:
    """(max -y_t G_t over I_up, 0, its last row) over positions lo..hi-1 of
    ``rows`` (NULL: the identity)."""
    cdef double gmax = -INFINITY, v
    cdef i64 i = -1, j, t
    for j in range(lo, hi):
        t = j if rows == NULL else rows[j]
        if _in_up(y[t], alpha[t], C[t]):
            v = -y[t] * G[t]
            if v >= gmax:
                gmax = v
                i = t
    best[0] = gmax
    top[0] = 0.0
    at[0] = i


cdef inline void _low_winner(i64 lo, i64 hi, const i64* rows, i64 i, double gmax,
                             const double* y, const double* G, const double* alpha,
                             const double* C, const double* QD, const double* qi,
                             double* best, double* top, i64* at) noexcept nogil:
    """(the smallest WSS2 objective, max y_t G_t over I_low, the objective's
    last row) over positions lo..hi-1, ``qi`` row i of Q."""
    cdef double low = -INFINITY, gain = INFINITY, v, grad_diff, quad, obj
    cdef i64 j = -1, pos, t
    for pos in range(lo, hi):
        t = pos if rows == NULL else rows[pos]
        if _in_low(y[t], alpha[t], C[t]):
            v = y[t] * G[t]
            if v >= low:
                low = v
            grad_diff = gmax + v
            if grad_diff > 0.0:
                quad = QD[i] + QD[t] - 2.0 * y[i] * y[t] * qi[t]
                if quad <= 0.0:
                    quad = TAU
                obj = -(grad_diff * grad_diff) / quad
                if obj <= gain:
                    gain = obj
                    j = t
    best[0] = gain
    top[0] = low
    at[0] = j


cdef inline void _coordinate_winner(i64 lo, i64 hi, const i64* rows, const double* G,
                                    const double* alpha, const double* C, const double* QD,
                                    double* best, double* top, i64* at) noexcept nogil:
    """(the largest gain pg^2 / Q_tt, the largest |pg|, the gain's first row)
    over positions lo..hi-1 (the dual without a bias)."""
    cdef double gain_max = -1.0, violation = 0.0, pg, gain, q
    cdef i64 i = -1, j, t
    for j in range(lo, hi):
        t = j if rows == NULL else rows[j]
        pg = _projected_gradient(G[t], alpha[t], C[t])
        if fabs(pg) > violation:
            violation = fabs(pg)
        q = QD[t] if QD[t] > TAU else TAU
        gain = pg * pg / q
        if gain > gain_max:
            gain_max = gain
            i = t
    best[0] = gain_max
    top[0] = violation
    at[0] = i


cdef int _chunk_winners(int mode, const i64* rows, i64 n, i64 i, double gmax,
                        const double* y, const double* G, const double* alpha,
                        const double* C, const double* QD, const double* qi,
                        int n_threads, double* value_out, double* extra_out,
                        i64* win_out) noexcept nogil:
    """One selection loop over rows[:n] (``mode``: UP, LOW or COORDINATE, each
    what :func:`_up_winner`, :func:`_low_winner` or :func:`_coordinate_winner`
    returns over them) in fixed chunks on ``n_threads`` threads, the chunks'
    winners combined by the serial loop's tie rule, so the same row wins on
    any thread count.  Returns -1 when out of memory."""
    cdef i64 n_chunks = (n + _SELECT_CHUNK - 1) // _SELECT_CHUNK, ch, lo, hi, win = -1
    cdef double* best = <double*>malloc(n_chunks * sizeof(double))
    cdef double* top = <double*>malloc(n_chunks * sizeof(double))
    cdef i64* at = <i64*>malloc(n_chunks * sizeof(i64))
    cdef double value, extra
    cdef bint better
    if best == NULL or top == NULL or at == NULL:
        free(best)
        free(top)
        free(at)
        return -1
    for ch in prange(n_chunks, nogil=True, num_threads=_team(n_threads, n_chunks),
                     schedule="static"):
        lo = ch * _SELECT_CHUNK
        hi = min(n, lo + _SELECT_CHUNK)
        if mode == 0:
            _up_winner(lo, hi, rows, y, G, alpha, C, &best[ch], &top[ch], &at[ch])
        elif mode == 1:
            _low_winner(lo, hi, rows, i, gmax, y, G, alpha, C, QD, qi, &best[ch], &top[ch],
                        &at[ch])
        else:
            _coordinate_winner(lo, hi, rows, G, alpha, C, QD, &best[ch], &top[ch], &at[ch])
    # The serial loops' starting values and tie rules: the last of the largest
    # (UP), the last of the smallest (LOW), the first of the largest.
    value = -INFINITY if mode == 0 else (INFINITY if mode == 1 else -1.0)
    extra = -INFINITY if mode == 1 else 0.0
    for ch in range(n_chunks):
        if top[ch] > extra:
            extra = top[ch]
        if at[ch] < 0:
            continue
        if mode == 0:
            better = best[ch] >= value
        elif mode == 1:
            better = best[ch] <= value
        else:
            better = best[ch] > value
        if better:
            value = best[ch]
            win = at[ch]
    free(best)
    free(top)
    free(at)
    value_out[0] = value
    extra_out[0] = extra
    win_out[0] = win
    return 0


def chunk_winners(int mode, rows, i64 n, i64 i, double gmax, y, G, alpha, C, QD, qi,
                  int n_threads):
    """(value, extra, row) of one selection loop in chunks (see _chunk_winners),
    from Python (the tests check it against the serial rule)."""
    y = _f64(y)
    if y.ndim != 1:
        raise ValueError("y must be a 1-D array")
    m = y.shape[0]
    G, alpha, C, QD, qi = (_vector(v, m, name) for v, name in (
        (G, "G"), (alpha, "alpha"), (C, "C"), (QD, "QD"), (qi, "qi")))
    rows = _indices(rows, m, "rows")
    if rows.shape[0] != m or not 0 < n <= m:
        raise ValueError("rows must be a permutation of the rows, 0 < n <= m")
    if mode not in (0, 1, 2) or (mode == 1 and not 0 <= i < m) or n_threads < 1:
        raise ValueError("mode must be UP, LOW (with a row i) or COORDINATE; threads >= 1")
    cdef double value, extra
    cdef i64 win
    # Every row: rows is the identity (as the loop passes it).
    cdef i64* rp = NULL if n == rows.shape[0] else _ip(rows)
    _chunk_winners(mode, rp, n, i, gmax, _dp(y), _dp(G), _dp(alpha), _dp(C), _dp(QD),
                   _dp(qi), n_threads, &value, &extra, &win)
    return value, extra, win


cdef void _select(const Kern* k, const Pairs* p, Cache* c, Work* w, const double* G,
                  const double* alpha, const double* C, const double* QD, bint use_bias,
                  i64* i_out, i64* j_out, double* violation_out) noexcept nogil:
    """Working set on the active rows: (i, j, violation); j = -1 without a bias."""
    cdef const double* y = p.y
    cdef i64 n = c.size[0], i, j, si
    cdef int n_threads = <int>c.clock[3]
    # Past two chunks of rows the loops run in chunks on all threads (the
    # same rows as one loop: the chunk winners are combined by its tie rule;
    # on one thread the chunks only cost time).
    cdef bint chunked = n >= _PARALLEL_SELECT and n_threads > 1
    cdef const i64* rows = NULL if n == p.m else c.rows  # NULL: the identity
    cdef double best, gmax, gmax2, violation
    if not use_bias:
        # Greedy coordinate descent: the largest second-order gain pg^2 / Q_tt.
        if chunked:
            _chunk_winners(2, rows, n, -1, 0.0, G, G, alpha, C, QD, G, n_threads, &best,
                           &violation, &i)
        else:
            _coordinate_winner(0, n, rows, G, alpha, C, QD, &best, &violation, &i)
        i_out[0] = i
        j_out[0] = -1
        violation_out[0] = violation
        return
    # WSS2 (Fan, Chen and Lin 2005): i maximizes -y_t G_t over I_up, then j
    # maximizes the decrease of the two-variable subproblem.
    if chunked:
        _chunk_winners(0, rows, n, -1, 0.0, y, G, alpha, C, G, G, n_threads, &gmax, &best, &i)
    else:
        _up_winner(0, n, rows, y, G, alpha, C, &gmax, &best, &i)
    gmax2 = -INFINITY
    j = -1
    if i >= 0:
        si = _row(i, k, p, c, w)
        if chunked:
            _chunk_winners(1, rows, n, i, gmax, y, G, alpha, C, QD, c.data + si * p.m,
                           n_threads, &best, &gmax2, &j)
        else:
            _low_winner(0, n, rows, i, gmax, y, G, alpha, C, QD, c.data + si * p.m, &best,
                        &gmax2, &j)
    i_out[0] = i
    j_out[0] = j
    violation_out[0] = -INFINITY if j < 0 else gmax + gmax2


cdef inline void _clip_on_sum(double* alpha, i64 first, i64 second, double total,
                              double c_first) noexcept nogil:
    """Back into the box along a_first + a_second = total: a_first down to
    c_first when the sum allows it, else a_second up to 0 (LIBSVM's clipping
    for rows of one label, applied once from each side)."""
    if total > c_first:
        if alpha[first] > c_first:
            alpha[first] = c_first
            alpha[second] = total - c_first
    elif alpha[second] < 0.0:
        alpha[second] = 0.0
        alpha[first] = total


cdef inline void _pair_step(i64 i, i64 j, double qij, const double* y, const double* C,
                            const double* QD, const double* G, double* alpha) noexcept nogil:
    """Solve the two-variable subproblem on (i, j) analytically (LIBSVM's update)."""
    cdef double Ci = C[i], Cj = C[j], quad, delta, diff, total
    if y[i] != y[j]:
        # y_i a_i + y_j a_j fixed: a_i - a_j stays constant.
        quad = QD[i] + QD[j] + 2.0 * qij
        if quad <= 0.0:
            quad = TAU
        delta = (-G[i] - G[j]) / quad
        diff = alpha[i] - alpha[j]
        alpha[i] += delta
        alpha[j] += delta
        if diff > 0.0:
            if alpha[j] < 0.0:
                alpha[j] = 0.0
                alpha[i] = diff
        else:
            if alpha[i] < 0.0:
                alpha[i] = 0.0
                alpha[j] = -diff
        if diff > Ci - Cj:
            if alpha[i] > Ci:
                alpha[i] = Ci
                alpha[j] = Ci - diff
        else:
            if alpha[j] > Cj:
                alpha[j] = Cj
                alpha[i] = Cj + diff
    else:
        # a_i + a_j stays constant.
        quad = QD[i] + QD[j] - 2.0 * qij
        if quad <= 0.0:
            quad = TAU
        delta = (G[i] - G[j]) / quad
        total = alpha[i] + alpha[j]
        alpha[i] -= delta
        alpha[j] += delta
        _clip_on_sum(alpha, i, j, total, Ci)
        _clip_on_sum(alpha, j, i, total, Cj)


cdef inline void _coordinate_step(i64 i, const double* C, const double* QD, const double* G,
                                  double* alpha) noexcept nogil:
    """Minimize over alpha_i alone in [0, C_i] (the dual without a bias)."""
    cdef double new
    if QD[i] > TAU:
        new = alpha[i] - G[i] / QD[i]
    else:
        # A zero-length difference: the objective is linear in alpha_i.
        new = C[i] if G[i] < 0.0 else 0.0
    if new < 0.0:
        new = 0.0
    if new > C[i]:
        new = C[i]
    alpha[i] = new


cdef void _take_step(i64 i, i64 j, const Kern* k, const Pairs* p, Cache* c, Work* w,
                     double* G, double* alpha, const double* C, const double* QD,
                     bint use_bias) noexcept nogil:
    """Move alpha_i (and alpha_j), then update the gradient on the active rows."""
    cdef i64 m = p.m, n = c.size[0], si, sj, pos, t
    cdef double old_i, old_j, di, dj
    cdef const double* qi
    cdef const double* qj
    si = _row(i, k, p, c, w)
    old_i = alpha[i]
    qi = c.data + si * m
    if use_bias:
        sj = _row(j, k, p, c, w)
        qj = c.data + sj * m
        old_j = alpha[j]
        _pair_step(i, j, qi[j], p.y, C, QD, G, alpha)
        di = alpha[i] - old_i
        dj = alpha[j] - old_j
        if n == m:
            for t in range(m):
                G[t] += qi[t] * di + qj[t] * dj
        else:
            for pos in range(n):
                t = c.rows[pos]
                G[t] += qi[t] * di + qj[t] * dj
    else:
        _coordinate_step(i, C, QD, G, alpha)
        di = alpha[i] - old_i
        if n == m:
            for t in range(m):
                G[t] += qi[t] * di
        else:
            for pos in range(n):
                t = c.rows[pos]
                G[t] += qi[t] * di


# --- The loop -----------------------------------------------------------------------
# A compiled loop cannot see Ctrl-C: Python runs signal handlers only between
# bytecodes of the main thread.  The loop therefore runs a first, short slice
# of work in the calling thread (small problems end there, at no cost), then
# goes on in a worker thread that releases the GIL while the calling thread
# waits, and stops at the next step when that thread sets the stop flag.  Its
# state (gradient, active set, cache, counters) lives in the SmoLoop, so that
# both parts run the same loop.

cdef void _steps(const Kern* k, const Pairs* p, Cache* c, Work* w, const double* C,
                 double* alpha, double* G, const double* QD, bint use_bias, double tol,
                 bint shrinking, i64* state, i64 stop, i64 budget) noexcept nogil:
    cdef i64 m = p.m, i, j
    cdef i64 work_end = c.clock[1] + budget
    cdef i64 n_iter = state[0], counter = state[1], most_shrunk = state[3]
    cdef bint unshrunk = state[2] != 0
    cdef double violation
    cdef i64* size = c.size
    while n_iter < stop and c.clock[1] < work_end and stop_asked(&c.clock[2]) == 0:
        c.clock[1] += 3 * size[0]
        if shrinking:
            counter -= 1
            if counter == 0:
                counter = min(m, state[5])
                # Bringing shrunk rows back costs about one kernel row per
                # variable moved since the start; it pays only once steps
                # revisit variables.
                if n_iter >= _moved_since_start(alpha, c, m):
                    unshrunk = _shrink(k, p, c, w, G, alpha, C, use_bias, tol, unshrunk)
                    if m - size[0] > most_shrunk:
                        most_shrunk = m - size[0]
        _select(k, p, c, w, G, alpha, C, QD, use_bias, &i, &j, &violation)
        # No row to move (i or, with a bias, j = -1) is optimal whatever tol says.
        if violation < tol or i < 0 or (use_bias and j < 0):
            if size[0] == m:
                state[4] = 1
                break
            # Optimal on the active rows: check the whole problem before
            # stopping, by the selection at the top of the loop.  counter = 2
            # shrinks again right after that step, as the next step would.
            _rebuild_gradient(c.rows + size[0], m - size[0], k, p, alpha, c, w, G)
            _activate_all(c, m, k.n)
            counter = 2
            continue
        _take_step(i, j, k, p, c, w, G, alpha, C, QD, use_bias)
        n_iter += 1
        state[0] = n_iter  # read by the progress line of the calling thread
    state[1] = counter
    state[2] = unshrunk
    state[3] = most_shrunk


cdef class SmoLoop:
    """The SMO loop's state on one problem: active set, row cache, diagonal of
    Q and gradient G = Q alpha - 1 (``gradient0`` when it has m entries, else
    computed from ``alpha``).

    Attributes read by the driver (numpy arrays sharing the loop's memory):
    ``G``, ``QD``, ``clock`` (see LRU, WORK, STOP, THREADS), ``rows`` and
    ``size`` (the active rows are rows[:size[0]]), and the row cache
    ``data``, ``slot_of``, ``full``.
    """
    cdef _Problem problem
    cdef Cache c
    cdef Work w
    cdef readonly object G, QD, clock, rows, size, data, slot_of, full
    cdef list keep
    cdef bint borrowed

    def __init__(self, kp, pairs, alpha, i64 n_slots, gradient0):
        self.problem = _Problem(kp, pairs)
        cdef Kern* k = &self.problem.k
        cdef Pairs* p = &self.problem.p
        cdef i64 m = p.m, n = k.n
        alpha = _vector(alpha, m, "alpha")
        gradient0 = _f64(gradient0)
        if gradient0.ndim != 1 or gradient0.shape[0] not in (0, m):
            raise ValueError(f"gradient0 must be empty or a 1-D array of {m} entries")
        # Two slots at least: a step with a bias holds rows i and j at once.
        n_slots = max(2, min(n_slots, m))
        self.rows = np.arange(m, dtype=np.int64)
        items = np.arange(n, dtype=np.int64)
        self.size = np.array([m, n], dtype=np.int64)
        gen = np.zeros(1, dtype=np.int64)
        self.data = np.empty((n_slots, max(m, 1)))
        self.slot_of = -np.ones(max(m, 1), dtype=np.int64)
        owner = -np.ones(n_slots, dtype=np.int64)
        stamp = np.zeros(n_slots, dtype=np.int64)
        self.clock = np.zeros(4, dtype=np.int64)
        self.clock[3] = 1
        self.full = np.zeros(n_slots, dtype=np.uint8)
        slot_gen = np.zeros(n_slots, dtype=np.int64)
        alpha0 = alpha.copy()
        G0 = np.empty(max(m, 1))
        scratch = [np.empty(max(n, 1)) for _ in range(7)]
        self.keep = [items, gen, owner, stamp, slot_gen, alpha0, G0, *scratch]
        self.c.data = _dp(self.data)
        self.c.slot_of = _ip(self.slot_of)
        self.c.owner = _ip(owner)
        self.c.stamp = _ip(stamp)
        self.c.full = _bp(self.full)
        self.c.slot_gen = _ip(slot_gen)
        self.c.n_slots = n_slots
        self.c.clock = _ip(self.clock)
        self.c.rows = _ip(self.rows)
        self.c.items = _ip(items)
        self.c.size = _ip(self.size)
        self.c.gen = _ip(gen)
        self.c.alpha0 = _dp(alpha0)
        self.c.G0 = _dp(G0)
        self.w.ka = _dp(scratch[0])
        self.w.d = _dp(scratch[1])
        self.w.arg = _dp(scratch[2])
        self.w.expd = _dp(scratch[3])
        self.w.arg_b = _dp(scratch[4])
        self.w.k_a = _dp(scratch[5])
        self.w.k_b = _dp(scratch[6])
        self.QD = np.empty(m)
        self.G = np.empty(m)
        cdef double* QD = _dp(self.QD)
        cdef double* G = _dp(self.G)
        cdef double* a = _dp(alpha)
        with nogil:
            if m:
                q_diagonal(k, p, QD)
        if gradient0.shape[0] == m:
            self.G[:] = gradient0
        else:
            self.G[:] = -1.0
            if np.any(alpha != 0.0):
                with nogil:
                    gradient_on(self.c.rows, m, k, p, a, &self.c, &self.w, G)
                self._check_memory()
        G0[:m] = self.G

    def _check_memory(self):
        if self.clock[STOP] == OUT_OF_MEMORY:
            raise MemoryError("the SMO solver could not allocate its scratch vectors")

    def use_rows(self, cached):
        """Read rows of Q from another solve's cache of this problem
        (``RowCache.arrays()``: data, slot_of, full; read only): for
        :meth:`gradient_on` alone, the loop takes no step afterwards."""
        cdef i64 m = self.problem.p.m
        data, full = _f64(cached[0]), np.asarray(cached[2])
        if data.ndim != 2 or (m and data.shape[1] != m):
            raise ValueError("the cached rows belong to another problem")
        if full.ndim != 1 or full.dtype not in (np.uint8, np.bool_) \
                or full.shape[0] != data.shape[0]:
            raise ValueError("the cached rows' flags must be one uint8 or bool per slot")
        slot_of = np.asarray(cached[1])
        if slot_of.ndim != 1 or slot_of.shape[0] != m or \
                (slot_of.size and slot_of.dtype.kind not in "iu"):
            raise ValueError(f"the cached rows' slots must be {m} integers, one per row")
        slot_of = _i64(slot_of)
        if m and (slot_of.min() < -1 or slot_of.max() >= data.shape[0]):
            raise ValueError("a cached row's slot is outside the cached data")
        full = np.ascontiguousarray(full)
        self.keep += [data, slot_of, full]
        self.c.data = _dp(data)
        self.c.slot_of = _ip(slot_of)
        self.c.full = _bp(full)
        self.borrowed = True

    def steps(self, C, alpha, bint use_bias, double tol, bint shrinking, state, i64 stop,
              i64 budget):
        """SMO steps until convergence (state[DONE] = 1), state[N_ITER] == stop,
        the stop flag (clock[STOP]), or the work since the call began (clock[WORK]
        and 3 units per active row per step) exceeds ``budget``.  Releases the
        GIL; ``alpha`` and ``state`` (int64) are updated in place."""
        cdef i64 m = self.problem.p.m
        if self.borrowed:
            raise ValueError("this loop reads another solve's rows: it takes no steps")
        if not tol >= 0.0:
            raise ValueError(f"tol must be a number >= 0; got {tol!r}")
        C = _vector(C, m, "C")
        alpha = _in_place(alpha, m, "alpha")
        state = _in_place(state, 6, "state", np.int64)
        cdef double[::1] a = alpha
        cdef i64[::1] s = state
        cdef const double* Cp = _dp(C)
        cdef double* ap = &a[0] if m else NULL
        cdef double* G = _dp(self.G)
        cdef const double* QD = _dp(self.QD)
        with nogil:
            _steps(&self.problem.k, &self.problem.p, &self.c, &self.w, Cp, ap, G, QD, use_bias,
                   tol, shrinking, &s[0], stop, budget)
        self._check_memory()

    def finish(self, C, alpha, bint use_bias):
        """(KKT violation, dual objective) on the whole problem."""
        cdef i64 m = self.problem.p.m, t
        C, alpha = _vector(C, m, "C"), _vector(alpha, m, "alpha")
        cdef const double* Cp = _dp(C)
        cdef const double* ap = _dp(alpha)
        cdef double* G = _dp(self.G)
        cdef double g1 = 0.0, g2 = 0.0, objective = 0.0
        with nogil:
            if self.c.size[0] < m:  # stopped by max_iter while shrunk
                _rebuild_gradient(self.c.rows + self.c.size[0], m - self.c.size[0],
                                  &self.problem.k, &self.problem.p, ap, &self.c, &self.w, G)
            if m:
                _violation_bounds(NULL, m, self.problem.p.y, G, ap, Cp, use_bias, &g1, &g2)
            for t in range(m):
                objective += 0.5 * ap[t] * (G[t] - 1.0)
        self._check_memory()
        return max(g1 + g2, 0.0), objective

    def gradient_on(self, rows, alpha, G):
        """Set G[t] = (Q alpha)_t - 1 for the listed rows (see gradient_on);
        releases the GIL.  Returns False when stopped by the stop flag."""
        cdef i64 m = self.problem.p.m
        # Each row once: a row listed twice would add its sums twice.
        rows = np.unique(_indices(rows, m, "rows"))
        alpha = _vector(alpha, m, "alpha")
        G = _in_place(G, m, "G")
        cdef double[::1] g = G
        cdef const i64* rp = _ip(rows)
        cdef i64 n_rows = rows.shape[0]
        cdef const double* ap = _dp(alpha)
        cdef int status
        if m == 0:
            return True
        with nogil:
            status = gradient_on(rp, n_rows, &self.problem.k, &self.problem.p, ap, &self.c,
                                 &self.w, &g[0])
        self._check_memory()
        return status == 0


def q_product(kp, pairs, delta, rows, cached):
    """(Q delta)_t for the listed rows t, Q_st = y_s y_t K~_st (eq. 18), as
    :meth:`SmoLoop.gradient_on` computes it: from the rows of Q in ``cached``
    (``RowCache.arrays()`` of a solve of this problem, read only) where they
    are whole, else by the item expansion (one kernel row per item of a row
    with delta_s != 0, over the items of the listed rows); ``delta`` may have
    either sign (the move from one solution to another).  Releases the GIL
    (calibration folds run it side by side in threads)."""
    delta = _f64(delta)
    if delta.ndim != 1:
        raise ValueError("delta must be a 1-D array, one entry per row")
    m = delta.shape[0]
    rows = _indices(rows, m, "rows")
    loop = SmoLoop(kp, pairs, delta, 2, np.zeros(m))
    loop.use_rows(cached)
    out = np.zeros(m)
    loop.gradient_on(rows, delta, out)  # (Q delta)_t - 1
    return out[rows] + 1.0
