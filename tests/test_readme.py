"""The README's examples run as written and say what they print (issue 17)."""

import re
import shlex
from pathlib import Path

import numpy as np

from svmcompare.metrics import outcome_log_loss

README = Path(__file__).resolve().parents[1] / "README.md"


def _block(after, language):
    text = README.read_text(encoding="utf-8")
    start = text.index(after)
    match = re.search(rf"```{language}\n(.*?)```", text[start:], re.S)
    return match.group(1)


def test_the_real_data_example_runs_in_ten_lines_and_beats_the_frequencies():
    code = _block("## Real data with ties", "python")
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own README
    proba, data, past = scope["proba"], scope["data"], scope["past"]
    assert proba.shape == ((~past).sum(), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    y_test, y_train = data.y[~past], data.y[past]
    frequencies = np.tile(np.bincount(y_train + 1, minlength=3) / y_train.size,
                          (y_test.size, 1))
    ours = outcome_log_loss(y_test, proba)
    assert ours < outcome_log_loss(y_test, frequencies) - 0.03
    # The number the README quotes.
    assert f"log-loss is {ours:.3f}" in README.read_text(encoding="utf-8")
    assert scope["model"].best_estimator_.context_coef_[0] > 0  # home advantage


def test_the_command_line_walk_through_runs(tmp_path, monkeypatch, capsys):
    from svmcompare.cli import main

    monkeypatch.chdir(tmp_path)
    commands = _block("The same from the command line alone", "bash")
    commands = commands.replace("\\\n", " ")
    for line in commands.splitlines():
        line = shlex.split(line.split("#")[0])
        if not line:
            continue
        assert line[0] == "svmcompare"
        assert main([*line[1:], "--no-progress"] if line[1] == "fit" else line[1:]) == 0
    predictions = np.genfromtxt(tmp_path / "predictions.csv", delimiter=",", names=True,
                                dtype=None, encoding="utf-8")
    assert {"home", "away", "p_tie"} <= set(predictions.dtype.names)


def test_the_intervals_walk_through_runs(tmp_path, monkeypatch):
    """The README's bootstrap and leaderboard commands (20 resamples, not 200)."""
    import pandas as pd

    from svmcompare.cli import main

    monkeypatch.chdir(tmp_path)
    commands = _block("## Intervals, time and a leaderboard", "bash").replace("\\\n", " ")
    assert "--bootstrap 200" in commands
    for line in commands.replace("--bootstrap 200", "--bootstrap 20").splitlines():
        line = shlex.split(line.split("#")[0])
        assert line[0] == "svmcompare"
        assert main([*line[1:], "--no-progress"] if line[1] == "fit" else line[1:]) == 0
    board = pd.read_csv(tmp_path / "board.csv")
    assert len(board) == 16 and board["games"].sum() == 2 * 960
    assert (board["score_lower"] <= board["score_upper"]).all()
    assert (tmp_path / "board.png").stat().st_size > 10_000
    assert "p_tie_upper" in pd.read_csv(tmp_path / "predictions.csv").columns
    assert pd.read_csv(tmp_path / "paths.csv", index_col="season").shape == (3, 16)
    assert len(pd.read_csv(tmp_path / "replay.csv")) == 3 * 240  # seasons 2-4 predicted


def test_the_module_table_lists_the_modules_as_they_are():
    # Issue 34: the README's table of the package names every module of
    # src/svmcompare (files and subpackages) and no module that is not there.
    src = Path(__file__).resolve().parents[1] / "src" / "svmcompare"
    modules = {p.stem for p in src.glob("*.py") if p.stem != "__init__"}
    modules |= {p.name for p in src.iterdir() if (p / "__init__.py").is_file()}
    text = README.read_text()
    table = text[text.index("## What is in the package"):]
    table = table[:table.index("\n\n", table.index("| module |"))]
    listed = set()
    for line in table.splitlines()[2:]:
        first = line.split("|")[1] if line.startswith("|") else ""
        listed |= set(re.findall(r"`([\w.]+)`", first))
    listed.discard("module")
    assert listed == modules, (
        f"missing from the table: {sorted(modules - listed)}; "
        f"not modules: {sorted(listed - modules)}")
