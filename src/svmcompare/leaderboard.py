"""A leaderboard people look at: items sorted by score with interval bars,
games played and win / draw / loss counts, and the win / draw / loss
probabilities of the top items against each other.

:func:`leaderboard` builds the table, :func:`head_to_head` the probability
matrix; :func:`write_leaderboard` writes them as CSV, as a static
self-contained HTML page (inline CSS and SVG: no script, no server, no
network) or as a PNG / SVG figure (matplotlib).
"""

from __future__ import annotations

import html
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._validation import check_labels, check_positive, check_sample_weight, listed
from .exceptions import outside_stacklevel
from .pairs import apart_of_positions, id_text

FORMATS = (".csv", ".html", ".png", ".svg")


def check_leaderboard_path(path):
    """``path`` as a Path if :func:`write_leaderboard` can write it: a known
    suffix, and matplotlib for a figure.  The command line checks every
    output with it before writing any, so a bad last name does not leave the
    first ones written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"a leaderboard is written as {', '.join(FORMATS)}; got {path.name!r}.")
    if suffix in (".png", ".svg"):
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise ValueError(f'{path.name}: a leaderboard figure needs matplotlib: pip install '
                             '"svmcompare[experiments]" (or write .html or .csv).')
    return path


def _check_items(items):
    """``items`` as a 2-D array (or the sparse matrix or DataFrame given):
    lists and other array-likes are read as arrays, as the estimators read Z."""
    if sp.issparse(items) or hasattr(items, "columns"):
        return items
    try:
        items = np.asarray(items)
    except (ValueError, TypeError) as exc:  # ragged nested lists and the like
        raise ValueError(f"items could not be read as an array: {exc}") from exc
    if items.ndim != 2:
        raise ValueError(f"items must be 2-D (n_items, n_features), one row per item; got "
                         f"shape {items.shape}.")
    return items


def _check_ids(ids, n_items):
    """``ids`` as an object array of ``n_items`` distinct ids (as text: games
    and the written table match them by their text, so 1 and "1" are one id)."""
    ids = np.asarray(ids, dtype=object)
    if ids.ndim != 1:
        raise ValueError(f"ids must be 1-D, one id per item; got shape {ids.shape}.")
    if ids.shape[0] != n_items:
        raise ValueError(f"items has {n_items} rows but ids has {ids.shape[0]} entries; give "
                         "one id per item, in the order of the items' rows.")
    text = pd.Index(id_text(ids))
    if not text.is_unique:
        repeated = text[text.duplicated()][0]
        rows = np.flatnonzero(text == repeated)[:2].tolist()
        raise ValueError(f"ids repeats {repeated!r} (rows {rows[0]} and {rows[1]}); every item "
                         "needs its own id (its games and its row would be confused).")
    return ids


def _check_games(a, b, y):
    """(a, b, y) of games as arrays of one length, y labels in {-1, 0, 1}."""
    a, b = (np.asarray(v, dtype=object) for v in (a, b))
    y = np.asarray(y)
    if a.ndim != 1 or b.ndim != 1 or y.ndim != 1 or not a.shape[0] == b.shape[0] == y.shape[0]:
        raise ValueError(f"games=(a, b, y) must be three 1-D sequences of one length, one entry "
                         f"per game; got shapes {a.shape}, {b.shape} and {y.shape}.")
    try:
        y = check_labels(y)
    except (TypeError, ValueError) as exc:  # e.g. "H" / "D" / "A" outcomes, not yet mapped
        raise type(exc)(f"games=(a, b, y): {exc} Map outcomes to labels first: -1 when a "
                        "won, 0 a draw, 1 when b won.") from exc
    return a, b, y


def game_counts(a, b, y, ids, weight=None):
    """Games, wins, draws and losses of each id in ``ids`` from games
    (``a``, ``b``, ``y``): y = -1 when ``a`` won, 1 when ``b`` won, 0 a draw.
    Games of ids not in ``ids`` are left out.  With ``weight`` (each game's
    weight in the fit, e.g. ``time_decay``), also ``weighted_games``: the
    sum of an id's game weights over the largest weight, the games its
    rating rests on (a side whose one game was in 1923 has 2e-8 of a game
    under a 4-year half-life: its score is the model's prior)."""
    a, b, y = _check_games(a, b, y)
    return _tally(*_positions(a, b, ids), y, weight)


def _positions(a, b, ids):
    """Each game's positions of its ids among ``ids`` (-1: not there), and their
    number; ids are matched as pairs_from_frame keys them (1 and 1.0 one id)."""
    index = pd.Index(id_text(_check_ids(ids, len(ids))))
    return index.get_indexer(id_text(a)), index.get_indexer(id_text(b)), len(index)


def _tally(ia, ib, n, y, weight=None):
    """:func:`game_counts` from the games' positions ``ia``, ``ib`` among ``n`` ids."""
    def count(rows, where, weights=None):
        keep = where & (rows >= 0)
        return np.bincount(rows[keep], weights=None if weights is None else weights[keep],
                           minlength=n)

    wins = count(ia, y == -1) + count(ib, y == 1)
    losses = count(ia, y == 1) + count(ib, y == -1)
    draws = count(ia, y == 0) + count(ib, y == 0)
    counts = pd.DataFrame({"games": wins + draws + losses, "wins": wins, "draws": draws,
                           "losses": losses})
    if weight is not None:
        try:
            weight = check_sample_weight(weight, y.size) if y.size else np.zeros(0)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"games=(a, b, y, weight): the weights: {exc}") from exc
        weight = weight / weight.max() if weight.size else weight
        every = np.ones(y.size, dtype=bool)
        counts["weighted_games"] = count(ia, every, weight) + count(ib, every, weight)
    return counts


