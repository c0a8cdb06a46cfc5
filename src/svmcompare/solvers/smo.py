"""SMO for the SVM duals of SVMcompare and SVMrank: :func:`solve_dual`.

The compiled loop (working-set selection, steps, shrinking, the row cache) is
the C extension :mod:`._smo_core`; this module drives it: warm starts, Newton
steps on the free variables, the progress line and Ctrl-C, the bias and the
result.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from dataclasses import dataclass, replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..exceptions import named_fit
from ..kernels import PRECOMPUTED, KernelSpec
from ._bias import choose_bias, dual_bias_interval
from ._kernel_rows import kernel_pack
from ._newton import free_set_newton
from ._smo_core import COUNTER, DONE, MOST_SHRUNK, N_ITER, PERIOD, STOP, THREADS, WORK, SmoLoop
from .interrupt import StepsLine, run_interruptible
from .threads import solver_threads, thread_count, threads_now


@dataclass(frozen=True)
class DualResult:
    """Solution of the dual (18).

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        Dual variables v of eq. (18).
    bias : float
        The intercept beta of eq. (9) (0 when solved without a bias).
    objective : float
        Dual objective 1/2 v^T Q v - 1^T v at ``alpha``.
    kkt_violation : float
        Maximal KKT violation at return (< tol when converged).
    n_iter : int
        Number of SMO steps.
    converged : bool
    max_shrunk : int
        The most rows that shrinking set aside at one time (0 without it).
    bias_interval : tuple of float
        Every beta in [low, high] is optimal; ``bias`` is the one
        :func:`choose_bias` takes (a point when a variable is free).
    bias_noise : float
        A beta closer to 0 than this is noise: the final KKT violation (beta
        is known to within it), or rounding, 1e-8 max(1, s) with s the scale
        of the fitted values, max_t |u^T (Phi(b_t) - Phi(a_t))| =
        max |(Q alpha)_t|, when that is larger.
    gradient : ndarray of shape (m,) or None
        The dual gradient G = Q alpha - 1 on every row at return (shrunk rows
        reconstructed), so that y_t (G_t + 1) is the fitted value
        u^T (Phi(b_t) - Phi(a_t)) + v^T c_t of row t without a kernel row.
    n_newton : int
        Newton steps on the free variables taken between SMO steps (see
        ``solvers/_newton.py``).
    rows : RowCache or None
        The rows of Q the solve had cached at return (``keep_rows=True``),
        for :func:`q_product` on the same problem.
    """

    alpha: np.ndarray
    bias: float
    objective: float
    kkt_violation: float
    n_iter: int
    converged: bool
    max_shrunk: int = 0
    bias_interval: tuple = (0.0, 0.0)
    bias_noise: float = 0.0
    gradient: np.ndarray = None
    n_newton: int = 0
    rows: object = None  # a RowCache with keep_rows=True


class RowCache:
    """Rows of Q a solve computed (``solve_dual(keep_rows=True)``):
    ``data[slot_of[s]]`` is row s over every row of the problem where
    ``slot_of[s] >= 0`` and ``full`` of that slot (rows computed while rows
    were set aside cover the active ones only).  Up to ``cache_size``
    megabytes: :meth:`release` gives them back once read."""

    def __init__(self, data, slot_of, full):
        self.m = slot_of.size
        self.data, self.slot_of, self.full = data, slot_of, full

    @classmethod
    def empty(cls, m):
        """No cached row, for a problem of m rows."""
        return cls(np.zeros((1, m)), -np.ones(m, dtype=np.int64), np.zeros(1, dtype=np.uint8))

    def arrays(self):
        """(data, slot_of, full) for :func:`q_product`; no row once released."""
        if self.data is None:
            return RowCache.empty(self.m).arrays()
        return self.data, self.slot_of, self.full

    def release(self):
        """Drop the rows."""
        self.data = self.slot_of = self.full = None


# Work done in the calling thread before the loop moves to a worker thread
# (about 20 ms): below it a thread would cost more than the fit.
_INLINE_WORK = 20_000_000
_UNLIMITED_WORK = 2**62  # a budget that cannot overflow when added to clock[1]
# SMO steps before the first Newton step on the free variables (at least m),
# and the most free variables it takes (a dense system of that size).
_NEWTON_AFTER = 1000
_MAX_FREE = 2000


def _loop_work(items, m):
    """Entries the SMO's parallel loops touch: a kernel row's items x features,
    the chunked selection's rows (see threads.PARALLEL_WORK)."""
    features = items.shape[1] if getattr(items, "ndim", 0) == 2 else 1
    return max(items.shape[0] * features, m)


