"""Elo and Glicko against worked examples and a per-game reference loop."""

import numpy as np
import pytest

from svmcompare.ratings import Elo, Glicko, elo_expected, glicko_period


def test_glickman_worked_example():
    # Glickman (1999): a 1500 / RD 200 player beats 1400 / 30, loses to 1550 / 100
    # and to 1700 / 300 in one period -> about 1464 with RD about 151.4.
    rating = np.array([1500.0, 1400.0, 1550.0, 1700.0])
    rd = np.array([200.0, 30.0, 100.0, 300.0])
    new_r, new_rd = glicko_period(rating, rd, np.array([0, 0, 0]), np.array([1, 2, 3]),
                                  np.array([1.0, 0.0, 0.0]))
    assert new_r[0] == pytest.approx(1464, abs=0.5)
    assert new_rd[0] == pytest.approx(151.4, abs=0.05)
    # The same through the Glicko object: opponents' order and sides do not matter.
    glicko = Glicko(c=0.0)
    glicko.update(["me", "b", "c", "d"], ["x", "y", "z", "w"], [0.5] * 4, period=[0] * 4)
    glicko.rating_[:] = [1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500]
    index = glicko.players_
    for player, (r, d) in {"me": (1500, 200), "b": (1400, 30), "c": (1550, 100),
                           "d": (1700, 300)}.items():
        glicko.rating_[index[player]], glicko.rd_[index[player]] = r, d
    glicko.update(["me", "c", "me"], ["b", "me", "d"], [1.0, 1.0, 0.0], period=[1, 1, 1])
    assert glicko.ratings(["me"])[0] == pytest.approx(1464, abs=0.5)
    assert glicko.deviations(["me"])[0] == pytest.approx(151.4, abs=0.05)


def test_elo_hand_checked_updates():
    elo = Elo()
    before = elo.update(["a"], ["b"], [1.0], period=[0])
    assert before.loc[0, "rating1"] == before.loc[0, "rating2"] == 1200
    # E = 0.5 and K = 40 for new players: +-20.
    np.testing.assert_allclose(elo.ratings(["a", "b", "new"]), [1220, 1180, 1200])
    # Next period: a (1220) draws c (1200): E_a = 1 / (1 + 10^(-20/400)).
    e = 1 / (1 + 10 ** (-20 / 400))
    elo.update(["a"], ["c"], [0.5], period=[1])
    assert elo.ratings(["a"])[0] == pytest.approx(1220 + 40 * (0.5 - e))
    assert elo.ratings(["c"])[0] == pytest.approx(1200 + 40 * (e - 0.5))
    # FIDE's K: 20 after 30 games, 10 once 2400 is reached; 400-point rule.
    assert elo_expected(2400, 1000) == pytest.approx(1 / (1 + 10 ** -1))
    veteran = Elo(initial_rating=2390)
    veteran.update(["v"] * 30, [f"o{k}" for k in range(30)], [0.5] * 30, period=range(30))
    assert veteran.games_[veteran.players_["v"]] == 30
    veteran.update(["v"], ["w"], [1.0], period=[30])  # against a new 2390 player: K = 20
    assert veteran.ratings(["v"])[0] == pytest.approx(2390 + 20 * 0.5)
    e_v = elo_expected(2400, veteran.ratings(["o0"])[0])
    veteran.update(["v"], ["o0"], [0.0], period=[31])  # v reached 2400: K = 10
    assert veteran.ratings(["v"])[0] == pytest.approx(2400 - 10 * e_v)


