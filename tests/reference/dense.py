"""Independent references for the tests: dense matrices built straight from the
paper's definitions and a generic QP solver (SciPy's SLSQP).

Nothing here imports the package's pair flips or solvers.
"""

import numpy as np
from scipy.optimize import minimize


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


def solve_dual_slsqp(Q, y, C, bias=True):
    """min 1/2 a^T Q a - 1^T a, 0 <= a <= C, (y^T a = 0 if bias) by SLSQP."""
    m = Q.shape[0]
    C = np.broadcast_to(np.asarray(C, dtype=float), (m,))
    constraints = [{"type": "eq", "fun": lambda a: y @ a, "jac": lambda a: y}] if bias else []
    res = minimize(
        lambda a: dual_objective(a, Q), np.zeros(m), jac=lambda a: Q @ a - 1.0,
        bounds=list(zip(np.zeros(m), C, strict=True)), constraints=constraints, method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 5000},
    )
    assert res.success, res.message
    return res.x


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
