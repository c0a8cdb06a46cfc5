"""The product apart from the research code: importing the package and running
the product commands loads neither matplotlib nor svmcompare.experiments."""

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd

from svmcompare.datasets import make_norm_pairs

CHECK = textwrap.dedent("""
    import sys
    import svmcompare
    heavy = [m for m in ("sklearn", "numba", "pandas", "matplotlib") if m in sys.modules]
    assert not heavy, f"import svmcompare loaded {heavy}"
    from svmcompare.cli import main
    for argv in ({commands}):
        assert main(argv) == 0, argv
    loaded = [m for m in sys.modules
              if m.split(".")[0] == "matplotlib" or m.startswith("svmcompare.experiments")]
    assert not loaded, loaded
    print("ok")
""")


def test_product_commands_do_not_load_research_code_or_matplotlib(tmp_path):
    X, y = make_norm_pairs(60, "l1", random_state=0)
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1], "y": y})
    frame.to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"id": [1, 2], "u": [0.0, 1.0], "v": [1.0, 0.0]}).to_csv(
        tmp_path / "items.csv", index=False)
    model, pairs = str(tmp_path / "m.skops"), str(tmp_path / "p.csv")
    commands = [["fit", pairs, "--model", model, "--probability"],
                ["predict", model, pairs, "--proba", "-o", str(tmp_path / "o.csv")],
                ["evaluate", model, pairs],
                ["rank", model, str(tmp_path / "items.csv"), "-o", str(tmp_path / "r.csv")]]
    result = subprocess.run([sys.executable, "-c", CHECK.replace("{commands}", repr(commands))],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith("ok")
    assert np.isfinite(pd.read_csv(tmp_path / "o.csv")["rank_difference"]).all()


def test_the_command_lines_figure_list_is_the_experiments():
    from svmcompare.cli.research import FIGURES
    from svmcompare.experiments import reproduce

    assert set(FIGURES) == set(reproduce.STEPS) and len(FIGURES) == len(reproduce.STEPS)


PREDICT_ONLY = textwrap.dedent("""
    import sys
    from svmcompare.cli import main
    assert main({argv}) == 0
    heavy = [m for m in ("sklearn", "skops", "numba", "scipy.optimize") if m in sys.modules]
    assert not heavy, f"svmcompare predict loaded {{heavy}}"
    print("ok")
""")


def test_predict_reads_the_file_s_scoring_part_without_sklearn_or_skops(tmp_path):
    # Issue 15: 'svmcompare predict' took 2.0-2.4 s, most of it importing
    # scikit-learn and skops to rebuild the estimator.
    from svmcompare.cli import main

    X, y = make_norm_pairs(80, "l1", random_state=0)
    pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                  "b_v": X[:, 1, 1], "y": y}).to_csv(tmp_path / "p.csv", index=False)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "p.csv"), "--model", model, "--probability"]) == 0
    argv = ["predict", model, str(tmp_path / "p.csv"), "--proba", "-o", str(tmp_path / "o.csv")]
    result = subprocess.run([sys.executable, "-c", PREDICT_ONLY.format(argv=repr(argv))],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert np.all(pd.read_csv(tmp_path / "o.csv")["y_pred"].isin([-1, 0, 1]))
