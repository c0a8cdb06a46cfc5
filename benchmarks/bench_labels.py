"""Zero-one test error of the labels each model gives (issue 36): the RankSVM
baselines, SVMCompare's comparison rule, and a probability model's most
probable outcome, on the same splits in one run.

Sushi (../shared/data/sushi, skipped when absent): pairs of new people
(people split 2:1), linear kernel, C = 0.1.  The paper's simulated patterns
(||x||_1^2, ||x||_inf^2, ||x||_2^2, half ties): 800 training pairs, 4,000 test
pairs, RBF gamma = 0.5, C = 10.  Fixed hyper-parameters, the same for every
model: the comparison is between rules, not between tunings.

    python benchmarks/bench_labels.py
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np

from svmcompare import SVMCompare, SVMRank, SVMRank2
from svmcompare.datasets import make_norm_pairs

SUSHI = Path(__file__).resolve().parents[2] / "shared" / "data" / "sushi"


def _sets():
    if SUSHI.is_dir():
        from svmcompare.datasets import load_sushi

        data = load_sushi(SUSHI)
        test = data.person % 3 == 0
        rng = np.random.default_rng(0)
        train = np.flatnonzero(~test)
        train = rng.choice(train, size=min(6000, train.size), replace=False)
        testing = rng.choice(np.flatnonzero(test), size=6000, replace=False)
        yield "sushi (new people)", (data.X[train], data.y[train]), \
            (data.X[testing], data.y[testing]), {"kernel": "linear", "C": 0.1}
    for norm in ("l1", "linf", "l2"):
        yield f"simulated {norm}", make_norm_pairs(800, norm, random_state=0), \
            make_norm_pairs(4000, norm, random_state=1), {"kernel": "rbf", "gamma": 0.5, "C": 10}


def main():
    print(f"{'data':<20} {'rank':>7} {'rank2':>7} {'compare (rule)':>15} "
          f"{'compare (most probable)':>24} {'rank2 (most probable)':>22}")
    began = time.perf_counter()
    for name, (X, y), (Xt, yt), params in _sets():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rank = SVMRank(**params).fit(X, y)
            rank2 = SVMRank2(**params, probability=True, random_state=0).fit(X, y)
            compare = SVMCompare(**params, probability=True, random_state=0).fit(X, y)
        errors = [np.mean(rank.predict(Xt) != yt), np.mean(rank2.compare(Xt) != yt),
                  np.mean(compare.compare(Xt) != yt), np.mean(compare.predict(Xt) != yt),
                  np.mean(rank2.predict(Xt) != yt)]
        print(f"{name:<20} " + " ".join(f"{100 * e:>{w}.2f}" for e, w in
                                        zip(errors, (7, 7, 15, 24, 22), strict=True)),
              flush=True)
    print(f"(zero-one test error, %; {time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
