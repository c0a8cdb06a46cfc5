"""Table 3 errors and the comparison ROC curve, against brute force."""

import itertools

import numpy as np
import pytest

from svmcompare.metrics import (
    comparison_auc,
    comparison_errors,
    comparison_roc_curve,
    pairwise_accuracy,
    zero_one_loss,
)


def test_every_label_prediction_combination():
    values = [-1, 0, 1]
    true, pred = map(np.array, zip(*itertools.product(values, values), strict=True))
    e = comparison_errors(true, pred)
    assert (e["false_positive"], e["false_negative"], e["inversion"]) == (2, 2, 2)
    assert e["error"] == 6 and e["count"] == 9
    assert e["equality"] == 3 and e["inequality"] == 6
    assert zero_one_loss(true, pred) == pytest.approx(6 / 9)
    assert pairwise_accuracy(true, pred) == pytest.approx(3 / 9)


def _brute_force_point(y, score, tau):
    pred = np.where(score > tau, 1, np.where(score < -tau, -1, 0))
    eq = y == 0
    fp = np.sum(eq & (pred != 0))
    tp = np.sum(~eq & (pred == y))
    return fp / eq.sum(), tp / (~eq).sum()


@pytest.mark.parametrize("seed", range(5))
def test_roc_curve_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 0, 1], size=50)
    score = np.round(y * 1.5 + rng.normal(size=50), 1)  # rounding makes ties
    fpr, tpr, tau = comparison_roc_curve(y, score)
    assert tau[0] == np.inf and tau[-1] == 0
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    for f, t, th in zip(fpr, tpr, tau, strict=True):
        assert (f, t) == pytest.approx(_brute_force_point(y, score, th))
    # Area by brute force: a fine sweep of tau, trapezoids between consecutive points.
    sweep = np.concatenate([[np.inf], np.sort(np.unique(np.abs(score)))[::-1], [0.0]])
    pts = np.array([_brute_force_point(y, score, t) for t in sweep])
    area = np.sum(np.diff(pts[:, 0]) * (pts[1:, 1] + pts[:-1, 1]) / 2)
    assert comparison_auc(y, score) == pytest.approx(area)


def test_perfect_scores_have_auc_one_and_inversions_lower_it():
    y = np.array([0, 0, 1, -1, 1])
    score = np.array([0.1, -0.2, 2.0, -3.0, 1.0])
    assert comparison_auc(y, score) == pytest.approx(1.0)
    inverted = score.copy()
    inverted[2] = -2.0  # right magnitude, wrong sign: never a true positive
    fpr, tpr, _ = comparison_roc_curve(y, inverted)
    assert tpr[-1] == pytest.approx(2 / 3)
    assert comparison_auc(y, inverted) == pytest.approx(2 / 3)


def test_scripts_convention_counts_inversions_as_true_positives():
    y = np.array([0, 0, 1, -1, 1])
    inverted = np.array([0.1, -0.2, -2.0, -3.0, 1.0])
    fpr, tpr, _ = comparison_roc_curve(y, inverted, inversions="true_positive")
    assert tpr[-1] == pytest.approx(1.0)
    assert comparison_auc(y, inverted, inversions="true_positive") == pytest.approx(1.0)
    rng = np.random.default_rng(3)
    y = rng.choice([-1, 0, 1], size=80)
    score = y + rng.normal(scale=1.5, size=80)
    # Brute force: a pair is a true positive when |score| > tau, whatever its sign.
    sweep = np.concatenate([[np.inf], np.sort(np.unique(np.abs(score)))[::-1], [0.0]])
    eq = y == 0
    pts = np.array([[np.mean(np.abs(score[eq]) > t), np.mean(np.abs(score[~eq]) > t)]
                    for t in sweep])
    area = np.sum(np.diff(pts[:, 0]) * (pts[1:, 1] + pts[:-1, 1]) / 2)
    assert comparison_auc(y, score, inversions="true_positive") == pytest.approx(area)
    assert comparison_auc(y, score) < area
    with pytest.raises(ValueError, match="inversions must be one of"):
        comparison_auc(y, score, inversions="ignore")


def test_trivial_predictor_auc():
    # A constant score: one step from (0, 0) to (1, share of +1 among inequalities).
    y = np.array([0, 0, 1, 1, 1, -1])
    fpr, tpr, _ = comparison_roc_curve(y, np.ones(6))
    assert fpr[-1] == 1.0 and tpr[-1] == pytest.approx(0.75)
    assert comparison_auc(y, np.ones(6)) == pytest.approx(0.375)


@pytest.mark.parametrize("y, score, error, match", [
    ([0, 1], [0.5], ValueError, "score has 1"),
    ([0, 0], [0.5, 1.0], ValueError, "inequality"),
    ([1, -1], [0.5, 1.0], ValueError, "equality"),
    ([0, 2], [0.5, 1.0], ValueError, "labels must be -1, 0 or 1"),
    ([0, 1], [np.nan, 1.0], ValueError, "NaN"),
])
def test_roc_rejects_bad_input(y, score, error, match):
    with pytest.raises(error, match=match):
        comparison_roc_curve(y, score)


def test_errors_reject_mismatched_lengths():
    with pytest.raises(ValueError, match="y has 2 labels but X has 3"):
        comparison_errors([0, 1, 1], [0, 1])


