"""Win / tie / loss probabilities: the ordered-logit link and predict_proba."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import log_loss

from svmcompare import SVMCompare, SVMRank, SVMRank2
from svmcompare.calibration import ScoreCalibrator
from svmcompare.calibration.held_out import cross_validated_scores
from svmcompare.datasets import make_norm_pairs


def _ordered_logit_sample(seed, theta, w, n=20_000):
    """Scores d and outcomes drawn from the ordered logit with cut points theta."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=n) * 3
    cumulative = 1 / (1 + np.exp(-(theta[None, :] - w * d[:, None])))
    u = rng.uniform(size=d.size)
    return d, np.where(u < cumulative[:, 0], -1, np.where(u < cumulative[:, 1], 0, 1))


def test_link_recovers_an_ordered_logit_and_its_closed_form():
    theta, w = np.array([-1.0, 1.5]), 2.0
    d, y = _ordered_logit_sample(0, theta, w)
    calibrator = ScoreCalibrator(symmetric=False).fit(d, y)
    grid = np.linspace(-2, 2, 9)
    sig = 1 / (1 + np.exp(-(theta[None, :] - w * grid[:, None])))
    expected = np.column_stack([sig[:, 0], sig[:, 1] - sig[:, 0], 1 - sig[:, 1]])
    np.testing.assert_allclose(calibrator.predict_proba(grid), expected, atol=0.03)


def test_symmetric_link_swaps_outcomes_with_the_pair_and_recovers_symmetric_cuts():
    theta, w = np.array([-1.2, 1.2]), 1.5
    d, y = _ordered_logit_sample(1, theta, w)
    calibrator = ScoreCalibrator().fit(d, y)
    grid = np.linspace(-3, 3, 13)
    proba = calibrator.predict_proba(grid)
    np.testing.assert_allclose(calibrator.predict_proba(-grid), proba[:, ::-1], atol=1e-12)
    thresholds = calibrator.link_.thresholds_ * calibrator.scale_ / calibrator.link_.coef_[0]
    np.testing.assert_allclose(thresholds, theta / w, rtol=0.05)


def test_scores_that_rank_backwards_give_the_class_frequencies_not_a_falling_link():
    rng = np.random.default_rng(2)
    y = rng.integers(-1, 2, size=300)
    d = -y + rng.normal(scale=0.5, size=300)  # anti-correlated with the outcome
    proba = ScoreCalibrator().fit(d, y).predict_proba(np.linspace(-3, 3, 7))
    np.testing.assert_allclose(proba, np.tile(proba[0], (7, 1)), atol=1e-9)
    shares = (np.bincount(y + 1) + np.bincount(-y + 1)) / 600
    np.testing.assert_allclose(proba[0], shares, atol=1e-4)


def test_an_absent_outcome_gets_probability_zero():
    calibrator = ScoreCalibrator().fit([-2.0, -1.0, 1.0, 2.0, 0.5, -0.5], [-1, -1, 1, 1, 1, -1])
    proba = calibrator.predict_proba([0.0, 3.0])
    np.testing.assert_array_equal(proba[:, 1], 0.0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="two distinct outcomes"):
        ScoreCalibrator().fit([1.0, 2.0], [0, 0])


@pytest.mark.parametrize("model", [SVMCompare(C=1.0, gamma=0.5), SVMRank(C=1.0, gamma=0.5),
                                   SVMRank2(C=1.0, gamma=0.5)])
