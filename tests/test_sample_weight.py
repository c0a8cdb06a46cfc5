"""Pair weights: sample_weight scales C per pair (issue 17)."""

import numpy as np
import pytest
from sklearn.base import clone

from svmcompare import SVMCompare, SVMCompareCV, SVMCompareLP, SVMRank, SVMRank2
from svmcompare.datasets import make_norm_pairs


@pytest.mark.parametrize("model", [SVMCompare(kernel="linear"), SVMCompare(gamma=0.5),
                                   SVMRank(gamma=0.5), SVMRank2(gamma=0.5),
                                   SVMCompareLP(gamma=0.5)], ids=lambda m: type(m).__name__)
def test_integer_weights_equal_repeated_pairs(model):
    X, y = make_norm_pairs(80, "l1", random_state=0)
    weight = np.random.default_rng(0).integers(1, 4, size=80)
    if "tol" in model.get_params():
        model = clone(model).set_params(tol=1e-7)
    weighted = clone(model).fit(X, y, sample_weight=weight)
    repeated = clone(model).fit(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    X_test, _ = make_norm_pairs(50, "l1", random_state=1)
    np.testing.assert_allclose(weighted.decision_function(X_test),
                               repeated.decision_function(X_test), rtol=1e-4, atol=1e-4)


def test_zero_weights_drop_pairs_and_bad_weights_are_refused():
    X, y = make_norm_pairs(100, "l1", random_state=2)
    weight = np.r_[np.ones(60), np.zeros(40)]
    dropped = SVMCompare(kernel="linear", tol=1e-8).fit(X, y, sample_weight=weight)
    subset = SVMCompare(kernel="linear", tol=1e-8).fit(X[:60], y[:60])
    np.testing.assert_allclose(dropped.coef_, subset.coef_, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="non-negative"):
        SVMCompare().fit(X, y, sample_weight=-weight)
    with pytest.raises(ValueError, match="shape"):
        SVMCompare().fit(X, y, sample_weight=weight[:10])
    with pytest.raises(ValueError, match="zero for every pair"):
        SVMCompare().fit(X, y, sample_weight=np.zeros(100))


def test_the_auto_model_takes_weights():
    X, y = make_norm_pairs(150, "l1", random_state=3)
    weight = np.random.default_rng(1).uniform(0.5, 2.0, size=150)
    model = SVMCompareCV(param_grid={"kernel": ["linear"], "C": [0.1, 1.0]}, probability=True)
    model.fit(X, y, sample_weight=weight)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_the_command_line_reads_weights_and_copies_ids(tmp_path):
    import pandas as pd

    from svmcompare.cli import main
    from svmcompare.persistence import load_model

    X, y = make_norm_pairs(80, "l1", random_state=5)
    weight = np.random.default_rng(2).integers(1, 4, size=80)
    frame = pd.DataFrame({"match_id": [f"m{k}" for k in range(80)], "a_u": X[:, 0, 0],
                          "a_v": X[:, 0, 1], "b_u": X[:, 1, 0], "b_v": X[:, 1, 1],
                          "weight": weight, "y": y})
    frame.to_csv(tmp_path / "pairs.csv", index=False)
    assert main(["fit", str(tmp_path / "pairs.csv"), "--kernel", "linear", "--model",
                 str(tmp_path / "m.skops")]) == 0
    expected = SVMCompare(kernel="linear", random_state=0).fit(X, y, sample_weight=weight)
    np.testing.assert_allclose(load_model(tmp_path / "m.skops").coef_, expected.coef_,
                               rtol=1e-6)
    assert main(["predict", str(tmp_path / "m.skops"), str(tmp_path / "pairs.csv"), "-o",
                 str(tmp_path / "out.csv")]) == 0
    out = pd.read_csv(tmp_path / "out.csv")
    assert list(out.columns[:1]) == ["match_id"] and "weight" not in out.columns
    np.testing.assert_array_equal(out["match_id"], frame["match_id"])


def test_rank_dual_with_pairs_of_weight_zero_equals_the_pairs_left_out():
    # Without a bias the dual's steps are single coordinates; a row of weight 0
    # (box [0, 0]) with a negative gradient was read as a violation no step
    # could remove, and the solve ran to max_iter.
    import warnings

    X, y = make_norm_pairs(300, "l2", random_state=6)
    weight = np.random.default_rng(6).choice([0.0, 1.0, 2.0], size=y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        zero = SVMRank(C=1.0, gamma=0.5, solver="exact").fit(X, y, sample_weight=weight)
    kept = weight > 0
    dropped = SVMRank(C=1.0, gamma=0.5, solver="exact").fit(X[kept], y[kept],
                                                            sample_weight=weight[kept])
    assert zero.converged_
    assert zero.dual_objective_ == pytest.approx(dropped.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(zero.decision_function(X), dropped.decision_function(X),
                               rtol=1e-4, atol=1e-4)


def test_weights_cannot_go_around_the_limit_on_C():
    from svmcompare.grid_search import fit_C_path

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 2, 3)), rng.choice([-1, 0, 1], 120)
    for kernel in ("rbf", "linear"):
        with pytest.raises(ValueError,
                           match=r"C x class_weight x sample_weight reaches 1(\.\d+)?e\+200"):
            SVMCompare(kernel=kernel).fit(X, y, sample_weight=np.full(120, 1e200))
    with pytest.raises(ValueError, match=r"reaches 1(\.\d+)?e\+102"):
        fit_C_path(SVMCompare(), X, y, [1.0, 1000.0], sample_weight=np.full(120, 1e99))
    SVMCompare(kernel="linear").fit(X, y, sample_weight=np.full(120, 1e90))  # within the limit


def test_a_label_whose_pairs_all_weigh_nothing_is_missing():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(120, 2, 3)), rng.choice([-1, 0, 1], 120)
    with pytest.raises(ValueError, match="only equality pairs.*Counting only the"):
        SVMCompare(probability=True).fit(X, y, sample_weight=(y == 0) * 1.0)
    with pytest.raises(ValueError, match="no equality pairs.*Counting only the"):
        SVMCompare().fit(X, y, sample_weight=(y != 0) * 1.0)


