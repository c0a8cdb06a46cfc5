"""Model files: identical predictions after a round trip; foreign and stale files refused."""

import numpy as np
import pytest
import skops.io as sio

from svmcompare import (
    GroupRankSVM,
    SVMCompare,
    SVMCompareLP,
    SVMRank,
    SVMRank2,
    load_model,
    persistence,
    save_model,
)
from svmcompare.datasets import make_graded_blocks, make_norm_pairs


class Foreign:
    """A type from outside svmcompare: loading it could run its code."""


@pytest.mark.parametrize("model", [
    SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0),
    SVMCompare(kernel="linear"),
    SVMCompare(solver="nystroem", n_components=20, random_state=0),
    SVMRank2(C=1.0, gamma=0.5),
    SVMCompareLP(C=1.0, gamma=0.5),
])
def test_round_trip_gives_identical_predictions(model, tmp_path):
    X, y = make_norm_pairs(150, "l1", random_state=0)
    X_test, _ = make_norm_pairs(300, "l1", random_state=1)
    model.fit(X, y)
    save_model(model, tmp_path / "model.skops")
    loaded = load_model(tmp_path / "model.skops")
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(X_test), model.predict(X_test))
    np.testing.assert_array_equal(loaded.decision_function(X_test),
                                  model.decision_function(X_test))
    if getattr(model, "probability", False):
        np.testing.assert_array_equal(loaded.predict_proba(X_test), model.predict_proba(X_test))


def test_graded_item_models_round_trip(tmp_path):
    X, y, groups, _ = make_graded_blocks()
    model = GroupRankSVM().fit(X, y, groups)
    save_model(model, tmp_path / "rank.skops")
    np.testing.assert_array_equal(load_model(tmp_path / "rank.skops").rank(X), model.rank(X))


def test_foreign_stale_and_missing_files_are_refused(tmp_path, monkeypatch):
    sio.dump({"format": "svmcompare-model", "version": persistence._library_version(),
              "model": Foreign()}, tmp_path / "foreign.skops")
    with pytest.raises(ValueError, match="at root.model: type 'tests.test_persistence.Foreign' "
                                         "is not one svmcompare loads"):
        load_model(tmp_path / "foreign.skops")
    (tmp_path / "junk.skops").write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="not an svmcompare model file"):
        load_model(tmp_path / "junk.skops")
    sio.dump({"weights": np.ones(3)}, tmp_path / "other.skops")
    with pytest.raises(ValueError, match="not an svmcompare model file"):
        load_model(tmp_path / "other.skops")
    X, y = make_norm_pairs(60, "l2", random_state=2)
    monkeypatch.setattr(persistence, "_library_version", lambda: "0.0.9")
    save_model(SVMCompare().fit(X, y), tmp_path / "old.skops")
    monkeypatch.undo()
    with pytest.raises(ValueError, match="written by svmcompare 0.0.9"):
        load_model(tmp_path / "old.skops")
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "absent.skops")


def _named(model):
    return type(model).__name__ + "".join(
        f"-{k}={v}" for k, v in model.get_params().items()
        if k in ("kernel", "tie_band", "link", "probability") and v not in (False,))


