"""SVMCompare.partial_fit: after each call the model fit would give on every
pair so far (ranking, threshold, probabilities), refusals named, and a state
that never reaches a model file."""

import numpy as np
import pytest
import scipy.sparse as sp

from svmcompare import SVMCompare, load_model, save_model

MODEL = dict(kernel="linear", loss="squared_hinge", scale_indicators=False, probability=True,
             random_state=0, tol=1e-8)


def games(n_ids, m, seed=0, draw=0.7, strength=None):
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=n_ids) if strength is None else strength
    a = rng.integers(0, n_ids, m)
    b = (a + rng.integers(1, n_ids, m)) % n_ids
    gap = strength[b] - strength[a] + 0.3 + rng.logistic(size=m)
    y = np.where(gap > draw, 1, np.where(gap < -draw, -1, 0))
    return a, b, y


def dense_pairs(n_ids, a, b):
    E = np.eye(n_ids)
    return np.stack([E[a], E[b]], axis=1)


def sparse_pairs(n_ids, a, b):
    E = sp.identity(n_ids, format="csr")
    return sp.hstack([E[a], E[b]], format="csr")


def assert_same_model(full, inc, X, context=None, atol=1e-9):
    np.testing.assert_allclose(inc.decision_function(X, context),
                               full.decision_function(X, context), atol=atol)
    np.testing.assert_allclose(inc.predict_proba(X, context), full.predict_proba(X, context),
                               atol=atol)
    assert inc.calibration_ == full.calibration_
    assert inc.threshold_ == pytest.approx(full.threshold_, abs=atol)


@pytest.mark.parametrize("m, calibration", [(1200, "5-fold"), (4000, "in-sample")])
def test_batches_give_fits_model_on_all_pairs(m, calibration):
    a, b, y = games(30, m)
    X = dense_pairs(30, a, b)
    context = np.random.default_rng(1).choice([-1.0, 0.0, 1.0], size=(m, 1))
    full = SVMCompare(**MODEL).fit(X, y, context)
    inc = SVMCompare(**MODEL)
    cuts = [0, m // 2, m // 2 + 40, m]
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        inc.partial_fit(X[lo:hi], y[lo:hi], context[lo:hi])
    assert full.calibration_ == calibration
    assert_same_model(full, inc, X, context)


def test_sparse_ids_with_a_decay_are_fit_with_the_decayed_weights():
    a, b, y = games(50, 3000, seed=2)
    X = sparse_pairs(50, a, b)
    home = np.ones((3000, 1))
    inc = SVMCompare(**MODEL)
    inc.partial_fit(X[:2000], y[:2000], home[:2000])
    inc.partial_fit(X[2000:2500], y[2000:2500], home[2000:2500], earlier_weight=0.5)
    inc.partial_fit(X[2500:], y[2500:], home[2500:], earlier_weight=0.8)
    weight = np.r_[np.full(2000, 0.4), np.full(500, 0.8), np.ones(500)]
    full = SVMCompare(**MODEL).fit(X, y, home, sample_weight=weight)
    assert_same_model(full, inc, X, home)


def test_class_weights_that_move_with_new_ties():
    """'balanced' weights resolved on every pair: a batch of draws moves them."""
    a, b, y = games(20, 1500, seed=3, draw=0.3)
    y2 = np.zeros(600, dtype=int)  # a batch of draws only
    a2, b2, _ = games(20, 600, seed=4)
    X = np.concatenate([dense_pairs(20, a, b), dense_pairs(20, a2, b2)])
    labels = np.r_[y, y2]
    model = dict(MODEL, class_weight="balanced", probability=False)
    inc = SVMCompare(**model).partial_fit(X[:1500], y).partial_fit(X[1500:], y2)
    full = SVMCompare(**model).fit(X, labels)
    np.testing.assert_allclose(inc.decision_function(X), full.decision_function(X),
                               atol=1e-9)
    assert inc.threshold_ == pytest.approx(full.threshold_)


def test_default_tolerance_is_fits_model_to_that_tolerance():
    a, b, y = games(40, 3000, seed=5)
    X = sparse_pairs(40, a, b)
    model = dict(MODEL, tol=1e-3)
    inc = SVMCompare(**model)
    for lo in range(0, 3000, 500):
        inc.partial_fit(X[lo:lo + 500], y[lo:lo + 500])
    full = SVMCompare(**model).fit(X, y)
    assert_same_model(full, inc, X, atol=1e-4)


def test_refusals_are_named_and_a_bad_batch_keeps_the_state():
    a, b, y = games(10, 400, seed=6)
    X = dense_pairs(10, a, b)
    with pytest.raises(ValueError, match="kernel='linear', loss='squared_hinge'"):
        SVMCompare(kernel="rbf").partial_fit(X, y)
    with pytest.raises(ValueError, match="kernel='linear', loss='squared_hinge'"):
        SVMCompare(kernel="linear").partial_fit(X, y)  # the hinge
    with pytest.raises(ValueError, match="fitted by fit"):
        SVMCompare(**MODEL).fit(X, y).partial_fit(X, y)
    model = SVMCompare(**MODEL).partial_fit(X[:300], y[:300])
    before = model.decision_function(X)
    for value in (-0.1, 1.5, np.nan, True, "1"):
        with pytest.raises(ValueError, match="earlier_weight"):
            model.partial_fit(X[300:], y[300:], earlier_weight=value)
    with pytest.raises(ValueError, match="10 features"):
        model.partial_fit(X[300:, :, :5], y[300:])
    with pytest.raises(ValueError, match="sparse|dense"):
        model.partial_fit(sparse_pairs(10, a[300:], b[300:]), y[300:])
    with pytest.raises(ValueError, match="context has 1 columns"):
        model.partial_fit(X[300:], y[300:], np.ones((100, 1)))
    bad = X[300:].copy()
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN|finite"):
        model.partial_fit(bad, y[300:])
    np.testing.assert_array_equal(model.decision_function(X), before)
    model.set_params(C=10.0)
    with pytest.raises(ValueError, match="C changed"):
        model.partial_fit(X[300:], y[300:])
    model.set_params(C=1.0, n_jobs=1)  # how to run may change
    model.partial_fit(X[300:], y[300:])
    full = SVMCompare(**MODEL).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), full.decision_function(X),
                               atol=1e-9)