def _warn_apart(ids, apart):
    if not apart.any():
        return
    warnings.warn(f"{int(apart.sum())} of {len(ids)} item(s) never met the main group of the "
                  f"games, not even through others: {listed(ids[apart])} (column 'apart'). "
                  "Their scores are on no common scale with the main group's: where such an "
                  "item stands among them is the model's prior, not its results.", UserWarning,
                  stacklevel=outside_stacklevel())


def _warn_records_against_scores(score, counts):
    """A board whose records run against its scores (the best-scored items lose
    most) has its games' sides or outcomes swapped relative to the fit."""
    from scipy.stats import spearmanr

    played = counts["games"].to_numpy() > 0
    if played.sum() < 5:
        return
    net = ((counts["wins"] - counts["losses"]) / counts["games"].clip(lower=1)).to_numpy()
    if np.ptp(score[played]) == 0 or np.ptp(net[played]) == 0:
        return  # no order to run against (all draws; equal scores): SciPy would warn
    rho = spearmanr(score[played], net[played]).statistic
    if np.isfinite(rho) and rho < -0.5:
        warnings.warn(f"the games' records run against the scores (Spearman {rho:.2f} between "
                      "each item's score and its wins minus losses a game): are the games' two "
                      "sides (a and b) or their outcomes swapped relative to the fit?",
                      UserWarning, stacklevel=outside_stacklevel())


def _with_min_games(items, ids, counts, min_games):
    """The items (rows of ``items``, ``ids``, ``counts``) of at least ``min_games``
    games, by weight when the games have weights (``weighted_games``)."""
    check_positive(min_games, "min_games", integer=True)
    column = "weighted_games" if "weighted_games" in counts else "games"
    keep = counts[column].to_numpy() >= min_games
    if not keep.any():
        most = float(counts[column].max()) if len(counts) else 0.0
        what = "games by weight" if column == "weighted_games" else "games"
        raise ValueError(f"no item has {min_games} {what} or more (the most: {most:g}"
                         + ("; the games name none of the items' ids)"
                            if not counts["games"].any() else "); lower min_games."))
    rows = np.flatnonzero(keep)
    items = items.iloc[rows] if hasattr(items, "iloc") else items[rows]
    return items, ids[rows], counts.iloc[rows].reset_index(drop=True)


def _one_hot(items):
    """Whether ``items`` are ids alone: each row one 1 in a column of its own
    (the identity matrix of a model of ids, in any order)."""
    if hasattr(items, "to_numpy"):
        items = items.to_numpy()
    try:
        rows = sp.csr_matrix(items)
    except (TypeError, ValueError):  # not numbers: the scores' own check says so
        return False
    if rows.shape[0] == 0 or not np.all(np.diff(rows.indptr) == 1) or \
            not np.all(rows.data == 1):
        return False
    return np.unique(rows.indices).size == rows.shape[0]


