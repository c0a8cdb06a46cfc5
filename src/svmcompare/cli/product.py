"""The product commands: fit, features, league, predict, rank, leaderboard, evaluate."""

from __future__ import annotations

import sys
from pathlib import Path

from .letor import (
    fit_graded,
    fits_every_pair,
    graded_pair_outputs,
    graded_predictions,
    note_formed_pairs,
    report_graded,
)
from .options import (
    MODEL_TYPES,
    add_command,
    add_half_life,
    add_interval,
    add_model_arguments,
    add_pairs_arguments,
    add_result_columns,
    add_saved_model,
    auto_folds,
    auto_loss,
    check_context_given,
    check_file_features,
    check_filled,
    check_output_files,
    chosen_text,
    column_keys,
    groups_of,
    items_of,
    kept_labeled_pairs,
    labeled_pairs,
    load_bootstrap,
    load_pair_model,
    make_model,
    note_degenerate,
    ordered_column,
    pair_columns,
    parallel_backend,
    played_ids_only,
    refuse_chosen_by_auto,
    rows_of,
    take_pairs,
    warn_ids_apart,
    with_predictions,
    write_table,
    written_whole,
)
from .plots import plot_evaluation
from .rolling import add_rolling_command


def _fit(args):
    """Fit SVMCompare (or a baseline) on labeled pairs and write a model file. Labels y: -1 x
    better, 0 tie, 1 x' better.
    """
    check_output_files({"--model": args.model}, inputs=(args.pairs, args.items))
    if fits_every_pair(args):
        return fit_graded(args)
    import numpy as np

    from ..io import context_names, identities_of, is_letor, read_pair_extras
    from ..model_selection import SVMCompareCV
    from ..persistence import save_model

    columns = pair_columns(args)
    weight, extras = read_pair_extras(args.pairs, columns)
    rows = rows_of(args, extras, args.pairs)
    X, y, features, context, extras, weight = kept_labeled_pairs(args, columns, extras, weight,
                                                                 rows)
    if args.groups is not None and (args.auto or args.bootstrap_groups):
        # A labeled pair without a group, named by its line (fixtures are left out).
        check_filled(extras, [args.groups], Path(args.pairs).name, None)
    if is_letor(args.pairs):
        note_formed_pairs(X)
    if args.items is None:  # the ids of the labeled pairs only (not a fixture's new team)
        X, features = played_ids_only(X, features)
        warn_ids_apart(X, features, args.pairs, columns)
    groups = groups_of(args, extras)
    weight = _decayed(args, extras, weight)
    # In the wide layout (a_/b_ feature columns) the --a / --b columns are not
    # the items: named as unused (a_goals and b_goals next to --a home --b away
    # were fitted on, the ids dropped, and the note said nothing of them).
    ids_fitted = args.items is not None or identities_of(features) is not None
    used = (columns.a, columns.b) if ids_fitted else ()
    unused = [c for c in extras.columns if c not in (*used, args.groups, args.time)]
    if unused and not is_letor(args.pairs):  # a LETOR file's qid forms the pairs
        print(f"note: not used for fitting (neither features a_/b_, ids, {columns.outcome}, "
              f"context nor weight): {', '.join(map(str, unused))}", file=sys.stderr)
    if args.auto:
        refuse_chosen_by_auto(args, "to a single fit")
    model = make_model(args)
    print(f"{X.shape[0]} pairs ({int(sum(y == 0))} ties), {len(features)} features; fitting "
          f"{'SVMCompareCV' if args.auto else type(model).__name__} ...", flush=True)
    if args.backend == "dask" and not (args.grid or args.auto):
        raise ValueError("--backend dask distributes the --grid or --auto search; add one.")
    if args.proba_interval is not None and not (args.bootstrap and args.probability):
        raise ValueError("--proba-interval chooses the probability intervals of a bootstrap: "
                         "give --bootstrap N and --probability.")
    if args.bootstrap_groups and (not args.bootstrap or groups is None):
        raise ValueError("--bootstrap-groups resamples the --groups column: give --bootstrap N "
                         "and --groups COLUMN.")
    if args.auto:
        # --loss squared_hinge: the default grid's linear points with that loss.
        estimator = SVMCompareCV(probability=args.probability, cv=auto_folds(groups),
                                 scoring=args.scoring, n_jobs=args.n_jobs, random_state=0,
                                 progress=False if args.no_progress else "auto",
                                 loss=auto_loss(args))
    elif args.grid:
        scoring = args.scoring or ("log_loss" if args.probability else "error")
        if scoring == "log_loss" and not args.probability:
            raise ValueError("--scoring log_loss scores probabilities: add --probability.")
        estimator = SVMCompareCV(estimator=model, scoring=scoring, n_jobs=args.n_jobs,
                                 probability=args.probability,
                                 progress=False if args.no_progress else "auto")
        # --grid folds: 5 plain folds, or with --bootstrap-groups group folds (at most 5).
        groups = groups if args.bootstrap_groups else None
    else:
        estimator = model
    fitted = _fit_point_and_bootstrap(args, estimator, X, y, context, groups, weight)
    point = fitted.estimator_ if args.bootstrap else fitted
    if args.auto or args.grid:
        chosen = chosen_text(point.best_params_)
        folds = "cross-validation" if args.auto else "5-fold cross-validation"
        value = point.cv_results_[f"mean_{point.scoring_}"].iloc[point.best_index_]
        print(f"chosen by {folds} ({point.scoring_}): {chosen} "
              f"({point.scoring_.replace('_', '-')} {value:.4f})")
        point = point.best_estimator_
    # A file keeps the refitted model of a search (with its replicates).
    model = fitted if args.bootstrap else point
    if args.bootstrap:
        model.estimator_ = point
        print(f"{args.bootstrap} bootstrap replicates over "
              f"{'groups' if args.bootstrap_groups else 'pairs'}: intervals by "
              "'svmcompare rank/predict --interval' and 'svmcompare leaderboard'")
    if not is_letor(args.pairs):  # LETOR features have numbers, not names
        # The names and order of the features, checked by predict / evaluate / rank.
        names = context_names(args.pairs, columns) if context is not None else []
        for part in (model, point):
            part.feature_names_in_ = np.asarray(features, dtype=object)
            if names:  # and of the context, checked by predict / evaluate
                part.context_names_in_ = np.asarray(names, dtype=object)
    save_model(model, args.model)
    args.written = args.model
    error = 1 - model.score(X, y, context=context)
    print(f"training error {100 * error:.1f}%; model written to {args.model}")
    if context is not None and hasattr(point, "context_effect"):
        _print_context_effect(point, names or [f"context {k}" for k in range(context.shape[1])])
    return 0


