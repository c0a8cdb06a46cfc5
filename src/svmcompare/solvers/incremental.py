"""The squared hinge refitted as rows arrive, without a pass per Newton step
over the rows seen before (issue 32: a week of new results).

The problem is :mod:`solvers.newton_cg`'s, eq. (15) with the squared hinge on
the rows d_t of the flipped data (eq. 8), with w = (u, beta) and r_t = (d_t, 1):

    F(w) = 1/2 ||u||^2 + sum_t C_t max(0, 1 - y_t w^T r_t)^2.

F is piecewise quadratic: while the set A of active rows (y_t w^T r_t < 1)
stays the same it equals its expansion at a point w0,

    F(w0) + g(w0)^T (w - w0) + 1/2 (w - w0)^T (I_u + H_A) (w - w0),
    H_A = sum_{t in A} 2 C_t r_t r_t^T,

so the state kept after a solve is the loss's part of g and H at the solution
((p + 1)-vectors and a sparse (p + 1)^2 matrix: for identities a weighted
graph Laplacian of the ids that met, smaller than the rows when pairs repeat).
New rows add their terms; a factor on the costs of a group of earlier rows (a
time decay, class weights that moved with the new labels) multiplies the
group's terms.  The model's minimizer is one linear system, solved by
conjugate gradients on products with H (no pass over the rows); then one pass
over the rows finds those that changed sides.  None: the model was F there,
and the point is F's minimizer to the system's tolerance (the gradient goal of
a cold solve).  Some: their terms move (added or removed, at the new point)
and the model is solved again: a generalized Newton method with full steps,
which from a nearby start takes a few rounds (10,000 ids, 1,000,000 games
and 20,000 more: 3 rounds, 783 and then 7 rows changing sides).  A round whose
objective does not fall hands the problem to the trust-region solver on every
row (:func:`newton_cg.solve_squared_hinge_cg`, from the last point).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .linear import squared_hinge_result
from .newton_cg import conjugate_gradients, solve_squared_hinge_cg

MAX_ROUNDS = 50
# Up to this many unknowns the groups' Hessians are dense and each round's
# system is solved by Cholesky (8 MB a group at 1,000: a league's teams, an
# arena's models); past it they stay sparse and conjugate gradients solve it.
DENSE_MAX = 1_000


@dataclass
class _Block:
    """Rows added together: r_t (CSR, the bias column last), labels, costs,
    groups, whether each row was active at the state's point and its fitted
    value w^T r_t there."""

    rows: sp.csr_matrix
    y: np.ndarray
    C: np.ndarray
    group: np.ndarray
    active: np.ndarray
    fitted: np.ndarray = None


class SquaredHingeIncrement:
    """The squared-hinge problem of every row added so far, solved after each
    :meth:`add` from the solution before it.

    Parameters
    ----------
    n_groups : int, default=1
        Row groups whose costs :meth:`add` can scale separately (the flipped
        labels of eq. (8), whose class weights move with the label counts).
    bias : bool, default=True
        A free beta (eq. 15); False: beta = 0.
    tol : float, default=1e-3
        As :func:`newton_cg.solve_squared_hinge_cg`: the rounds stop when the
        gradient's norm is at most ``1e-5 * tol`` times its norm at w = 0.
    """

    def __init__(self, n_groups=1, bias=True, tol=1e-3):
        if isinstance(n_groups, bool) or not isinstance(n_groups, int | np.integer) \
                or n_groups < 1:
            raise ValueError(f"n_groups must be a positive integer; got {n_groups!r}.")
        real = not isinstance(tol, bool) and isinstance(tol, int | float | np.floating
                                                         | np.integer)
        try:
            value = float(tol) if real else np.nan
        except OverflowError:  # an int past float's range
            value = np.inf
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"tol must be a finite number > 0; got {tol!r}.")
        self.n_groups = int(n_groups)
        self.bias = bool(bias)
        self.tol = value
        self.blocks = []
        self.w = None
        self.rounds = 0  # rounds of the last add (0: a full solve)

    # -- the rows ----------------------------------------------------------------

    def _with_bias(self, D):
        rows = sp.csr_matrix(D, dtype=np.float64)
        if self.bias:
            rows = sp.hstack([rows, np.ones((rows.shape[0], 1))], format="csr")
        return rows

    def _check(self, D, y, C, group):
        if (D.dtype if sp.issparse(D) else np.asarray(D).dtype).kind == "c":
            raise TypeError("D must be real; got complex rows.")
        if not sp.issparse(D):
            D = np.asarray(D, dtype=np.float64)
        if D.ndim != 2:
            raise ValueError(f"D must be a matrix of rows (m, p); got shape {D.shape}.")
        if not np.all(np.isfinite(D.data if sp.issparse(D) else D)):
            raise ValueError("D must be finite.")
        m = D.shape[0]
        y = np.ascontiguousarray(y, dtype=np.float64)
        C = np.ascontiguousarray(C, dtype=np.float64)
        if group is None:
            group = np.zeros(m, dtype=np.int64)
        else:
            given = np.asarray(group)
            if given.dtype.kind not in "iuf" or not np.all(np.isfinite(given)) \
                    or not np.all(given == np.round(given)):
                raise ValueError("group must hold whole numbers (each row's group index).")
            group = np.ascontiguousarray(given, dtype=np.int64)
        if y.shape != (m,) or C.shape != (m,) or group.shape != (m,):
            raise ValueError(f"y, C and group must have shape ({m},); got {y.shape}, "
                             f"{C.shape} and {group.shape}.")
        if not np.all(np.abs(y) == 1.0):
            raise ValueError("y must hold -1 and 1 only.")
        if not (np.all(np.isfinite(C)) and np.all(C >= 0.0)):
            raise ValueError("C must be finite and >= 0.")
        if group.size and (group.min() < 0 or group.max() >= self.n_groups):
            raise ValueError(f"group must lie in 0..{self.n_groups - 1}.")
        if self.blocks and D.shape[1] + self.bias != self.blocks[0].rows.shape[1]:
            raise ValueError(f"D has {D.shape[1]} columns; the rows before had "
                             f"{self.blocks[0].rows.shape[1] - self.bias}.")
        return D, y, C, group

    def _all(self, name):
        return np.concatenate([getattr(block, name) for block in self.blocks])

    # -- the expansion at self.w ---------------------------------------------------

    def _terms(self, rows, y, C, slack, group):
        """Add the loss terms of ``rows`` (active at their ``slack``) to each
        group's gradient and Hessian; a negative C removes them."""
        for k in range(self.n_groups):
            mine = group == k
            if not mine.any():
                continue
            part, weight = rows[mine], 2.0 * C[mine]
            self.gradient[k] += part.T @ (-weight * y[mine] * slack[mine])
            term = part.T @ part.multiply(weight[:, None]).tocsr()
            if self.dense:
                self.hessian[k] += term.toarray()
            else:
                self.hessian[k] = (self.hessian[k] + term).tocsr()

    def _pass(self, block):
        """The block's fitted values, slack and active rows at self.w; each
        group's loss value gains the block's."""
        block.fitted = block.rows @ self.w
        slack = 1.0 - block.y * block.fitted
        active = (slack > 0.0) & (block.C > 0.0)
        self.loss += np.bincount(block.group, weights=block.C * np.where(active, slack, 0.0) ** 2,
                                 minlength=self.n_groups)
        return slack, active

    def _add_zero_gradient(self, block):
        # At w = 0 every row is active with slack 1: the scale of the goal.
        for k in range(self.n_groups):
            mine = block.group == k
            self.zero_gradient[k] += block.rows[mine].T @ (-2.0 * block.C[mine] * block.y[mine])

    def _add_block(self, block):
        """A block's terms at self.w (its own pass)."""
        slack, block.active = self._pass(block)
        on = block.active
        self._terms(block.rows[on], block.y[on], block.C[on], slack[on], block.group[on])
        self._add_zero_gradient(block)

    def _expand(self):
        """The groups' terms at self.w from every block (a full pass)."""
        n = self.blocks[0].rows.shape[1]
        self.dense = n <= DENSE_MAX
        self.gradient = [np.zeros(n) for _ in range(self.n_groups)]
        self.hessian = [np.zeros((n, n)) if self.dense else sp.csr_matrix((n, n))
                        for _ in range(self.n_groups)]
        self.loss = np.zeros(self.n_groups)
        self.zero_gradient = [np.zeros(n) for _ in range(self.n_groups)]
        for block in self.blocks:
            self._add_block(block)

    def _ridge(self, n):
        ridge = np.ones(n)
        if self.bias:
            ridge[-1] = 0.0
        return ridge

    # -- public ----------------------------------------------------------------------

    def add(self, D, y, C, group=None, scale=None):
        """Add rows and solve the problem of every row so far.

        Parameters
        ----------
        D : sparse matrix or ndarray of shape (m, p)
            The new rows d_t (features, then context columns).
        y : ndarray of shape (m,)
            Labels in {-1, 1}.
        C : ndarray of shape (m,)
            Costs (>= 0).
        group : ndarray of shape (m,), optional
            Each row's group in 0..n_groups - 1 (default 0).
        scale : float or ndarray of shape (n_groups,), optional
            Factors on the costs of the rows added before, per group.

        Returns
        -------
        LinearResult
            Over every row so far, in the order added; ``n_iter`` the rounds
            (a first add: the Newton steps of the full solve).  Its beta is
            the rounds' own (the gradient goal includes beta's component),
            not re-minimized as a full solve's is.
        """
        D, y, C, group = self._check(D, y, C, group)
        factor = np.ones(self.n_groups) if scale is None else \
            np.broadcast_to(np.asarray(scale, dtype=np.float64), (self.n_groups,)).copy()
        if not (np.all(np.isfinite(factor)) and np.all(factor >= 0.0)):
            raise ValueError(f"scale must be finite and >= 0; got {scale!r}.")
        block = _Block(self._with_bias(D), y, C, group, np.zeros(y.size, dtype=bool))
        self.blocks.append(block)
        if len(self.blocks) == 1:
            return self._solve_all(start=None)
        self._scale(factor)
        self._add_block(block)
        return self._rounds()

    def _scale(self, factor):
        for block in self.blocks[:-1]:
            block.C = block.C * factor[block.group]
            block.active &= block.C > 0.0
        for k in range(self.n_groups):
            self.gradient[k] = self.gradient[k] * factor[k]
            self.hessian[k] = self.hessian[k] * factor[k]
            self.zero_gradient[k] = self.zero_gradient[k] * factor[k]
        self.loss = self.loss * factor

    def _goal(self):
        return 1e-5 * self.tol * float(np.linalg.norm(sum(self.zero_gradient)))

    def _objective(self):
        u = self.w[:self.w.size - self.bias]
        return 0.5 * float(u @ u) + float(self.loss.sum())

    def _model_gradient(self, ridge):
        return ridge * self.w + sum(self.gradient)

    def _newton_step(self, ridge, gradient, rtol):
        """The model's step: (I_u + sum H) step = -gradient."""
        hessian = sum(self.hessian)
        if self.dense:
            system = hessian + np.diag(ridge)
            try:
                return scipy.linalg.solve(system, -gradient, assume_a="pos")
            except (np.linalg.LinAlgError, ValueError):
                pass  # singular (beta without an active row): conjugate gradients
        diagonal = ridge + np.asarray(hessian.diagonal())
        diagonal[diagonal <= 0.0] = 1.0
        system = LinearOperator(hessian.shape, matvec=lambda v: ridge * v + hessian @ v,
                                dtype=np.float64)
        return conjugate_gradients(system, -gradient, rtol=rtol, preconditioner=1.0 / diagonal)

    def _rounds(self):
        n = self.w.size
        ridge = self._ridge(n)
        goal = self._goal()
        before = self._objective()
        for round_ in range(1, MAX_ROUNDS + 1):
            self.rounds = round_
            gradient = self._model_gradient(ridge)
            norm = float(np.linalg.norm(gradient))
            step = self._newton_step(ridge, gradient,
                                     rtol=min(0.1, 0.1 * goal / norm) if norm > 0 else 0.1)
            changed = self._move(step)
            after = self._objective()
            if after > before + 1e-12 * max(abs(before), 1.0):
                return self._solve_all(start=self.w - step)  # the step went uphill
            before = after
            if not changed and float(np.linalg.norm(self._model_gradient(ridge))) <= goal:
                return self._result()
        return self._solve_all(start=self.w)

    def _move(self, step):
        """w += step: the expansion moved to the new point, then one pass over
        the rows for those that changed sides; True when some did."""
        for k in range(self.n_groups):
            self.gradient[k] = self.gradient[k] + self.hessian[k] @ step
        self.w = self.w + step
        self.loss = np.zeros(self.n_groups)
        turned_rows, parts = [], []
        for block in self.blocks:
            slack, active = self._pass(block)
            turned = np.flatnonzero(active != block.active)
            if turned.size:
                # The expansion holds a row's term at the new point as if it
                # kept its side (-2 C y slack r, exact for a quadratic): add
                # it where the row turned active, remove it where inactive.
                sign = np.where(active[turned], 1.0, -1.0)
                turned_rows.append(block.rows[turned])
                parts.append((block.y[turned], sign * block.C[turned], slack[turned],
                              block.group[turned]))
                block.active = active
        if not parts:
            return False
        y, C, slack, group = (np.concatenate(column) for column in zip(*parts, strict=True))
        self._terms(sp.vstack(turned_rows, format="csr"), y, C, slack, group)
        return True

    def _solve_all(self, start):
        """The trust-region solver on every row (a first add, or a round that
        did not descend), then the expansion at its solution."""
        rows = sp.vstack([block.rows for block in self.blocks], format="csr")
        D = rows[:, :rows.shape[1] - 1] if self.bias else rows
        result = solve_squared_hinge_cg(D, self._all("y"), self._all("C"), bias=self.bias,
                                        tol=self.tol, v0=start)
        self.w = np.append(result.u, result.bias) if self.bias else result.u.copy()
        self.rounds = 0
        self._expand()
        return result

    def _result(self):
        u = self.w[:self.w.size - self.bias].copy()
        beta = float(self.w[-1]) if self.bias else 0.0
        scores = self._all("fitted") - beta  # u^T d_t, from the last pass
        return squared_hinge_result(u, beta, scores, self._all("y"), self._all("C"),
                                    False, self.rounds, True)
