"""The leaderboard (table, head to head, HTML / CSV / figure) and the command
line's intervals: fit --bootstrap, rank / predict --interval, leaderboard."""

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from svmcompare import BootstrapCompare, SVMCompare
from svmcompare.cli import main
from svmcompare.leaderboard import (
    game_counts,
    head_to_head,
    leaderboard,
    leaderboard_html,
    plot_leaderboard,
    write_leaderboard,
)

from .test_bootstrap import id_games


@pytest.fixture(scope="module")
def board_model():
    X, y, items, _ = id_games(players=8, n=500)
    model = BootstrapCompare(SVMCompare(kernel="linear", scale_indicators=False,
                                        probability=True), n_resamples=20, random_state=0,
                             progress=False).fit(X, y)
    return model, X, y, items


def test_game_counts_by_brute_force():
    a = np.array(["p", "q", "r", "p", "q"])
    b = np.array(["q", "r", "p", "r", "p"])
    y = np.array([-1, 0, 1, 1, -1])  # -1: a won, 1: b won, 0: draw
    counts = game_counts(a, b, y, ["p", "q", "r", "s"])
    expected = {"p": (4, 2, 0, 2), "q": (3, 1, 1, 1), "r": (3, 1, 1, 1), "s": (0, 0, 0, 0)}
    for k, name in enumerate("pqrs"):
        row = counts.iloc[k]
        assert (row.games, row.wins, row.draws, row.losses) == expected[name]


def test_table_is_sorted_with_intervals_and_records(board_model):
    model, X, y, items = board_model
    ids = np.array([f"team {k}" for k in range(8)], dtype=object)
    first, second = X[:, :8].nonzero()[1], X[:, 8:].nonzero()[1]
    table = leaderboard(model, items, ids, games=(ids[first], ids[second], y))
    assert (np.diff(table["score"]) <= 0).all() and table["position"].iloc[0] == 1
    assert set(table.columns) >= {"score_lower", "score_upper", "position_best",
                                  "position_worst", "games", "wins", "draws", "losses"}
    assert table["games"].sum() == 2 * y.size
    assert ((table["wins"] + table["draws"] + table["losses"]) == table["games"]).all()
    by_id = table.set_index("id")
    assert by_id.loc["team 7", "score"] == pytest.approx(model.rank(items)[7])


def test_head_to_head_is_consistent_both_ways(board_model):
    model, _, _, items = board_model
    ids, proba = head_to_head(model.estimator_, items, np.arange(8), top=5)
    assert ids.tolist() == np.argsort(-model.rank(items))[:5].tolist()
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose(proba[off].sum(axis=1), 1.0)
    # No pair context: x = i, x' = j is the pair x = j, x' = i turned round.
    np.testing.assert_allclose(proba[:, :, 0][off], proba.transpose(1, 0, 2)[:, :, 2][off])
    assert np.isnan(proba[0, 0]).all()
    assert proba[0, 4, 0] > proba[0, 4, 2]  # the best item is favoured against the fifth


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.rows, self.text = [], 0, []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.rows += tag == "tr"

    def handle_data(self, data):
        self.text.append(data)


def test_html_page_is_self_contained_and_escaped(board_model):
    model, _, _, items = board_model
    ids = np.array(["<script>alert(1)</script>", *[f"t{k}" for k in range(1, 8)]], dtype=object)
    table = leaderboard(model, items, ids)
    page = leaderboard_html(table, head_to_head(model.estimator_, items, ids, top=4))
    parser = _Page()
    parser.feed(page)
    assert "<script>" not in page and "&lt;script&gt;" in page
    names = {tag for tag, _ in parser.tags}
    assert not names & {"script", "link", "img", "iframe"}  # nothing loaded from elsewhere
    assert not any(key in ("src", "href") for _, attrs in parser.tags for key in attrs)
    assert parser.rows == 1 + 8 + 1 + 4  # board header and rows, head-to-head header and rows
    assert sum(tag == "svg" for tag, _ in parser.tags) == 8  # one interval bar per item
    assert "<script>alert(1)</script>" in "".join(parser.text)  # shown as text


