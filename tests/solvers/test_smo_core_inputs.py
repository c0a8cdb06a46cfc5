"""The C extensions' entry points refuse what would read or write out of
bounds (issue 33's port; each case here crashed, corrupted memory or gave a
wrong answer in the first version, found by an attack under AddressSanitizer)."""

import numpy as np
import pytest
from svmcompare.solvers._linear_core import loss_sum, matvec
from svmcompare.solvers._smo_core import LOW, UP, SmoLoop, chunk_winners, q_product

from svmcompare._problem import BinaryProblem
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual
from svmcompare.solvers._kernel_rows import kernel_pack


def _pack(n=6, kernel="rbf"):
    items = np.random.default_rng(0).random((n, 2))
    return kernel_pack(items, resolve_kernel(kernel, gamma=1.0))


def _pairs(a, b, y):
    return (np.array(a, np.int64), np.array(b, np.int64), np.array(y, float),
            np.zeros((len(a), 0)))


def _loop(n_slots=4):
    return SmoLoop(_pack(), _pairs([0, 1, 2, 3], [4, 5, 5, 0], [1, -1, 1, -1]), np.zeros(4),
                   n_slots, np.empty(0))


def test_chunk_winners_refuses_what_its_loops_cannot_index():
    m = 4
    y, G, z, o = np.array([1.0, -1, 1, -1]), -np.ones(m), np.zeros(m), np.ones(m)
    with pytest.raises(ValueError, match="LOW"):  # reads QD[i], y[i]
        chunk_winners(LOW, np.arange(m), m, -1, 1.0, y, G, z, o, o, o, 1)
    with pytest.raises(ValueError, match="mode"):
        chunk_winners(7, np.arange(m), m, 0, 1.0, y, G, z, o, o, o, 1)
    with pytest.raises(ValueError, match="1-D"):
        chunk_winners(UP, np.arange(m), m, 0, 0.0, np.float64(1.0), G, z, o, o, o, 1)
    # A thread count far above the chunks runs on as many threads as chunks
    # (100,000 overflowed OpenMP's stack) and finds the serial rule's row.
    rng = np.random.default_rng(0)
    m = 20_000
    y, G = rng.choice([-1.0, 1.0], m), rng.normal(size=m)
    z, o = np.zeros(m), np.ones(m)
    value, _, row = chunk_winners(UP, np.arange(m), m, 0, 0.0, y, G, z, o, o, G, 100_000)
    up = (y > 0)
    assert value == np.max(-y[up] * G[up])
    assert row == np.flatnonzero(up & (-y * G == value))[-1]
    out = np.empty(3)
    matvec(np.ones((3, 2)), np.ones(2), out, 100_000)
    assert out.tolist() == [2.0, 2.0, 2.0]
    assert loss_sum(np.zeros(5), np.ones(5), 0.5, 100_000) == pytest.approx(5 * 0.75)


def test_the_loop_checks_the_kernel_pack_and_every_array():
    kp = list(_pack())
    pairs = _pairs([0, 1], [4, 3], [1, -1])
    for norms in (np.zeros(0), np.zeros(2), np.float64(1.0)):
        kp[2] = norms
        with pytest.raises(ValueError, match="squared norms"):
            SmoLoop(tuple(kp), pairs, np.zeros(2), 4, np.empty(0))
    kp = list(_pack())
    kp[0] = 9
    with pytest.raises(ValueError, match="unknown kernel code"):
        SmoLoop(tuple(kp), pairs, np.zeros(2), 4, np.empty(0))
    with pytest.raises(ValueError, match="alpha"):
        SmoLoop(_pack(), pairs, np.float64(0.0), 4, np.empty(0))
    with pytest.raises(ValueError, match="y"):
        SmoLoop(_pack(), pairs[:2] + (np.float64(1.0), pairs[3]), np.zeros(2), 4, np.empty(0))
    with pytest.raises(ValueError, match="outside"):
        SmoLoop(_pack(), _pairs([0, 6], [1, 2], [1, -1]), np.zeros(2), 4, np.empty(0))
    loop = _loop()
    state = np.zeros(6, np.int64)
    with pytest.raises(ValueError, match="C must be"):
        loop.finish(np.ones(1), np.zeros(1), True)
    with pytest.raises(ValueError, match="C must be"):
        loop.steps(np.array(1.0), np.zeros(4), True, 1e-3, True, state, 10, 10**9)
    with pytest.raises(ValueError, match="C must be"):
        loop.steps(np.ones((4, 1)), np.zeros(4), True, 1e-3, True, state, 10, 10**9)
    with pytest.raises(ValueError, match="alpha must be a writeable"):
        loop.steps(np.ones(4), np.zeros(4, np.float32), True, 1e-3, True, state, 10, 10**9)
    with pytest.raises(ValueError, match="tol"):
        loop.steps(np.ones(4), np.zeros(4), True, float("nan"), True, state, 10, 10**9)
    with pytest.raises(ValueError, match="rows"):
        loop.gradient_on(np.zeros((2, 2), np.int64), np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match="rows"):
        loop.gradient_on(np.array([0.5]), np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match="alpha"):
        loop.gradient_on(np.array([0]), np.zeros((4, 2)), np.zeros(4))