def _counted_games(games, ids, identities=True):
    """Games, wins, draws and losses of each id, from ``games`` = (a, b, y) or
    (a, b, y, weight), and for a model of ids alone (``identities``) whether
    it played apart from the main group (item features put every item on one
    scale, whoever met whom)."""
    if not isinstance(games, (tuple, list)) or len(games) not in (3, 4):
        raise TypeError("games must be a tuple (a, b, y) of three sequences, the ids of x "
                        "and x' in each game and its label, or (a, b, y, weight) with each "
                        "game's weight in the fit.")
    a, b, y = _check_games(*games[:3])
    ia, ib, n = _positions(a, b, ids)
    counts = _tally(ia, ib, n, y, weight=games[3] if len(games) == 4 else None)
    counts["apart"] = apart_of_positions(ia, ib, n) if identities else np.zeros(n, dtype=bool)
    return counts


def leaderboard(model, items, ids, *, games=None, confidence=None, min_games=None):
    """The items sorted by score r(x), best first.

    Parameters
    ----------
    model : fitted comparison model or BootstrapCompare
        With a ``BootstrapCompare``, intervals of each score and position.
    items : array-like or sparse matrix of shape (n_items, n_features)
    ids : sequence of length n_items
        Distinct ids (compared as text), in the order of the items' rows.
    games : tuple (a, b, y) or (a, b, y, weight), optional
        Games as ids of x and x' and labels in {-1, 0, 1} (-1: a won), all
        of one length: adds games, wins, draws and losses of each item (and
        with each game's weight in the fit, e.g. ``time_decay``,
        ``weighted_games``: the games by weight over the largest, which
        ``min_games`` then counts), and
        ``apart``: for a model of ids alone (``items`` one-hot), whether it
        played but never met the main group of the games, not even through
        others (a warning names such items: where they stand among the main
        group is the model's prior, not results; give the games the model
        was fitted on).  A warning
        also says when the records run against the scores (the games' sides
        or outcomes swapped relative to the fit).
    confidence : float, optional
        Of the intervals, which need a ``BootstrapCompare`` (refused with any
        other model, whose table would have none); None: 0.9 with a
        bootstrap, no intervals without.
    min_games : int, optional
        With ``games``: rank only the items with at least this many games,
        by weight when the games have weights (positions and their
        intervals among those).  An item of a few games
        can top a board on a lucky run; the others are left out of the table.

    Returns
    -------
    pandas.DataFrame
        ``position`` (1 = best; tied scores share one), ``id``, ``score``;
        with a bootstrap ``score_lower``, ``score_upper``, ``position_best``,
        ``position_worst``; with games ``games``, ``wins``, ``draws``,
        ``losses``, ``apart``.
    """
    from .bootstrap import check_confidence, positions

    bootstrap = hasattr(model, "replicates_")
    if confidence is not None:
        check_confidence(confidence)
        if not bootstrap:
            raise ValueError(f"confidence={confidence!r} asks for intervals, which need a "
                             f"bootstrap: {type(model).__name__} has no replicates. Fit "
                             "BootstrapCompare(model) (e.g. n_resamples=200) and pass it, or "
                             "leave confidence=None for a table without intervals.")
    confidence = 0.9 if confidence is None else confidence
    items = _check_items(items)
    ids = _check_ids(ids, items.shape[0])
    if games is not None:  # before the scores: a bad label fails fast
        counts = _counted_games(games, ids, identities=_one_hot(items))
    if min_games is not None:
        if games is None:
            raise ValueError("min_games counts each item's games: give games=(a, b, y).")
        items, ids, counts = _with_min_games(items, ids, counts, min_games)
    score = np.asarray(model.rank(items), dtype=float)
    if games is not None:
        _warn_apart(ids, counts["apart"].to_numpy())
        _warn_records_against_scores(score, counts)
    table = pd.DataFrame({"position": positions(score), "id": ids, "score": score})
    if bootstrap:
        table["score_lower"], table["score_upper"] = model.rank_interval(items, confidence)
        table["position_best"], table["position_worst"] = \
            model.rank_position_interval(items, confidence)
    if games is not None:
        table = pd.concat([table, counts], axis=1)
    return table.sort_values(["position", "id"], kind="stable").reset_index(drop=True)


