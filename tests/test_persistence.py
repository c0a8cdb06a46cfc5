"""Model files: identical predictions after a round trip; foreign and stale files refused."""

import numpy as np
import pytest
import skops.io as sio

from svmcompare import (
    GroupRankSVM,
    SVMCompare,
    SVMCompareLP,
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
    sio.dump({"format": "svmcompare-model", "version": "0.1.0", "model": Foreign()},
             tmp_path / "foreign.skops")
    with pytest.raises(ValueError, match="does not trust.*Foreign"):
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
