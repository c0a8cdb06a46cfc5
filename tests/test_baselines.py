"""SVMRank and SVMRank2: their training pairs, the threshold of eq. (6)."""

import numpy as np
import pytest

from svmcompare import SVMRank, SVMRank2
from svmcompare._problem import BinaryProblem, flip_rank2, stack_items
from svmcompare._threshold import fit_threshold, zero_one_loss_by_threshold
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual


def _brute_force_loss(diff, y, tau):
    pred = np.where(diff > tau, 1, np.where(diff < -tau, -1, 0))
    return int(np.sum(pred != y))


@pytest.mark.parametrize("seed", range(5))
def test_threshold_minimizes_training_loss_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 0, 1], size=60)
    diff = y * rng.exponential(1.0, size=60) + rng.normal(scale=0.6, size=60)
    diff[:5] = np.round(diff[:5], 1)  # some ties
    tau = fit_threshold(diff, y)
    dense = np.linspace(0, np.abs(diff).max() * 1.5, 20001)
    brute_min = min(_brute_force_loss(diff, y, t) for t in dense)
    assert _brute_force_loss(diff, y, tau) == brute_min
    losses = zero_one_loss_by_threshold(diff, y, dense)
    assert losses.min() == brute_min
    assert all(zero_one_loss_by_threshold(diff, y, np.array([t]))[0]
               == _brute_force_loss(diff, y, t) for t in dense[::500])


def test_threshold_ties_go_to_the_middle_of_the_minimizing_range():
    # Perfectly separated: any tau in [0.5, 2) is optimal; the middle is 1.25.
    diff = np.array([0.1, -0.5, 0.3, 2.0, -3.0])
    y = np.array([0, 0, 0, 1, -1])
    assert fit_threshold(diff, y) == pytest.approx(1.25, abs=0.05)


def test_rank_ignores_equality_pairs_except_for_threshold(norm_data):
    (X, y), (Xtest, _) = norm_data
    ineq = y != 0
    full = SVMRank(C=1.0, gamma=1.0).fit(X, y)
    # Same inequality pairs, same standardization (the items of all pairs): the
    # ranking function depends on the equality pairs only through the scaling.
    only = SVMRank(C=1.0, gamma=1.0).fit(X, np.where(ineq, y, 0))
    np.testing.assert_allclose(full.rank(Xtest[:, 0]), only.rank(Xtest[:, 0]))
    assert full.n_support_[1] <= ineq.sum()
    assert full.intercept_ == 0.0


def test_rank2_duplicate_trick_equals_explicit_2n_pairs(norm_data):
    """Table 2 with every inequality pair really duplicated gives the same optimum."""
    (X, y), _ = norm_data
    Xs = X / X.reshape(-1, 2).std(0)
    C = 0.7
    kernel = resolve_kernel("rbf", 1.0)
    trick = solve_dual(flip_rank2(Xs, y, C), kernel, bias=False, tol=1e-8)

    items, first, second = stack_items(Xs)
    a, b = [], []
    for i, label in enumerate(y):
        if label == 0:
            a += [first[i], second[i]]
            b += [second[i], first[i]]
        else:
            worse, better = (first[i], second[i]) if label == 1 else (second[i], first[i])
            a += [worse, worse]
            b += [better, better]
    explicit = BinaryProblem(items, np.array(a), np.array(b), np.ones(len(a)), np.full(len(a), C))
    assert explicit.m == 2 * len(y)
    full = solve_dual(explicit, kernel, bias=False, tol=1e-8)
    assert trick.objective == pytest.approx(full.objective, rel=1e-7)


def test_rank_and_rank2_predict_with_learned_threshold(norm_data):
    (X, y), (Xtest, ytest) = norm_data
    for cls in (SVMRank, SVMRank2):
        model = cls(C=1.0, gamma=1.0).fit(X, y)
        diff = model.decision_function(Xtest)
        tau = model.threshold_
        assert tau >= 0
        np.testing.assert_array_equal(
            model.predict(Xtest), np.where(diff > tau, 1, np.where(diff < -tau, -1, 0)))
        # The learned threshold is optimal on the training pairs.
        train_diff = model.decision_function(X)
        grid = np.linspace(0, np.abs(train_diff).max() * 1.1, 2000)
        best = zero_one_loss_by_threshold(train_diff, y, grid).min()
        assert zero_one_loss_by_threshold(train_diff, y, np.array([tau]))[0] == best
        assert 0.5 < model.score(Xtest, ytest) <= 1.0


def test_rank_needs_inequality_pairs():
    X = np.random.default_rng(0).normal(size=(10, 2, 2))
    with pytest.raises(ValueError, match="inequality pairs"):
        SVMRank().fit(X, np.zeros(10))
    # rank2 turns equality pairs into inequality pairs and can always train.
    model = SVMRank2().fit(X, np.zeros(10))
    assert np.all(model.predict(X) == 0)


def test_swapping_items_negates_rank_predictions(norm_data):
    (X, y), (Xtest, _) = norm_data
    for cls in (SVMRank, SVMRank2):
        model = cls().fit(X, y)
        np.testing.assert_array_equal(model.predict(Xtest[:, ::-1]), -model.predict(Xtest))


def test_the_threshold_counts_pairs_by_their_weight():
    # eq. (6)'s threshold was chosen by the unweighted training error: integer
    # weights differed from repeated pairs (0.73 against 1.64), and pairs of
    # weight 0 moved it (0.73 -> 106) and with it every prediction.
    from svmcompare import make_pairs

    rng = np.random.default_rng(0)
    first, second = rng.normal(size=(200, 3)), rng.normal(size=(200, 3))
    d = (second - first) @ [1, 2, 3] + 1.5 * rng.normal(size=200)
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    X = make_pairs(first, second)
    weight = np.where(y == 0, 5, 1)
    weighted = SVMRank(kernel="linear").fit(X, y, sample_weight=weight)
    repeated = SVMRank(kernel="linear").fit(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    assert weighted.threshold_ == pytest.approx(repeated.threshold_, rel=1e-6)
    junk = make_pairs(rng.normal(size=(300, 3)), rng.normal(size=(300, 3)) + 3)
    padded = SVMRank(kernel="linear").fit(
        np.concatenate([X, junk]), np.r_[y, np.zeros(300, dtype=int)],
        sample_weight=np.r_[np.ones(200), np.zeros(300)])
    plain = SVMRank(kernel="linear").fit(X, y)
    assert padded.threshold_ == pytest.approx(plain.threshold_, rel=1e-6)
    # The weighted loss is the loss of the repeated pairs, threshold by threshold.
    diff = weighted.decision_function(X)
    taus = np.linspace(0, 3, 31)
    np.testing.assert_allclose(zero_one_loss_by_threshold(diff, y, taus, weight),
                               zero_one_loss_by_threshold(np.repeat(diff, weight),
                                                          np.repeat(y, weight), taus))