def test_writes_each_format(tmp_path, board_model):
    pytest.importorskip("matplotlib")
    model, _, _, items = board_model
    table = leaderboard(model, items, np.arange(8))
    head = head_to_head(model.estimator_, items, np.arange(8))
    for name in ("b.csv", "b.html", "b.png", "b.svg"):
        write_leaderboard(table, tmp_path / name, head)
        assert (tmp_path / name).stat().st_size > 500
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "b.csv"), table, check_dtype=False)
    with pytest.raises(ValueError, match="written as"):
        write_leaderboard(table, tmp_path / "b.pdf", head)


# -- command line -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def games_file(tmp_path_factory):
    X, y, _, _ = id_games(players=10, n=500, seed=3)
    names = np.array([f"p{k}" for k in range(10)], dtype=object)
    folder = tmp_path_factory.mktemp("games")
    path = folder / "games.csv"
    pd.DataFrame({"home": names[X[:, :10].nonzero()[1]], "away": names[X[:, 10:].nonzero()[1]],
                  "result": np.array(["H", "D", "A"])[y + 1],
                  "round": np.arange(500) // 25}).to_csv(path, index=False)
    model = folder / "m.skops"
    assert main(["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
                 "--outcome-map", "H=-1,D=0,A=1", "--probability", "--bootstrap", "12",
                 "--model", str(model), "--no-progress"]) == 0
    return folder, path, model


def test_cli_rank_and_predict_with_intervals(games_file, capsys):
    folder, path, model = games_file
    assert main(["rank", str(model), "-o", str(folder / "r.csv"), "--interval", "0.8"]) == 0
    ranks = pd.read_csv(folder / "r.csv")
    assert len(ranks) == 10 and set(ranks["id"]) == {f"p{k}" for k in range(10)}
    assert (ranks["rank_lower"] <= ranks["rank_upper"]).all()
    assert (ranks["position_best"] <= ranks["position_worst"]).all()
    pd.DataFrame({"id": ["p3", "p1"]}).to_csv(folder / "two.csv", index=False)
    assert main(["rank", str(model), str(folder / "two.csv"), "-o", str(folder / "r2.csv")]) == 0
    two = pd.read_csv(folder / "r2.csv")
    np.testing.assert_allclose(two["rank"], ranks.set_index("id").loc[["p3", "p1"], "rank"])
    assert main(["predict", str(model), str(path), "--a", "home", "--b", "away", "--proba",
                 "--interval", "0.9", "-o", str(folder / "p.csv")]) == 0
    pred = pd.read_csv(folder / "p.csv")
    for name in ("p_x_better", "p_tie", "p_xprime_better"):
        assert (pred[f"{name}_lower"] <= pred[f"{name}_upper"]).all()
        assert pred[f"{name}_lower"].between(0, 1).all()


def test_cli_probability_intervals_calibrated_by_default_or_percentile(games_file, tmp_path,
                                                                      capsys):
    from svmcompare import load_model

    folder, path, model = games_file
    assert load_model(model).proba_coverage_ is not None  # the calibrated bootstrap
    plain = tmp_path / "plain.skops"
    assert main(["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
                 "--outcome-map", "H=-1,D=0,A=1", "--probability", "--bootstrap", "4",
                 "--proba-interval", "percentile", "--model", str(plain),
                 "--no-progress"]) == 0
    assert load_model(plain).proba_coverage_ is None
    # Without a bootstrap (or probabilities) there are no such intervals to choose.
    capsys.readouterr()
    assert main(["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
                 "--outcome-map", "H=-1,D=0,A=1", "--probability", "--proba-interval",
                 "percentile", "--model", str(plain), "--no-progress"]) == 2
    assert "give --bootstrap N and --probability" in capsys.readouterr().err


def test_cli_leaderboard(games_file, capsys):
    pytest.importorskip("matplotlib")
    folder, path, model = games_file
    outputs = [str(folder / name) for name in ("board.html", "board.csv", "board.png")]
    assert main(["leaderboard", str(model), "--games", str(path), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--interval", "0.9",
                 "--top", "4", "-o", *outputs]) == 0
    board = pd.read_csv(folder / "board.csv")
    assert board["games"].sum() == 1000 and len(board) == 10
    assert {"score_lower", "position_worst", "wins"} <= set(board.columns)
    assert "Head to head" in (folder / "board.html").read_text()
    # Fixtures in the games file (no result yet) count for no side's record.
    games = pd.read_csv(path)
    with_fixtures = folder / "with_fixtures.csv"
    pd.concat([games, games.head(7).assign(result="")]).to_csv(with_fixtures, index=False)
    outputs[1] = str(folder / "board_fixtures.csv")
    assert main(["leaderboard", str(model), "--games", str(with_fixtures), "--a", "home",
                 "--b", "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1",
                 "--interval", "0.9", "--top", "4", "-o", outputs[1]]) == 0
    assert "7 pair(s) without a label" in capsys.readouterr().err
    pd.testing.assert_frame_equal(pd.read_csv(outputs[1]), board)


def test_cli_leaderboard_counts_the_games_asked_and_names_ids_it_does_not_rank(games_file,
                                                                               capsys):
    folder, path, model = games_file
    games = pd.read_csv(path)
    newcomer = folder / "with_newcomer.csv"
    pd.concat([games, pd.DataFrame({"home": ["p1"], "away": ["zed"], "result": ["H"],
                                    "round": [20]})]).to_csv(newcomer, index=False)
    base = ["leaderboard", str(model), "--games", str(newcomer), "--a", "home", "--b", "away",
            "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]
    assert main([*base, "-o", str(folder / "all.csv")]) == 0
    err = capsys.readouterr().err
    assert "1 id(s) not ranked (not in the model's items), their games counted apart: 'zed'" \
        in err and "mean item" not in err
    board = pd.read_csv(folder / "all.csv")
    assert len(board) == 10 and board["games"].sum() == 1001  # p1's game against zed counts
    # --until: the records of the rounds the model was fitted on only.
    assert main([*base, "--until", "round=9", "-o", str(folder / "early.csv")]) == 0
    early = pd.read_csv(folder / "early.csv").set_index("id")
    first = games[games["round"] <= 9]
    counts = pd.concat([first["home"], first["away"]]).value_counts()
    assert (early["games"] == counts.reindex(early.index)).all()
    assert main([*base, "--unknown", "error", "-o", str(folder / "x.csv")]) == 2
    assert "1 id(s) the board does not rank" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["rank", "{model0}", "-o", "{out}", "--interval", "0.9"], "no bootstrap replicates"),
    (["predict", "{model}", "{games}", "--a", "home", "--b", "away", "--interval", "0.9",
      "-o", "{out}"], "add --proba"),
    (["rank", "{model}", "-o", "{out}", "--interval", "1.5"], "confidence level"),
])
def test_cli_interval_errors(games_file, tmp_path, capsys, argv, message):
    folder, path, model = games_file
    plain = folder / "plain.skops"
    if not plain.exists():
        assert main(["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
                     "--outcome-map", "H=-1,D=0,A=1", "--model", str(plain)]) == 0
    values = {"model0": plain, "model": model, "games": path, "out": tmp_path / "o.csv"}
    assert _exit_code([part.format(**values) for part in argv]) == 2
    assert message in capsys.readouterr().err


