"""Command line: ``svmcompare <command>``.  Thin: parses, calls the library, prints."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {text}")
    return value


def _demo(args):
    import pandas as pd

    from .experiments import run_figure3
    from .experiments.reproduce import write_figure3

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    seeds = list(range(args.seed, args.seed + args.seeds))
    print(
        f"Fitting rank, rank2 and compare on the simulated ||x||_1^2 pattern: "
        f"{args.n_pairs} train and {args.n_pairs} validation pairs, half equality; "
        f"10 x 10 grid (C, gamma) selected by validation error; {args.n_test} test pairs; "
        f"{len(seeds)} data sets (seeds {seeds[0]}-{seeds[-1]})."
    )
    tables = []
    for seed in seeds:
        result = run_figure3(n_pairs=args.n_pairs, n_test=args.n_test, random_state=seed,
                             n_jobs=args.n_jobs, progress=not args.no_progress)
        if seed == seeds[0]:
            write_figure3(result, out)  # level curves of the first data set
        tables.append(result.errors.assign(seed=seed))
    errors = pd.concat(tables, ignore_index=True)
    errors.to_csv(out / "errors.csv", index=False)
    test = errors[errors["set"] == "test"]
    # One data set is a noisy draw (at 100 pairs compare's test error ranged
    # 13.9-22.0% over seeds 1-6): the demo reports the mean over several.
    summary = test.groupby("model", sort=False).agg(
        mean=("error_percent", "mean"), sd=("error_percent", "std"),
        FP=("false_positive", "mean"), FN=("false_negative", "mean"),
        inv=("inversion", "mean"))
    print()
    print(f"{'model':<8} {'test error %':>14} {'FP':>6} {'FN':>6} {'inv':>6}   per seed")
    for model, row in summary.iterrows():
        each = " ".join(f"{v:.1f}" for v in test.loc[test["model"] == model, "error_percent"])
        sd = 0.0 if pd.isna(row["sd"]) else row["sd"]
        print(f"{model:<8} {row['mean']:>7.1f} ± {sd:<4.1f} {row['FP']:>6.0f} {row['FN']:>6.0f} "
              f"{row['inv']:>6.0f}   {each}")
    print("(mean ± sd over the data sets; FP: equality pair predicted different; FN: "
          "difference predicted equal; inv: difference predicted the wrong way (mean counts); "
          "truth: the latent r with threshold 1)")
    print(f"\nWrote {out / 'figure3.png'} (seed {seeds[0]}), errors.csv (every seed), "
          f"level_curves.csv and validation_grid.csv in {out}/ "
          f"({time.perf_counter() - start:.1f} s).")
    return 0


def _reproduce(args):
    from .experiments.reproduce import reproduce

    figures = FIGURES if args.figure == "all" else (args.figure,)
    start = time.perf_counter()
    print(f"Reproducing {', '.join(figures)}{' (quick settings)' if args.quick else ''} "
          f"into {args.out}/ ...")
    reproduce(figures, args.out, quick=args.quick, sushi_path=args.sushi_path,
              chess_path=args.chess_path, n_jobs=args.n_jobs, progress=not args.no_progress,
              log=lambda message: print("\n" + message, flush=True))
    print(f"\nDone in {time.perf_counter() - start:.0f} s. Tables (CSV) and plots (PNG, SVG) "
          f"are in {args.out}/.")
    return 0


MODEL_TYPES = ("compare", "rank", "rank2", "lp")


def _make_model(args):
    from . import SVMCompare, SVMCompareLP, SVMRank, SVMRank2

    params = {"C": args.C, "kernel": _kernel(args), "gamma": args.gamma, "degree": args.degree}
    class_weight = None if args.class_weight == "none" else args.class_weight
    calibration = getattr(args, "calibration", "cv")
    if args.model_type == "lp":
        if args.probability:
            raise ValueError("--probability is not available for --model-type lp.")
        return SVMCompareLP(class_weight=class_weight, **params)
    if calibration != "cv" and not args.probability:
        raise ValueError(f"--calibration {calibration} sets how --probability calibrates; "
                         "add --probability.")
    # A progress line for a long exact fit, unless --no-progress (a --grid has its own).
    verbose = not (getattr(args, "no_progress", False) or getattr(args, "grid", False))
    if args.model_type == "compare":
        return SVMCompare(class_weight=class_weight, probability=args.probability,
                          calibration=calibration, random_state=0, verbose=verbose, **params)
    model = SVMRank if args.model_type == "rank" else SVMRank2
    return model(probability=args.probability, calibration=calibration, random_state=0,
                 verbose=verbose, **params)


@contextlib.contextmanager
def _parallel_backend(args):
    """joblib's default backend, or a Dask cluster at ``--scheduler``."""
    if args.backend != "dask":
        yield
        return
    if not args.scheduler:
        raise ValueError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786).")
    try:
        import joblib
        from distributed import Client
    except ImportError as exc:
        raise ValueError("--backend dask needs dask.distributed: pip install "
                         "'svmcompare[dask]'.") from exc
    with Client(args.scheduler, timeout="30s") as client, joblib.parallel_backend("dask"):
        print(f"grid search on the Dask cluster at {client.scheduler.address}", flush=True)
        yield