def test_comparison_report_is_the_errors_of_t_tau_and_the_auc_when_defined():
    from svmcompare._threshold import labels_at_threshold
    from svmcompare.metrics import comparison_report

    rng = np.random.default_rng(4)
    y = rng.integers(-1, 2, size=80)
    score = y * 1.2 + rng.normal(size=80)
    report = comparison_report(y, score, tau=0.7)
    errors = comparison_errors(y, labels_at_threshold(score, 0.7))
    assert {k: report[k] for k in errors} == errors
    assert report["error_rate"] == errors["error"] / 80
    assert report["auc"] == comparison_auc(y, score)
    assert np.isnan(comparison_report(np.ones(5, int), score[:5])["auc"])  # no ties: undefined


def test_outcome_log_loss_and_brier_against_references():
    from sklearn.metrics import log_loss

    from svmcompare.metrics import outcome_brier, outcome_log_loss

    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(3), size=50)
    y = rng.choice([-1, 0, 1], size=50)
    assert outcome_log_loss(y, proba) == pytest.approx(log_loss(y, proba, labels=[-1, 0, 1]))
    brute = np.mean([sum((proba[i, k] - (k - 1 == y[i])) ** 2 for k in range(3))
                     for i in range(50)])
    assert outcome_brier(y, proba) == pytest.approx(brute)
    assert outcome_log_loss([1], [[0.0, 0.0, 1.0]]) == 0.0
    assert outcome_log_loss([-1], [[0.0, 0.0, 1.0]]) == pytest.approx(-np.log(1e-15))
    # Per pair: brute force, each pair's probability of its own outcome.
    from svmcompare.metrics import outcome_log_losses

    each = outcome_log_losses(y, proba)
    np.testing.assert_allclose(each, [-np.log(proba[i, y[i] + 1]) for i in range(50)])
    assert outcome_log_loss(y, proba) == pytest.approx(each.mean())


def test_comparison_auc_chance_is_what_random_scores_get():
    from svmcompare.metrics import comparison_auc, comparison_auc_chance

    rng = np.random.default_rng(0)
    for tie_share in (0.1, 0.5, 0.8):
        y = np.where(rng.uniform(size=40_000) < tie_share, 0, rng.choice([-1, 1], size=40_000))
        auc = comparison_auc(y, rng.normal(size=y.size))
        assert auc == pytest.approx(comparison_auc_chance(), abs=0.01)


def test_reliability_table_against_brute_force():
    from svmcompare.metrics import outcome_accuracy, reliability_table

    rng = np.random.default_rng(1)
    proba = rng.dirichlet([1, 1, 1], size=500)
    y = np.array([rng.choice([-1, 0, 1], p=p) for p in proba])
    table = reliability_table(y, proba, n_bins=5)
    for row in table.itertuples():
        p = proba[:, row.outcome + 1]
        inside = np.minimum(np.floor(p * 5), 4) == np.floor(min(row.predicted * 5, 4.999))
        assert row.count == inside.sum()
        assert row.observed == pytest.approx(np.mean(y[inside] == row.outcome))
    # Drawn from these probabilities: calibrated within sampling noise.
    big = table["count"] > 40
    assert np.all(np.abs(table.loc[big, "predicted"] - table.loc[big, "observed"]) < 0.15)
    assert outcome_accuracy(y, proba) == pytest.approx(np.mean(proba.argmax(1) - 1 == y))


def test_accuracy_counts_the_labels_predict_gives():
    # An attack (stop 70): where x and x' are equally likely to win, predict
    # says tie (swap symmetry) and the accuracy took argmax's -1, so
    # `svmcompare evaluate` printed two numbers that disagreed.
    from svmcompare import SVMCompare
    from svmcompare.metrics import outcome_accuracy

    proba = np.array([[0.4, 0.2, 0.4], [0.5, 0.2, 0.3], [0.3, 0.2, 0.5]])
    assert outcome_accuracy(np.array([0, -1, 1]), proba) == 1.0
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(300, 2)), rng.normal(size=(300, 2))
    d = (B - A) @ [1.0, 0.5] + rng.normal(size=300)
    y = np.where(d > 0.3, 1, np.where(d < -0.3, -1, 0))
    model = SVMCompare(kernel="linear", probability=True, random_state=0).fit(
        np.stack([A, B], 1), y)
    X = np.stack([np.r_[A[:3], A[3:9]], np.r_[A[:3], B[3:9]]], 1)  # three pairs of equals
    labels = model.predict(X)
    assert (labels[:3] == 0).all()
    assert outcome_accuracy(y[:9], model.predict_proba(X)) == np.mean(labels == y[:9])


@pytest.mark.parametrize("proba,match", [
    (np.array([[0.2, 0.3, 2.0]] * 4), "probabilities in \\[0, 1\\]"),
    (np.array([[0.1, 0.2, 0.2]] * 4), "row 0 sums to 0.5"),
    (np.array([[0.5, 0.5]] * 4), "shape \\(4, 3\\)"),
    (np.array([[0.2, np.nan, 0.8]] * 4), "NaN or infinity"),
])
def test_outcome_scores_refuse_what_are_not_probability_rows(proba, match):
    from svmcompare.metrics import (
        outcome_accuracy,
        outcome_brier,
        outcome_log_loss,
        reliability_table,
    )

    y = np.array([-1, 0, 1, 1])
    for score in (outcome_log_loss, outcome_brier, outcome_accuracy, reliability_table):
        with pytest.raises(ValueError, match=match):
            score(y, proba)


def test_probabilities_rounded_to_three_decimals_are_scored():
    from svmcompare.metrics import outcome_log_loss

    proba = np.array([[0.457, 0.222, 0.322], [0.333, 0.333, 0.333]])
    assert outcome_log_loss([-1, 0], proba) == pytest.approx(
        -(np.log(0.457) + np.log(0.333)) / 2)