def _print_context_effect(model, names):
    """What each context column alone does to the probabilities, at equal
    scores: the advantage the probabilities use (the link's), which a review
    of LLM judgments looked for in context_coef_ (the SVM's: -0.05, of
    either sign over folds, where the link's read -0.10)."""
    import numpy as np

    model = getattr(model, "best_estimator_", model)  # a search's refitted choice
    if not hasattr(model, "calibrator_"):
        return
    base = model.context_effect(np.zeros((1, len(names))))[0]
    for k, name in enumerate(names):
        unit = np.zeros((1, len(names)))
        unit[0, k] = 1.0
        moved = model.context_effect(unit)[0]
        print(f"{name} = +1 (x' has the advantage), at equal scores: P(x better) / P(tie) / "
              f"P(x' better) {moved[0]:.3f} / {moved[1]:.3f} / {moved[2]:.3f}, against "
              f"{base[0]:.3f} / {base[1]:.3f} / {base[2]:.3f} at 0")


def _decayed(args, extras, weight, path=None):
    """The pair weights times --half-life decay by --time (or as they were), of
    the rows ``extras`` of ``path`` (the pairs file by default)."""
    if args.half_life is None and args.time is None:
        return weight
    if args.half_life is None or args.time is None:
        raise ValueError("--half-life and --time go together: results weigh less as they "
                         "age, by the time in the --time column.")

    from ..temporal import time_decay

    name = Path(path or args.pairs).name
    if args.time not in extras.columns:
        raise ValueError(f"{name} has no column {args.time!r} for --time.")
    times, kind = ordered_column(extras, args.time, "--time", name)
    decay = time_decay(times, args.half_life)
    unit = {"dates": "days", "seasons": "seasons", "months": "months"}.get(kind, "time units")
    print(f"weights halve every {args.half_life:g} {unit} back from the latest result; "
          f"the oldest weighs {decay.min():.3g}", flush=True)
    return decay if weight is None else weight * decay


def _fit_point_and_bootstrap(args, estimator, X, y, context, groups, weight):
    """``estimator`` fitted on all pairs, or with --bootstrap N a
    BootstrapCompare of it (the point fit and N replicates)."""
    from ..bootstrap import BootstrapCompare

    search = args.auto or args.grid
    if args.bootstrap:
        estimator = BootstrapCompare(estimator, n_resamples=args.bootstrap,
                                     resample="groups" if args.bootstrap_groups else "pairs",
                                     proba_interval=args.proba_interval or "calibrated",
                                     n_jobs=args.n_jobs, random_state=0,
                                     progress=False if args.no_progress else "auto")
        if not (search or args.bootstrap_groups):
            groups = None
    with parallel_backend(args):
        if search or args.bootstrap:
            return estimator.fit(X, y, context=context, groups=groups, sample_weight=weight)
        return estimator.fit(X, y, context=context, sample_weight=weight)