def _check_feature_names(model, features, path, args=None):
    """Refuse a file whose features differ from the model's in name or order,
    saying what to add on the command line where that is the cause."""
    from ._validation import check_feature_names
    from .io import identities_of

    expected = getattr(model, "feature_names_in_", None)
    try:
        check_feature_names(expected, features, Path(path).name)
    except ValueError as exc:
        hint = ""
        if args is not None and getattr(args, "items", None) is None \
                and identities_of(features) is not None and identities_of(expected) is None:
            hint = (" The file lists item ids and the model was fitted on item features: "
                    "add --items ITEMS.csv (an id column plus those features).")
        raise ValueError(f"{exc}{hint}") from None


def _check_context_given(model, context, path):
    """The command line's wording for a model fitted with a pair context."""
    ranking = getattr(model, "ranking_", None)
    needed = 0 if ranking is None else ranking.n_context
    if needed and context is None:
        raise ValueError(f"{path} was fitted with a pair context of {needed} column(s): give "
                         "them with --context COLUMNS (or as ctx_<name> columns in the file); "
                         "0 where neither position has an advantage.")


def _fits_every_pair(args):
    """Whether ``fit`` on a LETOR file trains on every within-query pair
    without forming them (the all-pairs solver: a linear SVMCompare with
    ties kept); other settings form the pairs."""
    from .io import is_letor

    return (is_letor(args.pairs) and args.model_type == "compare" and _kernel(args) == "linear"
            and not (args.grid or args.auto or args.probability))


def _fit_graded(args):
    """A linear SVMCompare on every within-query pair of a LETOR file, equal
    grades as ties, through GroupRankSVM(pairs="all"): memory O(items), not
    O(pairs).  Saves the pair model, which every pair command takes."""
    import numpy as np

    from . import GroupRankSVM
    from .graded import THRESHOLD_PAIRS
    from .io import load_letor
    from .pairs import pair_indices, sample_pair_indices
    from .persistence import save_model

    Z, grades, qid = load_letor(args.pairs)
    if np.unique(np.stack([qid, grades], axis=1), axis=0).shape[0] == qid.size:
        raise ValueError(f"{Path(args.pairs).name}: no two items of a query share a grade, so "
                         "there are no ties for SVMCompare to learn from; --model-type rank "
                         "learns from the ordered pairs alone.")
    print(f"{Z.shape[0]} items in {np.unique(qid).size} queries, {Z.shape[1]} features; "
          "fitting SVMCompare (linear) on every pair within a query, equal grades as ties, "
          "without forming the pairs ...", flush=True)
    class_weight = None if args.class_weight == "none" else args.class_weight
    ranker = GroupRankSVM(C=args.C, kernel="linear", ties="keep", class_weight=class_weight,
                          pairs="all", n_jobs=args.n_jobs, random_state=0)
    ranker.fit(Z, grades, qid)
    model = ranker.pair_model_
    save_model(model, args.model)
    args.written = args.model
    # The training error without listing every pair: on all of them when few,
    # else on a uniform sample (its standard error is at most 0.11 points).
    if ranker.n_pairs_ <= THRESHOLD_PAIRS:
        first, second, labels = pair_indices(grades, qid, "keep")
        on = f"all {labels.size} pairs"
    else:
        first, second, labels = sample_pair_indices(grades, qid, THRESHOLD_PAIRS, random_state=0)
        on = f"{labels.size} pairs drawn at random from the {ranker.n_pairs_}"
    error = 1 - model.score(np.stack([Z[first], Z[second]], axis=1), labels)
    print(f"training error {100 * error:.1f}% (on {on}); model written to {args.model}")
    return 0


_MANY_PAIRS = 1_000_000  # formed pairs of a LETOR file that earn a note


def _note_formed_pairs(X):
    """The pairs ``X`` formed from a LETOR file: when they are many, say what
    they cost and which settings train on every pair without forming them."""
    if X.shape[0] > _MANY_PAIRS:
        print(f"note: {X.shape[0]} pairs within queries, formed here as "
              f"{X.nbytes / 2**30:.1f} GB of pair features; --kernel linear without "
              "--grid, --auto and --probability trains on every pair without forming "
              "them.", file=sys.stderr, flush=True)


