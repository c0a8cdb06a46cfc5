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
