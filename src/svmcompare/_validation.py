"""Input checks shared by every estimator, metric and reader: pair arrays,
comparison labels (eq. 1), numeric vectors and hyper-parameters.  Each
problem is a ValueError or TypeError whose message names it.
"""

from __future__ import annotations

import numbers

import numpy as np

from .kernels import LINEAR, POLY

LABELS = (-1, 0, 1)
# Each label's pairs, as messages name them.
LABEL_WORDS = {-1: "pairs where x is better (y = -1)", 0: "ties (y = 0)",
               1: "pairs where x' is better (y = 1)"}
# The probability link's families and tie bands: parameters of the estimators
# (_parameters.py) and fields of a model file's scoring part (predictor.py).
LINKS = ("ordered", "davidson")
TIE_BANDS = ("constant", "pair")  # a constant tie band, or one that moves with the pair


def empty_cells(values):
    """Whether each cell of a pandas Series is empty (missing, or blank text):
    a result not played yet, a label left out, a time not filled in."""
    return (values.isna() | (values.astype(str).str.strip() == "")).to_numpy()


def listed(items, limit=10, show=str):
    """``items`` for a message: the first ``limit``, each by ``show`` (str, or
    repr for ids), joined by commas, then how many more there are."""
    items = list(items)
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(show(i) for i in items[:limit]) + more


def plain_value(value):
    """A NumPy scalar as the Python value it holds, for messages: 1 and 'a',
    not np.int64(1) and np.str_('a')."""
    return value.item() if isinstance(value, np.generic) else value


def check_outcome_map(mapping):
    """``mapping`` if it is a dict from scalar outcome values (text or numbers)
    to the labels -1, 0, 1; booleans are refused on either side (True == 1
    and False == 0 in Python, so they would silently merge with numbers)."""
    if not isinstance(mapping, dict):
        raise TypeError("outcome_map must be a dict from each outcome value to -1 (x better), "
                        f"0 (tie) or 1 (x' better); got {type(mapping).__name__}.")
    if not mapping:
        raise ValueError("outcome_map is empty.")
    for key, label in mapping.items():
        if isinstance(key, bool | np.bool_) or not isinstance(key, str | int | float | np.number):
            raise TypeError("outcome_map keys must be text or numbers (outcome values as they "
                            f"appear in the data); got {key!r}.")
        if isinstance(label, bool | np.bool_) or not isinstance(label, int | np.integer) \
                or label not in LABELS:
            raise ValueError(f"outcome_map[{key!r}] = {label!r}: labels are the integers -1 "
                             "(x better), 0 (tie) and 1 (x' better).")
    return mapping