def test_predict_proba_is_calibrated_on_held_out_pairs(model):
    X, y = make_norm_pairs(600, "l2", random_state=0)
    X_test, y_test = make_norm_pairs(4000, "l2", random_state=1)
    fitted = clone(model).set_params(probability=True, random_state=0).fit(X, y)
    proba = fitted.predict_proba(X_test)
    assert proba.shape == (4000, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(fitted.classes_, [-1, 0, 1])
    # Calibrated: the mean probability of each outcome is its share on new pairs.
    np.testing.assert_allclose(proba.mean(axis=0), np.bincount(y_test + 1) / 4000, atol=0.04)
    # Far better than the label shares alone; the rank difference orders P(y = 1).
    prior = np.tile(np.bincount(y + 1) / len(y), (4000, 1))
    assert log_loss(y_test, proba, labels=[-1, 0, 1]) < 0.75 * log_loss(y_test, prior,
                                                                         labels=[-1, 0, 1])
    d = fitted.decision_function(X_test)
    order = np.argsort(d)
    assert np.all(np.diff(proba[order, 2]) >= -1e-12)
    # Deterministic given random_state; the comparison rule is the plain model's,
    # and predict's labels are the most probable outcomes (issue 36).
    again = clone(fitted).fit(X, y).predict_proba(X_test)
    np.testing.assert_allclose(again, proba)
    plain = clone(model).fit(X, y)
    np.testing.assert_array_equal(plain.predict(X_test), fitted.compare(X_test))
    np.testing.assert_array_equal(fitted.predict(X_test), np.array([-1, 0, 1])[proba.argmax(1)])
    assert plain.decision_rule_ == "comparison" and fitted.decision_rule_ == "probability"
    assert not hasattr(plain, "predict_proba")


def test_cross_validated_scores_are_held_out():
    X, y = make_norm_pairs(200, "l1", random_state=3)
    model = SVMCompare(C=100.0, gamma=2.0)
    in_sample = clone(model).fit(X, y).decision_function(X)
    held_out, _ = cross_validated_scores(model, X, y, random_state=0)
    # An overfitted model separates its own training pairs better than held-out ones.
    eq = y == 0
    assert np.mean(np.abs(in_sample[eq])) < np.mean(np.abs(held_out[eq]))
    with pytest.raises(ValueError, match="rarest label has 1"):
        cross_validated_scores(model, X[:50], np.r_[np.zeros(49, int), 1])


def test_swapping_the_pair_swaps_the_win_and_loss_probabilities():
    # Issue 19: they differed by up to 0.26 (median 0.07) with the asymmetric link.
    X, y = make_norm_pairs(400, "l1", random_state=0)
    model = SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict(X[:, ::-1]), -model.predict(X))
    np.testing.assert_allclose(model.predict_proba(X[:, ::-1]), model.predict_proba(X)[:, ::-1],
                               atol=1e-12)


def test_the_link_does_not_extrapolate_beyond_the_scores_it_saw():
    from svmcompare.calibration import PairTieCalibrator

    rng = np.random.default_rng(0)
    d = rng.normal(size=500)
    y = np.where(d + rng.logistic(size=500) > 1, 1, np.where(d - rng.logistic(size=500) < -1,
                                                             -1, 0))
    link = ScoreCalibrator().fit(d, y)
    edge = np.abs(d).max()
    np.testing.assert_allclose(link.predict_proba([1e6 * edge, -1e6 * edge]),
                               link.predict_proba([edge, -edge]))
    S = rng.normal(size=(500, 2))
    band = PairTieCalibrator().fit(d, y, S)
    far = np.array([[1e3, -1e3]])
    inside = np.array([[S[:, 0].max(), S[:, 1].min()]])
    np.testing.assert_allclose(band.predict_proba([0.0], None, far),
                               band.predict_proba([0.0], None, inside))


def _davidson_sample(seed, w, nu, n=20_000):
    """Scores d and outcomes from Davidson's tie model, P ~ (e^{-wd}, e^nu, e^{wd})."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=n)
    logits = np.column_stack([-w * d, np.full(n, nu), w * d])
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    u = rng.uniform(size=n)[:, None]
    return d, np.argmax(u < np.cumsum(p, axis=1), axis=1) - 1


def test_davidson_link_recovers_its_parameters_and_closed_form():
    from svmcompare.calibration import PairTieCalibrator

    d, y = _davidson_sample(0, w=1.5, nu=0.3)
    link = PairTieCalibrator(link="davidson").fit(d, y, np.zeros((d.size, 0)))
    assert link.coef_[0] / link.scale_ == pytest.approx(1.5, rel=0.05)
    assert link.band_intercept_ == pytest.approx(0.3, abs=0.05)
    grid = np.linspace(-2, 2, 9)
    z = np.column_stack([np.exp(-1.5 * grid), np.full(9, np.exp(0.3)), np.exp(1.5 * grid)])
    np.testing.assert_allclose(link.predict_proba(grid, None, np.zeros((9, 0))),
                               z / z.sum(axis=1, keepdims=True), atol=0.02)
    # Swap symmetry: P(0) even in d, P(-1) <-> P(1).
    proba = link.predict_proba(grid, None, np.zeros((9, 0)))
    np.testing.assert_allclose(proba[::-1], proba[:, ::-1], atol=1e-12)


def _numpy_band_terms(eta, tie, y, weight, tiny=1e-300):
    """The pair band's rows as numpy passes (the formulas of pair_band_terms)."""
    from scipy.special import expit

    theta = np.exp(np.clip(tie, -30.0, 30.0))
    s_lo, s_up = expit(-theta - eta), expit(theta - eta)
    p_tie = np.maximum(s_up - s_lo, tiny)
    prob = np.where(y < 0, np.maximum(s_lo, tiny), np.where(y > 0, np.maximum(1 - s_up, tiny),
                                                             p_tie))
    g_lo = np.where(y < 0, 1.0 - s_lo, np.where(y > 0, 0.0, -s_lo * (1 - s_lo) / p_tie))
    g_up = np.where(y < 0, 0.0, np.where(y > 0, -s_up, s_up * (1 - s_up) / p_tie))
    return -np.sum(weight * np.log(prob)), weight * (g_lo + g_up), -weight * (g_up - g_lo) * theta