@pytest.mark.parametrize("model", [
    SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0),
    SVMCompare(kernel="linear", probability=True, tie_band="pair", link="davidson",
               random_state=0),
    SVMCompare(kernel="poly", degree=2, solver="exact"),
    SVMRank(C=1.0, gamma=0.5, probability=True, random_state=0),
    SVMCompareLP(C=1.0, gamma=0.5),
], ids=_named)
def test_the_scoring_part_of_a_file_scores_as_the_estimator(tmp_path, model):
    from svmcompare.persistence import load_predictor

    X, y = make_norm_pairs(120, "l1", random_state=0)
    context = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], size=(120, 1))
    fit_context = None if isinstance(model, SVMCompareLP) else context
    model.fit(X, y, context=fit_context)
    path = tmp_path / "m.skops"
    save_model(model, path)
    predictor = load_predictor(path)
    full = load_model(path)  # skops still reads the file
    Xt, _ = make_norm_pairs(50, "l1", random_state=1)
    ct = None if fit_context is None else context[:50]
    np.testing.assert_allclose(predictor.decision_function(Xt, ct),
                               full.decision_function(Xt, ct), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(predictor.predict(Xt, ct), full.predict(Xt, ct))
    np.testing.assert_allclose(predictor.rank(Xt[:, 0]), full.rank(Xt[:, 0]), atol=1e-12)
    assert hasattr(predictor, "predict_proba") == hasattr(full, "predict_proba")
    if hasattr(full, "predict_proba"):
        np.testing.assert_allclose(predictor.predict_proba(Xt, ct), full.predict_proba(Xt, ct),
                                   atol=1e-12)
        np.testing.assert_array_equal(predictor.class_prior_, full.class_prior_)


def test_files_without_a_scoring_part_fall_back_to_the_estimator(tmp_path):
    from svmcompare.persistence import load_predictor

    X, y = make_norm_pairs(120, "l1", random_state=0)
    nystroem = SVMCompare(solver="nystroem", n_components=20, random_state=0).fit(X, y)
    save_model(nystroem, tmp_path / "n.skops")
    assert load_predictor(tmp_path / "n.skops") is None
    with pytest.raises(FileNotFoundError):
        load_predictor(tmp_path / "missing.skops")


def test_a_search_is_saved_with_its_results_and_scoring_part(tmp_path):
    from svmcompare import SVMCompareCV
    from svmcompare.persistence import load_predictor

    X, y = make_norm_pairs(100, "l1", random_state=0)
    model = SVMCompareCV(probability=True, cv=3,
                         param_grid={"kernel": ["linear"], "C": [0.1, 1.0]}).fit(X, y)
    save_model(model, tmp_path / "cv.skops")
    loaded = load_model(tmp_path / "cv.skops")
    assert list(loaded.cv_results_.columns) == list(model.cv_results_.columns)
    np.testing.assert_array_equal(loaded.cv_results_["mean_log_loss"],
                                  model.cv_results_["mean_log_loss"])
    assert loaded.best_params_ == model.best_params_
    X_test, _ = make_norm_pairs(50, "l1", random_state=1)
    np.testing.assert_array_equal(load_predictor(tmp_path / "cv.skops").predict_proba(X_test),
                                  model.predict_proba(X_test))


@pytest.mark.parametrize("kind", ["bootstrap", "exact polynomial map", "laplacian nystroem"])
def test_models_with_the_newly_checked_parts_round_trip(tmp_path, kind):
    """What load_model now checks (every kernel's code, a Nystroem map's
    kernel and shapes, a bootstrap's replicate scales, attribute names) holds
    for the files fits write."""
    from svmcompare import BootstrapCompare

    X, y = make_norm_pairs(120, "l1", random_state=0)
    model = {
        "bootstrap": BootstrapCompare(SVMCompare(solver="nystroem", n_components=8,
                                                 random_state=0),
                                      n_resamples=3, random_state=0, progress=False),
        "exact polynomial map": SVMCompare(kernel="poly", degree=2),  # solver auto
        "laplacian nystroem": SVMCompare(kernel="laplacian", solver="nystroem",
                                         n_components=15, random_state=0, probability=True),
    }[kind].fit(X, y)
    save_model(model, tmp_path / "model.skops")
    loaded = load_model(tmp_path / "model.skops")
    X_test, _ = make_norm_pairs(40, "l1", random_state=1)
    np.testing.assert_array_equal(loaded.decision_function(X_test),
                                  model.decision_function(X_test))
    if kind == "bootstrap":
        np.testing.assert_array_equal(loaded.rank_interval(X_test[:, 0])[1],
                                      model.rank_interval(X_test[:, 0])[1])
    if kind == "exact polynomial map":
        assert getattr(loaded.ranking_.feature_map, "exact", False)


def test_a_model_with_a_function_kernel_is_refused_before_writing(tmp_path):
    # An attack (stop 70): save_model wrote a file that load_model then always
    # refused ("FunctionNode ... not allowed"): model files hold no code.
    import warnings

    from svmcompare import BootstrapCompare

    X, y = make_norm_pairs(60, "l1", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SVMCompare(kernel=lambda a, b: a @ b.T).fit(X, y)
    with pytest.raises(TypeError, match="whose kernel is a function"):
        save_model(model, tmp_path / "m.skops")
    with pytest.raises(TypeError, match="whose estimator__kernel is a function"):
        save_model(BootstrapCompare(SVMCompare(kernel=lambda a, b: a @ b.T)),
                   tmp_path / "b.skops")
    assert not list(tmp_path.iterdir())


def test_save_model_refuses_what_load_model_would(tmp_path):
    # A review (stop 70): a function inside a search's param_grid, and
    # parameters set after the fit, were written and then refused at load
    # (the latter as "edited or mixed").
    import warnings

    from svmcompare import SVMCompareCV

    X, y = make_norm_pairs(60, "l1", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = SVMCompareCV(cv=3, param_grid={"kernel": [lambda a, b: a @ b.T],
                                                "C": [1.0]}).fit(X, y)
        moved = SVMCompare().fit(X, y).set_params(kernel="linear")
        negative = SVMCompare().fit(X, y).set_params(gamma=-1.0)
    with pytest.raises(TypeError, match="whose param_grid is a function"):
        save_model(search, tmp_path / "s.skops")
    with pytest.raises(ValueError, match=r"kernel parameter \(linear\) is not its fitted"):
        save_model(moved, tmp_path / "m.skops")
    with pytest.raises(ValueError, match="as set after its fit"):
        save_model(negative, tmp_path / "n.skops")
    assert not list(tmp_path.iterdir())
