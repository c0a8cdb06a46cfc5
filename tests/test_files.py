"""Files as users have them: spreadsheet CSV variants, bad cells, foreign and
truncated model files, SVMlight files with and without qid (issue 14's attack)."""

import re

import numpy as np
import pandas as pd
import pytest

import svmcompare
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
    with pytest.raises(ValueError, match=r"p.csv, line 5, column b_v: empty or missing cell"):
        read_pairs(tmp_path / "p.csv")


@pytest.mark.parametrize("cell, shown", [("nan", "empty or missing cell"),
                                         ("NA", "empty or missing cell"),
                                         # (some pandas versions keep 1e999 as text)
                                         ("1e999", "(infinite, or past double precision"
                                                   "|'1e999' is not finite)"),
                                         ("-inf", "infinite, or past double precision")])
def test_missing_and_infinite_cells_are_named_by_kind(tmp_path, cell, shown):
    # An attack (stop 70): a "nan" cell was called empty, and 1e999 was
    # quoted as 'inf', a value the file does not hold.
    frame = FRAME.astype(object)
    frame.loc[3, "b_v"] = cell
    frame.to_csv(tmp_path / "p.csv", index=False)
    with pytest.raises(ValueError, match=rf"p.csv, line 5, column b_v: {shown}"):
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
    sio.dump({"format": "svmcompare-model", "version": svmcompare.__version__,
              "model": {"a": 1}}, tmp_path / "dict.skops")
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


def _sklearn_letor(path, n_features=None):
    """The reference: scikit-learn's SVMlight reader, as load_letor returns it."""
    from sklearn.datasets import load_svmlight_file

    Xs, y, qid = load_svmlight_file(str(path), n_features=n_features, query_id=True)
    return Xs.toarray(), y, qid if qid.size else np.zeros(Xs.shape[0], dtype=np.int64)


def _letor_lines(rng, n=300, p=7, qid=True, sparse=False, zero_based=False):
    values = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-8, 8, size=(n, p))
    lines = []
    for k in range(n):
        keep = np.flatnonzero(rng.random(p) < 0.6) if sparse else np.arange(p)
        tokens = [str(int(rng.integers(0, 5)))] + ([f"qid:{k // 20 + 3}"] if qid else [])
        tokens += [f"{j + (0 if zero_based else 1)}:{float(values[k, j])!r}" for j in keep]
        lines.append(" ".join(tokens))
    return lines


@pytest.mark.parametrize("batch", [100_000, 7])  # the whole file at once, or 7 lines at a time
@pytest.mark.parametrize("case", ["dense", "sparse", "no_qid", "zero_based", "zero_late",
                                  "comments", "n_features", "nan_value", "tabs_crlf"])
def test_letor_reader_equals_scikit_learns_to_the_bit(tmp_path, monkeypatch, case, batch):
    from svmcompare import io
    from svmcompare.io import _parse_letor

    monkeypatch.setattr(io, "_LETOR_BATCH", batch)
    rng = np.random.default_rng(len(case))
    lines = _letor_lines(rng, qid=case != "no_qid", sparse=case in ("sparse", "comments"),
                         zero_based=case == "zero_based")
    if case == "zero_late":  # feature number 0 on the last line only: all of it zero-based
        lines[-1] = lines[-1].replace(" 1:", " 0:0.5 1:", 1)
    if case == "comments":  # a first batch of comments alone, then comments at line ends
        lines = ["# a header: with colons"] * 9 + [f"{line} # doc:{k}"
                                                   for k, line in enumerate(lines)]
    if case == "nan_value":
        lines[5] = re.sub(r" 2:\S+", " 2:nan", lines[5])
    text = "\n".join(lines) + "\n"
    if case == "tabs_crlf":
        text = text.replace(" ", "\t").replace("\n", "\r\n")
    path = tmp_path / "items.letor"
    path.write_text(text)
    n_features = 12 if case == "n_features" else None
    got = load_letor(path, n_features=n_features)
    expected = _sklearn_letor(path, n_features)
    for mine, theirs in zip(got, expected, strict=True):
        np.testing.assert_array_equal(mine, theirs)
        assert mine.dtype == theirs.dtype
    # The fast table reader took every case but NaN values (left to scikit-learn).
    assert (_parse_letor(path, n_features) is None) == (case == "nan_value")


@pytest.mark.parametrize("text, message", [
    ("1 qid:1 2:0.5 1:0.3\n", "sorted"),                  # feature numbers not increasing
    ("1 qid:1 1:0.5 junk\n", "not a valid SVMlight"),
    ("1 qid:x 1:0.5\n", "not a valid SVMlight"),
])
def test_letor_files_the_table_reader_refuses_get_scikit_learns_message(tmp_path, text,
                                                                        message):
    from svmcompare.io import _parse_letor

    (tmp_path / "bad.letor").write_text(text)
    assert _parse_letor(tmp_path / "bad.letor") is None
    with pytest.raises(ValueError, match=message):
        load_letor(tmp_path / "bad.letor")


