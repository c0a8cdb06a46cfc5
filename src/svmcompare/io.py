"""Files: pairs and items from CSV, graded items in the SVMlight / LETOR format.

Two layouts of a pairs file are read:

* **wide**: one row per pair, columns ``a_<feature>`` for x and
  ``b_<feature>`` for x' (the same feature names, same order) and,
  for training or evaluation, ``y`` in {-1, 0, 1};
* **ids**: an items table (``id`` plus one column per feature) and a pairs
  table with columns ``item_a``, ``item_b`` (ids) and ``y``; without an
  items table, the ids alone (one-hot identities ``is_<id>``: a
  Bradley-Terry-style ranking from who beat whom).

:class:`PairColumns` renames these columns (``home``, ``away``), maps an
outcome column of any values to labels (``H=-1,D=0,A=1``, never guessed) and
names pair-context columns besides the ``ctx_<name>`` ones.

Graded items in the SVMlight / LETOR format (``<grade> qid:<query> 1:<v>
...``, extension ``.svmlight``, ``.letor``, ``.svm`` or ``.dat``) are read too:
the pairs are all pairs of items of the same query, labeled by their grade
order, equal grades as ties (:func:`svmcompare.pairwise_transform`).

Every problem is reported as a ValueError naming the file, the column and,
for a bad value, the line (counting the header as line 1).
"""

from __future__ import annotations

import contextlib
import numbers
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._validation import (
    LABELS,
    check_allocation,
    check_outcome_map,
    empty_cells,
    first_missing,
    listed,
    plain_value,
)

# The exact doubles written: pandas before 3.0 parsed some 1 ulp off by
# default (3.0 parses exactly and deprecates the option).
_EXACT_FLOATS = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


# What pandas reads as missing by default (its STR_NA_VALUES), kept for
# number columns: an empty cell, NA, NaN, null, ...
_NA_TEXT = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
            "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]


def _separator(path):
    """',' unless the header line is split by ';' or tabs only (as spreadsheets
    in many locales write CSV)."""
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        header = handle.readline()
    if "," not in header:
        for candidate in (";", "\t"):
            if candidate in header:
                return candidate
    return ","


def _header(path, sep):
    """The column names of a CSV file as written; a repeated name is refused
    (pandas would rename the second copy and read it as another column)."""
    import csv

    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        names = next(csv.reader(handle, delimiter=sep), [])
    seen = set()
    for column in names:
        if column in seen:
            raise ValueError(f"{Path(path).name}: the header repeats the column name "
                             f"{column!r}; rename one of them.")
        seen.add(column)
    return names


def read_table(path, numeric=None, check_header=None):
    """A CSV file as a DataFrame; ``numeric(column)`` says which columns may be
    parsed as numbers (default: all).  The others are read as text exactly as
    written: ids such as "01" and "1" stay two ids and are written back unchanged.
    ``check_header(names)`` may refuse the column names before the table is
    parsed (pandas takes seconds for a header of 100,000 columns)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No file at {path}.")
    try:
        sep = _separator(path)
        names = _header(path, sep)
        if check_header is not None:
            check_header(names)
        text = [] if numeric is None else [c for c in names if not numeric(c)]
        # Text columns (ids, outcomes) are missing only when empty: "NA" is
        # Namibia and "None" a team name, not pandas' missing values.
        as_text = set(text)  # (a list's lookups made 40,000 columns take 18 s)
        missing = {c: [""] if c in as_text else _NA_TEXT for c in names}
        # utf-8-sig: a byte-order mark (Excel's CSV) is not part of the first name.
        # index_col=False: a row with more fields than the header (a trailing
        # delimiter) would otherwise turn the first column into the index and
        # shift every name one column right, silently.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.ParserWarning)
            frame = pd.read_csv(path, sep=sep, encoding="utf-8-sig", index_col=False,
                                dtype={c: str for c in text} or None, keep_default_na=False,
                                na_values=missing, **_EXACT_FLOATS)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path.name}: cannot read it as CSV ({exc}).") from exc
    extra_fields = False
    for caught_warning in caught:
        if issubclass(caught_warning.category, pd.errors.ParserWarning):
            extra_fields = True
        else:  # the others reach the caller as they were
            warnings.warn(caught_warning.message, caught_warning.category, stacklevel=2)
    if extra_fields:
        _check_extra_fields(path, sep, len(names))
    lines = _row_lines(path, sep, len(frame))
    if lines is not None:
        frame.index = pd.Index(lines - 2)  # file_line(frame.index, row): the row's line
    return frame


def _check_extra_fields(path, sep, n_names):
    """Refuse a row with a value beyond the header's columns, naming its line
    (empty fields there, a trailing delimiter, are dropped)."""
    with _csv_records(path, sep) as reader:
        next(reader, None)
        for record in reader:
            extra = [field for field in record[n_names:] if field.strip()]
            if extra:
                raise ValueError(f"{path.name}, line {reader.line_num}: {len(record)} "
                                 f"fields where the header names {n_names} columns "
                                 f"(an extra value {extra[0]!r}); give every row the "
                                 "header's columns.")


@contextlib.contextmanager
def _csv_records(path, sep):
    """A csv reader of the file's records as pandas reads them (a byte-order
    mark dropped, no limit on a cell's size, which pandas does not have)."""
    import csv

    limit = csv.field_size_limit()
    try:
        csv.field_size_limit(2**31 - 1)
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
            yield csv.reader(handle, delimiter=sep)
    finally:
        csv.field_size_limit(limit)