def test_calibration_pairs_need_ties_and_decided_pairs():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(160, 2, 3)), rng.choice([-1, 0, 1], 160)
    model = SVMCompare(kernel="linear").fit(X, y)
    decided = y != 0
    with pytest.raises(ValueError, match="calibrate: .*no equality pairs"):
        model.calibrate(X[decided], y[decided])
    with pytest.raises(ValueError, match="calibrate: .*only equality pairs"):
        model.calibrate(X[~decided], y[~decided])
    with pytest.raises(ValueError, match="no equality pairs.*Counting only"):
        model.calibrate(X, y, sample_weight=decided * 1.0)
    proba = model.calibrate(X, y).predict_proba(X)
    assert (proba[:, 1] > 0).all()
    # SVMRank learns from decided pairs only: pairs without ties calibrate it
    # (as its own fit with probability=True does), and so does a bootstrap.
    from svmcompare import BootstrapCompare

    SVMRank(kernel="linear").fit(X[decided], y[decided]).calibrate(X[decided], y[decided])
    BootstrapCompare(SVMRank(kernel="linear", probability=True), n_resamples=3,
                     random_state=0).fit(X[decided], y[decided])


def test_the_largest_C_is_allowed_for_every_model():
    # SVMRank2 counts a decided pair twice (cost 2 C): C = 1e100 is still C's limit.
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 2, 2)), rng.choice([-1, 0, 1], 40)
    SVMRank2(kernel="linear", C=1e100).fit(X, y)


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_rescaling_every_weight_with_C_rescaled_keeps_the_model(layout):
    # C x w per pair is the same problem; the standardization must not see the
    # weights' overall scale (sum(w) = 0.51 made every scale 7x larger).
    import scipy.sparse as sp

    X, y = make_norm_pairs(200, "l1", random_state=3)
    X_test, _ = make_norm_pairs(50, "l1", random_state=4)
    if layout == "sparse":
        X = sp.csr_matrix(np.hstack([X[:, 0], X[:, 1]]))
        X_test = sp.csr_matrix(np.hstack([X_test[:, 0], X_test[:, 1]]))
    base = SVMCompare(kernel="linear", C=1.0, tol=1e-9).fit(X, y, sample_weight=np.ones(200))
    for total in (2.0, 1.0, 0.51, 1e-3):
        k = total / 200
        model = SVMCompare(kernel="linear", C=1.0 / k, tol=1e-9).fit(
            X, y, sample_weight=np.full(200, k))
        np.testing.assert_allclose(model.scaler_.scale, base.scaler_.scale, rtol=1e-12)
        np.testing.assert_allclose(model.decision_function(X_test),
                                   base.decision_function(X_test), rtol=1e-6, atol=1e-6)
