"""The public suite (issue 35): svmcompare's auto-tuned model against the peers, same matches.

Data: the sets of ``suite_data.py`` (fetch them first: ``python
benchmarks/suite_data.py fetch``; a set not in the cache is skipped) and the
shared sets of ``bench_real.py``.  Features as ``bench_real.py`` builds them:
leak-free history features (``games_features``: Elo, Glicko, counts and shares
of earlier results, and weighted means of earlier goals where the set has
them) with the positional advantage as context, and one-hot
identities when the ids are few (at most 400); identities alone where there
is no time (LLM judgments).  Splits by time or by group (suite_data.py);
every tuned model's folds keep the same groups together.

Models (``bench_real.py``'s, plus two):

* ``freq``, ``elo+ologit``, ``mlogit``, ``hgb``, ``svmcompare``: as bench_real.py;
* ``davidson``: a Davidson-Bradley-Terry model on the identities with an
  advantage term (ties as their own outcome; L2 penalty chosen by the same
  folds), fitted by maximum likelihood here;
* ``dixon-coles`` (sets with goals): the Dixon-Coles goals model of
  ``penaltyblog`` (a benchmark-only extra: ``pip install penaltyblog``) with
  its time decay (xi = 0.0018 a day), one model per league, refitted every 7
  days of the test period on every earlier game of the last five years, as
  the history features see them; a side without earlier games gets the mean
  attack and defence;
* ``market`` (football with odds): the bookmaker's probabilities, 1 / odds
  normalized, on the same matches: the reference, not a peer.

Prints test log-loss, Brier, accuracy, comparison AUC and fit seconds per
set, and ours minus the best non-market peer.

Usage: python benchmarks/bench_suite.py [--sets ...] [--csv results.csv]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.stats import poisson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_real  # noqa: E402
import suite_data  # noqa: E402
from svmcompare.datasets import games_features  # noqa: E402
from svmcompare.metrics import outcome_log_loss  # noqa: E402

MAX_ONE_HOT = 400


def set_features(data):
    """(X, y, context, has_elo) of a suite set, as bench_real.py builds them."""
    games = data.games
    ids = pd.unique(pd.concat([games["a"], games["b"]]))
    one_hot = bench_real.one_hot(games["a"], games["b"]) if ids.size <= MAX_ONE_HOT else None
    if data.history:
        points = ("score_a", "score_b") if "score_a" in games.columns else None
        X, y, context, _ = games_features(
            games, first="a", second="b", result="y", outcome_map={-1: -1, 0: 0, 1: 1},
            time="time", advantage="advantage", points=points)
        if one_hot is not None and data.identities:
            X = np.concatenate([X, one_hot], axis=2)
        return X, y, context, True
    y = games["y"].to_numpy()
    advantage = games["advantage"].to_numpy(dtype=float)
    context = advantage[:, None] if np.any(advantage) else None
    return one_hot, y, context, False


# -- Davidson-Bradley-Terry on identities -----------------------------------------


def _davidson_nll(params, a, b, adv, y, n_items, penalty):
    """Negative log-likelihood (and gradient) of Davidson's model with an
    advantage term: with s = theta_b - theta_a + eta adv, P(b) = e^{s/2} / Z,
    P(a) = e^{-s/2} / Z, P(tie) = nu / Z, Z = e^{s/2} + e^{-s/2} + nu."""
    theta, eta, tau = params[:n_items], params[n_items], params[n_items + 1]
    s = theta[b] - theta[a] + eta * adv
    up, down, nu = np.exp(s / 2), np.exp(-s / 2), np.exp(tau)
    z = up + down + nu
    loglik = np.where(y == 1, s / 2, np.where(y == -1, -s / 2, tau)) - np.log(z)
    d_s = np.where(y == 1, 0.5, np.where(y == -1, -0.5, 0.0)) - (up - down) / (2 * z)
    d_tau = (y == 0) - nu / z
    grad_theta = np.bincount(b, d_s, n_items) - np.bincount(a, d_s, n_items)
    value = -loglik.sum() + 0.5 * penalty * theta @ theta
    grad = -np.concatenate([grad_theta, [d_s @ adv, d_tau.sum()]])
    grad[:n_items] += penalty * theta
    return value, grad


def _davidson_fit(a, b, adv, y, n_items, penalty):
    start = np.zeros(n_items + 2)
    result = minimize(_davidson_nll, start, args=(a, b, adv, y, n_items, penalty), jac=True,
                      method="L-BFGS-B")
    return result.x


def _davidson_proba(params, a, b, adv, n_items):
    theta, eta, tau = params[:n_items], params[n_items], params[n_items + 1]
    s = theta[b] - theta[a] + eta * adv
    p = np.stack([np.exp(-s / 2), np.full_like(s, np.exp(tau)), np.exp(s / 2)], axis=1)
    return p / p.sum(axis=1, keepdims=True)


def davidson(data, train, test, folds):
    """Davidson-BT on the identities; the penalty chosen by log-loss over ``folds``."""
    games = data.games
    ids, codes = np.unique(np.concatenate([games["a"], games["b"]]), return_inverse=True)
    a, b = codes[:len(games)], codes[len(games):]
    adv, y = games["advantage"].to_numpy(dtype=float), games["y"].to_numpy()
    tr, te = np.flatnonzero(train), np.flatnonzero(test)
    best, best_loss = None, np.inf
    for penalty in (0.01, 0.1, 1.0, 10.0):
        losses = []
        for fit_rows, held_rows in folds:
            f, h = tr[fit_rows], tr[held_rows]
            params = _davidson_fit(a[f], b[f], adv[f], y[f], ids.size, penalty)
            losses.append(outcome_log_loss(y[h], _davidson_proba(params, a[h], b[h], adv[h],
                                                                 ids.size)))
        if np.mean(losses) < best_loss:
            best, best_loss = penalty, np.mean(losses)
    params = _davidson_fit(a[tr], b[tr], adv[tr], y[tr], ids.size, best)
    proba = _davidson_proba(params, a[te], b[te], adv[te], ids.size)
    return proba, None


# -- Dixon-Coles goals model (penaltyblog), refitted weekly ------------------------

DC_XI = 0.0018  # penaltyblog's default time decay, per day (half-life 385 days)
DC_WINDOW_DAYS = 5 * 365  # older games weigh < 4% and are left out for speed
REFIT_DAYS = 7
DC_MIN_GAMES = 50  # fewer earlier games in a league: no Dixon-Coles fit (frequencies instead)


def _dixon_coles_outcomes(lam, mu, rho, max_goals=15):
    """P(away side a wins), P(draw), P(home side b wins) of Dixon and Coles's
    model: independent Poisson goals with the low-score correction tau."""
    goals = np.arange(max_goals)
    grid = np.outer(poisson.pmf(goals, lam), poisson.pmf(goals, mu))  # home x away
    grid[0, 0] *= 1 - lam * mu * rho
    grid[0, 1] *= 1 + lam * rho
    grid[1, 0] *= 1 + mu * rho
    grid[1, 1] *= 1 - rho
    grid /= grid.sum()
    return np.triu(grid, 1).sum(), np.trace(grid), np.tril(grid, -1).sum()


def dixon_coles(data, train, test):
    """Test probabilities of penaltyblog's Dixon-Coles model, or None when the set
    has no goals or the package is missing."""
    if "score_a" not in data.games.columns:
        return None
    try:
        import penaltyblog
    except ImportError:
        print("dixon-coles: skipped, penaltyblog is not installed (pip install penaltyblog)",
              file=sys.stderr)
        return None
    games = data.games.assign(time=pd.to_datetime(data.games["time"]))
    played = games[["score_a", "score_b"]].notna().all(axis=1).to_numpy()
    at = np.flatnonzero(test)
    start = games["time"].iloc[at].min()
    week = ((games["time"].iloc[at] - start).dt.days // REFIT_DAYS).to_numpy()
    proba = np.empty((at.size, 3))
    leagues = games["league"] if "league" in games.columns else pd.Series("", games.index)
    failed = fits = early = 0
    y_train = games["y"].to_numpy()[train]
    frequencies = np.bincount(y_train + 1, minlength=3) / y_train.size
    for league in leagues.unique():  # one model per league: its teams never meet others
        own = (leagues == league).to_numpy()
        params = None
        for w in np.unique(week[own[at]]):
            rows = at[(week == w) & own[at]]
            day = games["time"].iloc[rows].min()
            past = own & played & (games["time"] < day).to_numpy() & (
                games["time"] >= day - pd.Timedelta(days=DC_WINDOW_DAYS)).to_numpy()
            fit = games[past]
            if len(fit) < DC_MIN_GAMES:  # a league new to the files: no model yet
                early += rows.size
                for r in rows:
                    proba[np.searchsorted(at, r)] = frequencies
                continue
            weights = penaltyblog.models.dixon_coles_weights(fit["time"], xi=DC_XI,
                                                             base_date=day)
            model = penaltyblog.models.DixonColesGoalModel(
                fit["score_b"].astype(int), fit["score_a"].astype(int), fit["b"], fit["a"],
                weights=weights)
            fits += 1
            try:
                model.fit(minimizer_options={"maxiter": 5000})
                params = _dixon_coles_params(model.get_params())
            except ValueError:  # the optimizer did not converge: keep last week's model
                failed += 1
                if params is None:
                    raise
            for r in rows:
                proba[np.searchsorted(at, r)] = _dixon_coles_row(params, games["b"].iloc[r],
                                                                 games["a"].iloc[r])
    if early:
        print(f"dixon-coles: {early} test games of leagues with fewer than {DC_MIN_GAMES} "
              "earlier games got the training pairs' outcome frequencies", file=sys.stderr)
    if failed:
        print(f"dixon-coles: {failed} of {fits} weekly fits did not converge; their weeks "
              "used the week before's model", file=sys.stderr)
    return proba


def _dixon_coles_params(fitted):
    """A fit's parameters once per fit: attack and defence by team, their means
    (the prior of a side without earlier games), home advantage and rho."""
    attack = {k[7:]: v for k, v in fitted.items() if k.startswith("attack_")}
    defence = {k[8:]: v for k, v in fitted.items() if k.startswith("defence_")}
    return {"attack": attack, "defence": defence, "mean_attack": np.mean(list(attack.values())),
            "mean_defence": np.mean(list(defence.values())),
            "home_advantage": fitted["home_advantage"], "rho": fitted["rho"]}


def _dixon_coles_row(params, home, away):
    """Outcome probabilities of one match from :func:`_dixon_coles_params`."""
    attack, defence = params["attack"], params["defence"]
    lam = np.exp(params["home_advantage"] + attack.get(home, params["mean_attack"])
                 + defence.get(away, params["mean_defence"]))
    mu = np.exp(attack.get(away, params["mean_attack"])
                + defence.get(home, params["mean_defence"]))
    return _dixon_coles_outcomes(lam, mu, params["rho"])


# -- the run ----------------------------------------------------------------------

YOUNG = 10  # a side with fewer earlier games than this is new or young (cold starts)


def young_games(games):
    """Whether a side of each game has fewer than YOUNG earlier games in the table
    (rows in time order: a game's earlier games are the rows above it)."""
    ids = np.column_stack([games["a"].to_numpy(), games["b"].to_numpy()]).ravel()
    before = pd.Series(ids).groupby(ids).cumcount().to_numpy().reshape(-1, 2)
    return (before < YOUNG).any(axis=1)


def _row(base, model, y, proba, score, young):
    row = {**base, "model": model, **bench_real.scores(y, proba, score)}
    if young is not None and young.any():
        row["n_young"] = int(young.sum())
        row["log_loss_young"] = outcome_log_loss(y[young], proba[young])
        row["log_loss_rest"] = outcome_log_loss(y[~young], proba[~young])
    return row


def suite_sets(names):
    for name in names:
        if name in suite_data.LOADERS:
            if not suite_data.available(name):
                print(f"{name}: skipped, not in {suite_data.CACHE} (python "
                      "benchmarks/suite_data.py fetch)", file=sys.stderr)
                continue
            data = suite_data.LOADERS[name]()
            X, y, context, has_elo = set_features(data)
            groups = data.games["group"].to_numpy()
            yield name, data.kind, data, X, y, context, data.train, data.test, has_elo, groups
        else:
            load, folder = bench_real.SETS[name]
            if folder is not None and not (bench_real.DATA / folder).is_dir():
                print(f"{name}: skipped, {bench_real.DATA / folder} not found", file=sys.stderr)
                continue
            X, y, context, train, test, has_elo, groups = load(False)
            yield name, "shared", None, X, y, context, train, test, has_elo, groups


def run(names, progress=True):
    rows = []
    for name, kind, data, X, y, context, train, test, has_elo, groups in suite_sets(names):
        folds = bench_real.group_folds(groups[train])
        base = {"data": name, "kind": kind, "n_train": int(train.sum()),
                "n_test": int(test.sum()), "ties": float(np.mean(y[test] == 0))}
        young = None if data is None or not data.history else young_games(data.games)[test]
        for model_name, proba, score, seconds, chosen in bench_real.fitted_models(
                name, X, y, context, train, test, has_elo, folds, progress):
            rows.append({**_row(base, model_name, y[test], proba, score, young),
                         "fit_s": seconds, "chosen": chosen})
        if data is not None:
            start = time.perf_counter()
            proba, _ = davidson(data, train, test, folds)
            rows.append({**_row(base, "davidson", y[test], proba, None, young),
                         "fit_s": time.perf_counter() - start})
            start = time.perf_counter()
            proba = dixon_coles(data, train, test)
            if proba is not None:
                rows.append({**_row(base, "dixon-coles", y[test], proba, None, young),
                             "fit_s": time.perf_counter() - start})
            if "p_a" in data.games.columns:
                market = data.games.loc[test, ["p_a", "p_tie", "p_b"]].to_numpy()
                rows.append({**_row(base, "market", y[test], market, None, young),
                             "fit_s": 0.0})
    return pd.DataFrame(rows)


def report(table):
    lines = []
    for name, block in table.groupby("data", sort=False):
        first = block.iloc[0]
        lines.append(f"\n{name} ({first.kind}): {first.n_train} training pairs, "
                     f"{first.n_test} test pairs, {first.ties:.1%} ties in test")
        lines += bench_real.table_lines(block)
        peers = block[~block.model.isin(["svmcompare", "freq", "market"])]
        ours = block[block.model == "svmcompare"].iloc[0]
        best = peers.loc[peers.log_loss.idxmin()]
        line = (f"svmcompare - best peer ({best.model}): log-loss "
                f"{ours.log_loss - best.log_loss:+.4f}")
        market = block[block.model == "market"]
        if len(market):
            line += f"; - market {ours.log_loss - market.iloc[0].log_loss:+.4f}"
        lines.append(line + f"; chosen {ours.chosen}")
        if "n_young" in block and block["n_young"].notna().any():
            each = ", ".join(f"{r.model} {r.log_loss_young:.4f} / {r.log_loss_rest:.4f}"
                             for r in block.itertuples() if r.model != "freq")
            lines.append(f"{int(ours.n_young)} test games with a side of fewer than {YOUNG} "
                         f"earlier games, log-loss there / on the others: {each}")
    return "\n".join(lines)


def main(argv=None):
    names = [*suite_data.LOADERS, "football", "icehockey", "chess", "sushi"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=names, choices=names)
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args(argv)
    table = run(args.sets)
    print(report(table))
    if args.csv:
        table.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