def _features(args):
    """Read a table of two-player results (ids of the two sides, a result, optionally a time
    and a positional advantage) and write it with each side's features from earlier periods
    only (Elo, Glicko, counts and shares of results: svmcompare.datasets.games_features) as
    a_<feature> and b_<feature> columns, the advantage as ctx_advantage and the labels as y:
    the pairs CSV that fit, predict and evaluate read. Nothing from a game or its period
    leaks into its own features, so later seasons can be predicted from these (fit --until,
    evaluate --after).
    """
    import numpy as np
    import pandas as pd

    from .._validation import empty_cells
    from ..datasets import games_features
    from ..datasets.games import GAME_FEATURES, POINTS_FEATURES
    from ..io import file_line, read_table
    from ..pairs import id_text

    check_output_files({"-o": args.output}, inputs=(args.games,))
    name = Path(args.games).name
    # Only the points (and an advantage column) as numbers: every other column
    # is copied to the output as written ("000123" stays, "NA" is text), and
    # the outcome is mapped from its text ("1" of a 1X2 column, not 1.0).
    numbers = {*(args.points or ()), args.advantage}
    games = read_table(args.games, numeric=lambda column: column in numbers)
    if len(games) == 0:
        raise ValueError(f"{name} has a header and no rows: there are no games in it.")
    names = list(GAME_FEATURES) + (list(POINTS_FEATURES) if args.points else [])
    taken = [c for c in games.columns if c in {f"{side}_{n}" for side in "ab" for n in names}]
    if taken:
        shown = ", ".join(taken[:4]) + (", ..." if len(taken) > 4 else "")
        raise ValueError(f"{name} already has the columns the features would add ({shown}): "
                         "features reads a table of results, not its own output.")
    for column in (args.a, args.b, args.outcome, *(args.points or ()),
                   *(() if args.time is None else (args.time,))):
        if column not in games.columns:
            raise ValueError(f"{name} has no column {column!r}; it has "
                             f"{list(games.columns)}.")
    for column in (args.a, args.b):  # named by its line (games_features counts games)
        empty = empty_cells(games[column])
        if empty.any():
            raise ValueError(f"{name}, line {file_line(games.index, np.flatnonzero(empty)[0])}, "
                             f"column {column}: empty id ({int(empty.sum())} row(s)); every "
                             "game needs both sides (remove rows left blank, e.g. at the end).")
    # Every id is filled in here, so two equal ids are one side on both.
    same = id_text(games[args.a].to_numpy()) == id_text(games[args.b].to_numpy())
    if same.any():  # named by its line here (games_features counts games from 0)
        k = int(np.flatnonzero(same)[0])
        raise ValueError(f"{name}, line {file_line(games.index, k)}: "
                         f"{games[args.a].iloc[k]!r} is in both "
                         f"--a {args.a} and --b {args.b} ({int(same.sum())} such row(s)); a "
                         "side cannot play itself: remove those rows (placeholders of "
                         "fixtures not drawn yet, such as 'TBC', are often the cause).")
    if args.time is not None:
        # games_features reads the column by the same rule; read here first, a
        # bad value is named by its line.
        column_keys(games[args.time], "--time", args.time, name)
    advantage = args.advantage
    if advantage is not None:
        try:
            advantage = float(advantage)
        except ValueError:  # a column name: a bad cell named by its line, as elsewhere
            _check_advantage_column(games, advantage, name)
    # The labels as fit reads them (map keys are text: "1" maps a result 1).
    labelled = games.assign(**{args.outcome: _game_labels(games, args, name)})
    X, y, context, info = games_features(
        labelled, first=args.a, second=args.b, result=args.outcome,
        outcome_map={-1: -1, 0: 0, 1: 1}, time=args.time, period=args.period,
        advantage=advantage, points=None if args.points is None else tuple(args.points),
        half_life=args.half_life, prior_games=args.prior_games,
        unplayed="fixtures" if args.fixtures else "error")
    out = games.reset_index(drop=True).copy()
    out = pd.concat([out, pd.DataFrame(X[:, 0], columns=[f"a_{n}" for n in names]),
                     pd.DataFrame(X[:, 1], columns=[f"b_{n}" for n in names])], axis=1)
    if context is not None:
        out["ctx_advantage"] = context[:, 0]
    out["y"] = pd.array(y, dtype="Int64")  # integer labels; a fixture's cell is empty
    if not write_table(out, args.output):
        return 0
    new = int(np.sum((info["first_games"] == 0) | (info["second_games"] == 0)))
    fixtures = int((~info["played"]).sum())
    print(f"{len(out)} games: {len(names)} history features of each side (a_, b_), "
          + ("ctx_advantage, " if context is not None else "") + f"labels y; {new} games "
          f"involve a player without earlier games"
          + (f"; {fixtures} fixtures without a result (y empty)" if fixtures else "")
          + f"; written to {args.output}")
    if context is not None:
        print(_advantage_counts(context[:, 0], args.advantage))
    return 0


def _advantage_counts(advantage, given):
    """How the games' advantage reads (+1: the second side has it), so that a
    column that means something else shows: a True / False "neutral" column read
    as "the second side at home" in every neutral game (a review)."""
    import numpy as np

    values, counts = np.unique(advantage, return_counts=True)
    meaning = {1.0: "the second side (--b) has it", -1.0: "the first side (--a) has it",
               0.0: "neither"}
    parts = [f"{count} games {'0' if value == 0 else f'{value:+g}'}"
             + (f" ({meaning[value]})" if value in meaning else "")
             for value, count in zip(values[:6], counts[:6], strict=True)]
    more = f" and {values.size - 6} more values" if values.size > 6 else ""
    return f"--advantage {given}: " + ", ".join(parts) + more


def _check_advantage_column(games, column, name):
    """The --advantage column: numbers (or True / False) in every row."""
    import numpy as np
    import pandas as pd

    from .._validation import plain_value
    from ..io import file_line

    if column not in games.columns:
        raise ValueError(f"{name} has no column {column!r} for --advantage (a column, or one "
                         f"number for every game); it has {list(games.columns)}.")
    values = games[column]
    if pd.api.types.is_bool_dtype(values):
        return
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(numbers)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        what = "empty cell" if pd.isna(values.iloc[k]) else f"{plain_value(values.iloc[k])!r}"
        raise ValueError(f"{name}, line {file_line(games.index, k)}, column {column}: {what} "
                         f"({int(bad.sum())} "
                         "row(s)); --advantage needs a number in every row: +1 when the "
                         "second side has the advantage, -1 the first, 0 neither.")