def _fit(args):
    if _fits_every_pair(args):
        return _fit_graded(args)
    import numpy as np

    from .io import is_letor, read_pair_extras, read_pairs
    from .model_selection import SVMCompareCV
    from .persistence import save_model

    columns = _pair_columns(args)
    X, y, features, context = read_pairs(args.pairs, args.items, return_context=True,
                                         columns=columns)
    if is_letor(args.pairs):
        _note_formed_pairs(X)
    weight, extras = read_pair_extras(args.pairs, columns)
    rows = _rows(args, extras, args.pairs)
    if rows is not None:
        X, y, extras = X[rows], y[rows], extras[rows].reset_index(drop=True)
        context = None if context is None else context[rows]
        weight = None if weight is None else weight[rows]
    groups = _groups(args, extras)
    unused = [c for c in extras.columns if c not in (columns.a, columns.b, args.groups)]
    if unused and not is_letor(args.pairs):  # a LETOR file's qid forms the pairs
        print(f"note: not used for fitting (neither features a_/b_, ids, {columns.outcome}, "
              f"context nor weight): {', '.join(map(str, unused))}", file=sys.stderr)
    if args.auto and args.calibration != "cv":
        raise ValueError("--auto calibrates on its own search folds; --calibration applies "
                         "to a single fit.")
    model = _make_model(args)
    print(f"{X.shape[0]} pairs ({int(sum(y == 0))} ties), {len(features)} features; fitting "
          f"{'SVMCompareCV' if args.auto else type(model).__name__} ...", flush=True)
    if args.backend == "dask" and not (args.grid or args.auto):
        raise ValueError("--backend dask distributes the --grid or --auto search; add one.")
    if args.auto:
        search = SVMCompareCV(probability=args.probability, cv=_auto_folds(groups),
                              scoring=args.scoring,
                              n_jobs=args.n_jobs, random_state=0, progress=not args.no_progress)
        with _parallel_backend(args):
            search.fit(X, y, context=context, groups=groups, sample_weight=weight)
        chosen = ", ".join(f"{k} = {v}" for k, v in search.best_params_.items())
        print(f"chosen by cross-validation ({search.scoring_}): "
              f"{chosen} (score {search.best_score_:.4f})")
        model = search.best_estimator_
    elif args.grid:
        scoring = args.scoring or ("log_loss" if args.probability else "error")
        if scoring == "log_loss" and not args.probability:
            raise ValueError("--scoring log_loss scores probabilities: add --probability.")
        search = SVMCompareCV(estimator=model, scoring=scoring, n_jobs=args.n_jobs,
                              probability=args.probability, progress=not args.no_progress)
        with _parallel_backend(args):
            search.fit(X, y, context=context, sample_weight=weight)
        chosen = ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                           for k, v in search.best_params_.items())
        print(f"chosen by 5-fold cross-validation ({scoring}): {chosen} "
              f"(score {search.best_score_:.4f})")
        model = search.best_estimator_
    else:
        model.fit(X, y, context=context, sample_weight=weight)
    if not is_letor(args.pairs):  # LETOR features have numbers, not names
        # The names and order of the features, checked by predict / evaluate / rank.
        model.feature_names_in_ = np.asarray(features, dtype=object)
    save_model(model, args.model)
    args.written = args.model
    error = 1 - model.score(X, y, context=context)
    print(f"training error {100 * error:.1f}%; model written to {args.model}")
    return 0


def _features(args):
    """A results table to leak-free history features (``games_features``), as
    a pairs CSV in the wide layout that fit / predict / evaluate read."""
    import numpy as np
    import pandas as pd

    from .datasets import games_features
    from .datasets.games import GAME_FEATURES
    from .io import parse_outcome_map, read_table

    games = read_table(args.games, numeric=lambda column: column not in (args.a, args.b))
    for column in (args.a, args.b, args.outcome):
        if column not in games.columns:
            raise ValueError(f"{Path(args.games).name} has no column {column!r}; it has "
                             f"{list(games.columns)}.")
    advantage = args.advantage
    if advantage is not None:
        try:
            advantage = float(advantage)
        except ValueError:
            pass  # a column name
    X, y, context, info = games_features(
        games, first=args.a, second=args.b, result=args.outcome,
        outcome_map=parse_outcome_map(args.outcome_map), time=args.time, period=args.period,
        advantage=advantage)
    names = list(GAME_FEATURES)
    out = games.reset_index(drop=True).copy()
    out = pd.concat([out, pd.DataFrame(X[:, 0], columns=[f"a_{n}" for n in names]),
                     pd.DataFrame(X[:, 1], columns=[f"b_{n}" for n in names])], axis=1)
    if context is not None:
        out["ctx_advantage"] = context[:, 0]
    out["y"] = y
    out.to_csv(args.output, index=False)
    new = int(np.sum((info["first_games"] == 0) | (info["second_games"] == 0)))
    print(f"{len(out)} games: {len(names)} history features of each side (a_, b_), "
          + ("ctx_advantage, " if context is not None else "") + f"labels y; {new} games "
          f"involve a player without earlier games; written to {args.output}")
    return 0


def _league(args):
    from .datasets import make_league

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    matches, teams = make_league(random_state=args.seed)
    matches.to_csv(out / "matches.csv", index=False)
    teams.to_csv(out / "teams.csv", index=False)
    print(f"Wrote {out / 'matches.csv'} ({len(matches)} matches, {teams.shape[0]} teams, "
          f"seasons 1-{matches['season'].max()}) and {out / 'teams.csv'}.")
    return 0


def _rows(args, frame, path):
    """The rows --until / --after keep (a boolean mask), or None: rows whose
    COLUMN is at most (--until) or above (--after) VALUE, numbers compared as
    numbers, anything else (ISO dates, seasons) as text."""
    import numpy as np
    import pandas as pd

    mask = None
    for option, keep_after in (("until", False), ("after", True)):
        spec = getattr(args, option, None)
        if spec is None:
            continue
        column, sep, value = spec.partition("=")
        if not sep or column not in frame.columns:
            raise ValueError(f"--{option} {spec!r}: write COLUMN=VALUE with a column of "
                             f"{Path(path).name} (it has {list(frame.columns)}).")
        values = frame[column]
        numbers = pd.to_numeric(values, errors="coerce")
        try:
            bound = float(value)
            numeric = numbers.notna().all()
        except ValueError:
            numeric = False
        left = numbers.to_numpy() if numeric else values.astype(str).to_numpy()
        right = bound if numeric else value
        chosen = left > right if keep_after else left <= right
        mask = chosen if mask is None else mask & chosen
    if mask is not None and not np.any(mask):
        raise ValueError(f"--until / --after keep no row of {Path(path).name}.")
    return mask


