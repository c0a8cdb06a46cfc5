"""What the command line's options mean for the library: the options shared
by commands, the model to fit, the pair columns, row filters, time columns,
folds, the model file to read, and checks worded for the command line."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

MODEL_TYPES = ("compare", "rank", "rank2", "lp")


def add_command(sub, name, handler, summary):
    """The subcommand ``name`` of the parsers ``sub``, run by ``handler``: its
    one-line ``summary`` in the list of commands, the handler's docstring as
    the description of its --help."""
    import inspect

    parser = sub.add_parser(name, help=summary, description=inspect.getdoc(handler))
    parser.set_defaults(func=handler)
    return parser


def add_pairs_arguments(parser, labels):
    """The pairs file and how to read it (fit, predict, evaluate, rolling)."""
    parser.add_argument("pairs", help="pairs CSV: a_<feature> and b_<feature> columns"
                        + (" and y" if labels else "") + ", or item_a, item_b"
                        + (", y" if labels else "") + " (ids: with --items, or alone for "
                        "one-hot identities)")
    parser.add_argument("--items", default=None,
                        help="items CSV (id plus feature columns) for a pairs file of ids")
    add_result_columns(parser, "a pairs file of ids", outcome=labels)
    parser.add_argument("--context", default="", metavar="COLUMNS",
                        help="comma-separated pair-context columns besides ctx_<name> ones "
                             "(+1: x' has the advantage, -1: x has it)")
    parser.add_argument("--allow-self-pairs", action="store_true",
                        help="accept rows whose two ids are the same (refused by default)")
    parser.add_argument("--unknown", choices=["error", "mean"], default="error",
                        help="ids missing from the items (or from an identities model): an "
                             "error naming them all (default), or 'mean': scored as the mean "
                             "item (identities: the mean rating), with a note")
    for flag, relation, use in (("--until", "at most", "train on the past"),
                                ("--after", "above", "test on later games")):
        parser.add_argument(flag, default=None, metavar="COLUMN=VALUE",
                            help=f"only the rows whose COLUMN is {relation} VALUE (e.g. "
                                 f"season=3: {use})")


def add_result_columns(parser, table, *, outcome=True, required=False):
    """--a, --b (and --outcome, --outcome-map): the columns of the two ids
    (and of the result) in ``table``; required, or item_a, item_b, y and
    labels -1, 0, 1 by default."""
    def column(flag, default, text, metavar):
        given = {"required": True} if required else {"default": default}
        if not required and default is not None:
            text += " (default %(default)s)"
        parser.add_argument(flag, metavar=metavar, help=text, **given)

    column("--a", "item_a", f"column of x's id in {table}", "COLUMN")
    column("--b", "item_b", f"column of x''s id in {table}", "COLUMN")
    if outcome:
        column("--outcome", "y", f"column of the labels or outcomes in {table}", "COLUMN")
        column("--outcome-map", None, "outcome value to label, e.g. 'H=-1,D=0,A=1' (x at home: "
               "a home win is x better)" + ("" if required else
                                            "; without it the column holds -1, 0, 1"), "MAP")


def add_saved_model(parser, items=False):
    """The model file a command reads (and, with ``items``, the optional items
    file it scores)."""
    parser.add_argument("model", help="model file from svmcompare fit")
    if items:
        parser.add_argument("items_file", metavar="ITEMS.csv", nargs="?", default=None,
                            help="items CSV: id plus features (for a model of identities: "
                                 "optional, or an id column alone: all its ids)")


def add_interval(parser, what):
    """--interval LEVEL: bootstrap intervals of ``what`` (a model fitted with
    --bootstrap)."""
    parser.add_argument("--interval", type=confidence_level, default=None, metavar="LEVEL",
                        help=f"add LEVEL (e.g. 0.9) bootstrap intervals of {what} (a model "
                             "fitted with --bootstrap)")


def confidence_level(text):
    """An argparse type: a confidence level in (0, 1)."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"a confidence level in (0, 1), e.g. 0.9; got {text!r}")
    return value


def add_half_life(parser, time_help, half_life_help):
    """--time COLUMN and --half-life H: results that weigh less as they age
    (fit, rolling, and leaderboard's weighted games, as the fit weighed them)."""
    parser.add_argument("--time", default=None, metavar="COLUMN", help=time_help)
    parser.add_argument("--half-life", type=float, default=None, metavar="H",
                        help=half_life_help)