def _game_labels(games, args, name):
    """The label of every game from its result by --outcome-map, as fit maps
    outcomes; a game without a result is named by its line."""
    import numpy as np

    from .._validation import empty_cells
    from ..io import file_line, mapped_labels, parse_outcome_map

    result = games[args.outcome]
    empty = empty_cells(result)
    if empty.any() and not args.fixtures:
        raise ValueError(f"{name}, line {file_line(games.index, np.flatnonzero(empty)[0])}, "
                         f"column "
                         f"{args.outcome}: no result ({int(empty.sum())} row(s) without one, "
                         "e.g. games not played yet). Games not played yet: --fixtures gives "
                         "them features from the games played before them (the rest of a "
                         "season to predict); else remove the rows without a result (or fill "
                         "in their result).")
    labels = np.full(len(games), np.nan)
    labels[~empty] = mapped_labels(result[~empty], parse_outcome_map(args.outcome_map), name,
                                   args.outcome)
    return labels


def _rankings(args):
    """Read a table of results of more than two items at once (a race, a multi-way vote, a
    judge's ordering of several answers: one row per item and event, with its position, lower
    better, equal positions a tie, an empty cell unplaced) and write every pair of each event
    as a pairs CSV of ids: item_a, item_b, y (-1: item_a ahead, 0: a tie, 1: item_b ahead),
    weight (each item's pairs of an event weigh 1 in all, or 1 each with --weight pair) and
    event, the columns fit reads; fit --groups event keeps each event's pairs in one fold.
    """
    import pandas as pd

    from ..io import file_line, read_table
    from ..pairs import matches_from_rankings

    check_output_files({"-o": args.output}, inputs=(args.results,))
    results = read_table(args.results, numeric=lambda column: column == args.position)
    if len(results) == 0:
        raise ValueError(f"{Path(args.results).name} has a header and no rows: there are no "
                         "results in it.")
    name = Path(args.results).name
    if args.position not in results.columns:
        raise ValueError(f"{name} has no column {args.position!r}; it has "
                         f"{list(results.columns)}.")
    places = pd.to_numeric(results[args.position], errors="coerce")
    bad = places.isna() & results[args.position].notna()
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ValueError(f"{name}, line {file_line(results.index, row)}, column "
                         f"{args.position}: "
                         f"{str(results[args.position].iloc[row])!r} is not a number (leave "
                         "the cell empty for an item without a position).")
    if args.unplaced == "error" and places.isna().any():
        rows = places.isna().to_numpy().nonzero()[0]
        raise ValueError(f"{name}: {rows.size} row(s) without a position (first on line "
                         f"{file_line(results.index, rows[0])}); pass --unplaced last (tied "
                         "below every placed item of the event) or --unplaced drop.")
    keep = [c for c in args.keep.split(",") if c]
    table = matches_from_rankings(results.assign(**{args.position: places}), event=args.event,
                                  item=args.item, position=args.position, weight=args.weight,
                                  unplaced=args.unplaced, keep=keep)
    if table.empty:  # (an empty table written with status 0 before: an attack, stop 70)
        raise ValueError(f"{name}: no event has two or more items, so there is no pair to "
                         f"write (one row per item and event: --event {args.event} names the "
                         f"event, --item {args.item} the item).")
    if not write_table(table, args.output):
        return 0
    print(f"{table['event'].nunique()} events, {len(table)} pairs ({int((table['y'] == 0).sum())} "
          f"ties) written to {args.output}; e.g. svmcompare fit {args.output} --model MODEL "
          "--auto --probability --groups event")
    return 0


def _league(args):
    """Write a simulated football league (svmcompare.datasets.make_league): matches.csv
    (season, home, away, goals, result H/D/A, home_adv) and teams.csv (id, attack, defence,
    style), to try fit / predict / evaluate on results with draws and home advantage.
    """
    from ..datasets import make_league

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    matches, teams = make_league(random_state=args.seed)
    matches.to_csv(out / "matches.csv", index=False)
    teams.to_csv(out / "teams.csv", index=False)
    print(f"Wrote {out / 'matches.csv'} ({len(matches)} matches, {teams.shape[0]} teams, "
          f"seasons 1-{matches['season'].max()}) and {out / 'teams.csv'}.")
    return 0


def _predict(args):
    """Write y_pred in {-1, 0, 1} and the decision value d = r(x') - r(x)
    (+ v^T context) per pair, as the ``rank_difference`` column."""
    from ..io import is_letor
    from ..persistence import load_predictor

    check_output_files({"-o": args.output}, inputs=(args.model, args.pairs, args.items))
    if args.interval is not None:
        if not args.proba:
            raise ValueError("--interval gives intervals of the probabilities: add --proba.")
        if is_letor(args.pairs):
            raise ValueError("--interval applies to a pairs file, not to a LETOR file.")
        args.bootstrap_model = load_bootstrap(args.model, "predict --interval")
        model = load_pair_model(args.model, "predict")
    else:
        # The file's scoring part when it has one: no scikit-learn or skops to import.
        model = load_predictor(args.model) or load_pair_model(args.model, "predict")
    if args.proba and not hasattr(model, "predict_proba"):
        raise ValueError(f"{args.model} was fitted without --probability; refit with it "
                         "to get probabilities.")
    frames = (graded_predictions(args, model) if is_letor(args.pairs)
              else [_pair_predictions(args, model)])
    count = 0
    with written_whole(args.output) as target:
        for k, out in enumerate(frames):  # one frame, or a LETOR file's pairs chunk by chunk
            out.to_csv(target, index=False, header=k == 0, mode="w" if k == 0 else "a")
            count += len(out)
    if args.output != "-":
        print(f"{count} predictions written to {args.output}")
    return 0