def _groups(args, extras):
    """The --groups column of the pairs file (None without the flag)."""
    if args.groups is None:
        return None
    if not args.auto:
        raise ValueError("--groups sets the folds of --auto; add --auto.")
    if args.groups not in extras.columns:
        raise ValueError(f"{Path(args.pairs).name} has no column {args.groups!r} for --groups.")
    return extras[args.groups].to_numpy()


def _auto_folds(groups):
    """5 stratified folds, or one fold per group (at most 5) with --groups."""
    if groups is None:
        return 5
    from sklearn.model_selection import GroupKFold

    n_groups = len(set(groups.tolist()))
    if n_groups < 2:
        raise ValueError("--groups needs at least 2 groups (e.g. seasons) to make folds.")
    return GroupKFold(min(5, n_groups))


def _pyplot():
    """matplotlib's pyplot, or a clear error: plots need the optional extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ValueError('--plot needs matplotlib: pip install "svmcompare[experiments]"') from exc
    return plt


def _load_pair_model(path, command):
    """A model file whose estimator compares pairs (not graded items)."""
    from ._base import PairwiseKernelModel
    from .persistence import load_model

    model = load_model(path)
    if not isinstance(model, PairwiseKernelModel):
        raise ValueError(f"{path} holds a {type(model).__name__}, which scores graded items, "
                         f"not pairs: 'svmcompare {command}' needs a pair model (svmcompare "
                         "fit on a pairs file); 'svmcompare rank' takes this one.")
    return model


def _predict(args):
    from .io import is_letor
    from .persistence import load_predictor

    # The file's scoring part when it has one: no scikit-learn or skops to import.
    model = load_predictor(args.model) or _load_pair_model(args.model, "predict")
    if args.proba and not hasattr(model, "predict_proba"):
        raise ValueError(f"{args.model} was fitted without --probability; refit with it "
                         "to get probabilities.")
    frames = (_graded_predictions(args, model) if is_letor(args.pairs)
              else [_pair_predictions(args, model)])
    target = sys.stdout if args.output == "-" else args.output
    count = 0
    for k, out in enumerate(frames):  # one frame, or a LETOR file's pairs chunk by chunk
        out.to_csv(target, index=False, header=k == 0, mode="w" if k == 0 else "a")
        count += len(out)
    if args.output != "-":
        print(f"{count} predictions written to {args.output}")
    return 0


def _with_predictions(out, model, X, context, proba):
    """``out`` (ids and other columns) with the comparisons of pairs ``X``."""
    out = out.assign(y_pred=model.predict(X, context),
                     rank_difference=model.decision_function(X, context))
    if proba:
        out["p_x_better"], out["p_tie"], out["p_xprime_better"] = \
            model.predict_proba(X, context).T
    return out


def _pair_predictions(args, model):
    from .io import read_pair_extras, read_pairs

    columns = _pair_columns(args, model)
    X, _, features, context = read_pairs(args.pairs, args.items, require_labels=False,
                                         return_context=True, columns=columns)
    _check_feature_names(model, features, args.pairs, args)
    _check_context_given(model, context, args.model)
    _, extras = read_pair_extras(args.pairs, columns)
    rows = _rows(args, extras, args.pairs)
    if rows is not None:
        X, extras = X[rows], extras[rows]
        context = None if context is None else context[rows]
    # Ids and other non-feature columns first, so results join back without row order.
    return _with_predictions(extras.reset_index(drop=True), model, X, context, args.proba)


def _graded_predictions(args, model):
    """Predictions for every within-query pair of a LETOR file, _PAIR_CHUNK pairs
    at a time (the query and the two items' numbers first, as read_pair_extras)."""
    import pandas as pd

    from .io import load_letor

    Z, grades, qid = load_letor(args.pairs)
    _check_feature_names(model, [f"f{k + 1}" for k in range(Z.shape[1])], args.pairs)
    first, second, _ = _graded_pairs(args.pairs, grades, qid)
    for rows, X in _formed_chunks(Z, first, second):
        out = pd.DataFrame({"qid": qid[first[rows]], "item_a": first[rows],
                            "item_b": second[rows]})
        yield _with_predictions(out, model, X, None, args.proba)


def _rank(args):
    import pandas as pd

    from .io import is_letor, load_letor, read_items
    from .persistence import load_model

    model = load_model(args.model)
    ids, Z, features = read_items(args.items_file)
    _check_feature_names(model, features, args.items_file)
    out = pd.DataFrame({"id": ids})
    if is_letor(args.items_file):
        out["qid"] = load_letor(args.items_file)[2]  # which query each item answers
    # An ordinal model scores items by its pair model's r(x) (its grades cut it).
    scorer = model if hasattr(model, "rank") else model.pair_model_
    out.assign(rank=scorer.rank(Z)).to_csv(args.output, index=False)
    print(f"{len(ids)} scores r(x) written to {args.output} (larger is better)")
    return 0


def _report_graded(args):
    """Kendall tau per query and NDCG@10 of a model's scores on a LETOR file;
    returns the model when it also compares pairs (else None: done) and the
    file's items, grades and query ids."""
    import numpy as np

    from ._base import PairwiseKernelModel
    from .io import load_letor
    from .metrics import kendall_tau_per_group, ndcg_at_k
    from .persistence import load_model

    model = load_model(args.model)
    Z, grades, qid = load_letor(args.pairs, getattr(model, "n_features_in_", None))
    score = (model if hasattr(model, "rank") else model.pair_model_).rank(Z)
    tau, per_group = kendall_tau_per_group(grades, score, qid)
    print(f"items {Z.shape[0]} in {np.unique(qid).size} queries: Kendall tau per query "
          f"{tau:.4f} (mean over the {int(np.isfinite(per_group).sum())} queries with two grades)")
    if np.all(grades >= 0):
        print(f"NDCG@10 {ndcg_at_k(grades, score, qid, k=10):.4f}")
    return (model if isinstance(model, PairwiseKernelModel) else None), (Z, grades, qid)


_PAIR_CHUNK = 100_000  # pairs formed at a time by evaluate and predict on a LETOR file


def _graded_pairs(path, grades, qid):
    """first, second, labels of every within-query pair of a LETOR file, equal
    grades as ties; a file without any pair is refused."""
    from .pairs import pair_indices

    first, second, labels = pair_indices(grades, qid, "keep")
    if labels.size == 0:
        raise ValueError(f"{Path(path).name}: no query has two items, so there are no pairs.")
    return first, second, labels


def _formed_chunks(Z, first, second):
    """(rows, X): the pairs (Z[first], Z[second]) formed _PAIR_CHUNK at a time,
    so that memory grows with the pairs' outputs, not with their features
    (9.9 million pairs of 20 features would take 3 GB)."""
    import numpy as np

    for start in range(0, first.size, _PAIR_CHUNK):
        rows = slice(start, start + _PAIR_CHUNK)
        yield rows, np.stack([Z[first[rows]], Z[second[rows]]], axis=1)


def _graded_pair_outputs(model, path, Z, grades, qid):
    """Labels, rank differences and (a model fitted with --probability)
    probabilities of every within-query pair of a LETOR file."""
    import numpy as np

    first, second, y = _graded_pairs(path, grades, qid)
    score = np.empty(y.size)
    proba = np.empty((y.size, 3)) if hasattr(model, "predict_proba") else None
    for rows, X in _formed_chunks(Z, first, second):
        score[rows] = model.decision_function(X)
        if proba is not None:
            proba[rows] = model.predict_proba(X)
    return y, score, proba


def _evaluate(args):
    import numpy as np

    from .io import is_letor, read_pair_extras, read_pairs
    from .metrics import (
        comparison_auc_chance,
        comparison_report,
        outcome_accuracy,
        outcome_brier,
        outcome_log_loss,
    )

    if is_letor(args.pairs):
        model, items = _report_graded(args)
        if model is None:
            return 0
        y, score, proba = _graded_pair_outputs(model, args.pairs, *items)
    else:
        model = _load_pair_model(args.model, "evaluate")
        columns = _pair_columns(args, model)
        X, y, features, context = read_pairs(args.pairs, args.items, return_context=True,
                                             columns=columns)
        _check_feature_names(model, features, args.pairs, args)
        _check_context_given(model, context, args.model)
        # The other columns (a second read of the file) only for a row filter.
        rows = None if args.until is None and args.after is None else \
            _rows(args, read_pair_extras(args.pairs, columns)[1], args.pairs)
        if rows is not None:
            X, y = X[rows], y[rows]
            context = None if context is None else context[rows]
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
              + " for every pair, the baseline to beat)")
    if not np.isnan(report["auc"]):
        auc, chance = report["auc"], comparison_auc_chance()
        print(f"comparison AUC (Table 3) {auc:.4f} (chance is {chance:g}, not 0.5: a "
              "difference counts as found only with the right sign)")
        if args.plot:
            _plot_evaluation(args.plot, y, score, auc, chance, proba)
    else:
        print("comparison AUC: needs both ties and non-ties in y")
    return 0