def _smo(kp, pairs, C, alpha, use_bias, tol, max_iter, n_slots, shrinking, n_threads,
         progress=False, gradient0=None, newton=None):
    with solver_threads(n_threads):
        return _smo_in(kp, pairs, C, alpha, use_bias, tol, max_iter, n_slots, shrinking,
                       n_threads, progress, gradient0, newton)


def _smo_in(kp, pairs, C, alpha, use_bias, tol, max_iter, n_slots, shrinking, n_threads,
            progress=False, gradient0=None, newton=None):
    if gradient0 is None:
        gradient0 = np.empty(0)
    loop = SmoLoop(kp, pairs, alpha, n_slots, gradient0)
    clock = loop.clock
    clock[THREADS] = threads_now()  # this thread's, as solver_threads set it
    m = C.shape[0]
    state = np.zeros(6, dtype=np.int64)
    # Steps between shrinkings: LIBSVM's 1,000; 100 from a start whose gradient
    # the caller knew (a calibration fold next to its optimum), where most rows
    # already sit where they end and a fold of ~1,000 steps would otherwise
    # shrink only once it is done (its steps then cost O(active rows): 30%
    # less time at 6,400 pairs).
    warm = gradient0.shape[0] == m
    state[PERIOD] = 100 if warm else 1000
    state[COUNTER] = 1 if warm else min(m, 1000) + 1
    args = (C, alpha, use_bias, tol, shrinking, state)
    # A Newton step on the free variables (``newton``, see _newton.py) every
    # ``interval`` steps when it costs less than the steps since the last one;
    # twice as far apart after one that could not move.
    interval = max(m, _NEWTON_AFTER)
    next_newton = interval if newton is not None else max_iter
    n_newton = 0
    work_before = 0  # the loop's work (clock[WORK], ~ns) at the last Newton step
    loop.steps(*args, min(max_iter, next_newton), _INLINE_WORK)
    line = StepsLine(state[N_ITER:N_ITER + 1]) if progress else None
    try:
        while not state[DONE] and state[N_ITER] < max_iter and clock[STOP] == 0:
            if state[N_ITER] >= next_newton:
                if _newton_pays(alpha, C, clock[WORK] - work_before):
                    before = alpha.copy()
                    if newton(alpha, loop.G) > 0.0:
                        n_newton += 1
                        _moved_gradient(alpha - before, loop)
                    else:
                        interval *= 2
                    work_before = clock[WORK]
                next_newton = state[N_ITER] + interval
            run_interruptible(loop.steps, (*args, min(max_iter, next_newton), _UNLIMITED_WORK),
                              stop_flag=clock[STOP:], n_threads=n_threads, line=line)
    finally:
        if line is not None:
            line.close()
    violation, objective = loop.finish(C, alpha, use_bias)
    # (C = inf, the hard margin, times a row of Q of 0, a pair of equal items,
    # is no scale: it leaked NumPy's "invalid value" warning, an attack, stop 70)
    positive = loop.QD > 0
    scale = float(np.max(C[positive] * loop.QD[positive], initial=0.0))
    rows = RowCache(loop.data, loop.slot_of, loop.full)
    return (alpha, loop.G, int(state[N_ITER]), violation, objective, int(state[MOST_SHRUNK]),
            scale, n_newton, rows)


def _newton_pays(alpha, C, work):
    """Whether to try a Newton step now: its |F|^3 system costs less than the
    SMO work since the last one (about 4 flops a nanosecond, the unit of
    ``work``)."""
    n_free = np.count_nonzero((alpha > 0.0) & (alpha < C))
    return n_free**3 / 4.0 <= work


def _moved_gradient(change, loop):
    """G += Q change on the active rows, for a move of free variables (which are
    always active); set-aside rows are rebuilt from alpha when they return."""
    active = loop.rows[:loop.size[0]]
    moved = np.empty_like(loop.G)
    loop.gradient_on(active, change, moved)  # (Q change)_t - 1
    loop.G[active] += moved[active] + 1.0


def _checked_gradient(gradient0, m, alpha0):
    if gradient0 is None:
        return None
    if alpha0 is None:
        raise ValueError("gradient0 needs the alpha0 it was computed at.")
    gradient0 = np.ascontiguousarray(gradient0, dtype=np.float64)
    if gradient0.shape != (m,) or not np.all(np.isfinite(gradient0)):
        raise ValueError(f"gradient0 must hold {m} finite values, one per row.")
    return gradient0