def _exit_code(argv):
    """main's return value, or the code argparse exits with."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_cli_bootstrap_groups_needs_groups(games_file, tmp_path, capsys):
    _, path, _ = games_file
    assert main(["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
                 "--outcome-map", "H=-1,D=0,A=1", "--bootstrap-groups",
                 "--model", str(tmp_path / "m.skops")]) == 2
    assert "--groups" in capsys.readouterr().err
    assert main(["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
                 "--outcome-map", "H=-1,D=0,A=1", "--bootstrap", "4", "--bootstrap-groups",
                 "--groups", "round", "--no-progress", "--model", str(tmp_path / "g.skops")]) == 0


def test_identity_scores_without_items_need_an_identities_model(games_file, tmp_path, capsys):
    X, y, _, _ = id_games(players=4, n=100)
    dense = np.stack([X[:, :4].toarray(), X[:, 4:].toarray()], axis=1)
    frame = pd.DataFrame({"a_u": dense[:, 0] @ np.arange(4.0), "b_u": dense[:, 1] @ np.arange(4.0),
                          "y": y})
    frame.to_csv(tmp_path / "wide.csv", index=False)
    assert main(["fit", str(tmp_path / "wide.csv"), "--model", str(tmp_path / "w.skops")]) == 0
    assert main(["rank", str(tmp_path / "w.skops"), "-o", str(tmp_path / "r.csv")]) == 2
    assert "items table" in capsys.readouterr().err


# -- bad input ------------------------------------------------------------------------------


def test_repeated_ids_are_refused(board_model):
    model, X, y, items = board_model
    ids = np.array(["a", "a", *[f"t{k}" for k in range(2, 8)]], dtype=object)
    first, second = X[:, :8].nonzero()[1], X[:, 8:].nonzero()[1]
    with pytest.raises(ValueError, match="ids repeats 'a'"):  # was pandas' InvalidIndexError
        leaderboard(model, items, ids, games=(ids[first], ids[second], y))
    with pytest.raises(ValueError, match="ids repeats 'a'"):  # was written twice
        leaderboard(model, items, ids)
    with pytest.raises(ValueError, match="ids repeats 'a'"):
        head_to_head(model.estimator_, items, ids)


def test_ids_and_items_of_different_lengths_are_refused(board_model):
    model, _, _, items = board_model
    with pytest.raises(ValueError, match="items has 8 rows but ids has 3"):
        head_to_head(model.estimator_, items, ["a", "b", "c"])  # was an IndexError
    with pytest.raises(ValueError, match="items has 8 rows but ids has 3"):
        leaderboard(model, items, ["a", "b", "c"])


def test_items_as_nested_lists(board_model):
    model, _, _, items = board_model
    dense = items.toarray()
    table = leaderboard(model.estimator_, dense.tolist(), np.arange(8))  # was an AttributeError
    pd.testing.assert_frame_equal(table, leaderboard(model.estimator_, dense, np.arange(8)))
    with pytest.raises(ValueError, match="items must be 2-D"):
        leaderboard(model.estimator_, dense[0].tolist(), np.arange(8))


def test_game_labels_and_lengths_are_checked(board_model):
    model, X, y, items = board_model
    ids = np.arange(8)
    first, second = X[:, :8].nonzero()[1], X[:, 8:].nonzero()[1]
    outcomes = np.array(["H", "D", "A"])[y + 1]  # counted as nothing before
    with pytest.raises(TypeError, match=r"games=\(a, b, y\).*Map outcomes to labels"):
        leaderboard(model, items, ids, games=(first, second, outcomes))
    with pytest.raises(ValueError, match="labels must be -1, 0 or 1"):
        leaderboard(model, items, ids, games=(first, second, 2 * y))
    with pytest.raises(ValueError, match="one length"):
        leaderboard(model, items, ids, games=(first, second[:-1], y))
    with pytest.raises(TypeError, match=r"tuple \(a, b, y\)"):
        leaderboard(model, items, ids, games=(first, second))


@pytest.mark.parametrize("top, error", [(0, ValueError), (-1, ValueError), (2.5, TypeError)])
def test_top_must_be_a_positive_integer(board_model, top, error):
    model, _, _, items = board_model
    with pytest.raises(error, match="top"):  # -1 gave 7 of the 8 items, 0 "X has no pairs"
        head_to_head(model.estimator_, items, np.arange(8), top=top)


def test_cli_leaderboard_refuses_before_writing(games_file, tmp_path, capsys):
    folder, path, model = games_file
    html = tmp_path / "board.html"
    assert _exit_code(["leaderboard", str(model), "-o", str(html),
                       str(tmp_path / "board.txt")]) == 2
    assert "board.txt" in capsys.readouterr().err
    assert not html.exists()  # the HTML was written before the .txt was refused
    assert _exit_code(["leaderboard", str(model), "--top", "0", "-o", str(html)]) == 2
    assert "--top must be a positive integer" in capsys.readouterr().err
    ids = tmp_path / "ids.csv"
    pd.DataFrame({"id": ["p1", "p1", "p2"]}).to_csv(ids, index=False)
    assert _exit_code(["leaderboard", str(model), str(ids), "--games", str(path), "--a", "home",
                       "--b", "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1",
                       "-o", str(html)]) == 2
    assert "ids.csv: id 'p1' is listed more than once" in capsys.readouterr().err
    assert not html.exists()


def test_a_figure_cut_to_its_top_items_says_so():
    import matplotlib

    matplotlib.use("Agg")
    from svmcompare.leaderboard import plot_leaderboard

    table = pd.DataFrame({"position": np.arange(1, 41), "id": [f"t{k}" for k in range(40)],
                          "score": np.linspace(2, -2, 40)})
    assert plot_leaderboard(table, title="Board").axes[0].get_title() == "Board (top 30 of 40)"
    assert plot_leaderboard(table.head(12), title="Board").axes[0].get_title() == "Board"


def test_games_match_ids_as_pairs_from_frame_keys_them():
    from svmcompare.leaderboard import game_counts

    # A float column of whole numbers (a gap made it float64) is the ids 1 and 2.
    counts = game_counts(np.array([1.0, 2.0]), np.array([2.0, 1.0]), np.array([-1, 0]),
                         ["1", "2"])
    assert counts["games"].tolist() == [2, 2] and counts["wins"].tolist() == [1, 0]


def test_min_games_ranks_only_the_items_with_enough_games(board_model, games_file, capsys):
    model, X, y, items = board_model
    ids = [f"t{k}" for k in range(8)]
    a = np.array(ids, dtype=object)[X[:, :8].nonzero()[1]]
    b = np.array(ids, dtype=object)[X[:, 8:].nonzero()[1]]
    keep = ~np.isin(a, ["t0"]) & ~np.isin(b, ["t0"])
    keep[np.flatnonzero(~keep)[:3]] = True  # t0 keeps three games only
    games = (a[keep], b[keep], y[keep])
    full = leaderboard(model, items, ids, games=games)
    board = leaderboard(model, items, ids, games=games, min_games=10)
    assert "t0" in set(full["id"]) and "t0" not in set(board["id"]) and len(board) == 7
    assert (board["games"] >= 10).all()
    # Positions and their intervals among the ranked items only.
    rest = [k for k in range(8) if ids[k] != "t0"]
    alone = leaderboard(model, items[rest], [ids[k] for k in rest], games=games)
    pd.testing.assert_frame_equal(board, alone)
    with pytest.raises(ValueError, match="give games"):
        leaderboard(model, items, ids, min_games=10)
    most = int(full["games"].max())
    with pytest.raises(ValueError, match=f"no item has 1000 games or more \\(the most: {most}\\); "
                                         "lower min_games"):
        leaderboard(model, items, ids, games=games, min_games=1000)
    with pytest.raises(ValueError, match="the games name none of the items' ids"):
        leaderboard(model, items, ids, games=(np.array(["x"]), np.array(["z"]), np.array([1])),
                    min_games=1)
    folder, path, fitted = games_file
    common = ["--games", str(path), "--a", "home", "--b", "away", "--outcome", "result",
              "--outcome-map", "H=-1,D=0,A=1"]
    assert main(["leaderboard", str(fitted), *common, "--min-games", "95",
                 "-o", str(folder / "few.csv")]) == 0
    few = pd.read_csv(folder / "few.csv")
    assert (few["games"] >= 95).all() and 0 < len(few) < 10
    assert main(["leaderboard", str(fitted), "--min-games", "5", "-o",
                 str(folder / "no.csv")]) == 2
    assert "--min-games counts each item's games" in capsys.readouterr().err
    # --until / --after without --games were silently ignored (review).
    for option in ("--until", "--after"):
        assert main(["leaderboard", str(fitted), option, "season=3", "-o",
                     str(folder / "no.csv")]) == 2
        assert "--until / --after select the --games rows" in capsys.readouterr().err


def test_head_to_head_and_board_of_a_search(board_model):
    # head_to_head read n_context_ of the search itself (AttributeError);
    # the board printed a search's scores of 1e-4 as 0.000 / -0.000 and,
    # for an all-numeric table, positions and counts as 1.000.
    from svmcompare import SVMCompareCV

    _, X, y, items = board_model
    search = SVMCompareCV(loss="squared_hinge", probability=True, cv=3, n_jobs=1,
                          progress=False).fit(X, y)
    ids, proba = head_to_head(search, items, np.arange(8), top=3)
    expected = head_to_head(search.best_estimator_, items, np.arange(8), top=3)
    np.testing.assert_array_equal(ids, expected[0])
    np.testing.assert_allclose(proba, expected[1])
    table = leaderboard(search, items, np.arange(8))  # ids numbers: every column numeric
    tiny = table.assign(score=table["score"] * 1e-4)
    cells = re.findall(r'<td class="(?:id)?">([^<]*)</td>', leaderboard_html(tiny))
    shown = [float(t) for t in cells if "." in t]
    assert len(cells) == 8 * 3  # position, id, score
    assert len(set(shown)) == len(set(np.round(tiny["score"], 12)))  # scores told apart
    assert "1" in cells and "1.000" not in cells  # position 1 as a whole number
    assert not any(t.startswith("-0.0") and float(t) == 0 for t in cells)


def test_a_plain_model_board_checks_its_confidence_too(board_model):
    model, _, _, items = board_model
    with pytest.raises(ValueError, match="confidence"):
        leaderboard(model.estimator_, items, np.arange(8), confidence=90)


def test_intervals_asked_of_a_model_without_replicates_are_refused(board_model):
    """The table would silently have no interval columns (a new user's
    README recipe on a search); the command line refuses the same."""
    model, _, _, items = board_model
    with pytest.raises(ValueError, match="need a bootstrap: .* has no replicates"):
        leaderboard(model.estimator_, items, np.arange(8), confidence=0.9)
    plain = leaderboard(model.estimator_, items, np.arange(8))
    assert "score_lower" not in plain.columns
    # A bootstrap: its intervals at 90% by default, or at the confidence asked.
    default = leaderboard(model, items, np.arange(8))
    wide = leaderboard(model, items, np.arange(8), confidence=0.99)
    assert (wide["score_upper"] - wide["score_lower"] >=
            default["score_upper"] - default["score_lower"] - 1e-12).all()
    assert (default["score_lower"] <= default["score"]).all()


def test_close_items_head_to_head_is_coloured_by_its_own_edges():
    """Win probabilities of 33-50% were one shade of a 0-1 scale (a new
    user's board of LLMs): the colour is the edge P(row better) - P(column
    better), full at the board's largest, blue for the row item better."""
    proba = np.array([[[0, 0, 0], [0.45, 0.20, 0.35], [0.40, 0.25, 0.35]],
                      [[0.35, 0.20, 0.45], [0, 0, 0], [0.38, 0.24, 0.38]],
                      [[0.35, 0.25, 0.40], [0.38, 0.24, 0.38], [0, 0, 0]]])
    table = pd.DataFrame({"position": [1, 2, 3], "id": ["a", "b", "c"], "score": [1.0, 0.5, 0.4]})
    page = leaderboard_html(table, (["a", "b", "c"], proba))
    colours = re.findall(r'<td class="cell" style="background:#(\w{6})', page)
    rgb = [tuple(int(c[k:k + 2], 16) for k in (0, 2, 4)) for c in colours]
    # Row by row, the diagonal left out: a-b, a-c, b-a, b-c, c-a, c-b.
    assert rgb[0] == (31, 90, 170)  # the largest edge (0.10): full blue
    assert rgb[2] == (190, 50, 40)  # its mirror: full red
    assert rgb[3] == rgb[5] == (255, 255, 255)  # even
    assert rgb[1][2] > rgb[1][0] and rgb[1][0] > 31  # half the edge: a lighter blue
    assert "full colour at an edge of 10 points" in page
    figure = plot_leaderboard(table, (["a", "b", "c"], proba))
    image = figure.axes[1].images[0]
    assert image.get_clim() == pytest.approx((-0.10, 0.10))
    np.testing.assert_allclose(image.get_array()[0, 1], 0.10)
    import matplotlib.pyplot as plt

    plt.close(figure)