def _labels_and_rule(model, score, proba):
    """The labels ``predict`` gives (from the scores and probabilities at
    hand) and the rule that made them, in words."""
    from ._threshold import threshold_compare
    from .ranking_function import least_cost_labels

    if proba is not None:
        cost = getattr(model, "cost", None)
        rule = ("labels: the most probable outcome" if cost is None
                else "labels: the outcome of least expected cost")
        return least_cost_labels(proba, cost), rule
    return threshold_compare(score, model.threshold_), \
        f"labels: the comparison rule, a tie when |r(x') - r(x)| <= {model.threshold_:.4g}"


def _plot_evaluation(path, y, score, auc, chance, proba):
    """The comparison ROC with its chance line and, for probabilities, a
    reliability diagram (its points also written as <path>_reliability.csv)."""
    from .metrics import comparison_roc_curve, reliability_table

    plt = _pyplot()
    panels = 1 if proba is None else 2
    fig, axes = plt.subplots(1, panels, figsize=(4.5 * panels, 4.5), squeeze=False)
    ax = axes[0, 0]
    fpr, tpr, _ = comparison_roc_curve(y, score)
    ax.plot(fpr, tpr, drawstyle="steps-post", label="model")
    # A random score finds a difference with the right sign half the time:
    # chance is TPR = FPR / 2 (area 0.25), not the usual diagonal.
    ax.plot([0, 1], [0, 2 * chance], color="0.7", ls="--", label=f"chance (AUC {chance:g})")
    ax.legend(loc="lower right")
    ax.set(xlabel="false positive rate (ties called different)",
           ylabel="true positive rate (differences, right sign)",
           title=f"comparison ROC, AUC {auc:.3f}")
    if proba is not None:
        table = reliability_table(y, proba)
        table.to_csv(Path(path).with_name(Path(path).stem + "_reliability.csv"), index=False)
        ax = axes[0, 1]
        ax.plot([0, 1], [0, 1], color="0.7", ls="--", label="calibrated")
        names = {-1: "x better", 0: "tie", 1: "x' better"}
        for outcome, part in table.groupby("outcome"):
            ax.plot(part["predicted"], part["observed"], marker="o", label=names[outcome])
        ax.legend(loc="upper left")
        ax.set(xlabel="predicted probability", ylabel="observed share",
               title="reliability", xlim=(0, 1), ylim=(0, 1))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"plot written to {path}" + ("" if proba is None else
                                      " (reliability points in *_reliability.csv)"))