def test_the_state_stays_out_of_files_and_fit_discards_it(tmp_path):
    a, b, y = games(10, 400, seed=7)
    X = dense_pairs(10, a, b)
    model = SVMCompare(**MODEL).partial_fit(X, y)
    assert model._increment is not None
    save_model(model, tmp_path / "m.skops")
    loaded = load_model(tmp_path / "m.skops")
    assert not hasattr(loaded, "_increment")
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X))
    with pytest.raises(ValueError, match="read from a file"):
        loaded.partial_fit(X, y)
    model.fit(X, y)
    assert not hasattr(model, "_increment")


def _frame(X, names):
    import pandas as pd

    return pd.DataFrame(np.hstack([X[:, 0], X[:, 1]]),
                        columns=[f"a_{n}" for n in names] + [f"b_{n}" for n in names])


def test_names_of_frames_are_checked_across_batches():
    """A later batch's DataFrame is read by its names: the same names in
    another order are refused (read by position, each value would land under
    another id), and the model keeps the first call's names, for pairs and
    context alike."""
    import pandas as pd

    a, b, y = games(6, 600, seed=8)
    X = dense_pairs(6, a, b)
    names = [f"t{i}" for i in range(6)]
    home = pd.DataFrame({"home": np.ones(600), "derby": np.zeros(600)})
    model = SVMCompare(**MODEL).partial_fit(_frame(X[:400], names), y[:400], home[:400])
    assert list(model.feature_names_in_) == names
    assert list(model.context_names_in_) == ["home", "derby"]
    shuffled = _frame(X[400:], names)[[f"a_{n}" for n in names[::-1]]
                                      + [f"b_{n}" for n in names[::-1]]]
    with pytest.raises(ValueError, match="another order"):
        model.partial_fit(shuffled, y[400:], home[400:])
    with pytest.raises(ValueError, match="context.*another order"):
        model.partial_fit(_frame(X[400:], names), y[400:], home[400:][["derby", "home"]])
    model.partial_fit(_frame(X[400:], names), y[400:], home[400:])
    full = SVMCompare(**MODEL).fit(_frame(X, names), y, home)
    np.testing.assert_allclose(model.decision_function(_frame(X, names), home),
                               full.decision_function(_frame(X, names), home), atol=1e-9)
    with pytest.raises(ValueError, match="another order"):
        model.predict(shuffled, home[400:])


