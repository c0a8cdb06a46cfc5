"""Files as users have them: spreadsheet CSV variants, bad cells, foreign and
truncated model files, SVMlight files with and without qid (issue 14's attack)."""

import numpy as np
import pandas as pd
import pytest

from svmcompare import GroupRankSVM, SVMCompare, load_model, save_model
from svmcompare.cli import main
from svmcompare.datasets import make_norm_pairs
from svmcompare.io import load_letor, read_pairs

X, Y = make_norm_pairs(40, "l1", random_state=0)
FRAME = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                      "b_v": X[:, 1, 1], "y": Y})


@pytest.mark.parametrize("write", [
    lambda p: p.write_text(FRAME.to_csv(index=False), encoding="utf-8-sig"),   # Excel's BOM
    lambda p: p.write_bytes(FRAME.to_csv(index=False, lineterminator="\r\n").encode()),
    lambda p: FRAME.to_csv(p, index=False, sep=";"),                         # many locales
    lambda p: FRAME.to_csv(p, index=False, sep="\t"),
], ids=["bom", "crlf", "semicolon", "tab"])
def test_spreadsheet_csv_variants_read_the_same_pairs(tmp_path, write):
    path = tmp_path / "pairs.csv"
    write(path)
    Xr, yr, features = read_pairs(path)
    np.testing.assert_array_equal(Xr, X)
    np.testing.assert_array_equal(yr, Y)
    assert features == ["u", "v"]


def test_empty_cell_is_named_as_such(tmp_path):
    frame = FRAME.copy()
    frame.loc[3, "b_v"] = np.nan
    frame.to_csv(tmp_path / "p.csv", index=False)
    with pytest.raises(ValueError, match=r"p.csv, line 5, column b_v: empty cell"):
        read_pairs(tmp_path / "p.csv")


def test_a_huge_mismatched_header_gives_a_short_message(tmp_path):
    (tmp_path / "wide.csv").write_text(",".join(f"a_f{i}" for i in range(100_000)) + ",y\n")
    with pytest.raises(ValueError) as info:
        read_pairs(tmp_path / "wide.csv")
    assert "and 99995 more" in str(info.value) and len(str(info.value)) < 300


def test_svmlight_without_qid_is_one_query(tmp_path):
    (tmp_path / "plain.svmlight").write_text("2 1:0.5 2:0.1\n1 1:0.2 2:0.3\n0 1:0.1 2:0.9\n")
    Z, grades, groups = load_letor(tmp_path / "plain.svmlight")
    assert Z.shape == (3, 2) and np.all(groups == groups[0])
    Xp, yp, _ = read_pairs(tmp_path / "plain.svmlight")
    assert Xp.shape == (3, 2, 2) and set(yp) <= {-1, 1}


def test_svmlight_with_some_qids_missing_names_the_line(tmp_path):
    (tmp_path / "mixed.letor").write_text("2 qid:1 1:0.5\n# a comment\n1 1:0.2\n0 qid:1 1:0.1\n")
    with pytest.raises(ValueError, match=r"mixed.letor, line 3: no qid:"):
        load_letor(tmp_path / "mixed.letor")


def test_model_files_that_are_not_pair_models_are_refused_with_the_right_command(tmp_path,
                                                                                   capsys):
    import skops.io as sio

    FRAME.to_csv(tmp_path / "pairs.csv", index=False)
    sio.dump({"format": "svmcompare-model", "version": "0.1.0", "model": {"a": 1}},
             tmp_path / "dict.skops")
    with pytest.raises(ValueError, match="holds a dict, not a fitted svmcompare estimator"):
        load_model(tmp_path / "dict.skops")
    with pytest.raises(TypeError, match="save_model writes svmcompare estimators"):
        save_model({"a": 1}, tmp_path / "x.skops")
    rng = np.random.default_rng(0)
    save_model(GroupRankSVM().fit(rng.normal(size=(30, 2)), np.arange(30) % 3, np.arange(30) // 10),
               tmp_path / "graded.skops")
    for name in ("dict", "graded"):
        code = main(["predict", str(tmp_path / f"{name}.skops"), str(tmp_path / "pairs.csv"),
                     "-o", str(tmp_path / "out.csv")])
        assert code == 2
    err = capsys.readouterr().err
    assert "holds a GroupRankSVM, which scores graded items" in err and "svmcompare rank" in err
    assert "Traceback" not in err


def test_truncated_model_file_is_refused(tmp_path):
    save_model(SVMCompare().fit(X, Y), tmp_path / "m.skops")
    data = (tmp_path / "m.skops").read_bytes()
    (tmp_path / "cut.skops").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not an svmcompare model file"):
        load_model(tmp_path / "cut.skops")
