"""Kernel blocks and the gamma-free bases a grid search shares between them."""

import pickle

import numpy as np
import pytest
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

import svmcompare.grid_search as grid_search
import svmcompare.kernels as kernels
from svmcompare import SVMCompare
from svmcompare.datasets import make_norm_pairs
from svmcompare.grid_search import validation_search
from svmcompare.kernels import BlockBases, resolve_kernel


def _items():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(30, 3)), rng.normal(size=(20, 3))
    B[4] = A[7] + 1e-9  # a near duplicate, which the laplacian kernel sums exactly
    return A, B


def _reference(kernel, A, B):
    if kernel.name == "linear":
        return A @ B.T
    if kernel.name == "poly":
        return polynomial_kernel(A, B, degree=kernel.degree, gamma=kernel.gamma,
                                 coef0=kernel.coef0)
    if kernel.name == "rbf":
        return rbf_kernel(A, B, gamma=kernel.gamma)
    distance = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))
    return np.exp(-kernel.gamma * distance)


@pytest.mark.parametrize("name", ["linear", "poly", "rbf", "laplacian"])
def test_blocks_from_kept_bases_equal_blocks_computed_alone(name):
    A, B = _items()
    bases = BlockBases(1e6)
    for gamma, degree in [(0.5, 2), (2.0, 3), (0.5, 3)]:
        kernel = resolve_kernel(name, gamma=gamma, degree=degree)
        alone = kernel.block(A, B)
        np.testing.assert_allclose(alone, _reference(kernel, A, B), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(kernel.block(A, B, bases), alone)
    # One base computed, then served to the two other parameter settings.
    assert bases.hits == 2
    assert bases.nbytes == A.shape[0] * B.shape[0] * 8


def test_kept_bases_are_read_only_keyed_by_content_and_within_budget():
    A, B = _items()
    rbf = resolve_kernel("rbf", gamma=1.0)
    bases = BlockBases(1.5 * A.shape[0] * B.shape[0] * 8)  # room for one block
    first = rbf.block(A, B, bases)
    first[:] = 0.0  # the caller's block is its own; the kept base is not touched
    np.testing.assert_array_equal(rbf.block(A, B, bases), rbf.block(A, B))
    # Same shapes, other values: computed, never served stale.
    C = A + 1.0
    np.testing.assert_array_equal(rbf.block(C, B, bases), rbf.block(C, B))
    assert bases.nbytes <= bases.max_bytes  # the older base made room
    np.testing.assert_array_equal(rbf.block(A, B, bases), rbf.block(A, B))
    # Dot products and distances of the same items are different bases.
    linear = resolve_kernel("linear")
    np.testing.assert_array_equal(linear.block(A, B, bases), A @ B.T)
    # A base larger than the budget is computed but not kept.
    small = BlockBases(100)
    np.testing.assert_array_equal(rbf.block(A, B, small), rbf.block(A, B))
    assert small.nbytes == 0
    # Sent to a joblib worker, a copy starts empty with the same budget.
    copy = pickle.loads(pickle.dumps(bases))
    assert copy.max_bytes == bases.max_bytes and copy.nbytes == 0


def test_a_grid_search_computes_each_splits_distances_once(monkeypatch):
    X, y = make_norm_pairs(120, "l1", random_state=3)
    Xv, yv = make_norm_pairs(80, "l1", random_state=4)
    grid = {"C": [0.1, 1.0, 10.0], "gamma": [0.25, 1.0, 4.0]}
    shapes = []
    distances = kernels._squared_distances

    def counted(A, B, *args, **kwargs):
        shapes.append((A.shape[0], B.shape[0]))
        return distances(A, B, *args, **kwargs)

    monkeypatch.setattr(kernels, "_squared_distances", counted)
    best, results = validation_search(SVMCompare(), grid, X, y, Xv, yv)
    # Three gammas, one path each: the training items' distances and the
    # validation items' distances to them, each computed once.
    assert sorted(shapes) == sorted([(240, 240), (160, 240)])

    # Nothing kept: every path computes its own, and the search is the same.
    shapes.clear()
    monkeypatch.setattr(grid_search, "BlockBases", lambda max_bytes: BlockBases(0))
    best_alone, results_alone = validation_search(SVMCompare(), grid, X, y, Xv, yv)
    assert len(shapes) == 6
    assert results.equals(results_alone)
    np.testing.assert_array_equal(best.decision_function(Xv), best_alone.decision_function(Xv))

    # Nor the item kernel's memory carried from path to path: the same search.
    class Unchained(kernels.KernelChain):
        def gram(self, kernel, items, bases=None):
            return kernel.block(items, items, bases)

    monkeypatch.setattr(grid_search, "KernelChain", Unchained)
    best_fresh, results_fresh = validation_search(SVMCompare(), grid, X, y, Xv, yv)
    assert results_fresh.equals(results_alone)
    np.testing.assert_array_equal(best_fresh.decision_function(Xv),
                                  best_alone.decision_function(Xv))


@pytest.mark.parametrize("name", ["linear", "poly", "rbf", "laplacian", "callable"])
def test_paired_entries_equal_the_blocks_diagonal(name):
    A, B = _items()
    A = A[:B.shape[0]]  # k(A[i], B[i]) for i < 20
    if name == "callable":
        kernel = resolve_kernel(lambda P, R: (P @ R.T + 2.0) ** 2)
    else:
        kernel = resolve_kernel(name, gamma=0.3, degree=2, coef0=1.5)
    np.testing.assert_allclose(kernel.paired(A, B), np.diag(kernel.block(A, B)),
                               rtol=1e-12, atol=1e-12)


def _identities_and_features(n, ids, dense, rng, scale=True):
    """Standardized one-hot identities next to dense columns, as a search sees them."""
    M = np.zeros((n, dense + ids))
    M[:, :dense] = rng.normal(size=(n, dense))
    M[np.arange(n), dense + rng.integers(0, ids, n)] = 1.0
    if scale:
        M = (M - M.mean(axis=0)) / np.where(M.std(axis=0) > 0, M.std(axis=0), 1.0)
    return M


@pytest.mark.parametrize("dense", [0, 5])
def test_distances_through_sparse_identity_columns_equal_brute_force(dense, monkeypatch):
    monkeypatch.setattr(kernels, "_SPARSE_MIN_WORK", 0)  # small enough to brute-force
    monkeypatch.setattr(kernels, "_SPARSE_MIN_ROWS", 0)
    rng = np.random.default_rng(1)
    A = _identities_and_features(300, 60, dense, rng)
    B = A[rng.permutation(300)[:200]].copy()
    B[3] = A[10]  # an exact duplicate: distance 0
    # The sparse route is taken here (else this test would check nothing new).
    assert kernels._sparse_columns(A, B) is not None
    brute = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
    for left, right in [(A, B), (A, A), (B, B)]:
        expected = ((left[:, None, :] - right[None, :, :]) ** 2).sum(axis=2)
        np.testing.assert_allclose(kernels._squared_distances(left, right), expected,
                                   rtol=1e-10, atol=1e-10)
    assert kernels._squared_distances(A, B)[10, 3] == pytest.approx(0.0, abs=1e-10)
    assert brute[10, 3] == 0.0


def test_dense_columns_and_small_blocks_keep_the_one_product():
    rng = np.random.default_rng(2)
    dense = rng.normal(size=(400, 30))
    assert kernels._sparse_columns(dense, dense) is None  # no column mostly one value
    # Binary columns set in half, or a sixteenth, of the rows are not sparse
    # enough: their products touch a quarter (1/256) of all row pairs.
    for share in (0.5, 1 / 16):
        binary = (rng.random((2000, 40)) < share).astype(float)
        assert kernels._sparse_columns(binary, binary) is None
    # Columns each sparse enough, but together they would fill the block:
    # the sparsest are taken while the product stays sparse.
    rare = (rng.random((2000, 100)) < 1 / 40).astype(float)
    columns, _ = kernels._sparse_columns(rare, rare)
    shares = np.count_nonzero(rare[:, columns], axis=0) / 2000
    assert 8 <= columns.sum() < 100 and np.sum(shares ** 2) <= kernels._SPARSE_MAX_FILL
    tiny = _identities_and_features(20, 10, 2, rng)
    assert kernels._sparse_columns(tiny, tiny) is None  # not worth the medians
    big = _identities_and_features(3000, 200, 10, rng)
    assert kernels._sparse_columns(big, big) is not None
    # Against a few rows (Nystroem's landmarks) splitting costs more than it spares.
    assert kernels._sparse_columns(big, big[:100]) is None


@pytest.mark.parametrize("exponentiate", [False, True])
def test_few_features_distances_band_by_band_equal_the_whole_blocks_passes(exponentiate,
                                                                           monkeypatch):
    # Bands of 64 rows (a small band budget here, so that the blocks have
    # several, and a remainder), finished one after another, into a given
    # array or a new one: the distances of the whole block's product.
    monkeypatch.setattr(kernels, "_DISTANCE_BAND_BYTES", 8 * 64 * 150)
    rng = np.random.default_rng(7)
    A, B = rng.normal(size=(333, 6)), rng.normal(size=(150, 6))
    for left, right in ((A, B), (A, A), (B, A)):
        direct = (np.einsum("ij,ij->i", left, left)[:, None]
                  + np.einsum("ij,ij->i", right, right)[None, :] - 2.0 * left @ right.T)
        expected = -0.3 * np.maximum(direct, 0.0)
        if exponentiate:
            expected = np.exp(expected)
        out = np.full((left.shape[0], right.shape[0]), np.nan)
        got = kernels._squared_distances(left, right, -0.3, exponentiate, out=out)
        assert got is out
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(
            kernels._squared_distances(left, right, -0.3, exponentiate), got)


@pytest.mark.parametrize("name", ["rbf", "laplacian"])
def test_a_base_too_large_to_keep_is_written_into_not_copied(name, monkeypatch):
    # rbf: -gamma ||a - b||^2 in the distances' own pass, then exp in place;
    # laplacian: the unkept distances overwritten by the block.
    A, B = _items()
    kernel = resolve_kernel(name, gamma=0.7)
    computed = []
    distances = kernels._squared_distances

    def kept_track(P, R, *args, **kwargs):
        computed.append(distances(P, R, *args, **kwargs))
        return computed[-1]

    monkeypatch.setattr(kernels, "_squared_distances", kept_track)
    for bases in [None, BlockBases(0)]:
        block = kernel.block(A, B, bases)
        assert block is computed[-1]  # no second block allocated
        np.testing.assert_allclose(block, _reference(kernel, A, B), rtol=1e-12, atol=1e-12)
    kept = BlockBases(1e6)
    block = kernel.block(A, B, kept)
    assert block is not computed[-1] and not computed[-1].flags.writeable
    np.testing.assert_allclose(block, _reference(kernel, A, B), rtol=1e-12, atol=1e-12)


def test_the_c_finish_of_distances_is_the_numpy_passes():
    # Issue 33: the block's finish (norms, clip at 0, scale, exp) runs in one
    # C sweep; the same operations in the same order give the same bits but
    # the exp, which is within 2 ulp of numpy's.
    from svmcompare._blocks import finish_distances, scaled_exp

    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(300, 5)), rng.normal(size=(200, 5))
    A[7] = B[3]  # a zero distance, clipped from rounding below 0
    a, b = np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)
    expected = np.maximum(((A @ B.T) * -2.0 + a[:, None]) + b[None, :], 0.0)
    for scale, exponentiate in ((1.0, False), (-0.7, False), (-0.7, True)):
        out = A @ B.T
        finish_distances(out, a, b, scale, exponentiate)
        want = expected * scale if scale != 1.0 else expected
        if exponentiate:
            np.testing.assert_array_max_ulp(out, np.exp(want), maxulp=2)
        else:
            np.testing.assert_array_equal(out, want)
    assert np.exp(-0.7 * expected)[7, 3] == 1.0
    values = expected.ravel().copy()
    scaled_exp(values, -0.7)
    np.testing.assert_array_max_ulp(values, np.exp(-0.7 * expected.ravel()), maxulp=2)
    with pytest.raises(ValueError, match="scale <= 0"):
        finish_distances(A @ B.T, a, b, 0.5, True)
    with pytest.raises(ValueError, match="one norm per row"):
        finish_distances(A @ B.T, b, a, -1.0, True)