def available_memory():
    """Bytes of memory available to a new allocation (Linux /proc/meminfo's
    MemAvailable), or None where that is unknown."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_allocation(nbytes, what, advice):
    """Refuse, before allocating, an array of ``nbytes`` that cannot fit in
    the memory available now (a clear error instead of a MemoryError or an
    exhausted machine)."""
    available = available_memory()
    if available is not None and nbytes > available:
        raise ValueError(f"{what} would take {nbytes / 2**30:.1f} GB, but only "
                         f"{available / 2**30:.1f} GB of memory are available; {advice}")


def first_missing(frame, columns):
    """(row position, column) of the first missing value (None, NaN, NA,
    an empty CSV cell) among ``columns`` of ``frame``, or None."""
    import pandas as pd

    for column in columns:
        empty = pd.isna(frame[column]).to_numpy()
        if empty.any():
            return int(np.flatnonzero(empty)[0]), column
    return None


def check_unique_columns(frame, what):
    """Refuse a DataFrame with a repeated column name (selecting it would give
    a DataFrame where a column is expected)."""
    repeated = frame.columns[frame.columns.duplicated()]
    if len(repeated):
        raise ValueError(f"{what} repeats the column name {repeated[0]!r}; rename one of them.")


def frame_values(frame):
    """A DataFrame's values as floats when every column holds numbers or
    booleans, pandas' nullable types included (a missing value becomes NaN,
    which the finiteness checks then report); else its plain values."""
    import pandas as pd

    if len(frame.columns) and all(pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)
                                  for t in frame.dtypes):
        return frame.to_numpy(dtype=np.float64, na_value=np.nan)
    return frame.to_numpy()


def as_float_matrix(A, name):
    if hasattr(A, "columns"):
        A = frame_values(A)
    A = np.asarray(A)
    if A.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric; got dtype {A.dtype}.")
    if A.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n, n_features); got shape {A.shape}.")
    return A.astype(np.float64)


def check_vector(values, n, label, mismatch):
    """A numeric, finite vector of ``n`` floats.

    ``label`` names it in the type and NaN messages; ``mismatch(k)`` is the
    message when it has k entries instead of n.
    """
    values = np.asarray(values)
    if values.dtype == object or values.dtype.kind not in "biuf":
        raise TypeError(f"{label} must be numeric; got dtype {values.dtype}.")
    values = values.astype(np.float64).ravel()
    if values.shape[0] != n:
        raise ValueError(mismatch(values.shape[0]))
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{label} contains NaN or infinity.")
    return values


def check_finite(A, name):
    if not np.all(np.isfinite(A)):
        bad = np.argwhere(~np.isfinite(A))[0]
        raise ValueError(
            f"{name} contains NaN or infinity (first at index {tuple(int(i) for i in bad)})."
        )


def _is_sparse(X):
    import scipy.sparse as sp

    from .sparse_pairs import SparsePairs

    return sp.issparse(X) or isinstance(X, SparsePairs)


def check_pairs(X, n_features=None):
    """Validate a pair array and return it as a float64 ndarray.

    Parameters
    ----------
    X : array-like of shape (n_pairs, 2, n_features), a DataFrame, or sparse
        A DataFrame holds one pair per row in the wide layout: ``a_<name>``
        columns for x and ``b_<name>`` for x', the same names in the same
        order (other columns are not features and are left out).  A scipy
        sparse matrix of shape (n_pairs, 2 * n_features) holds x's features
        then x''s (returned as :class:`svmcompare.sparse_pairs.SparsePairs`).
    n_features : int, optional
        Expected number of features (the one seen in ``fit``).

    Returns
    -------
    X : ndarray of shape (n_pairs, 2, n_features), float64
    """
    if hasattr(X, "columns"):
        X = _wide_pairs(X)
    if _is_sparse(X):
        from .sparse_pairs import check_sparse_pairs

        return check_sparse_pairs(X, n_features)
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged nested lists and the like
        raise ValueError(f"X could not be read as an array: {exc}") from exc
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(
            f"X must be a numeric array of shape (n_pairs, 2, n_features); got dtype {arr.dtype}."
        )
    if arr.ndim != 3 or arr.shape[1] != 2:
        raise ValueError(
            "X must have shape (n_pairs, 2, n_features) with X[:, 0] = x and X[:, 1] = x'; "
            f"got shape {arr.shape}. Use svmcompare.make_pairs(Xi, Xip) to build it."
        )
    if arr.shape[0] == 0:
        raise ValueError("X has no pairs (n_pairs = 0).")
    if arr.shape[2] == 0:
        raise ValueError("X has no features (n_features = 0).")
    # C order: the same values in another layout (a DataFrame's, a transposed
    # view) gave another solver path, decisions apart by up to 3e-3.
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    check_finite(arr, "X")
    if n_features is not None and arr.shape[2] != n_features:
        raise ValueError(
            f"X has {arr.shape[2]} features per item, but the model was fitted with {n_features}."
        )
    return arr


def check_labels(y, n_pairs=None):
    """Validate comparison labels and return them as an int64 array in {-1, 0, 1}.

    Parameters
    ----------
    y : array-like of shape (n_pairs,)
    n_pairs : int, optional
        Expected length (the number of pairs in ``X``).
    """
    arr = np.asarray(y)
    if arr.dtype.kind == "b":
        raise TypeError(
            "y is boolean, which would read False as a tie (0); labels must be -1 (x better), "
            "0 (tie) or 1 (x' better): e.g. np.where(won, 1, -1) for results without ties."
        )
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"y must be numeric with values in {{-1, 0, 1}}; got dtype {arr.dtype}.")
    if arr.ndim != 1:
        if arr.ndim == 2 and 1 in arr.shape:
            arr = arr.ravel()
        else:
            raise ValueError(f"y must be 1-D; got shape {arr.shape}.")
    if n_pairs is not None and arr.shape[0] != n_pairs:
        raise ValueError(f"y has {arr.shape[0]} labels but X has {n_pairs} pairs.")
    farr = arr.astype(np.float64)
    if not np.all(np.isfinite(farr)):
        raise ValueError("y contains NaN or infinity; labels must be -1, 0 or 1.")
    bad = ~np.isin(farr, LABELS)
    if bad.any():
        values = np.unique(farr[bad])[:5]
        shown = ", ".join(f"{v:g}" for v in values)
        encoded = ""
        if set(np.unique(farr)) <= {0.0, 1.0, 2.0}:
            # scikit-learn re-encodes labels as 0, 1, 2 before fitting for
            # cross_val_predict(method="predict_proba"), which then cannot work.
            encoded = (" If they come from scikit-learn's cross_val_predict with "
                       "method='predict_proba', which re-encodes -1, 0, 1 as 0, 1, 2: fit each "
                       "fold yourself, or use method='predict'.")
        raise ValueError(f"y contains {shown}; labels must be -1, 0 or 1 (eq. 1).{encoded}")
    return farr.astype(np.int64)


def pair_feature_names(X):
    """The feature names of a wide-layout DataFrame of pairs (``a_<name>``,
    ``b_<name>``), or None for an array."""
    if not hasattr(X, "columns"):
        return None
    a_names = [str(c)[2:] for c in X.columns if str(c).startswith("a_")]
    b_names = [str(c)[2:] for c in X.columns if str(c).startswith("b_")]
    if not a_names:
        raise ValueError("A DataFrame of pairs needs a_<feature> columns for x and b_<feature> "
                         f"columns for x'; got columns {list(X.columns)[:8]}.")
    check_unique_columns(X, "X")  # first: a repeated a_ name makes the sides differ in length
    if a_names != b_names:
        a_set, b_set = set(a_names), set(b_names)
        only_a = [n for n in a_names if n not in b_set]
        only_b = [n for n in b_names if n not in a_set]
        if only_a or only_b:  # the names that differ, wherever they are
            detail = "; ".join(part for part in (
                f"a_ only: {only_a[:8]}" if only_a else "",
                f"b_ only: {only_b[:8]}" if only_b else "") if part)
        else:
            at = next(k for k, (p, q) in enumerate(zip(a_names, b_names, strict=True)) if p != q)
            detail = f"in another order from position {at}: a_{a_names[at]} against " \
                     f"b_{b_names[at]}"
        raise ValueError(f"The a_ and b_ columns must name the same features in the same order; "
                         f"{detail}.")
    return a_names


def column_names(table, what="the context"):
    """The column names (as text) of a DataFrame, e.g. a pair context given as
    one, or None for an array (or a Series: one column, nothing to order).
    A repeated name is refused: a saved model reads its columns by name."""
    if not hasattr(table, "columns"):
        return None
    names = [str(c) for c in table.columns]
    repeated = first_repeated(names)
    if repeated is not None:
        raise ValueError(f"{what} repeats the column name {repeated!r}; rename one of them (a "
                         "saved model reads its columns by name).")
    return names


def first_repeated(names):
    """The first name that occurs a second time, or None."""
    seen = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _wide_pairs(X):
    """(n, 2, p) from a wide-layout DataFrame of pairs."""
    names = pair_feature_names(X)  # (repeated column names refused there)
    a = frame_values(X[[f"a_{n}" for n in names]])
    b = frame_values(X[[f"b_{n}" for n in names]])
    return np.stack([a, b], axis=1)


def check_feature_names(expected, names, where):
    """Refuse features whose names or order differ from ``expected`` (a fitted
    model's ``feature_names_in_``); nothing to check when either is None.
    ``where`` names the input (a file, X, Z) in the message."""
    if expected is None or names is None or list(names) == list(expected):
        return
    expected, names = list(expected), list(names)
    if sorted(names) == sorted(expected):
        detail = f"the same names in another order: {names} instead of {expected}"
    else:
        detail = (f"missing {[n for n in expected if n not in names]}, "
                  f"unexpected {[n for n in names if n not in expected]}")
    raise ValueError(f"{where}: its features do not match the model's ({detail}); these are "
                     f"not the features the model was fitted on, which are, in this order, "
                     f"{expected}.")


def check_same_feature_names(estimator, X):
    """Refuse a DataFrame of pairs whose features differ in name or order from
    those the estimator was fitted on (``feature_names_in_``)."""
    check_feature_names(getattr(estimator, "feature_names_in_", None), pair_feature_names(X),
                        "X")


def check_pairs_labels(X, y):
    """Validate ``X`` and ``y`` together (see :func:`check_pairs`, :func:`check_labels`)."""
    X = check_pairs(X)
    y = check_labels(y, n_pairs=X.shape[0])
    return X, y


def check_positive(value, name, *, integer=False, allow_none=False):
    """Raise a clear error unless ``value`` is a positive finite number."""
    if value is None and allow_none:
        return
    kind = numbers.Integral if integer else numbers.Real
    if not isinstance(value, kind) or isinstance(value, bool):
        what = "a positive integer" if integer else "a positive number"
        raise TypeError(f"{name} must be {what}; got {value!r}.")
    try:  # an int beyond 64 bits or a Fraction: np.isfinite takes neither
        number = float(value)
    except OverflowError:
        number = float("inf")
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be positive and finite; got {value}.")


MAX_C = 1e100


def check_bool(value, name):
    """``value`` is True or False (a NumPy bool too)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}.")


