"""The simulated squared-norm patterns of section 4.1 of the paper."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

from .._threshold import labels_at_threshold
from ..pairs import make_pairs

# Half-widths of the uniform step x' - x, per coordinate, as in the paper's scripts.
_DELTA_RANGE = {"l2": (-1.0, 0.5), "l1": (-0.5, 0.5), "linf": (-1.0, 1.0)}
_MAX_BATCHES = 1000


def latent_rank(Z, norm="l1"):
    """The latent ranking function r(x) of the simulations.

    ``"l2"``: ||x||_2^2, ``"l1"``: ||x||_1^2, ``"linf"``: ||x||_inf^2.

    Parameters
    ----------
    Z : array-like of shape (n_items, n_features)
    norm : {"l1", "l2", "linf"}

    Returns
    -------
    r : ndarray of shape (n_items,)
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"Z must be 2-D (n_items, n_features); got shape {Z.shape}.")
    if norm == "l2":
        return np.sum(Z * Z, axis=1)
    if norm == "l1":
        return np.sum(np.abs(Z), axis=1) ** 2
    if norm == "linf":
        return np.max(np.abs(Z), axis=1) ** 2
    raise ValueError(f"norm must be 'l1', 'l2' or 'linf'; got {norm!r}.")


def make_norm_pairs(n_pairs, norm="l1", equality_fraction=0.5, noise=0.25, random_state=None):
    """Simulated labeled pairs with a squared-norm latent rank (section 4.1).

    x ~ U(-2, 2)^2 and x' = x + delta, each coordinate of delta uniform on
    (-1, 1/2) for ``"l2"``, (-1/2, 1/2) for ``"l1"`` and (-1, 1) for
    ``"linf"``.  The label is y = t_1(r(x') - r(x) + eps) (eq. 4) with
    eps ~ N(0, noise^2) and r from :func:`latent_rank`.  Candidate pairs are
    drawn until exactly round(n_pairs * equality_fraction) equality pairs and
    the rest inequality pairs are available; the result is shuffled.

    Parameters
    ----------
    n_pairs : int
    norm : {"l1", "l2", "linf"}, default="l1"
    equality_fraction : float in [0, 1], default=0.5
    noise : float >= 0, default=0.25
        Standard deviation of eps (the paper's sigma = 1/4).
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray of shape (n_pairs, 2, 2)
    y : ndarray of shape (n_pairs,), values in {-1, 0, 1}
    """
    if not isinstance(n_pairs, numbers.Integral) or n_pairs < 1:
        raise ValueError(f"n_pairs must be a positive integer; got {n_pairs!r}.")
    if norm not in _DELTA_RANGE:
        raise ValueError(f"norm must be 'l1', 'l2' or 'linf'; got {norm!r}.")
    if not 0.0 <= equality_fraction <= 1.0:
        raise ValueError(f"equality_fraction must be in [0, 1]; got {equality_fraction}.")
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a non-negative standard deviation; got {noise}.")
    rng = check_random_state(random_state)
    n_eq = int(round(n_pairs * equality_fraction))
    n_ineq = n_pairs - n_eq
    lo, hi = _DELTA_RANGE[norm]
    batch = max(1000, 4 * n_pairs)
    eq_parts, ineq_parts = [], []
    got_eq = got_ineq = 0
    for _ in range(_MAX_BATCHES):
        x = rng.uniform(-2.0, 2.0, size=(batch, 2))
        xp = x + rng.uniform(lo, hi, size=(batch, 2))
        eps = rng.normal(0.0, noise, size=batch) if noise > 0 else np.zeros(batch)
        d = latent_rank(xp, norm) - latent_rank(x, norm) + eps
        y = labels_at_threshold(d, 1.0)  # t_1, eq. (4)
        pairs = make_pairs(x, xp)
        eq_parts.append((pairs[y == 0], y[y == 0]))
        ineq_parts.append((pairs[y != 0], y[y != 0]))
        got_eq += int(np.count_nonzero(y == 0))
        got_ineq += int(np.count_nonzero(y != 0))
        if got_eq >= n_eq and got_ineq >= n_ineq:
            break
    else:  # pragma: no cover - both labels have substantial probability
        raise RuntimeError("could not draw enough pairs of each label")
    X_eq = np.concatenate([p for p, _ in eq_parts])[:n_eq]
    X_ineq = np.concatenate([p for p, _ in ineq_parts])[:n_ineq]
    y_ineq = np.concatenate([t for _, t in ineq_parts])[:n_ineq]
    X = np.concatenate([X_eq, X_ineq])
    y = np.concatenate([np.zeros(n_eq, dtype=np.int64), y_ineq.astype(np.int64)])
    order = rng.permutation(n_pairs)
    return X[order], y[order]