def head_to_head(model, items, ids, top=10, *, games=None, min_games=None):
    """Win / draw / loss probabilities of the ``top`` items by score against
    each other, on neutral ground (a pair context of zeros).

    Parameters
    ----------
    model : fitted comparison model with probabilities
    items : array-like or sparse matrix of shape (n_items, n_features)
    ids : sequence of length n_items, distinct
    top : int, default=10
        How many of the best items to compare (a positive integer; all of
        them when there are fewer).
    games, min_games : as :func:`leaderboard`
        With both, the best items among those of at least ``min_games``
        games, as the board ranks them.

    Returns
    -------
    ids : array of the top items, best first
    proba : array of shape (k, k, 3)
        ``proba[i, j]`` = (P(item i better), P(tie), P(item j better)) for
        the pair x = item i, x' = item j; the diagonal is NaN.
    """
    if not hasattr(model, "predict_proba"):
        raise ValueError("head-to-head probabilities need a model fitted with probabilities "
                         "(probability=True, --probability).")
    # A slice would take top=0 as no items and top=-1 as all but the last.
    check_positive(top, "top (the number of items in the head-to-head table)", integer=True)
    items = _check_items(items)
    ids = _check_ids(ids, items.shape[0])
    if min_games is not None:
        if games is None:
            raise ValueError("min_games counts each item's games: give games=(a, b, y).")
        items, ids, _ = _with_min_games(items, ids, _counted_games(games, ids, False),
                                        min_games)
    order = np.argsort(-np.asarray(model.rank(items), dtype=float), kind="stable")[:top]
    k = order.size
    first, second = (order[index].ravel() for index in np.indices((k, k)))
    if sp.issparse(items):
        items = sp.csr_matrix(items)
        X = sp.hstack([items[first], items[second]], format="csr")
    else:
        items = np.asarray(items, dtype=float)
        X = np.stack([items[first], items[second]], axis=1)
    from .bootstrap import point_model

    n_context = int(point_model(model).n_context_)
    context = np.zeros((first.size, n_context)) if n_context else None
    proba = model.predict_proba(X, context).reshape(k, k, 3)
    proba[np.arange(k), np.arange(k)] = np.nan
    return ids[order], proba


def write_leaderboard(table, path, head=None, title="Leaderboard", notes=()):
    """Write ``table`` (and ``head`` = :func:`head_to_head`'s output) to
    ``path``: .csv (the table), .html (a self-contained page, with ``notes``:
    lines of text under the table, e.g. which games the records count), .png
    or .svg (a figure)."""
    path = check_leaderboard_path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        table.to_csv(path, index=False)
    elif suffix == ".html":
        path.write_text(leaderboard_html(table, head, title, notes), encoding="utf-8")
    else:
        plot_leaderboard(table, head, path, title)


