"""Distributed model selection on a Dask LocalCluster (loopback): same results as local."""

import joblib
import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

from svmcompare import SVMCompareCV  # noqa: E402
from svmcompare.cli import main  # noqa: E402
from svmcompare.datasets import make_norm_pairs  # noqa: E402
from svmcompare.persistence import load_model  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as local:
        yield local


def test_grid_search_on_dask_equals_local(cluster, tmp_path, capsys):
    X, y = make_norm_pairs(150, "l1", random_state=0)
    grid = {"param_grid": {"gamma": [0.5, 1.0], "C": [0.1, 1.0, 10.0]}}
    local = SVMCompareCV(n_jobs=2, **grid).fit(X, y)
    with distributed.Client(cluster) as _, joblib.parallel_backend("dask"):
        remote = SVMCompareCV(n_jobs=2, **grid).fit(X, y)
    assert remote.best_params_ == local.best_params_
    pd.testing.assert_frame_equal(remote.cv_results_, local.cv_results_)
    np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))
    # The same from the command line.
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1], "y": y})
    frame.to_csv(tmp_path / "pairs.csv", index=False)
    args = ["fit", str(tmp_path / "pairs.csv"), "--grid", "--no-progress", "--model"]
    assert main(args + [str(tmp_path / "local.skops")]) == 0
    assert main(args + [str(tmp_path / "dask.skops"), "--backend", "dask", "--scheduler",
                        cluster.scheduler_address]) == 0
    assert "Dask cluster" in capsys.readouterr().out
    np.testing.assert_array_equal(load_model(tmp_path / "dask.skops").decision_function(X),
                                  load_model(tmp_path / "local.skops").decision_function(X))
    assert main(args + [str(tmp_path / "x.skops"), "--backend", "dask"]) == 2
    assert "--scheduler" in capsys.readouterr().err
