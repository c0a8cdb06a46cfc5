"""Every fit at the defaults meets its tolerance, or says loudly that it did not.

A grid over kernels, C, gamma and class weights on small seeded problems: each
fit of SVMCompare (solver="auto") either converged, with the objective of an
interior-point solve of the same dual (18) built from the paper's definitions,
or raised a ConvergenceWarning and set ``converged_ = False``.  A deliberately
hopeless exact fit (a low-rank kernel at huge C) must do the latter, with
advice, within its step budget.
"""

import itertools
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmcompare import SVMCompare

from .reference.dense import (
    dual_objective,
    flipped_from_definition,
    ktilde_from_definition,
    solve_dual_reference,
)

KERNELS = {
    "linear": lambda g: (lambda A, B: A @ B.T),
    "poly": lambda g: (lambda A, B: (g * A @ B.T + 1.0) ** 3),
    "rbf": lambda g: (lambda A, B: np.exp(-g * ((A[:, None] - B[None]) ** 2).sum(-1))),
    "laplacian": lambda g: (lambda A, B: np.exp(-g * np.sqrt(((A[:, None] - B[None]) ** 2)
                                                            .sum(-1)))),
}


def _pairs(seed):
    rng = np.random.default_rng(seed)
    n, p = 90, 3
    Xi = rng.normal(size=(n, p))
    Xip = Xi + rng.normal(scale=0.7, size=(n, p))
    d = (Xip**2).sum(1) - (Xi**2).sum(1) + rng.normal(scale=0.5, size=n)
    return np.stack([Xi, Xip], 1), np.where(d > 1, 1, np.where(d < -1, -1, 0))


def _reference_objective(model, X, y, kernel, gamma, C, class_weight):
    """min of the dual (18) on the model's standardized pairs, by Clarabel."""
    Xs = model.scaler_.transform_pairs(X)
    Xt, Xtp, yt = flipped_from_definition(Xs[:, 0], Xs[:, 1], y)
    Q = ktilde_from_definition(Xt, Xtp, KERNELS[kernel](gamma)) * np.outer(yt, yt)
    weights = {1: 1.0, -1: 1.0}
    if class_weight == "balanced":
        weights = {s: len(yt) / (2.0 * np.count_nonzero(yt == s)) for s in (1, -1)}
    Cvec = C * np.where(yt > 0, weights[1], weights[-1])
    return dual_objective(solve_dual_reference(Q, yt, Cvec), Q)


GRID = [(k, C, g, cw) for k, C, g, cw in itertools.product(
    KERNELS, [1e-3, 1.0, 1e3, 1e5], [2.0**-7, 1.0, 16.0], [None, "balanced"])
    if not (k == "linear" and g != 1.0)]


@pytest.mark.parametrize("kernel, C, gamma, class_weight", GRID)
def test_every_default_fit_converges_to_the_reference_or_says_so(kernel, C, gamma,
                                                                  class_weight):
    X, y = _pairs(0)
    model = SVMCompare(kernel=kernel, C=C, gamma=gamma, class_weight=class_weight)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.fit(X, y)
        except ValueError as exc:  # NoRankingError: a clear refusal, not a bad fit
            assert "beta" in str(exc)
            return
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert warned == (not model.converged_)
    if not model.converged_:
        return
    reference = _reference_objective(model, X, y, kernel, gamma, C, class_weight)
    if model.solver_ == "exact":
        assert model.kkt_violation_ < model.tol
        ours = model.dual_objective_
    else:  # primal on exact features: strong duality, P* = -D*
        ours = -model.primal_objective_
    assert ours == pytest.approx(reference, rel=1e-4, abs=1e-9)


def test_low_rank_polynomial_kernels_go_to_the_primal_solver():
    X, y = _pairs(1)
    model = SVMCompare(kernel="poly", gamma=16.0, C=1e5).fit(X, y)
    assert model.solver_ == "nystroem" and model.converged_
    # The exact feature map reproduces the kernel: the same model as SMO where
    # SMO converges (small C).
    small = dict(kernel="poly", gamma=1.0, C=0.1)
    primal = SVMCompare(**small).fit(X, y)
    exact = SVMCompare(**small, solver="exact", tol=1e-8).fit(X, y)
    assert primal.solver_ == "nystroem" and exact.solver_ == "exact"
    np.testing.assert_allclose(primal.decision_function(X), exact.decision_function(X),
                               rtol=1e-3, atol=1e-3)


def test_hopeless_exact_fit_warns_with_advice_and_records_it():
    X, y = _pairs(2)
    # Stopped before SMO's first Newton step on the free variables (after m,
    # at least 1,000, steps), which can rescue even this fit.
    model = SVMCompare(kernel="poly", gamma=16.0, C=1e5, solver="exact", max_iter=900)
    with pytest.warns(ConvergenceWarning, match=r"kernel is low-rank: solver='nystroem'"):
        model.fit(X, y)
    assert model.converged_ is False and model.n_iter_ == 900
    # An RBF fit is told of C and gamma, not of low-rank kernels or of a
    # solver='auto' it already has (an attack, stop 70).
    with pytest.warns(ConvergenceWarning) as caught:
        SVMCompare(gamma=16.0, C=1e5, solver="exact", max_iter=50).fit(X, y)
    text = " ".join(str(w.message) for w in caught if w.category is ConvergenceWarning)
    assert "Lower C or gamma" in text and "low-rank" not in text and "solver=" not in text