def check_C(C):
    """C must be positive and at most MAX_C: C times the hinge loss must stay
    far from overflow (the linear solver's objective reached inf at C = 1e300),
    and every solver here meets the hard-margin solution long before 1e100."""
    check_positive(C, "C")
    if float(C) > MAX_C:  # (a float32 C compared with 1e100 overflowed, with a warning)
        raise ValueError(
            f"C = {C:g} is too large to solve in double precision (at most {MAX_C:g}); a C "
            "of 1e6-1e10 already gives the hard margin on most data, and HardMarginQP solves "
            "the hard-margin problem (9) itself."
        )


def check_costs(costs, C=1.0):
    """The per-pair costs C x class weight x sample weight (``costs`` at C = 1,
    times ``C``) stay at most MAX_C, as C alone must (a sample_weight of 1e200
    would otherwise go around check_C and give constant probabilities)."""
    largest = float(np.max(costs, initial=0.0)) * float(C)
    # Ten times C's own limit: the problems' own factors (SVMRank2 counts a
    # decided pair twice, 2 C) must not refuse a C that check_C allows.
    if not largest <= 10.0 * MAX_C:
        raise ValueError(
            f"C x class_weight x sample_weight reaches {largest:.3g} on some pair, too large "
            f"to solve in double precision (at most {10 * MAX_C:g}); rescale sample_weight "
            "(only its ratios and C together matter)."
        )