def test_ids_never_played_count_as_fit_counts_them():
    """Columns of ids that never played are dropped by fit's standardization;
    the in-sample link needs 100 pairs a weight, counted on what fit keeps:
    1,100 pairs of 10 playing ids (and 2 idle ones) are in-sample for both."""
    a, b, y = games(10, 1100, seed=9)
    X = dense_pairs(12, a, b)
    full = SVMCompare(**MODEL).fit(X, y)
    inc = SVMCompare(**MODEL).partial_fit(X[:700], y[:700]).partial_fit(X[700:], y[700:])
    assert full.calibration_ == "in-sample"
    assert_same_model(full, inc, X)


def test_a_batch_that_weighs_nothing_and_a_decay_that_forgets_everything():
    """A batch whose weights are all 0 is a batch (the earlier pairs weigh);
    earlier_weight=0 forgets the pairs before (fit with their weights 0, as a
    decay that underflows gives); nothing weighing anything is refused."""
    a, b, y = games(10, 900, seed=10)
    X = dense_pairs(10, a, b)
    model = SVMCompare(**MODEL).partial_fit(X[:600], y[:600])
    model.partial_fit(X[600:700], y[600:700], sample_weight=np.zeros(100))
    weight = np.r_[np.ones(600), np.zeros(100)]
    full = SVMCompare(**MODEL).fit(X[:700], y[:700], sample_weight=weight)
    assert_same_model(full, model, X[:700])
    model.partial_fit(X[700:], y[700:], earlier_weight=0.0)
    forgot = SVMCompare(**MODEL).fit(X, y, sample_weight=np.r_[np.zeros(700), np.ones(200)])
    assert_same_model(forgot, model, X)
    with pytest.raises(ValueError, match="zero for every pair so far"):
        model.partial_fit(X[:50], y[:50], sample_weight=np.zeros(50), earlier_weight=0.0)
    assert_same_model(forgot, model, X)


def test_kept_pairs_are_copies_and_a_refusal_leaves_the_weights_exact():
    """The caller's sparse pairs may change after a call without changing the
    pairs kept; a batch refused after its decay was applied (costs too
    large) leaves every earlier weight as it was (no divide-back, which
    underflows on a factor already tiny)."""
    from svmcompare.sparse_pairs import SparsePairs

    a, b, y = games(20, 3000, seed=11)
    E = sp.identity(20, format="csr")
    first = SparsePairs(E[a[:1000]], E[b[:1000]])
    model = SVMCompare(**MODEL).partial_fit(first, y[:1000])
    first.first.data[:] = 0.0  # the caller reuses its buffers
    first.second.data[:] = 0.0
    model.partial_fit(SparsePairs(E[a[1000:2000]], E[b[1000:2000]]), y[1000:2000],
                      earlier_weight=1e-200)
    later = SparsePairs(E[a[2000:]], E[b[2000:]])
    with pytest.raises(ValueError, match="too large"):
        model.partial_fit(later, y[2000:], sample_weight=np.full(1000, 1e200),
                          earlier_weight=1e-200)
    model.partial_fit(later, y[2000:])
    X = SparsePairs(E[a], E[b])
    weight = np.r_[np.full(1000, 1e-200), np.ones(2000)]
    full = SVMCompare(**MODEL).fit(X, y, sample_weight=weight)
    assert_same_model(full, model, X)


def test_a_shallow_copy_that_moved_the_shared_state_on_is_named():
    """copy.copy shares the kept state: once one copy continues, the other's
    state holds pairs it never saw, and its partial_fit is refused by name;
    deep copies continue apart and each equals fit on its own pairs."""
    import copy

    a, b, y = games(10, 900, seed=12)
    X = dense_pairs(10, a, b)
    model = SVMCompare(**MODEL).partial_fit(X[:600], y[:600])
    deep = copy.deepcopy(model)
    shallow = copy.copy(model)
    shallow.partial_fit(X[600:750], y[600:750])
    with pytest.raises(ValueError, match="shallow copy"):
        model.partial_fit(X[750:], y[750:])
    deep.partial_fit(X[750:], y[750:])
    keep = np.r_[np.arange(600), np.arange(750, 900)]
    assert_same_model(SVMCompare(**MODEL).fit(X[keep], y[keep]), deep, X)
    assert_same_model(SVMCompare(**MODEL).fit(X[:750], y[:750]), shallow, X)