def _add_pairs_arguments(parser, labels):
    parser.add_argument("pairs", help="pairs CSV: a_<feature> and b_<feature> columns"
                        + (" and y" if labels else "") + ", or item_a, item_b"
                        + (", y" if labels else "") + " (ids: with --items, or alone for "
                        "one-hot identities)")
    parser.add_argument("--items", default=None,
                        help="items CSV (id plus feature columns) for a pairs file of ids")
    parser.add_argument("--a", default="item_a", metavar="COLUMN",
                        help="column of x's id in a pairs file of ids (default %(default)s)")
    parser.add_argument("--b", default="item_b", metavar="COLUMN",
                        help="column of x''s id (default %(default)s)")
    if labels:
        parser.add_argument("--outcome", default="y", metavar="COLUMN",
                            help="column of the labels or outcomes (default %(default)s)")
        parser.add_argument("--outcome-map", default=None, metavar="MAP",
                            help="outcome value to label, e.g. 'H=-1,D=0,A=1' (x home: home "
                                 "win = x better); without it the column holds -1, 0, 1")
    parser.add_argument("--context", default="", metavar="COLUMNS",
                        help="comma-separated pair-context columns besides ctx_<name> ones "
                             "(+1: x' has the advantage, -1: x has it)")
    parser.add_argument("--allow-self-pairs", action="store_true",
                        help="accept rows whose two ids are the same (refused by default)")
    parser.add_argument("--unknown", choices=["error", "mean"], default="error",
                        help="ids missing from the items (or from an identities model): an "
                             "error naming them all (default), or 'mean': scored as the mean "
                             "item (identities: the mean rating), with a note")
    parser.add_argument("--until", default=None, metavar="COLUMN=VALUE",
                        help="only the rows whose COLUMN is at most VALUE (e.g. season=3: "
                             "train on the past)")
    parser.add_argument("--after", default=None, metavar="COLUMN=VALUE",
                        help="only the rows whose COLUMN is above VALUE (e.g. season=3: test "
                             "on later games)")


def _pair_columns(args, model=None):
    """The PairColumns of the command line (and of an identities-only model)."""
    from .io import PairColumns, identities_of, parse_outcome_map

    names = getattr(model, "feature_names_in_", None)
    outcome_map = getattr(args, "outcome_map", None)
    return PairColumns(
        a=args.a, b=args.b, outcome=getattr(args, "outcome", "y"),
        outcome_map=None if outcome_map is None else parse_outcome_map(outcome_map),
        context=tuple(c.strip() for c in args.context.split(",") if c.strip()),
        identities=None if names is None or args.items else identities_of(names),
        allow_self=bool(getattr(args, "allow_self_pairs", False)),
        unknown=getattr(args, "unknown", "error"),
        sparse_identities=_linear(args, model))


def _linear(args, model=None):
    """Whether the model (fitted, or to fit from ``args``) is linear in the
    features, so that identities can stay sparse."""
    if model is not None:
        ranking = getattr(model, "ranking_", None)
        return ranking is not None and ranking.kernel.name == "linear" \
            and ranking.feature_map is None
    return _kernel(args) == "linear" and getattr(args, "model_type", "compare") != "lp"


def _kernel(args):
    """--kernel, else linear for an identities-only table (sparse one-hot ids;
    a kernel on one-hot ids sees only whether two items are the same) and rbf
    for features."""
    if args.kernel is not None:
        return args.kernel
    from .io import is_ids_table

    return "linear" if args.items is None and is_ids_table(args.pairs) else "rbf"


