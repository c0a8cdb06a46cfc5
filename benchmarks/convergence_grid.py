"""Does every exact fit meet its tolerance?  SMO against an interior-point QP.

Over small random problems (m = 100-300 flipped pairs) on a grid of kernels,
C, gamma, class weights and shrinking, each dual (18) is solved by our SMO
(``solve_dual``) and by Clarabel on the dense K~ of the same problem.  The
table gives, per kernel and C, the fits that converged, the worst relative
dual gap to the reference, and the slowest fit; every non-converged fit is
listed with its steps and time.  Needs the dev extra (clarabel).

Usage: python benchmarks/convergence_grid.py [--seeds 3] [--max-iter N] [--csv out.csv]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.reference.dense import dual_objective, solve_dual_reference  # noqa: E402

from svmcompare import SVMCompare  # noqa: E402
from svmcompare._problem import Standardizer, flip_compare  # noqa: E402
from svmcompare.kernels import resolve_kernel  # noqa: E402
from svmcompare.solvers import solve_dual  # noqa: E402

KERNELS = ["linear", "rbf", "poly", "laplacian"]
CS = [1e-3, 1e-1, 1e1, 1e3, 1e5]
GAMMAS = [2.0**-7, 2.0**-3, 1.0, 16.0]


def problem(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(70, 200))
    p = int(rng.integers(1, 6))
    Xi = rng.normal(size=(n, p))
    Xip = Xi + rng.normal(scale=0.7, size=(n, p))
    d = (Xip**2).sum(1) - (Xi**2).sum(1) + rng.normal(scale=0.5, size=n)
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    X = np.stack([Xi, Xip], 1)
    return Standardizer.fit(X).transform_pairs(X), y


def dense_q(problem_, kernel):
    items = problem_.items
    K = kernel.block(items, items)
    a, b, yt = problem_.a, problem_.b, problem_.y
    Kt = K[np.ix_(b, b)] - K[np.ix_(b, a)] - K[np.ix_(a, b)] + K[np.ix_(a, a)]  # eq. (18)
    return Kt * np.outer(yt, yt)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=None)
    parser.add_argument("--csv", default=None)
    args = parser.parse_args(argv)
    rows = []
    for seed, kname, C, gamma, cw, shrinking in itertools.product(
            range(args.seeds), KERNELS, CS, GAMMAS, [None, "balanced"], [True, False]):
        if kname == "linear" and gamma != 1.0:
            continue
        Xs, y = problem(seed)
        pr = flip_compare(Xs, y, C, class_weight=cw)
        kernel = resolve_kernel(kname, gamma=gamma)
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = solve_dual(pr, kernel, max_iter=args.max_iter, shrinking=shrinking)
        seconds = time.perf_counter() - start
        Q = dense_q(pr, kernel)
        try:
            ref = dual_objective(solve_dual_reference(Q, pr.y, pr.C), Q)
        except AssertionError:
            ref = np.nan
        ours = dual_objective(res.alpha, Q)
        auto = SVMCompare(kernel=kname, C=C, gamma=gamma, class_weight=cw,
                          max_iter=args.max_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                auto.fit(Xs, y)
                auto_ok = auto.converged_
            except ValueError:  # NoRankingError: a refusal, not a silent bad fit
                auto_ok = True
        rows.append(dict(seed=seed, kernel=kname, C=C, gamma=gamma, class_weight=str(cw),
                         shrinking=shrinking, m=len(pr.y), converged=res.converged,
                         warned=bool(caught), n_iter=res.n_iter, seconds=seconds,
                         kkt=res.kkt_violation,
                         gap=(ours - ref) / max(abs(ref), 1e-300), auto_converged=auto_ok))
    df = pd.DataFrame(rows)
    if args.csv:
        df.to_csv(args.csv, index=False)
    summary = df.groupby(["kernel", "C"]).agg(
        fits=("converged", "size"), converged=("converged", "sum"),
        worst_gap=("gap", "max"), max_seconds=("seconds", "max"),
        auto_converged=("auto_converged", "sum"))
    print(summary.to_string())
    silent = df[~df.converged & ~df.warned]
    print(f"\n{len(df)} SMO fits, {int((~df.converged).sum())} not converged "
          f"({len(silent)} without a warning); slowest {df.seconds.max():.1f} s; "
          f"solver='auto': {int((~df.auto_converged).sum())} not converged")
    bad = df[~df.converged]
    if len(bad):
        print(bad.sort_values("seconds").to_string(index=False))


if __name__ == "__main__":
    main()
