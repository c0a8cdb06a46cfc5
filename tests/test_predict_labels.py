"""Labels that agree with the probabilities (issue 36, item 1): a probability
model's ``predict`` is the label of least expected cost under its own
``predict_proba``; the comparison rule stays available as ``compare``."""

import numpy as np
import pandas as pd
import pytest

from svmcompare import SVMCompare, SVMCompareCV, SVMRank2, load_model, save_model
from svmcompare.cli import main
from svmcompare.datasets import make_norm_pairs
from svmcompare.persistence import load_predictor

LABELS = np.array([-1, 0, 1])


@pytest.fixture(scope="module")
def data():
    return make_norm_pairs(300, "l1", random_state=0), make_norm_pairs(500, "l1", random_state=1)


def _brute_force(proba, cost):
    """argmin over j of sum_i P(i) cost[i, j], one pair at a time."""
    out = []
    for p in proba:
        expected = [sum(p[i] * cost[i][j] for i in range(3)) for j in range(3)]
        out.append(LABELS[int(np.argmin(expected))])
    return np.array(out)


@pytest.mark.parametrize("estimator", [SVMCompare(C=1.0, gamma=0.5), SVMRank2(C=1.0, gamma=0.5)],
                         ids=lambda e: type(e).__name__)
def test_predict_is_the_most_probable_outcome_and_compare_the_rule(data, estimator):
    (X, y), (Xt, _) = data
    plain = estimator.set_params(random_state=0).fit(X, y)
    rule = plain.predict(Xt)
    model = SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0) \
        if isinstance(estimator, SVMCompare) else \
        SVMRank2(C=1.0, gamma=0.5, probability=True, random_state=0)
    model.fit(X, y)
    proba = model.predict_proba(Xt)
    np.testing.assert_array_equal(model.predict(Xt), LABELS[proba.argmax(axis=1)])
    np.testing.assert_array_equal(model.compare(Xt), rule)
    assert model.decision_rule_ == "probability" and plain.decision_rule_ == "comparison"
    assert model.score(Xt, LABELS[proba.argmax(axis=1)]) == 1.0


def test_a_cost_matrix_moves_the_labels_as_expected_cost_says(data):
    (X, y), (Xt, _) = data
    # A missed tie costs 3, every other mistake 1: more ties predicted.
    cost = [[0, 1, 2], [3, 0, 3], [2, 1, 0]]
    model = SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0, cost=cost).fit(X, y)
    proba = model.predict_proba(Xt)
    labels = model.predict(Xt)
    np.testing.assert_array_equal(labels, _brute_force(proba, cost))
    zero_one = LABELS[proba.argmax(axis=1)]
    assert np.sum(labels == 0) > np.sum(zero_one == 0)
    with pytest.raises(ValueError, match="cost must be a finite 3 x 3 matrix"):
        SVMCompare(cost=[[0, 1], [1, 0]]).fit(X, y)
    with pytest.raises(TypeError, match="cost must be a 3 x 3 matrix of numbers"):
        SVMCompare(cost="cheap ties").fit(X, y)


def test_the_scoring_part_and_a_search_label_as_the_estimator(data, tmp_path):
    (X, y), (Xt, _) = data
    cost = [[0, 1, 2], [3, 0, 3], [2, 1, 0]]
    model = SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0, cost=cost).fit(X, y)
    save_model(model, tmp_path / "m.skops")
    np.testing.assert_array_equal(load_predictor(tmp_path / "m.skops").predict(Xt),
                                  model.predict(Xt))
    np.testing.assert_array_equal(load_model(tmp_path / "m.skops").predict(Xt),
                                  model.predict(Xt))
    search = SVMCompareCV(param_grid={"kernel": ["linear"], "C": [0.1, 1.0]}, cv=3,
                          probability=True, cost=cost, random_state=0).fit(X, y)
    assert search.best_estimator_.cost == cost
    np.testing.assert_array_equal(search.predict(Xt),
                                  _brute_force(search.predict_proba(Xt), cost))
    np.testing.assert_array_equal(search.compare(Xt), search.best_estimator_.compare(Xt))