def _pair_predictions(args, model):
    from ..io import read_pair_extras, read_pairs

    columns = pair_columns(args, model)
    _, extras, shown = read_pair_extras(args.pairs, columns, results=True)
    rows = rows_of(args, extras, args.pairs)
    X, _, features, context = read_pairs(args.pairs, args.items, require_labels=False,
                                         return_context=True, columns=columns, rows=rows)
    check_file_features(model, features, args.pairs, args)
    check_context_given(model, context, args.model, args.pairs, columns)
    if rows is not None:
        shown = shown[rows]
    # The file's columns but features first (ids, result, context), so results
    # join back without row order.
    return with_predictions(shown.reset_index(drop=True), model, X, context, args.proba,
                            args.interval, getattr(args, "bootstrap_model", None))


def _rank(args):
    """Write the ranking function r(x) of each item."""
    import pandas as pd

    from ..bootstrap import point_model
    from ..io import is_letor, load_letor
    from ..persistence import load_model

    check_output_files({"-o": args.output}, inputs=(args.model, args.items_file))
    model = load_model(args.model) if args.interval is None \
        else load_bootstrap(args.model, "rank --interval")
    ids, Z, features = items_of(model, args.items_file)
    check_file_features(point_model(model), features, args.items_file or args.model)
    note_degenerate(point_model(model), args.model)
    out = pd.DataFrame({"id": ids})
    if args.items_file is not None and is_letor(args.items_file):
        out["qid"] = load_letor(args.items_file)[2]  # which query each item answers
    # An ordinal model scores items by its pair model's r(x) (its grades cut it).
    scorer = model if hasattr(model, "rank") else model.pair_model_
    out["rank"] = scorer.rank(Z)
    if args.interval is not None:
        out["rank_lower"], out["rank_upper"] = model.rank_interval(Z, args.interval)
        _positions(out, model, Z, args.interval)
    # '-': standard output, as predict (a file named "-" was written instead).
    if write_table(out, args.output):
        what = "" if args.interval is None else \
            f" with {100 * args.interval:g}% intervals of the scores and of the positions"
        print(f"{len(ids)} scores r(x){what} written to {args.output} (larger is better)")
    return 0


def _positions(out, model, Z, confidence):
    """Rank positions and their intervals into ``out``: among all items, or
    of a LETOR file among the items of each query (items of different queries
    are never compared)."""
    import numpy as np

    queries = [np.arange(len(out))] if "qid" not in out else \
        list(out.reset_index(drop=True).groupby("qid", sort=False).indices.values())
    position, best, worst = (np.empty(len(out), dtype=np.int64) for _ in range(3))
    for rows in queries:
        position[rows] = model.rank_positions(Z[rows])
        best[rows], worst[rows] = model.rank_position_interval(Z[rows], confidence)
    out["position"], out["position_best"], out["position_worst"] = position, best, worst


def _leaderboard(args):
    """Items sorted by score r(x) with bootstrap intervals (--interval, a model fitted with
    --bootstrap), games played and win / draw / loss counts (--games), and the head-to-head
    probabilities of the top items (a model with --probability), as a self-contained HTML
    page, a PNG / SVG figure or a CSV table.
    """

    from ..bootstrap import point_model
    from ..leaderboard import check_leaderboard_path, head_to_head, leaderboard, write_leaderboard
    from ..persistence import load_model

    for path in args.output:  # all of them before any is written
        check_leaderboard_path(path)
    check_output_files({f"-o (file {k + 1})": path for k, path in enumerate(args.output)},
                       inputs=(args.model, args.items_file, args.games))
    if args.top < 1:
        raise ValueError(f"--top must be a positive integer (items in the head-to-head table); "
                         f"got {args.top}.")
    model = load_model(args.model)
    if args.interval is not None and type(model).__name__ != "BootstrapCompare":
        load_bootstrap(args.model, "leaderboard --interval")  # the error
    point = point_model(model)
    if not hasattr(point, "rank"):
        raise ValueError(f"{args.model} holds a {type(point).__name__}; a leaderboard needs a "
                         "pair model from 'svmcompare fit' on a pairs file.")
    ids, Z, features = items_of(model, args.items_file)
    check_file_features(point, features, args.items_file or args.model)
    note_degenerate(point, args.model)
    games, notes = (None, []) if args.games is None else _games_of(args, point, ids)
    if args.min_games is not None and games is None:
        raise ValueError("--min-games counts each item's games: give them with --games.")
    if (args.until is not None or args.after is not None) and games is None:
        raise ValueError("--until / --after select the --games rows to count: give them with "
                         "--games.")
    if (args.time is not None or args.half_life is not None) and games is None:
        raise ValueError("--time / --half-life weigh the --games rows as the fit did: give "
                         "them with --games.")
    table = leaderboard(model if args.interval is not None else point, Z, ids, games=games,
                        confidence=args.interval, min_games=args.min_games)
    # The head to head among the ranked items only.
    head = head_to_head(point, Z, ids, top=args.top, games=games, min_games=args.min_games) \
        if hasattr(point, "predict_proba") else None
    for path in args.output:
        write_leaderboard(table, path, head, title=args.title, notes=notes)
        print(f"leaderboard of {len(table)} items written to {path}")
    return 0


