"""The squared hinge refitted as rows arrive (solvers/incremental.py): each add
must give the minimizer of the problem of every row so far, checked by the
gradient of F computed densely here and against a cold solve of all rows."""

import numpy as np
import pytest
import scipy.sparse as sp

from svmcompare.solvers import incremental
from svmcompare.solvers.incremental import SquaredHingeIncrement
from svmcompare.solvers.newton_cg import solve_squared_hinge_cg


def id_rows(rng, n_ids, m, strength):
    """Flipped rows of games between ids (the winner's side +1), with draws
    as two rows labelled -1, as eq. (8) makes them; group 0 decided, 1 ties."""
    a = rng.integers(0, n_ids, m)
    b = (a + rng.integers(1, n_ids, m)) % n_ids
    gap = strength[b] - strength[a] + rng.logistic(size=m)
    outcome = np.where(gap > 0.6, 1, np.where(gap < -0.6, -1, 0))
    rows = np.arange(m)
    D = sp.csr_matrix((np.r_[-np.ones(m), np.ones(m)], (np.r_[rows, rows], np.r_[a, b])),
                      shape=(m, n_ids))
    decided = outcome != 0
    oriented = sp.diags(outcome[decided].astype(float)) @ D[decided]
    ties = D[~decided]
    rows_all = sp.vstack([oriented, ties, -ties], format="csr")
    y = np.r_[np.ones(decided.sum()), -np.ones(2 * ties.shape[0])]
    group = np.r_[np.zeros(decided.sum(), dtype=int), np.ones(2 * ties.shape[0], dtype=int)]
    return rows_all, y, group


def dense_gradient(D, y, C, u, beta):
    """The gradient of F = 1/2 |u|^2 + sum C max(0, 1 - y (beta + u^T d))^2."""
    D = D.toarray() if sp.issparse(D) else D
    slack = np.maximum(0.0, 1.0 - y * (D @ u + beta))
    weight = -2.0 * C * y * slack
    return np.r_[u + D.T @ weight, weight.sum()]


def check_minimizer(result, D, y, C, tol=1e-3):
    gradient = dense_gradient(D, y, C, result.u, result.bias)
    zero = dense_gradient(D, y, C, np.zeros(D.shape[1]), 0.0)
    assert np.linalg.norm(gradient) <= 1e-5 * tol * np.linalg.norm(zero) * 1.001
    cold = solve_squared_hinge_cg(D, y, C, tol=1e-6)
    assert result.objective == pytest.approx(cold.objective, rel=1e-10)
    np.testing.assert_allclose(result.u, cold.u, atol=1e-5)


@pytest.mark.parametrize("dense_max", [incremental.DENSE_MAX, 5])
def test_each_add_is_the_minimizer_of_every_row_so_far(monkeypatch, dense_max):
    monkeypatch.setattr(incremental, "DENSE_MAX", dense_max)  # 5: the sparse path
    rng = np.random.default_rng(0)
    strength = rng.normal(size=40)
    increment = SquaredHingeIncrement(n_groups=2)
    D_all, y_all, C_all = [], [], []
    for week, m in enumerate([600, 30, 30, 400, 1]):
        D, y, group = id_rows(rng, 40, m, strength)
        C = rng.uniform(0.5, 2.0, y.size)
        result = increment.add(D, y, C, group)
        D_all.append(D), y_all.append(y), C_all.append(C)
        if week:
            assert increment.rounds >= 1 and result.n_iter == increment.rounds  # no full solve
        check_minimizer(result, sp.vstack(D_all), np.concatenate(y_all),
                        np.concatenate(C_all))
        assert result.alpha.size == sum(v.size for v in y_all)


def test_scaled_groups_are_the_problem_with_scaled_costs():
    """A time decay (every earlier row) and new class weights (per group)."""
    rng = np.random.default_rng(1)
    strength = rng.normal(size=25)
    D1, y1, g1 = id_rows(rng, 25, 500, strength)
    D2, y2, g2 = id_rows(rng, 25, 60, strength)
    increment = SquaredHingeIncrement(n_groups=2)
    increment.add(D1, y1, np.ones(y1.size), g1)
    factor = np.array([0.7, 1.9])
    result = increment.add(D2, y2, np.ones(y2.size), g2, scale=factor)
    assert increment.rounds >= 1
    C = np.r_[factor[g1], np.ones(y2.size)]
    check_minimizer(result, sp.vstack([D1, D2]), np.r_[y1, y2], C)
    # A zero factor leaves the earlier rows out.
    D3, y3, g3 = id_rows(rng, 25, 200, strength)
    result = increment.add(D3, y3, np.ones(y3.size), g3, scale=0.0)
    check_minimizer(result, sp.vstack([D1, D2, D3]), np.r_[y1, y2, y3],
                    np.r_[np.zeros(y1.size + y2.size), np.ones(y3.size)])


