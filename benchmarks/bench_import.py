"""Start-up cost of the product: import, --help and a 10-pair predict.

Each command runs in a fresh process (median of --repeats); the predict runs
after one warm-up call, so numba's cache is compiled and only loading counts.

Usage: python benchmarks/bench_import.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(argv, repeats):
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    cli = [sys.executable, "-m", "svmcompare.cli"]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        pairs, model = folder / "pairs.csv", folder / "m.skops"
        setup = (
            "import pandas as pd\n"
            "from svmcompare import SVMCompare, save_model\n"
            "from svmcompare.datasets import make_norm_pairs\n"
            "X, y = make_norm_pairs(10, 'l1', random_state=0)\n"
            "pd.DataFrame({'a_u': X[:, 0, 0], 'a_v': X[:, 0, 1], 'b_u': X[:, 1, 0],"
            f" 'b_v': X[:, 1, 1]}}).to_csv(r'{pairs}', index=False)\n"
            f"save_model(SVMCompare().fit(*make_norm_pairs(100, 'l1', random_state=1)), "
            f"r'{model}')\n"
        )
        subprocess.run([sys.executable, "-c", setup], check=True)
        predict = [*cli, "predict", str(model), str(pairs), "-o",
                   str(folder / "out.csv")]
        subprocess.run(predict, check=True, capture_output=True)  # warm numba's cache
        rows = [("python -c 'import svmcompare'", [sys.executable, "-c", "import svmcompare"],
                 0.3),
                ("svmcompare --help", [*cli, "--help"], 0.5),
                ("svmcompare predict (10 pairs)", predict, 1.0),
                ("python -c pass (interpreter alone)", [sys.executable, "-c", "pass"], None)]
        print(f"{'command':<38} {'median s':>9} {'target s':>9}")
        for name, command, target in rows:
            seconds = timed(command, args.repeats)
            print(f"{name:<38} {seconds:>9.3f} {target if target else '-':>9}")


if __name__ == "__main__":
    main()