def _games_of(args, model, ids):
    """(a ids, b ids, labels) of the --games file's rows (--until / --after:
    the games the model was fitted on, say), and the page's notes on them; an
    id the board does not rank (``ids``) is refused, or with --unknown mean
    counted apart, with a note."""
    from dataclasses import replace

    import numpy as np

    from ..io import read_pair_extras, read_pairs
    from ..pairs import id_text

    # Only the ids and results count: the games' own ids, no items or model columns.
    args.items = None
    columns = replace(pair_columns(args, model), identities=None, sparse_identities=True)
    _, extras = read_pair_extras(args.games, columns)
    rows = rows_of(args, extras, args.games)
    _, y, _ = read_pairs(args.games, columns=columns, unlabeled="nan", rows=rows)
    if rows is not None:
        extras = extras[rows].reset_index(drop=True)
    played = labeled_pairs(y, rows, args.games, columns.outcome)
    if played is not None:  # fixtures: no result to count
        y, extras = y[played], extras[played]
    weight = _decayed(args, extras, None, args.games)  # --time / --half-life, as the fit's
    a, b = extras[columns.a].to_numpy(), extras[columns.b].to_numpy()
    ranked = set(id_text(np.asarray(ids, dtype=object)))
    unseen = sorted({str(i) for i in id_text(np.concatenate([a, b])) if i not in ranked})
    name = Path(args.games).name
    if unseen:
        from .._validation import listed

        shown = listed(unseen, show=repr)
        if args.unknown == "error":
            raise ValueError(f"{name}: {len(unseen)} id(s) the board does not rank (not in "
                             f"the model's items): {shown}; --unknown mean counts their games "
                             "apart.")
        print(f"note: {name}: {len(unseen)} id(s) not ranked (not in the model's items), "
              f"their games counted apart: {shown}", file=sys.stderr)
    window = " and ".join(f"{flag} {value}" for flag, value in (("--after", args.after),
                                                                 ("--until", args.until))
                          if value is not None)
    notes = [f"Games, wins, draws and losses: the {len(y)} games of {name}"
             + (f" with {window}" if window else "") + "."]
    if unseen:
        notes.append(f"{len(unseen)} id(s) of those games are not ranked (not in the model's "
                     f"items), their games counted apart: {shown}.")
    if weight is not None:
        notes.append(f"Weighted games: each game weighs 2^(-age / {args.half_life:g}) by its "
                     f"{args.time} back from the latest counted, as the fit's --half-life "
                     "weighs it; --min-games counts games by weight.")
    games = (a, b, y.astype(int)) if weight is None else (a, b, y.astype(int), weight)
    return games, notes


def _evaluate(args):
    """On labeled pairs: the zero-one error of the model's labels (the most probable outcome
    for a model fitted with --probability, else the comparison rule; the output says which)
    with its false positive / false negative / inversion split; for a model with
    probabilities, a table of the log-loss, Brier score and accuracy of its win / tie / loss
    probabilities next to the training frequencies (the baseline to beat; weighted as the
    fit weighed its pairs, so a --half-life moves them); and the comparison AUC (Table 3).
    """
    check_output_files({"--plot": args.plot}, figures=("--plot",),
                       inputs=(args.model, args.pairs, args.items))
    import numpy as np

    from ..io import is_letor, read_pair_extras, read_pairs
    from ..metrics import (
        comparison_auc_chance,
        comparison_report,
        outcome_accuracy,
        outcome_brier,
        outcome_log_loss,
    )

    if is_letor(args.pairs):
        model, items = report_graded(args)
        if model is None:
            return 0
        y, score, proba = graded_pair_outputs(model, args.pairs, *items)
    else:
        model = load_pair_model(args.model, "evaluate")
        columns = pair_columns(args, model)
        # The other columns (a second read of the file) only for a row filter.
        rows = None if args.until is None and args.after is None else \
            rows_of(args, read_pair_extras(args.pairs, columns)[1], args.pairs)
        X, y, features, context = read_pairs(args.pairs, args.items, return_context=True,
                                             columns=columns, unlabeled="nan", rows=rows)
        check_file_features(model, features, args.pairs, args)
        check_context_given(model, context, args.model, args.pairs, columns)
        X, y, _, context, _ = take_pairs(labeled_pairs(y, rows, args.pairs, columns.outcome),
                                         X, y, context=context)
        y = y.astype(np.int64)
        score = model.decision_function(X, context)
        proba = model.predict_proba(X, context) if hasattr(model, "predict_proba") else None
    labels, rule = _labels_and_rule(model, score, proba)
    report = comparison_report(y, score, model.threshold_, y_pred=labels)
    n = report["count"]
    print(f"pairs {n} ({report['equality']} ties, {report['inequality']} non-ties)")
    print(f"zero-one error {100 * report['error_rate']:.2f}% ({rule}): false positives "
          f"{report['false_positive']} (tie predicted different), false negatives "
          f"{report['false_negative']} (difference predicted tie), inversions "
          f"{report['inversion']} (wrong direction)")
    if proba is not None:
        prior = np.tile(model.class_prior_, (n, 1))
        print(f"{'':24} {'log-loss':>9} {'Brier':>7} {'accuracy':>9}")
        for label, p in (("model", proba), ("training frequencies", prior)):
            print(f"{label:<24} {outcome_log_loss(y, p):>9.4f} {outcome_brier(y, p):>7.4f} "
                  f"{outcome_accuracy(y, p):>9.3f}")
        print("(training frequencies: P(-1), P(0), P(1) = "
              + ", ".join(f"{v:.3f}" for v in model.class_prior_)
              + " for every pair, the baseline to beat; weighted as the fit weighed its "
              "pairs: a --half-life or weight column moves them)")
    if not np.isnan(report["auc"]):
        auc, chance = report["auc"], comparison_auc_chance()
        print(f"comparison AUC (Table 3) {auc:.4f} (chance is {chance:g}, not 0.5: a "
              "difference counts as found only with the right sign)")
        if args.plot:
            plot_evaluation(args.plot, y, score, auc, chance, proba)
    else:
        print("comparison AUC: needs both ties and non-ties in y")
        if args.plot:  # (nothing was said before: an attack, stop 70)
            print(f"svmcompare evaluate: {args.plot} not written: the comparison ROC needs "
                  "both ties and non-ties in y.", file=sys.stderr)
    return 0


