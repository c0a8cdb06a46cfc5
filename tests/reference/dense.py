"""Independent references for the tests: dense matrices built straight from the
paper's definitions and an interior-point solver made for convex QPs (Clarabel).

Nothing here imports the package's pair flips or solvers.  An interior-point
method converges in a few dozen Newton steps whatever the conditioning of the
problem's active set, so the reference does not depend on a line search that
may stall (SciPy's SLSQP did, on problems the library solves correctly).
"""

import clarabel
import numpy as np
from scipy import sparse


def flipped_from_definition(Xi, Xip, y):
    """X~, X~', y~ of eq. (8), written out block by block."""
    blocks = [(y == 1, Xi, Xip, 1.0), (y == -1, Xip, Xi, 1.0),
              (y == 0, Xi, Xip, -1.0), (y == 0, Xip, Xi, -1.0)]
    Xt = np.concatenate([A[mask] for mask, A, _, _ in blocks])
    Xtp = np.concatenate([B[mask] for mask, _, B, _ in blocks])
    yt = np.concatenate([np.full(mask.sum(), label) for mask, _, _, label in blocks])
    return Xt, Xtp, yt


def ktilde_from_definition(Xt, Xtp, kernel):
    """K~ = M^T K M (eq. 18) with K the 2m x 2m kernel of eq. (14) and M = [-I I]^T."""
    m = Xt.shape[0]
    allx = np.concatenate([Xt, Xtp])
    K = kernel(allx, allx)
    M = np.concatenate([-np.eye(m), np.eye(m)])
    return M.T @ K @ M


def rbf(gamma):
    def k(A, B):
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
        return np.exp(-gamma * d2)
    return k


def dual_objective(alpha, Q):
    return 0.5 * alpha @ Q @ alpha - alpha.sum()


def solve_qp(P, q, A_eq=None, b_eq=None, A_ineq=None, b_ineq=None, tol=1e-10):
    """min 1/2 x^T P x + q^T x  s.t.  A_eq x = b_eq,  A_ineq x <= b_ineq, by Clarabel.

    Raises AssertionError unless Clarabel reports the problem solved to ``tol``
    (gap and feasibility), or, when it reports only "almost solved" there (badly
    scaled duals: K~ up to 1e7 with C = 1e5), solved to 100 ``tol`` on a
    second try; so a test never compares against a failed reference.
    """
    n = len(q)
    blocks, rhs, cones = [], [], []
    if A_eq is not None:
        blocks.append(np.atleast_2d(A_eq))
        rhs.append(np.atleast_1d(b_eq))
        cones.append(clarabel.ZeroConeT(len(rhs[-1])))
    if A_ineq is not None:
        blocks.append(np.atleast_2d(A_ineq))
        rhs.append(np.atleast_1d(b_ineq))
        cones.append(clarabel.NonnegativeConeT(len(rhs[-1])))
    A = sparse.csc_matrix(np.vstack(blocks)) if blocks else sparse.csc_matrix((0, n))
    b = np.concatenate(rhs) if rhs else np.zeros(0)
    # Clarabel reads the upper triangle of P; symmetrize against rounding in P itself.
    P = sparse.triu(sparse.csc_matrix(0.5 * (P + P.T)), format="csc")
    for attempt_tol in (tol, 100.0 * tol):
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = attempt_tol
        settings.max_iter = 500
        solution = clarabel.DefaultSolver(P, np.asarray(q, dtype=float), A, b, cones,
                                          settings).solve()
        if str(solution.status) != "AlmostSolved":
            break
    assert str(solution.status) == "Solved", f"reference QP: {solution.status}"
    return np.asarray(solution.x)


def solve_dual_reference(Q, y, C, bias=True):
    """min 1/2 a^T Q a - 1^T a, 0 <= a <= C, (y^T a = 0 if bias): the dual (18)."""
    m = Q.shape[0]
    C = np.broadcast_to(np.asarray(C, dtype=float), (m,))
    eye = np.eye(m)
    alpha = solve_qp(Q, -np.ones(m),
                     A_eq=y[None, :] if bias else None, b_eq=np.zeros(1) if bias else None,
                     A_ineq=np.vstack([-eye, eye]), b_ineq=np.concatenate([np.zeros(m), C]))
    # The interior point stays strictly inside the box; project the last 1e-12.
    return np.clip(alpha, 0.0, C)


def kkt_violation(alpha, Q, y, C, beta, tol_bound=1e-9):
    """Largest violation of the SVM KKT conditions in margin units.

    With f_t = sum_s alpha_s y_s K~_ts + beta and margin y_t f_t:
    alpha_t = 0 needs y_t f_t >= 1, alpha_t = C needs y_t f_t <= 1, and a
    free alpha_t needs y_t f_t = 1.
    """
    C = np.broadcast_to(np.asarray(C, dtype=float), alpha.shape)
    grad = Q @ alpha  # = y_t sum_s alpha_s y_s K~_ts
    margin = grad + y * beta
    at_lower = alpha <= tol_bound
    at_upper = alpha >= C - tol_bound
    free = ~(at_lower | at_upper)
    v = np.zeros_like(alpha)
    v[at_lower] = np.maximum(0.0, 1.0 - margin[at_lower])
    v[at_upper] = np.maximum(0.0, margin[at_upper] - 1.0)
    v[free] = np.abs(margin[free] - 1.0)
    return float(v.max())