def _snap_to_bounds(alpha, C):
    """Put variables within rounding of a bound exactly on it.

    The pair update with two different per-row C (class weights) computes
    alpha_j = C_i - (alpha_i - alpha_j) and can leave alpha_j at C_j (1 - 3e-15);
    read as free, such a variable would fix beta at one end of its interval.
    """
    # Rounding noise is relative to the values that met in the update: C near
    # the upper bound; near 0, C or (when C is far above every alpha, e.g.
    # C = 1e30 on separable data) the largest alpha.
    finite = np.isfinite(C)  # C = inf (hard margin) has no upper bound to snap to
    C_finite = np.where(finite, C, 0.0)
    largest = float(alpha.max()) if alpha.size else 0.0
    low = 1e-12 * np.where(finite, np.minimum(C_finite, largest), largest)
    alpha[alpha <= low] = 0.0
    upper = finite & (alpha >= C_finite * (1.0 - 1e-12))
    alpha[upper] = C[upper]


def solve_dual(problem, kernel: KernelSpec, *, bias=True, tol=1e-3, max_iter=None,
               cache_size=200.0, shrinking=True, alpha0=None, gram=None, n_threads=None,
               progress=False, gradient0=None, newton=True, keep_rows=False):
    """Solve the dual (18) (or the no-bias RankSVM dual) of a binary problem.

    Parameters
    ----------
    problem : svmcompare._problem.BinaryProblem
        Items, the index pairs (a, b) of each row, labels, per-row C and the
        rows' pair context (a linear block c_s . c_t added to K~).
    kernel : KernelSpec
    bias : bool, default=True
        Whether the primal has an unregularized bias beta (SVMcompare, eq. 9);
        False drops the equality constraint (SVMrank, eq. 3).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    max_iter : int or None
        Maximum SMO steps; None means max(10_000_000, 100 m).
    cache_size : float, default=200
        Megabytes for the LRU cache of rows of Q (less the item Gram matrix
        of a callable kernel, which the solver computes; a ``gram`` passed
        in is the caller's memory).
    shrinking : bool, default=True
        Set aside rows at a bound whose gradient keeps them there (LIBSVM's
        shrinking), so that selection, gradient updates and new rows of Q cost
        O(active rows); the gradient of the set-aside rows is reconstructed
        before the final check on the whole problem.
    alpha0 : ndarray of shape (m,), optional
        Feasible starting point (warm start).
    gradient0 : ndarray of shape (m,), optional
        Q alpha0 - 1 when the caller knows it, e.g. k (G + 1) - 1 for
        alpha0 = k alpha of a solution with gradient G on the same rows (a C
        path): spares the kernel rows of every support vector at the start.
    gram : ndarray of shape (n_items, n_items), optional
        The item kernel matrix k(items, items), when the caller has it (a
        path of fits over C shares it); rows of K~ are then gathered from it.
    n_threads : int or None, default=None
        Threads that compute the rows of K~ over all items (None: numba's
        default, every core).  Each kernel value is computed alone, so the
        solution has the same bits on any number of threads.
    progress : bool, default=False
        Show the steps so far on stderr once the solve runs past
        :data:`PROGRESS_AFTER` seconds.
    newton : bool, default=True
        Every m (at least 1,000) SMO steps, solve the problem restricted to the
        free variables (0 < alpha_t < C_t) as a linear system and step toward
        its solution (``solvers/_newton.py``): the same optimum, in far fewer
        steps when SMO crawls (large C on smooth kernels).  Only when the
        system costs less than the SMO steps since the last one, with at most
        ``_MAX_FREE`` free variables and their kernel block within
        ``cache_size``.
    keep_rows : bool, default=False
        Return the rows of Q cached at the end (``DualResult.rows``, up to
        ``cache_size``) for :func:`q_product` on this problem: the
        calibration folds' starts read the rows of the support vectors they
        drop from there instead of computing them.

    Rows equal in (a, b, y, context) have equal rows of Q: where at least a
    tenth of the rows repeat another (identities only: a few hundred
    distinct pairs of LLMs or engines among thousands of judgments), the dual
    is solved with one row per group, C the group's sum, and the group's
    alpha is filled into its rows in turn (the same u, objective and
    gradient: an optimum of the original dual).  Not with ``keep_rows``,
    whose rows are indexed by the original rows.

    Returns
    -------
    DualResult
    """
    if not (isinstance(tol, numbers.Real) and np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}.")
    options = dict(bias=bias, tol=tol, max_iter=max_iter, cache_size=cache_size,
                   shrinking=shrinking, gram=gram, n_threads=n_threads, progress=progress,
                   newton=newton)
    groups = None if keep_rows else _duplicate_groups(problem)
    if groups is not None:
        return _solve_merged(problem, kernel, groups, alpha0, gradient0, **options)
    return _solve_rows(problem, kernel, alpha0=alpha0, gradient0=gradient0,
                       keep_rows=keep_rows, **options)


