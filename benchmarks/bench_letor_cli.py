"""The command line on a large LETOR file: fit, evaluate, predict.

A file of --items graded items (queries of 100, 5 grades, --features
features) is written to a temporary folder.  Ours: the commands as a user
runs them (``svmcompare fit --kernel linear`` trains on every within-query
pair without forming them; ``evaluate`` and ``predict`` form the pairs
100,000 at a time).  Peer in the same run: the same work with every pair
formed at once (``pairwise_transform``, then SVMCompare(kernel="linear") on
the pairs; the evaluation and predictions on the formed pairs), each in a
fresh process.  Wall time and peak RSS (the child's ``ru_maxrss``).

Usage: python benchmarks/bench_letor_cli.py [--items 200000] [--features 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

_FORMED_FIT = """
import sys
from svmcompare import SVMCompare, save_model
from svmcompare.io import load_letor
from svmcompare.pairs import pairwise_transform
Z, grades, qid = load_letor(sys.argv[1])
X, y = pairwise_transform(Z, grades, qid, ties="keep")
save_model(SVMCompare(kernel="linear", random_state=0).fit(X, y), sys.argv[2])
"""

_FORMED_EVALUATE = """
import sys
from svmcompare import load_model
from svmcompare.io import load_letor
from svmcompare.metrics import comparison_report
from svmcompare.pairs import pairwise_transform
model = load_model(sys.argv[2])
Z, grades, qid = load_letor(sys.argv[1])
X, y = pairwise_transform(Z, grades, qid, ties="keep")
print(comparison_report(y, model.decision_function(X), model.threshold_)["error_rate"])
"""

_FORMED_PREDICT = """
import sys
import pandas as pd
from svmcompare import load_model
from svmcompare.io import load_letor
from svmcompare.pairs import pair_indices, pairwise_transform
model = load_model(sys.argv[2])
Z, grades, qid = load_letor(sys.argv[1])
X, _ = pairwise_transform(Z, grades, qid, ties="keep")
first, second, _ = pair_indices(grades, qid, "keep")
pd.DataFrame({"qid": qid[first], "item_a": first, "item_b": second,
              "y_pred": model.predict(X), "rank_difference": model.decision_function(X)}
             ).to_csv(sys.argv[3], index=False)
"""


def _run(argv):
    """(seconds, peak RSS in MB) of a fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise RuntimeError(f"{argv[:4]} failed with status {status}")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=20)
    args = parser.parse_args(argv)
    from svmcompare.io import dump_letor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.items, args.features))
    w = rng.normal(size=args.features)
    score = X @ w + rng.normal(size=args.items)
    grades = np.digitize(score, np.quantile(score, [0.2, 0.4, 0.6, 0.8]))
    groups = np.arange(args.items) // 100
    cli = [sys.executable, "-m", "svmcompare.cli"]
    py = [sys.executable, "-c"]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        data, ours, formed = folder / "items.letor", folder / "ours.skops", folder / "f.skops"
        dump_letor(X, grades, groups, data)
        n_pairs = int(sum(c * (c - 1) // 2 for c in np.bincount(groups)))
        rows = [
            ("fit", _run([*cli, "fit", str(data), "--kernel", "linear", "--model", str(ours),
                          "--no-progress"]),
             _run([*py, _FORMED_FIT, str(data), str(formed)])),
            ("evaluate", _run([*cli, "evaluate", str(ours), str(data)]),
             _run([*py, _FORMED_EVALUATE, str(data), str(ours)])),
            ("predict", _run([*cli, "predict", str(ours), str(data), "-o",
                              str(folder / "p.csv")]),
             _run([*py, _FORMED_PREDICT, str(data), str(ours), str(folder / "q.csv")])),
        ]
        same = (folder / "p.csv").read_bytes() == (folder / "q.csv").read_bytes()
    print(f"{args.items} items x {args.features} features in {args.items // 100} queries, "
          f"{n_pairs} pairs; predictions identical: {same}")
    print(f"{'command':<10} {'ours s':>8} {'ours MB':>9} {'formed s':>9} {'formed MB':>10} "
          f"{'time ratio':>11} {'mem ratio':>10}")
    for name, (ours_s, ours_mb), (peer_s, peer_mb) in rows:
        print(f"{name:<10} {ours_s:>8.1f} {ours_mb:>9.0f} {peer_s:>9.1f} {peer_mb:>10.0f} "
              f"{peer_s / ours_s:>10.1f}x {peer_mb / ours_mb:>9.1f}x")


if __name__ == "__main__":
    main()