def test_a_line_without_qid_in_a_later_batch_is_named(tmp_path, monkeypatch):
    from svmcompare import io

    monkeypatch.setattr(io, "_LETOR_BATCH", 2)
    (tmp_path / "late.letor").write_text("2 qid:1 1:0.5\n1 qid:1 1:0.2\n0 1:0.1\n")
    with pytest.raises(ValueError, match=r"late.letor, line 3: no qid:"):
        load_letor(tmp_path / "late.letor")


def test_letor_lines_ended_by_a_lone_carriage_return_are_read_as_lines(tmp_path):
    from svmcompare.io import _letor_batch

    lines = [f"{k % 3} qid:{k // 4} 1:{k / 7!r} 2:{k / 9!r}" for k in range(40)]
    (tmp_path / "mac.letor").write_bytes("\r".join(lines).encode() + b"\r")
    (tmp_path / "unix.letor").write_text("\n".join(lines) + "\n")
    for mine, unix in zip(load_letor(tmp_path / "mac.letor"), load_letor(tmp_path / "unix.letor"),
                          strict=True):
        np.testing.assert_array_equal(mine, unix)
    # The table is as wide as one line's features, not the whole file's.
    block = _letor_batch([(tmp_path / "mac.letor").read_bytes()])[2][0]
    assert block.shape == (40, 3)


def test_too_few_features_for_the_file_is_refused(tmp_path):
    (tmp_path / "wide.letor").write_text("1 qid:1 1:0.5 9:0.3\n0 qid:1 1:0.1\n")
    with pytest.raises(ValueError, match="n_features"):
        load_letor(tmp_path / "wide.letor", n_features=4)


def test_a_trailing_delimiter_does_not_shift_the_columns(tmp_path):
    # One more (empty) field on the first data row than in the header made
    # pandas read the first column as the index: every name moved one column
    # right, ids replaced and predictions made on the wrong features.
    from svmcompare.io import read_table

    (tmp_path / "ok.csv").write_text("id,x,y\n007,1.5,1\n008,2.5,-1\n")
    (tmp_path / "first.csv").write_text("id,x,y\n007,1.5,1,\n008,2.5,-1\n")
    (tmp_path / "every.csv").write_text("id,x,y\n007,1.5,1,\n008,2.5,-1,\n")
    text = lambda column: column != "id"  # noqa: E731
    expected = read_table(tmp_path / "ok.csv", numeric=text)
    for name in ("first.csv", "every.csv"):
        pd.testing.assert_frame_equal(read_table(tmp_path / name, numeric=text), expected)
    (tmp_path / "extra.csv").write_text("id,x,y\n007,1.5,1,9\n008,2.5,-1\n")
    with pytest.raises(ValueError, match=r"extra.csv, line 2: 4 fields where the header "
                                         r"names 3 columns \(an extra value '9'\)"):
        read_table(tmp_path / "extra.csv")


def test_a_qid_beyond_64_bits_is_named(tmp_path):
    # OverflowError ("Python int too large to convert to C long") as a traceback.
    (tmp_path / "q.letor").write_text("1 qid:99999999999999999999 1:0.5 2:1.0\n"
                                      "0 qid:99999999999999999999 1:0.2 2:0.1\n")
    with pytest.raises(ValueError, match="too large for a 64-bit integer"):
        load_letor(tmp_path / "q.letor")


def test_letor_qids_that_are_not_integers_are_refused(tmp_path):
    # An attack (stop 70): the table reader cast qid:1.5 to 1, merging two queries.
    from svmcompare.io import load_letor

    (tmp_path / "q.letor").write_text("2 qid:1.5 1:0.5\n1 qid:1 1:0.1\n")
    with pytest.raises(ValueError, match="not a valid SVMlight/LETOR file"):
        load_letor(tmp_path / "q.letor")


def test_a_letor_feature_number_past_memory_is_refused_before_allocating(tmp_path,
                                                                        monkeypatch):
    # An attack (stop 70): three lines naming feature 1,000,000,000 asked for 22 GB.
    import svmcompare._validation as validation
    from svmcompare.io import load_letor

    monkeypatch.setattr(validation, "available_memory", lambda: 2**30)
    (tmp_path / "wide.letor").write_text("2 qid:1 1:0.5 1000000000:1\n1 qid:1 1:0.1\n")
    with pytest.raises(ValueError, match="largest feature number 1000000000.*would take"):
        load_letor(tmp_path / "wide.letor")
    # Batches that fit one by one, a whole file that does not (checked on the
    # assembled matrix too).
    import svmcompare.io as io

    monkeypatch.setattr(io, "_LETOR_BATCH", 2)
    monkeypatch.setattr(validation, "available_memory", lambda: 80)  # a batch: 48 bytes
    (tmp_path / "long.letor").write_text("".join(f"{k % 3} qid:1 1:0.5 2:0.1\n"
                                                 for k in range(6)))
    with pytest.raises(ValueError, match=r"\(6 lines x 2 columns"):
        load_letor(tmp_path / "long.letor")
    monkeypatch.setattr(validation, "available_memory", lambda: 2**30)
    # A NaN value sends the file to scikit-learn's reader: checked there too.
    (tmp_path / "nan.letor").write_text("2 qid:1 1:nan 1000000000:1\n1 qid:1 1:0.1\n")
    with pytest.raises(ValueError, match="largest feature number"):
        load_letor(tmp_path / "nan.letor")