def _labels_and_rule(model, score, proba):
    """The labels ``predict`` gives (from the scores and probabilities at
    hand) and the rule that made them, in words."""
    from .._threshold import labels_at_threshold
    from ..ranking_function import least_cost_labels

    if proba is not None:
        cost = getattr(model, "cost", None)
        rule = ("labels: the most probable outcome (a tie where both sides are equally "
                "likely to win)" if cost is None
                else "labels: the outcome of least expected cost")
        return least_cost_labels(proba, cost), rule
    return labels_at_threshold(score, model.threshold_), \
        f"labels: the comparison rule, a tie when |r(x') - r(x)| <= {model.threshold_:.4g}"


def add_product_commands(sub):
    fit = add_command(sub, "fit", _fit,
                      "fit a comparison model on a CSV of labeled pairs and save it")
    add_pairs_arguments(fit, labels=True)
    fit.add_argument("--model", required=True, help="model file to write (skops format)")
    fit.add_argument("--model-type", choices=MODEL_TYPES, default="compare",
                     help="compare (SVMCompare), rank, rank2 (RankSVM baselines), lp "
                          "(SVMCompareLP); default %(default)s")
    add_model_arguments(fit)
    fit.add_argument("--probability", action="store_true",
                     help="also fit win/tie/loss probabilities (five calibration folds "
                          "started from the fit: about 1.5-4x its time)")
    fit.add_argument("--calibration", choices=["auto", "cv", "loo"], default="auto",
                     help="with --probability: 'auto' (default) five folds, or a linear "
                          "fit's own rank differences from 100 pairs per weight on; 'cv' "
                          "always five folds; 'loo' leave-one-out estimates from the exact "
                          "fit, no refits (faster; up to 0.01 worse log-loss at some settings "
                          "on real games)")
    fit.add_argument("--auto", action="store_true",
                     help="the auto-tuned model for real data (SVMCompareCV): kernel, C, gamma, "
                          "class weight and, with --probability, the probability link chosen "
                          "by cross-validated log-loss")
    fit.add_argument("--groups", default=None, metavar="COLUMN",
                     help="with --auto: folds keep each group (season, person) together, "
                          "and the search keeps the simplest model within half a standard "
                          "error of the best (one without --groups); with --bootstrap-groups: "
                          "the groups resampled")
    fit.add_argument("--grid", action="store_true",
                     help="choose C and gamma by 5-fold cross-validation over the paper's grid")
    fit.add_argument("--scoring", choices=["error", "auc", "log_loss"], default=None,
                     help="criterion of --grid: error, auc, or log_loss of the calibrated "
                          "probabilities (needs --probability); default log_loss with "
                          "--probability, else error")
    fit.add_argument("--n-jobs", type=int, default=None, help="parallel fits of --grid")
    fit.add_argument("--backend", choices=["loky", "dask"], default="loky",
                     help="where --grid runs: local processes (default) or a Dask cluster")
    fit.add_argument("--scheduler", default=None,
                     help="address of the Dask scheduler for --backend dask")
    fit.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_half_life(fit, "column of each result's time (dates, numbers or seasons such as "
                       "2018-19), for --half-life",
                  "weigh each result by 2^(-age / H), its age back from the latest result in "
                  "days (dates), seasons, months or the --time column's units")
    fit.add_argument("--bootstrap", type=int, default=0, metavar="N",
                     help="also fit N bootstrap resamples (e.g. 200), for confidence intervals "
                          "of scores, rank positions and probabilities (rank / predict "
                          "--interval, leaderboard); a search's choice is held fixed")
    fit.add_argument("--proba-interval", choices=["calibrated", "percentile"], default=None,
                     help="with --bootstrap and --probability: probability intervals from the "
                          "calibrated bootstrap (the default; three times the fits: the "
                          "replicates' percentile intervals cover too rarely) or the plain "
                          "percentiles")
    fit.add_argument("--bootstrap-groups", action="store_true",
                     help="resample whole --groups (judges, prompts, tournaments) instead of "
                          "pairs: for pairs of one group that are not independent draws")

    features = add_command(sub, "features", _features,
                           "a results table to leak-free history features (a pairs CSV)")
    features.add_argument("games", help="results CSV")
    add_result_columns(features, "the results CSV", required=True)
    features.add_argument("--time", default=None, metavar="COLUMN",
                          help="column of the game's time (dates, YYYYMMDD, periods or "
                               "seasons such as 2019-20, read in time's order; other labels "
                               "are refused); default: the row order")
    features.add_argument("--period", default="D",
                          help="rating period for dates, a pandas offset alias (default D)")
    features.add_argument("--advantage", default=None, metavar="COLUMN|NUMBER",
                          help="positional advantage of x' (+1: x' at home, -1: x at home), a "
                               "column or one number for every game")
    features.add_argument("--points", nargs=2, default=None, metavar=("A_COLUMN", "B_COLUMN"),
                          help="columns of each side's points in the game (goals, runs): adds "
                               "form_margin, form_for and form_against, weighted means of "
                               "earlier games")
    features.add_argument("--half-life", type=float, default=10.0, metavar="GAMES",
                          help="with --points: a game this many games older weighs half "
                               "(default 10)")
    features.add_argument("--prior-games", type=float, default=None, metavar="K",
                          help="a cold-start prior: each side's shares and means shrunk "
                               "toward every earlier game's by K pseudo-games, so a side new "
                               "to the table gets the population's values, not zeros "
                               "(default: none)")
    features.add_argument("--fixtures", action="store_true",
                          help="rows without a result are games not played yet (the rest of "
                               "a season): featured from the games played before them, "
                               "changing nothing, with an empty y (fit, evaluate and rolling "
                               "leave them out; predict them with predict --after)")
    features.add_argument("-o", "--output", required=True, help="pairs CSV to write")
    rankings = add_command(sub, "rankings", _rankings,
                           "results of more than two items (races, multi-way votes) to a "
                           "pairs CSV of every pair, ties kept")
    rankings.add_argument("results", help="results CSV: one row per item and event")
    rankings.add_argument("--event", required=True, metavar="COLUMN",
                          help="column of the event (race, vote, judge and prompt)")
    rankings.add_argument("--item", required=True, metavar="COLUMN",
                          help="column of the item's id")
    rankings.add_argument("--position", required=True, metavar="COLUMN",
                          help="column of the finishing position (lower is better; equal "
                               "positions tie)")
    rankings.add_argument("--weight", choices=["item", "pair"], default="item",
                          help="item (default): each item's pairs of an event weigh 1 in all, "
                               "1 / (k - 1) each in a field of k; pair: every pair 1")
    rankings.add_argument("--unplaced", choices=["error", "last", "drop"], default="error",
                          help="rows without a position: an error (default), tied below every "
                               "placed item of the event, or left out")
    rankings.add_argument("--keep", default="", metavar="COLUMNS",
                          help="comma-separated event columns (date, season) copied to the pairs")
    rankings.add_argument("-o", "--output", required=True, help="pairs CSV to write")
    league = add_command(sub, "league", _league,
                         "write a simulated league (matches.csv, teams.csv) to try the commands")
    league.add_argument("--out", default="svmcompare-league",
                        help="output folder (default: %(default)s)")
    league.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")

    predict = add_command(sub, "predict", _predict, "compare pairs with a saved model")
    add_saved_model(predict)
    add_pairs_arguments(predict, labels=False)
    predict.add_argument("--proba", action="store_true",
                         help="add P(x better), P(tie), P(x' better) (model fitted with "
                              "--probability)")
    predict.add_argument("-o", "--output", required=True, help="output CSV ('-': standard output)")
    add_interval(predict, "each probability (with --proba)")

    rank = add_command(sub, "rank", _rank, "score items r(x) with a saved model")
    add_saved_model(rank, items=True)
    rank.add_argument("-o", "--output", required=True, help="output CSV ('-': standard output)")
    add_interval(rank, "each score and rank position")

    board = add_command(sub, "leaderboard", _leaderboard,
                        "a leaderboard: items by score, intervals, records, head to head")
    add_saved_model(board, items=True)
    board.add_argument("-o", "--output", required=True, nargs="+", metavar="FILE",
                       help="board.html, board.png, board.svg and / or board.csv")
    board.add_argument("--games", default=None, metavar="PAIRS.csv",
                       help="games (a pairs file with outcomes) to count games and results")
    add_result_columns(board, "--games")
    board.add_argument("--unknown", choices=["error", "mean"], default="mean",
                       help="ids of --games the model never saw (default: %(default)s: counted "
                            "apart, not ranked)")
    for flag, relation in (("--until", "at most"), ("--after", "above")):
        board.add_argument(flag, default=None, metavar="COLUMN=VALUE",
                           help=f"with --games: count only the games whose COLUMN is {relation} "
                                f"VALUE (give the fit's own {flag}, if any, to count the games "
                                "the ratings come from: the model file does not record them)")
    add_interval(board, "scores and rank positions")
    board.add_argument("--top", type=int, default=10, help="items in the head-to-head table "
                       "(default: %(default)s)")
    board.add_argument("--title", default="Leaderboard", help="the page's title")
    board.add_argument("--min-games", type=int, default=None, metavar="K",
                       help="with --games: rank only the items of at least K games (an item of "
                            "a few lucky games can top a board), by weight with --half-life")
    add_half_life(board, "with --games and --half-life: the column of each game's time, as "
                         "the fit's --time",
                  "with --games: the fit's --half-life, to show each item's games by their "
                  "weight in the fit (weighted_games; an item whose games weigh under one game "
                  "in all has a score of next to no results)")
    board.set_defaults(context="", items=None)
    add_rolling_command(sub)

    evaluate = add_command(sub, "evaluate", _evaluate,
                           "test error, probability scores and AUC of a saved model")
    add_saved_model(evaluate)
    add_pairs_arguments(evaluate, labels=True)
    evaluate.add_argument("--plot", default=None, help="write the ROC curve to this PNG/SVG")
