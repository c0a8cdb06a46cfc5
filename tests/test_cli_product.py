"""The command line from CSV files: fit, predict, rank, evaluate; errors as one line."""

import numpy as np
import pandas as pd
import pytest

from svmcompare.cli import main
from svmcompare.datasets import make_norm_pairs


def write_wide(path, X, y=None):
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1],
                          "b_u": X[:, 1, 0], "b_v": X[:, 1, 1]})
    if y is not None:
        frame["y"] = y
    frame.to_csv(path, index=False)


def test_wide_layout_from_fit_to_evaluation(tmp_path, capsys):
    X, y = make_norm_pairs(200, "l1", random_state=0)
    X_test, y_test = make_norm_pairs(300, "l1", random_state=1)
    write_wide(tmp_path / "train.csv", X, y)
    write_wide(tmp_path / "test.csv", X_test, y_test)
    model = str(tmp_path / "model.skops")
    assert main(["fit", str(tmp_path / "train.csv"), "--model", model, "--C", "10",
                 "--gamma", "0.5", "--probability"]) == 0
    assert main(["predict", model, str(tmp_path / "test.csv"), "--proba",
                 "-o", str(tmp_path / "pred.csv")]) == 0
    pred = pd.read_csv(tmp_path / "pred.csv")
    assert set(pred["y_pred"]) <= {-1, 0, 1} and len(pred) == 300
    np.testing.assert_allclose(pred[["p_x_better", "p_tie", "p_xprime_better"]].sum(axis=1), 1)
    assert np.mean(pred["y_pred"] == y_test) > 0.7
    items = pd.DataFrame({"id": ["p", "q"], "u": [0.0, 2.0], "v": [0.0, 2.0]})
    items.to_csv(tmp_path / "items.csv", index=False)
    assert main(["rank", model, str(tmp_path / "items.csv"), "-o",
                 str(tmp_path / "ranks.csv")]) == 0
    ranks = pd.read_csv(tmp_path / "ranks.csv").set_index("id")["rank"]
    assert ranks["q"] > ranks["p"]  # the l1 pattern's r grows with |x|
    assert main(["evaluate", model, str(tmp_path / "test.csv"), "--plot",
                 str(tmp_path / "roc.png")]) == 0
    out = capsys.readouterr().out
    error = 100 * np.mean(pred["y_pred"] != y_test)
    assert f"zero-one error {error:.2f}%" in out and "comparison AUC" in out
    assert (tmp_path / "roc.png").stat().st_size > 1000


def test_ids_layout_and_grid(tmp_path, capsys):
    rng = np.random.default_rng(0)
    items = pd.DataFrame({"id": [f"i{k}" for k in range(40)], "u": rng.normal(size=40)})
    items.to_csv(tmp_path / "items.csv", index=False)
    a = rng.integers(0, 40, 300)
    b = (a + rng.integers(1, 40, 300)) % 40  # never an item against itself
    d = items["u"].to_numpy()[b] - items["u"].to_numpy()[a]
    y = np.where(d > 0.5, 1, np.where(d < -0.5, -1, 0))
    pd.DataFrame({"item_a": items["id"][a].to_numpy(), "item_b": items["id"][b].to_numpy(),
                  "y": y}).to_csv(tmp_path / "pairs.csv", index=False)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "pairs.csv"), "--items", str(tmp_path / "items.csv"),
                 "--model", model, "--kernel", "linear", "--grid", "--no-progress"]) == 0
    assert "chosen by 5-fold cross-validation" in capsys.readouterr().out
    assert main(["evaluate", model, str(tmp_path / "pairs.csv"), "--items",
                 str(tmp_path / "items.csv")]) == 0
    error = float(capsys.readouterr().out.split("zero-one error ")[1].split("%")[0])
    assert error < 10


@pytest.mark.parametrize("content, message", [
    ("a_u,b_u\n1,2\n", "no 'y' column"),
    ("a_u,b_u,y\n1,2,0\n1,x,1\n", "line 3, column b_u: 'x' is not a number"),
    ("a_u,b_u,y\n1,2,0\n1,3,2\n", "line 3, column y: 2 is not a label"),
    ("a_u,b_w,y\n1,2,0\n", "same features"),
    ("u,v,y\n1,2,0\n", "no a_<feature> columns"),
])
def test_bad_pairs_files_give_one_line(tmp_path, capsys, content, message):
    (tmp_path / "bad.csv").write_text(content)
    code = main(["fit", str(tmp_path / "bad.csv"), "--model", str(tmp_path / "m.skops")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_unreadable_and_incompatible_models_give_one_line(tmp_path, capsys):
    X, y = make_norm_pairs(60, "l1", random_state=0)
    write_wide(tmp_path / "pairs.csv", X, y)
    (tmp_path / "junk.skops").write_text("junk")
    assert main(["predict", str(tmp_path / "junk.skops"), str(tmp_path / "pairs.csv"),
                 "-o", str(tmp_path / "o.csv")]) == 2
    assert "not an svmcompare model file" in capsys.readouterr().err
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "pairs.csv"), "--model", model]) == 0
    pd.DataFrame({"a_u": [1.0], "b_u": [2.0]}).to_csv(tmp_path / "one.csv", index=False)
    capsys.readouterr()
    assert main(["predict", model, str(tmp_path / "one.csv"), "-o",
                 str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "feature" in err and err.count("\n") == 1
    assert main(["predict", model, str(tmp_path / "pairs.csv"), "--proba", "-o",
                 str(tmp_path / "o.csv")]) == 2
    assert "without --probability" in capsys.readouterr().err


def test_letor_files_of_graded_items(tmp_path):
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor
    from svmcompare.metrics import kendall_tau_per_group

    X, y, groups, _ = make_graded_blocks()
    dump_letor(X, y, groups, tmp_path / "items.svmlight")
    model = str(tmp_path / "m.skops")
    # Pairs inside each query, equal grades as ties; a linear SVMCompare on them.
    assert main(["fit", str(tmp_path / "items.svmlight"), "--model", model, "--kernel",
                 "linear", "--C", "10"]) == 0
    assert main(["rank", model, str(tmp_path / "items.svmlight"), "-o",
                 str(tmp_path / "r.csv")]) == 0
    scores = pd.read_csv(tmp_path / "r.csv")["rank"].to_numpy()
    assert kendall_tau_per_group(y, scores, groups)[0] > 0.7
    (tmp_path / "bad.svmlight").write_text("1 qid:1 1:0.5\nnonsense here\n")
    assert main(["fit", str(tmp_path / "bad.svmlight"), "--model", model]) == 2
