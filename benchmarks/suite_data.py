"""A public suite of real comparison data with ties (issue 35): sources, cache, loaders.

Every set is fetched from a public GitHub repository at a pinned commit into
``benchmarks/.suite-cache/<set>/`` (git-ignored: never committed, never
shipped), either from a local mirror of the repository (``--mirror DIR``:
a bare clone, read with ``git show``) or file by file from
raw.githubusercontent.com.  Provenance and licences are in BENCHMARKS.md.

Each loader returns a :class:`SuiteSet`: a games table with one row per
comparison, in time order where there is a time, and the split:

``time``   sortable (a date, a season or a running index)
``a, b``   the two sides' ids (text); ``y`` -1 a better, 0 tie, 1 b better
``advantage``  +1 when b has the positional advantage (home, white), -1 when a has
``group``  what folds and test split keep together (season, prompt)
``score_a, score_b``  goals, when the source has them
``p_a, p_tie, p_b``  a bookmaker's probabilities (1 / odds, normalized), when it has them

Usage: python benchmarks/suite_data.py fetch [--mirror /work/.mirror] [--sets ...]
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

CACHE = Path(__file__).resolve().parent / ".suite-cache"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass(frozen=True)
class Source:
    repo: str
    commit: str
    licence: str
    paths: tuple  # regular expressions on the repository's paths
    extract: object = None  # a function (path, bytes) -> bytes kept in the cache (default: as is)


@dataclass
class SuiteSet:
    name: str
    kind: str
    games: pd.DataFrame
    test: np.ndarray  # boolean mask of the test games
    train: np.ndarray  # boolean mask of the training games
    identities: bool = True  # one-hot ids next to history features
    history: bool = True  # leak-free history features (games_features)
    notes: dict = field(default_factory=dict)


def pgn_headers(path, data):
    """A PGN file's games as CSV rows of their headers (the moves are not read)."""
    rows, game = [], {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        match = re.match(r'^\[(\w+) "(.*)"\]\s*$', line)
        if match:
            if match.group(1) == "Event" and game:
                rows.append(game)
                game = {}
            game[match.group(1)] = match.group(2)
    if game:
        rows.append(game)
    frame = pd.DataFrame(rows)
    keep = [c for c in ("Event", "Date", "UTCDate", "Round", "White", "Black", "Result")
            if c in frame.columns]
    frame = frame[keep].assign(file=Path(path).name)
    return frame.to_csv(index=False).encode()


# The TCEC files of the suite (the seasons' league stages, divisions and
# superfinals that the pinned snapshot holds), by season.
TCEC_FILES = {
    1: ("Division_1",),
    3: ("Stage_1", "Stage_2a"),
    4: ("Stage_1", "Stage_2a", "Stage_2b", "Stage_3", "Stage_4", "Superfinal"),
    5: ("Stage_1", "Stage_3", "Stage_4", "Superfinal"),
    6: ("Stage_1a", "Stage_1b", "Stage_1c", "Stage_2", "Stage_3", "Stage_4", "Superfinal"),
    7: ("Stage_1a", "Stage_1b", "Stage_2", "Stage_3", "Stage_4", "Superfinal"),
    8: ("Stage_1a", "Stage_1b", "Stage_3", "Superfinal"),
    9: ("Stage_1a", "Stage_1b", "Superfinal"),
    10: ("Stage_2", "Superfinal"),
    11: ("Superfinal",),
    12: ("Division_1", "Superfinal"),
    13: ("Division_1", "Superfinal"),
    14: ("Division_1",),
    15: ("Division_1",),
    18: ("League_1",),
    19: ("League_1",),
    22: ("League_1",),
}


SOURCES = {
    "football_odds": Source(
        "jokecamp/FootballData", "53a64a101e064879bade9458bdaf7a76662a7523", "MIT",
        (r"^football-data\.co\.uk/england/[0-9-]+/Premier\.csv$",
         r"^football-data\.co\.uk/(spain/SP1|germany/D1|italy/I1|france/F1)( \(\d+\))?\.csv$")),
    "italy_1980s": Source(
        "jalapic/engsoccerdata", "872c5c354161ace8408f3091b758c6af4cccca94", "GPL (>= 2)",
        (r"^data-raw/italy\.csv$",)),
    "germany_leagues": Source(
        "jalapic/engsoccerdata", "872c5c354161ace8408f3091b758c6af4cccca94", "GPL (>= 2)",
        (r"^data-raw/germany\.csv$",)),
    "llm_judgments": Source(
        "bcdnlp/PRD", "35fb99e5d5c7a2f3535811f1edbe417da7563957", "MIT",
        (r"^data/vicuna80/ratings-human/.*\.jsonl$",)),
    "computer_chess": Source(
        "poprl/poprank", "3d9898f1d2afb53d689474deb6daeac0516af3a6", "MIT",
        (r"^test/fixtures/computer_chess\.short\.json$",)),
    "tcec": Source(
        "TCEC-Chess/tcecgames", "3dd69a40b3cf6ccc74144df7411ef4e8e2140286",
        "no licence stated for the PGN games (the repository's scripts: Apache-2.0)",
        tuple(rf"^master-archive/TCEC_Season_{season}_-_{part}\.pgn$"
              for season, parts in TCEC_FILES.items() for part in parts),
        extract=pgn_headers),
    "club_football": Source(
        "openfootball/football.json", "25cfaf102954ebbcdc48f9c2984198b71d48610d",
        "CC0-1.0 (public domain dedication)",
        (r"^201[4-8]-1[5-9]/[a-z]+\.[1-4]\.json$",)),
    # FiveThirtyEight's club soccer predictions (fivethirtyeight/data: "data
    # ... available under the Creative Commons Attribution 4.0 International
    # License"); fivethirtyeight/data itself links the file without holding
    # it, so the copy of September 2019 in a public course repository.
    "spi_football": Source(
        "Tsun1/DAV-540", "1994827d065786d6ac435cd75721af926da529a7",
        "CC BY 4.0 (FiveThirtyEight's data; the copying repository states no licence)",
        (r"^soccer-spi/spi_matches\.csv$",)),
}


# -- fetching into the cache ------------------------------------------------------


def _mirror_files(source, mirror):
    git = ["git", "-C", str(mirror)]
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", source.commit],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    for name in names:
        if any(re.search(p, name) for p in source.paths):
            blob = subprocess.run([*git, "show", f"{source.commit}:{name}"],
                                  capture_output=True, check=False)
            if blob.returncode == 0:  # a snapshot may list files it does not hold
                yield name, blob.stdout


def _github_files(source):
    api = f"https://api.github.com/repos/{source.repo}/git/trees/{source.commit}?recursive=1"
    with urllib.request.urlopen(api, timeout=60) as response:
        tree = json.load(response)["tree"]
    for entry in tree:
        name = entry["path"]
        if entry["type"] == "blob" and any(re.search(p, name) for p in source.paths):
            url = f"https://raw.githubusercontent.com/{source.repo}/{source.commit}/{name}"
            with urllib.request.urlopen(url.replace(" ", "%20"), timeout=120) as response:
                yield name, response.read()


def fetch(name, mirror=None):
    """Fill ``CACHE / name`` from the source's pinned commit; returns the file count."""
    source = SOURCES[name]
    folder = CACHE / name
    folder.mkdir(parents=True, exist_ok=True)
    repo_mirror = None
    if mirror is not None:
        repo_mirror = Path(mirror) / source.repo.replace("/", "+") / "repo"
        if not repo_mirror.exists():
            repo_mirror = Path(mirror)
    files = _mirror_files(source, repo_mirror) if repo_mirror else _github_files(source)
    count = 0
    for path, data in files:
        if source.extract is not None:
            data = source.extract(path, data)
            path = path + ".csv"
        target = folder / path.replace("/", "__")
        target.write_bytes(data)
        count += 1
    (folder / "SOURCE.json").write_text(json.dumps(
        {"repo": source.repo, "commit": source.commit, "licence": source.licence,
         "files": count}, indent=1))
    return count


def available(name):
    """Whether the set's files are in the cache (or, for shared sets, beside the repo)."""
    return (CACHE / name / "SOURCE.json").exists()


def _files(name, pattern="*"):
    return sorted((CACHE / name).glob(pattern))


# -- loaders ----------------------------------------------------------------------


def _season_of(dates):
    """Football season (its first year) of each date: July to June."""
    return np.where(dates.dt.month >= 7, dates.dt.year, dates.dt.year - 1)


def _by_time_split(games, test_groups, train_groups):
    test = games["group"].isin(list(test_groups)).to_numpy().copy()
    train = games["group"].isin(list(train_groups)).to_numpy().copy()
    return train, test


def load_football_odds():
    """Top divisions of England, Spain, Germany, Italy and France with Bet365's
    odds (else the market average): test the last season every league has,
    train on the three before; features from every earlier season."""
    frames = []
    for path in _files("football_odds", "*.csv"):
        raw = path.read_bytes().decode("latin-1")
        frame = pd.read_csv(io.StringIO(raw), on_bad_lines="skip")
        if "HomeTeam" not in frame.columns:
            continue
        frames.append(frame)
    games = pd.concat(frames, ignore_index=True).dropna(subset=["Div", "Date", "HomeTeam",
                                                                "AwayTeam", "FTR"])
    games["Date"] = pd.to_datetime(games["Date"], dayfirst=True, format="mixed")
    # Some files repeat seasons: one row per match.
    games = games.drop_duplicates(subset=["Div", "Date", "HomeTeam", "AwayTeam"])
    odds = None
    for h, d, a in (("B365H", "B365D", "B365A"), ("BbAvH", "BbAvD", "BbAvA"),
                    ("AvgH", "AvgD", "AvgA")):
        if h in games.columns:
            these = games[[h, d, a]].apply(pd.to_numeric, errors="coerce")
            odds = these if odds is None else odds.fillna(these.set_axis(odds.columns, axis=1))
    inverse = 1.0 / odds.to_numpy()
    market = inverse / inverse.sum(axis=1, keepdims=True)
    league = games["Div"].astype(str).str.strip()
    out = pd.DataFrame({
        "time": games["Date"].to_numpy(),
        # b is the home side: +1 advantage; a label of the away side's view.
        "a": (league + ":" + games["AwayTeam"].astype(str).str.strip()).to_numpy(),
        "b": (league + ":" + games["HomeTeam"].astype(str).str.strip()).to_numpy(),
        "y": games["FTR"].map({"H": 1, "D": 0, "A": -1}).to_numpy(),
        "advantage": 1.0,
        "score_a": pd.to_numeric(games["FTAG"], errors="coerce").to_numpy(),
        "score_b": pd.to_numeric(games["FTHG"], errors="coerce").to_numpy(),
        "p_a": market[:, 2], "p_tie": market[:, 1], "p_b": market[:, 0],
        "league": league.to_numpy(),
    })
    out = out.dropna(subset=["y"]).sort_values("time", kind="stable").reset_index(drop=True)
    out["y"] = out["y"].astype(int)
    out["group"] = _season_of(out["time"])
    # The last season that every league has complete (each at least 300 games).
    counts = out.groupby(["group", "league"]).size().unstack()
    full = counts.index[(counts >= 300).all(axis=1)]
    test_season = int(full.max())
    train, test = _by_time_split(out, [test_season], range(test_season - 3, test_season))
    test &= out[["p_a", "p_tie", "p_b"]].notna().all(axis=1).to_numpy()
    return SuiteSet("football_odds", "club football, 5 leagues, bookmaker's odds", out, test,
                    train, notes={"test season": f"{test_season}-{test_season + 1}"})


def _engsoccer(name, csv, first_season, test_season, tier=1):
    frame = pd.read_csv(_files(name, csv)[0])
    frame = frame[(frame["tier"] == tier) & (frame["Season"] >= first_season)
                  & (frame["Season"] <= test_season)]
    frame = frame.assign(Date=pd.to_datetime(frame["Date"])).sort_values("Date", kind="stable")
    hg, vg = frame["hgoal"].to_numpy(), frame["vgoal"].to_numpy()
    out = pd.DataFrame({
        "time": frame["Date"].to_numpy(), "a": frame["visitor"].astype(str).to_numpy(),
        "b": frame["home"].astype(str).to_numpy(), "y": np.sign(hg - vg).astype(int),
        "advantage": 1.0, "score_a": vg, "score_b": hg,
        "group": frame["Season"].to_numpy()}).reset_index(drop=True)
    train, test = _by_time_split(out, [test_season], range(test_season - 3, test_season))
    return out, train, test


def load_italy_1980s():
    """Serie A when a win earned two points (many draws): test 1985-86, train
    1978-79 to 1984-85, features from 1975 on."""
    games, train, test = _engsoccer("italy_1980s", "*italy.csv", 1975, 1985)
    train = games["group"].between(1978, 1984).to_numpy()
    return SuiteSet("italy_1980s", "club football of an era of draws", games, test, train)


def load_germany_leagues():
    """Bundesliga, recent seasons: test the last complete season, train the six
    before, features from the twelve before."""
    frame = pd.read_csv(_files("germany_leagues", "*germany.csv")[0])
    counts = frame[frame["tier"] == 1].groupby("Season").size()
    last = int(counts.index[counts >= 306].max())
    games, train, test = _engsoccer("germany_leagues", "*germany.csv", last - 12, last)
    train = games["group"].between(last - 6, last - 1).to_numpy()
    return SuiteSet("germany_leagues", "club football, recent seasons", games, test, train,
                    notes={"test season": f"{last}-{last + 1}"})


def load_llm_judgments():
    """Human judgments of two LLMs' answers to one question (Vicuna80: 1 / 2 /
    3 = first better / second better / equivalent), identities only; test on
    questions never seen in training (a quarter of them)."""
    rows = []
    for path in _files("llm_judgments", "*.jsonl"):
        match = re.search(r"answer_(.+?)-vs-answer_(.+?)-human-reviewer", path.name)
        first, second = match.group(1), match.group(2)
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                rows.append((record["question_id"], first, second, int(record["score"])))
    frame = pd.DataFrame(rows, columns=["question", "a", "b", "score"])
    frame = frame[frame["score"].isin([1, 2, 3])]
    games = pd.DataFrame({
        "time": np.arange(len(frame)), "a": frame["a"].to_numpy(), "b": frame["b"].to_numpy(),
        "y": frame["score"].map({1: -1, 2: 1, 3: 0}).to_numpy(), "advantage": 0.0,
        "group": frame["question"].to_numpy()})
    questions = np.unique(games["group"])
    rng = np.random.default_rng(0)
    held = rng.choice(questions, size=len(questions) // 4, replace=False)
    test = games["group"].isin(held).to_numpy()
    return SuiteSet("llm_judgments", "human judgments of LLM answers (identities)", games,
                    test, ~test, history=False)


def load_computer_chess():
    """Engine games (poprank's fixture: head-to-head series of 50-100 games,
    not in time order), identities only: test on a quarter of the series,
    pairings never seen in training."""
    records = json.loads(_files("computer_chess", "*computer_chess*.json")[0].read_text())
    result = {"1-0": -1, "0-1": 1, "1/2-1/2": 0}
    rows = [(w, b, result[r]) for w, b, r in records if r in result]
    games = pd.DataFrame(rows, columns=["a", "b", "y"])  # a: white, b: black
    pairing = [tuple(sorted(p)) for p in zip(games["a"], games["b"], strict=True)]
    series = np.cumsum([True] + [p != q for p, q in zip(pairing[1:], pairing[:-1],
                                                        strict=True)])
    games = games.assign(time=np.arange(len(games)), advantage=-1.0,  # white (a) moves first
                         group=series)
    rng = np.random.default_rng(0)
    held = rng.choice(np.unique(series), size=np.unique(series).size // 4, replace=False)
    test = games["group"].isin(held).to_numpy()
    return SuiteSet("computer_chess", "engine chess series (poprank fixture, identities)",
                    games, test, ~test, history=False)


def load_tcec():
    """TCEC's league games (stages, divisions, superfinals): test the last two
    seasons of the suite's files, train on every season before them but the
    first two (their games give the history features a start); white moves first."""
    frames = [pd.read_csv(p) for p in _files("tcec", "*.pgn.csv")]
    frame = pd.concat(frames, ignore_index=True)
    frame["season"] = frame["file"].str.extract(r"Season_(\d+)_").astype(float)[0]
    date = frame["UTCDate"] if "UTCDate" in frame.columns else frame["Date"]
    date = pd.to_datetime(date.fillna(frame["Date"]).str.replace("?", "1", regex=False),
                          format="%Y.%m.%d", errors="coerce")
    frame = frame.assign(date=date).dropna(subset=["date", "season"])
    result = {"1-0": -1, "0-1": 1, "1/2-1/2": 0}
    frame = frame[frame["Result"].isin(result)].sort_values(["date", "season"], kind="stable")
    games = pd.DataFrame({
        "time": frame["date"].to_numpy(), "a": frame["White"].astype(str).to_numpy(),
        "b": frame["Black"].astype(str).to_numpy(),
        "y": frame["Result"].map(result).to_numpy(), "advantage": -1.0,
        "group": frame["season"].astype(int).to_numpy()}).reset_index(drop=True)
    seasons = np.unique(games["group"])
    train, test = _by_time_split(games, seasons[-2:], seasons[2:-2])
    return SuiteSet("tcec", "engine chess, TCEC leagues (50%+ draws)", games, test, train,
                    notes={"test seasons": ", ".join(map(str, seasons[-2:]))})


def _home_results(time, a, b, score_a, score_b, league, season, **columns):
    """A games table of league results with b at home (+1 advantage), the
    label from the scores, folds' groups by league x season, and ``columns``
    (a forecast's ``p_`` columns)."""
    score_a, score_b = np.asarray(score_a, dtype=float), np.asarray(score_b, dtype=float)
    league = np.asarray(league, dtype=object)
    return pd.DataFrame({
        "time": np.asarray(time), "a": np.asarray(a), "b": np.asarray(b),
        "y": np.sign(score_b - score_a).astype(int), "advantage": 1.0,
        "score_a": score_a, "score_b": score_b, **columns,
        "group": league + ":" + np.asarray(season).astype(str), "league": league})


def load_club_football():
    """Domestic leagues (top four tiers) of many countries, openfootball's
    results: test 2018-19, every league of it (twelve of them with no earlier
    season in the files: their teams start the season unseen), train on the two
    seasons before; features from 2014-15 on. Folds keep a league's season
    together (league x season groups, as a user with many leagues would)."""
    rows = []
    for path in _files("club_football", "20*.json"):
        season, league = re.match(r"(\d{4})-\d\d__([a-z]+\.\d)\.json$", path.name).groups()
        country = league.split(".")[0]
        for match in json.loads(path.read_text())["matches"]:
            full_time = (match.get("score") or {}).get("ft")
            if not full_time or len(full_time) != 2 or not match.get("date"):
                continue  # not played (postponed, abandoned) or no date
            rows.append((match["date"], int(season), league, f"{country}:{match['team2']}",
                         f"{country}:{match['team1']}", full_time[1], full_time[0]))
    frame = pd.DataFrame(rows, columns=["date", "season", "league", "a", "b", "score_a",
                                        "score_b"])
    frame["date"] = pd.to_datetime(frame["date"])
    frame = frame.drop_duplicates(subset=["date", "a", "b"]).sort_values(
        ["date", "league"], kind="stable").reset_index(drop=True)
    # b is the home side (team1); ids by country, so a promoted or relegated
    # side keeps its history.
    season = frame["season"].to_numpy()
    games = _home_results(frame["date"], frame["a"], frame["b"], frame["score_a"],
                          frame["score_b"], frame["league"], season)
    test_season = int(season.max())
    test = season == test_season
    train = (season >= test_season - 2) & (season < test_season)
    return SuiteSet("club_football", "club football, many leagues (openfootball)", games, test,
                    train, notes={"test season": f"{test_season}-{test_season + 1}",
                                  "leagues in test": int(np.unique(games["league"][test]).size)})


# spi_football: European domestic leagues with August-May seasons (the
# calendar-year leagues of Sweden and Norway, the Americas, Asia, Africa,
# Australia, cups and the women's league left out).
SPI_LEAGUES = (
    "Barclays Premier League", "English League Championship", "English League One",
    "English League Two", "Spanish Primera Division", "Spanish Segunda Division",
    "French Ligue 1", "French Ligue 2", "Italy Serie A", "Italy Serie B", "German Bundesliga",
    "German 2. Bundesliga", "Dutch Eredivisie", "Portuguese Liga", "Belgian Jupiler League",
    "Turkish Turkcell Super Lig", "Russian Premier Liga", "Greek Super League",
    "Scottish Premiership", "Austrian T-Mobile Bundesliga", "Swiss Raiffeisen Super League",
    "Danish SAS-Ligaen")


def load_spi_football():
    """Twenty-two European club leagues, 2016-17 to 2018-19, with
    FiveThirtyEight's published win / draw / loss forecasts (SPI) as the
    reference (in the ``p_`` columns, as bookmakers' odds elsewhere): test
    2018-19, train the two seasons before (2016-17 holds only the top five
    leagues and a few more); features from the first season on. Folds keep a
    league's season together. The forecaster used goals, expected goals and
    more than results; we see results and goals."""
    frame = pd.read_csv(_files("spi_football", "*.csv")[0])
    frame = frame[frame["league"].isin(SPI_LEAGUES)].dropna(subset=["score1", "score2"])
    # Promotion play-offs decided on the day (extra time, penalties) have no
    # draw: the forecast gives it 0 (6 matches of 2018-19).
    frame = frame[frame["probtie"] > 0]
    frame = frame.assign(date=pd.to_datetime(frame["date"])).sort_values(
        "date", kind="stable").reset_index(drop=True)
    season = _season_of(frame["date"])
    forecast = frame[["prob2", "probtie", "prob1"]].to_numpy(dtype=float)
    forecast /= forecast.sum(axis=1, keepdims=True)  # published to four decimals
    # b is the home side (team1).
    games = _home_results(frame["date"], frame["team2"].astype(str), frame["team1"].astype(str),
                          frame["score2"], frame["score1"], frame["league"], season,
                          p_a=forecast[:, 0], p_tie=forecast[:, 1], p_b=forecast[:, 2])
    test_season = 2018
    test = season == test_season
    train = (season >= test_season - 2) & (season < test_season)
    return SuiteSet("spi_football", "club football, 22 European leagues, FiveThirtyEight's "
                    "forecasts", games, test, train,
                    notes={"test season": f"{test_season}-{test_season + 1}"})


LOADERS = {
    "football_odds": load_football_odds,
    "italy_1980s": load_italy_1980s,
    "germany_leagues": load_germany_leagues,
    "llm_judgments": load_llm_judgments,
    "computer_chess": load_computer_chess,
    "tcec": load_tcec,
    "club_football": load_club_football,
    "spi_football": load_spi_football,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Fetch the public suite into " + str(CACHE))
    parser.add_argument("command", choices=["fetch", "show"])
    parser.add_argument("--mirror", default=None,
                        help="folder of bare clones (owner+name/repo) to read instead of GitHub")
    parser.add_argument("--sets", nargs="+", default=list(SOURCES), choices=list(SOURCES))
    args = parser.parse_args(argv)
    for name in args.sets:
        if args.command == "fetch":
            print(f"{name}: {fetch(name, args.mirror)} files from {SOURCES[name].repo}",
                  flush=True)
        else:
            data = LOADERS[name]()
            g = data.games
            print(f"{name}: {len(g)} games, {data.train.sum()} train, {data.test.sum()} test, "
                  f"ties {np.mean(g['y'] == 0):.1%} (test {np.mean(g['y'][data.test] == 0):.1%})"
                  f", {pd.unique(pd.concat([g['a'], g['b']])).size} ids {data.notes}")


if __name__ == "__main__":
    sys.exit(main())