def test_borrowed_rows_are_read_only_and_checked():
    loop = _loop()
    with pytest.raises(ValueError, match="belong to another problem"):
        loop.use_rows((np.zeros(1), -np.ones(1, np.int64), np.zeros(1, np.uint8)))
    with pytest.raises(ValueError, match="flags"):
        loop.use_rows((np.zeros((4, 4)), -np.ones(4, np.int64), np.zeros(4)))
    with pytest.raises(ValueError, match="slot"):
        loop.use_rows((np.zeros((4, 4)), np.array([0, 1, 2, 9]), np.ones(4, np.uint8)))
    loop.use_rows((np.zeros((4, 4)), np.array([3, 2, 1, 0]), np.ones(4, np.uint8)))
    state = np.zeros(6, np.int64)
    with pytest.raises(ValueError, match="takes no steps"):
        loop.steps(np.ones(4), np.zeros(4), True, 1e-3, True, state, 10, 2**62)
    with pytest.raises(ValueError, match="2 entries"):  # a scalar delta for two rows
        q_product(_pack(), _pairs([0, 2], [1, 3], [1, -1]), np.float64(1.0), np.array([0]),
                  (np.zeros((1, 2)), -np.ones(2, np.int64), np.zeros(1, np.uint8)))


def test_one_slot_still_holds_both_rows_of_a_step():
    # With one cache slot, computing row j evicted row i inside the step: the
    # loop "converged" at a wrong objective.  It keeps two slots at least.
    rng = np.random.default_rng(1)
    kp = kernel_pack(rng.normal(size=(20, 3)), resolve_kernel("rbf", gamma=0.5))
    m = 30
    a = rng.integers(0, 20, m)
    b = rng.integers(0, 20, m)
    b[a == b] = (b[a == b] + 1) % 20
    pairs = _pairs(a, b, rng.choice([-1.0, 1.0], m))
    objectives = []
    for slots in (1, 50):
        loop = SmoLoop(kp, pairs, np.zeros(m), slots, np.empty(0))
        state = np.zeros(6, np.int64)
        state[1], state[5] = m + 1, 1000
        alpha, C = np.zeros(m), np.ones(m)
        loop.steps(C, alpha, True, 1e-8, False, state, 100_000, 2**62)
        objectives.append(loop.finish(C, alpha, True)[1])
    assert objectives[0] == pytest.approx(objectives[1], rel=1e-9)


def test_solve_dual_refuses_a_tolerance_that_no_violation_is_under():
    # tol = nan made the loop step with j = -1 (a write before the cache).
    items = np.array([[0.0, 0], [1, 0], [0, 1], [1, 1]])
    problem = BinaryProblem(items, np.array([0, 1]), np.array([2, 3]), np.ones(2), np.ones(2))
    for tol in (float("nan"), -1.0, float("inf")):
        with pytest.raises(ValueError, match="tol"):
            solve_dual(problem, resolve_kernel("rbf", 1.0), bias=True, tol=tol, max_iter=5)


def test_a_row_listed_twice_is_summed_once():
    kp = _pack()
    pairs = _pairs([0, 1, 2], [4, 3, 5], [1, -1, 1])
    delta = np.array([0.5, -1.0, 2.0])
    cached = (np.zeros((1, 3)), -np.ones(3, np.int64), np.zeros(1, np.uint8))
    once = q_product(kp, pairs, delta, np.array([0, 1]), cached)
    twice = q_product(kp, pairs, delta, np.array([0, 0, 1]), cached)
    np.testing.assert_array_equal(twice, once[[0, 0, 1]])