def _reference_glicko(games, c=15.0):
    """Period by period, one player at a time, with Python loops (no vectorization)."""
    state = {}
    q = np.log(10) / 400

    def g(rd):
        return 1 / np.sqrt(1 + 3 * q ** 2 * rd ** 2 / np.pi ** 2)

    for period in sorted({p for *_, p in games}):
        now = [x for x in games if x[3] == period]
        start = {}
        for a, b, _, _ in now:
            for p in (a, b):
                r, rd, last = state.get(p, (1500.0, 350.0, period))
                start[p] = (r, min(np.sqrt(rd ** 2 + c ** 2 * (period - last)), 350.0))
        for p in start:
            r, rd = start[p]
            info = surprise = 0.0
            for a, b, s, _ in now:
                if p not in (a, b):
                    continue
                opp, score = (b, s) if p == a else (a, 1 - s)
                ro, rdo = start[opp]
                e = 1 / (1 + 10 ** (-g(rdo) * (r - ro) / 400))
                info += g(rdo) ** 2 * e * (1 - e)
                surprise += g(rdo) * (score - e)
            precision = 1 / rd ** 2 + q ** 2 * info
            state[p] = (r + q / precision * surprise, np.sqrt(1 / precision), period)
    return state


def test_glicko_matches_a_per_player_loop_and_records_pregame_state():
    rng = np.random.default_rng(0)
    players = [f"p{k}" for k in range(12)]
    games = [(a, b, s, p) for a, b, s, p in zip(
        rng.choice(players, 80), rng.choice(players, 80), rng.choice([0, 0.5, 1], 80),
        np.sort(rng.integers(0, 15, 80)), strict=True) if a != b]
    a, b, s, p = map(np.array, zip(*games, strict=True))
    glicko = Glicko()
    before = glicko.update(a, b, s, p)
    reference = _reference_glicko(games)
    last = max(p)
    for player, (r, rd, seen) in reference.items():
        assert glicko.ratings([player])[0] == pytest.approx(r, rel=1e-10)
        grown = min(np.sqrt(rd ** 2 + 15.0 ** 2 * (last - seen)), 350.0)
        assert glicko.deviations([player])[0] == pytest.approx(grown, rel=1e-10)
    # The state a game was played at never depends on its own period's results.
    first_period = p == p.min()
    assert np.all(before["rating1"][first_period] == 1500)
    assert np.all(before["rd1"][first_period] == 350)


def test_online_updates_equal_one_batch_and_validate():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 50, 2000), rng.integers(50, 100, 2000)
    s, p = rng.choice([0, 0.5, 1], 2000), np.sort(rng.integers(0, 40, 2000))
    for system in (Elo, Glicko):
        batch, online = system(), system()
        batch.update(a, b, s, p)
        for half in (p < 20, p >= 20):
            online.update(a[half], b[half], s[half], p[half])
        players = list(range(100))
        np.testing.assert_allclose(batch.ratings(players), online.ratings(players))
    with pytest.raises(ValueError, match="score must be 1"):
        Elo().update(["a"], ["b"], [2])
    with pytest.raises(ValueError, match="one entry per game"):
        Glicko().update(["a", "b"], ["b"], [1, 0])
    with pytest.raises(ValueError, match="before the last processed period"):
        g = Glicko()
        g.update(["a"], ["b"], [1], [5])
        g.update(["a"], ["b"], [1], [4])
    with pytest.raises(ValueError, match="k_factor"):
        Elo(k_factor=-3)


def test_a_missing_player_id_is_named():
    with pytest.raises(ValueError, match="player1 of game 1 is missing"):
        Elo().update(np.array([1.0, np.nan]), np.array([2.0, 1.0]), [1, 0])
    with pytest.raises(ValueError, match="player2 of game 0 is missing"):
        Glicko().update(["a"], [None], [1])
    with pytest.raises(ValueError, match=r"players\[1\] is missing"):
        Elo().ratings(["a", None])


def test_ids_of_two_dtypes_are_told_apart_as_dict_keys():
    elo = Elo()
    elo.update([1, 2], np.array(["1", "2"]), [1, 0])  # int 1 and text "1": two players
    np.testing.assert_allclose(elo.ratings([1, "1", 2, "2"]), [1220, 1180, 1180, 1220])