def add_model_arguments(parser):
    """The model's hyper-parameters on the command line (fit, rolling)."""
    parser.add_argument("--kernel", choices=["rbf", "linear", "poly", "laplacian"],
                        default=None, help="default: linear for a table of ids without "
                                           "--items (identities, kept sparse) and for "
                                           "rolling, else rbf")
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--degree", type=int, default=3)
    parser.add_argument("--class-weight", choices=["auto", "balanced", "none"], default="auto",
                        help="compare and lp: 'balanced' weighs ties and non-ties equally; "
                             "'none' is the paper's problem; 'auto' (default) is 'balanced' "
                             "when ties are under a third of the pairs, else 'none'")
    parser.add_argument("--loss", choices=["hinge", "squared_hinge"], default=None,
                        help="the SVM's loss: hinge (the paper's; the default but on a "
                             "table of ids) or squared_hinge (linear kernel: unique ratings and "
                             "better probabilities of many ids; the default of SVMCompare's "
                             "linear fits and of --auto on a table of ids without --items)")
    parser.add_argument("--tol", type=float, default=1e-3,
                        help="the solver's stopping tolerance (default 1e-3); with the hinge, "
                             "items that share a score at the solution are apart by up to "
                             "about tol x their range, ordered by where the solver stopped: "
                             "1e-8 for a leaderboard of ids fitted with --loss hinge (cheap "
                             "there); the squared hinge, the default on a table of ids, has a "
                             "unique solution")
    parser.add_argument("--tie-band", choices=["constant", "pair"], default="constant",
                        help="the tie band of the probability link (fit: with --probability), "
                             "constant (default) or 'pair': drawish pairs, e.g. each id its "
                             "own draw rate (--auto and --grid choose it by validation)")
    parser.add_argument("--link", choices=["ordered", "davidson"], default="ordered",
                        help="the probability link's family (fit: with --probability), the "
                             "ordered logit (default) or Davidson's tie model (--auto and "
                             "--grid choose it)")


# The options --auto sets itself, with each default and what --auto does
# instead: a value set by hand would be ignored (fit --auto --C 5 printed its
# own choice of C and exited 0).  None: "chooses it by cross-validation".
_SET_BY_AUTO = (
    ("--kernel", "kernel", None, None), ("--C", "C", 1.0, None),
    ("--gamma", "gamma", 1.0, None), ("--class-weight", "class_weight", "auto", None),
    ("--tie-band", "tie_band", "constant", None), ("--link", "link", "ordered", None),
    ("--degree", "degree", 3, "searches no polynomial kernel"),
    ("--tol", "tol", 1e-3, "searches at the default tolerance"),
    ("--calibration", "calibration", "auto", "calibrates on its own search folds"),
    ("--model-type", "model_type", "compare", "searches SVMCompare's grid"),
)


def refuse_chosen_by_auto(args, alone):
    """Refuse an option that --auto sets itself (the kernel, C, gamma, the
    class weights, the probability link by cross-validation; the tolerance,
    the calibration and the model type by design): set by hand it would be
    silently ignored.  ``alone`` says where the option applies instead."""
    linear_only = auto_loss(args) == "squared_hinge"  # a table of ids, or --loss so
    for flag, name, default, instead in _SET_BY_AUTO:
        value = getattr(args, name, default)
        if value != default:
            shown = f"{value:g}" if isinstance(value, float) else value
            if linear_only and name in ("kernel", "gamma"):
                instead = "searches linear points only here (the squared hinge's grid)"
            does = instead or f"chooses {flag.lstrip('-').replace('-', ' ')} itself by " \
                "cross-validation"
            raise ValueError(f"--auto {does}; {flag} {shown} applies {alone}.")