def make_linear_pairs(n_pairs, weights=(2.0, -1.0), scales=(1.0, 1.0), gap=0.2,
                      random_state=None):
    """Noiseless pairs labeled by a linear rank, separable with a positive margin.

    x ~ N(0, 4 I) and x' = x + delta with delta uniform on (-1.5, 1.5)^p, both
    then multiplied feature-wise by ``scales``; the latent rank is
    r(x) = sum_j weights_j x_j / scales_j (so the labels do not depend on
    the scales) and y = t_1(r(x') - r(x)) (eq. 4).  Pairs whose |r(x') - r(x)|
    is within ``gap`` of the threshold 1 are dropped, which makes the pairs
    separable by the LP (7) with a positive margin (about the paper's
    Figure 2 setting); fewer than ``n_pairs`` pairs are returned.

    Parameters
    ----------
    n_pairs : int
        Candidate pairs before dropping those near the threshold.
    weights, scales : sequence of float, same length p
    gap : float >= 0
    random_state : int, RandomState, Generator or None

    Returns
    -------
    X : ndarray of shape (n_kept, 2, p)
    y : ndarray of shape (n_kept,)
    """
    weights = np.asarray(weights, dtype=float)
    scales = np.asarray(scales, dtype=float)
    if weights.shape != scales.shape or weights.ndim != 1:
        raise ValueError("weights and scales must be 1-D sequences of the same length.")
    rng = np.random.default_rng(random_state)
    x = rng.normal(size=(n_pairs, weights.size)) * 2 * scales
    xp = x + rng.uniform(-1.5, 1.5, size=(n_pairs, weights.size)) * scales
    d = (xp - x) @ (weights / scales)
    keep = np.abs(np.abs(d) - 1) > gap
    y = labels_at_threshold(d[keep], 1.0)
    return make_pairs(x[keep], xp[keep]), y


def make_graded_blocks(n_per_grade=20, angle=60.0, shift=(3.0, 7.0), random_state=0):
    """The RankSVM tutorial's graded items: two query blocks sharing one direction.

    Items of grade g in {0, 1, 2} are N(g * 4 w, I) in 2-D, ``n_per_grade``
    of each, with w = (sin a, cos a) for the ``angle`` a in degrees; every
    second item is moved by ``-shift`` and forms block 0, the others block 1.
    Within each block the grades increase along w, but pooled together they
    do not, which is why a regression on all items misses w.  With
    ``random_state=0`` the draws are the tutorial's (a legacy RandomState).

    Returns
    -------
    X : ndarray of shape (3 * n_per_grade, 2)
    y : ndarray of shape (3 * n_per_grade,)
        Grades 0, 1, 2.
    blocks : ndarray of shape (3 * n_per_grade,)
        Query group 0 or 1.
    w : ndarray of shape (2,)
        The common direction.
    """
    if not isinstance(n_per_grade, numbers.Integral) or n_per_grade < 1:
        raise ValueError(f"n_per_grade must be a positive integer; got {n_per_grade!r}.")
    rng = check_random_state(random_state)
    theta = np.deg2rad(angle)
    w = np.array([np.sin(theta), np.cos(theta)])
    X = np.concatenate([rng.randn(n_per_grade, 2) + grade * 4 * w for grade in range(3)])
    y = np.repeat([0, 1, 2], n_per_grade)
    X[::2] -= np.asarray(shift, dtype=float)
    blocks = np.arange(X.shape[0]) % 2
    return X, y, blocks, w