def _row_lines(path, sep, n_rows):
    """:func:`data_row_lines` of a table pandas read as ``n_rows`` rows, or
    None when row + 2 names their lines (or the two readings differ)."""
    starts = data_row_lines(path, sep, n_rows)
    return None if starts is None or len(starts) != n_rows else starts


def data_row_lines(path, sep=None, n_rows=None):
    """The file line (1-based) on which each data row of a CSV file starts, or
    None when it is row + 2 (a header, then a row a line).  pandas skips blank
    lines, and a quoted cell may span lines: messages that counted rows named
    the wrong line after either.  With ``n_rows`` (the rows pandas read), a
    file of one line a row (blank lines at its end aside) is told apart by
    its count of lines alone, read in chunks."""
    import csv

    path = Path(path)
    physical = _content_lines(path)
    if n_rows is not None and physical == n_rows + 1:
        return None
    sep = _separator(path) if sep is None else sep
    starts = []
    try:
        with _csv_records(path, sep) as reader:
            end = 0
            for k, record in enumerate(reader):
                blank = not record or (len(record) == 1 and not record[0].strip())
                if k > 0 and not blank:
                    starts.append(end + 1)
                end = reader.line_num
    except csv.Error:
        return None  # read otherwise than pandas reads it: lines by rows
    if physical == len(starts) + 1:
        return None
    return np.asarray(starts, dtype=np.int64)


def _content_lines(path, chunk=1 << 20):
    """Lines of a file up to its last one with text (blank lines at the end,
    which move no row, not counted), read a chunk at a time."""
    lines, tail = 0, b""
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            lines += block.count(b"\n")
            tail = (tail + block)[-chunk:]
    if not tail.strip():
        return 0
    # The newlines among the trailing blanks end the last line and empty ones.
    blanks = tail[len(tail.rstrip(b" \t\r\n")):]
    return lines - blanks.count(b"\n") + 1


def is_ids_table(path):
    """Whether a pairs CSV lists item ids (no ``a_<feature>`` columns); False
    for the wide layout, an SVMlight file or a missing file."""
    if is_letor(path) or not Path(path).is_file():
        return False
    return not any(str(c).startswith("a_") for c in _header(path, _separator(path)))


def _shown(names, limit=5):
    """A list of names for a message, cut to ``limit`` with the count of the rest."""
    names = list(names)
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"{names[:limit]}{more}"


def _overflows(value):
    """Whether a cell's text is a number too large for double precision
    (1e400: some pandas versions read it as inf, others as text)."""
    try:
        return bool(np.isinf(float(str(value))))
    except ValueError:
        return False


def file_line(index, row):
    """The file line of a table's row at position ``row``: its index label + 2
    (a header, 1-based; :func:`read_table` labels rows so after blank lines
    too), so that a subset of a file's rows names its lines."""
    at = index[row]
    return (int(at) if isinstance(at, numbers.Integral) else row) + 2


def _numeric(frame, columns, name):
    """The columns as a float matrix; a non-numeric or missing value names its line."""
    values = frame[columns].apply(pd.to_numeric, errors="coerce")
    bad = (values.isna() | np.isinf(values.astype(float))).to_numpy()
    if bad.any():
        row, col = np.argwhere(bad)[0]
        value = frame[columns[col]].iloc[row]
        # pandas has parsed the cell: "nan" and "NA" are missing by now, and
        # 1e999 reads as inf, so the message names kinds, not the file's text.
        what = "empty or missing cell (blank, NA, NaN, null, ...)" if pd.isna(value) else \
            "infinite, or past double precision's 1.8e308" \
            if isinstance(value, numbers.Real) and np.isinf(value) else \
            f"{str(value)!r} is not finite" \
            if _overflows(value) or not pd.isna(values.iloc[row, col]) \
            else f"{str(value)!r} is not a number"
        raise ValueError(f"{name}, line {file_line(frame.index, row)}, column {columns[col]}: "
                         f"{what}.")
    return values.to_numpy(dtype=np.float64)


