"""Graded items in the SVMlight / LETOR text format, with ``qid:`` query groups.

Thin wrappers over scikit-learn's ``load_svmlight_file`` and
``dump_svmlight_file`` that return dense arrays and the groups, as the
ranking estimators (:class:`svmcompare.RankSVM`) take them.
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import dump_svmlight_file, load_svmlight_file


def load_letor(path, n_features=None):
    """Read ``<grade> qid:<id> <feature>:<value> ...`` lines.

    Parameters
    ----------
    path : str or Path
    n_features : int, optional
        Number of features when the file does not mention the last ones.

    Returns
    -------
    X : ndarray of shape (n_items, n_features)
    y : ndarray of shape (n_items,)
        Grades.
    groups : ndarray of shape (n_items,)
        Query ids.  A file without any ``qid:`` (plain SVMlight) is one query,
        all zeros; a file where only some lines have one is refused, naming
        the first line without.
    """
    try:
        X, y, qid = load_svmlight_file(str(path), n_features=n_features, query_id=True)
    except ValueError as exc:
        raise ValueError(f"{path}: not a valid SVMlight/LETOR file ({exc}).") from exc
    if qid.size == 0:
        qid = np.zeros(X.shape[0], dtype=np.int64)
    elif qid.size != X.shape[0]:
        raise ValueError(f"{path}, line {_first_line_without_qid(path)}: no qid: although "
                         "other lines have one; give every line a qid: (or none, for one "
                         "query).")
    return X.toarray(), y, qid


def _first_line_without_qid(path):
    with open(path, encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            content = line.split("#", 1)[0].strip()
            if content and "qid:" not in content:
                return number
    return "?"  # pragma: no cover - sklearn counted one


def dump_letor(X, y, groups, path):
    """Write items, grades and query ids in the SVMlight/LETOR format.

    Lines are written sorted by query id (stable), as LETOR tools expect.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    groups = np.asarray(groups)
    if not (X.ndim == 2 and y.shape == (X.shape[0],) and groups.shape == (X.shape[0],)):
        raise ValueError(f"Need X (n, p), y (n,), groups (n,); got shapes {X.shape}, "
                         f"{y.shape}, {groups.shape}.")
    order = np.argsort(groups, kind="stable")
    dump_svmlight_file(X[order], y[order], str(path), query_id=groups[order], zero_based=False)
