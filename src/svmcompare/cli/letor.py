"""Graded items in SVMlight/LETOR files on the command line: every pair
inside each query, fitted without forming them or formed a chunk at a time."""

from __future__ import annotations

import sys
from pathlib import Path

from .options import check_file_features, kernel_of, rows_of, with_predictions


def fits_every_pair(args):
    """Whether ``fit`` on a LETOR file trains on every within-query pair
    without forming them (the all-pairs solver: a linear SVMCompare with
    ties kept); other settings form the pairs."""
    from ..io import is_letor

    return (is_letor(args.pairs) and args.model_type == "compare" and kernel_of(args) == "linear"
            and not (args.grid or args.auto or args.probability or args.bootstrap))


def kept_queries(args, path, Z, grades, qid):
    """The items of the queries ``--until qid=V`` / ``--after qid=V`` keep
    (the only column of a LETOR file's items), with their numbers in the file;
    all of them without either option."""
    import numpy as np
    import pandas as pd

    mask = rows_of(args, pd.DataFrame({"qid": qid}), path)
    if mask is None:
        return Z, grades, qid, np.arange(qid.size)
    return Z[mask], grades[mask], qid[mask], np.flatnonzero(mask)


def fit_graded(args):
    """A linear SVMCompare on every within-query pair of a LETOR file, equal
    grades as ties, through GroupRankSVM(pairs="all"): memory O(items), not
    O(pairs).  Saves the pair model, which every pair command takes."""
    import numpy as np

    from .. import GroupRankSVM
    from ..graded import THRESHOLD_PAIRS
    from ..io import load_letor
    from ..pairs import pair_indices, sample_pair_indices
    from ..persistence import save_model

    Z, grades, qid, _ = kept_queries(args, args.pairs, *load_letor(args.pairs))
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


MANY_PAIRS = 1_000_000  # formed pairs of a LETOR file that earn a note


def note_formed_pairs(X):
    """The pairs ``X`` formed from a LETOR file: when they are many, say what
    they cost and which settings train on every pair without forming them."""
    if X.shape[0] > MANY_PAIRS:
        print(f"note: {X.shape[0]} pairs within queries, formed here as "
              f"{X.nbytes / 2**30:.1f} GB of pair features; --kernel linear without "
              "--grid, --auto and --probability trains on every pair without forming "
              "them.", file=sys.stderr, flush=True)


def graded_predictions(args, model):
    """Predictions for every within-query pair of a LETOR file, PAIR_CHUNK pairs
    at a time (the query and the two items' numbers first, as read_pair_extras)."""
    import pandas as pd

    from ..io import load_letor

    # The model's feature count: a sparse file may omit the last features (0) on
    # every line, as evaluate reads it too.
    Z, grades, qid, number = kept_queries(
        args, args.pairs, *load_letor(args.pairs, getattr(model, "n_features_in_", None)))
    check_file_features(model, [f"f{k + 1}" for k in range(Z.shape[1])], args.pairs)
    first, second, _ = _graded_pairs(args.pairs, grades, qid)
    for rows, X in _formed_chunks(Z, first, second):
        out = pd.DataFrame({"qid": qid[first[rows]], "item_a": number[first[rows]],
                            "item_b": number[second[rows]]})
        yield with_predictions(out, model, X, None, args.proba)


def report_graded(args):
    """Kendall tau per query and NDCG@10 of a model's scores on a LETOR file;
    returns the model when it also compares pairs (else None: done) and the
    file's items, grades and query ids."""
    import numpy as np

    from .._base import PairwiseKernelModel
    from ..io import load_letor
    from ..metrics import kendall_tau_per_group, ndcg_at_k
    from ..persistence import load_model

    model = load_model(args.model)
    Z, grades, qid, _ = kept_queries(
        args, args.pairs, *load_letor(args.pairs, getattr(model, "n_features_in_", None)))
    # As predict and rank: a model of named features (or ids) is refused here.
    check_file_features(model, [f"f{k + 1}" for k in range(Z.shape[1])], args.pairs)
    score = (model if hasattr(model, "rank") else model.pair_model_).rank(Z)
    tau, per_group = kendall_tau_per_group(grades, score, qid)
    print(f"items {Z.shape[0]} in {np.unique(qid).size} queries: Kendall tau per query "
          f"{tau:.4f} (mean over the {int(np.isfinite(per_group).sum())} queries with two grades)")
    if np.all(grades >= 0):
        print(f"NDCG@10 {ndcg_at_k(grades, score, qid, k=10):.4f}")
    return (model if isinstance(model, PairwiseKernelModel) else None), (Z, grades, qid)


PAIR_CHUNK = 100_000  # pairs formed at a time by evaluate and predict on a LETOR file


def _graded_pairs(path, grades, qid):
    """first, second, labels of every within-query pair of a LETOR file, equal
    grades as ties; a file without any pair is refused."""
    from ..pairs import pair_indices

    first, second, labels = pair_indices(grades, qid, "keep")
    if labels.size == 0:
        raise ValueError(f"{Path(path).name}: no query has two items, so there are no pairs.")
    return first, second, labels


def _formed_chunks(Z, first, second):
    """(rows, X): the pairs (Z[first], Z[second]) formed PAIR_CHUNK at a time,
    so that memory grows with the pairs' outputs, not with their features
    (9.9 million pairs of 20 features would take 3 GB)."""
    import numpy as np

    for start in range(0, first.size, PAIR_CHUNK):
        rows = slice(start, start + PAIR_CHUNK)
        yield rows, np.stack([Z[first[rows]], Z[second[rows]]], axis=1)


def graded_pair_outputs(model, path, Z, grades, qid):
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