@dataclass(frozen=True)
class PairColumns:
    """Which columns of a pairs CSV hold what.

    Parameters
    ----------
    a, b : str
        Columns of the ids of x and x' (ids layout).
    outcome : str
        Column of the labels, or of outcomes mapped by ``outcome_map``.
    outcome_map : dict, optional
        Each outcome value (as written in the file) to -1 (x better), 0 (tie)
        or 1 (x' better); without it the column must hold -1, 0 and 1.
    context : tuple of str
        Pair-context columns besides those named ``ctx_<name>``.
    identities : list, optional
        The ids of an identities-only model (prediction: the ids it was
        fitted on, in order); None reads them from the file.
    allow_self : bool, default=False
        Accept rows whose two ids are the same (refused by default: an item
        compared with itself is usually a data error).
    unknown : {"error", "mean"}, default="error"
        What an id missing from the items table (or from an identities-only
        model's ids) does: an error naming every such id, or "mean": the
        mean item's features (for identities, 1/K on each of the K ids, so
        its r(x) is the mean of the known ratings), with a note.
    sparse_identities : bool, default=False
        Read an identities-only table (ids without an items table) as sparse
        pairs, a (n_pairs, 2 p) scipy matrix with two non-zeros a pair (for
        linear models; the command line's choice for them); False: dense
        one-hot pairs (n_pairs, 2, p).
    """

    a: str = "item_a"
    b: str = "item_b"
    outcome: str = "y"
    outcome_map: dict | None = None
    context: tuple = ()
    identities: list | None = None
    allow_self: bool = False
    sparse_identities: bool = False
    unknown: str = "error"

    def context_columns(self, frame):
        return [c for c in frame.columns if c.startswith("ctx_")] + \
            [c for c in self.context if not c.startswith("ctx_")]


def parse_outcome_map(text):
    """``"H=-1,D=0,A=1"`` -> {"H": -1, "D": 0, "A": 1} (the CLI's --outcome-map);
    a value given twice is refused."""
    mapping = {}
    for item in str(text).split(","):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or value not in ("-1", "0", "1"):
            raise ValueError(f"--outcome-map {text!r}: write value=label pairs separated by "
                             "commas, labels -1 (x better), 0 (tie), 1 (x' better), e.g. "
                             "'H=-1,D=0,A=1'.")
        if key in mapping:
            raise ValueError(f"--outcome-map {text!r}: {key!r} is given twice.")
        mapping[key] = int(value)
    return check_outcome_map(mapping)


def _labels(frame, name, columns=PairColumns(), unlabeled="error"):
    """The labels of a pairs table; with ``unlabeled="nan"`` an empty cell is a
    pair without a label (NaN, floats), e.g. a fixture not played yet."""
    column = columns.outcome
    if column not in frame.columns:
        raise ValueError(f"{name} has no {column!r} column (labels -1, 0, 1).")
    empty = empty_cells(frame[column])
    if unlabeled == "nan" and empty.any():
        y = np.full(len(frame), np.nan)
        if not empty.all():
            y[~empty] = _labels(frame[~empty], name, columns)
        return y
    if columns.outcome_map is not None:
        return mapped_labels(frame[column], columns.outcome_map, name, column)
    values = pd.to_numeric(frame[column], errors="coerce")
    text = values.isna() & frame[column].notna()
    if text.any():
        row = int(np.flatnonzero(text.to_numpy())[0])
        raise ValueError(f"{name}, line {file_line(frame.index, row)}, column {column}: "
                         f"{frame[column].iloc[row]!r} is not a label -1, 0 or 1; map outcomes "
                         "to labels with --outcome-map (outcome_map= in Python), e.g. "
                         "'H=-1,D=0,A=1'.")
    y = _numeric(frame, [column], name).ravel()
    bad = ~np.isin(y, LABELS)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}, line {file_line(frame.index, row)}, column {column}: {y[row]:g} "
                         "is not a label; "
                         "labels are -1 (x better), 0 (tie) and 1 (x' better)"
                         + ("" if column != "y" else "; map other values with --outcome-map")
                         + ".")
    return y.astype(np.int64)