def test_zone_rows_hessian_checks_the_rows_it_reads():
    """add_zone_rows sums w_k [d_t; 1][d_t; 1]^T over the listed rows (a dense
    reference), and refuses a column index out of range in a listed row (it
    would write outside H) or a listed row past the matrix; an unlisted row is
    not read, so its indices do not matter to the sum."""
    import scipy.sparse as sp
    from svmcompare.solvers._linear_core import add_zone_rows

    rng = np.random.default_rng(4)
    dense = rng.normal(size=(40, 6)) * (rng.random((40, 6)) < 0.4)
    D = sp.csr_matrix(dense)
    rows = np.array([1, 5, 7, 30], dtype=np.int64)
    w = rng.uniform(0.5, 2.0, rows.size)
    H = np.zeros((7, 7))
    add_zone_rows(D.indptr, D.indices, D.data, rows, w, H, True)
    Z = np.hstack([dense[rows], np.ones((rows.size, 1))])
    np.testing.assert_allclose(H, Z.T @ (w[:, None] * Z), rtol=1e-13, atol=1e-13)

    bad = D.copy()
    bad.indices = bad.indices.copy()
    listed = int(bad.indptr[rows[1]])  # a non-zero of a listed row
    assert bad.indptr[rows[1] + 1] > listed
    bad.indices[listed] = 99
    with pytest.raises(ValueError, match="column index is outside"):
        add_zone_rows(bad.indptr, bad.indices, bad.data, rows, w, np.zeros((7, 7)), True)
    with pytest.raises(ValueError, match="row index is outside"):
        add_zone_rows(D.indptr, D.indices, D.data, np.array([40], dtype=np.int64), w[:1],
                      np.zeros((7, 7)), True)
    unlisted = D.copy()
    unlisted.indices = unlisted.indices.copy()
    outside = [t for t in range(40)
               if t not in rows and unlisted.indptr[t + 1] > unlisted.indptr[t]]
    unlisted.indices[unlisted.indptr[outside[0]]] = 99
    again = np.zeros((7, 7))
    add_zone_rows(unlisted.indptr, unlisted.indices, unlisted.data, rows, w, again, True)
    np.testing.assert_array_equal(again, H)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly", "linear"])
@pytest.mark.parametrize("n_threads, n_items", [(1, 700), (2, 700), (2, 2600)])
def test_kernel_rows_by_feature_give_the_bits_of_rows_item_by_item(kernel, n_threads, n_items,
                                                                      monkeypatch):
    """Rows over every item take their inner products from the items by feature
    (``_dots``), up to TRANSPOSED_BYTES of such a copy; past it, item by item.
    Both sum each product in the same order: the same steps and the same bits
    of the solution, with a pair context and with shrinking's subsets of items
    (which go item by item either way); 700 items are more than one block of
    256, 2,600 on two threads more than one chunk of a parallel row (chunks
    that start past the first item)."""
    from svmcompare.solvers import _smo_core, threads

    # Every loop on the threads asked for, however small (else one thread
    # below threads.PARALLEL_WORK entries).
    monkeypatch.setattr(threads, "PARALLEL_WORK", 0)
    rng = np.random.default_rng(3)
    items = rng.normal(size=(n_items, 9))
    a, b = rng.integers(0, n_items, 900), rng.integers(0, n_items, 900)
    keep = a != b
    a, b = a[keep], b[keep]
    y = np.where(rng.random(a.size) < 0.5, 1.0, -1.0)
    problem = BinaryProblem(items, a, b, y, np.full(a.size, 3.0),
                            context=rng.normal(size=(a.size, 2)))
    spec = resolve_kernel(kernel, gamma=0.2, degree=2, coef0=1.0)

    def solved():
        return solve_dual(problem, spec, tol=1e-6, n_threads=n_threads, cache_size=1.0)

    by_feature = solved()
    monkeypatch.setattr(_smo_core, "TRANSPOSED_BYTES", 0)
    item_by_item = solved()
    assert by_feature.n_iter == item_by_item.n_iter > 100
    np.testing.assert_array_equal(by_feature.alpha, item_by_item.alpha)
    np.testing.assert_array_equal(by_feature.gradient, item_by_item.gradient)
    assert by_feature.objective == item_by_item.objective
