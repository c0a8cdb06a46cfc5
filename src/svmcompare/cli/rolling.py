"""``svmcompare rolling``: a history replayed period by period.

Before each period, the model is fitted on every earlier result (older ones
weighed less with ``--half-life``) and predicts the period; the predictions
of every replayed period and each item's score before it (a rating path, one
scale for all periods) are written.  The command line of
:func:`svmcompare.temporal.rolling_fit`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .options import (
    PROBABILITY_COLUMNS,
    add_command,
    add_half_life,
    add_model_arguments,
    add_pairs_arguments,
    check_filled,
    check_output_files,
    column_keys,
    kept_labeled_pairs,
    make_model,
    ordered_column,
    pair_columns,
    rows_of,
    write_table,
)
from .plots import figure_path


def add_rolling_command(sub):
    rolling = add_command(
        sub, "rolling", run_rolling,
        "replay results period by period: next-period predictions, rating paths")
    add_pairs_arguments(rolling, labels=True)
    rolling.add_argument("--period", required=True, metavar="COLUMN",
                         help="column of each result's period (sortable: numbers or dates)")
    rolling.add_argument("--first", default=None, metavar="VALUE",
                         help="the first period to predict (default: the second period)")
    add_half_life(rolling, "column of each result's time for --half-life (default: the "
                           "period)",
                  "weigh each earlier result by 2^(-age / H) (days for dates)")
    add_model_arguments(rolling)
    rolling.add_argument("--auto", action="store_true",
                         help="choose the model once, as fit --auto does with folds by "
                              "--period, on the results before the first predicted period, "
                              "then refit that choice before every period")
    rolling.add_argument("-o", "--output", required=True, metavar="FILE",
                         help="CSV of the replayed periods' games with their predictions")
    rolling.add_argument("--ratings", default=None, metavar="FILE",
                         help="CSV of every item's score before each predicted period")
    rolling.add_argument("--plot", default=None, metavar="FILE",
                         help="PNG or SVG of the top items' rating paths")
    rolling.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    rolling.set_defaults(model_type="compare", probability=True,
                         calibration="auto")


def _first(value, periods, column, name, file):
    """--first as a value of the periods' kind (dates read as the column's
    are, in its day order: 03/02/2020 is the 3rd of February in a column of
    25/12 dates)."""
    import numpy as np

    if value is None or periods.dtype == object:  # labels (seasons): rolling_fit reads it
        return value
    if np.issubdtype(periods.dtype, np.datetime64):
        keys, _ = column_keys(column, "--first", name, file, bound=value)
        return keys[-1]
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"--first {value!r} is not a number; the periods are.") from None
    # Integer periods keep --first an integer (messages say 2030, not 2030.0).
    return int(number) if np.issubdtype(periods.dtype, np.integer) and number.is_integer() \
        else number


def _rated_items(args, features):
    """(ids, items) whose scores the rating paths follow: an identities model's
    ids, or the --items table; None when there is neither."""
    import scipy.sparse as sp

    from ..io import identities_of, read_items

    if args.items is not None:
        ids, Z, _ = read_items(args.items)
        return list(ids), Z
    ids = identities_of(features)
    if ids is None:
        return None, None
    return list(ids), sp.identity(len(ids), format="csr")


def _chosen_once(args, X, y, context, weight, periods, times, first):
    """The model fit --auto would choose (folds by period) on the results before
    the first predicted period: a new user's replay with the default C = 1 scored
    1.0442 where the choice of --auto, carried over by hand, scored 1.0403."""
    from sklearn.base import clone

    from ..model_selection import SVMCompareCV
    from ..temporal import periods_before_first
    from .options import auto_folds, auto_loss, chosen_text, refuse_chosen_by_auto

    refuse_chosen_by_auto(args, "without it")
    earlier = periods_before_first(periods, first)
    groups = periods[earlier]
    if len(set(groups.tolist())) < 2:
        raise ValueError("--auto chooses on the results before the first predicted period, "
                         "which hold one period: folds need two; give --first a later "
                         "period.")
    search = SVMCompareCV(probability=True, cv=auto_folds(groups), random_state=0,
                          loss=auto_loss(args), progress=False if args.no_progress else "auto")
    weights = None if weight is None else weight[earlier]
    if args.half_life is not None:  # as the refits weigh them (fit --auto --half-life alike)
        from ..temporal import time_decay

        decay = time_decay((periods if times is None else times)[earlier], args.half_life)
        weights = decay if weights is None else weights * decay
    try:
        search.fit(X[earlier], y[earlier], context=None if context is None else context[earlier],
                   sample_weight=weights, groups=groups)
    except ValueError as exc:  # the search's advice is for Python; say the command line's
        raise ValueError(f"--auto chooses on the {int(earlier.sum())} results before the first "
                         f"predicted period, and there: {exc} On the command line: give "
                         "--first a later period (the choice then has more periods to learn "
                         "from).") from exc
    print(f"chosen once on the {int(earlier.sum())} results before the first predicted "
          f"period (cross-validation by period, log_loss): {chosen_text(search.best_params_)}",
          file=sys.stderr)
    return clone(search.best_estimator_)


def run_rolling(args):
    """Before each period (--period: a round, week or season column), fit on every earlier
    result and predict the period's games; write the predictions with their win / draw /
    loss probabilities, and each item's score before every period (rating paths).
    """
    from ..io import read_pair_extras
    from ..metrics import outcome_log_loss
    from ..temporal import plot_rating_paths, rolling_fit

    check_output_files({"-o": args.output, "--ratings": args.ratings, "--plot": args.plot},
                       figures=("--plot",), inputs=(args.pairs, args.items))
    columns = pair_columns(args)
    weight, extras, shown = read_pair_extras(args.pairs, columns, results=True)
    name = Path(args.pairs).name
    for option, column in (("--period", args.period), ("--time", args.time)):
        if column is not None and column not in extras.columns:
            raise ValueError(f"{name} has no column {column!r} for {option} (not a feature, "
                             f"label or context column; it has {list(extras.columns)} besides "
                             "those).")
    if args.time is not None and args.half_life is None:
        raise ValueError("--time sets the ages of --half-life; add --half-life H.")
    rows = rows_of(args, extras, args.pairs)
    check_filled(extras, [args.period, args.time], name, rows)
    X, y, features, context, extras, weight = kept_labeled_pairs(args, columns, extras, weight,
                                                                 rows)
    shown = shown.loc[extras.index].reset_index(drop=True)  # one frame's row labels
    periods, _ = ordered_column(extras, args.period, "--period", name)
    times = None if args.time is None else ordered_column(extras, args.time, "--time", name)[0]
    first = _first(args.first, periods, extras[args.period], args.period, name)
    ids, items = _rated_items(args, features)
    if items is None and (args.ratings or args.plot):  # before the replay, not after it
        flag = "--ratings" if args.ratings else "--plot"
        raise ValueError(f"{flag} follows items' ratings, but {name}'s pairs hold each side's "
                         "features (a_/b_ columns), no items: rating paths need pairs of item "
                         "ids, a table of ids alone or ids with --items ITEMS.csv of their "
                         "features (in place of a_/b_ columns); or leave out --ratings / "
                         "--plot.")
    if args.auto:
        model = _chosen_once(args, X, y, context, weight, periods, times, first)
    else:
        # Linear unless --kernel says otherwise: a refit a period, and on history
        # features the RBF default of fit overfits (a new user's rugby replay:
        # log-loss 0.6732 at 7.4 s a fit against 0.6169 at 0.27 s).
        args.kernel = args.kernel or "linear"
        model = make_model(args)
    model.set_params(verbose=False)  # the periods have their own bar
    result = rolling_fit(model, X, y, periods, context=context,
                         sample_weight=weight, half_life=args.half_life, times=times,
                         first=first, items=items, item_ids=ids,
                         progress=False if args.no_progress else "auto")
    done = result.predicted
    out = shown[done].reset_index(drop=True).assign(
        y=y[done], rank_difference=result.decision[done])
    for column, values in zip(PROBABILITY_COLUMNS, result.proba[done].T, strict=True):
        out[column] = values
    # With the table on standard output, the summary and notes go to stderr.
    log = sys.stdout if write_table(out, args.output) else sys.stderr
    print(f"{len(result.fit_seconds)} periods replayed ({int(done.sum())} games predicted, "
          f"log-loss {outcome_log_loss(y[done], result.proba[done]):.4f}, "
          f"{result.fit_seconds.mean():.3f} s a fit): {args.output}", file=log)
    if result.ratings is None:  # a model of item features without --items
        return 0
    result.ratings.index.name = args.period
    if args.ratings:
        result.ratings.to_csv(args.ratings)
        print(f"rating paths of {result.ratings.shape[1]} items written to {args.ratings}",
              file=log)
    if args.plot:
        path = figure_path(args.plot)
        plot_rating_paths(result.ratings, path)
        print(f"rating paths drawn to {path}", file=log)
    return 0