def make_model(args):
    from .. import SVMCompare, SVMCompareLP, SVMRank, SVMRank2
    from ..io import is_ids_table

    params = {"C": args.C, "kernel": kernel_of(args), "gamma": args.gamma, "degree": args.degree}
    class_weight = None if args.class_weight == "none" else args.class_weight
    calibration = getattr(args, "calibration", "auto")
    ids = args.items is None and getattr(args, "pairs", None) is not None \
        and is_ids_table(args.pairs)
    # Ids alone, linear: the squared hinge unless --loss says otherwise, as --auto
    # searches it there: its solution is unique, where the hinge's single fit
    # left a new user's 337 national teams 138 distinct scores, blocks of up to
    # 11 teams ordered by where the solver stopped.
    loss = args.loss or ("squared_hinge" if ids and args.model_type == "compare"
                         and params["kernel"] == "linear" else "hinge")
    import math

    tol = getattr(args, "tol", 1e-3)
    if not (math.isfinite(tol) and tol > 0):
        raise ValueError(f"--tol must be a positive number; got {tol:g}.")
    if args.model_type == "lp":
        if args.probability:
            raise ValueError("--probability is not available for --model-type lp.")
        if loss != "hinge":
            raise ValueError("--model-type lp solves the paper's LP: no --loss.")
        if tol != 1e-3:
            raise ValueError("--model-type lp is solved by HiGHS to its own tolerance: no --tol.")
        return SVMCompareLP(class_weight=class_weight, **params)
    params["loss"], params["tol"] = loss, tol
    if calibration != "auto" and not args.probability:
        raise ValueError(f"--calibration {calibration} sets how --probability calibrates; "
                         "add --probability.")
    link = {"tie_band": getattr(args, "tie_band", "constant"),
            "link": getattr(args, "link", "ordered")}
    if link != {"tie_band": "constant", "link": "ordered"}:
        if not args.probability:
            raise ValueError("--tie-band and --link set the probability link; add "
                             "--probability.")
        if args.model_type != "compare":
            raise ValueError("--tie-band and --link are SVMCompare's (--model-type compare).")
        if getattr(args, "grid", False):
            raise ValueError("--grid chooses the tie band and link by validation; "
                             "--tie-band and --link apply to a single fit.")
    # A progress line for a long exact fit, unless --no-progress (a --grid has
    # its own) or the output is a log or a pipe (no carriage-return frames there).
    verbose = not (getattr(args, "no_progress", False) or getattr(args, "grid", False)) \
        and sys.stderr.isatty()
    if args.model_type == "compare":
        # Ids alone: every id's effect shrunk alike (indicators unscaled), as
        # the README's ratings at scale; a rare id is neither the least
        # penalized nor, for the squared hinge's Newton steps, the worst
        # conditioned (5,350 ids with one-game newcomers: 10 steps against 117,
        # and 1,000 without convergence under time-decay weights).
        return SVMCompare(class_weight=class_weight, probability=args.probability,
                          calibration=calibration, random_state=0, verbose=verbose,
                          scale_indicators=not ids, **link, **params)
    model = SVMRank if args.model_type == "rank" else SVMRank2
    return model(probability=args.probability, calibration=calibration, random_state=0,
                 verbose=verbose, **params)


@contextlib.contextmanager
def parallel_backend(args):
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


def check_file_features(model, features, path, args=None):
    """Refuse a file whose features differ from the model's in name or order,
    saying what to add on the command line where that is the cause."""
    from .._validation import check_feature_names
    from ..io import identities_of

    expected = getattr(model, "feature_names_in_", None)
    if expected is None and identities_of(features) is not None and args is not None \
            and getattr(args, "items", None) is None:
        # Columns made from this file's own ids need not be the fit's: other
        # ids, another order, and nothing would say so.
        raise ValueError(f"{Path(path).name} lists item ids, and the model records no feature "
                         "names to match them to its columns (it was fitted on arrays in "
                         "Python): fit it with 'svmcompare fit', or in Python on "
                         "pairs_from_frame(..., as_frame=True); or give --items.")
    from ..io import is_letor

    if expected is None and features is not None and len(features) and not is_letor(path):
        # A model fitted on arrays scores the file's columns by position: the
        # same named columns in another order scored 1.81 in log-loss where
        # 1.08 was the baseline, and nothing was said (a review).  A LETOR
        # file's features are numbered, positions by nature.
        from .._validation import listed

        shown = listed(features, limit=8)
        print(f"note: the model records no feature names (it was fitted on arrays in Python), "
              f"so {Path(path).name}'s features are taken in their column order: {shown}; "
              "fit on pairs_from_frame(..., as_frame=True) or with 'svmcompare fit' to have "
              "them checked by name.", file=sys.stderr)
    try:
        check_feature_names(expected, features, Path(path).name)
    except ValueError as exc:
        hint = ""
        if args is not None and getattr(args, "items", None) is None \
                and identities_of(features) is not None and identities_of(expected) is None:
            hint = (" The file lists item ids and the model was fitted on item features: "
                    "add --items ITEMS.csv (an id column plus those features).")
        raise ValueError(f"{exc}{hint}") from None


