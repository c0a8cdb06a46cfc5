"""Sparse row products on the solver's threads (csr_products.ParallelCSR)."""

import numpy as np
import pytest
import scipy.sparse as sp


def _ids_rows(m=30_000, p=400, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, p, m)
    b = (a + rng.integers(1, p, m)) % p
    r = np.arange(m)
    A = sp.csr_matrix((np.r_[-np.ones(m), rng.uniform(0.5, 2.0, m)], (np.r_[r, r], np.r_[a, b])),
                      shape=(m, p))
    return sp.hstack([A, np.ones((m, 1))], format="csr"), rng


@pytest.mark.parametrize("scatter", [True, False])
def test_parallel_products_are_scipys_on_any_number_of_threads(monkeypatch, scatter):
    """A x to the bit of SciPy's; A^T z to rounding of SciPy's and to the bit
    the same on one thread and two (both ways of summing it); int32 and int64
    indices alike."""
    from svmcompare.solvers import csr_products
    from svmcompare.solvers.threads import solver_threads

    if not scatter:
        monkeypatch.setattr(csr_products, "SCATTER_MAX_COLUMNS", 0)
    A, rng = _ids_rows()
    x, z = rng.normal(size=A.shape[1]), rng.normal(size=A.shape[0])
    z[rng.random(z.size) < 0.3] = 0.0
    results = []
    for wide_index in (False, True):
        B = A.copy()
        if wide_index:
            B.indices, B.indptr = B.indices.astype(np.int64), B.indptr.astype(np.int64)
        product = csr_products.ParallelCSR(B)
        for jobs in (1, 2):
            with solver_threads(jobs):
                results.append((product.dot(x), product.tdot(z)))
    for dot, tdot in results:
        np.testing.assert_array_equal(dot, A @ x)
        np.testing.assert_array_equal(tdot, results[0][1])
        np.testing.assert_allclose(tdot, A.T @ z, rtol=1e-12, atol=1e-12)
    if not scatter:
        np.testing.assert_array_equal(results[0][1], A.T.tocsr() @ z)


def test_parallel_products_refuse_what_they_cannot_read():
    from svmcompare.solvers.csr_products import ParallelCSR

    A, _ = _ids_rows(m=50, p=5)
    product = ParallelCSR(A)
    with pytest.raises(ValueError, match="entries"):
        product.dot(np.ones(3))
    with pytest.raises(ValueError, match="entries"):
        product.tdot(np.ones(3))
    bad = A.copy()
    bad.indices[0] = 99  # past the columns: would read outside x
    with pytest.raises(ValueError, match="outside"):
        ParallelCSR(bad)


def test_a_paths_rows_are_converted_once_inside_kept_csr_only():
    """dense_csr gives SciPy's arrays (float64, also from float32 rows); inside
    kept_csr(rows) the same copy comes back for those rows, and outside it
    (or for other arrays) every call converts anew: a caller that changes an
    array between solves, even a read-only one (its flag set back, or through
    a view made before), never gets a stale copy (a review's attack on a
    cache keyed by the read-only flag)."""
    from svmcompare.solvers import csr_products

    rng = np.random.default_rng(1)
    D = rng.normal(size=(50, 7)) * (rng.random((50, 7)) < 0.3)
    first = csr_products.dense_csr(D)
    reference = sp.csr_matrix(D)
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(first, name), getattr(reference, name))
    single = csr_products.dense_csr(D.astype(np.float32))
    assert single.dtype == np.float64
    np.testing.assert_array_equal(single.toarray(), D.astype(np.float32).astype(np.float64))

    alias = D[:, :]
    D.flags.writeable = False
    before = csr_products.dense_csr(D)
    alias[0, 0] = 5.0  # changed through a view made before: converted anew
    assert csr_products.dense_csr(D)[0, 0] == 5.0
    assert csr_products.dense_csr(D) is not before

    with csr_products.kept_csr(D):
        kept = csr_products.dense_csr(D)
        assert csr_products.dense_csr(D) is kept
        assert csr_products.dense_csr(D.copy()) is not kept
    assert not csr_products._kept
    assert csr_products.dense_csr(D) is not kept