# The context enters the problem unscaled, as a linear block of K~ (eq. 18)
# next to kernel values of order 1: RBF fits on 100 pairs took 3,144 SMO steps
# at 1e6 and hit the 10,000,000-step limit at 1e8 (a validation error 0.39
# against 0.28).
MAX_CONTEXT = 1e6


def check_fit_context(context):
    """A context to fit on: at most MAX_CONTEXT in absolute value."""
    if context is None or context.size == 0:
        return
    largest = float(np.max(np.abs(context)))
    if largest > MAX_CONTEXT:
        raise ValueError(
            f"context reaches {largest:.3g} in absolute value (at most {MAX_CONTEXT:g}): it "
            "enters the fit unscaled, next to kernel values of order 1, and the solver "
            "cannot balance the two; give it in units where it is of order 1 (+1 / -1 for "
            "an advantage, days / 7 for rest)."
        )


def check_weighted_labels(check, y, sample_weight, model):
    """``check(labels, model)`` (a label-set check) on the pairs that weigh
    something: a label whose pairs all have weight 0 is not in the data."""
    if sample_weight is None:
        return check(y, model)
    weighed = y[sample_weight > 0]
    try:
        return check(weighed, model)
    except ValueError as exc:
        if weighed.size < y.size:
            raise ValueError(f"{exc} (Counting only the {weighed.size} pairs whose "
                             "sample_weight is positive.)") from None
        raise


def check_kernel_scale(kernel, Xs):
    """Refuse a kernel whose values overflow on the (standardized) items.

    |k(x, z)| <= sqrt(k(x, x) k(z, z)) for the positive semi-definite kernels
    here, so the largest k(z, z) bounds every kernel value; past 1e100 the
    dual's gradients lose every digit (and past 1e308 become inf).
    """
    if kernel.func is not None or kernel.code not in (LINEAR, POLY):
        return  # rbf and laplacian are at most 1; callables are checked when called
    sq = np.einsum("ijk,ijk->ij", Xs, Xs).max()
    with np.errstate(over="ignore"):
        largest = sq if kernel.code == LINEAR else \
            abs(kernel.gamma * sq + kernel.coef0) ** kernel.degree
    if not largest <= 1e100:
        raise ValueError(
            f"The {kernel.name} kernel reaches {largest:.3g} on these items (standardized "
            f"features; degree={kernel.degree}, gamma={kernel.gamma:g}), beyond what double "
            "precision can solve; lower the degree or gamma."
        )


def check_compare_label_set(y, model="SVMCompare"):
    """The flipped data of eq. (8) need equality pairs and inequality pairs."""
    n_eq = int(np.count_nonzero(y == 0))
    if n_eq == 0:
        raise ValueError(
            f"{model} needs equality pairs (y = 0) and inequality pairs (y = +-1); "
            "y has no equality pairs. Use SVMRank, which learns from inequality pairs only."
        )
    if n_eq == y.size:
        raise ValueError(
            f"{model} needs equality pairs (y = 0) and inequality pairs (y = +-1); "
            "y has only equality pairs, so every pair is predicted equal and no ranking "
            "can be learned. SVMRank needs inequality pairs too."
        )