# -- HTML ---------------------------------------------------------------------------------

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { padding: 0.25em 0.6em; text-align: right; }
th { border-bottom: 2px solid #444; }
tr:nth-child(even) td { background: #f4f4f4; }
td.id, th.id { text-align: left; }
td.cell { text-align: center; font-size: 0.85em; min-width: 5.5em; }
caption { text-align: left; font-weight: bold; margin-bottom: 0.5em; }
p.note { color: #555; max-width: 50em; }
"""


def _bar_svg(row, low, high, width=220, height=14):
    """An interval bar (or a dot without an interval) on a shared scale."""
    def x(value):
        return 4 + (width - 8) * (value - low) / (high - low) if high > low else width / 2

    parts = [f'<svg width="{width}" height="{height}" role="img">']
    if "score_lower" in row:
        x0, x1 = x(row["score_lower"]), x(row["score_upper"])
        parts.append(f'<line x1="{x0:.1f}" y1="{height / 2}" x2="{x1:.1f}" y2="{height / 2}" '
                     'stroke="#4a78b5" stroke-width="3"/>')
    parts.append(f'<circle cx="{x(row["score"]):.1f}" cy="{height / 2}" r="3.5" '
                 'fill="#1f3d66"/></svg>')
    return "".join(parts)


def _edge_scale(proba):
    """The largest |P(row better) - P(column better)| off the diagonal: the
    colours' full scale (at least 0.05), so that a board of close items
    (every edge within 0.15) is not one uniform shade."""
    ids = proba.shape[0]
    off = ~np.eye(ids, dtype=bool)
    edge = np.abs(proba[:, :, 0] - proba[:, :, 2])[off]
    edge = edge[np.isfinite(edge)]
    return max(float(edge.max()) if edge.size else 0.0, 0.05)


def _color(edge, scale):
    """Red (row item worse) through white (even) to blue (row item better)
    as P(row better) - P(column better) goes from -scale to scale."""
    t = 0.0 if np.isnan(edge) else float(np.clip(edge / scale, -1.0, 1.0))
    full = (31, 90, 170) if t >= 0 else (190, 50, 40)
    r, g, b = (int(255 + (c - 255) * abs(t)) for c in full)
    return f"#{r:02x}{g:02x}{b:02x}", ("#fff" if abs(t) > 0.55 else "#222")


def _score_decimals(spread):
    """Decimals that show scores spread over ``spread`` to about three
    significant digits of it (a search's scores of 1e-4 printed as 0.000)."""
    if not np.isfinite(spread) or spread <= 0:
        return 3
    return int(max(3, 3 - np.floor(np.log10(spread))))


def _cell_text(value, decimals):
    """A cell as text: scores to ``decimals``, positions and counts (``decimals``
    None) as integers, whatever their dtype; anything else as it is."""
    if isinstance(value, (bool, np.bool_)) or \
            not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    if decimals is None:
        if not np.isfinite(value) or not float(value).is_integer():
            return f"{float(value):.3f}"
        return str(int(value))
    text = f"{float(value):.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text  # no "-0.000"


def leaderboard_html(table, head=None, title="Leaderboard", notes=()):
    """A static self-contained HTML page of the leaderboard (``notes``: lines
    of text under the table)."""
    has_interval = "score_lower" in table
    columns = ["position", "id", "score"]
    if has_interval:
        columns += ["score_lower", "score_upper", "position_best", "position_worst"]
    columns += [c for c in ("games", "weighted_games", "wins", "draws", "losses") if c in table]
    low = table["score_lower" if has_interval else "score"].min()
    high = table["score_upper" if has_interval else "score"].max()
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>", "<table>",
           f"<caption>{len(table)} items by score r(x), best first</caption><tr>"]
    out += [f'<th class="{"id" if c == "id" else ""}">{html.escape(c.replace("_", " "))}</th>'
            for c in columns]
    out.append("<th>score" + (" and interval" if has_interval else "") + "</th></tr>")
    decimals = _score_decimals(high - low)
    apart = table["apart"].to_numpy(dtype=bool) if "apart" in table else np.zeros(len(table), bool)
    for i, (_, row) in enumerate(table.iterrows()):
        cells = []
        for c in columns:
            # Each column's own value (iterrows turns an all-numeric row into floats).
            text = _cell_text(table[c].iloc[i], decimals if c.startswith("score") else None)
            if c == "id" and apart[i]:
                text += " *"
            cells.append(f'<td class="{"id" if c == "id" else ""}">{html.escape(text)}</td>')
        out.append("<tr>" + "".join(cells) + f"<td>{_bar_svg(row, low, high)}</td></tr>")
    out.append("</table>")
    if has_interval:
        out.append('<p class="note">Intervals: bootstrap percentile intervals of the score and '
                   "of the position among these items.</p>")
    if apart.any():
        out.append(f'<p class="note">* {int(apart.sum())} item(s) never met the main group of '
                   "the games, not even through others: their scores are on no common scale "
                   "with the main group's (where they stand among it is the model's prior, not "
                   "results).</p>")
    if "weighted_games" in table and (table["weighted_games"] < 1).any():
        faint = table.loc[table["weighted_games"] < 1, "id"]
        shown = listed(faint)
        intervals = ", and their intervals, which the bootstrap draws from those same " \
            "results, do not show it" if has_interval else ""
        out.append(f'<p class="note">{len(faint)} item(s) whose games weigh less than one game '
                   f"in all ({html.escape(shown)}): their scores rest on next to no results "
                   f"(the model's prior){intervals}.</p>")
    out += [f'<p class="note">{html.escape(str(note))}</p>' for note in notes]
    if head is not None:
        out += _head_html(*head)
    out.append("</body></html>")
    return "\n".join(out)


def _head_html(ids, proba):
    scale = _edge_scale(proba)
    out = ["<table>", "<caption>Head to head on neutral ground (no pair context): P(row "
           "better) / P(tie) / P(column better), "
           f"in %; blue: the row item better, red: worse (full colour at an edge of "
           f"{100 * scale:.0f} points)</caption>", '<tr><th class="id"></th>']
    out += [f"<th>{html.escape(str(i))}</th>" for i in ids]
    out.append("</tr>")
    for i, name in enumerate(ids):
        out.append(f'<tr><th class="id">{html.escape(str(name))}</th>')
        for j in range(len(ids)):
            if i == j:
                out.append('<td class="cell">&mdash;</td>')
                continue
            win, tie, loss = proba[i, j]
            background, ink = _color(win - loss, scale)
            out.append(f'<td class="cell" style="background:{background};color:{ink}">'
                       f"{100 * win:.0f} / {100 * tie:.0f} / {100 * loss:.0f}</td>")
        out.append("</tr>")
    out.append("</table>")
    return out


# -- figure -------------------------------------------------------------------------------

# Ids longer than this are shortened in the figure (the table and page keep
# them whole): ids of 1,000 characters made a 162 x 69 inch figure of 3.5 GB.
_LABEL_CHARS = 40


def _short(item):
    text = str(item)
    return text if len(text) <= _LABEL_CHARS else text[:_LABEL_CHARS - 1] + "\u2026"


def plot_leaderboard(table, head=None, path=None, title="Leaderboard", top=30):
    """The ``top`` items' scores (with intervals) and, with ``head``, the
    heat map of P(row better); saved to ``path`` when given."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ValueError('a leaderboard figure needs matplotlib: pip install '
                         '"svmcompare[experiments]" (or write .html or .csv)') from exc
    shown = table.head(top)
    panels = 1 if head is None else 2
    # Room for the labels: five ids of 30 characters squeezed the panels flat
    # and the heat map's row labels over the scores (a review).
    label = 0.075 * min(max((len(str(i)) for i in shown["id"]), default=0),
                        _LABEL_CHARS + 1)  # inches
    height = max(3.0, 0.28 * len(shown) + 1.2)
    widths = [5.5 + label]
    if head is not None:
        k = len(head[0])
        height = max(height, 0.4 * k + 0.87 * label + 1.5)  # tick labels at 60 degrees
        widths.append(4.5 + 0.4 * k + label)
    fig, axes = plt.subplots(1, panels, figsize=(sum(widths), height), squeeze=False,
                             gridspec_kw={"width_ratios": widths}, layout="constrained")
    ax = axes[0, 0]
    rows = np.arange(len(shown))[::-1]
    if "score_lower" in shown:
        ax.hlines(rows, shown["score_lower"], shown["score_upper"], color="#4a78b5", lw=3)
    ax.plot(shown["score"], rows, "o", color="#1f3d66")
    ax.set_yticks(rows, [f"{p}. {_short(i)}" for p, i in zip(shown["position"], shown["id"],
                                                             strict=True)])
    if len(table) > len(shown):  # say that the figure is cut, not the whole board
        title = f"{title} (top {len(shown)} of {len(table)})"
    ax.set(xlabel="score r(x)", title=title)
    ax.grid(axis="x", color="0.9")
    if head is not None:
        ids, proba = head
        ax = axes[0, 1]
        # The edge, on a scale of the board's own largest: close items' edges
        # (33-50% wins) were one shade of a 0-1 scale.
        edge = proba[:, :, 0] - proba[:, :, 2]
        scale = _edge_scale(proba)
        image = ax.imshow(edge, cmap="RdBu", vmin=-scale, vmax=scale)
        ax.set_xticks(range(len(ids)), [_short(i) for i in ids], rotation=60, ha="right")
        ax.set_yticks(range(len(ids)), [_short(i) for i in ids])
        for i in range(len(ids)):
            for j in range(len(ids)):
                if i != j and len(ids) <= 15:
                    ax.text(j, i, f"{100 * proba[i, j, 0]:.0f}\n{100 * proba[i, j, 1]:.0f}",
                            ha="center", va="center", fontsize=6, linespacing=0.9,
                            color="white" if abs(edge[i, j]) > 0.55 * scale else "black")
        ax.set_title("head to head, in %: P(row better)\nover P(tie)", fontsize=10)
        bar = fig.colorbar(image, ax=ax, shrink=0.8)
        bar.set_label("P(row better) - P(column better)")
    if path is not None:
        fig.savefig(path, dpi=120, bbox_inches="tight")  # the colour bar's label
        plt.close(fig)
    return fig
