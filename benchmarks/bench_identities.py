"""Identities-only comparisons (players, teams): sparse pairs against the dense
one-hot pairs of earlier releases, in the same run.

Each configuration fits ``SVMCompare(kernel="linear")`` in a fresh process on
simulated games (Davidson-style draws: a draw when the strength difference
plus logistic noise is small) and reports the fit's wall time and the
process's peak memory; the command-line row times ``svmcompare fit`` on the
same table written as a CSV of ids (the whole command: start-up, reading,
fitting, saving).

    python benchmarks/bench_identities.py                  # the default sizes
    python benchmarks/bench_identities.py --dense-max 20000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = r"""
import json, resource, sys, time
import numpy as np, scipy.sparse as sp
from svmcompare import SVMCompare
n_players, n_games, layout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(0)
a = rng.integers(0, n_players, n_games)
b = (a + rng.integers(1, n_players, n_games)) % n_players
strength = rng.normal(size=n_players)
d = strength[b] - strength[a] + 0.2 + rng.logistic(size=n_games)
y = np.where(d > 0.8, 1, np.where(d < -0.8, -1, 0))
rows = np.arange(n_games)
X = sp.csr_matrix((np.ones(2 * n_games), (np.r_[rows, rows], np.r_[a, n_players + b])),
                  shape=(n_games, 2 * n_players))
if layout == "dense":
    X = np.stack([X[:, :n_players].toarray(), X[:, n_players:].toarray()], axis=1)
SVMCompare(kernel="linear").fit(X[:50], y[:50])  # compiled code loaded before timing
start = time.perf_counter()
model = SVMCompare(kernel="linear").fit(X, y)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "newton": int(model.n_iter_)}))
"""


def _fit(n_players, n_games, layout):
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n_players), str(n_games), layout],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cli(n_players, n_games, folder):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    strength = rng.normal(size=n_players)
    d = strength[b] - strength[a] + 0.2 + rng.logistic(size=n_games)
    result = np.where(d > 0.8, "A", np.where(d < -0.8, "H", "D"))
    path = Path(folder) / "games.csv"
    pd.DataFrame({"home": [f"p{k}" for k in a], "away": [f"p{k}" for k in b],
                  "result": result}).to_csv(path, index=False)
    command = ["/usr/bin/time", "-f", "%e %M", sys.executable, "-m", "svmcompare.cli", "fit",
               str(path), "--a", "home", "--b", "away", "--outcome", "result",
               "--outcome-map", "H=-1,D=0,A=1", "--model", str(Path(folder) / "m.skops")]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds, kb = out.stderr.strip().splitlines()[-1].split()
    return {"seconds": float(seconds), "peak_mb": int(kb) / 1024, "newton": None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="200x5000,1000x20000,2000x50000",
                        help="players x games, comma-separated")
    parser.add_argument("--dense-max", type=int, default=20_000,
                        help="largest number of games fitted with dense pairs too")
    args = parser.parse_args(argv)
    print(f"{'players':>8} {'games':>8} {'layout':>8} {'fit s':>8} {'peak MB':>8} "
          f"{'Newton':>7} {'dense/sparse time':>18}")
    began = time.perf_counter()
    for size in args.sizes.split(","):
        n_players, n_games = (int(v) for v in size.split("x"))
        sparse = _fit(n_players, n_games, "sparse")
        rows = [("sparse", sparse)]
        if n_games <= args.dense_max:
            rows.append(("dense", _fit(n_players, n_games, "dense")))
        with tempfile.TemporaryDirectory() as folder:
            rows.append(("CLI", _cli(n_players, n_games, folder)))
        for layout, r in rows:
            ratio = f"{r['seconds'] / sparse['seconds']:.1f}x" if layout == "dense" else ""
            newton = "" if r["newton"] is None else r["newton"]
            print(f"{n_players:>8} {n_games:>8} {layout:>8} {r['seconds']:>8.2f} "
                  f"{r['peak_mb']:>8.0f} {newton:>7} {ratio:>18}", flush=True)
    print(f"({time.perf_counter() - began:.0f} s in all; 'CLI' is the whole svmcompare fit "
          "command on the table as a CSV of ids, sparse)")


if __name__ == "__main__":
    main()
