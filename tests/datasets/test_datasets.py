import numpy as np
import pytest

from svmcompare.datasets import latent_rank, make_norm_pairs


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
def test_exact_label_counts_and_shapes(norm, fraction):
    X, y = make_norm_pairs(101, norm, equality_fraction=fraction, random_state=0)
    assert X.shape == (101, 2, 2) and y.shape == (101,)
    assert np.count_nonzero(y == 0) == round(101 * fraction)
    assert {-1, 1} <= set(np.unique(y)) | {-1, 1} and set(np.unique(y)) <= {-1, 0, 1}
    assert np.all(np.abs(X[:, 0]) <= 2)


@pytest.mark.parametrize("norm, lo, hi", [("l2", -1, 0.5), ("l1", -0.5, 0.5), ("linf", -1, 1)])
def test_steps_and_noiseless_labels(norm, lo, hi):
    X, y = make_norm_pairs(500, norm, noise=0.0, random_state=1)
    delta = X[:, 1] - X[:, 0]
    assert delta.min() >= lo and delta.max() <= hi
    d = latent_rank(X[:, 1], norm) - latent_rank(X[:, 0], norm)
    np.testing.assert_array_equal(y, np.where(d > 1, 1, np.where(d < -1, -1, 0)))


def test_latent_rank_closed_forms():
    Z = np.array([[1.0, -2.0], [0.5, 0.5]])
    np.testing.assert_allclose(latent_rank(Z, "l2"), [5.0, 0.5])
    np.testing.assert_allclose(latent_rank(Z, "l1"), [9.0, 1.0])
    np.testing.assert_allclose(latent_rank(Z, "linf"), [4.0, 0.25])


def test_deterministic_given_random_state():
    a = make_norm_pairs(50, random_state=3)
    b = make_norm_pairs(50, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("kwargs", [{"n_pairs": 0}, {"n_pairs": 5, "norm": "l3"},
                                    {"n_pairs": 5, "equality_fraction": 1.5},
                                    {"n_pairs": 5, "noise": -1.0}])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        make_norm_pairs(**kwargs)


def test_linear_pairs_are_labeled_by_the_scaled_rank_away_from_the_threshold():
    from svmcompare.datasets import make_linear_pairs

    X, y = make_linear_pairs(500, weights=(1.0, 3.0), scales=(2.0, 0.1), gap=0.25,
                             random_state=0)
    d = (X[:, 1] - X[:, 0]) @ np.array([1.0 / 2.0, 3.0 / 0.1])
    assert np.all(np.abs(np.abs(d) - 1) > 0.25)
    np.testing.assert_array_equal(y, np.where(d > 1, 1, np.where(d < -1, -1, 0)))
    assert set(np.unique(y)) == {-1, 0, 1} and 0 < len(y) < 500


def test_make_league_has_draws_home_advantage_and_drawish_teams():
    from svmcompare.datasets import make_league

    matches, teams = make_league(n_teams=12, n_seasons=6, random_state=3)
    assert len(matches) == 12 * 11 * 6 and list(teams["id"]) == sorted(teams["id"])
    shares = matches["result"].value_counts(normalize=True)
    assert 0.15 < shares["D"] < 0.4  # draws come from equal goals
    home = matches["home_adv"] == -1
    assert shares["H"] > shares["A"]  # the venue's advantage
    assert (matches.loc[home, "result"] == "H").mean() > \
        (matches.loc[~home, "result"] == "H").mean() - 0.05
    # Two defensive teams draw more often than two attacking ones.
    style = teams.set_index("id")["style"]
    calm = style[matches["home"]].to_numpy() + style[matches["away"]].to_numpy()
    draws = (matches["result"] == "D").to_numpy()
    assert draws[calm > np.quantile(calm, 0.75)].mean() > \
        draws[calm < np.quantile(calm, 0.25)].mean() + 0.05
    # Deterministic given random_state.
    again, _ = make_league(n_teams=12, n_seasons=6, random_state=3)
    assert again.equals(matches)
    with pytest.raises(ValueError, match="n_teams"):
        make_league(n_teams=1)
