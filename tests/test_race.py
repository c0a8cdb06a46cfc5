"""The race of SVMCompareCV (issue 33): grid points that trail the best point
by far on the first folds are not fitted on the others; everything else is
scored as without the race."""

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold

from svmcompare import SVMCompareCV, grid_search, model_selection
from svmcompare.datasets import make_norm_pairs


def _linear_pairs(n, seed):
    """A linear latent rank with ties: linear points win, wide RBF points lose."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, 4))
    d = (X[:, 1] - X[:, 0]) @ np.array([1.5, -1.0, 0.5, 0.0]) + rng.logistic(scale=0.4, size=n)
    return X, np.where(d > 0.7, 1, np.where(d < -0.7, -1, 0))


GRID = [{"kernel": ["linear"], "C": [0.01, 1.0]},
        {"kernel": ["rbf"], "gamma": [0.05, 20.0], "C": [0.1, 10.0]}]


def _fit(X, y, race, **kwargs):
    groups = np.arange(y.size) % 4
    return SVMCompareCV(param_grid=GRID, cv=GroupKFold(4), probability=True, race=race,
                        **kwargs).fit(X, y, groups=groups)


def test_a_hopeless_kernel_point_is_fitted_on_the_first_fold_only(monkeypatch):
    X, y = _linear_pairs(400, 0)
    fitted = []
    path = grid_search._fit_path

    def spy(estimator, X, y, Cs, *args, **kwargs):
        fitted.append((estimator.kernel, getattr(estimator, "gamma", None), tuple(Cs)))
        return path(estimator, X, y, Cs, *args, **kwargs)

    monkeypatch.setattr(grid_search, "_fit_path", spy)
    raced = _fit(X, y, race=True, n_jobs=1)
    results = raced.cv_results_
    # gamma = 20 on four standardized features: every item is its own
    # neighbourhood, the gaps say nothing on new pairs.
    narrow = results[(results["kernel"] == "rbf") & (results["gamma"] == 20.0)]
    assert (narrow["n_pruned"] == 3).all()
    assert narrow["mean_log_loss"].isna().all() and narrow["mean_error"].isna().all()
    assert sum(1 for kernel, gamma, _ in fitted if gamma == 20.0 and kernel == "rbf") == 1
    linear = results[results["kernel"] == "linear"]
    assert (linear["n_pruned"] == 0).all() and linear["mean_log_loss"].notna().all()
    # Linear paths: on every fold, all their C values.
    assert sum(1 for kernel, _, Cs in fitted if kernel == "linear" and Cs == (0.01, 1.0)) == 4


def test_the_race_changes_no_score_of_the_points_it_keeps():
    X, y = _linear_pairs(400, 1)
    raced = _fit(X, y, race=True).cv_results_
    full = _fit(X, y, race=False).cv_results_
    kept = raced["n_pruned"] == 0
    assert 0 < kept.sum() < len(raced)  # the race dropped some points, not all
    columns = ["mean_error", "mean_auc", "mean_log_loss", "mean_brier"]
    np.testing.assert_allclose(raced.loc[kept, columns].to_numpy(float),
                               full.loc[kept, columns].to_numpy(float), rtol=1e-6)
    # The pruned points were worse on the first fold by more than the margin.
    first = full.loc[~kept, "split0_log_loss"].to_numpy(float)
    assert first.min() > full["split0_log_loss"].min()


def test_a_kernel_point_that_wins_is_kept_and_chosen_as_without_the_race():
    # A squared-norm rank: a linear model cannot express it, RBF can.
    X, y = make_norm_pairs(300, "l2", random_state=2)
    raced, full = _fit(X, y, race=True), _fit(X, y, race=False)
    assert raced.best_params_["kernel"] == "rbf"
    assert raced.best_params_ == full.best_params_
    # A path whose other C values were pruned is warm-started from fewer
    # points: the same solutions to the solver's tolerance.
    np.testing.assert_allclose(raced.predict_proba(X), full.predict_proba(X), atol=1e-4)


def test_the_margin_and_the_standard_errors_are_what_prune(monkeypatch):
    X, y = _linear_pairs(300, 2)
    monkeypatch.setattr(model_selection, "RACE_MARGIN", np.inf)
    assert (_fit(X, y, race=True).cv_results_["n_pruned"] == 0).all()
    monkeypatch.setattr(model_selection, "RACE_MARGIN", -1.0)
    monkeypatch.setattr(model_selection, "RACE_Z", np.inf)
    assert (_fit(X, y, race=True).cv_results_["n_pruned"] == 0).all()
    monkeypatch.setattr(model_selection, "RACE_Z", -np.inf)
    results = _fit(X, y, race=True).cv_results_
    # Every point but the best of the first fold goes after it.
    pruned = results.groupby(["kernel", "gamma", "C"], dropna=False)["n_pruned"].first()
    assert (pruned == 0).sum() == 1 and (pruned[pruned > 0] == 3).all()


def test_the_race_judges_the_first_fold_then_the_first_two(monkeypatch):
    X, y = _linear_pairs(400, 3)
    seen = []
    race = model_selection._Race.__call__

    def spy(self, points, done):
        seen.append(len(done))
        return race(self, points, done)

    monkeypatch.setattr(model_selection._Race, "__call__", spy)
    _fit(X, y, race=True)
    assert seen == [1, 2]


def test_no_race_without_log_loss_or_with_two_folds():
    X, y = _linear_pairs(300, 3)
    groups = np.arange(y.size) % 3
    search = SVMCompareCV(param_grid=GRID, cv=GroupKFold(3)).fit(X, y, groups=groups)
    assert (search.cv_results_["n_pruned"] == 0).all()
    search = SVMCompareCV(param_grid=GRID, cv=GroupKFold(2), probability=True).fit(
        X, y, groups=np.arange(y.size) % 2)
    assert (search.cv_results_["n_pruned"] == 0).all()


def test_race_must_be_a_bool():
    X, y = _linear_pairs(60, 4)
    with pytest.raises(TypeError, match="race must be True or False"):
        SVMCompareCV(param_grid=GRID, race="yes").fit(X, y)


def test_the_progress_total_only_shrinks_as_the_race_drops_points(monkeypatch):
    import tqdm.auto

    totals = []

    class Recorder(tqdm.auto.tqdm):
        def refresh(self, *args, **kwargs):
            totals.append(self.total)
            return super().refresh(*args, **kwargs)

    monkeypatch.setattr(grid_search, "tqdm", Recorder)
    X, y = _linear_pairs(400, 0)
    search = _fit(X, y, True, progress=True)
    assert search.cv_results_["n_pruned"].max() > 0  # the race dropped something
    assert totals and totals[0] == 4 * 3  # four splits x three paths
    assert all(later <= earlier for earlier, later in zip(totals, totals[1:], strict=False))


def _noisy_linear_pairs(n, p, seed):
    """Three informative features among ``p``: a linear path overfits past
    moderate C."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, p))
    w = np.zeros(p)
    w[:3] = [1.5, -1.0, 0.5]
    d = (X[:, 1] - X[:, 0]) @ w + rng.logistic(scale=0.4, size=n)
    return X, np.where(d > 0.7, 1, np.where(d < -0.7, -1, 0))