def check_context(context, n_pairs, n_context=None):
    """Validate a pair context: None or an (n_pairs, q) float64 array.

    ``n_context`` is the q a fitted model expects: None (no context at fit)
    refuses a context, an integer requires one with that many columns.
    """
    if context is None:
        if n_context:
            raise ValueError(
                f"The model was fitted with a pair context of {n_context} column(s); pass "
                "context= (zeros for pairs where neither position has an advantage).")
        return None
    context = np.asarray(context)
    if context.dtype == object or context.dtype.kind not in "biuf":
        raise TypeError(f"context must be numeric; got dtype {context.dtype}.")
    if context.ndim == 1:
        context = context[:, None]
    if context.ndim != 2 or context.shape[0] != n_pairs:
        raise ValueError(f"context must have shape (n_pairs, q) = ({n_pairs}, q); "
                         f"got {context.shape}.")
    if context.shape[1] == 0:  # no columns: as no context
        return check_context(None, n_pairs, n_context)
    if n_context is not None and context.shape[1] != n_context:
        what = "no context" if not n_context else f"{n_context} context column(s)"
        raise ValueError(f"context has {context.shape[1]} column(s), but the model was fitted "
                         f"with {what}.")
    context = context.astype(np.float64)
    if not np.all(np.isfinite(context)):
        raise ValueError("context contains NaN or infinity.")
    return context


def take_rows(values, rows):
    """``values[rows]`` of an optional per-pair array (context, weights), None for None."""
    return None if values is None else values[rows]


def check_sample_weight(sample_weight, n_pairs, positive_sum=True):
    """None, or non-negative finite weights (n_pairs,) with a positive sum
    (unless not ``positive_sum``: a batch of pairs whose sum is checked with
    the others'), as float64."""
    if sample_weight is None:
        return None
    weight = np.asarray(sample_weight)
    if weight.dtype == object or weight.dtype.kind not in "biuf" or weight.dtype.kind == "b":
        raise TypeError(f"sample_weight must be numeric; got dtype {weight.dtype}.")
    weight = weight.astype(np.float64)
    if weight.ndim == 0:
        weight = np.full(n_pairs, float(weight))
    if weight.shape != (n_pairs,):
        raise ValueError(f"sample_weight must have shape ({n_pairs},); got {weight.shape}.")
    if not np.all(np.isfinite(weight)) or np.any(weight < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    if positive_sum and not weight.sum() > 0:
        raise ValueError("sample_weight is zero for every pair.")
    return weight


def check_groups(groups, n_rows, row="pair"):
    """``groups`` as a 1-D array of one group label per row, all text or all
    numbers, none missing; ``row`` names a row in the messages ("pair", or
    "item" for the query ids of graded items).

    A missing group (None, NaN) would be a group of its own, or break the
    sort that finds the groups; text mixed with numbers cannot be sorted
    (and a list of both would be read as text, making 1 and "1" one group).
    """
    import pandas as pd

    if hasattr(groups, "to_numpy"):  # a pandas Series or Index
        groups = groups.to_numpy()
    plain = isinstance(groups, np.ndarray) and groups.dtype != object
    values = groups if plain else np.asarray(groups, dtype=object)
    if values.ndim != 1 or values.shape[0] != n_rows:
        raise ValueError(f"groups has shape {values.shape}; expected ({n_rows},): one group "
                         f"label per {row}.")
    missing = np.flatnonzero(pd.isna(values))
    if missing.size:
        raise ValueError(f"groups has {missing.size} missing value(s) (None or NaN; the first "
                         f"in row {missing[0]}); give every {row} a group.")
    if plain:
        return values
    kinds = {}
    for value in values:
        kind = "text" if isinstance(value, str) else "number" \
            if isinstance(value, numbers.Real) else type(value).__name__
        kinds.setdefault(kind, value)
    if len(kinds) > 1:
        shown = ", ".join(f"{kind} ({value!r})" for kind, value in kinds.items())
        raise TypeError(f"groups mixes {shown}; give every {row} a group label of one type "
                        "(all text or all numbers).")
    if "text" in kinds:
        return values.astype(str)
    if "number" in kinds:
        return np.array(values.tolist())
    try:
        np.unique(values)
    except TypeError as exc:
        raise TypeError(f"groups holds {next(iter(kinds))} values that cannot be sorted into "
                        "groups; use text or numbers.") from exc
    return values