@pytest.mark.parametrize("kept", [False, True])
def test_a_kernel_chain_writes_each_rbf_block_into_the_same_memory(kept):
    """The same bits as a new block, into the held matrix while the items are
    the same (with or without a kept base); other items or another kernel,
    a new one; nothing held after release."""
    A = np.random.default_rng(1).normal(size=(50, 4))
    bases = BlockBases(1e6) if kept else None
    chain = kernels.KernelChain()
    first = chain.gram(resolve_kernel("rbf", gamma=0.125), A, bases)
    assert first.flags.writeable and first.flags.c_contiguous
    for gamma in (0.5, 0.75, 3.0, 3.0, 0.01):
        kernel = resolve_kernel("rbf", gamma=gamma)
        gram = chain.gram(kernel, A, bases)
        assert gram is first
        np.testing.assert_array_equal(gram, kernel.block(A, A))
        np.testing.assert_allclose(gram, _reference(kernel, A, A), rtol=1e-12, atol=1e-12)
    assert chain.nbytes == first.nbytes
    B = A.copy()  # equal values: the same memory
    assert chain.gram(resolve_kernel("rbf", gamma=1.0), B, bases) is first
    # One array as both sides, as the chain and an unchained path pass their
    # items (two equal arrays may take another BLAS routine than one: numpy
    # multiplies A A^T by syrk, A B^T by gemm, an ulp apart on some CPUs).
    shifted = A + 1.0
    other = chain.gram(resolve_kernel("rbf", gamma=1.0), shifted, bases)
    assert other is not first
    np.testing.assert_array_equal(other, resolve_kernel("rbf", gamma=1.0).block(shifted, shifted))
    laplacian = resolve_kernel("laplacian", gamma=1.0)
    np.testing.assert_array_equal(chain.gram(laplacian, A, bases), laplacian.block(A, A))
    chain.release()
    assert chain.nbytes == 0
    with pytest.raises(ValueError, match="RBF kernels only"):
        laplacian.block(A, A, out=np.empty((50, 50)))


