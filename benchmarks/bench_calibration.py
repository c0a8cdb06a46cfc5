"""Where probability=True's held-out rank gaps come from: the default folds,
the folds as they were refitted before, and leave-one-out estimates, on
simulated and real data, in one run.

For each data set of ``bench_real.py`` (the same features, context and
train / test splits; a set whose folder is absent is skipped) and each fixed
setting of ``SVMCompare`` (exact RBF with C in {1, 10}, gamma in {1, 0.1};
linear with C in {1, 100}; Nystroem RBF, 100 landmarks, C = 1, gamma = 0.1),
three fits that differ only in how the held-out gaps are made:

* ``cv`` (the default): five folds that solve the fit's own problem (the
  dual, or the primal of the linear and Nystroem solvers) without
  their pairs' rows, started from its solution (``solvers/folds.py``: the
  fit's standardization and per-row C);
* ``refit``: the scheme before it, five folds refitted as estimators on
  their own pairs (their own standardization and balanced C), started from
  the restricted full solution (``rows_of_pairs`` patched to say no);
* ``loo``: leave-one-pair-out gaps estimated from the fit itself
  (``solvers/loo.py``) when at most 2,000 dual variables are free, else the
  folds (the ``used`` column says which).

Prints fit seconds, test log-loss, Brier score and the expected calibration
error (the count-weighted mean |observed - predicted| over ten bins per
outcome, :func:`svmcompare.metrics.reliability_table`), and per data set the
largest log-loss difference of each scheme against ``refit``.  The class
frequencies' log-loss is the floor every model has to beat.

Usage: python benchmarks/bench_calibration.py [--sets ...] [--csv out.csv]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import svmcompare.calibration.held_out as base  # noqa: E402
from bench_real import DATA, SETS  # noqa: E402
from svmcompare import SVMCompare  # noqa: E402
from svmcompare.metrics import outcome_brier, outcome_log_loss, reliability_table  # noqa: E402

SETTINGS = [{"C": 1.0, "gamma": 1.0}, {"C": 10.0, "gamma": 1.0},
            {"C": 1.0, "gamma": 0.1}, {"C": 10.0, "gamma": 0.1},
            # The primal solvers' folds (loo falls back to them there).
            {"kernel": "linear", "C": 1.0}, {"kernel": "linear", "C": 100.0},
            {"solver": "nystroem", "n_components": 100, "C": 1.0, "gamma": 0.1}]


def label(setting):
    """A short name of a setting: kernel (solver), C, gamma."""
    kernel = setting.get("kernel", "rbf")
    solver = "nystroem " if setting.get("solver") == "nystroem" else ""
    gamma = f" g={setting['gamma']:g}" if "gamma" in setting else ""
    return f"{solver}{kernel} C={setting['C']:g}{gamma}"


def calibration_error(y, proba):
    """Count-weighted mean |observed - predicted| over the reliability bins of
    the three outcomes."""
    table = reliability_table(y, proba)
    gap = np.abs(table["observed"] - table["predicted"])
    return float(np.sum(gap * table["count"]) / table["count"].sum())


SCHEMES = ("cv", "refit", "loo")


@contextlib.contextmanager
def refit_folds():
    """The calibration folds refitted as estimators (the scheme before the
    row folds): no pair is seen as having a row."""
    rows_of_pairs = base.rows_of_pairs
    base.rows_of_pairs = lambda problem: None
    try:
        yield
    finally:
        base.rows_of_pairs = rows_of_pairs


def run(names, progress=True):
    rows = []
    for name in names:
        load, folder = SETS[name]
        if folder is not None and not (DATA / folder).is_dir():
            print(f"{name}: skipped, {DATA / folder} is absent", flush=True)
            continue
        X, y, context, train, test, _, _ = load()
        c_train = None if context is None else context[train]
        c_test = None if context is None else context[test]
        prior = np.array([np.mean(y[train] == k) for k in (-1, 0, 1)])
        freq = outcome_log_loss(y[test], np.tile(prior, (test.sum(), 1)))
        for setting in SETTINGS:
            for calibration in SCHEMES:
                # Weights as when BENCHMARKS.md's table was measured (the default
                # until 0.2); bench_class_weight.py measures the weighting itself.
                model = SVMCompare(**{"kernel": "rbf", **setting}, probability=True,
                                   calibration="loo" if calibration == "loo" else "cv",
                                   class_weight="balanced", random_state=0)
                scheme = refit_folds() if calibration == "refit" else contextlib.nullcontext()
                with warnings.catch_warnings(), scheme:
                    warnings.simplefilter("ignore")
                    start = time.perf_counter()
                    model.fit(X[train], y[train], context=c_train)
                    seconds = time.perf_counter() - start
                proba = model.predict_proba(X[test], c_test)
                row = {"set": name, "n_train": int(train.sum()), "model": label(setting),
                       "calibration": calibration, "used": model.calibration_,
                       "seconds": seconds, "log_loss": outcome_log_loss(y[test], proba),
                       "brier": outcome_brier(y[test], proba),
                       "ece": calibration_error(y[test], proba), "freq_log_loss": freq}
                rows.append(row)
                if progress:
                    print(f"{name:<15} {row['model']:<24} {calibration:<5} {row['used']:<13} "
                          f"{seconds:7.2f} s  "
                          f"log-loss {row['log_loss']:.4f}  brier {row['brier']:.4f}  "
                          f"ece {row['ece']:.4f}", flush=True)
    return pd.DataFrame(rows)


def report(table):
    wide = table.pivot_table(index=["set", "model"], columns="calibration",
                             values=["seconds", "log_loss", "ece"], aggfunc="first")
    used = table[table["calibration"] == "loo"].set_index(["set", "model"])["used"]
    lines = [f"{'set':<15} {'model':<24} {'loo used':<13} "
             + " ".join(f"{'s ' + k:>8}" for k in SCHEMES) + " "
             + " ".join(f"{'LL ' + k:>9}" for k in SCHEMES) + " "
             + " ".join(f"{k + '-refit':>10}" for k in ("cv", "loo")) + " "
             + " ".join(f"{'ECE ' + k:>9}" for k in SCHEMES)]
    for (name, model), row in wide.iterrows():
        lines.append(
            f"{name:<15} {model:<24} {used[(name, model)]:<13} "
            + " ".join(f"{row[('seconds', k)]:>8.2f}" for k in SCHEMES) + " "
            + " ".join(f"{row[('log_loss', k)]:>9.4f}" for k in SCHEMES) + " "
            + " ".join(f"{row[('log_loss', k)] - row[('log_loss', 'refit')]:>+10.4f}"
                       for k in ("cv", "loo")) + " "
            + " ".join(f"{row[('ece', k)]:>9.4f}" for k in SCHEMES))
    freq = table.groupby("set")["freq_log_loss"].first()
    lines.append("")
    for scheme in ("cv", "loo"):
        diff = (wide[("log_loss", scheme)] - wide[("log_loss", "refit")]).groupby(level=0)
        for name, d in diff:
            lines.append(f"{name:<15} log-loss {scheme} - refit: worst {d.max():+.4f}, "
                         f"mean {d.mean():+.4f} (class frequencies {freq[name]:.4f})")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args(argv)
    table = run(args.sets)
    print()
    print(report(table))
    if args.csv:
        table.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