def test_items_apart_from_the_main_group_are_flagged_and_named(board_model, games_file,
                                                                capsys):
    """Three regional sides that only ever met each other were placed on the
    world's board (10th of 337) without a word (a review)."""
    from svmcompare.pairs import apart_from_main_group

    model, X, y, items = board_model
    ids = np.array([f"t{k}" for k in range(8)], dtype=object)
    a, b = ids[X[:, :8].nonzero()[1]], ids[X[:, 8:].nonzero()[1]]
    # t6 and t7 only ever meet each other.
    alone = np.isin(a, ["t6", "t7"]) | np.isin(b, ["t6", "t7"])
    keep = ~alone | (np.isin(a, ["t6", "t7"]) & np.isin(b, ["t6", "t7"]))
    games = (a[keep], b[keep], y[keep])
    expected = np.isin(ids, ["t6", "t7"])
    np.testing.assert_array_equal(apart_from_main_group(games[0], games[1], ids), expected)
    # An item without games is not apart (its games say 0), nor does an
    # unknown id in the games change anything; no games, no group apart.
    np.testing.assert_array_equal(
        apart_from_main_group(np.append(games[0], "zz"), np.append(games[1], "t0"),
                              [*ids, "t8"]), np.append(expected, False))
    assert not apart_from_main_group([], [], ids).any()
    # Two groups of equal size: the one of more games is the main one.
    np.testing.assert_array_equal(apart_from_main_group(["p", "p", "r"], ["q", "q", "s"],
                                                        ["p", "q", "r", "s"]),
                                  [False, False, True, True])
    with pytest.warns(UserWarning, match=r"2 of 8 item\(s\) never met the main group of the "
                                         r"games, not even through others: t6, t7"):
        table = leaderboard(model, items, ids, games=games)
    assert set(table.loc[table["apart"], "id"]) == {"t6", "t7"}
    page = leaderboard_html(table)
    assert "t6 *" in page and "2 item(s) never met the main group" in page
    # A connected board says nothing and flags none; nor does a model of item
    # features, whose scores share one scale whoever met whom.
    import warnings

    from svmcompare import SVMCompare
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not leaderboard(model, items, ids, games=(a, b, y))["apart"].any()
        rng = np.random.default_rng(0)
        features = rng.normal(size=(8, 3))
        pairs = np.stack([features[X[:, :8].nonzero()[1]], features[X[:, 8:].nonzero()[1]]],
                         axis=1)
        by_features = SVMCompare(kernel="linear", loss="squared_hinge").fit(pairs, y)
        assert not leaderboard(by_features, features, ids, games=games)["apart"].any()