def _add_product_commands(sub):
    fit = sub.add_parser(
        "fit", help="fit a comparison model on a CSV of labeled pairs and save it",
        description="Fit SVMCompare (or a baseline) on labeled pairs and write a model file. "
                    "Labels y: -1 x better, 0 tie, 1 x' better.")
    _add_pairs_arguments(fit, labels=True)
    fit.add_argument("--model", required=True, help="model file to write (skops format)")
    fit.add_argument("--model-type", choices=MODEL_TYPES, default="compare",
                     help="compare (SVMCompare), rank, rank2 (RankSVM baselines), lp "
                          "(SVMCompareLP); default %(default)s")
    fit.add_argument("--kernel", choices=["rbf", "linear", "poly", "laplacian"], default=None,
                     help="default: linear for a table of ids without --items (identities, "
                          "kept sparse), else rbf")
    fit.add_argument("--C", type=float, default=1.0)
    fit.add_argument("--gamma", type=float, default=1.0)
    fit.add_argument("--degree", type=int, default=3)
    fit.add_argument("--class-weight", choices=["auto", "balanced", "none"], default="auto",
                     help="compare and lp: 'balanced' weighs ties and non-ties equally; "
                          "'none' is the paper's problem; 'auto' (default) is 'balanced' when "
                          "ties are under a third of the pairs, else 'none'")
    fit.add_argument("--probability", action="store_true",
                     help="also fit win/tie/loss probabilities (five calibration folds "
                          "started from the fit: about 1.5-4x its time)")
    fit.add_argument("--calibration", choices=["cv", "loo"], default="cv",
                     help="with --probability: 'cv' five folds (default), 'loo' leave-one-out "
                          "estimates from the exact fit, no refits (faster; up to 0.01 worse "
                          "log-loss at some settings on real games)")
    fit.add_argument("--auto", action="store_true",
                     help="the auto-tuned model for real data (SVMCompareCV): kernel, C, gamma, "
                          "class weight and, with --probability, the probability link chosen "
                          "by cross-validated log-loss")
    fit.add_argument("--groups", default=None, metavar="COLUMN",
                     help="with --auto: folds keep each group (season, person) together")
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
    fit.set_defaults(func=_fit)

    features = sub.add_parser(
        "features", help="a results table to leak-free history features (a pairs CSV)",
        description="Read a table of two-player results (ids of the two sides, a result, "
                    "optionally a time and a positional advantage) and write it with each "
                    "side's features from earlier periods only (Elo, Glicko, counts and "
                    "shares of results: svmcompare.datasets.games_features) as a_<feature> "
                    "and b_<feature> columns, the advantage as ctx_advantage and the labels "
                    "as y: the pairs CSV that fit, predict and evaluate read. Nothing from a "
                    "game or its period leaks into its own features, so later seasons can be "
                    "predicted from these (fit --until, evaluate --after).")
    features.add_argument("games", help="results CSV")
    features.add_argument("--a", required=True, metavar="COLUMN", help="column of x's id")
    features.add_argument("--b", required=True, metavar="COLUMN", help="column of x''s id")
    features.add_argument("--outcome", required=True, metavar="COLUMN",
                          help="column of the result")
    features.add_argument("--outcome-map", required=True, metavar="MAP",
                          help="result value to label, e.g. 'H=-1,D=0,A=1' (x at home: a home "
                               "win is x better)")
    features.add_argument("--time", default=None, metavar="COLUMN",
                          help="column of the game's time (dates, YYYYMMDD, periods or "
                               "seasons); default: the row order")
    features.add_argument("--period", default="D",
                          help="rating period for dates, a pandas offset alias (default D)")
    features.add_argument("--advantage", default=None, metavar="COLUMN|NUMBER",
                          help="positional advantage of x' (+1: x' at home, -1: x at home), a "
                               "column or one number for every game")
    features.add_argument("-o", "--output", required=True, help="pairs CSV to write")
    features.set_defaults(func=_features)
    league = sub.add_parser(
        "league", help="write a simulated league (matches.csv, teams.csv) to try the commands",
        description="Write a simulated football league (svmcompare.datasets.make_league): "
                    "matches.csv (season, home, away, goals, result H/D/A, home_adv) and "
                    "teams.csv (id, attack, defence, style), to try fit / predict / evaluate "
                    "on results with draws and home advantage.")
    league.add_argument("--out", default="svmcompare-league",
                        help="output folder (default: %(default)s)")
    league.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    league.set_defaults(func=_league)

    predict = sub.add_parser("predict", help="compare pairs with a saved model",
                             description="Write y_pred in {-1, 0, 1} and r(x') - r(x) per pair.")
    predict.add_argument("model", help="model file from svmcompare fit")
    _add_pairs_arguments(predict, labels=False)
    predict.add_argument("--proba", action="store_true",
                         help="add P(x better), P(tie), P(x' better) (model fitted with "
                              "--probability)")
    predict.add_argument("-o", "--output", required=True, help="output CSV ('-': standard output)")
    predict.set_defaults(func=_predict)

    rank = sub.add_parser("rank", help="score items r(x) with a saved model",
                          description="Write the ranking function r(x) of each item.")
    rank.add_argument("model", help="model file from svmcompare fit")
    rank.add_argument("items_file", metavar="ITEMS.csv", help="items CSV: id plus features")
    rank.add_argument("-o", "--output", required=True, help="output CSV")
    rank.set_defaults(func=_rank)

    evaluate = sub.add_parser(
        "evaluate", help="test error, probability scores and AUC of a saved model",
        description="On labeled pairs: the zero-one error of the model's labels (the most "
                    "probable outcome for a model fitted with --probability, else the "
                    "comparison rule; the output says which) with its false positive / false "
                    "negative / inversion split; for a model with probabilities, a table of "
                    "the log-loss, Brier score and accuracy of its win / tie / loss "
                    "probabilities next to the training frequencies (the baseline to beat); "
                    "and the comparison AUC (Table 3).")
    evaluate.add_argument("model", help="model file from svmcompare fit")
    _add_pairs_arguments(evaluate, labels=True)
    evaluate.add_argument("--plot", default=None, help="write the ROC curve to this PNG/SVG")
    evaluate.set_defaults(func=_evaluate)


