"""Balanced fits that refuse (NoRankingError) although a beta < 0 is optimal.

200 seeded small pair sets (40 pairs, 2 features, issue 19's recipe), C in
{1e-3, 0.1}, SVMCompare(class_weight="balanced"): each fit that raises
NoRankingError is checked against the optimal beta interval of an
interior-point solve (Clarabel) of the same dual.  A refusal is right only if
no beta < 0 is optimal.  Needs the dev extra (clarabel).

Usage: python benchmarks/bias_sweep.py [--sets 200]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.reference.dense import (  # noqa: E402
    flipped_from_definition,
    ktilde_from_definition,
    rbf,
)
from tests.solvers.test_solver import _reference_beta_interval  # noqa: E402

from svmcompare import NoRankingError, SVMCompare  # noqa: E402
from svmcompare._base import prepare  # noqa: E402


def pair_set(seed):
    rng = np.random.default_rng(seed)
    Xi = rng.normal(size=(40, 2))
    Xip = Xi + rng.normal(size=(40, 2))
    d = (Xip**2).sum(1) - (Xi**2).sum(1) + rng.normal(size=40)
    return np.stack([Xi, Xip], 1), np.where(d > 1, 1, np.where(d < -1, -1, 0))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"{'C':>6} {'fits':>5} {'refused':>8} {'wrongly refused':>16}")
    for C in (1e-3, 0.1):
        fits = refused = wrong = 0
        for seed in range(args.sets):
            X, y = pair_set(seed)
            if not np.any(y == 0) or np.all(y == 0):
                continue
            fits += 1
            # "raise": the refusals are what is counted (the default falls back).
            model = SVMCompare(C=C, class_weight="balanced", on_degenerate="raise")
            try:
                model.fit(X, y)
                continue
            except NoRankingError:
                refused += 1
            # The reference on the model's own standardized pairs.
            Xs = prepare(model, X, y).Xs
            Xt, Xtp, yt = flipped_from_definition(Xs[:, 0], Xs[:, 1], y)
            Q = ktilde_from_definition(Xt, Xtp, rbf(1.0)) * np.outer(yt, yt)
            n_plus, n_minus = np.count_nonzero(yt > 0), np.count_nonzero(yt < 0)
            Cvec = C * np.where(yt > 0, len(yt) / (2 * n_plus), len(yt) / (2 * n_minus))
            low, _ = _reference_beta_interval(Q, yt, Cvec)
            wrong += bool(low < 0)
        print(f"{C:>6g} {fits:>5} {refused:>8} {wrong:>16}")


if __name__ == "__main__":
    main()