def check_context_given(model, context, path, pairs=None, columns=None):
    """The command line's wording for a model fitted with a pair context; with
    the ``pairs`` file (and its ``columns``), its context columns checked by
    name and order against those the fit read (a context is read by position:
    swapped or renamed columns gave other predictions, silently)."""
    from .._validation import check_feature_names
    from ..io import context_names

    ranking = getattr(model, "ranking_", None)
    needed = 0 if ranking is None else ranking.n_context
    if needed and context is None:
        raise ValueError(f"{path} was fitted with a pair context of {needed} column(s): give "
                         "them with --context COLUMNS (or as ctx_<name> columns in the file); "
                         "0 where neither position has an advantage.")
    expected = getattr(model, "context_names_in_", None)
    if pairs is not None and expected is not None:
        check_feature_names(expected, context_names(pairs, columns),
                            f"{Path(pairs).name}'s context columns")


def rows_of(args, frame, path):
    """The rows --until / --after keep (a boolean mask), or None: rows whose
    COLUMN is at most (--until) or above (--after) VALUE, the column and VALUE
    read together as ``ordered_column`` reads a time column (dates as dates in
    the column's day order, numbers as numbers, seasons by their years); an
    empty cell or labels whose order is not known are refused."""
    import numpy as np

    mask = None
    file = Path(path).name
    for option, keep_after in (("until", False), ("after", True)):
        spec = getattr(args, option, None)
        if spec is None:
            continue
        column, sep, value = spec.partition("=")
        if not sep or column not in frame.columns:
            raise ValueError(f"--{option} {spec!r}: write COLUMN=VALUE with a time or period "
                             f"column of {file} (not a feature, label or context column; it "
                             f"has {list(frame.columns)} besides those).")
        keys, _ = column_keys(frame[column], f"--{option}", column, file, bound=value)
        left, right = keys[:-1], keys[-1]
        chosen = left > right if keep_after else left <= right
        mask = chosen if mask is None else mask & chosen
    if mask is not None and not np.any(mask):
        raise ValueError(f"--until / --after keep no row of {file}.")
    return mask


def check_output_files(files, figures=(), inputs=()):
    """Before any work: ``files`` (option -> path or None) name distinct
    files in folders that exist, none of them one of the command's
    ``inputs`` (paths or None), "-" (standard output) only for -o, and each
    of ``figures`` (the options that save a matplotlib figure) a format
    matplotlib writes."""
    inputs = {Path(path).resolve() for path in inputs if path is not None and str(path) != "-"}
    written = {}
    for option, path in files.items():
        if path is None:
            continue
        if str(path) == "-":
            if option != "-o":
                raise ValueError(f"{option} -: standard output is for -o only; give {option} "
                                 "a file name.")
            continue
        target = Path(path).resolve()
        if target in written:
            raise ValueError(f"{written[target]} and {option} both name {path}: one would "
                             "overwrite the other.")
        if target in inputs:
            raise ValueError(f"{option} {path} is also this command's input: writing it would "
                             "overwrite what is being read; give another name.")
        if not target.parent.is_dir():
            raise ValueError(f"{option} {path}: there is no folder {target.parent} to write "
                             "it in.")
        written[target] = option
        if option in figures:
            from matplotlib.backend_bases import FigureCanvasBase

            suffix = Path(path).suffix.lstrip(".").lower()
            formats = FigureCanvasBase.get_supported_filetypes()
            if suffix and suffix not in formats:
                raise ValueError(f"{option} {path}: matplotlib writes no {suffix!r} figures; "
                                 f"use one of {', '.join(sorted(formats))}.")


def take_pairs(mask, X, y, extras=None, context=None, weight=None):
    """The pairs where ``mask`` is True (None: all) of a pairs file's arrays
    (``extras``, ``context`` and ``weight`` may be None); ``extras`` keeps its
    row labels, which name the rows' file lines in messages (``file_line``)."""
    if mask is None:
        return X, y, extras, context, weight
    return (X[mask], y[mask], None if extras is None else extras[mask],
            None if context is None else context[mask], None if weight is None else weight[mask])