def mapped_labels(values, mapping, name, column):
    """Labels from outcome values by ``mapping`` (keys as written in the file;
    when the outcomes and the keys are all numbers they match numerically, so
    "1" matches 1.0)."""
    numbers = pd.to_numeric(values, errors="coerce")
    try:
        numeric = {float(key): label for key, label in mapping.items()}
    except ValueError:
        numeric = None
    if numeric is not None and numbers.notna().all():
        mapped = numbers.astype(float).map(numeric)
    else:
        mapped = values.astype(str).str.strip().map({str(k): v for k, v in mapping.items()})
    if mapped.isna().any():
        row = int(np.flatnonzero(mapped.isna().to_numpy())[0])
        value = values.iloc[row]
        what = "an empty cell" if pd.isna(value) else f"outcome {plain_value(value)!r}"
        raise ValueError(f"{name}, line {file_line(values.index, row)}, column {column}: {what} "
                         "is not in the "
                         f"outcome map {mapping}.")
    return mapped.to_numpy().astype(np.int64)


def read_items(path, n_features=None):
    """An items table: ``id`` column plus numeric features -> (ids, Z, feature names).

    An SVMlight / LETOR file gives its items with ids 0, 1, ... in file order;
    ``n_features`` (a model's ``n_features_in_``) is then its number of
    features, which a sparse file need not reach: the last features may be
    0, and so omitted, on every line.
    """
    if is_letor(path):
        Z = load_letor(path, n_features)[0]
        return np.arange(Z.shape[0]), Z, [f"f{k + 1}" for k in range(Z.shape[1])]
    frame = read_table(path, numeric=lambda column: column != "id")
    name = Path(path).name
    if "id" not in frame.columns:
        raise ValueError(f"{name} has no 'id' column (an items table needs id plus features).")
    _check_ids(frame, ["id"], name)
    features = [c for c in frame.columns if c != "id"]
    if not features:
        raise ValueError(f"{name} has no feature columns besides 'id'.")
    if frame["id"].duplicated().any():
        raise ValueError(f"{name}: item id {frame['id'][frame['id'].duplicated()].iloc[0]!r} "
                         "appears twice.")
    from .pairs import check_id_spacing  # as pairs_from_frame's items table

    check_id_spacing(frame["id"].to_numpy(), f"{name}, column id")
    return frame["id"].to_numpy(), _numeric(frame, features, name), features


LETOR_SUFFIXES = (".svmlight", ".letor", ".svm", ".dat")


def is_letor(path):
    """Whether ``path`` names an SVMlight / LETOR file (by its extension)."""
    return Path(path).suffix.lower() in LETOR_SUFFIXES


