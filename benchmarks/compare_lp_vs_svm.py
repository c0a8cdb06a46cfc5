"""SVMCompareLP against SVMCompare: test error, sparsity and grid-search time.

Each model is selected by validation error on a 5 x 5 version of the paper's
grid; n = 400 train, validation and test pairs; seeds 1-4; the three
simulated patterns.  Prints one row per run and the means.
"""

import time

import numpy as np
import pandas as pd

from svmcompare import SVMCompare, SVMCompareLP
from svmcompare.datasets import make_norm_pairs
from svmcompare.grid_search import paper_grid, validation_search


def main():
    grid, rows = paper_grid(5, 5), []
    for norm in ("l1", "l2", "linf"):
        for seed in (1, 2, 3, 4):
            rng = np.random.RandomState(seed)
            train, val, test = (make_norm_pairs(400, norm, random_state=rng) for _ in range(3))
            for name, cls in (("SVMCompare", SVMCompare), ("SVMCompareLP", SVMCompareLP)):
                start = time.perf_counter()
                model, _ = validation_search(cls(), grid, *train, *val, n_jobs=2)
                seconds = time.perf_counter() - start
                coefs = model.n_nonzero_ if name == "SVMCompareLP" else model.support_.size
                error = 100 * np.mean(model.predict(test[0]) != test[1])
                rows.append((norm, seed, name, error, coefs, seconds))
                print(norm, seed, name, f"{error:.2f}%", coefs, f"{seconds:.1f} s", flush=True)
    table = pd.DataFrame(rows, columns=["norm", "seed", "model", "test_error", "coefficients",
                                        "seconds"])
    print(table.groupby(["norm", "model"])[["test_error", "coefficients", "seconds"]].mean())


if __name__ == "__main__":
    main()
