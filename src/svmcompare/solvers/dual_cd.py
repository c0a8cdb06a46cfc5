"""Dual coordinate descent for the linear problem on sparse difference rows.

The problem is the one of :mod:`solvers.linear`, eq. (15) with a linear kernel
on the rows d_t = x~'_t - x~_t of the flipped data (eq. 8):

    minimize_{u, beta}  1/2 ||u||^2 + sum_t C_t max(0, 1 - y_t (beta + u^T d_t)),

solved through its dual (eq. 18 with K the linear kernel):

    minimize_alpha  1/2 ||sum_t alpha_t y_t d_t||^2 - sum_t alpha_t
    subject to      0 <= alpha_t <= C_t,  sum_t y_t alpha_t = 0,

keeping u = sum_t alpha_t y_t d_t (eq. 17) up to date.  Sparse rows (ids: two
non-zeros a game) make one coordinate step O(non-zeros of the row), so a pass
over a million games takes milliseconds and no p x p system is ever formed:
this is the solver of identities at scale.

The free bias beta is what the one-variable steps of Hsieh et al. (ICML 2008,
"A dual coordinate descent method for large-scale linear SVM") cannot keep:
the equality constraint ties every alpha together.  It is handled by the
method of multipliers: minimize, over the box only, the augmented dual

    1/2 ||u||^2 - sum_t alpha_t + lambda s + rho / 2 s^2,   s = sum_t y_t alpha_t,

whose coordinate steps see the bias beta = lambda + rho s (the gradient in
alpha_t is y_t (u^T d_t + beta) - 1, the hinge's margin violation), then set
lambda to that beta and repeat.  In the primal each round is a proximal step
on beta (the term (beta - lambda)^2 / (2 rho) added to eq. 15), so rounds
converge for any rho > 0; a round ends when the projected gradients of all
coordinates are within ``tol`` (Hsieh et al.'s stopping rule, with their
shrinking of bound variables), the whole solve when beta moves by less than
``tol``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ..exceptions import named_fit
from ._bias import choose_bias, primal_bias_interval, squared_hinge_bias
from ._linear_core import dual_cd_round
from .csr_products import dense_csr
from .linear import LinearResult, check_count, check_loss, check_rows, solve_linear
from .newton_cg import solve_squared_hinge_cg
from .threads import solver_threads

# The order of the coordinates in a pass is a fixed pseudo-random permutation
# (xorshift64*, seeded per round; _linear_core.dual_cd_round), so that fits are
# reproducible on any machine.
_SEED = 0x9E3779B97F4A7C15


# Dual coordinate descent needs more passes the weaker the regularization: its
# work grows with C_t ||d_t||^2 (the scale of a step against the box).  On
# simulated ids (1,000 players x 20,000 games, ||d_t||^2 = 2) C = 1 / 100 /
# 1,000 took 597 / 4,020 / 37,415 passes (0.03 / 0.46 / 6.9 s), the primal
# Newton method 1.4 / 2.3 s at the first two.  Above this mean of C_t ||d_t||^2
# the primal Newton method (solvers.linear) is the one to use.
DUAL_CD_MAX_COST = 200.0
# Coordinate-descent passes over dense rows, per column, before the Newton
# method takes over (a pass costs O(m p), a Newton step O(m p^2); Newton
# needs 30-200 steps: on ice hockey, 709 rows x 77 columns with unbalanced
# labels at C <= 1e-3, coordinate descent needed 7,000-46,000 passes, up to
# 1.2 s against Newton's 0.03 s).
DENSE_CD_PASSES_PER_COLUMN = 20
# ... and at most this many full passes' work (entries of the rows visited:
# shrinking leaves most rows out of most passes).  A Newton step costs about
# one to two full passes (its Hessian over the zone's rows by BLAS, its
# products and line search over every row), and the method needs 70-260
# steps; the passes alone let coordinate descent run ten times as long where
# shrinking fails: the plain RBF point's Nystroem rows (20,731 x 101, gamma =
# 1 on 237 features) took 2,020 passes, 12.2 s unconverged, then Newton 1.2-3.0 s;
# with this cap 352 passes, 1.8 s.
DENSE_CD_FULL_PASSES = 200


def dual_cd_suits(D, C):
    """Whether :func:`solve_linear_dual` is the solver for rows ``D`` (sparse
    or dense) with costs ``C``: the mean of C_t ||d_t||^2 over the rows with
    C_t > 0 is at most :data:`DUAL_CD_MAX_COST`."""
    if sp.issparse(D):
        D = sp.csr_matrix(D)
        norms = np.asarray(D.multiply(D).sum(axis=1)).ravel()
    else:
        norms = np.einsum("ij,ij->i", D, D)
    C = np.asarray(C, dtype=np.float64)
    weighted = C > 0
    return bool(weighted.any()) and float(np.mean(C[weighted] * norms[weighted])) \
        <= DUAL_CD_MAX_COST


def _csr(D):
    """``D`` as a canonical CSR matrix of float64 (what the coordinate passes read)."""
    if not sp.issparse(D):
        D = np.asarray(D)  # float32 (Nystroem's rows) as it is: a path keeps its copy
        if D.dtype not in (np.float32, np.float64):
            D = D.astype(np.float64)
        if D.ndim == 2:
            return dense_csr(D)
    D = sp.csr_matrix(D, dtype=np.float64)
    D.sum_duplicates()
    return D


def _start(D, y, C, alpha0):
    """alpha0 clipped into this problem's box (a fold's rows left out have
    C = 0), and its u = sum_t alpha_t y_t d_t (eq. 17)."""
    if alpha0 is None:
        return np.zeros(y.size), np.zeros(D.shape[1])
    alpha = np.clip(np.asarray(alpha0, dtype=np.float64), 0.0, C)
    return alpha, np.asarray(D.T @ (alpha * y)).ravel()


def _exact_bias(scores, y, cost, loss):
    """The beta minimizing the exact loss with u fixed (fitted values
    ``scores``, rows with C_t > 0): over an interval for the hinge (the point
    of it the other solvers take), at one point for the squared hinge
    (solvers/_bias.py); None without such rows."""
    kept = cost > 0
    if not kept.any():
        return None
    if loss == "squared_hinge":
        return squared_hinge_bias(scores[kept], y[kept], cost[kept])
    return choose_bias(*primal_bias_interval(scores[kept], y[kept], cost[kept]))


def _margin_bias(scores, y, cost, loss):
    """The multipliers' beta for fitted values ``scores``: while every
    |u^T d_t| is under the margin 1 (small C), the best beta given u
    (:func:`_exact_bias`), else None (the last beta stays).

    Small fitted values leave the hinge's beta set by the labels' balance: a
    flat interval on balanced rows, near -1 or 1 on unbalanced ones (a fold
    with rows left out).  The multipliers' updates, rho s a round, would crawl
    there and grow rho until it dominated every step's curvature (folds at
    C = 1e-6 stalled after 10^6 passes); with larger values the last beta is
    the better start (the exact bias of a fold's shrunken u took up to twice
    the passes at C = 1).
    """
    if np.max(np.abs(scores[cost > 0]), initial=0.0) >= 1.0:
        return None
    return _exact_bias(scores, y, cost, loss)


def _cost_weighted_mean(qdiag, cost):
    """sum_t C_t q_t / sum_t C_t (the plain mean when no row has a cost)."""
    total = float(cost.sum())
    if total > 0.0:
        return float(cost @ qdiag) / total
    return float(qdiag.mean()) if qdiag.size else 0.0


def solve_linear_dual(D, y, C, *, bias=True, tol=1e-3, alpha0=None, bias0=0.0,
                      max_passes=10_000, max_rounds=100, loss="hinge", pass_budget=None,
                      work_budget=None):
    """Minimize eq. (15) with a linear kernel by dual coordinate descent.

    ``loss="squared_hinge"`` minimizes 1/2 ||u||^2 + sum_t C_t max(0, 1 -
    y_t (beta + u^T d_t))^2 instead (the L2-loss SVM): its dual is eq. (18)
    with 1 / (2 C_t) added to the diagonal of K~ and no upper bound on alpha
    (Hsieh et al., sec. 2), the same coordinate steps.

    Parameters
    ----------
    D : sparse matrix or ndarray of shape (m, p)
        Rows d_t = x~'_t - x~_t (features, then the context columns); dense
        rows are read as CSR of their non-zeros.
    y : ndarray of shape (m,)
        Labels in {-1, 1}.
    C : ndarray of shape (m,)
        Per-row costs (0 leaves a row out).
    bias : bool, default=True
        Whether beta is free (eq. 9/15) or 0 (SVMrank, eq. 3).
    tol : float, default=1e-3
        Largest projected-gradient gap (a margin violation) at the solution,
        relative to the fitted values' scale when that is below 1; also the
        change of beta that ends the rounds.
    alpha0 : ndarray of shape (m,), optional
        A start, e.g. the full problem's alphas for a calibration fold.
    bias0 : float, default=0.0
        The first round's beta.
    max_passes : int, default=10000
        Passes over the rows within one round.
    max_rounds : int, default=100
        Rounds of the method of multipliers.
    loss : {"hinge", "squared_hinge"}, default="hinge"
    pass_budget : int or None, default=None
        Passes in all: past them, return unconverged without a warning (a
        caller with another solver to fall back on reads ``converged``).
    work_budget : int or None, default=None
        The same for the work, in full passes: the stored entries of the rows
        visited, in all, over those of every row (a pass over rows left at
        their bounds by shrinking costs less than one over every row).

    Returns
    -------
    LinearResult
        ``n_iter`` counts passes over the rows; ``smoothing`` is 0 (the loss
        itself is minimized).
    """
    check_loss(loss)
    y, C = check_rows(D, y, C, tol, alpha0)
    max_passes = check_count("max_passes", max_passes)
    max_rounds = check_count("max_rounds", max_rounds)
    pass_budget = _budget("pass_budget", pass_budget)
    work_budget = _budget("work_budget", work_budget)
    D = _csr(D)
    # (capped: the compiled round counts entries in a C long)
    entry_budget = None if work_budget is None else min(work_budget * D.nnz, 2**62)
    qdiag = np.asarray(D.power(2).sum(axis=1)).ravel()
    cost = C
    diag = np.zeros(y.size)
    if loss == "squared_hinge":
        weighted = C > 0  # rows with C_t = 0 stay out (fixed at alpha_t = 0)
        diag[weighted] = 0.5 / C[weighted]
        C = np.where(weighted, np.inf, 0.0)
    alpha, u = _start(D, y, C, alpha0)
    lam = float(bias0) if bias else 0.0
    # rho trades rounds for passes: large, beta moves freely within a round but
    # each step's curvature is dominated by rho; small, a round can move beta
    # by at most rho * sum C.  Measured on simulated ids (1,000 x 20,000):
    # rho = 0.1 / 1 / 10 took 528 / 816 / 4,016 passes; the floor 1 / sum C lets
    # beta move by O(1) in one round when C is small.
    rho = 0.0
    # The rows' curvature as the bias sees them: weighted by their costs.  An
    # unweighted mean let a few rows of huge norm and negligible cost set it
    # (decay weights with standardized ids: an id last seen years ago has a
    # column scaled up a thousandfold; mean 2.5e5 against 94 at the median),
    # and steps of curvature rho that size crawled: 1,000,000 passes unconverged.
    curvature = _cost_weighted_mean(qdiag, cost)
    if bias and y.size:
        rho = max(0.05 * curvature, 1.0 / max(float(cost.sum()), 1e-12))
    passes = entries = 0
    converged = False
    last_move = 0.0
    eps = float(tol)
    # The round after which u first says something: the start's own u when
    # warm, else the u of the first round.
    informed = 0 if alpha0 is not None else 1
    for k in range(max_rounds):
        if bias and k == informed:
            placed = _margin_bias(np.asarray(D @ u).ravel(), y, cost, loss)
            if placed is not None:
                # beta is in place: the floor on rho, which let it travel, would
                # only stiffen the steps (rounds at C = 1e-7 never settled).  The
                # round's beta is lam + rho s: lam takes the current s off.
                rho = max(0.05 * curvature, 1e-8)
                lam = placed - rho * float(y @ alpha)
        round_passes = int(max_passes) if pass_budget is None else \
            max(1, min(int(max_passes), pass_budget - passes))
        round_entries = 0 if entry_budget is None else max(1, entry_budget - entries)
        n, s, inner, visited = dual_cd_round(D.indptr, D.indices, D.data, y, C, qdiag, diag,
                                             alpha, u, lam, rho, eps, round_passes,
                                             np.uint64(_SEED + k), round_entries)
        passes += n
        entries += visited
        move = rho * s
        lam += move
        # Margin violations within tol are fine when fitted values are O(1);
        # small ones (small C) need a finer tol for the same relative digits
        # in u: tol times the largest |u^T d_t|, once it is known.
        scale = float(np.max(np.abs(D @ u))) if y.size else 0.0
        wanted = float(tol) * min(1.0, max(scale, 1e-6))
        if inner and abs(move) <= wanted and eps <= wanted * 1.0001:
            converged = True
            break
        eps = min(eps, wanted)
        if move * last_move > 0.0 and abs(move) > 0.5 * abs(last_move):
            rho *= 4.0  # beta creeps one way: let each round move it further
        last_move = move
        if (pass_budget is not None and passes >= pass_budget) or \
                (entry_budget is not None and entries >= entry_budget):
            break
    if not converged and pass_budget is None and entry_budget is None:
        warnings.warn(named_fit(
            "The dual coordinate descent did not reach tol within its passes; the "
            "solution may be inaccurate."), ConvergenceWarning, stacklevel=3)
    scores = np.asarray(D @ u).ravel()  # u^T d_t
    beta = 0.0
    if bias:
        exact = _exact_bias(scores, y, cost, loss)  # with u fixed
        beta = lam if exact is None else exact
    hinge = np.maximum(0.0, 1.0 - y * (scores + beta))
    objective = float(0.5 * u @ u + cost @ (hinge * hinge if loss == "squared_hinge" else hinge))
    score_scale = float(np.max(np.abs(scores))) if scores.size else 0.0
    # What the stopping rule left unsettled: its last tolerance (tol, made finer
    # when the fitted values are small), not tol itself, or a small beta of a
    # small C reads as 0 here and not from the Newton solver on the same rows.
    noise = max(eps, 1e-8) * max(1.0, score_scale)
    return LinearResult(u, float(beta), alpha, objective, 0.0, passes, bool(converged), noise,
                        solver="dual_cd")


def _budget(name, value):
    """A budget as an int (None: none), refused by name unless a whole number >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be None or a whole number >= 0; got {value!r}.")
    return int(value)


