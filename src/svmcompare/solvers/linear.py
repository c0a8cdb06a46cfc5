"""Linear hinge-loss SVM with an unregularized bias, for millions of difference vectors.

The primal solved is (15) with a linear kernel (or any explicit feature map),
written on the rows d_t = x~'_t - x~_t of the flipped data (eq. 8):

    minimize_{u, beta}  F(u, beta) = 1/2 ||u||^2 + sum_t C_t max(0, 1 - y_t (beta + u^T d_t))

with beta free (not regularized), as the paper's problem (9)/(15) requires;
``bias=False`` drops beta (SVMrank, eq. 3).

There are only p + 1 unknowns while m may be in the millions, so the solver
works in the primal.  The hinge is replaced by its Huber smoothing

    L_delta(z) = 0                      if z >= 1
               = (1 - z)^2 / (2 delta)  if 1 - delta < z < 1
               = 1 - z - delta / 2      if z <= 1 - delta

which is within delta / 2 of the hinge everywhere, so F_delta is within
(delta / 2) sum_t C_t of F.  F_delta is convex and piecewise quadratic:
Newton's method with an exact line search minimizes it, and a continuation
delta = 1, 1/10, ..., ``delta_min`` warm-starts each level from the last.
Each Newton step costs two passes over D (O(m p)) plus a (p + 1) x (p + 1)
system built from the rows in the quadratic zone only; memory is O(m p).

The dual variables of the smoothed problem, alpha_t = -C_t L'_delta(z_t),
lie in [0, C_t] and give the support vectors.

After each level the rows of the smoothed solution's quadratic zone are taken
as the hinge optimum's free support vectors and the rows below the zone as
those at C_t; with that guess the optimum's KKT conditions are linear
equations, and a solution that passes the KKT check ends the continuation
with the exact minimizer of F (:func:`_crossover`, ``smoothing`` 0).  Where
the guess fails after a fine level, a primal active-set method on the dual
moves the smoothed solution's alphas to the optimum (:func:`_active_set`).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ..exceptions import named_fit
from ._bias import choose_bias, primal_bias_interval, squared_hinge_bias
from ._linear_core import (
    add_zone_rows,
    gradient_weights,
    line_terms,
    loss_sum,
    matvec,
    piecewise_line_search,
    rmatvec,
    zone_cg,
    zone_diagonal,
)
from ._linear_core import differences as row_differences
from ._newton import step_limits
from .csr_products import ParallelCSR, dense_csr
from .threads import threads_now


@dataclass(frozen=True)
class LinearResult:
    """Solution of the linear problem.

    Attributes
    ----------
    u : ndarray of shape (p,)
    bias : float
        beta (0 without a bias).
    alpha : ndarray of shape (m,)
        Dual variables alpha_t = -C_t L'_delta(z_t) in [0, C_t]; for the
        squared hinge 2 C_t max(0, 1 - z_t), without an upper bound.
    objective : float
        The primal objective F(u, beta) with the exact loss.
    smoothing : float
        The final delta; F is within (delta / 2) sum C of its minimum plus
        the Newton tolerance.  0 when the crossover found the minimum of F
        itself (or another solver minimized the loss directly).
    n_iter : int
        Newton steps over all smoothing levels.
    converged : bool
    bias_noise : float
        A beta closer to 0 than this is smoothing or rounding noise:
        max(smoothing, 1e-8) max(1, s), with s = max_t |u^T d_t| the scale of
        the fitted values (the smoothed hinge moves margins by up to the
        smoothing level).
    solver : {"newton", "dual_cd"}
        Which method produced it: the primal Newton method (this module, or
        the squared hinge's trust-region Newton) or dual coordinate descent
        (:mod:`.dual_cd`).
    """

    u: np.ndarray
    bias: float
    alpha: np.ndarray
    objective: float
    smoothing: float
    n_iter: int
    converged: bool
    bias_noise: float = 0.0
    solver: str = "newton"


_HESSIAN_ROWS = 32_768  # zone rows gathered per BLAS product


def _zone_hessian(D, zone, C, delta, bias):
    """sum over zone rows of (C_t / delta) [d_t; 1][d_t; 1]^T.

    The zone rows are gathered in blocks, scaled by sqrt(C_t / delta), and
    multiplied by BLAS (Z^T Z): a compiled loop that updates H row by row
    ran at about 1 GFlop and was a third of a Nystroem fit at 1,000,000 pairs.
    """
    m, p = D.shape
    n = p + 1 if bias else p
    H = np.zeros((n, n))
    rows = np.flatnonzero(zone)
    for start in range(0, rows.size, _HESSIAN_ROWS):
        block = rows[start:start + _HESSIAN_ROWS]
        root = np.sqrt(C[block] / delta)
        Z = D[block] * root[:, None]
        H[:p, :p] += Z.T @ Z
        if bias:
            H[:p, p] += Z.T @ root
    if bias:
        H[p, :p] = H[:p, p]
        H[p, p] = float(C[rows].sum()) / delta
    return H


# Dense rows with at most this share of non-zeros get a CSR copy for the
# Newton method's products and Hessian (tcec's folds, 4,442 rows x 227
# columns of which 6% non-zeros: the dense zone Hessian was most of a step;
# 16,000 football pairs, 197 columns, 10.3%: a linear C path 3.0-3.8 -> 2.3-2.5
# s, the same steps).  A sparse product costs a few times a dense one per
# entry it touches, so the view pays up to about a quarter of non-zeros.
_SPARSE_VIEW_DENSITY = 0.2


def _sparse_view(D):
    """A CSR copy of dense rows that are mostly zeros, else None."""
    if D.size == 0 or D.dtype != np.float64 or \
            np.count_nonzero(D) > _SPARSE_VIEW_DENSITY * D.size:
        return None
    return dense_csr(D)


def _sparse_zone_hessian(D, zone, C, delta, bias):
    """:func:`_zone_hessian` from a CSR matrix: each zone row adds the outer
    product of its non-zeros only."""
    p = D.shape[1]
    n = p + 1 if bias else p
    H = np.zeros((n, n))
    rows = np.flatnonzero(zone)
    add_zone_rows(D.indptr, D.indices, D.data, rows, C[rows] / delta, H, bool(bias))
    return H


def row_scores(D, u):
    """u^T d_t for every row of ``D`` (float32 or float64, or a sparse matrix),
    without a float64 copy of D (which ``D @ u`` makes for float32 rows)."""
    if sp.issparse(D):
        return np.asarray(D @ np.asarray(u, dtype=np.float64)).ravel()
    out = np.empty(D.shape[0])
    matvec(_dense_rows(D), np.ascontiguousarray(u, dtype=np.float64), out, threads_now())
    return out


def differences(items, a, b):
    """Rows items[b_t] - items[a_t] (the d_t of eq. 8), in one pass (float64)."""
    items = np.asarray(items)
    if items.dtype not in (np.float32, np.float64):
        items = items.astype(np.float64)
    return row_differences(np.ascontiguousarray(items), np.ascontiguousarray(a, dtype=np.int64),
                            np.ascontiguousarray(b, dtype=np.int64), threads_now())


def _dense_rows(D):
    """D as the compiled loops take it: C order, float32 kept (no float64 copy)."""
    D = np.asarray(D)
    return np.ascontiguousarray(D, dtype=D.dtype if D.dtype == np.float32 else np.float64)


class _Smoothed:
    """F_delta and its derivatives for fixed data; v = (u, beta) or u.

    ``D`` is a dense array or a sparse CSR matrix (e.g. identities: two
    non-zeros per row); with sparse rows every pass costs O(non-zeros) and the
    Hessian is never formed (:class:`_ZoneHessian`).  Dense rows that are
    mostly zeros (differences of one-hot identities next to a few dense
    features) keep the dense method, its p x p Hessian and the crossover, but
    their products and the Hessian's sum go over a CSR copy's non-zeros."""

    def __init__(self, D, y, C, bias):
        if not sp.issparse(D):
            D = _dense_rows(D)
        y = np.ascontiguousarray(y, dtype=np.float64)
        C = np.ascontiguousarray(C, dtype=np.float64)
        self.D, self.y, self.C, self.bias = D, y, C, bias
        self.p = D.shape[1]
        self.sparse = sp.issparse(D)
        self.nonzeros = None if self.sparse else _sparse_view(D)
        # The products of sparse rows (or of the CSR copy), checked once: through
        # SciPy each step built and scanned a transposed matrix anew.
        rows = D if self.sparse else self.nonzeros
        self.products = None if rows is None else ParallelCSR(rows)
        self._row_norms = None

    def scores(self, u):
        """u^T d_t of every row (through the checked products where there are)."""
        return self.products.dot(u) if self.products is not None else row_scores(self.D, u)

    def transposed(self, coef):
        """D^T coef = sum_t coef_t d_t."""
        if self.products is not None:
            return self.products.tdot(coef)
        return rmatvec(self.D, np.ascontiguousarray(coef, dtype=np.float64), threads_now())

    def row_norms(self):
        """|d_t| of every row (computed once: the crossover's check reads
        them after each smoothing level)."""
        if self._row_norms is None:
            self._row_norms = np.sqrt(np.einsum("ij,ij->i", self.D, self.D, dtype=np.float64))
        return self._row_norms

    def margins(self, v):
        """z_t = y_t (u^T d_t + beta)."""
        f = self.scores(v[: self.p])
        if self.bias:
            f += v[self.p]
        return self.y * f

    def value(self, v, z, delta):
        u = v[: self.p]
        return 0.5 * u @ u + loss_sum(z, self.C, delta, threads_now())

    def gradient_hessian(self, v, z, delta):
        coef = np.empty_like(z)
        zone = np.empty(z.shape, dtype=np.bool_)
        gradient_weights(z, self.y, self.C, delta, coef, zone)
        n = self.p + self.bias
        g = np.zeros(n)
        g[: self.p] = v[: self.p] + self.transposed(coef)
        if self.bias:
            g[self.p] = coef.sum()
        if self.sparse:
            return g, _ZoneHessian(self.D, zone, self.C, delta, self.bias)
        if self.nonzeros is not None:
            H = _sparse_zone_hessian(self.nonzeros, zone, self.C, delta, self.bias)
        else:
            H = _zone_hessian(self.D, zone, self.C, delta, self.bias)
        H[np.arange(self.p), np.arange(self.p)] += 1.0
        return g, H

    def line_derivatives(self, v, step, z, q, s, delta):
        """phi'(s) and phi''(s) for phi(s) = F_delta(v + s step)."""
        t1, t2 = line_terms(z, q, self.C, s, delta, threads_now())
        u, su = v[: self.p], step[: self.p]
        return u @ su + s * (su @ su) + t1, su @ su + t2


class _ZoneHessian:
    """The Newton system's matrix I_u + sum over zone rows of (C_t / delta)
    [d_t; 1][d_t; 1]^T for sparse rows, never formed: p may be the number of
    players of a ratings table, and a p x p matrix is what sparse rows avoid.
    :meth:`solve` runs preconditioned conjugate gradients on products with
    the zone rows (compiled: a step costs O(their non-zeros + p))."""

    def __init__(self, D, zone, C, delta, bias):
        self.D = D
        self.rows = np.flatnonzero(zone)
        self.w = C[self.rows] / delta
        self.p = D.shape[1]
        self.bias = bias
        self.n = self.p + bias

    def diagonal(self):
        out = np.ones(self.n)
        zone_diagonal(self.D.indptr, self.D.indices, self.D.data, self.rows, self.w, out,
                       self.bias)
        return out

    def solve(self, g):
        """x with H x = -g (plus a tiny ridge): a sparse LU factorization up to
        ``_LU_MAX_FEATURES`` unknowns, conjugate gradients beyond (no fill-in)."""
        if self.n <= _LU_MAX_FEATURES:
            return self._solve_lu(g)
        return self._solve_cg(g)

    def _solve_lu(self, g):
        from scipy.sparse.linalg import splu

        Z = self.D[self.rows]
        if self.bias:  # the bias is a column of ones in [d_t; 1]
            Z = sp.hstack([Z, sp.csr_matrix(np.ones((Z.shape[0], 1)))], format="csr")
        H = Z.T @ sp.diags(self.w) @ Z
        regularizer = np.ones(self.n)
        if self.bias:
            regularizer[-1] = 0.0  # beta is not regularized
        diagonal = H.diagonal() + regularizer
        H = H + sp.diags(regularizer + 1e-12 * (1.0 + np.abs(diagonal)))
        # A symmetric fill-reducing order (H is a weighted graph Laplacian plus I).
        return -splu(sp.csc_matrix(H), permc_spec="MMD_AT_PLUS_A").solve(g)

    def _solve_cg(self, g):
        """x with (H + ridge) x = -g to a residual of ``_CG_RTOL`` |g| (or a
        descent direction after the iteration limit)."""
        diagonal = self.diagonal()
        ridge = 1e-12 * (1.0 + np.abs(diagonal))
        return zone_cg(self.D.indptr, self.D.indices, self.D.data, self.rows, self.w,
                        self.bias, ridge, diagonal + ridge, g, _CG_RTOL,
                        max(10 * self.n, 100))


_CG_RTOL = 1e-10  # the Newton step's residual relative to the gradient
# Unknowns up to which the Newton system is factorized: the factors of a well
# connected comparison graph fill in towards p^2 entries (5,000: 0.2 GB).
_LU_MAX_FEATURES = 5_000


def _exact_line_search(obj, v, step, z, delta):
    """Minimize the convex piecewise quadratic phi(s) = F_delta(v + s step), s > 0.

    The step is rescaled so that no margin moves by more than 1 per unit of
    s: a near-singular Newton system (no row in the quadratic zone) gives
    enormous steps, and a search in raw units would lose precision.  If the
    full Newton step still descends, the step length doubles until phi'
    turns non-negative; the root inside that bracket is then found exactly by
    :func:`_piecewise_line_search`.  Returns the step taken, the margin
    changes along it and the step's length as a share of the Newton step (1:
    the full step).
    """
    q = obj.margins(step)  # dz_t/ds along the step (z is linear in v)
    scale = np.abs(q).max()
    if not scale > 0:
        return 0.0 * step, q, 0.0
    step, q = step / scale, q / scale
    d1, _ = obj.line_derivatives(v, step, z, q, 0.0, delta)
    if not d1 < 0:
        return 0.0 * step, q, 0.0
    hi = min(scale, 1e15)  # the full Newton step, in the rescaled units
    d_hi, _ = obj.line_derivatives(v, step, z, q, hi, delta)
    if abs(d_hi) <= 1e-12 * abs(d1):
        return hi * step, hi * q, hi / scale
    while d_hi < 0 and hi < 1e15:
        hi *= 2.0
        d_hi, _ = obj.line_derivatives(v, step, z, q, hi, delta)
    su = step[: obj.p]
    u = v[: obj.p]
    s = piecewise_line_search(z, q, obj.C, delta, u @ su, su @ su, hi, d1, d_hi)
    return s * step, s * q, s / scale


def _definite_solve(H, g):
    """H^-1 g for a symmetric H that is definite but for rounding: by Cholesky
    (LAPACK's posv: 0.32 against numpy's LU 0.77 ms at 193 unknowns on one
    thread, up to a sixth of a dense Newton step), by LU where the factor
    fails (posv works on a copy of ``H``)."""
    _, x, info = scipy.linalg.lapack.dposv(H, g, lower=False)
    return x if info == 0 else np.linalg.solve(H, g)


def newton_step(g, H, fval, tol):
    """The Newton step -H^-1 g, its decrement -g^T step, and whether the
    smoothing level is done: the decrement is below ``tol * 1e-6`` times
    (1 + F_delta).  A tiny ridge keeps H definite when no row is in the
    quadratic zone (beta then enters F_delta linearly); the line search
    decides the length anyway.  A dense H is modified in place; a
    :class:`_ZoneHessian` (sparse rows) is solved by conjugate gradients."""
    if isinstance(H, _ZoneHessian):
        step = H.solve(g)
    else:
        H[np.diag_indices_from(H)] += 1e-12 * (1.0 + np.abs(np.diag(H)))
        step = -_definite_solve(H, g)
    decrement = -(g @ step)
    return step, decrement, bool(decrement <= tol * 1e-6 * (1.0 + abs(fval)))


# The crossover's system has one unknown per free row: past this many it is
# not tried (dense rows have about as many free rows as independent columns;
# identities at scale may have thousands, and their levels are cheap anyway).
_CROSSOVER_MAX_FREE = 1_000
# The crossover's solution is accepted when every KKT condition of the hinge
# problem holds to this (relative to each row's scale, |u| |d_t| + |beta|, when
# above 1): 100 times finer than the margins of the last smoothing level,
# delta_min = 1e-6.
_CROSSOVER_TOL = 1e-8


def _crossover(obj, z, delta, weighted, level_steps):
    """The exact minimizer of F (the hinge, delta = 0) guessed from a minimizer
    of F_delta, or None when the guess fails the KKT check.

    At the hinge optimum each row t with C_t > 0 has alpha_t = C_t where
    z_t < 1, alpha_t = 0 where z_t > 1, and alpha_t in [0, C_t] where z_t = 1
    (the free rows); u = sum_t alpha_t y_t d_t (eq. 17).  Taking the smoothed
    solution's quadratic zone as the free rows F and the rows below it as the
    rows at C_t (B), the free rows' margins z_f = 1 and sum_t y_t alpha_t = 0
    (the dual's equality, eq. 18, with a bias) are linear in (alpha_F, beta):

        Y_F D_F D_F^T Y_F alpha_F + y_F beta = 1 - Y_F D_F w_B,   y_F^T alpha_F = -y_B^T C_B,

    with w_B = sum_{t in B} C_t y_t d_t.  It is solved in the least-squares
    sense: with more free rows than independent columns (collinear one-hot
    columns, ties' two rows) it is singular, and the minimum-norm alpha_F is
    one of the optima.  A solution with alpha_F in its box, the free rows on
    the margin and every other row on its side of it satisfies the KKT
    conditions of the convex problem (15): it is the optimum, and the
    smoothing levels still to come are not needed (30-60 Newton steps each on
    dense rows at large C; tcec's folds: 220 -> 142 steps at C = 1).  Moving
    whole sets of rows between the sets when the check fails did not find the
    optimum earlier on tcec, football_odds or sushi; after the finer levels
    (delta <= :data:`_ACTIVE_SET_DELTA`) a guess that fails hands over to
    :func:`_active_set`, which moves alpha within its box from the smoothed
    solution (ten fold solves of 16,000 football pairs at C = 1 and 10: the
    optimum after the level 1e-3 every time, 1,861 -> 930 Newton steps).
    One exchange is made first: when the guess fails only because a few rows lie on
    the wrong side of the margin (alpha in its box, the free rows on it), those
    rows join the free set and the system is solved once more (16,000
    football pairs of 186 columns at C >= 1: the rows of the smoothing levels
    1e-5 and 1e-6 missed the optimum by one row each, and the finest level's
    45-50 Newton steps were spent to end on the smoothed solution).

    It is tried only where it costs less than a level like the one just done
    (``level_steps`` Newton steps): a least-squares solve of n free rows is
    ~2 n^3 operations, a Newton step ~4 m p + n p^2 (on ice hockey's folds,
    709 rows x 77 columns, failed solves of ~300 free rows cost 9 s of a 20 s
    search whose Newton steps took 1 s); the active set's rounds up to two such
    levels.  Dense rows only.

    ``obj``: the :class:`_Smoothed` problem (its rows' products and norms).
    Returns ((u, beta), z, alpha) or None.
    """
    D = obj.D
    if not weighted.any():  # no row with C_t > 0: the levels' u = 0 and their beta stand
        return None
    free = (z > 1.0 - delta) & (z < 1.0) & weighted
    bound = (z <= 1.0 - delta) & weighted
    m, p = D.shape
    level_work = max(level_steps, 1) * (4.0 * m * p + np.count_nonzero(free) * p * p)
    for _ in range(2):  # the guess, then at most one exchange
        n_free = int(np.count_nonzero(free))
        if n_free > _CROSSOVER_MAX_FREE or 2.0 * n_free ** 3 + n_free * n_free * p > level_work:
            break
        guess = _kkt_guess(obj, free, bound, weighted)
        if guess is None:
            break
        v, new_z, alpha, wrong_side = guess
        if not wrong_side.any():
            if not _certified(v[:p], alpha, new_z, obj.C):
                break
            return v, new_z, alpha
        if np.count_nonzero(wrong_side) > max(1, n_free // 20):
            break
        free, bound = free | wrong_side, bound & ~wrong_side
    if delta > _ACTIVE_SET_DELTA:
        return None
    # Its rounds may cost up to two levels like the one just done (it replaces
    # the finer levels, 30-60 Newton steps each on dense rows at large C), by
    # the same count of operations: a least-squares solve of n free rows, their
    # block of Q, and a pass over the rows.
    n_free = int(np.count_nonzero(free))
    round_work = 2.0 * n_free ** 3 + n_free * n_free * p + 4.0 * m * p
    rounds = int(min(_ACTIVE_SET_MAX_ROUNDS, 2.0 * level_work / round_work))
    return _active_set(obj, z, delta, weighted, rounds) if rounds > 0 else None


# The active-set method is tried after levels this fine or finer.  On 16,000
# football pairs of 186-193 columns at C = 1 and 10 (ten fold problems) it
# found the optimum after the level 1e-3 in 7-33 rounds every time; after the
# level 1e-2 it needed 81-152 rounds, more than the level 1e-3 and its rounds.
_ACTIVE_SET_DELTA = 1e-3
_ACTIVE_SET_MAX_ROUNDS = 100
_ACTIVE_SET_RIDGE = 1e-10
_ACTIVE_SET_MAX_ENTERING = 10  # rows let in together without a move, before it gives up
# A crossover's answer (the guess's or the active set's) has a duality gap
# within this share of the objective: the Newton levels' decrement ends a
# level at tol * 1e-6 = 1e-9 of (1 + F_delta).
_CROSSOVER_GAP = 1e-10


def _active_set(obj, z, delta, weighted, max_rounds):
    """The exact minimizer of F by a primal active-set method on the dual
    (18), started from the smoothed solution's alpha, or None.

    Where the guess of :func:`_crossover` fails (a few zone rows whose alpha
    belongs on a bound, or more free rows than independent columns), the
    smoothed alpha_t = -C_t L'_delta(z_t) is still feasible for the box and
    close to the optimum.  Each round solves the KKT system of the face of
    the rows strictly inside their box F (the others fixed),

        Q_FF d + b y_F = -G_F,   y_F^T d = -y^T alpha,   G = Q alpha - 1,

    and moves alpha_F along d as far as the box allows (a variable that
    reaches a bound stops the step and stays there).  Q_FF is often singular
    (collinear one-hot columns, more free rows than columns): the system is
    solved with a tiny ridge on Q_FF and one step of iterative refinement.
    Where it has a solution that is the solution (to rounding); where it has
    none, d is huge along a direction of zero curvature on which the dual
    objective falls, and the box stops the step at the first bound (a
    least-squares solve by SVD followed that direction explicitly, with the
    same rounds, at three times the cost).  After a full
    step, the face's minimum, every row's margin is checked: alpha_t = 0
    needs z_t >= 1, alpha_t = C_t needs z_t <= 1 (the KKT conditions of
    eq. 15, to :data:`_CROSSOVER_TOL`); the row that violates them most
    joins F, and the method goes on.  A point is returned only when it passes
    that check, the equality, and a duality gap within :data:`_CROSSOVER_GAP`
    of the objective (:func:`_certified`; b is beta): the ridged directions are
    not exact, and the check and the gap decide.

    ``max_rounds`` systems at most (each an LU factorization of |F| + 1
    unknowns and, after a full step, one pass over the rows).  Returns
    ((u, beta), z, alpha) or None.
    """
    D, y, C = obj.D, obj.y, obj.C
    alpha = np.where(weighted, np.clip(_smoothed_alpha(z, y, C, delta), 0.0, C), 0.0)
    u = obj.transposed(alpha * y)
    entering = np.zeros(0, dtype=np.intp)
    for _ in range(max_rounds):
        face = np.union1d(np.flatnonzero((alpha > 0.0) & (alpha < C)), entering)
        if face.size == 0 or face.size > _CROSSOVER_MAX_FREE:
            return None  # no free row (the guess's case: beta by the bias interval) or too many
        n = face.size
        D_face = np.asarray(D[face], dtype=np.float64)
        y_face, C_face, alpha_face = y[face], C[face], alpha[face]
        # G_F = y_F D_F u - 1, so -G_F is the guess's right-hand side with u for w_B.
        system, rhs = _face_system(D_face, y_face, u, -float(y @ alpha), obj.bias)
        solution = _ridge_solve(system, rhs, n)
        if solution is None or not np.all(np.isfinite(solution)):
            return None
        direction = solution[:n]
        limit = step_limits(alpha_face, C_face, direction)
        step = min(1.0, float(limit.min()))
        if not step > 0.0:
            return None  # stuck on a bound (an entering row pushed out at once)
        moved = np.clip(alpha_face + step * direction, 0.0, C_face)
        stopped = limit <= step * (1.0 + 1e-12)
        moved[stopped] = np.where(direction[stopped] > 0.0, C_face[stopped], 0.0)
        still = np.array_equal(moved, alpha_face)
        alpha[face] = moved
        u = u + D_face.T @ ((moved - alpha_face) * y_face)
        if step < 1.0:
            entering = np.zeros(0, dtype=np.intp)
            continue
        # The face's minimum: u afresh from alpha (eq. 17), beta the multiplier.
        u = obj.transposed(alpha * y)
        beta = float(solution[n]) if obj.bias else 0.0
        new_z = y * (obj.scores(u) + beta)
        margin = _kkt_margin(obj, u, beta)
        violation = np.where(weighted & (alpha <= 0.0), 1.0 - margin - new_z, 0.0) + \
            np.where(weighted & (alpha >= C), new_z - 1.0 - margin, 0.0)
        worst = int(np.argmax(violation))
        if violation[worst] > 0.0:
            # A row that entered without moving (with a bias, one row alone on
            # the face cannot move: y^T d = 0) stays, and the next joins it.
            entering = np.union1d(entering, [worst]) if still else np.array([worst])
            if entering.size > _ACTIVE_SET_MAX_ENTERING:
                return None
            continue
        free = (alpha > 0.0) & (alpha < C)
        if np.any(np.abs(new_z[free] - 1.0) > margin[free]):
            return None
        if obj.bias and abs(float(y @ alpha)) > _CROSSOVER_TOL * float(C[weighted].sum()):
            return None  # the equality of eq. (18), which the steps keep only to rounding
        if not _certified(u, alpha, new_z, C):
            return None
        return (np.append(u, beta) if obj.bias else u), new_z, alpha
    return None


def _smoothed_alpha(z, y, C, delta):
    """The smoothed problem's dual variables at margins ``z``: alpha_t =
    -C_t L'_delta(z_t), in [0, C_t]."""
    coef = np.empty_like(z)
    gradient_weights(z, y, C, delta, coef, np.empty(z.shape, dtype=np.bool_))
    return -coef * y


def _certified(u, alpha, z, C):
    """Whether the duality gap of (u, beta) (through the margins ``z``) and a
    feasible ``alpha`` with u = sum_t alpha_t y_t d_t is within
    :data:`_CROSSOVER_GAP` of the objective: F(u, beta) - (sum_t alpha_t -
    ||u||^2 / 2) bounds how far F lies above its minimum (eqs. 15 and 18).
    The margins' check alone scales with |u| |d_t| + |beta|: on rows with a
    large common offset (10^4) it let points 1.5e-6 (the guess) and 2.5e-5
    (the active set) above the optimum pass."""
    uu = float(u @ u)
    primal = 0.5 * uu + float(C @ np.maximum(0.0, 1.0 - z))
    gap = primal - (float(alpha.sum()) - 0.5 * uu)
    return gap <= _CROSSOVER_GAP * max(1.0, abs(primal))


def _face_system(D_face, y_face, w, equality, bias):
    """The KKT system of the dual (18) on a face: rows F free, the others'
    alphas fixed with u = w + sum_F alpha_t y_t d_t, so that the free rows
    sit on the margin, y_F (D_F (w + D_F^T Y_F a) + beta) = 1, and (with a
    bias) y_F^T a = ``equality``:

        [ Y_F D_F D_F^T Y_F  y_F ] [ a    ]   [ 1 - Y_F D_F w ]
        [ y_F^T               0  ] [ beta ] = [ equality      ]

    (without a bias the last row and column are left out)."""
    n = y_face.size
    system = np.zeros((n + bias, n + bias))
    system[:n, :n] = (D_face @ D_face.T) * np.outer(y_face, y_face)
    rhs = 1.0 - y_face * (D_face @ w)
    if bias:
        system[:n, n] = system[n, :n] = y_face
        rhs = np.append(rhs, equality)
    return system, rhs


def _ridge_solve(system, rhs, n):
    """x with system x = rhs, the first ``n`` diagonal entries raised by a ridge
    (relative :data:`_ACTIVE_SET_RIDGE`), then one step of iterative
    refinement against the system itself; None where the factorization fails."""
    ridged = system.copy()
    ridged[np.arange(n), np.arange(n)] += _ACTIVE_SET_RIDGE * max(
        float(np.max(np.diag(system)[:n])), 1e-300)
    try:
        factor = scipy.linalg.lu_factor(ridged, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return None
    x = scipy.linalg.lu_solve(factor, rhs, check_finite=False)
    return x + scipy.linalg.lu_solve(factor, rhs - system @ x, check_finite=False)


def _kkt_margin(obj, u, beta):
    """Each row's tolerance in the KKT check, to its own rounding scale
    |u| |d_t| + |beta|: one row far out (a fitted value of 10^6) must not
    loosen every other row's check."""
    return _CROSSOVER_TOL * np.maximum(1.0, np.linalg.norm(u) * obj.row_norms() + abs(beta))


def _kkt_guess(obj, free, bound, weighted):
    """:func:`_crossover`'s solve for one guess of the free rows and the rows
    at C_t: ((u, beta), z, alpha, rows on the wrong side of the margin), or
    None when alpha leaves its box or a free row misses the margin."""
    D, y, C, bias = obj.D, obj.y, obj.C, obj.bias
    n_free = int(np.count_nonzero(free))
    D_free = np.asarray(D[free], dtype=np.float64)
    y_free, C_free = y[free], C[free]
    w_bound = obj.transposed(np.where(bound, C * y, 0.0))
    alpha_free, beta = np.zeros(0), 0.0
    if n_free:
        system, rhs = _face_system(D_free, y_free, w_bound, -float(y[bound] @ C[bound]), bias)
        solution = scipy.linalg.lstsq(system, rhs, lapack_driver="gelsd", check_finite=False)[0]
        alpha_free = solution[:n_free]
        beta = float(solution[n_free]) if bias else 0.0
        slack = _CROSSOVER_TOL * C_free
        if not np.all(np.isfinite(solution)) or np.any(alpha_free < -slack) \
                or np.any(alpha_free > C_free + slack):
            return None
        alpha_free = np.clip(alpha_free, 0.0, C_free)
    elif bias:
        # No free row: beta is not pinned by a margin, and the equality of
        # eq. (18) must hold with the rows at C_t alone.
        if abs(float(y[bound] @ C[bound])) > _CROSSOVER_TOL * float(C[weighted].sum()):
            return None
        scores = obj.scores(w_bound)
        beta = choose_bias(*primal_bias_interval(scores[weighted], y[weighted], C[weighted]))
    u = w_bound + D_free.T @ (alpha_free * y_free)
    fitted = obj.scores(u) + beta
    new_z = y * fitted
    margin = _kkt_margin(obj, u, beta)
    if np.any(np.abs(new_z[free] - 1.0) > margin[free]):
        return None
    zero = weighted & ~free & ~bound
    wrong_side = (bound & (new_z > 1.0 + margin)) | (zero & (new_z < 1.0 - margin))
    alpha = np.zeros(y.size)
    alpha[bound] = C[bound]
    alpha[free] = alpha_free
    return (np.append(u, beta) if bias else u), new_z, alpha, wrong_side


def smoothing_levels(delta_min, first=1.0):
    """The continuation delta = first, first/10, ..., delta_min (each level
    warm-starts the next)."""
    deltas = [max(first, delta_min)]
    while deltas[-1] > delta_min * 1.0001:
        deltas.append(max(deltas[-1] / 10, delta_min))
    return deltas


LOSSES = ("hinge", "squared_hinge")


def check_loss(loss):
    """``loss`` is one of :data:`LOSSES`."""
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}; got {loss!r}.")


def check_rows(D, y, C, tol, alpha0=None):
    """The rows of a public linear solver checked (their callers in the
    library have validated their data; a direct call had NaN costs return
    u = 0 "converged", labels {0, 2} solved, and shapes fail inside numpy):
    ``y`` and ``C`` as float arrays of shape (m,) (a scalar C for every row)."""
    shape = getattr(D, "shape", None)
    if shape is None or len(shape) != 2:
        raise ValueError(f"D must be a matrix of rows (m, p); got shape {shape}.")
    m = shape[0]
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (m,):
        raise ValueError(f"y must have shape ({m},), one label a row of D; got {y.shape}.")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold -1 and 1 only (the flipped labels of eq. 8).")
    C = np.asarray(C, dtype=np.float64)
    if C.ndim == 0:
        C = np.full(m, float(C))
    if C.shape != (m,):
        raise ValueError(f"C must be a number or have shape ({m},); got {C.shape}.")
    if not (np.all(np.isfinite(C)) and np.all(C >= 0.0)):
        raise ValueError("C must be finite and >= 0 (0 leaves a row out).")
    if not (isinstance(tol, numbers.Real) and np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}.")
    if alpha0 is not None:
        start = np.asarray(alpha0, dtype=np.float64)
        if start.shape != (m,) or not np.all(np.isfinite(start)):
            raise ValueError(f"alpha0 must be finite, of shape ({m},); got shape "
                             f"{start.shape}.")
    return y, np.ascontiguousarray(C)


def check_count(name, value, least=1):
    """An iteration limit as an int, refused by name unless a whole number >= ``least``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}; got {value!r}.")
    return int(value)


# The squared hinge C max(0, 1 - z)^2 is the quadratic zone of L_delta for C
# scaled by 2 delta: one Newton level at a delta that no margin reaches.
SQUARED_HINGE_ZONE = 1e8


def solve_linear(D, y, C, *, bias=True, tol=1e-3, delta_min=1e-6, max_newton=200,
                 v0=None, first_smoothing=1.0, loss="hinge"):
    """Minimize F(u, beta) over u (and beta when ``bias``) on difference vectors.

    ``loss="squared_hinge"`` minimizes 1/2 ||u||^2 + sum_t C_t max(0, 1 -
    z_t)^2 instead: it is F_delta with costs 2 delta C_t at
    delta = :data:`SQUARED_HINGE_ZONE`, whose quadratic zone holds every
    margin (checked), so one level of Newton steps minimizes it exactly.

    Parameters
    ----------
    D : ndarray or sparse matrix of shape (m, p)
        Rows d_t = x~'_t - x~_t (in any explicit feature space).  Sparse rows
        (CSR; e.g. identities, two non-zeros a row) make every pass O(non-zeros)
        and each Newton system a conjugate-gradient solve by products.
    y : ndarray of shape (m,)
        Labels in {-1, 1}.
    C : ndarray of shape (m,)
        Per-row costs.
    bias : bool, default=True
    tol : float, default=1e-3
        A smoothing level ends when the Newton decrement is below
        ``tol * 1e-6`` times (1 + F_delta), or the quadratic zone stops changing.
    delta_min : float, default=1e-6
        Final smoothing: the objective is within (delta_min / 2) sum C of F.
    max_newton : int, default=200
        Newton steps per smoothing level (a level of the ice hockey results
        at C = 100, 73 one-hot features, needed 54; each step is cheap next
        to a solution declared inaccurate).
    v0 : ndarray, optional
        Starting point (u, beta), e.g. from a neighbouring C.
    first_smoothing : float, default=1.0
        The first smoothing level (a start next to the optimum, such as a
        calibration fold's, can skip the coarsest; see
        ``solvers.folds.PRIMAL_FOLD_SMOOTHING``).

    loss : {"hinge", "squared_hinge"}, default="hinge"

    Returns
    -------
    LinearResult
    """
    check_loss(loss)
    y, C = check_rows(D, y, C, tol)
    max_newton = check_count("max_newton", max_newton)
    squared = loss == "squared_hinge"
    if squared:
        C = 2.0 * SQUARED_HINGE_ZONE * np.asarray(C, dtype=np.float64)
        delta_min = first_smoothing = SQUARED_HINGE_ZONE
    if sp.issparse(D):
        D = sp.csr_matrix(D, dtype=np.float64)
        D.sum_duplicates()  # canonical rows for the compiled products
    else:
        D = np.ascontiguousarray(D)
    y = np.ascontiguousarray(y, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    obj = _Smoothed(D, y, C, bool(bias))
    n = D.shape[1] + bool(bias)
    v = np.zeros(n) if v0 is None else np.array(v0, dtype=np.float64)
    deltas = smoothing_levels(delta_min, first_smoothing)
    crossed = None  # the hinge optimum's alpha, once the crossover finds it
    total = 0
    converged = True
    z = obj.margins(v)
    weighted = C != 0.0  # rows with C = 0 (a fold's rows left out) do not count
    for delta in deltas:
        level_done = False
        previous_zone = None
        fval = obj.value(v, z, delta)
        level_steps = 0
        for _ in range(max_newton):
            g, H = obj.gradient_hessian(v, z, delta)
            step, decrement, level_done = newton_step(g, H, fval, tol)
            if level_done:
                break
            taken, dz, length = _exact_line_search(obj, v, step, z, delta)
            total += 1
            level_steps += 1
            new_fval = obj.value(v + taken, z + dz, delta)
            if new_fval >= fval:
                # No decrease left at machine precision.
                level_done = True
                break
            fval = new_fval
            full = abs(length - 1.0) <= 1e-12
            v = v + taken
            z = z + dz
            zone = (z > 1 - delta) & (z < 1) & weighted
            if full and previous_zone is not None and np.array_equal(zone, previous_zone):
                # A full Newton step that kept the zone: the exact minimizer of
                # this quadratic piece, hence of F_delta.
                level_done = True
                break
            previous_zone = zone
        converged &= level_done
        if not squared and not obj.sparse:
            exact = _crossover(obj, z, delta, weighted, level_steps)
            if exact is not None:
                # The smoothed solution's rows told the hinge optimum's
                # support vectors: no finer level can improve on it, and a
                # level that ran out of steps before does not matter (the
                # KKT conditions hold).
                v, z, crossed = exact
                converged = True
                break
    if not converged:
        warnings.warn(named_fit(
            f"The linear solver reached max_newton={max_newton} steps at some smoothing "
            "level; the solution may be inaccurate."),
            ConvergenceWarning, stacklevel=3,
        )
    if crossed is not None:
        delta, alpha = 0.0, crossed  # the hinge itself is minimized
    else:
        delta = deltas[-1]
        alpha = _smoothed_alpha(z, y, C, delta)
    u = v[: D.shape[1]].copy()
    beta = float(v[-1]) if bias else 0.0
    scores = z * y - beta  # u^T d_t
    if squared:
        result = squared_hinge_result(u, beta, scores, y, C / (2.0 * delta), bias, total,
                                      converged, alpha)
        if np.any(y * (scores + result.bias) <= 1.0 - SQUARED_HINGE_ZONE):
            raise ValueError(
                "A margin left the squared hinge's quadratic zone: the costs are too large "
                "for the primal solver; lower C.")
        return result
    if bias and z.size:
        # With u fixed, beta minimizes the exact hinge over an interval: take
        # the point of it that the dual solver takes (solvers/_bias.py), so that
        # neither the smoothing nor the order of the rows decides it.
        beta = choose_bias(*primal_bias_interval(scores, y, C))
        z = y * (scores + beta)
    hinge = np.maximum(0.0, 1.0 - z)
    objective = float(0.5 * u @ u + C @ hinge)
    score_scale = float(np.max(np.abs(scores))) if z.size else 0.0
    noise = max(delta, 1e-8) * max(1.0, score_scale)
    return LinearResult(u, beta, alpha, objective, delta, total, bool(converged), noise)


def squared_hinge_result(u, beta, scores, y, C, bias, n_iter, converged, alpha=None):
    """The LinearResult of the squared hinge from a solver's last iterate (u,
    ``beta``) with fitted values ``scores`` = u^T d_t: beta exactly minimizing
    the loss given u, the objective with the costs ``C``, and ``alpha`` (by
    default the dual variables 2 C_t max(0, slack_t) at that beta)."""
    if bias and np.any(C > 0):
        beta = squared_hinge_bias(scores, y, C, start=beta)
    slack = np.maximum(0.0, 1.0 - y * (scores + beta))
    objective = float(0.5 * u @ u + C @ (slack * slack))
    if alpha is None:
        alpha = 2.0 * C * slack
    noise = 1e-8 * max(1.0, float(np.max(np.abs(scores))) if scores.size else 0.0)
    return LinearResult(u, float(beta), alpha, objective, 0.0, n_iter, bool(converged), noise)