def test_a_large_batch_that_turns_many_rows_and_no_bias():
    rng = np.random.default_rng(2)
    strength = rng.normal(size=15)
    D1, y1, _ = id_rows(rng, 15, 100, strength)
    D2, y2, _ = id_rows(rng, 15, 3000, -strength)  # the order reversed
    increment = SquaredHingeIncrement(bias=False)
    increment.add(D1, y1, np.ones(y1.size))
    result = increment.add(D2, y2, np.ones(y2.size))
    assert result.bias == 0.0 and increment.rounds > 1  # rows turned, and rounds did it
    D, y = sp.vstack([D1, D2]), np.r_[y1, y2]
    slack = np.maximum(0.0, 1.0 - y * (D @ result.u))
    gradient = result.u + D.T @ (-2.0 * y * slack)
    zero = D.T @ (-2.0 * y)
    assert np.linalg.norm(gradient) <= 1e-8 * np.linalg.norm(zero) * 1.001
    cold = solve_squared_hinge_cg(D, y, np.ones(y.size), bias=False, tol=1e-6)
    assert result.objective == pytest.approx(cold.objective, rel=1e-10)


def test_rounds_that_run_out_hand_over_to_the_full_solver(monkeypatch):
    monkeypatch.setattr(incremental, "MAX_ROUNDS", 1)
    rng = np.random.default_rng(3)
    strength = rng.normal(size=20)
    D1, y1, _ = id_rows(rng, 20, 300, strength)
    D2, y2, _ = id_rows(rng, 20, 2000, -strength)
    increment = SquaredHingeIncrement()
    increment.add(D1, y1, np.ones(y1.size))
    result = increment.add(D2, y2, np.ones(y2.size))
    assert increment.rounds == 0  # the full solve ran
    check_minimizer(result, sp.vstack([D1, D2]), np.r_[y1, y2], np.ones(y1.size + y2.size))
    # ... and the state it left serves the next add.
    D3, y3, _ = id_rows(rng, 20, 50, -strength)
    monkeypatch.setattr(incremental, "MAX_ROUNDS", 50)
    result = increment.add(D3, y3, np.ones(y3.size))
    assert increment.rounds >= 1
    check_minimizer(result, sp.vstack([D1, D2, D3]), np.r_[y1, y2, y3],
                    np.ones(y1.size + y2.size + y3.size))


def test_dense_rows_and_an_empty_batch():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 6))
    y = np.where(X @ np.arange(1.0, 7.0) + rng.normal(size=400) > 0, 1.0, -1.0)
    increment = SquaredHingeIncrement()
    increment.add(X[:300], y[:300], np.ones(300))
    result = increment.add(X[300:], y[300:], np.ones(100))
    assert increment.rounds >= 1
    check_minimizer(result, X, y, np.ones(400))
    same = increment.add(np.zeros((0, 6)), np.zeros(0), np.zeros(0))
    np.testing.assert_allclose(same.u, result.u, atol=1e-12)


@pytest.mark.parametrize("change, message", [
    (dict(D=np.ones((3, 5))), "columns"),
    (dict(y=np.array([1.0, 0.0, 1.0])), "-1 and 1"),
    (dict(C=np.array([1.0, -1.0, 1.0])), "C must be"),
    (dict(C=np.array([1.0, np.nan, 1.0])), "C must be"),
    (dict(group=np.array([0, 2, 0])), "group"),
    (dict(y=np.ones(2)), "shape"),
    (dict(scale=-1.0), "scale"),
    (dict(scale=np.inf), "scale"),
    (dict(group=np.array([0.0, 0.5, 1.0])), "whole numbers"),  # not truncated to 0
    (dict(D=np.ones(3)), "matrix of rows"),
    (dict(D=np.array([[0.0, 1, 0, 0], [np.nan, 0, 0, 0], [0, 0, 1, 0]])), "finite"),
])
def test_bad_input_is_named(change, message):
    increment = SquaredHingeIncrement(n_groups=2)
    increment.add(np.eye(4)[[0, 1, 2]] - np.eye(4)[[1, 2, 3]], np.ones(3), np.ones(3))
    args = dict(D=np.eye(4)[:3], y=np.ones(3), C=np.ones(3), group=None, scale=None)
    args.update(change)
    with pytest.raises(ValueError, match=message):
        increment.add(**args)


def test_rows_as_lists_and_bad_settings():
    """Rows given as nested lists are rows (not an AttributeError); a tolerance
    that cannot stop the rounds, or no groups, is refused at construction."""
    increment = SquaredHingeIncrement()
    result = increment.add([[1.0, -1.0], [0.0, 1.0]], [1.0, -1.0], [1.0, 1.0])
    assert np.all(np.isfinite(result.u))
    for tol in (0.0, -1.0, np.nan, np.inf, "1e-3", 10 ** 400, 1j):
        with pytest.raises(ValueError, match="tol"):
            SquaredHingeIncrement(tol=tol)
    for n_groups in (0, 1.5, True):
        with pytest.raises(ValueError, match="n_groups"):
            SquaredHingeIncrement(n_groups=n_groups)


def test_complex_rows_are_refused():
    increment = SquaredHingeIncrement()
    with pytest.raises(TypeError, match="real"):
        increment.add(np.eye(3) * (1 + 1j), np.ones(3), np.ones(3))
    with pytest.raises(TypeError, match="real"):
        increment.add(sp.csr_matrix(np.eye(3) * 1j), np.ones(3), np.ones(3))