def kept_labeled_pairs(args, columns, extras, weight, rows):
    """The labeled pairs among the rows --until / --after keep (``rows``: a
    mask, or None for all), read as if the file held those rows alone (the ids
    are theirs): X, y (integers), features, context, and the pairs' extras
    and weights.  The extras keep their row labels, which name the rows' file
    lines in messages; pairs without a label (fixtures) are left out with a
    note."""
    import numpy as np

    from ..io import read_pairs

    X, y, features, context = read_pairs(args.pairs, args.items, return_context=True,
                                         columns=columns, unlabeled="nan", rows=rows)
    if rows is not None:
        extras = extras[rows]
        weight = None if weight is None else weight[rows]
    X, y, extras, context, weight = take_pairs(
        labeled_pairs(y, rows, args.pairs, columns.outcome), X, y, extras, context, weight)
    return X, y.astype(np.int64), features, context, extras, weight


def warn_ids_apart(X, features, path, columns):
    """For a fit on a table of ids, the warning of :func:`svmcompare.pairs.warn_separate_groups`
    on the pairs fitted (labeled and kept: not fixtures or rows left out)."""
    import numpy as np
    import scipy.sparse as sp

    from ..io import identities_of
    from ..pairs import warn_separate_groups

    ids = identities_of(features)
    if ids is None:
        return
    p = len(features)
    if sp.issparse(X):
        sides = [sp.csr_matrix(X[:, :p]), sp.csr_matrix(X[:, p:])]
        # One id a side and pair: its column is the row's one index.
        ia, ib = (side.indices if np.all(np.diff(side.indptr) == 1)
                  else np.asarray(side.argmax(axis=1)).ravel() for side in sides)
    else:
        ia, ib = np.argmax(X[:, 0], axis=1), np.argmax(X[:, 1], axis=1)
    warn_separate_groups(ia, ib, ids, f"{Path(path).name}, columns {columns.a} and {columns.b}")


def played_ids_only(X, features):
    """For identities read from a whole file, the columns of the ids that the
    kept pairs (``--until``, ``--after``, labeled ones) use: an id met only in
    rows left out gets no column (and so no rating of 0 to rank or predict
    with), as if the file had held the kept rows alone.  Other features as
    they are."""
    import numpy as np
    import scipy.sparse as sp

    from ..io import identities_of

    if identities_of(features) is None:
        return X, features
    p = len(features)
    if sp.issparse(X):
        X = sp.csc_matrix(X)
        used = (X[:, :p].getnnz(axis=0) + X[:, p:].getnnz(axis=0)) > 0
        if used.all():
            return X.tocsr(), features
        keep = np.flatnonzero(used)
        return sp.hstack([X[:, keep], X[:, p + keep]], format="csr"), \
            [features[k] for k in keep]
    used = np.any(X != 0, axis=(0, 1))
    if used.all():
        return X, features
    return X[:, :, used], [name for name, kept in zip(features, used, strict=True) if kept]


def labeled_pairs(y, rows, path, column):
    """Which of the pairs kept (``rows``: --until / --after's mask, or None) have
    a label: None when all do; else a mask, and a note on standard error names
    how many pairs without one (an empty cell, read as NaN: fixtures of
    ``features --fixtures``, a postponed game) are left out and the first's line."""
    import numpy as np

    from ..io import data_row_lines, is_letor

    missing = np.flatnonzero(np.isnan(y))
    if not missing.size:
        return None
    if missing.size == y.size:
        raise ValueError(f"{Path(path).name}: no pair kept has a label (column {column}); "
                         "fixtures of features --fixtures are predicted, not fitted or "
                         "scored.")
    position = int(missing[0] if rows is None else np.flatnonzero(rows)[missing[0]])
    n_rows = y.size if rows is None else len(rows)
    lines = None if is_letor(path) else data_row_lines(path, n_rows=n_rows)  # blank lines
    line = int(lines[position]) if lines is not None and position < lines.size else position + 2
    print(f"note: {missing.size} pair(s) without a label (column {column}, e.g. line {line}: "
          "fixtures not played yet) left out", file=sys.stderr)
    return ~np.isnan(y)


def check_filled(extras, names, file, rows):
    """Every kept row (``rows``: a mask, or None for all) has a value in the
    columns ``names`` that exist: a result without a period cannot be
    replayed, a pair without a group has no fold.  Lines are those of the
    file."""
    import numpy as np

    from .._validation import empty_cells
    from ..io import file_line

    for column in names:
        if column is None or column not in extras.columns:
            continue
        empty = empty_cells(extras[column])
        if rows is not None:
            empty = empty & np.asarray(rows, dtype=bool)  # to_numpy() may be read-only
        if empty.any():
            first = int(np.flatnonzero(empty)[0])
            raise ValueError(f"{file}: {int(empty.sum())} row(s) have no {column!r} (first on "
                             f"line {file_line(extras.index, first)}).")