def test_unknown_players_get_the_initial_state_also_before_any_update():
    np.testing.assert_allclose(Elo(initial_rating=1000).ratings(["x", "y"]), [1000, 1000])
    glicko = Glicko(initial_rd=300)
    np.testing.assert_allclose(glicko.ratings(["x"]), [1500])
    np.testing.assert_allclose(glicko.deviations(["x"]), [300])
    np.testing.assert_allclose(glicko.deviations(["x"], period=3), [300])
    glicko.update(["a"], ["b"], [1], [0])
    np.testing.assert_allclose(glicko.deviations(["x"], period=3), [300])  # as after updates
    with pytest.raises(TypeError, match="list of player ids"):
        Elo().ratings("abc")


def test_a_game_against_oneself_is_refused():
    with pytest.raises(ValueError, match="game 1 is player 'a' against itself"):
        Glicko().update(["b", "a"], ["c", "a"], [1, 1])
    with pytest.raises(ValueError, match="against itself"):
        Elo().update([7], [7.0], [0.5])


@pytest.mark.parametrize("make, message", [
    (lambda: Elo(k_factor=float("inf")), "k_factor must be 'fide' or a finite positive"),
    (lambda: Elo(k_factor=True), "k_factor"),
    (lambda: Elo(k_factor="FIDE"), "k_factor"),
    (lambda: Elo(cap=float("nan")), "cap must be a finite positive"),
    (lambda: Elo(cap=0), "cap must be a finite positive"),
    (lambda: Elo(initial_rating=float("nan")), "initial_rating must be a finite number"),
    (lambda: Glicko(initial_rating=float("inf")), "initial_rating must be a finite number"),
    (lambda: Glicko(initial_rd=0), "initial_rd must be a finite number > 0"),
    (lambda: Glicko(c=float("nan")), "c must be a finite number >= 0"),
    (lambda: Glicko().deviations(["a"], period=float("nan")), "period must be a finite"),
])
def test_non_finite_parameters_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_deviations_are_not_asked_for_before_the_last_period():
    glicko = Glicko()
    glicko.update(["a"], ["b"], [1], [5])
    assert glicko.deviations(["a"], period=6)[0] > glicko.deviations(["a"])[0]
    with pytest.raises(ValueError, match="period 4 is before the last processed period 5"):
        glicko.deviations(["a"], period=4)


@pytest.mark.parametrize("system", ["Elo", "Glicko"])
def test_a_fixture_reads_the_state_of_its_period_and_changes_nothing(system):
    import svmcompare.ratings as ratings

    a, b = ["x", "y", "x", "z", "y"], ["y", "z", "z", "x", "x"]
    score, period = [1, 0.5, np.nan, 0, np.nan], [0, 0, 1, 1, 2]
    played = np.array([True, True, False, True, False])
    with_fixtures = getattr(ratings, system)().update(a, b, score, period, played=played)
    # The played games' states are as without the fixtures...
    plain = getattr(ratings, system)().update(np.array(a)[played], np.array(b)[played],
                                              np.array(score)[played], np.array(period)[played])
    np.testing.assert_array_equal(with_fixtures[played].to_numpy(), plain.to_numpy())
    # ... and the last fixture (period 2, after every played game) reads the final state.
    system_after = getattr(ratings, system)()
    system_after.update(np.array(a)[played], np.array(b)[played], np.array(score)[played],
                        np.array(period)[played])
    np.testing.assert_allclose(with_fixtures.iloc[4, :2].to_numpy(),
                               system_after.ratings(["y", "x"]))
    with pytest.raises(ValueError, match="score must be 1"):
        getattr(ratings, system)().update(a, b, score, period)  # NaN scores of played games
    with pytest.raises(ValueError, match="played must be 5 booleans"):
        getattr(ratings, system)().update(a, b, score, period, played=[1, 1, 0, 1, 0])


