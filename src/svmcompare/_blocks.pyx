# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The elementwise finish of RBF kernel blocks in C (a C extension built by the install).

``kernels.py`` computes a block of squared distances by one matrix product
and then, entry by entry, ``scale * max(|a_i|^2 + |b_j|^2 - 2 <a_i, b_j>, 0)``
and its exp.  As numpy passes that was six sweeps over a block of up to
hundreds of megabytes and numpy's exp (a grid search's RBF paths recompute a
6,400-item block per gamma: 11 of sushi's 42 s); here it is one sweep a row
with the SMO core's vectorized exp (``_exp.h``).  Same operations in the same
order as the numpy passes, but the exp (within 2 ulp of numpy's).
"""

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

cdef extern from "_exp.h":
    void exp_nonpositive_c "svmc_exp_nonpositive"(const double* x, int64_t count,
                                                  double* out) noexcept nogil


def finish_distances(double[:, ::1] out, const double[::1] a_norms, const double[::1] b_norms,
                     double scale, bint exponentiate):
    """out[i, j] = scale * max(a_norms[i] + b_norms[j] - 2 out[i, j], 0) in place
    (the inner products in, the scaled squared distances out), then its exp
    when ``exponentiate`` (which needs scale <= 0: an exp of x <= 0)."""
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1], i, j
    cdef double t, ai
    cdef double* row
    cdef double* scratch
    if a_norms.shape[0] != n or b_norms.shape[0] != m:
        raise ValueError("one norm per row of out and one per column")
    if exponentiate and not scale <= 0.0:
        raise ValueError("exponentiate needs scale <= 0")
    if n == 0 or m == 0:
        return
    scratch = <double*>malloc(m * sizeof(double))
    if scratch == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            row = &out[i, 0]
            ai = a_norms[i]
            for j in range(m):
                # The numpy passes' order: -2 x, + |a|^2, + |b|^2, max 0, * scale.
                t = row[j] * -2.0
                t = t + ai
                t = t + b_norms[j]
                t = t if t > 0.0 else 0.0
                if scale != 1.0:
                    t = t * scale
                scratch[j] = t
            if exponentiate:
                exp_nonpositive_c(scratch, m, row)
            else:
                for j in range(m):
                    row[j] = scratch[j]
    free(scratch)


def scaled_exp(double[::1] values, double scale):
    """values = exp(scale * values) in place, for scale * values <= 0 (an RBF or
    Laplacian block from its distances)."""
    cdef Py_ssize_t n = values.shape[0], lo, size, j
    cdef Py_ssize_t chunk = 4096
    cdef double scratch[4096]
    cdef double t
    if not scale <= 0.0:
        raise ValueError("scaled_exp needs scale <= 0")
    with nogil:
        lo = 0
        while lo < n:
            size = min(chunk, n - lo)
            for j in range(size):
                t = values[lo + j] * scale
                scratch[j] = t if t <= 0.0 else 0.0
            exp_nonpositive_c(scratch, size, &values[lo])
            lo += chunk