def solve_linear_rows(D, y, C, *, bias=True, tol=1e-3, v0=None, alpha0=None,
                      first_smoothing=1.0, loss="hinge", n_threads=None, try_dual=True):
    """Eq. (15) on the rows ``D`` by the solver that suits them: dual coordinate
    descent (:func:`solve_linear_dual`, started from ``alpha0`` and the beta
    of ``v0``) for the hinge where :func:`dual_cd_suits` and for the squared
    hinge on dense rows with more features than rows, else the primal Newton
    method (:func:`solvers.linear.solve_linear`, started from ``v0`` = (u,
    beta) at ``first_smoothing``), for either loss (each checks it).

    The squared hinge on sparse rows goes to the trust-region Newton-CG of
    :mod:`solvers.newton_cg` (smooth: a handful of Newton steps, products only;
    10,000 ids x 1,000,000 games in 2.6 s against 16-25 s of coordinate
    descent).  The hinge is not smooth: on sparse rows its coordinate steps
    beat Newton's smoothing levels (354 s there).

    ``n_threads``: numba's threads for the solver's parallel loops, one below
    :data:`threads.PARALLEL_WORK` entries of ``D`` (see :func:`solver_threads`).

    ``try_dual=False`` sends dense rows' hinge straight to the Newton method:
    a C path whose smaller C already went there (coordinate descent needs more
    passes the larger C is: at football_20k's folds it converged at none of
    the linear C >= 0.1 and Nystroem C = 10 it tried, 17 s of a 137 s serial
    search spent on passes whose result was thrown away; where it would
    converge, Newton's method reaches the same optimum to the tolerance)."""
    with solver_threads(n_threads, work=_entries(D)):
        return _solve_linear_rows(D, y, C, bias=bias, tol=tol, v0=v0, alpha0=alpha0,
                                  first_smoothing=first_smoothing, loss=loss,
                                  try_dual=try_dual)