LINEAR_PATH = [{"kernel": ["linear"], "C": [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]}]


def test_a_path_ends_on_the_first_fold_where_the_race_would_drop_the_rest(monkeypatch):
    # A margin small enough for this path's rise past C = 0.1 (the first
    # fold's in-fold log-loss 0.458, 0.418, 0.415, 0.418, 0.428 at
    # C = 1e-3..10; per-pair differences too noisy for any standard-error
    # multiple).
    monkeypatch.setattr(model_selection, "RACE_MARGIN", 0.005)
    monkeypatch.setattr(model_selection, "RACE_Z", 0.0)
    X, y = _noisy_linear_pairs(400, 50, 1)
    fitted = []
    path = grid_search._fit_path

    def spy(estimator, X, y, Cs, *args, **kwargs):
        models, prepared = path(estimator, X, y, Cs, *args, **kwargs)
        fitted.append(sorted(C for C, model in zip(Cs, models, strict=True) if model is not None))
        return models, prepared

    def fit():
        # C in no order: the path runs in increasing C all the same.
        shuffled = [{"kernel": ["linear"], "C": [10.0, 1e-3, 100.0, 0.1, 1.0, 1e-2]}]
        return SVMCompareCV(param_grid=shuffled, cv=GroupKFold(4), probability=True,
                            n_jobs=1).fit(X, y, groups=np.arange(y.size) % 4)

    monkeypatch.setattr(grid_search, "_fit_path", spy)
    ended = fit()
    first_fold = fitted[0]
    later_folds = fitted[1:]
    monkeypatch.setattr(model_selection._Race, "path_rule", lambda self, k: None)
    fitted.clear()
    full = fit()
    # The path stopped on the first fold before its largest C values...
    assert 0.1 in first_fold and first_fold[-1] < 100.0
    assert fitted[0] == LINEAR_PATH[0]["C"]
    kept_Cs = sorted(set(ended.cv_results_.loc[ended.cv_results_["n_pruned"] == 0, "C"]))
    assert len(later_folds) == 3 and later_folds[1] == later_folds[2] == kept_Cs
    assert set(kept_Cs) <= set(later_folds[0]) and max(later_folds[0]) <= first_fold[-1]
    results, reference = ended.cv_results_, full.cv_results_
    not_reached = results["C"] > first_fold[-1]
    assert results.loc[not_reached, "split0_log_loss"].isna().all()
    assert (results.loc[not_reached, "n_pruned"] == 4).all()
    # ... which the race without the rule dropped after that fold as well,
    assert (reference.loc[not_reached, "n_pruned"] == 3).all()
    # (the other folds fit the kept C values, the rule left to the first),
    # and every other point is scored as without the rule.
    assert (results["n_pruned"] > 0).tolist() == (reference["n_pruned"] > 0).tolist()
    columns = ["mean_error", "mean_auc", "mean_log_loss", "mean_brier", "split0_log_loss"]
    kept = ~not_reached
    np.testing.assert_allclose(results.loc[kept, columns].to_numpy(float),
                               reference.loc[kept, columns].to_numpy(float), rtol=1e-9)
    assert ended.best_params_ == full.best_params_