def test_a_chain_lets_its_kernel_go_before_a_validation_block_that_would_not_fit(monkeypatch):
    """The item kernel (240 items: 461 KB) and the validation block (80 pairs'
    160 items against them: 307 KB) each fit a path budget of 600 KB, not
    both: the chain releases the kernel after each path, as the search did
    before chains; with room for both it keeps it.  The same search."""
    X, y = make_norm_pairs(120, "l1", random_state=3)
    Xv, yv = make_norm_pairs(80, "l1", random_state=4)
    grid = {"C": [0.1, 1.0], "gamma": [0.25, 1.0, 4.0]}
    released = []

    class Counted(kernels.KernelChain):
        def release(self):
            released.append(self.nbytes)
            super().release()

    monkeypatch.setattr(grid_search, "KernelChain", Counted)
    best, results = validation_search(SVMCompare(), grid, X, y, Xv, yv)
    assert sum(n > 0 for n in released) == 0
    monkeypatch.setattr(grid_search, "path_budget", lambda estimator: 600e3)
    best_small, results_small = validation_search(SVMCompare(), grid, X, y, Xv, yv)
    assert sum(n > 0 for n in released) == 3  # after each of the three paths
    assert results_small.equals(results)


def test_sorted_unique_rows_are_numpys_unique_rows():
    """The Nystroem landmarks' pool, np.unique(rows, axis=0), by sorting only
    the rows still tied: the same rows in the same order (ties on the first
    columns, repeated rows, -0.0 next to 0.0, one column, none)."""
    from svmcompare.kernels import sorted_unique_rows

    rng = np.random.default_rng(0)
    for _ in range(300):
        n, p = int(rng.integers(0, 50)), int(rng.integers(1, 6))
        rows = rng.integers(-2, 3, size=(n, p)).astype(float) * rng.choice([1.0, 0.5], size=p)
        if n:
            rows = np.vstack([rows, rows[rng.integers(0, n, 4)]])
            rows[rng.random(rows.shape) < 0.1] = -0.0
        np.testing.assert_array_equal(sorted_unique_rows(rows), np.unique(rows, axis=0))
    wide = np.hstack([rng.integers(0, 2, size=(2_000, 30)), rng.normal(size=(2_000, 3))])
    np.testing.assert_array_equal(sorted_unique_rows(wide), np.unique(wide, axis=0))
    assert sorted_unique_rows(np.zeros((0, 3))).shape == (0, 3)