def groups_of(args, extras):
    """The --groups column of the pairs file (None without the flag)."""
    if args.groups is None:
        from ..io import is_letor

        if args.auto and getattr(args, "pairs", None) is not None and is_letor(args.pairs) \
                and "qid" in extras.columns and extras["qid"].nunique() >= 2:
            # A query's pairs share its items: folds that split them scored
            # 0.8369 where new queries gave 0.8404 (a review's LLM verdicts).
            print("--auto on graded items: folds keep each query's pairs together "
                  "(--groups qid)", flush=True)
            return extras["qid"].to_numpy()
        return None
    if not (args.auto or getattr(args, "bootstrap_groups", False)):
        raise ValueError("--groups sets the folds of --auto (and what --bootstrap-groups "
                         "resamples); add --auto.")
    if args.groups not in extras.columns:
        raise ValueError(f"{Path(args.pairs).name} has no column {args.groups!r} for --groups.")
    import pandas as pd

    column = extras[args.groups]
    # Numbers as numbers, as a table read in Python holds them: GroupKFold deals
    # groups to folds by size, then by their order, and "10" sorts before "9"
    # (the command line and Python chose different models on the same table).
    numbers = pd.to_numeric(column, errors="coerce")
    return (numbers if numbers.notna().all() else column).to_numpy()


def auto_folds(groups):
    """5 stratified folds, or one fold per group (at most 5) with --groups."""
    if groups is None:
        return 5
    from sklearn.model_selection import GroupKFold

    n_groups = len(set(groups.tolist()))
    if n_groups < 2:
        raise ValueError("--groups needs at least 2 groups (e.g. seasons) to make folds.")
    return GroupKFold(min(5, n_groups))


def load_pair_model(path, command):
    """A model file whose estimator compares pairs (not graded items); of a
    file with bootstrap replicates, the model fitted on all pairs."""
    from .._base import PairwiseKernelModel
    from ..bootstrap import point_model
    from ..persistence import load_model

    model = point_model(load_model(path))
    if not isinstance(model, PairwiseKernelModel):
        raise ValueError(f"{path} holds a {type(model).__name__}, which scores graded items, "
                         f"not pairs: 'svmcompare {command}' needs a pair model (svmcompare "
                         "fit on a pairs file); 'svmcompare rank' takes this one.")
    return model


def load_bootstrap(path, option):
    """A model file fitted with --bootstrap (for ``option``, e.g. --interval)."""
    from ..persistence import load_model

    model = load_model(path)
    if type(model).__name__ != "BootstrapCompare":
        raise ValueError(f"{path} has no bootstrap replicates, which {option} needs: refit it "
                         "with 'svmcompare fit ... --bootstrap 200'.")
    return model


def items_of(model, path):
    """(ids, items, feature names) to score: the items table at ``path``; for
    an identities-only model, its ids (all of them when ``path`` is None, else
    those an id-only table lists)."""
    import pandas as pd
    import scipy.sparse as sp

    from ..bootstrap import point_model
    from ..io import identities_of, read_items, read_table

    names = getattr(point_model(model), "feature_names_in_", None)
    known = None if names is None else identities_of(names)
    if path is not None and not (known is not None and is_id_list(path)):
        # A LETOR file may omit the last features (0 on every line): the model's count.
        return read_items(path, getattr(point_model(model), "n_features_in_", None))
    if known is None:
        raise ValueError("this model scores item features: give an items table "
                         "(an id column plus its features).")
    known = pd.Index(known)
    # Ids as written ("01" and "1" are two teams, "NaN" a name), as the fit read them.
    wanted = known if path is None else \
        pd.Index(read_table(path, numeric=lambda column: column != "id")["id"].astype(str))
    if wanted.has_duplicates:
        raise ValueError(f"{Path(path).name}: id {wanted[wanted.duplicated()][0]!r} is listed "
                         "more than once.")
    rows = known.get_indexer(wanted)
    if (rows < 0).any():
        missing = list(wanted[rows < 0][:10])
        raise ValueError(f"{Path(path).name}: {int((rows < 0).sum())} id(s) the model has no "
                         f"rating for (it never saw their games): {missing}.")
    Z = sp.identity(len(known), format="csr")[rows]
    if not is_linear(None, model):
        Z = Z.toarray()  # a kernel model reads dense ids, as its fit did
    return wanted.to_numpy(dtype=object), Z, list(names)