def _numpy_davidson_terms(eta, nu, y, weight):
    """Davidson's rows as numpy passes: -log of exp(logit_y) / sum_j exp(logit_j)."""
    logits = np.column_stack([-eta, nu, eta])
    top = logits.max(axis=1, keepdims=True)
    log_total = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
    proba = np.exp(logits - log_total[:, None])
    loss = weight * (log_total - logits[np.arange(y.size), y + 1])
    d_eta = weight * (proba[:, 2] - proba[:, 0] - np.sign(y))
    d_nu = weight * (proba[:, 1] - (y == 0))
    return loss.sum(), d_eta, d_nu


@pytest.mark.parametrize("name", ["ordered", "davidson"])
def test_the_pair_band_links_c_sweeps_are_the_numpy_formulas(name):
    """The rows' terms of both pair-band objectives in C against the formulas
    as numpy passes, across ordinary and saturated rows (scores +-40 and +-800,
    tie terms past the band's clip at +-30); the same bits on one thread or
    two; arrays of another length refused."""
    from svmcompare._ordinal_core import davidson_terms, pair_band_terms

    rng = np.random.default_rng(7)
    n = 3001  # not a multiple of the sweep's blocks or chunks
    eta = rng.normal(scale=3.0, size=n)
    tie = rng.normal(scale=1.5, size=n)
    eta[:6] = [800.0, -800.0, 40.0, -40.0, 0.0, 5.0]
    tie[:8] = [0.0, 0.0, 1.0, 1.0, 35.0, -3.0, 4.0, 2.0]
    y = rng.integers(-1, 2, size=n)
    weight = rng.uniform(0.0, 2.0, size=n)
    sweep, numpy_terms = {"ordered": (pair_band_terms, _numpy_band_terms),
                          "davidson": (davidson_terms, _numpy_davidson_terms)}[name]
    extra = (1e-300,) if name == "ordered" else ()
    results = []
    for threads in (1, 2):
        d_eta, d_tie = np.empty(n), np.empty(n)
        loss = sweep(eta, tie, y, weight, d_eta, d_tie, *extra, threads)
        results.append((loss, d_eta, d_tie))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_array_equal(results[0][2], results[1][2])
    want_loss, want_d_eta, want_d_tie = numpy_terms(eta, tie, y, weight)
    assert results[0][0] == pytest.approx(want_loss, rel=1e-12)
    np.testing.assert_allclose(results[0][1], want_d_eta, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(results[0][2], want_d_tie, rtol=1e-11, atol=1e-13)
    with pytest.raises(ValueError, match="one entry per row"):
        sweep(eta, tie[:-1], y, weight, np.empty(n), np.empty(n), *extra)
    # A NaN predictor or tie term is a NaN loss (a line search then backs off).
    for bad in (eta, tie):
        saved, bad[7] = bad[7], np.nan
        assert np.isnan(sweep(eta, tie, y, weight, np.empty(n), np.empty(n), *extra))
        bad[7] = saved


@pytest.mark.parametrize("name", ["ordered", "davidson"])
def test_link_objectives_have_exact_gradients(name):
    from scipy.optimize import check_grad

    from svmcompare.calibration import links as calibration

    objective = {"ordered": calibration._band_objective,
                 "davidson": calibration._davidson_objective}[name]
    rng = np.random.default_rng(1)
    F, S = rng.normal(size=(60, 2)), rng.normal(size=(60, 3))
    y = rng.integers(-1, 2, size=60)
    weight = rng.uniform(0.5, 2.0, size=60)
    params = rng.normal(size=6) * 0.5
    error = check_grad(lambda p: objective(p, F, S, y, 0.7, weight)[0],
                       lambda p: objective(p, F, S, y, 0.7, weight)[1], params)
    assert error < 1e-5 * max(1.0, np.abs(objective(params, F, S, y, 0.7, weight)[1]).max())


@pytest.mark.parametrize("name", ["ordered", "davidson"])
def test_the_swapped_pairs_add_the_same_likelihood_as_the_pairs(name):
    # Why PairTieCalibrator fits one orientation with twice the weight: the
    # objective (and gradient) of (d, y) and (-d, -y) with the same tie
    # features is twice the objective of (d, y), at any parameters.
    from svmcompare.calibration import links

    objective = {"ordered": links._band_objective, "davidson": links._davidson_objective}[name]
    rng = np.random.default_rng(3)
    F, S = rng.normal(size=(80, 2)), rng.normal(size=(80, 3))
    y = rng.integers(-1, 2, size=80)
    weight = rng.uniform(0.5, 2.0, size=80)
    params = rng.normal(size=6) * 0.5
    params[0] = abs(params[0])
    once = objective(params, F, S, y, 0.0, weight)
    both = objective(params, np.vstack([F, -F]), np.vstack([S, S]), np.concatenate([y, -y]),
                     0.0, np.concatenate([weight, weight]))
    np.testing.assert_allclose(both[0], 2 * once[0], rtol=1e-12)
    np.testing.assert_allclose(both[1], 2 * once[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("link", ["ordered", "davidson"])
def test_a_pair_band_fitted_on_swapped_copies_too_is_the_same_link(link):
    from svmcompare.calibration import PairTieCalibrator

    rng = np.random.default_rng(4)
    n = 400
    score, S = rng.normal(size=n), rng.normal(size=(n, 2))
    context = rng.choice([-1.0, 0.0, 1.0], size=(n, 1))
    eta = 1.5 * score + 0.4 * context[:, 0] + rng.logistic(size=n)
    y = np.where(eta > 0.7 + 0.5 * S[:, 0], 1, np.where(eta < -0.7 - 0.5 * S[:, 0], -1, 0))
    one = PairTieCalibrator(link=link).fit(score, y, S, context)
    two = PairTieCalibrator(link=link).fit(np.concatenate([score, -score]), np.concatenate([y, -y]),
                                           np.vstack([S, S]), np.vstack([context, -context]))
    np.testing.assert_allclose(two.predict_proba(score, context, S),
                               one.predict_proba(score, context, S), atol=2e-4)


def test_the_link_family_is_validated_and_reaches_predict_proba():
    X, y = make_norm_pairs(300, "l1", random_state=0)
    with pytest.raises(ValueError, match="link must be one of"):
        SVMCompare(link="probit").fit(X, y)
    ordered = SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0).fit(X, y)
    davidson = clone(ordered).set_params(link="davidson").fit(X, y)
    assert not np.allclose(ordered.predict_proba(X), davidson.predict_proba(X), atol=1e-3)
    np.testing.assert_allclose(davidson.predict_proba(X[:, ::-1]),
                               davidson.predict_proba(X)[:, ::-1], atol=1e-12)


def test_log_softmax_matches_scipy_and_survives_large_logits():
    from scipy.special import logsumexp

    from svmcompare.calibration.links import _log_softmax

    logits = np.random.default_rng(0).normal(size=(500, 3)) * np.array([[1.0], [50.0]]).repeat(
        250, axis=0)
    np.testing.assert_allclose(_log_softmax(logits),
                               logits - logsumexp(logits, axis=1, keepdims=True),
                               rtol=1e-12, atol=1e-12)
    huge = np.array([[1000.0, 0.0, -1000.0]])
    np.testing.assert_allclose(_log_softmax(huge), [[0.0, -1000.0, -2000.0]])


@pytest.mark.parametrize("layout", ["one_hot", "dense", "mixed"])
def test_standardized_tie_features_give_the_products_of_the_standardized_matrix(layout):
    # Columns mostly at their median (one-hot) are kept sparse around it plus a
    # constant, the others dense; either way the products are those of
    # (S - mean) / scale, written out, in the columns' own order.
    from svmcompare.calibration import StandardizedTieFeatures

    rng = np.random.default_rng(0)
    n = 500
    ids = rng.integers(0, 20, size=(n, 2))
    one_hot = np.zeros((n, 20))
    one_hot[np.arange(n), ids[:, 0]] += 0.5
    one_hot[np.arange(n), ids[:, 1]] += 0.5
    varying = rng.normal(size=(n, 6))
    S = {"one_hot": np.hstack([one_hot, np.zeros((n, 1))]),  # a constant column too
         "dense": varying,
         "mixed": np.hstack([varying[:, :3], one_hot, varying[:, 3:]])}[layout]
    prepared = StandardizedTieFeatures.of(S)
    n_dense = {"one_hot": 0, "dense": 6, "mixed": 6}[layout]
    assert prepared.matrix.dense.shape == (n, n_dense)
    assert prepared.matrix.sparse.shape == (n, S.shape[1] - n_dense)
    scale = S.std(axis=0)
    dense = (S - S.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    b, g = rng.normal(size=S.shape[1]), rng.normal(size=n)
    np.testing.assert_allclose(prepared.matrix @ b, dense @ b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(prepared.matrix.T @ g, dense.T @ g, rtol=1e-12, atol=1e-10)
    B = rng.normal(size=(S.shape[1], 3))  # several columns at once
    np.testing.assert_allclose(prepared.matrix @ B, dense @ B, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(prepared.low, S.min(axis=0))
    np.testing.assert_array_equal(prepared.high, S.max(axis=0))
    # Other pairs' features as a link fitted on these sees them: clipped to
    # this range, standardized as these (the search predicts many links so).
    T = S[:50] + rng.normal(0, 2, size=(50, S.shape[1]))
    clipped = (np.clip(T, S.min(axis=0), S.max(axis=0)) - S.mean(axis=0)) \
        / np.where(scale > 0, scale, 1.0)
    np.testing.assert_allclose(prepared.clipped(T).matrix @ b, clipped @ b, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(prepared.clipped(sp.csr_matrix(T)).matrix @ b, clipped @ b,
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("link", ["ordered", "davidson"])
def test_a_link_predicts_the_same_from_features_clipped_once(link):
    # SVMCompareCV clips a split's tie features once for every link fitted on
    # the same pairs; features clipped for other pairs are refused.
    from svmcompare.calibration import PairTieCalibrator, StandardizedTieFeatures

    rng = np.random.default_rng(7)
    S = np.hstack([rng.normal(size=(400, 2)), rng.uniform(size=(400, 3)) < 0.05])
    score = rng.normal(size=400)
    y = np.where(score + rng.logistic(size=400) > 1, 1,
                 np.where(score + rng.logistic(size=400) < -1, -1, 0))
    prepared = StandardizedTieFeatures.of(S[:300])
    fit = PairTieCalibrator(link=link).fit(score[:300], y[:300], prepared)
    np.testing.assert_allclose(fit.predict_proba(score[300:], None, prepared.clipped(S[300:])),
                               fit.predict_proba(score[300:], None, S[300:]), rtol=0, atol=1e-14)
    other = StandardizedTieFeatures.of(S[100:])
    with pytest.raises(ValueError, match="another link"):
        fit.predict_proba(score[300:], None, other.clipped(S[300:]))


@pytest.mark.parametrize("link", ["ordered", "davidson"])
def test_a_link_started_from_a_neighbours_tie_term_reaches_the_same_fit(link):
    # SVMCompareCV starts each grid point's pair band from the previous C's:
    # the start changes the path of L-BFGS, not the optimum it reaches.
    from svmcompare.calibration import PairTieCalibrator, StandardizedTieFeatures

    rng = np.random.default_rng(5)
    n = 3000
    S = rng.normal(size=(n, 3))
    score = rng.normal(size=n)
    eta = 1.5 * score + rng.logistic(size=n)
    band = 0.7 + 0.5 * S[:, 0]
    y = np.where(eta > band, 1, np.where(eta < -band, -1, 0))
    neighbour = PairTieCalibrator(link=link).fit(0.8 * score + 0.1 * rng.normal(size=n), y, S)
    cold = PairTieCalibrator(link=link).fit(score, y, S)
    warm = PairTieCalibrator(link=link).fit(score, y, StandardizedTieFeatures.of(S),
                                            warm=neighbour)
    assert np.abs(neighbour.band_coef_).max() > 0.1  # not the cold start's b = 0
    from svmcompare.metrics import outcome_log_loss

    warm_proba, cold_proba = (fit.predict_proba(score, None, S) for fit in (warm, cold))
    assert outcome_log_loss(y, warm_proba) == pytest.approx(outcome_log_loss(y, cold_proba),
                                                            abs=1e-6)
    np.testing.assert_allclose(warm_proba, cold_proba, atol=1e-3)
    np.testing.assert_allclose(warm.band_coef_, cold.band_coef_, atol=1e-2)


def _sparse_and_dense_tie_features(seed=0):
    """Columns of every kind a sparse matrix may hold: one-hot (mostly 0),
    stored explicit zeros, a column mostly non-zero (0 is not its median), a
    negative one, an empty one."""
    rng = np.random.default_rng(seed)
    n = 300
    S = np.zeros((n, 6))
    S[rng.integers(0, n, 40), 0] = 1.0
    S[rng.integers(0, n, 30), 1] = 0.5
    S[:, 2] = rng.normal(2.0, 1.0, n)
    S[rng.integers(0, n, 50), 3] = -rng.uniform(1, 3, 50)
    S[rng.integers(0, n, 200), 4] = rng.uniform(1, 2, 200)  # mostly stored
    sparse = sp.csr_matrix(S)
    explicit = sp.csr_matrix((np.r_[sparse.data, 0.0], np.r_[sparse.indices, 0],
                              np.r_[sparse.indptr[:-1], sparse.indptr[-1] + 1]), shape=S.shape)
    return S, explicit


def test_sparse_tie_features_standardize_as_dense_ones():
    from svmcompare.calibration import StandardizedTieFeatures

    S, sparse = _sparse_and_dense_tie_features()
    dense, thin = StandardizedTieFeatures.of(S), StandardizedTieFeatures.of(sparse)
    assert not isinstance(thin.matrix, np.ndarray)  # never densified
    for name in ("low", "high", "mean", "scale"):
        np.testing.assert_allclose(getattr(thin, name), getattr(dense, name), rtol=1e-12,
                                   atol=1e-15)
    reference = (S - S.mean(axis=0)) / np.where(S.std(axis=0) > 0, S.std(axis=0), 1.0)
    v, g = np.arange(1.0, 7.0), np.linspace(-1, 1, S.shape[0])
    np.testing.assert_allclose(thin.matrix @ v, reference @ v, atol=1e-10)
    np.testing.assert_allclose(thin.matrix.T @ g, reference.T @ g, atol=1e-10)


@pytest.mark.parametrize("link", ["ordered", "davidson"])
def test_a_link_on_sparse_tie_features_predicts_as_on_dense_ones(link):
    from svmcompare.calibration import PairTieCalibrator

    S, sparse = _sparse_and_dense_tie_features()
    rng = np.random.default_rng(3)
    score = rng.normal(size=S.shape[0])
    y = np.where(score + rng.logistic(size=score.size) > 1 + S[:, 0], 1,
                 np.where(score + rng.logistic(size=score.size) < -1 - S[:, 0], -1, 0))
    on_dense = PairTieCalibrator(link=link).fit(score, y, S)
    on_sparse = PairTieCalibrator(link=link).fit(score, y, sparse)
    np.testing.assert_allclose(on_sparse.band_coef_, on_dense.band_coef_, atol=1e-5)
    # New pairs beyond the range seen (clipped, implicit zeros included).
    T = rng.normal(0, 3, size=(50, S.shape[1])) * (rng.uniform(size=(50, S.shape[1])) < 0.3)
    new = rng.normal(size=50)
    np.testing.assert_allclose(on_dense.predict_proba(new, None, sp.csr_matrix(T)),
                               on_dense.predict_proba(new, None, T), rtol=0, atol=1e-12)
    np.testing.assert_allclose(on_sparse.predict_proba(new, None, sp.csr_matrix(T)),
                               on_dense.predict_proba(new, None, T), atol=1e-5)


@pytest.mark.parametrize("band", ["constant", "pair"])
def test_the_link_sees_only_the_weights_ratios(band):
    from svmcompare.calibration import fit_link, tie_features_for

    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2, 3))
    score = X[:, 1, 0] - X[:, 0, 0]
    y = np.where(score + rng.logistic(size=400) > 1, 1,
                 np.where(score + rng.logistic(size=400) < -1, -1, 0))
    S = tie_features_for(X, band)
    weight = rng.uniform(0.5, 2.0, size=400)
    reference = fit_link(score, y, S, sample_weight=weight).predict_proba(score, None, S)
    for factor in (1e-8, 1e6):
        scaled = fit_link(score, y, S, sample_weight=weight * factor)
        np.testing.assert_allclose(scaled.predict_proba(score, None, S), reference,
                                   rtol=0, atol=1e-7)
