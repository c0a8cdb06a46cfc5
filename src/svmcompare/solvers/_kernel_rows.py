"""The kernel and the items as the SMO core takes them (``kernel_pack``).

Rows of Q over the items (``Q_st = y_s y_t K~_st`` of the dual (18)) are
computed in the C extension :mod:`._smo_core` from this pack.
"""

from __future__ import annotations

import numpy as np

from ..kernels import PRECOMPUTED


def kernel_pack(items, kernel, gram=None):
    """The kernel as the compiled loop takes it: (code, items, squared norms,
    gamma, coef0, degree, item Gram matrix or a 1 x 1 placeholder).

    ``gram`` (k(items, items), when the caller has it) makes the code
    PRECOMPUTED; a Python callable, which cannot run inside the compiled
    loops, is evaluated once on all items (n_items^2 memory, documented on
    the estimators); built-in kernels compute the values they need, and
    only those.
    """
    code = kernel.code
    if gram is not None:
        gram = np.ascontiguousarray(gram, dtype=np.float64)
        code = PRECOMPUTED
    elif code == PRECOMPUTED:
        gram = np.ascontiguousarray(kernel.block(items, items), dtype=np.float64)
    else:
        gram = np.zeros((1, 1))
    items = np.ascontiguousarray(items, dtype=np.float64)
    sqnorm = np.einsum("ij,ij->i", items, items)
    return (code, items, sqnorm, float(kernel.gamma), float(kernel.coef0), int(kernel.degree),
            gram)
