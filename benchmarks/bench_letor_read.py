"""Reading an SVMlight / LETOR file: svmcompare.io.load_letor vs scikit-learn.

A file of --items graded items (groups of 100, --features dense features
written with full precision) is written to a temporary folder; each reader
runs in a fresh process (median of --repeats).  Both give the same arrays to
the bit (checked here).

Usage: python benchmarks/bench_letor_read.py [--items 200000] [--features 20] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

_READ = """
import sys, time
start = time.perf_counter()
{body}
print(time.perf_counter() - start)
"""
_OURS = "from svmcompare.io import load_letor\nload_letor(sys.argv[1])"
_PEER = ("from sklearn.datasets import load_svmlight_file\n"
         "load_svmlight_file(sys.argv[1], query_id=True)")


def _timed(body, path, repeats):
    runs = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", _READ.format(body=body), str(path)],
                              check=True, capture_output=True, text=True)
        runs.append(float(done.stdout.strip().splitlines()[-1]))
    return statistics.median(runs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import sklearn
    from sklearn.datasets import load_svmlight_file

    from svmcompare.io import dump_letor, load_letor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.items, args.features))
    y = rng.integers(0, 5, size=args.items)
    groups = np.arange(args.items) // 100
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "items.letor"
        dump_letor(X, y, groups, path)
        size = path.stat().st_size / 2**20
        ours = load_letor(path)
        theirs = load_svmlight_file(str(path), query_id=True)
        same = all(np.array_equal(a, b) for a, b in
                   zip(ours, (theirs[0].toarray(), theirs[1], theirs[2]), strict=True))
        ours_s = _timed(_OURS, path, args.repeats)
        peer_s = _timed(_PEER, path, args.repeats)
    print(f"{args.items} items x {args.features} features, {size:.0f} MB; "
          f"median of {args.repeats} fresh processes; same arrays: {same}")
    print(f"{'reader':<44} {'seconds':>8} {'ratio':>7}")
    print(f"{'svmcompare.io.load_letor (ours)':<44} {ours_s:>8.2f} {'1.0x':>7}")
    print(f"{f'sklearn {sklearn.__version__} load_svmlight_file (peer)':<44} {peer_s:>8.2f} "
          f"{peer_s / ours_s:>6.1f}x")


if __name__ == "__main__":
    main()
