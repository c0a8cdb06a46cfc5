"""Which class weighting should SVMCompare use by default?  A measured table.

The flipped problem (eq. 8) has one row labelled 1 per decided pair and two
rows labelled -1 per tie, so with a tie fraction t the equality rows are
2t / (1 + t) of all rows: the minority below t = 1/3, the majority above.
``class_weight="balanced"`` gives each flipped label the same total weight:
it up-weights ties when they are few and down-weights them when they are
many; at t = 1/3 it equals no weighting.  Candidates measured:

* ``none``: no weighting (the paper's problem);
* ``balanced``: the default up to 0.2;
* ``auto``: balanced when ties are the flipped minority (t < 1/3), none
  otherwise: ties are never weighted down (the default since 0.2);
* ``half``: the square root of the balanced weights (half-way, in logs).

Part 1, the paper's simulated patterns (section 4): for each pattern, tie
fraction and seed, train / validation / test sets of n = 800 pairs, the
paper's grid (C = 10^-3..10^3, gamma = 2^-7..2^4, RBF) selected on
validation zero-one error, test zero-one error of the comparison rule.
``paper`` is the paper's own problem (no weights, grid points with beta >= 0
dropped); the others fall back as the default does.

Part 2, the shared real sets of ``bench_real.py`` (same splits, features and
group folds): ``SVMCompareCV(probability=True)`` over the linear part of its
default grid with one weighting, test log-loss, and how many of the 7 C values
left the paper's tie band (``degenerate_``) when fitted on all training pairs;
and ``SVMCompare(probability=True)`` with every other parameter at its default.

Usage: python benchmarks/bench_class_weight.py [--quick] [--part simulated real]
       [--csv-prefix PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from svmcompare import SVMCompare, SVMCompareCV
from svmcompare._problem import label_weights
from svmcompare.experiments.protocol import Setting, draw_sets
from svmcompare.grid_search import paper_grid, validation_search
from svmcompare.metrics import comparison_report, outcome_log_loss

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_real import DATA, SETS, group_folds  # noqa: E402

PATTERNS = ("l1", "l2", "linf")
WEIGHTINGS = ("none", "balanced", "auto", "half")
LINEAR_C = list(np.logspace(-4, 2, 7))


def class_weight_for(name, y):
    """The ``class_weight`` of a candidate for training labels ``y``."""
    if name == "none":
        return None
    if name in ("balanced", "auto"):
        return name
    if name == "half":
        ties = float(np.sum(y == 0))
        # eq. (8): one row per decided pair, two per tie.
        balanced = label_weights("balanced", y.size - ties, 2.0 * ties)
        return {label: float(np.sqrt(w)) for label, w in balanced.items()}
    raise ValueError(name)


def _simulated_task(pattern, fraction, seed, weighting, n_pairs):
    sets = draw_sets(Setting(pattern, n_pairs, fraction, seed))
    X, y = sets["train"]
    if weighting == "paper":
        model = SVMCompare(class_weight=None, on_degenerate="raise")
    else:
        model = SVMCompare(class_weight=class_weight_for(weighting, y))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chosen, _ = validation_search(model, paper_grid(), X, y, *sets["validation"],
                                      scoring="error")
    X_test, y_test = sets["test"]
    report = comparison_report(y_test, chosen.decision_function(X_test), chosen.threshold_)
    return {"pattern": pattern, "ties": fraction, "seed": seed, "weighting": weighting,
            "test_error": 100.0 * report["error_rate"], "C": chosen.C, "gamma": chosen.gamma,
            "degenerate": bool(chosen.degenerate_), "seconds": time.perf_counter() - start}


def simulated(quick=False, n_jobs=2):
    fractions = (0.1, 0.5) if quick else (0.1, 0.2, 0.3, 0.5, 0.7)
    seeds = (1, 2) if quick else (1, 2, 3, 4)
    n_pairs = 300 if quick else 800
    tasks = [(p, f, s, w, n_pairs) for p in PATTERNS for f in fractions for s in seeds
             for w in ("paper", *WEIGHTINGS)]
    rows = Parallel(n_jobs=n_jobs)(delayed(_simulated_task)(*t) for t in tasks)
    return pd.DataFrame(rows)


def _real_task(name, weighting, quick):
    load, _ = SETS[name]
    X, y, context, train, test, _, groups = load(quick)
    folds = group_folds(groups[train])
    ctr = None if context is None else context[train]
    cte = None if context is None else context[test]
    cw = class_weight_for(weighting, y[train])
    grid = {"kernel": ["linear"], "C": LINEAR_C, "class_weight": [cw]}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = SVMCompareCV(probability=True, param_grid=grid, cv=folds, n_jobs=1)
        search.fit(X[train], y[train], context=ctr)
        seconds = time.perf_counter() - start
        degenerate = sum(
            SVMCompare(kernel="linear", C=C, class_weight=cw)
            .fit(X[train], y[train], context=ctr).degenerate_
            for C in LINEAR_C
        )
        # The estimator as a user first meets it: every default but the weighting.
        default = SVMCompare(class_weight=cw, probability=True, random_state=0)
        default.fit(X[train], y[train], context=ctr)
    proba = search.predict_proba(X[test], cte)
    return {"data": name, "ties": float(np.mean(y[train] == 0)), "weighting": weighting,
            "log_loss": outcome_log_loss(y[test], proba), "C": search.best_params_["C"],
            "degenerate_of_7": int(degenerate), "seconds": seconds,
            "default_log_loss": outcome_log_loss(y[test], default.predict_proba(X[test], cte)),
            "default_degenerate": bool(default.degenerate_)}


def real(quick=False, n_jobs=2):
    names = [n for n, (_, folder) in SETS.items()
             if not n.startswith("simulated") and (DATA / folder).is_dir()]
    for n, (_, folder) in SETS.items():
        if folder is not None and not (DATA / folder).is_dir():
            print(f"{n}: skipped, {DATA / folder} not found", file=sys.stderr)
    rows = Parallel(n_jobs=n_jobs)(delayed(_real_task)(n, w, quick)
                                   for n in names for w in WEIGHTINGS)
    return pd.DataFrame(rows)


def report_simulated(table):
    mean = table.pivot_table(index=["pattern", "ties"], columns="weighting",
                             values="test_error", aggfunc="mean")
    mean = mean[["paper", *WEIGHTINGS]]
    lines = ["Simulated patterns: mean test zero-one error (%) over seeds, paper's grid",
             mean.round(2).to_string(),
             "\nDistance to the paper's problem (points), worst over patterns and tie fractions:"]
    for w in WEIGHTINGS:
        gap = (mean[w] - mean["paper"])
        lines.append(f"  {w:<9} max {gap.max():+.2f}, mean {gap.mean():+.2f}")
    at_half = mean.xs(0.5, level="ties") if 0.5 in mean.index.get_level_values("ties") else None
    if at_half is not None:
        lines.append("\nAt 50% ties (the paper's setting):\n" + at_half.round(2).to_string())
    return "\n".join(lines)


def report_real(table):
    lines = ["Real sets: test log-loss of SVMCompareCV(probability=True), linear grid, "
             "one weighting (degenerate fits of 7 C values)"]
    for name, block in table.groupby("data", sort=False):
        lines.append(f"{name} ({block.ties.iloc[0]:.1%} ties): " + ", ".join(
            f"{r.weighting} {r.log_loss:.4f} ({r.degenerate_of_7})" for r in block.itertuples()))
    lines.append("\nReal sets: test log-loss of SVMCompare(probability=True) with every other "
                 "default (* degenerate)")
    for name, block in table.groupby("data", sort=False):
        lines.append(f"{name}: " + ", ".join(
            f"{r.weighting} {r.default_log_loss:.4f}{'*' if r.default_degenerate else ''}"
            for r in block.itertuples()))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", nargs="+", default=["simulated", "real"],
                        choices=["simulated", "real"])
    parser.add_argument("--csv-prefix", type=Path)
    args = parser.parse_args(argv)
    for part, run, report in (("simulated", simulated, report_simulated),
                              ("real", real, report_real)):
        if part not in args.part:
            continue
        start = time.perf_counter()
        table = run(quick=args.quick)
        print(report(table))
        print(f"({part}: {time.perf_counter() - start:.0f} s)\n", flush=True)
        if args.csv_prefix:
            table.to_csv(f"{args.csv_prefix}_{part}.csv", index=False)


if __name__ == "__main__":
    main()