def test_evaluate_reports_one_accuracy_and_says_which_rule(data, tmp_path, capsys):
    (X, y), (Xt, yt) = data
    for name, (A, b) in (("train", (X, y)), ("test", (Xt, yt))):
        pd.DataFrame({"a_u": A[:, 0, 0], "a_v": A[:, 0, 1], "b_u": A[:, 1, 0],
                      "b_v": A[:, 1, 1], "y": b}).to_csv(tmp_path / f"{name}.csv", index=False)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "train.csv"), "--model", model, "--probability",
                 "--gamma", "0.5", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["evaluate", model, str(tmp_path / "test.csv")]) == 0
    out = capsys.readouterr().out
    fitted = load_model(model)
    proba = fitted.predict_proba(Xt)
    error = 100 * np.mean(LABELS[proba.argmax(axis=1)] != yt)
    assert f"zero-one error {error:.2f}% (labels: the most probable outcome (a tie where" in out
    accuracy = np.mean(LABELS[proba.argmax(axis=1)] == yt)
    assert f"{accuracy:>9.3f}" in out  # the probability table's accuracy is the same number
    assert main(["predict", model, str(tmp_path / "test.csv"), "--proba",
                 "-o", str(tmp_path / "p.csv")]) == 0
    written = pd.read_csv(tmp_path / "p.csv")
    np.testing.assert_array_equal(
        written["y_pred"],
        LABELS[written[["p_x_better", "p_tie", "p_xprime_better"]].to_numpy().argmax(axis=1)])


def test_predict_proba_without_probabilities_says_how_to_get_them():
    import numpy as np
    import pytest

    from svmcompare import SVMCompare

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 2, 3)), rng.choice([-1, 0, 1], 60)
    model = SVMCompare(kernel="linear").fit(X, y)
    assert not hasattr(model, "predict_proba")  # scikit-learn's convention holds
    with pytest.raises(AttributeError) as caught:
        model.predict_proba(X)
    assert "fit it with probability=True" in str(caught.value.__cause__)


def test_equally_likely_wins_either_way_predict_a_tie():
    # A pair of equals (a self-pair on neutral ground): P(x better) and
    # P(x' better) differ in the last bit, and the first of them, -1, was
    # predicted; its swap predicted -1 as well.
    from svmcompare.ranking_function import least_cost_labels

    proba = np.array([[0.4, 0.2, 0.4], [0.4, 0.2, 0.4 * (1 + 1e-15)],
                      [0.5, 0.1, 0.4], [0.3, 0.3, 0.4]])
    assert least_cost_labels(proba).tolist() == [0, 0, -1, 1]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2, 3))
    d = X[:, 1].sum(1) - X[:, 0].sum(1) + rng.logistic(size=200) * 0.3
    y = np.where(np.abs(d) < 0.3, 0, np.sign(d)).astype(int)
    model = SVMCompare(kernel="linear", probability=True, random_state=0).fit(X, y)
    same = np.stack([X[:5, 0], X[:5, 0]], axis=1)  # x against itself
    assert model.predict(same).tolist() == [0] * 5
    np.testing.assert_array_equal(model.predict(X[:, ::-1]), -model.predict(X))


def test_a_cost_matrix_decides_ties_of_costs_too():
    # The swap-symmetric tie was forced whenever x better and x' better
    # cost the same, even at 200 times their cost.
    from svmcompare.ranking_function import least_cost_labels

    proba = np.array([[0.45, 0.10, 0.45]])
    cost = [[0, 100, 1], [0.5, 100, 0.5], [1, 100, 0]]
    assert least_cost_labels(proba, cost)[0] in (-1, 1)


def test_predict_log_proba_is_the_log_of_predict_proba_on_every_probability_model(data):
    """scikit-learn's classifier method, on the plain model, the search and the
    bootstrap; absent (as predict_proba) without probabilities."""
    from svmcompare import BootstrapCompare

    (X, y), (Xt, _) = data
    plain = SVMCompare(kernel="linear", C=1.0, probability=True, random_state=0).fit(X, y)
    search = SVMCompareCV(param_grid={"kernel": ["linear"], "C": [0.1, 1.0]}, probability=True,
                          cv=3).fit(X, y)
    boot = BootstrapCompare(SVMCompare(kernel="linear", probability=True), n_resamples=3,
                            random_state=0).fit(X, y)
    for model in (plain, search, boot):
        log_proba = model.predict_log_proba(Xt)
        np.testing.assert_array_equal(log_proba, np.log(model.predict_proba(Xt)))
        assert log_proba.shape == (len(Xt), 3) and np.isfinite(log_proba).all()
    assert not hasattr(SVMCompare(kernel="linear").fit(X, y), "predict_log_proba")
    # A probability of 0 (SVMRank fitted without ties never predicts one) gives
    # -inf, without a RuntimeWarning.
    import warnings

    from svmcompare import SVMRank
    strict = y != 0
    rank = SVMRank(kernel="linear", probability=True, random_state=0).fit(X[strict], y[strict])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_rank = rank.predict_log_proba(Xt)
    assert np.all(log_rank[:, 1] == -np.inf) and np.isfinite(log_rank[:, [0, 2]]).all()
    assert not hasattr(SVMCompareCV(param_grid={"kernel": ["linear"], "C": [1.0]}, cv=3)
                       .fit(X, y), "predict_log_proba")