def is_id_list(path):
    """Whether the table at ``path`` has an ``id`` column and nothing else."""
    from ..io import read_table

    columns = list(read_table(path).columns)
    return columns == ["id"]


PROBABILITY_COLUMNS = ("p_x_better", "p_tie", "p_xprime_better")


def write_table(table, output):
    """Write a CSV table to ``output``, or to standard output for "-" (as
    ``predict -o -``); returns whether a file was written, so that the
    command's summary line stays off a table piped to another program."""
    with written_whole(output) as target:
        table.to_csv(target, index=False)
    return output != "-"


@contextlib.contextmanager
def written_whole(output):
    """The target to write ``output`` through: standard output for "-", else
    a file beside it that takes its name only once the writing ends without
    an error (an error or an interrupt part-way left half a table under the
    name, e.g. a LETOR file's predictions written chunk by chunk)."""
    import os
    import sys

    if output == "-":
        yield sys.stdout
        return
    path = Path(output).resolve()  # through a link, to its target
    if path.exists() and not path.is_file():  # a device or a pipe (/dev/stdout): as it is
        yield str(path)
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        yield str(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def with_predictions(out, model, X, context, proba, interval=None, bootstrap=None):
    """``out`` (ids and other columns) with the comparisons of pairs ``X``;
    with ``interval`` (a confidence), the ``bootstrap``'s interval of each
    probability in ``<column>_lower`` / ``<column>_upper``."""
    out = out.assign(y_pred=model.predict(X, context),
                     rank_difference=model.decision_function(X, context))
    if proba:
        for name, column in zip(PROBABILITY_COLUMNS, model.predict_proba(X, context).T,
                                strict=True):
            out[name] = column
    if interval is not None:
        lower, upper = bootstrap.predict_proba_interval(X, context, confidence=interval)
        for k, name in enumerate(PROBABILITY_COLUMNS):
            out[f"{name}_lower"], out[f"{name}_upper"] = lower[:, k], upper[:, k]
    return out


def pair_columns(args, model=None):
    """The PairColumns of the command line (and of an identities-only model)."""
    from ..io import PairColumns, identities_of, parse_outcome_map

    names = getattr(model, "feature_names_in_", None)
    outcome_map = getattr(args, "outcome_map", None)
    return PairColumns(
        a=args.a, b=args.b, outcome=getattr(args, "outcome", "y"),
        outcome_map=None if outcome_map is None else parse_outcome_map(outcome_map),
        context=tuple(c.strip() for c in args.context.split(",") if c.strip()),
        identities=None if names is None or args.items else identities_of(names),
        allow_self=bool(getattr(args, "allow_self_pairs", False)),
        unknown=getattr(args, "unknown", "error"),
        sparse_identities=is_linear(args, model))


def is_linear(args, model=None):
    """Whether the model (fitted, or to fit from ``args``) is linear in the
    features, so that identities can stay sparse."""
    if model is not None:
        # Weights on the features themselves: what scores sparse items (an
        # LP's kernel expansion or a feature map reads dense ones).  No import
        # of the estimators: predict reads a model file's light predictor.
        point = model.estimator_ if type(model).__name__ == "BootstrapCompare" else model
        ranking = getattr(point, "ranking_", None)
        return ranking is not None and ranking.weights is not None \
            and ranking.feature_map is None
    return kernel_of(args) == "linear" and getattr(args, "model_type", "compare") != "lp"


def chosen_text(params):
    """A search's chosen point as the command line prints it (C = 0.001, ...)."""
    return ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                     for k, v in params.items())


def auto_loss(args):
    """--loss, else for --auto the squared hinge on a table of ids without
    --items (a leaderboard: unique solutions, never scores at rounding level;
    on ids it beat the hinge's search on the README's league, a new user's
    rugby and international football, tied on the suite's LLM judgments and
    trailed on engine games by 0.002) and the hinge otherwise."""
    if args.loss is not None:
        return args.loss
    from ..io import is_ids_table

    return "squared_hinge" if args.items is None and is_ids_table(args.pairs) else "hinge"


