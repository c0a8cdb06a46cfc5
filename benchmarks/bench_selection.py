"""Does the search keep what works?  Every grid point's test log-loss next to the chosen one's.

Issue 35 asks that on every set the model ``SVMCompareCV(probability=True)``
chooses scores within 0.005 test log-loss of the best point of its own grid,
with group folds (seasons, questions, series: as the test split) and with
plain folds (``cv=5``, stratified in pair order).  For each set and splitter:
the search's test log-loss; then every model point of its grid (kernel, C,
gamma, class weight, indicator scaling) refitted alone on all training pairs
as ``SVMCompare(probability=True)`` with the chosen probability link (tie band
and link family), and the chosen model with every link option; the best of
those and the gap.

Data and features as ``bench_suite.py`` (fetch the suite first).

Usage: python benchmarks/bench_selection.py [--sets ...] [--splitters group plain]
       [--csv results.csv]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_real  # noqa: E402
import bench_suite  # noqa: E402
import suite_data  # noqa: E402
from svmcompare import SVMCompare, SVMCompareCV  # noqa: E402
from svmcompare.metrics import outcome_log_loss  # noqa: E402

LINK_PARAMS = ("tie_band", "link")


def _model_points(search):
    """The distinct model points (without the link options) of a fitted search's grid."""
    seen, points = set(), []
    for params in search.cv_results_.to_dict("records"):
        point = {k: params[k] for k in ("kernel", "C", "gamma", "class_weight",
                                        "scale_indicators") if k in params}
        point = {k: v for k, v in point.items() if not (isinstance(v, float) and np.isnan(v))}
        key = repr(sorted(point.items()))
        if key not in seen:
            seen.add(key)
            points.append(point)
    return points


def _link_options(search):
    results = search.cv_results_
    return [dict(zip(LINK_PARAMS, values, strict=True))
            for values in results[list(LINK_PARAMS)].drop_duplicates().itertuples(index=False)]


def _test_log_loss(params, X, y, context, train, test):
    model = SVMCompare(**params, probability=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X[train], y[train], context=None if context is None else context[train])
    return outcome_log_loss(y[test], model.predict_proba(
        X[test], None if context is None else context[test]))


def audit(name, X, y, context, train, test, groups, splitter):
    """One row: the search's test log-loss, the best refitted grid point's, the gap."""
    # Group folds as the README passes them (a group splitter and the groups);
    # plain folds: cv=5, stratified in pair order.
    by_group = splitter == "group"
    cv = bench_real.group_folds(groups[train]).splitter if by_group else 5
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = SVMCompareCV(probability=True, cv=cv, n_jobs=2, progress=False).fit(
            X[train], y[train], context=None if context is None else context[train],
            groups=groups[train] if by_group else None)
    seconds = time.perf_counter() - start
    ctest = None if context is None else context[test]
    ours = outcome_log_loss(y[test], search.predict_proba(X[test], ctest))
    chosen = search.best_params_
    link = {k: chosen[k] for k in LINK_PARAMS}
    model = {k: v for k, v in chosen.items() if k not in LINK_PARAMS}
    candidates = [{**point, **link} for point in _model_points(search)]
    candidates += [{**model, **option} for option in _link_options(search)
                   if option != link]
    losses = [_test_log_loss(p, X, y, context, train, test) for p in candidates]
    best = int(np.argmin(losses))
    alone = losses[candidates.index({**model, **link})] if {**model, **link} in candidates \
        else np.nan
    return {"data": name, "splitter": splitter, "search": ours, "chosen_alone": alone,
            "best_point": losses[best], "gap": ours - losses[best],
            "chosen": str(chosen), "best": str(candidates[best]), "points": len(candidates),
            "search_s": seconds}


def main(argv=None):
    names = [*suite_data.LOADERS, "football", "icehockey", "chess", "sushi"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=names, choices=names)
    parser.add_argument("--splitters", nargs="+", default=["group", "plain"],
                        choices=["group", "plain"])
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args(argv)
    rows = []
    for name, _, _, X, y, context, train, test, _, groups in bench_suite.suite_sets(args.sets):
        for splitter in args.splitters:
            row = audit(name, X, y, context, train, test, groups, splitter)
            rows.append(row)
            print(f"{name:<16} {splitter:<6} search {row['search']:.4f}  chosen alone "
                  f"{row['chosen_alone']:.4f}  best of {row['points']} points "
                  f"{row['best_point']:.4f}  gap {row['gap']:+.4f}  ({row['search_s']:.0f} s)"
                  f"\n{'':24}chosen {row['chosen']}\n{'':24}best   {row['best']}", flush=True)
    if args.csv:
        pd.DataFrame(rows).to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