def _solve_rows(problem, kernel, *, bias, tol, max_iter, cache_size, shrinking, alpha0, gram,
                n_threads, progress, gradient0, newton, keep_rows):
    """:func:`solve_dual` on the problem's rows as they are."""
    items = np.ascontiguousarray(problem.items, dtype=np.float64)
    a = np.ascontiguousarray(problem.a, dtype=np.int64)
    b = np.ascontiguousarray(problem.b, dtype=np.int64)
    y = np.ascontiguousarray(problem.y, dtype=np.float64)
    C = np.ascontiguousarray(problem.C, dtype=np.float64)
    context = np.ascontiguousarray(problem.context, dtype=np.float64)
    m = a.shape[0]
    # cache_size bounds what the solver allocates: the item Gram matrix it
    # computes for a precomputed or callable kernel comes out of it, a ``gram``
    # the caller holds (a C path's item kernel) does not.  (Counting the path's
    # 512 MB against the 200 MB default left no row cache and no Newton step:
    # every step gathered two rows of Q from the Gram matrix again; club
    # football's RBF path at C = 12: 86,865 steps in 3.3 s, now 1.3 s.)
    own_gram = gram is None and kernel.code == PRECOMPUTED
    kp = kernel_pack(items, kernel, gram)
    code, gram = kp[0], kp[6]
    budget = max(0.0, float(cache_size) * 2**20 - (gram.nbytes if own_gram else 0))
    n_slots = int(min(m, max(2, budget // (8.0 * m))))

    if alpha0 is None:
        alpha = np.zeros(m)
    else:
        alpha = np.clip(np.array(alpha0, dtype=np.float64), 0.0, C)
    if max_iter is None:
        max_iter = max(10_000_000, 100 * m)
    newton_step = None
    if newton:
        def item_kernel(index):
            if code == PRECOMPUTED:
                return gram[np.ix_(index, index)]
            return kernel.block(items[index], items[index])

        # Its kernel block over up to 2 |F| items stays within cache_size.
        max_free = int(min(_MAX_FREE, np.sqrt(budget / 8.0) / 2))
        newton_step = functools.partial(free_set_newton, (a, b, y, context), item_kernel,
                                        C=C, use_bias=bool(bias), max_free=max_free)
    alpha, G, n_iter, violation, objective, max_shrunk, scale, n_newton, rows = _smo(
        kp, (a, b, y, context), C, alpha, bool(bias), float(tol), int(max_iter), n_slots,
        bool(shrinking), thread_count(n_threads, _loop_work(items, m)),  # checked, no work yet
        progress, _checked_gradient(gradient0, m, alpha0), newton_step,
    )
    _snap_to_bounds(alpha, C)
    converged = bool(violation < tol)
    if not converged:
        # The advice fits the kernel (an attack, stop 70: an RBF fit was told of
        # low-rank kernels and of the solver='auto' it already had).
        from ..kernels import LAPLACIAN, LINEAR, POLY, RBF

        low_rank = {LINEAR: " A linear kernel is solved by the primal solver in a few Newton "
                            "steps (solver='linear'); otherwise",
                    POLY: " A polynomial kernel is low-rank: solver='nystroem' solves its "
                          "explicit features in the primal; otherwise"}.get(kernel.code, "")
        lower = f"{low_rank} lower C" if low_rank else " Lower C"
        widths = " or gamma" if kernel.code in (POLY, RBF, LAPLACIAN) else ""
        warnings.warn(named_fit(
            f"SMO stopped after max_iter={max_iter} steps with KKT violation "
            f"{violation:.3g} > tol={tol}: the solution is not optimal. SMO converges "
            f"slowly when C times the kernel scale is large (here C * max K~_tt = "
            f"{scale:.3g}).{lower}{widths}, or raise max_iter."),
            ConvergenceWarning,
            stacklevel=3,
        )
    interval = dual_bias_interval(alpha, G, y, C) if bias else (0.0, 0.0)
    score_scale = float(np.max(np.abs(G + 1.0))) if m else 0.0
    # The solve pins beta down to its KKT violation, not to rounding: a beta
    # inside it has no sign the data decide (an attack, stop 70: 120 games of
    # 6 ids, beta -2e-5 at a violation of 3e-4, -2e-8 at tol 1e-6, 9e-9 with
    # the duplicate rows merged: scores of 2e4 to 2e7 from one tolerance).
    # (at most tol: an unconverged solve's violation is O(1), and every beta
    # would be noise, a degenerate fit blamed on the ties; a review)
    noise = max(1e-8 * max(1.0, score_scale), min(float(violation), float(tol)) if bias else 0.0)
    return DualResult(alpha, choose_bias(*interval), float(objective), float(violation),
                      int(n_iter), converged, int(max_shrunk), interval,
                      noise, G, n_newton, rows if keep_rows else None)


# Rows merged only where the groups are at most this share of the rows.
_MERGE_SHARE = 0.9


def merges_duplicates(problem):
    """Whether :func:`solve_dual` solves ``problem`` with its equal rows merged
    (as it does without ``keep_rows``).  Such a dual's optimum is seldom
    unique, and the merged and unmerged solves end at different ones: a fit
    that wants the same solution as without ``keep_rows`` asks for no rows."""
    return _duplicate_groups(problem) is not None


def _duplicate_groups(problem):
    """(first row of each group, each row's group) of the rows equal in (a, b,
    y, context), or None when fewer than a tenth of the rows repeat another."""
    m = problem.y.size
    if m < 10:
        return None
    key = np.column_stack([problem.a, problem.b, problem.y, problem.context]).astype(np.float64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    if first.size > _MERGE_SHARE * m:
        return None
    return first, np.ravel(inverse)


def _solve_merged(problem, kernel, groups, alpha0, gradient0, **options):
    """:func:`solve_dual` on one row per group of equal rows, then the group's
    alpha spread over its rows (:func:`_filled`)."""
    first, inverse = groups
    m = problem.y.size
    C = np.asarray(problem.C, dtype=np.float64)
    group_C = np.bincount(inverse, weights=C, minlength=first.size)
    merged = replace(problem, a=problem.a[first], b=problem.b[first], y=problem.y[first],
                     C=group_C, context=problem.context[first], pair=problem.pair[first],
                     flipped=problem.flipped[first])
    group_alpha0 = None
    if alpha0 is not None:
        start = np.clip(np.asarray(alpha0, dtype=np.float64), 0.0, C)
        group_alpha0 = np.bincount(inverse, weights=start, minlength=first.size)
    group_gradient0 = None
    if gradient0 is not None:  # equal rows have equal gradients: a group's first row's
        group_gradient0 = _checked_gradient(gradient0, m, alpha0)[first]
    result = _solve_rows(merged, kernel, alpha0=group_alpha0, gradient0=group_gradient0,
                         keep_rows=False, **options)
    alpha = _filled(result.alpha, inverse, C)
    _snap_to_bounds(alpha, C)
    gradient = None if result.gradient is None else result.gradient[inverse]
    return replace(result, alpha=alpha, gradient=gradient)


def _filled(group_alpha, inverse, C):
    """Each group's alpha spread over its rows in order, each filled to its
    C_t before the next: at most one free row a group, as an unmerged solve
    leaves them (a split in proportion to C made every row of a free group
    free, which swelled the support and the free set that
    ``calibration="loo"`` works on).  Equal rows have equal margins, so a
    row at 0 or at C_t satisfies the KKT conditions wherever its group's
    does; an infinite C (the hard margin) puts the alpha on the first row."""
    order = np.argsort(inverse, kind="stable")
    grouped = inverse[order]
    # A row never takes more than its group's alpha: C capped there is finite
    # (the hard margin's C = inf) and fills the same way.
    room = np.minimum(C[order], group_alpha[grouped])
    filled_before = np.cumsum(room) - room
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    # Capacity of the group's earlier rows (its first row: 0).
    before = filled_before - np.repeat(filled_before[starts],
                                       np.diff(np.r_[starts, grouped.size]))
    alpha = np.empty_like(C)
    alpha[order] = np.clip(group_alpha[grouped] - before, 0.0, room)
    return alpha
