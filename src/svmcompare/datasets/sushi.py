"""Kamishima's SUSHI preference data as labeled pairs (section 4.2 of the paper).

The data's license allows research use but forbids redistribution, so it is
never part of this package: :func:`load_sushi` reads the original files from
a folder the user downloaded (http://www.kamishima.net/sushi/, archive
``sushi3-2016.zip``; the 2016 release, whose scores are not inverted).

Pairs follow the paper: each of the 5000 people scored 10 sushis on a 0..4
scale (``sushi3b.5000.10.score``).  Sorting a person's 10 items by score
(stable, so equal scores keep the item order of the file) and taking them
two at a time from the lowest gives 5 pairs per person, 25,000 in all.  An
item is described by 7 sushi features and 7 features of the person who
scored it, so that r(x) can depend on who eats what.  y is the sign of the
score difference (eq. 1: 1 when x' is preferred, 0 when the scores are
equal).  Because the lower-scored item always comes first, every pair is
then oriented at random (swap x and x', negate y) so that both signs occur.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils import Bunch, check_random_state

from ..pairs import make_pairs

SCORE_FILE = "sushi3b.5000.10.score"
ITEM_FILE = "sushi3.idata"
USER_FILE = "sushi3.udata"
COORD_FILE = "prefectures/sushi_prefecture_coords.csv"
DOWNLOAD = "http://www.kamishima.net/sushi/ (sushi3-2016.zip)"

SUSHI_FEATURES = ("style", "major_group", "minor_group", "oiliness", "eating_frequency",
                  "price", "selling_frequency")
PERSON_FEATURES = ("gender", "age", "time", "latitude_until_15", "longitude_until_15",
                   "latitude_now", "longitude_now")
ITEMS_PER_PERSON = 10


def _require(folder, name):
    path = folder / name
    if not path.is_file():
        raise FileNotFoundError(
            f"SUSHI data file {name} not found in {folder}. The data may not be "
            f"redistributed, so it is not shipped with svmcompare: download it from "
            f"{DOWNLOAD}, unpack it, and pass the folder that holds {SCORE_FILE}, "
            f"{ITEM_FILE} and {USER_FILE} (plus {COORD_FILE}, a prefecture code -> "
            "latitude/longitude table with columns sushi_code, latitude, longitude)."
        )
    return path


def _item_features(folder):
    items = pd.read_csv(_require(folder, ITEM_FILE), sep="\t", header=None)
    if items.shape[1] != 9:
        raise ValueError(f"{ITEM_FILE} should have 9 tab-separated columns; got {items.shape[1]}.")
    # Columns 3..9 of the README: style .. how often it is sold.
    return items.iloc[:, 2:9].to_numpy(dtype=np.float64)


def _person_features(folder):
    users = pd.read_csv(_require(folder, USER_FILE), sep="\t", header=None)
    if users.shape[1] != 11:
        raise ValueError(f"{USER_FILE} should have 11 tab-separated columns; got {users.shape[1]}.")
    coords = pd.read_csv(_require(folder, COORD_FILE)).set_index("sushi_code")
    until_15, now = users[4].to_numpy(), users[7].to_numpy()
    for column, codes in (("until age 15", until_15), ("current", now)):
        missing = np.setdiff1d(codes, coords.dropna(subset=["latitude"]).index)
        if missing.size:
            raise ValueError(f"{COORD_FILE} has no coordinates for {column} prefecture "
                             f"code(s) {missing.tolist()}.")
    lat, lon = coords["latitude"], coords["longitude"]
    return np.column_stack([
        users[1], users[2], users[3],  # gender, age group, time to fill in the form
        lat.loc[until_15].to_numpy(), lon.loc[until_15].to_numpy(),
        lat.loc[now].to_numpy(), lon.loc[now].to_numpy(),
    ]).astype(np.float64)


def _score_pairs(scores):
    """Per person: rated items sorted by score, taken two at a time from the lowest."""
    rated = scores >= 0
    counts = rated.sum(axis=1)
    bad = np.flatnonzero(counts != ITEMS_PER_PERSON)
    if bad.size:
        raise ValueError(f"{SCORE_FILE}: row {bad[0] + 1} has {counts[bad[0]]} rated items; "
                         f"every person should have rated exactly {ITEMS_PER_PERSON}.")
    # Unrated (-1) entries are pushed to the end; stable sort keeps file order on ties.
    key = np.where(rated, scores, np.iinfo(np.int64).max)
    order = np.argsort(key, axis=1, kind="stable")[:, :ITEMS_PER_PERSON]
    lower, upper = order[:, 0::2].ravel(), order[:, 1::2].ravel()
    person = np.repeat(np.arange(scores.shape[0]), ITEMS_PER_PERSON // 2)
    return person, lower, upper


def _read_folder(path):
    """Scores (people x sushis), sushi features and person features of the folder."""
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"SUSHI data folder {folder} does not exist. Download the data from {DOWNLOAD} "
            "(it may not be redistributed, so svmcompare does not ship it) and pass its folder."
        )
    scores = np.loadtxt(_require(folder, SCORE_FILE), dtype=np.int64, ndmin=2)
    sushi = _item_features(folder)
    people = _person_features(folder)
    if scores.shape != (people.shape[0], sushi.shape[0]):
        raise ValueError(f"{SCORE_FILE} has shape {scores.shape}; expected "
                         f"({people.shape[0]} people, {sushi.shape[0]} sushis).")
    return scores, sushi, people


def load_sushi_scores(path, return_X_y=False):
    """The SUSHI scores as graded items: one row per (person, rated sushi).

    For ordinal regression and ranking within query groups: 50,000 items
    (10 per person), the same 14 features as :func:`load_sushi` (7 of the
    sushi, 7 of the person), the score 0..4 as the grade and the person as
    the group.

    Parameters
    ----------
    path : str or Path
        The SUSHI folder (see :func:`load_sushi`).
    return_X_y : bool, default=False
        Return ``(X, y, groups)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        ``X`` (n_items, 14), ``y`` (scores 0..4), ``person`` (the group),
        ``item`` (sushi id), ``feature_names``.
    """
    scores, sushi, people = _read_folder(path)
    person, item = np.nonzero(scores >= 0)
    _score_pairs(scores)  # validates: exactly 10 rated items per person
    X = np.hstack([sushi[item], people[person]])
    y = scores[person, item]
    if return_X_y:
        return X, y, person
    return Bunch(X=X, y=y, person=person, item=item,
                 feature_names=list(SUSHI_FEATURES + PERSON_FEATURES))


def load_sushi(path, random_state=0, return_X_y=False):
    """Labeled pairs of sushis from Kamishima's SUSHI data (paper, section 4.2).

    Parameters
    ----------
    path : str or Path
        Folder with ``sushi3b.5000.10.score``, ``sushi3.idata``,
        ``sushi3.udata`` and ``prefectures/sushi_prefecture_coords.csv``.
        The data may not be redistributed: it is read from here, never copied.
    random_state : int, RandomState or None, default=0
        Seed of the random orientation of each pair.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        ``X`` of shape (25000, 2, 14): sushi features (style, major and minor
        group, oiliness, how often the person eats it, price, how often it is
        sold) then the person's (gender, age group, time to answer,
        latitude/longitude of the prefecture until age 15 and now).
        ``y`` in {-1, 0, 1}: the sign of score(x') - score(x).
        ``person``, ``item_a``, ``item_b``: the person (row of the user file)
        and the sushi ids of x and x'.  ``feature_names``.
    """
    scores, sushi, people = _read_folder(path)
    person, a, b = _score_pairs(scores)
    y = np.sign(scores[person, b] - scores[person, a]).astype(np.int64)
    swap = check_random_state(random_state).rand(y.shape[0]) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    y = np.where(swap, -y, y)
    X = make_pairs(np.hstack([sushi[a], people[person]]), np.hstack([sushi[b], people[person]]))
    if return_X_y:
        return X, y
    return Bunch(X=X, y=y, person=person, item_a=a, item_b=b,
                 feature_names=list(SUSHI_FEATURES + PERSON_FEATURES))
