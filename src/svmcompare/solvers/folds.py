"""Refits of the dual (18), or of the smoothed primal of the linear and
Nystroem solvers, without some of their rows, started from the solution with
them: the calibration folds of ``probability=True``.

A fold drops the rows of its held-out pairs and keeps everything else of the
full problem: the items (standardized once), each row's C (class and pair
weights of the full data) and the kernel.  So the fold's problem is a
sub-problem of the full one, and the full solution gives it

* a start next to its optimum: the full alphas of the rows kept, with the
  equality constraint y^T alpha = 0 restored by lowering the fewest
  variables of the heavy side (rows at C stay at C: scaling the whole side
  down would free every one of them, and SMO would spend a step on each to
  put it back);
* that start's gradient from the full gradient and the change alone:
  G' = G + Q (alpha' - alpha) on the kept rows (the gradient of eq. 18),
  whose rows of Q are those of the dropped support vectors and the lowered
  variables, about a fifth of the support vectors instead of all of them,
  read from the full solve's row cache where it holds them whole
  (:func:`fold_start`, before the folds' own solves);
* the held-out rows' fitted values the same way, from the refit's change
  against the full solution, without a prediction over the expansion.

The primal refit (:func:`refit_primal_without`) keeps the full fit's
difference vectors (and Nystroem landmarks), gives the rows it leaves out
C = 0, and starts from the full (u, beta) past the coarsest smoothing level;
by dual coordinate descent (sparse rows, moderate C), from the full alphas.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels import PRECOMPUTED
from ._kernel_rows import kernel_pack
from ._smo_core import q_product
from .dual_cd import solve_linear_rows
from .smo import RowCache, solve_dual

# The first smoothing level of a primal refit from the full solution.  The
# coarsest level (1) pulls the start away from the optimum for the later ones
# to bring it back, but starting much later costs more than it saves where
# the fold's solution moves: Newton steps of one fold (a cold start / from
# 0.1 / from 1e-4) were 194 / 189 / 266 on the ice hockey results (one-hot
# teams), 116 / 106 / 163 on football, 79 / 73 / 100 on chess, 49 / 42 / 55
# on SUSHI, and 24 / ~19 / 7 only on 100,000 simulated pairs of 2 features.
PRIMAL_FOLD_SMOOTHING = 0.1


def subproblem(problem, rows):
    """The rows ``rows`` of ``problem`` (same items, C and context)."""
    return problem.rows(rows)


def start_without(alpha, gradient, y, keep, bias=True):
    """A feasible start for the dual restricted to the rows ``keep``: their
    alphas of the full solution.

    With a bias the dropped rows' share of y^T alpha = 0 is taken off the
    heavy side, whole variables first, in the order of decreasing gradient
    G_t = (Q alpha)_t - 1: lowering alpha_t by delta changes the objective by
    -G_t delta to first order, least for the largest G_t (at the full optimum
    the free variables of a side share the largest gradient of that side's
    support vectors, and those at C lie below it).  At most one variable ends
    between its old value and 0.
    """
    start = alpha[keep].copy()
    if not bias:
        return start
    y_keep = y[keep]
    excess = float(y_keep @ start)
    if excess == 0.0:
        return start
    heavy = np.flatnonzero((y_keep * excess > 0) & (start > 0))
    order = heavy[np.argsort(-gradient[keep][heavy], kind="stable")]
    taken = np.cumsum(start[order])
    # Rows lowered to 0 until the excess is used up; the last one partly.
    last = min(int(np.searchsorted(taken, abs(excess))), order.size - 1)
    before = taken[last - 1] if last > 0 else 0.0
    start[order[:last]] = 0.0
    start[order[last]] = max(0.0, start[order[last]] - (abs(excess) - before))
    return start


class FoldStart(NamedTuple):
    """Where a fold's solve starts (:func:`fold_start`)."""

    keep: np.ndarray  # the fold's rows of the full problem
    held_out: np.ndarray  # rows left out whose fitted value is wanted
    alpha0: np.ndarray  # the start, on the rows ``keep``
    gradient0: np.ndarray  # its gradient Q alpha0 - 1 on those rows
    held_out_base: np.ndarray  # (Q alpha0)_t on the held-out rows


def _packed(problem, kernel, gram):
    """The kernel and the rows as the compiled loops take them."""
    kp = kernel_pack(problem.items, kernel, gram)
    pairs = tuple(np.ascontiguousarray(v, dtype=dtype) for v, dtype in (
        (problem.a, np.int64), (problem.b, np.int64), (problem.y, np.float64),
        (problem.context, np.float64)))
    return kp, pairs


def fold_start(problem, kernel, alpha, gradient, keep, held_out, *, bias=True, gram=None,
               rows=None):
    """The start of the dual of ``problem`` on the rows ``keep`` from the full
    solution (``alpha``, ``gradient``; see :func:`refit_without`).

    ``rows`` (``DualResult.rows`` of the full solve) serves the rows of Q of
    the support vectors the fold drops where the solve had them whole, instead
    of their kernel rows; it is only read, so the starts of all folds can be
    made before it is released.  Returns a :class:`FoldStart`.
    """
    keep = np.asarray(keep, dtype=np.int64)
    held_out = np.asarray(held_out, dtype=np.int64)
    kp, pairs = _packed(problem, kernel, gram)
    alpha0 = start_without(alpha, gradient, problem.y, keep, bias)
    move = -alpha
    move[keep] += alpha0
    # The start's change on the kept and held-out rows in one pass: its
    # kernel rows (the dropped support vectors' items) are computed over the
    # kept rows' items anyway, which are nearly all items.
    both = np.concatenate([keep, held_out])
    cached = (RowCache.empty(alpha.size) if rows is None else rows).arrays()
    change = q_product(kp, pairs, move, both, cached)
    return FoldStart(keep, held_out, alpha0, gradient[keep] + change[:keep.size],
                     gradient[held_out] + 1.0 + change[keep.size:])


