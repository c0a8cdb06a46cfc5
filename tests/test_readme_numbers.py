"""The README's first real-data example: the three season-4 log-losses it
quotes, recomputed as it states them (issue 36, item 5)."""

import re
import warnings
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from svmcompare import SVMCompareCV, pairs_from_frame
from svmcompare.datasets import make_league
from svmcompare.metrics import outcome_log_loss

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_first_examples_log_losses_are_the_quoted_ones():
    quoted = re.search(r"On season 4 its log-loss is (\d\.\d{3}), against (\d\.\d{3}) for a "
                       r"multinomial logistic regression.*? and (\d\.\d{3}) for the class "
                       r"frequencies", README.read_text(), re.S)
    assert quoted, "the README no longer quotes the example's log-losses"
    matches, teams = make_league(random_state=0)
    data = pairs_from_frame(matches, teams, a="home", b="away", outcome="result",
                            context="home_adv", outcome_map={"H": -1, "D": 0, "A": 1})
    past = (matches["season"] < 4).to_numpy()
    X, y, context = data.X[past], data.y[past], data.context[past]
    Xt, yt, ct = data.X[~past], data.y[~past], data.context[~past]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate grid points warn during the search
        ours = SVMCompareCV(probability=True, cv=GroupKFold(3)).fit(
            X, y, context=context, groups=matches["season"][past])

    def design(pairs, ctx):
        return np.hstack([pairs[:, 1] - pairs[:, 0], ctx])

    logit = LogisticRegression(C=1.0, max_iter=10_000).fit(
        np.vstack([design(X, context), design(X[:, ::-1], -context)]), np.r_[y, -y])
    prior = np.array([np.mean(y == label) for label in (-1, 0, 1)])
    computed = (outcome_log_loss(yt, ours.predict_proba(Xt, ct)),
                outcome_log_loss(yt, logit.predict_proba(design(Xt, ct))),
                outcome_log_loss(yt, np.tile(prior, (yt.size, 1))))
    assert tuple(f"{value:.3f}" for value in computed) == quoted.groups()
