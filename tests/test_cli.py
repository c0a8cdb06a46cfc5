import numpy as np
import pandas as pd

from svmcompare.cli import main


def test_demo_writes_outputs_and_prints_errors(tmp_path, capsys):
    code = main(["demo", "--out", str(tmp_path), "--n-pairs", "40", "--n-test", "300",
                 "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    for name in ("rank", "rank2", "compare", "truth"):
        assert name in out
    assert (tmp_path / "figure3.png").stat().st_size > 10_000
    errors = pd.read_csv(tmp_path / "errors.csv")
    test = errors[errors["set"] == "test"].set_index("model")
    assert set(test.index) == {"rank", "rank2", "compare", "truth"}
    # The split adds up, and counts match the set size.
    parts = test[["false_positive", "false_negative", "inversion"]].sum(axis=1)
    np.testing.assert_allclose(parts / 300 * 100, test["error_percent"])
    levels = pd.read_csv(tmp_path / "level_curves.csv")
    assert set(levels["model"]) == {"latent", "rank", "rank2", "compare"}


def test_bad_argument_is_a_message_not_a_traceback(capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        main(["demo", "--n-pairs", "0"])
    assert exc.value.code == 2
    assert "must be a positive integer" in capsys.readouterr().err