# The figures 'svmcompare reproduce' draws (experiments/reproduce.py checks the
# list against its own; spelled out here so that parsing never imports the
# research code).
FIGURES = ("figure1", "figure2", "figure3", "figure4", "figure5", "figure6", "tutorial",
           "ordinal")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="svmcompare",
        description="Learning to compare with ties: support vector comparison machines.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="fit rank, rank2 and compare on simulated data; print errors, plot level curves",
        description=(
            "Fit SVMRank, SVMRank2 and SVMCompare on the paper's simulated ||x||_1^2 pattern "
            "(half equality pairs), select C and gamma on a validation set, print each test "
            "error with its false positive / false negative / inversion split, and write a "
            "PNG of the learned level curves like the paper's Figure 3."
        ),
    )
    demo.add_argument("--out", default="svmcompare-demo",
                      help="output folder (default: %(default)s)")
    demo.add_argument("--n-pairs", type=_positive_int, default=200,
                      help="pairs in the train and validation sets (default: %(default)s)")
    demo.add_argument("--n-test", type=_positive_int, default=10_000,
                      help="pairs in the test set (default: %(default)s)")
    demo.add_argument("--seed", type=int, default=1,
                      help="first random seed (default: %(default)s)")
    demo.add_argument("--seeds", type=_positive_int, default=4,
                      help="data sets, seeds --seed, --seed + 1, ... (default: %(default)s)")
    demo.add_argument("--n-jobs", type=int, default=None, help="parallel fits (joblib)")
    demo.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    demo.set_defaults(func=_demo)

    rep = sub.add_parser(
        "reproduce",
        help="regenerate the paper's Figures 1-6, the RankSVM tutorial and the sushi ordinal "
             "comparison (tables, plots, paper side by side)",
        description=(
            "Draw the paper's Figures 1 (geometry of pairs) and 2 (hard-margin LP vs QP), and "
            "run its experiments (section 4): Figure 3 (level curves), Figure 4 (test "
            "error vs training pairs, models chosen by validation error) and Figure 5 (test "
            "AUC vs the fraction of ties, models chosen by validation AUC) on the simulated "
            "patterns and the sushi data, and write CSV tables with the paper's numbers beside "
            "ours, and plots. 'tutorial': Ridge vs RankSVM on two query blocks of graded "
            "items, Kendall tau per block. 'ordinal': ordinal regression (OrdinalSVM, "
            "one-vs-rest SVC, SVR, ordered logit) and RankSVM with ties dropped vs kept on "
            "the sushi scores of new people. 'figure6': SVMCompare vs Elo, Glicko and the "
            "trivial model on chess games, with win/draw/loss probabilities. 'all' takes "
            "about 35 minutes on 2 cores."
        ),
    )
    rep.add_argument("figure", choices=[*FIGURES, "all"])
    rep.add_argument("--out", default="svmcompare-reproduction",
                     help="output folder (default: %(default)s)")
    rep.add_argument("--quick", action="store_true",
                     help="5 x 5 grid, n <= 200, 2 seeds, 3 tie fractions: a few minutes")
    rep.add_argument("--sushi-path", default=None,
                     help="folder of Kamishima's sushi3 data (not shipped: its license forbids "
                          "redistribution); default $SVMCOMPARE_SUSHI_PATH, else the sushi "
                          "panel is skipped")
    rep.add_argument("--chess-path", default=None,
                     help="CSV of chess games for Figure 6 (time, white, black, result, or the "
                          "Lichess layout); default $SVMCOMPARE_CHESS_PATH, else Figure 6 is "
                          "skipped")
    rep.add_argument("--n-jobs", type=int, default=None, help="parallel fits (joblib)")
    rep.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    rep.set_defaults(func=_reproduce)
    _add_product_commands(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError) as exc:
        print(f"svmcompare {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"svmcompare {args.command}: error: not enough memory for this input; a "
              "linear model (--kernel linear) keeps an identities-only table sparse, and "
              "'svmcompare fit --help' lists the lighter solvers.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Output files are written whole or not at all (save_model renames a
        # finished temporary file), so nothing half-written is left behind.
        written = getattr(args, "written", None)
        print(f"svmcompare {args.command}: interrupted"
              + ("" if written is None else f" after {written} was written (that file is "
                 "complete)"), file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