def test_a_path_end_needs_a_clear_loss_behind_an_earlier_point():
    rng = np.random.default_rng(0)
    y = np.repeat([-1, 0, 1], 100)
    split = (np.arange(0), np.arange(y.size))
    rule = model_selection._PathEnd(y, split, None, None)
    good = rng.uniform(0.3, 0.5, size=y.size)
    worse = good + 0.2 + rng.normal(scale=0.05, size=y.size)
    slightly = good + 0.01
    noisy = good + 0.04 + rng.normal(scale=2.0, size=y.size)
    start = good + 0.05  # a path that falls to ``good``...

    def ends(*trail):  # the points' scores as the path rule reads them
        return rule.ends([{"race_losses": losses, "degenerate": False} for losses in trail])

    assert ends(start, good, worse)  # ... and rises past it
    assert not ends(good, start, worse)  # it has not fallen yet
    assert not ends(start, worse, good)  # the newest point is the best
    assert not ends(start, good, slightly)  # within the race's margin
    assert not ends(start, good, noisy)  # behind by more, but not by RACE_Z errors
    assert not ends(start, good, None)  # a failed point ends nothing
    assert ends(None, start, None, good, worse)
    assert not ends(good, worse)
    assert ends(start, good, start, worse)  # judged against the best earlier point