def test_records_that_run_against_the_scores_are_named(board_model):
    """--a and --b swapped on the games file inverted every record silently."""
    model, X, y, items = board_model
    ids = np.array([f"t{k}" for k in range(8)], dtype=object)
    a, b = ids[X[:, :8].nonzero()[1]], ids[X[:, 8:].nonzero()[1]]
    with pytest.warns(UserWarning, match=r"records run against the scores \(Spearman -"):
        leaderboard(model, items, ids, games=(b, a, y))


def test_games_all_drawn_leave_no_scipy_warning(board_model):
    # An attack (stop 70): all-draw games have one net record, and SciPy's
    # "input array is constant" reached the command line's output.
    import warnings

    model, X, y, items = board_model
    ids = np.array([f"t{k}" for k in range(8)], dtype=object)
    a, b = ids[X[:, :8].nonzero()[1]], ids[X[:, 8:].nonzero()[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        board = leaderboard(model, items, ids, games=(a, b, np.zeros_like(y)))
    assert (board["draws"] == board["games"]).all()


def test_head_to_head_takes_the_boards_min_games(board_model):
    model, X, y, items = board_model
    ids = np.array([f"t{k}" for k in range(8)], dtype=object)
    a, b = ids[X[:, :8].nonzero()[1]], ids[X[:, 8:].nonzero()[1]]
    best = ids[np.argmax(model.estimator_.rank(items))]
    few = (a != best) & (b != best)
    few[np.flatnonzero(~few)[:2]] = True  # the best item keeps two games
    games = (a[few], b[few], y[few])
    top, _ = head_to_head(model.estimator_, items, ids, top=3, games=games, min_games=10)
    board = leaderboard(model, items, ids, games=games, min_games=10)
    assert best not in top and list(top) == list(board["id"][:3])
    assert best in head_to_head(model.estimator_, items, ids, top=3)[0]
    with pytest.raises(ValueError, match="give games"):
        head_to_head(model.estimator_, items, ids, min_games=10)


def test_the_page_says_which_games_it_counts(games_file):
    folder, path, model = games_file
    base = ["leaderboard", str(model), "--games", str(path), "--a", "home", "--b", "away",
            "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]
    assert main([*base, "--until", "round=9", "-o", str(folder / "window.html")]) == 0
    page = (folder / "window.html").read_text()
    n = int((pd.read_csv(path)["round"] <= 9).sum())
    assert f"the {n} games of {path.name} with --until round=9" in page
    assert "Head to head on neutral ground" in page


def test_games_by_their_weight_show_items_of_next_to_no_results(board_model, games_file,
                                                                 capsys):
    """Under a half-life a side whose one game was in 1923 had the narrowest
    interval of the board and nothing said it rests on no results (a review)."""
    model, X, y, items = board_model
    ids = np.array([f"t{k}" for k in range(8)], dtype=object)
    a, b = ids[X[:, :8].nonzero()[1]], ids[X[:, 8:].nonzero()[1]]
    weight = np.ones(y.size)
    faint = (a == "t0") | (b == "t0")
    weight[faint] = 1e-9
    weight[~faint] *= 2.0  # weights are read relative to the largest
    table = leaderboard(model, items, ids, games=(a, b, y, weight)).set_index("id")
    expected = np.bincount(np.r_[X[:, :8].nonzero()[1], X[:, 8:].nonzero()[1]],
                           weights=np.r_[weight, weight] / 2.0, minlength=8)
    np.testing.assert_allclose(table.loc[ids, "weighted_games"], expected)
    assert table.loc["t0", "weighted_games"] < 1e-6 and table.loc["t0", "games"] > 50
    # min_games counts them by weight; the page names the items of next to no results.
    assert "t0" not in set(leaderboard(model, items, ids, games=(a, b, y, weight),
                                       min_games=5)["id"])
    page = leaderboard_html(table.reset_index())
    assert "1 item(s) whose games weigh less than one game in all (t0)" in page
    with pytest.raises(ValueError, match="sample_weight"):
        leaderboard(model, items, ids, games=(a, b, y, -weight))
    # The command line weighs the --games rows as fit --time --half-life did.
    folder, path, fitted = games_file
    common = ["--games", str(path), "--a", "home", "--b", "away", "--outcome", "result",
              "--outcome-map", "H=-1,D=0,A=1"]
    assert main(["leaderboard", str(fitted), *common, "--time", "round", "--half-life", "2",
                 "-o", str(folder / "w.csv"), str(folder / "w.html")]) == 0
    board = pd.read_csv(folder / "w.csv")
    games = pd.read_csv(path)
    from svmcompare import time_decay
    w = time_decay(games["round"].to_numpy(), 2.0)
    by_id = pd.concat([pd.Series(w, index=games["home"]), pd.Series(w, index=games["away"])])
    np.testing.assert_allclose(board.set_index("id")["weighted_games"],
                               by_id.groupby(level=0).sum().reindex(board["id"]) / w.max())
    assert "Weighted games: each game weighs 2^(-age / 2) by its round" in \
        (folder / "w.html").read_text()
    assert main(["leaderboard", str(fitted), "--half-life", "2", "--time", "round", "-o",
                 str(folder / "x.csv")]) == 2
    assert "--time / --half-life weigh the --games rows" in capsys.readouterr().err


def test_the_figure_makes_room_for_long_ids(board_model):
    """Five ids of 30 characters squeezed the panels flat and put the heat
    map's row labels over the scores (a review)."""
    model, _, _, items = board_model
    ids = np.array([f"a-very-long-model-name-{k}-instruct-v0.1" for k in range(8)], dtype=object)
    table = leaderboard(model, items, ids)
    head = head_to_head(model.estimator_, items, ids, top=5)
    fig = plot_leaderboard(table, head)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    scores, heat = fig.axes[0].get_tightbbox(renderer), fig.axes[1].get_tightbbox(renderer)
    assert scores.x1 <= heat.x0  # side by side, labels included
    assert fig.axes[0].get_window_extent().height > 100  # not flat (pixels)


def test_items_of_text_and_ids_of_a_thousand_characters(board_model):
    """Items of object dtype met a scipy error before the library's own check;
    ids of 1,000 characters made a figure of 162 x 69 inches (a review)."""
    model, X, y, items = board_model
    ids = np.array([f"t{k}" for k in range(8)], dtype=object)
    a, b = ids[X[:, :8].nonzero()[1]], ids[X[:, 8:].nonzero()[1]]
    text = np.full((8, 8), "x", dtype=object)
    with pytest.raises((TypeError, ValueError), match="numeric"):
        leaderboard(model, text, ids, games=(a, b, y))
    long = np.array([f"{k}" + "n" * 999 for k in range(8)], dtype=object)
    table = leaderboard(model, items, long)
    fig = plot_leaderboard(table, head_to_head(model.estimator_, items, long, top=5))
    width, height = fig.get_size_inches()
    assert width < 40 and height < 25
    assert all(len(t.get_text()) <= 45 for t in fig.axes[0].get_yticklabels())