def test_a_period_of_fixtures_alone_does_not_move_glickos_clock():
    # Fixtures of later weeks go in before their results: the deviations are
    # read at the fixtures' period, and the results of an earlier period can
    # still come in afterwards (online updates).
    g = Glicko()
    state = g.update(["a", "b", "a", "c"], ["b", "c", "c", "b"], [1, 0.5, np.nan, np.nan],
                     [0, 1, 2, 3], played=np.array([True, True, False, False]))
    fresh = Glicko()
    fresh.update(["a", "b"], ["b", "c"], [1, 0.5], [0, 1])
    np.testing.assert_allclose(g.deviations(["a"]), fresh.deviations(["a"]))
    np.testing.assert_allclose(state.loc[3, "rd1"], fresh.deviations(["c"], period=3))
    g.update(["a"], ["c"], [1.0], [2])  # week 2's result, after the fixture of week 3
    fresh.update(["a"], ["c"], [1.0], [2])
    np.testing.assert_allclose(g.ratings(["a", "c"]), fresh.ratings(["a", "c"]))


@pytest.mark.parametrize("system", [Elo, Glicko])
def test_an_earlier_period_than_one_processed_is_refused(system):
    # Elo used to rate period 1's game after period 5's, in the wrong time order.
    rater = system()
    rater.update(["a"], ["b"], [1], [5])
    before = rater.ratings(["a", "b"])
    with pytest.raises(ValueError, match="period 1 is before the last processed period 5"):
        rater.update(["a", "b"], ["b", "c"], [1, 0], [6, 1])
    np.testing.assert_array_equal(rater.ratings(["a", "b"]), before)
    assert "c" not in rater.players_
    rater.update(["a"], ["b"], [0], [5])  # the same period again is still in order


@pytest.mark.parametrize("system, columns", [(Elo, ["rating1", "rating2", "games1", "games2"]),
                                             (Glicko, ["rating1", "rating2", "rd1", "rd2"])])
def test_an_update_without_games_changes_nothing(system, columns):
    rater = system()
    empty = rater.update([], [], [])
    assert len(empty) == 0 and sorted(empty.columns) == sorted(columns)
    rater.update(["a"], ["b"], [1], [3])
    before = rater.ratings(["a", "b"])
    assert len(rater.update([], [], [], [])) == 0
    np.testing.assert_array_equal(rater.ratings(["a", "b"]), before)


@pytest.mark.parametrize("system, step", [(Elo, "elo_period"), (Glicko, "glicko_period")])
def test_a_period_s_step_costs_its_own_players_only(system, step, monkeypatch):
    # Each period's step ran over every player: games x players in all.
    import svmcompare.ratings as ratings

    sizes = []
    original = getattr(ratings, step)

    def recorded(rating, *args, **kwargs):
        sizes.append(rating.shape[0])
        return original(rating, *args, **kwargs)

    monkeypatch.setattr(ratings, step, recorded)
    n = 200
    rater = system()
    rater.update(np.arange(n), np.arange(n) + n, np.ones(n), np.arange(n))
    assert sizes == [2] * n
    assert len(rater.players_) == 2 * n


def test_reaching_2400_does_not_depend_on_unrelated_earlier_games():
    # A player starting at 2400 has reached it; the flag was only set at the
    # end of a period it did not play, so an unrelated earlier game changed
    # its K-factor after 30 games (10 with it, 20 without).
    def final_rating(unrelated):
        players = [f"b{k}" for k in range(30)]
        first, second = ["a"] * 30 + ["a"], players + ["c"]
        period = [0] * 30 + [1]
        if unrelated:
            first, second, period = ["x"] + first, ["y"] + second, [-1] + period
        elo = Elo(initial_rating=2400)
        elo.update(first, second, np.zeros(len(first)), period)
        return elo.ratings(["a"])[0]

    assert final_rating(False) == final_rating(True)


@pytest.mark.parametrize("system", [Elo, Glicko])
def test_a_kept_reference_to_the_ratings_keeps_its_values(system):
    # A period's step writes its players in place: a reference kept before
    # a later update changed with it.
    model = system()
    model.update(["a"], ["b"], [1.0], period=[1])
    snapshot = model.rating_
    before = snapshot.copy()
    model.update(["a"], ["b"], [1.0], period=[2])
    np.testing.assert_array_equal(snapshot, before)
    assert not np.array_equal(model.rating_, before)