def _letor_pairs(path):
    from .pairs import pairwise_transform

    Z, grades, qid = load_letor(path)
    _, sizes = np.unique(qid, return_counts=True)
    n_pairs = int((sizes * (sizes - 1) // 2).sum())
    check_allocation(16 * n_pairs * Z.shape[1], f"{Path(path).name}: its {n_pairs:,} pairs",
                     "fit --kernel linear without --grid, --auto and --probability trains on "
                     "every pair without forming them.")
    X, y = pairwise_transform(Z, grades, qid, ties="keep")
    if X.shape[0] == 0:
        raise ValueError(f"{Path(path).name}: no query has two items, so there are no pairs.")
    return X, y, [f"f{k + 1}" for k in range(Z.shape[1])]


def read_pairs(path, items=None, require_labels=True, return_context=False,
               columns=PairColumns(), unlabeled="error", rows=None):
    """Pairs (n, 2, p), labels (or None) and feature names from a pairs file.

    Parameters
    ----------
    path : str or Path
        The pairs CSV (wide layout, or ``item_a, item_b[, y]`` with ``items``).
    items : str or Path, optional
        The items CSV of the ids layout.
    require_labels : bool
        Whether a ``y`` column must be present.
    return_context : bool, default=False
        Also return the pair context: the ``ctx_<name>`` columns (and
        ``columns.context``) as an array (n, q), or None when there are none
        (LETOR files have none).
    columns : PairColumns
        Names of the id, outcome and context columns, the outcome map and
        the identities of an identities-only model.
    unlabeled : {"error", "nan"}, default="error"
        A pair whose label cell is empty (a fixture of ``svmcompare features
        --fixtures``): an error naming its line, or "nan": a NaN label (the
        labels are then floats; without ``require_labels`` labels are read
        so anyway).
    rows : ndarray of bool, optional
        Only these pairs (the command line's --until / --after), read as if
        the file held them alone: the ids of identities are theirs, and an
        id or a cell of the other rows is not checked (messages still name
        the file's lines).
    """
    if is_letor(path):
        pairs = _letor_pairs(path)
        if rows is not None:
            pairs = (pairs[0][rows], pairs[1][rows], pairs[2])
        return (*pairs, None) if return_context else pairs
    name = Path(path).name

    def wide_header(names):
        if items is None and any(c.startswith("a_") for c in names):
            _wide_columns(names, name)

    frame = read_table(path, numeric=_numeric_pair_column(columns), check_header=wide_header)
    if rows is not None:
        frame = frame[np.asarray(rows, dtype=bool)]  # the index keeps each row's line
    pairs = _csv_pairs(frame, name, items, require_labels, columns,
                       unlabeled if require_labels else "nan")
    if not return_context:
        return pairs
    names = columns.context_columns(frame)
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} has no context column(s) {missing}.")
    return (*pairs, _numeric(frame, names, name) if names else None)


def context_names(path, columns=PairColumns()):
    """The names of a pairs file's context columns, in the order
    :func:`read_pairs` reads them (none for an SVMlight / LETOR file)."""
    if is_letor(path):
        return []
    names = _header(path, _separator(path))
    return columns.context_columns(pd.DataFrame(columns=names))


def read_pair_extras(path, columns=PairColumns(), results=False):
    """The other columns of a pairs CSV: the ``weight`` column (or None) and the
    columns that are neither features, labels, context nor weight (ids, dates,
    notes: where --until, --groups and --period look); with ``results`` also
    every column but the features and the weight, in the file's order (the
    outcome and context as written too), which ``svmcompare predict`` and
    ``rolling`` copy next to their predictions.

    For an SVMlight / LETOR file: the query id and the two items' numbers
    (their order among the file's items, from 0) of each pair.
    """
    if is_letor(path):
        from .pairs import pair_indices

        _, grades, qid = load_letor(path)
        first, second, _ = pair_indices(grades, qid, "keep")
        # Items are numbered by their line among the file's items, from 0.
        extras = pd.DataFrame({"qid": qid[first], "item_a": first, "item_b": second})
        return (None, extras, extras) if results else (None, extras)
    frame = read_table(path, numeric=_numeric_pair_column(columns))
    weight = None
    if "weight" in frame.columns:
        weight = _numeric(frame, ["weight"], Path(path).name)[:, 0]
        if np.any(weight < 0):  # named by its line, not only as sample_weight's rule
            row = int(np.flatnonzero(weight < 0)[0])
            raise ValueError(f"{Path(path).name}, line {file_line(frame.index, row)}, column "
                             f"weight: {weight[row]:g} is negative (a weight is >= 0).")
    features = ("a_", "b_", "ctx_")
    shown = [c for c in frame.columns if not c.startswith(features) and c != "weight"]
    used = {columns.outcome, *columns.context}
    extras = frame[[c for c in shown if c not in used]]
    return (weight, extras, frame[shown]) if results else (weight, extras)


def _numeric_pair_column(columns):
    """Which columns of a pairs file hold numbers: features, context, weights.
    The rest (ids, outcomes, dates, notes) are read as text."""
    ids = {columns.a, columns.b}
    numeric = ("weight", *columns.context)

    def is_numeric(column):
        return column not in ids and (column.startswith(("a_", "b_", "ctx_"))
                                      or column in numeric)
    return is_numeric


def _check_ids(frame, id_columns, name):
    """Refuse an empty id cell, naming its line."""
    missing = first_missing(frame, id_columns)
    if missing is not None:
        row, column = missing
        raise ValueError(f"{name}, line {file_line(frame.index, row)}, column {column}: empty id.")


def _check_not_self(frame, columns, name):
    same = (frame[columns.a] == frame[columns.b]).to_numpy()
    if same.any() and not columns.allow_self:
        row = int(np.flatnonzero(same)[0])
        raise ValueError(f"{name}, line {file_line(frame.index, row)}: item "
                         f"{frame[columns.a].iloc[row]!r} is "
                         f"compared with itself ({columns.a} = {columns.b}); remove such rows "
                         "(fit, predict, evaluate and rolling also take --allow-self-pairs).")


def _wide_columns(names, name):
    """The a_ and b_ columns of the wide layout and the features they name;
    refused unless both name the same features in the same order."""
    a_cols = [c for c in names if c.startswith("a_")]
    b_cols = [c for c in names if c.startswith("b_")]
    if not a_cols:
        raise ValueError(f"{name} has no a_<feature> columns: give x's features as a_<name> "
                         "and x''s as b_<name>, or an items file with --items.")
    features = [c[2:] for c in a_cols]
    if [c[2:] for c in b_cols] != features:
        missing = sorted(set(features) ^ {c[2:] for c in b_cols})
        detail = f"mismatched: {_shown(missing)}" if missing else "the order differs"
        raise ValueError(f"{name}: the a_ and b_ columns must name the same features in the "
                         f"same order; {detail}.")
    if identities_of(features) is not None:
        # A model's feature names are all it keeps of its columns: all is_<x>
        # is how an identities-only model names them, and rank / leaderboard
        # would list "items" <x> that are features.
        raise ValueError(f"{name}: every feature is named is_<name> ({_shown(features)}), "
                         "as the one-hot columns of item ids are; rename at least one (e.g. "
                         f"a_{features[0][3:]} instead of a_{features[0]}).")
    return a_cols, b_cols, features


def _csv_pairs(frame, name, items, require_labels, columns=PairColumns(), unlabeled="error"):
    if len(frame) == 0:
        raise ValueError(f"{name} has a header and no rows: there are no pairs in it.")
    if require_labels and columns.outcome not in frame.columns:
        raise ValueError(f"{name} has no {columns.outcome!r} column (labels -1, 0, 1"
                         + (")" if columns.outcome != "y" else ", or --outcome COLUMN with "
                            "--outcome-map)") + ".")
    y = _labels(frame, name, columns, unlabeled) if columns.outcome in frame.columns else None
    wide = any(c.startswith("a_") for c in frame.columns)
    ids = columns.a in frame.columns and columns.b in frame.columns
    if items is not None or (ids and not wide):
        missing = [c for c in (columns.a, columns.b) if c not in frame.columns]
        if missing:
            raise ValueError(f"{name} has no column(s) {missing}; with --items the pairs file "
                             f"lists item ids in {columns.a} and {columns.b} (--a, --b).")
        _check_ids(frame, [columns.a, columns.b], name)
        _check_not_self(frame, columns, name)
        if items is None:
            ids, Z, features = _identities(frame, columns, columns.sparse_identities)
            if not sp.issparse(Z):
                check_allocation(16 * len(frame) * ids.size,
                                 f"{name}: dense one-hot pairs of {ids.size} ids",
                                 "fit a linear model (--kernel linear), which keeps "
                                 "identities sparse, or give an --items table of features.")
        else:
            ids, Z, features = read_items(items)
            items = Path(items).name
        position = pd.Series(np.arange(ids.size), index=ids)
        rows = _positions(frame, columns, position, name, items)
        if max(rows[columns.a].max(), rows[columns.b].max()) >= ids.size:
            from .pairs import with_mean_item

            Z = with_mean_item(Z)
        pairs = [Z[rows[columns.a]], Z[rows[columns.b]]]
        if sp.issparse(Z):  # the wide layout: x's identities, then x''s
            return sp.hstack(pairs, format="csr"), y, features
        return np.stack(pairs, axis=1), y, features
    a_cols, b_cols, features = _wide_columns(frame.columns, name)
    X = np.stack([_numeric(frame, a_cols, name), _numeric(frame, b_cols, name)], axis=1)
    return X, y, features


def _positions(frame, columns, position, name, items):
    """Rows of the items table for both id columns; every id that is not in
    it is named at once (with the line of its first pair).  With
    ``columns.unknown == "mean"`` such ids take the row ``len(position)``
    (the caller's mean item) and are listed in a note instead."""
    found = {column: position.reindex(frame[column]).to_numpy(dtype=float, copy=True)
             for column in (columns.a, columns.b)}
    missing = {}
    for column in (columns.a, columns.b):
        for row in np.flatnonzero(np.isnan(found[column])):
            missing.setdefault(frame[column].iloc[row], row)
    if missing:
        shown = listed(missing, show=repr)
        where = items or "the items the model was fitted on"
        if columns.unknown == "mean":
            import sys

            print(f"note: {name}: {len(missing)} id(s) not in {where} scored as the mean "
                  f"item (--unknown mean): {shown} (with --interval, their intervals "
                  "are the mean item's, narrower than a new item's own would be)",
                  file=sys.stderr)
            for rows in found.values():
                rows[np.isnan(rows)] = len(position)
        else:
            first = min(missing.values())
            advice = ("add them to the items table" if items else
                      "a model of identities has no rating for ids it never saw: refit with "
                      "their games, or fit on an --items table of features that new items "
                      "have too")
            raise ValueError(f"{name}: {len(missing)} id(s) not in {where}: {shown} "
                             f"(first on line {file_line(frame.index, first)}); {advice}; or "
                             "--unknown mean scores "
                             "them as the mean item.")
    return {column: rows.astype(np.int64) for column, rows in found.items()}


IDENTITY_PREFIX = "is_"


def _identities(frame, columns, sparse=False):
    """One-hot identities of the ids in ``frame`` (or ``columns.identities``):
    (ids as strings, the identity matrix (sparse or dense), feature names
    ``is_<id>``)."""
    if columns.identities is not None:
        ids = np.asarray([str(i) for i in columns.identities], dtype=object)
    else:
        seen = pd.concat([frame[columns.a], frame[columns.b]]).astype(str)
        ids = np.asarray(sorted(seen.unique()), dtype=object)
        from .pairs import check_id_spacing  # not on predict's light path

        check_id_spacing(ids, f"columns {columns.a} and {columns.b}")
    identity = sp.identity(ids.size, format="csr") if sparse else np.eye(ids.size)
    return ids, identity, [f"{IDENTITY_PREFIX}{i}" for i in ids]


def identities_of(feature_names):
    """The ids of an identities-only model from its feature names, else None."""
    names = [str(n) for n in feature_names]
    if names and all(n.startswith(IDENTITY_PREFIX) for n in names):
        return [n[len(IDENTITY_PREFIX):] for n in names]
    return None


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
    parsed = _parse_letor(path, n_features)
    if parsed is not None:
        return parsed
    # Anything the table reader does not take (a bad token, unsorted feature
    # numbers, too few features...) goes to scikit-learn's reader, which names it.
    from sklearn.datasets import load_svmlight_file  # 30 ms: only for SVMlight files

    try:
        X, y, qid = load_svmlight_file(str(path), n_features=n_features, query_id=True)
    except ValueError as exc:
        raise ValueError(f"{path}: not a valid SVMlight/LETOR file ({exc}).") from exc
    except OverflowError as exc:  # a qid or a feature number beyond 64 bits
        raise ValueError(f"{path}: not a valid SVMlight/LETOR file (a qid or a feature number "
                         f"too large for a 64-bit integer: {exc}).") from exc
    _check_dense_letor(X.shape[0], X.shape[1])
    if qid.size == 0:
        qid = np.zeros(X.shape[0], dtype=np.int64)
    elif qid.size != X.shape[0]:
        raise ValueError(f"{path}, line {_first_line_without_qid(path)}: no qid: although "
                         "other lines have one; give every line a qid: (or none, for one "
                         "query).")
    return X.toarray(), y, qid


_LETOR_BATCH = 100_000  # lines the table reader parses at a time


def _parse_letor(path, n_features=None):
    """X, y, qid of a well-formed SVMlight/LETOR file by pandas' C reader, or
    None for anything else (then scikit-learn's reader runs and names the fault).

    scikit-learn's reader takes about 6 us a value with scikit-learn 1.9 (26 s
    for 200,000 items x 20 features); with every ':' read as a space, a line is
    a row of numbers (grade, 'qid', id, then feature number and value pairs)
    that pandas reads some 20x faster.  Values are parsed as Python parses
    them (round trip), so the result is the same to the bit; feature numbers
    are one-based unless a 0 appears (scikit-learn's ``zero_based="auto"``).
    The file is read :data:`_LETOR_BATCH` lines at a time, so that memory
    stays about twice the dense X.
    """
    import itertools

    blocks, ys, qids, with_qid = [], [], [], None
    with open(path, "rb") as handle:
        while lines := list(itertools.islice(handle, _LETOR_BATCH)):
            batch = _letor_batch(lines)
            if batch is None:
                return None
            if batch[0].size == 0:  # comments and blank lines only
                continue
            if with_qid is not None and batch[3] != with_qid:
                return None  # the reader below finds the line without qid:
            y, qid, block, with_qid = batch
            blocks.append(block)
            ys.append(y)
            qids.append(qid)
    if not blocks:
        return None
    # Column k of a block holds feature number k: one-based numbering leaves
    # column 0 empty, and scikit-learn's rule decides it over the whole file.
    shift = 0 if any(used.size and used[0] for _, used in blocks) else 1
    needed = max(max(used.size for _, used in blocks) - shift, 0)
    if n_features is not None and n_features < needed:
        return None
    n_lines, width = sum(y.size for y in ys), needed if n_features is None else n_features
    _check_dense_letor(n_lines, width)  # the whole file's (each batch's fitting is not enough)
    X = np.zeros((n_lines, width))
    row = 0
    blocks.reverse()
    while blocks:  # each block freed once copied: memory stays near X's
        block, _ = blocks.pop()
        X[row:row + block.shape[0], :max(block.shape[1] - shift, 0)] = block[:, shift:]
        row += block.shape[0]
    return X, np.concatenate(ys), np.concatenate(qids)


def _letor_batch(lines):
    """(grades, qids, (block, used), with_qid) of some lines, or None: block[i, k]
    the value of feature number k on line i, ``used[k]`` whether any line
    gives feature number k."""
    import io

    # Columns: the most ':' on a line gives the most tokens (a comment's ':'
    # only adds empty columns).  pandas also ends lines at a lone '\r' (old Mac
    # files), so such a line is counted in its parts.
    most = max(line.count(b":") if b"\r" not in line[:-2]
               else max(part.count(b":") for part in line.split(b"\r")) for line in lines)
    # pandas 3 parses floats as Python does by default (and deprecates the option).
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    try:
        frame = pd.read_csv(io.BytesIO(b"".join(lines).replace(b":", b" ")), sep=r"\s+",
                            header=None, names=range(2 * most + 1), comment="#", engine="c",
                            **exact)
        if frame.empty:
            empty = np.zeros(0)
            return empty, empty.astype(np.int64), (np.zeros((0, 0)), np.zeros(0, bool)), None
        if frame.shape[1] < 3:
            return None
        with_qid = frame[1].astype(str).to_numpy() == "qid"
        if with_qid.any() and not with_qid.all():
            return None  # the reader below finds the line without qid:
        with_qid = bool(with_qid.all())
        y = frame[0].to_numpy(dtype=np.float64)
        start = 3 if with_qid else 1
        if with_qid and frame[2].dtype.kind != "i":
            return None  # qid:1.5, qid:1e3 or past int64: scikit-learn's reader decides
        qid = (frame[2].to_numpy(dtype=np.int64) if with_qid
               else np.zeros(len(frame), dtype=np.int64))
        number = frame.iloc[:, start::2].to_numpy(dtype=np.float64)
        value = frame.iloc[:, start + 1::2].to_numpy(dtype=np.float64)
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError):
        return None
    if number.shape[1] != value.shape[1]:
        return None
    present = ~np.isnan(number)
    # Each line's features a prefix of the columns, each number with a value
    # (a NaN value, or a number without one, goes to the other reader),
    # numbered by increasing integers.
    if (np.any(present[:, 1:] & ~present[:, :-1])
            or np.any(present == np.isnan(value))):
        return None
    taken = number[present]
    if taken.size and (np.any(taken < 0) or np.any(taken != np.floor(taken))):
        return None
    ordered = np.where(present[:, 1:], number[:, 1:], np.inf) > np.where(present[:, :-1],
                                                                        number[:, :-1], -np.inf)
    if not np.all(ordered):
        return None
    width = int(taken.max()) + 1 if taken.size else 0
    _check_dense_letor(len(frame), width)
    block = np.zeros((len(frame), width))
    rows, slots = np.nonzero(present)
    columns = number[rows, slots].astype(np.int64)
    block[rows, columns] = value[rows, slots]
    used = np.zeros(width, dtype=bool)
    used[columns] = True
    return y, qid, (block, used), with_qid


def _check_dense_letor(n_lines, width):
    """Refuse items whose dense matrix cannot fit in memory: a feature number is
    a column (a three-line file naming feature 1,000,000,000 asked for 22 GB:
    an attack, stop 70)."""
    check_allocation(8.0 * n_lines * width, f"The items' dense matrix ({n_lines} lines x "
                     f"{width} columns: the largest feature number {width - 1})",
                     "number the features 1, 2, ... without gaps; a feature number is a "
                     "column.")


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
    from sklearn.datasets import dump_svmlight_file

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    groups = np.asarray(groups)
    if not (X.ndim == 2 and y.shape == (X.shape[0],) and groups.shape == (X.shape[0],)):
        raise ValueError(f"Need X (n, p), y (n,), groups (n,); got shapes {X.shape}, "
                         f"{y.shape}, {groups.shape}.")
    order = np.argsort(groups, kind="stable")
    dump_svmlight_file(X[order], y[order], str(path), query_id=groups[order], zero_based=False)