def refit_from(problem, kernel, start, *, bias=True, gram=None, **solve_options):
    """Solve the fold of :func:`fold_start` and score its held-out rows.

    Returns (DualResult on the rows ``start.keep``, the held-out rows'
    fitted values) as :func:`refit_without`.
    """
    kp, pairs = _packed(problem, kernel, gram)
    # A callable kernel's Gram matrix (kernel_pack computed it) serves the solve too.
    gram = kp[6] if kp[0] == PRECOMPUTED else None
    result = solve_dual(subproblem(problem, start.keep), kernel, bias=bias,
                        alpha0=start.alpha0, gradient0=start.gradient0, gram=gram,
                        **solve_options)
    # Then only what SMO moved, over the held-out rows' items.
    move = np.zeros(problem.y.size)
    move[start.keep] = result.alpha - start.alpha0
    moved = q_product(kp, pairs, move, start.held_out, RowCache.empty(problem.y.size).arrays())
    return result, problem.y[start.held_out] * (start.held_out_base + moved)


def refit_without(problem, kernel, alpha, gradient, keep, held_out, *, bias=True, gram=None,
                  rows=None, **solve_options):
    """Solve the dual of ``problem`` on the rows ``keep`` from the full solution.

    Parameters
    ----------
    problem : BinaryProblem
        The full problem, solved by ``alpha`` with gradient ``gradient``
        (``DualResult.alpha`` and ``.gradient`` of :func:`solve_dual`).
    kernel : KernelSpec
    keep, held_out : ndarray of int
        Rows of ``problem``: the refit's rows, and rows (not kept) whose
        fitted value under the refit is wanted.
    bias : bool
        Whether the dual has the equality constraint y^T alpha = 0.
    gram : ndarray, optional
        k(items, items) when the caller has it (or a callable kernel's,
        computed once for all folds).
    rows : RowCache, optional
        Rows of Q the full solve cached (:func:`fold_start`).
    **solve_options
        ``tol``, ``max_iter``, ``cache_size``, ``shrinking``, ``n_threads``
        of :func:`solve_dual`.

    Returns
    -------
    result : DualResult
        The refit's solution, on the rows ``keep`` (in that order).
    held_out_fitted : ndarray of shape (held_out.size,)
        u'^T (Phi(b_t) - Phi(a_t)) + v'^T c_t of the refit (eq. 17) on the
        held-out rows: y_t (Q alpha')_t over the full rows.
    """
    if gram is None and kernel.code == PRECOMPUTED:
        # A callable kernel's Gram matrix once, for the start and the solve.
        gram = kernel.block(problem.items, problem.items)
    start = fold_start(problem, kernel, alpha, gradient, keep, held_out, bias=bias, gram=gram,
                       rows=rows)
    return refit_from(problem, kernel, start, bias=bias, gram=gram, **solve_options)


def refit_primal_without(D, y, C, v, keep, *, alpha=None, bias=True, tol=1e-3,
                         n_threads=None, loss="hinge", try_dual=True):
    """Minimize the primal (:func:`solvers.dual_cd.solve_linear_rows`) on the
    rows ``keep`` of the difference vectors ``D``, from the full solution.

    Parameters
    ----------
    D : ndarray of shape (m, p)
        The full problem's rows d_t (features, then the context columns).
    y, C : ndarray of shape (m,)
        Labels in {-1, 1} and per-row costs of the full problem.
    v : ndarray of shape (p + bias,)
        The full solution (u, beta), the refit's start.
    keep : ndarray of int
        Rows of the refit.
    alpha : ndarray of shape (m,), optional
        The full solution's dual variables: the start of a refit by
        :func:`solvers.dual_cd.solve_linear_dual` (sparse rows, moderate C),
        the rows left out at 0.
    bias : bool
    tol : float
    n_threads : int, optional
        The solver's threads (:func:`solvers.threads.solver_threads`).
    loss : {"hinge", "squared_hinge"}, default="hinge"
    try_dual : bool, default=True
        False: dense rows straight to the Newton method (the full fit needed
        it: coordinate descent on a fold's rows fails as it did there; at
        C = 0.1 on 5,000 football pairs its six attempts, the full fit's and
        the five folds', spent 0.67 s of a 3.6 s fit).

    Returns
    -------
    LinearResult
        Its ``u`` gives any row's fitted value u^T d_t (eq. 17's u, with the
        context weights v as its last columns); its ``alpha`` covers every
        row of ``D``, 0 on the rows left out.
    """
    # The rows left out get C = 0 instead of being copied out: F is the same
    # function (a row with C_t = 0 adds nothing to the loss or its
    # derivatives), passes cover a quarter more rows, and no fold holds a copy
    # of D (at 1,000,000 Nystroem pairs 485 MB per fold, two folds at a time).
    C_fold = np.zeros_like(C)
    C_fold[keep] = C[keep]
    return solve_linear_rows(D, y, C_fold, bias=bias, tol=tol, v0=v, alpha0=alpha,
                             first_smoothing=PRIMAL_FOLD_SMOOTHING, loss=loss,
                             n_threads=n_threads, try_dual=try_dual)