def kernel_of(args):
    """--kernel, else linear for an identities-only table (sparse one-hot ids;
    a kernel on one-hot ids sees only whether two items are the same) and rbf
    for features."""
    if args.kernel is not None:
        return args.kernel
    from ..io import is_ids_table

    return "linear" if args.items is None and is_ids_table(args.pairs) else "rbf"


def column_keys(values, option, column, file, bound=None):
    """(keys, kind) of a column of times or periods (read as text) whose
    order is time's, by the library's one rule (``datasets.games.time_keys``):
    dates (date strings, YYYYMMDD numbers) as datetime64, numbers as numbers
    ("10" after "9"), seasons ("2019-20") by their first year.  With
    ``bound`` (the VALUE of --until COLUMN=VALUE), the last key is its own,
    read with the column (25/12 dates make 01/03/2020 the 1st of March).
    An empty cell, a value that is no date among dates and labels whose
    order is not known are refused, naming the line."""
    import numpy as np
    import pandas as pd

    from .._validation import empty_cells, plain_value
    from ..datasets.games import time_keys
    from ..io import file_line

    values = pd.Series(values)
    index = values.index  # the file's rows (read_table labels them by line)
    values = values.reset_index(drop=True)
    blank = empty_cells(values)
    if blank.any():
        k = int(np.flatnonzero(blank)[0])
        raise ValueError(f"{file}, line {file_line(index, k)}: no {column!r} "
                         f"({int(blank.sum())} row(s) without one), which {option} needs in "
                         "every row: fill it in or remove those rows.")
    name = f"the {option} column {column!r}"
    keys, kind = time_keys(values, name,
                           at=lambda k: f"{file}, line {file_line(index, k)}: {column}")
    if bound is not None:
        # The bound read with the column, in its day order: as the column's kind.
        both = pd.concat([values.astype(object), pd.Series([bound], dtype=object)],
                         ignore_index=True)
        own = keys
        try:
            keys, bound_kind = time_keys(both, name)
        except ValueError:
            bound_kind = None
        if bound_kind != kind and kind == "dates":
            # A date written otherwise than the column's (2020-01-05 against
            # 20200105 values) is still a date when it reads as one alone.
            try:
                alone, bound_kind = time_keys(pd.Series([bound], dtype=object), name)
                keys = pd.concat([own, alone], ignore_index=True)
            except ValueError:
                bound_kind = None
        if bound_kind != kind:
            noun = {"dates": "a date", "numbers": "a number", "seasons": "a season (2019-20)",
                    "months": "a month (2020-01)", "order": "one of its labels"}[kind]
            raise ValueError(f"{option} {column}={bound}: {bound!r} is not {noun} written as "
                             f"the values of {column!r} in {file} are (e.g. "
                             f"{plain_value(values.iloc[0])!r}).")
    keys = keys.to_numpy()
    if kind == "numbers":
        keys = keys.astype(float)
        if np.all(keys == np.round(keys)) and np.all(np.abs(keys) < 2.0**53):
            keys = keys.astype(np.int64)  # integers kept as such: 10 after 9
    return keys, kind


def ordered_column(extras, column, option, file):
    """A column of periods or times (read as text) in an order that means
    time (``column_keys``): dates as datetime64, numbers as numbers
    (integers kept as such), and labels whose order the library knows
    (seasons such as 2019-20) as written, for ``rolling_fit`` to order them
    the same way; labels of an unknown order are refused.  Returns the
    values and their kind (as ``column_keys``)."""
    keys, kind = column_keys(extras[column], option, column, file)
    if kind in ("dates", "numbers"):
        return keys, kind
    return extras[column].to_numpy(dtype=object), kind


def note_degenerate(model, path):
    """A note on stderr when the scores ``model`` gives come from a degenerate
    fit (``degenerate_``: its direction is where the solver stopped, not one
    the problem defines, and its scores can sit at rounding level): a new
    user's leaderboard of ids read 4e-8 for the top team."""
    # (The squared hinge's direction is unique: its degenerate_ says only that
    # Lemma 1's tie band has no scale, which scores and probabilities do not use.)
    if getattr(model, "degenerate_", False) and getattr(model, "loss", "hinge") != "squared_hinge":
        print(f"note: {path} holds a degenerate fit (degenerate_ = True): its scores keep the "
              "direction where the solver stopped, which can change with tol, and can be "
              "tiny; for ratings of ids fit with --loss squared_hinge (also with --auto), "
              "whose solution is unique.", file=sys.stderr)