def test_earlier_rows_checked_as_fit_checks_them():
    """Refusals fit gives on all pairs, given batch by batch, before the state
    changes: earlier costs raised past the limit by class weights that moved
    ('balanced' and a batch of heavy ties), differences whose squares lose
    every digit; an unconvertible earlier_weight is a ValueError."""
    a, b, y = games(10, 460, seed=13)
    X = dense_pairs(10, a, b)
    y = np.r_[y[:60], np.zeros(400, dtype=int)]
    heavy = np.r_[np.ones(60), np.full(400, 1e101)]
    settings = dict(MODEL, class_weight="balanced", probability=False)
    with pytest.raises(ValueError, match="too large"):
        SVMCompare(**settings).fit(X, y, sample_weight=heavy)
    model = SVMCompare(**settings).partial_fit(X[:60], y[:60])
    before = model.decision_function(X)
    with pytest.raises(ValueError, match="too large"):
        model.partial_fit(X[60:], y[60:], sample_weight=heavy[60:])
    huge = X[60:] * 1e200
    with pytest.raises(ValueError, match="scale them first"):
        model.partial_fit(huge, y[60:])
    with pytest.raises(ValueError, match="earlier_weight"):
        model.partial_fit(X[60:], y[60:], earlier_weight=10 ** 400)
    model.partial_fit(X[60:], y[60:])  # the state survived every refusal
    np.testing.assert_allclose(model.decision_function(X),
                               SVMCompare(**settings).fit(X, y).decision_function(X), atol=1e-9)
    assert not np.allclose(before, model.decision_function(X))


def test_a_decay_that_underflows_drops_items_as_fit_drops_them():
    """Ids that played only in pairs whose weight has decayed to 0.0 (1e-200
    twice) are not counted by fit; nor by partial_fit (the link's in-sample
    rule counts kept features)."""
    a1, b1, y1 = games(12, 100, seed=14)
    a2, b2, y2 = games(10, 1000, seed=15)
    X = np.concatenate([dense_pairs(12, a1, b1), dense_pairs(12, a2, b2)])
    y = np.r_[y1, y2]
    model = SVMCompare(**MODEL).partial_fit(X[:100], y[:100])
    model.partial_fit(X[100:600], y[100:600], earlier_weight=1e-200)
    model.partial_fit(X[600:], y[600:], earlier_weight=1e-200)
    weight = np.r_[np.full(100, 1e-200 * 1e-200), np.full(500, 1e-200), np.ones(500)]
    full = SVMCompare(**MODEL).fit(X, y, sample_weight=weight)
    assert weight[0] == 0.0 and full.calibration_ == "in-sample"
    assert_same_model(full, model, X)


@pytest.mark.parametrize("seed", range(40))
def test_column_ranges_of_sparse_sides_are_the_dense_ones(seed):
    from svmcompare._increment import _csr_column_range

    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(1, 25)), int(rng.integers(1, 7))
    A = sp.random(n, p, density=rng.uniform(0.0, 1.0), format="csr", random_state=seed)
    A.data = rng.normal(size=A.data.size) * (rng.uniform(size=A.data.size) < 0.8)  # stored zeros
    keep = rng.uniform(size=n) < 0.6
    keep[int(rng.integers(n))] = True  # the caller checks that some pair weighs something
    for matrix in (A, _uncanonical(A)):
        for rows in (None, keep):
            dense = A.toarray() if rows is None else A.toarray()[rows]
            high, low = _csr_column_range(matrix, rows)
            np.testing.assert_array_equal(high, dense.max(axis=0))
            np.testing.assert_array_equal(low, dense.min(axis=0))


def _uncanonical(A):
    """``A`` with every stored entry split into two halves (duplicates)."""
    counts = np.diff(A.indptr)
    return sp.csr_matrix((np.repeat(A.data / 2, 2), np.repeat(A.indices, 2),
                          np.r_[0, np.cumsum(2 * counts)]), shape=A.shape)


def test_sparse_sides_with_entries_stored_twice_fit_as_fit_does():
    # An attack (stop 70): 1 stored as 0.5 + 0.5 hid the columns' zeros from
    # the range, and partial_fit called every feature constant.
    from svmcompare.sparse_pairs import SparsePairs

    first, second = np.zeros((6, 1)), np.zeros((6, 1))
    first[[0, 1, 4]], second[[2, 3, 5]] = 1.0, 1.0
    X = SparsePairs(_uncanonical(sp.csr_matrix(first)), _uncanonical(sp.csr_matrix(second)))
    y = np.array([-1, 0, 1, 0, -1, 1])
    full = SVMCompare(**MODEL).fit(X, y)
    assert_same_model(full, SVMCompare(**MODEL).partial_fit(X, y), X)