def test_an_exact_kernel_path_ended_early_scores_its_points_as_before(monkeypatch):
    # Exact RBF paths (chained, one job): the first split's points are scored
    # from one validation block as they come; every score as without the rule.
    monkeypatch.setattr(model_selection, "RACE_MARGIN", 0.005)
    monkeypatch.setattr(model_selection, "RACE_Z", 0.0)
    X, y = make_norm_pairs(400, "l2", random_state=4)
    Cs = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
    grid = [{"kernel": ["rbf"], "gamma": [0.5, 2.0, 8.0], "C": Cs}]
    fitted, judged = [], []
    path, race = grid_search._fit_path, model_selection._Race.__call__

    def spy_path(estimator, X, y, Cs, *args, **kwargs):
        models, prepared = path(estimator, X, y, Cs, *args, **kwargs)
        fitted.append(sorted(C for C, model in zip(Cs, models, strict=True) if model is not None))
        return models, prepared

    def spy_race(self, points, done):
        keep = race(self, points, done)
        if len(done) == 1:  # the first fold's per-pair losses of every point
            judged.append([self._fold_losses(i, 0, done[0][i]) for i in range(len(points))])
        return keep

    monkeypatch.setattr(grid_search, "_fit_path", spy_path)
    monkeypatch.setattr(model_selection._Race, "__call__", spy_race)

    def fit():
        return SVMCompareCV(param_grid=grid, cv=GroupKFold(4), probability=True,
                            n_jobs=1).fit(X, y, groups=np.arange(y.size) % 4)

    ended = fit()
    first_split = fitted[:3]  # one path per gamma, first split first
    monkeypatch.setattr(model_selection._Race, "path_rule", lambda self, k: None)
    fitted.clear()
    full = fit()
    assert any(Cs_fitted != Cs for Cs_fitted in first_split)  # some path ended early
    assert all(Cs_fitted == Cs for Cs_fitted in fitted[:3])
    with_rule, without = judged
    both = [i for i, losses in enumerate(with_rule) if losses is not None]
    assert 0 < len(both) < len(with_rule)
    for i in both:
        np.testing.assert_allclose(with_rule[i], without[i], rtol=1e-12)
    results, reference = ended.cv_results_, full.cv_results_
    assert (results["n_pruned"] > 0).tolist() == (reference["n_pruned"] > 0).tolist()
    kept = results["n_pruned"] == 0
    np.testing.assert_allclose(results.loc[kept, "mean_log_loss"].to_numpy(float),
                               reference.loc[kept, "mean_log_loss"].to_numpy(float), rtol=1e-12)
    assert ended.best_params_ == full.best_params_


def test_a_path_rule_scores_failed_points_as_nothing_and_passes_over_degenerate_ones():
    y = np.repeat([-1, 0, 1], 20)
    split = (np.arange(0), np.arange(y.size))
    rule = model_selection._PathEnd(y, split, None, None)
    failed = {"held_out": None, "degenerate": False}
    assert rule.losses(failed) is None
    gap = y + np.random.default_rng(1).normal(scale=2.0, size=y.size)
    losses = rule.losses({"held_out": gap, "degenerate": True})  # counted or not, scored
    # The race's own per-pair losses: a constant ordered link fitted on the fold.
    np.testing.assert_array_equal(losses, model_selection._in_fold_losses(gap, y, split, None,
                                                                          None))
    assert losses.shape == (y.size,) and 0.3 < losses.mean() < np.log(3.0)

    def score(loss, degenerate=False):
        return {"race_losses": np.full(y.size, loss), "degenerate": degenerate}

    # Past its minimum, a point 0.2 behind ends the path ...
    assert rule.ends([score(0.5), score(0.4), score(0.6)])
    # ... a degenerate one does not, nor does it count as the path's best.
    assert not rule.ends([score(0.5), score(0.4), score(0.6, degenerate=True)])
    assert not rule.ends([score(0.5), score(0.1, degenerate=True), score(0.55)])
    assert not rule.ends([score(0.5), score(0.4), {"race_losses": None, "degenerate": False}])