def _entries(D):
    """Entries of the rows (non-zeros when sparse): the work of one pass."""
    return int(D.nnz) if sp.issparse(D) else int(D.size)


def _solve_linear_rows(D, y, C, *, bias, tol, v0, alpha0, first_smoothing, loss, try_dual):
    """:func:`solve_linear_rows` within its thread setting."""
    if loss == "squared_hinge" and not sp.issparse(D) and D.shape[1] > D.shape[0]:
        # More features than rows: Newton's (p + 1)^2 system costs more than
        # coordinate steps on the rows (the hinge goes to SMO on the dual there).
        return solve_linear_dual(D, y, C, bias=bias, tol=tol, alpha0=alpha0,
                                 bias0=float(v0[-1]) if v0 is not None and bias else 0.0,
                                 loss=loss)
    if loss == "squared_hinge" and sp.issparse(D):
        return solve_squared_hinge_cg(D, y, C, bias=bias, tol=tol, v0=v0)
    if loss == "hinge" and (try_dual or sp.issparse(D)) and dual_cd_suits(D, C):
        bias0 = float(v0[-1]) if v0 is not None and bias else 0.0
        if sp.issparse(D):
            return solve_linear_dual(D, y, C, bias=bias, tol=tol, alpha0=alpha0, bias0=bias0,
                                     loss=loss)
        # Dense rows: coordinate passes cost O(m p), a Newton step O(m p^2);
        # within DENSE_CD_PASSES_PER_COLUMN * p passes (and DENSE_CD_FULL_PASSES
        # full passes' work) they are the cheaper
        # way (tcec, 2,800 rows x 227 columns, C = 1e-3: 150 passes, 7 ms
        # against 1.0 s), past it Newton's steps take over from scratch.
        result = solve_linear_dual(D, y, C, bias=bias, tol=tol, alpha0=alpha0,
                                   bias0=bias0, loss=loss,
                                   pass_budget=DENSE_CD_PASSES_PER_COLUMN * D.shape[1],
                                   work_budget=DENSE_CD_FULL_PASSES)
        if result.converged:
            return result
    return solve_linear(D, y, C, bias=bias, tol=tol, v0=v0, first_smoothing=first_smoothing,
                        loss=loss)
