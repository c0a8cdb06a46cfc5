"""From labeled pairs to the binary SVM problems the solvers see.

A pair set is an array ``X`` of shape ``(n_pairs, 2, n_features)``: ``X[:, 0]``
holds x and ``X[:, 1]`` holds x'.  The solvers never see the pairs themselves.
They see an *item* matrix ``Z`` (every x and x' row, standardized) and, for
each row of the binary problem, two indices into ``Z``: ``a`` (the x~ of eq. 8)
and ``b`` (the x~').  A row of the binary problem is the difference
``Phi(Z[b]) - Phi(Z[a])``.  Keeping indices instead of copies is what lets a
solver compute rows of the kernel K~ = M^T K M (eq. 18) on demand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .sparse_pairs import SparsePairs


def indicator_columns(X):
    """Which features of pairs ``X`` (dense (n, 2, p) or :class:`SparsePairs`)
    take the values 0 and 1 only, both of them."""
    if isinstance(X, SparsePairs):
        items = sp.csc_matrix(X.items())
        other = items.copy()
        other.data = (other.data != 1).astype(np.float64)
        has_one = np.diff(items.indptr) > 0
        some_zero = np.diff(items.indptr) < items.shape[0]
        return has_one & some_zero & (np.asarray(other.sum(axis=0)).ravel() == 0)
    items = X.reshape(-1, X.shape[2])
    zero, one = items == 0, items == 1
    return np.all(zero | one, axis=0) & zero.any(axis=0) & one.any(axis=0)


def one_hot_identities(X):
    """Whether every item of pairs ``X`` (dense (n, 2, p) or
    :class:`SparsePairs`) is one identity: exactly one feature, equal to 1
    (a one-hot id of a team, a player, a model; no other features)."""
    if isinstance(X, SparsePairs):
        for side in (X.first, X.second):
            side = side.copy()  # canonical: duplicates summed, stored zeros dropped
            side.sum_duplicates()
            side.eliminate_zeros()
            if not (np.all(np.diff(side.indptr) == 1) and np.all(side.data == 1)):
                return False
        return True
    items = X.reshape(-1, X.shape[2])
    return bool(np.all((items == 0) | (items == 1))) and bool(np.all(items.sum(axis=1) == 1))


def _ddof_factor(total, n_items):
    """The sample-variance correction N / (N - 1) of weighted items, with N
    the total weight (an integer weight k counts as k copies, as the repeated
    items would) but never fewer than the items themselves: weights below 1
    (a time decay, weights normalized to sum 1) count each item once.  N the
    total weight alone made the scale blow up as the weights shrank (sum 0.51:
    every feature's scale x 7), so rescaling all weights, with C rescaled the
    other way, changed the model."""
    count = max(float(total), float(n_items))
    return count / (count - 1.0) if count > 1 else 1.0


def _varying(items, where):
    """Per-feature max, min and whether the feature varies; refuses all-constant items."""
    high, low = items.max(axis=0), items.min(axis=0)
    keep = high > low
    if not keep.any():
        raise ValueError(f"Every feature is constant over {where}; no ranking function can "
                         "be learned.")
    return high, low, keep


@dataclass(frozen=True)
class Standardizer:
    """Center and scale features over the stacked x and x' rows.

    This is the preprocessing of the reference implementation: each feature is
    centered by its mean and divided by its standard deviation (``ddof=1``,
    as R's ``scale``), both computed over all 2n items of the training pairs.
    Features that are constant over the training items carry no information
    about rank differences and are dropped.
    """

    mean: np.ndarray
    scale: np.ndarray
    keep: np.ndarray  # boolean mask over the input features

    @classmethod
    def fit(cls, X, sample_weight=None, scale_indicators=True):
        """Fit on pairs (n, 2, p); ``sample_weight`` (n,) weighs both items of a
        pair (weights as repetitions: an integer weight k equals k copies).

        ``scale_indicators=False`` centers the indicator features (values 0
        and 1 only, e.g. one-hot identities) without scaling them: divided by
        its standard deviation, an indicator that is rarely 1 (a team with
        few games) grows, and so its weight costs the least penalty of all
        exactly where the data say the least; unscaled, every identity's
        effect is shrunk alike toward the mean (a ridge Bradley-Terry prior).
        """
        if isinstance(X, SparsePairs):
            fitted = cls._fit_sparse(X, sample_weight)
        elif sample_weight is None:
            fitted = cls.fit_items(X.reshape(-1, X.shape[2]))
        else:
            fitted = cls.fit_items(np.concatenate([X[:, 0], X[:, 1]], axis=0),
                                   np.concatenate([sample_weight, sample_weight]))
        if not scale_indicators:
            scale = fitted.scale.copy()
            scale[indicator_columns(X)[fitted.keep]] = 1.0
            fitted = cls(mean=fitted.mean, scale=scale, keep=fitted.keep)
        return fitted

    @classmethod
    def fit_items(cls, items, sample_weight=None, n_items=None):
        """Fit on items (n, p), each weighing ``sample_weight`` (n,) or 1;
        ``n_items``: how many items the weights stand for, when not the rows
        with positive weight (an item counted once per pair of formed pairs:
        their number of stacked items)."""
        if sample_weight is not None:
            return cls._fit_weighted(items, sample_weight, n_items)
        high, low, keep = _varying(items, "the training items (zero variance)")
        ddof = 1 if items.shape[0] > 1 else 0
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            mean = items.mean(axis=0)
            # One pass: E[x^2] - mean^2, which rounding can push below 0 when |mean| >> sd.
            variance = np.einsum("ij,ij->j", items, items) / items.shape[0] - mean * mean
        scale = np.sqrt(np.maximum(variance, 0.0))
        # The one-pass variance loses digits when |mean| >> sd, and x^2 overflows
        # or underflows for features beyond 1e+-100: redo those columns exactly,
        # on values divided by their largest magnitude.
        magnitude = np.maximum(np.abs(high), np.abs(low))
        redo = keep & ((scale < 1e-4 * np.abs(mean)) | ~np.isfinite(scale)
                       | (magnitude > 1e100) | (magnitude < 1e-100))
        if redo.any():
            unit = items[:, redo] / magnitude[redo]
            mean[redo] = unit.mean(axis=0) * magnitude[redo]
            scale[redo] = unit.std(axis=0) * magnitude[redo]
        scale *= np.sqrt(items.shape[0] / max(items.shape[0] - ddof, 1))
        mean, scale = mean[keep], scale[keep]
        # ptp > 0 implies a positive standard deviation up to rounding; guard
        # anyway so that extreme scales never divide by zero.
        scale[scale <= 0] = 1.0
        return cls(mean=mean, scale=scale, keep=keep)

    @classmethod
    def _fit_weighted(cls, items, weight, n_items=None):
        items = items[weight > 0]
        weight = weight[weight > 0]
        n_items = weight.size if n_items is None else n_items
        high, low, keep = _varying(items, "the training items with positive weight")
        # Two passes on values divided by their largest magnitude (no overflow).
        magnitude = np.maximum(np.abs(high), np.abs(low))[keep]
        unit = items[:, keep] / magnitude
        total = weight.sum()
        mean = weight @ unit / total
        variance = weight @ (unit - mean) ** 2 / total
        variance *= _ddof_factor(total, n_items)
        scale = np.sqrt(variance) * magnitude
        scale[scale <= 0] = 1.0
        return cls(mean=mean * magnitude, scale=scale, keep=keep)

    @classmethod
    def _fit_sparse(cls, X, sample_weight=None):
        """Fit on sparse pairs: the same moments (ddof = 1 in units of the
        weights) from the non-zeros, without a dense copy of the items."""
        items = X.items()
        weight = np.ones(items.shape[0]) if sample_weight is None else \
            np.concatenate([sample_weight, sample_weight])
        positive = weight > 0
        items, weight = items[positive], weight[positive]
        high = items.max(axis=0).toarray().ravel()
        low = items.min(axis=0).toarray().ravel()
        keep = high > low
        if not keep.any():
            raise ValueError("Every feature is constant over the training items (zero "
                             "variance); no ranking function can be learned.")
        magnitude = np.maximum(np.abs(high), np.abs(low))[keep]
        unit = items[:, np.flatnonzero(keep)] @ sp.diags(1.0 / magnitude)
        total = weight.sum()
        mean = unit.T @ weight / total
        variance = np.maximum(unit.multiply(unit).T @ weight / total - mean * mean, 0.0)
        variance *= _ddof_factor(total, weight.size)
        scale = np.sqrt(variance) * magnitude
        scale[scale <= 0] = 1.0
        return cls(mean=mean * magnitude, scale=scale, keep=keep)

    def transform_items(self, Z):
        """Standardize items of shape (n_items, n_features)."""
        out = np.subtract(self._kept(Z), self.mean, order="C")
        out /= self.scale
        return out

    def _kept(self, A):
        """``A``'s kept features (the last axis).  ``np.take``, not a mask: a mask
        on the last axis of pairs (n, 2, p) returns the features outermost in
        memory, and every later row read of the pairs (r(x) by BLAS, eq. 8's
        differences) then strides across the whole array: with 3 of 240
        columns dropped, 50 ms a copy at 20,000 pairs, 11 s of a 20,000-pair
        search (BENCHMARKS.md, "The recommended model's fit time", stop 71)."""
        return A if self.keep.all() else np.take(A, np.flatnonzero(self.keep), axis=-1)

    def transform_pairs(self, X):
        """Standardize a pair array, returning shape (n_pairs, 2, n_kept).

        Sparse pairs are scaled but not centered: every use of standardized
        pairs (eq. 8's differences, r(x') - r(x)) is a difference of two
        items, from which the mean cancels, and centering would densify them."""
        if isinstance(X, SparsePairs):
            columns = np.flatnonzero(self.keep)
            unit = sp.diags(1.0 / self.scale)
            return SparsePairs(X.first[:, columns] @ unit, X.second[:, columns] @ unit,
                               center=self.mean / self.scale)
        out = np.subtract(self._kept(X), self.mean, order="C")
        out /= self.scale
        return out


@dataclass(frozen=True)
class BinaryProblem:
    """A binary SVM problem over differences of items.

    Row ``t`` is the difference ``Phi(items[b[t]]) - Phi(items[a[t]])`` with
    label ``y[t]`` in {-1, 1} and box constraint ``0 <= alpha_t <= C[t]``.
    It comes from pair ``pair[t]``, as (x, x') or, where ``flipped[t]``, as
    (x', x); pair i's x and x' are the items ``pair_items[i]``.  Left out,
    these three describe the layout of :func:`stack_items` on distinct items
    (x rows then x' rows: a row's pair is a mod n, flipped iff a >= n).
    """

    items: np.ndarray  # (n_items, p), C-contiguous float64 (or CSR: sparse pairs)
    a: np.ndarray  # (m,) int64, index of x~
    b: np.ndarray  # (m,) int64, index of x~'
    y: np.ndarray  # (m,) float64 in {-1, 1}
    C: np.ndarray  # (m,) float64 > 0
    # (m, q) float64: the pair context of each row, oriented as the row (negated
    # when the row is (x', x)); q = 0 without context.
    context: np.ndarray = None
    pair: np.ndarray = None  # (m,) int64
    flipped: np.ndarray = None  # (m,) bool
    pair_items: np.ndarray = None  # (n_pairs, 2) int64

    def __post_init__(self):
        if self.context is None:
            object.__setattr__(self, "context", np.zeros((self.a.shape[0], 0)))
        if self.pair is None:
            if self.items.shape[0] % 2:
                raise ValueError("A BinaryProblem without pair, flipped and pair_items needs "
                                 "x rows then x' rows as its items (an even number).")
            n = self.items.shape[0] // 2
            first = np.arange(n, dtype=np.int64)
            object.__setattr__(self, "pair", self.a % n)
            object.__setattr__(self, "flipped", self.a >= n)
            object.__setattr__(self, "pair_items", np.column_stack([first, first + n]))

    @property
    def m(self):
        return self.a.shape[0]

    def rows(self, rows):
        """The problem restricted to the rows ``rows`` (same items and pairs)."""
        return BinaryProblem(self.items, self.a[rows], self.b[rows], self.y[rows],
                             self.C[rows], self.context[rows], self.pair[rows],
                             self.flipped[rows], self.pair_items)


def distinct_items(stacked):
    """The distinct rows of ``stacked`` (n, p), in order of first appearance,
    and the index among them of every row.

    Data with identities (one-hot teams, engines, LLMs) repeat a few items in
    thousands of pairs; kernel rows over the distinct items cost O(items)
    instead of O(pairs), and the item kernel of a C path fits in memory.
    Rows are compared by their bytes, exactly (so -0.0 and 0.0 differ: add
    0.0 first to merge them); a sparse ``stacked`` by its entries, duplicates
    summed and stored zeros dropped.  All rows distinct: ``stacked`` itself
    and 0..n-1 (no copy).
    """
    n, p = stacked.shape
    if n == 0:
        return stacked, np.arange(0, dtype=np.int64)
    if sp.issparse(stacked):
        return _distinct_sparse_rows(stacked)
    rows = np.ascontiguousarray(stacked, dtype=np.float64)
    words = rows.view(np.uint64)
    # Rows grouped by an exact hash of their bytes (a random linear form of
    # their 64-bit words, wrapping mod 2^64: equal rows, equal keys; distinct
    # keys, distinct rows), a repeated row then checked against its group's
    # first; sorting the rows' bytes as keys (np.unique of a void view) cost
    # 0.2-0.4 s at 40,000 items x 237 features, 7 s of a 20,000-pair search.
    multipliers = np.random.default_rng(0).integers(1, 2**63, size=p, dtype=np.uint64) | 1
    _, first, index = np.unique(words @ multipliers, return_index=True, return_inverse=True)
    index = index.ravel()
    repeats = np.flatnonzero(first[index] != np.arange(n))
    if not np.array_equal(words[repeats], words[first[index[repeats]]]):  # keys collided
        keys = rows.view(np.dtype((np.void, 8 * p))).ravel()
        _, first, index = np.unique(keys, return_index=True, return_inverse=True)
        index = index.ravel()
    if first.size == n:
        return stacked, np.arange(n, dtype=np.int64)
    order = np.argsort(first, kind="stable")
    position = np.empty(first.size, dtype=np.int64)
    position[order] = np.arange(first.size)
    return np.ascontiguousarray(stacked[first[order]]), position[index]


def _distinct_sparse_rows(stacked):
    """:func:`distinct_items` of a sparse matrix: rows keyed by their entries
    in canonical order, numbered as they first appear."""
    rows = stacked.tocsr(copy=True)
    rows.sum_duplicates()
    rows.eliminate_zeros()
    rows.sort_indices()
    seen, index = {}, np.empty(rows.shape[0], dtype=np.int64)
    for i, (start, stop) in enumerate(zip(rows.indptr[:-1], rows.indptr[1:], strict=True)):
        key = (rows.indices[start:stop].tobytes(), rows.data[start:stop].tobytes())
        index[i] = seen.setdefault(key, len(seen))
    if len(seen) == rows.shape[0]:
        return stacked, np.arange(rows.shape[0], dtype=np.int64)
    first = np.unique(index, return_index=True)[1]  # distinct row k first at first[k]
    return rows[first], index


def stack_items(Xs):
    """Items of a standardized pair array and where each pair's x and x' are.

    Dense pairs: the distinct rows of x then x' (:func:`distinct_items`), so
    with all items distinct pair ``i`` has x at item ``i`` and x' at item
    ``n + i``.  Sparse pairs keep that layout (their rows are not compared).
    """
    n = Xs.shape[0]
    if isinstance(Xs, SparsePairs):
        items = Xs.items()
        first = np.arange(n, dtype=np.int64)
        return items, first, first + n
    stacked = np.ascontiguousarray(np.concatenate([Xs[:, 0], Xs[:, 1]], axis=0))
    stacked += 0.0  # -0.0 -> 0.0, in place: equal items get equal bytes
    items, index = distinct_items(stacked)
    return items, index[:n], index[n:]


def _problem(items, first, second, rows, ytilde, Cvec, ctx):
    """A BinaryProblem from ``rows``, a list of (pair indices, flipped) in row order."""
    pair = np.concatenate([pairs for pairs, _ in rows]).astype(np.int64)
    flipped = np.concatenate([np.broadcast_to(np.asarray(flip, dtype=bool), pairs.shape)
                              for pairs, flip in rows])
    a = np.where(flipped, second[pair], first[pair])
    b = np.where(flipped, first[pair], second[pair])
    return BinaryProblem(items, a, b, ytilde, Cvec, ctx, pair, flipped,
                         np.column_stack([first, second]))


def _oriented_context(context, rows, sign):
    """Context of the listed pairs with the orientation of their rows (sign +-1)."""
    if context is None:
        return np.zeros((rows.size, 0))
    return context[rows] * np.asarray(sign, dtype=np.float64).reshape(-1, 1)


def _stack_context(context, parts):
    """Context rows for ``parts``, a list of (pair indices, sign) in row order."""
    blocks = [_oriented_context(context, rows, sign) for rows, sign in parts]
    return np.ascontiguousarray(np.concatenate(blocks, axis=0))


def _weighted(Cvec, sample_weight, origin):
    """C of each row times the weight of the pair it comes from."""
    return Cvec if sample_weight is None else Cvec * sample_weight[origin]


def flip_compare(Xs, y, C, class_weight=None, context=None, sample_weight=None):
    """The flipped data of eq. (8) for SVMcompare.

    Rows, in the order of eq. (8): the pairs of I_1 as (x, x'), the pairs of
    I_-1 as (x', x), both with y~ = 1; then the pairs of I_0 as (x, x') and
    again as (x', x), both with y~ = -1.  m = n + |I_0| rows.

    ``class_weight`` scales C per row by flipped label: ``None``,
    ``"balanced"`` (m / (2 * count of the label), as scikit-learn) or a dict
    ``{1: w, -1: w}``.  ``context`` (n, q), the advantage of x' over x, is
    negated on the rows that are (x', x).  ``sample_weight`` (n,) scales the C
    of every row of a pair.
    """
    items, first, second = stack_items(Xs)
    i1 = np.flatnonzero(y == 1)
    im1 = np.flatnonzero(y == -1)
    i0 = np.flatnonzero(y == 0)
    ytilde = np.concatenate(
        [np.ones(i1.size + im1.size), -np.ones(2 * i0.size)]
    )
    origin = np.concatenate([i1, im1, i0, i0])
    row_weight = None if sample_weight is None else sample_weight[origin]
    weights = flipped_class_weights(ytilde, class_weight, row_weight)
    Cvec = C * np.where(ytilde > 0, weights[1], weights[-1])
    if row_weight is not None:
        Cvec = Cvec * row_weight
    ctx = _stack_context(context, [(i1, 1.0), (im1, -1.0), (i0, 1.0), (i0, -1.0)])
    return _problem(items, first, second,
                    [(i1, False), (im1, True), (i0, False), (i0, True)], ytilde, Cvec, ctx)


CLASS_WEIGHTS = ("auto", "balanced")


def flipped_class_weights(ytilde, class_weight, row_weight=None):
    """Per-label multipliers of C on the flipped labels {1, -1} of eq. (8)
    rows (weighted counts by ``row_weight`` when given, as for repeated pairs)."""
    w = np.ones(ytilde.size) if row_weight is None else row_weight
    return label_weights(class_weight, w[ytilde == 1].sum(), w[ytilde == -1].sum())


def label_weights(class_weight, decided_rows, tie_rows):
    """{1: w_1, -1: w_-1}, the multipliers of C of every solver, from the
    (weighted) numbers of flipped rows labelled 1 (decided pairs) and -1 (two
    per tie, eq. 8).

    "balanced": m / (2 * rows of the label), m = all rows, so both labels
    weigh the same in total.  "auto": "balanced" when the tie rows are the
    minority (ties under a third of the pairs), no weights otherwise, so ties
    are weighted up, never down; benchmarks/bench_class_weight.py measured
    this against both on the paper's patterns and the shared real sets.
    """
    decided_rows, tie_rows = float(decided_rows), float(tie_rows)
    if class_weight is None:
        return {1: 1.0, -1: 1.0}
    if isinstance(class_weight, str):
        if class_weight not in CLASS_WEIGHTS:
            raise ValueError(
                "class_weight must be None, 'auto', 'balanced' or a dict {1: w, -1: w}; "
                f"got {class_weight!r}."
            )
        if decided_rows <= 0 or tie_rows <= 0:  # one label only: nothing to balance
            return {1: 1.0, -1: 1.0}
        if class_weight == "auto" and tie_rows >= decided_rows:
            return {1: 1.0, -1: 1.0}
        m = decided_rows + tie_rows
        return {1: m / (2.0 * decided_rows), -1: m / (2.0 * tie_rows)}
    if isinstance(class_weight, dict):
        keys = set(class_weight)
        if not keys <= {1, -1}:
            raise ValueError(
                "class_weight dict keys are the flipped labels 1 (significant difference) "
                f"and -1 (equality); got keys {sorted(keys)}."
            )
        out = {1: 1.0, -1: 1.0}
        for key, value in class_weight.items():
            value = float(value)
            if not np.isfinite(value) or value <= 0:
                raise ValueError(f"class_weight[{key}] must be a positive number; got {value}.")
            out[key] = value
        return out
    raise TypeError(
        "class_weight must be None, 'auto', 'balanced' or a dict; "
        f"got {type(class_weight).__name__}."
    )


def flip_rank(Xs, y, C, context=None, sample_weight=None):
    """SVMrank data (eq. 3): inequality pairs only, each oriented so that the
    better item is ``b``; every row has label 1 and no bias."""
    items, first, second = stack_items(Xs)
    ineq = np.flatnonzero(y != 0)
    better_second = y[ineq] == 1
    ctx = _stack_context(context, [(ineq, np.where(better_second, 1.0, -1.0))])
    Cvec = _weighted(np.full(ineq.size, float(C)), sample_weight, ineq)
    return _problem(items, first, second, [(ineq, ~better_second)], np.ones(ineq.size),
                    Cvec, ctx)


def flip_rank2(Xs, y, C, context=None, sample_weight=None):
    """The rank2 data of Table 2.

    Each equality pair becomes two opposite inequality pairs (x, x') and
    (x', x); each inequality pair is duplicated.  Two identical rows with box
    [0, C] each have the same optimum as one row with box [0, 2C] (their dual
    variables enter the objective only through their sum), so a duplicated
    inequality pair is stored once with cost 2C: the same primal problem with
    n + |I_0| rows instead of 2n.
    """
    items, first, second = stack_items(Xs)
    ineq = np.flatnonzero(y != 0)
    eq = np.flatnonzero(y == 0)
    better_second = y[ineq] == 1
    Cvec = np.concatenate([np.full(ineq.size, 2.0 * C), np.full(2 * eq.size, float(C))])
    Cvec = _weighted(Cvec, sample_weight, np.concatenate([ineq, eq, eq]))
    ctx = _stack_context(context, [(ineq, np.where(better_second, 1.0, -1.0)),
                                           (eq, 1.0), (eq, -1.0)])
    rows = [(ineq, ~better_second), (eq, False), (eq, True)]
    return _problem(items, first, second, rows, np.ones(ineq.size + 2 * eq.size), Cvec, ctx)


def restricted_start(alpha, problem, sub_problem, sub_pairs, bias=True):
    """A feasible start for the dual of ``sub_problem`` (built the same way from
    the pairs ``sub_pairs``, indices into ``problem``'s pairs) from ``problem``'s
    solution ``alpha``.

    Each row of the sub-problem takes the alpha of the row of ``problem`` with
    the same pair and orientation, clipped to the sub-problem's C (balanced
    class weights move with the pairs).  With a bias, the side of
    y^T alpha = 0 (the equality constraint of the dual (18)) that is too
    heavy is scaled down, which keeps 0 <= alpha <= C.
    """
    n = problem.pair_items.shape[0]
    row_of = np.full(2 * n, -1, dtype=np.int64)
    row_of[problem.pair * 2 + problem.flipped] = np.arange(problem.m)
    pairs = np.asarray(sub_pairs)[sub_problem.pair]
    rows = row_of[pairs * 2 + sub_problem.flipped]
    if np.any(rows < 0):
        raise ValueError("sub_problem has rows that problem does not have.")
    start = np.minimum(alpha[rows], sub_problem.C)
    if bias:
        positive = sub_problem.y > 0
        balance = start[positive].sum() - start[~positive].sum()
        heavy = positive if balance > 0 else ~positive
        total = start[heavy].sum()
        if total > 0:
            start[heavy] *= max(0.0, 1.0 - abs(balance) / total)
    return start


def row_expansion(a, b, row_coef, n_items):
    """Item coefficients c of r(z) = sum_j c_j k(Z_j, z) from per-row coefficients.

    Row t is Phi(Z[b_t]) - Phi(Z[a_t]), so its coefficient adds to item b_t and
    subtracts from item a_t.  Returns the indices of the items with a nonzero
    coefficient and those coefficients.
    """
    c = np.zeros(n_items)
    np.add.at(c, b, row_coef)
    np.subtract.at(c, a, row_coef)
    nonzero = np.flatnonzero(c)
    return nonzero, c[nonzero]


NYSTROEM_CHUNK = 2**22  # feature values per chunk of rows in nystroem_rows


def nystroem_rows(feature_map, problem):
    """The rows phi(z_b) - phi(z_a) (then the context) of an approximate feature
    map, in float32, formed chunk by chunk of rows.

    An approximation's rows need no more digits than float32 keeps (the
    solver still sums in float64), and forming them per chunk never holds the
    features of all items: at 1,000,000 pairs and 100 landmarks the float64
    features (1.6 GB) and rows (1.05 GB) were the fit's peak memory.
    """
    a, b, context = problem.a, problem.b, problem.context
    k = feature_map.projection_.shape[1]
    q = context.shape[1]
    D = np.empty((a.size, k + q), dtype=np.float32)
    step = max(1, NYSTROEM_CHUNK // max(k, 1))
    for start in range(0, a.size, step):
        rows = slice(start, start + step)
        D[rows, :k] = feature_map.transform(problem.items[b[rows]]) \
            - feature_map.transform(problem.items[a[rows]])
        D[rows, k:] = context[rows]  # v is the last q weights
    return D


def oriented_gaps(problem, rows, fitted, context_coef):
    """r(x') - r(x) of the pairs of ``rows`` (rows of ``problem``) from the
    rows' fitted values f_t = u^T (Phi(b_t) - Phi(a_t)) + v^T c_t (eq. 17),
    in f's units: less the context term, negated where the row is (x', x)."""
    gap = fitted - problem.context[rows] @ context_coef
    return np.where(problem.flipped[rows], -gap, gap)


def rows_of_pairs(problem):
    """The first row of each pair of ``problem`` (indexed by pair), or None
    when some pair has no row (SVMRank's tie pairs)."""
    pairs, first_row = np.unique(problem.pair, return_index=True)
    return first_row if pairs.size == problem.pair_items.shape[0] else None


@dataclass(frozen=True)
class ProblemKind:
    """What sets a kernel comparison estimator apart: the binary problem its
    pairs make and how the solver's solution becomes a ranking function and
    a threshold.  Each estimator class names one (``problem_kind``).

    Attributes
    ----------
    check_labels : callable (y, estimator name) -> None
        Raises ValueError on a label set the problem cannot learn from.
    build : callable (model, Xs, y, context, sample_weight) -> BinaryProblem
        The binary problem of the standardized pairs at the model's C.
    bias : bool
        Whether the SVM has a free bias beta (eq. 9) or none (eq. 3).
    rank_scale : callable (model, beta, bias_noise) -> (float, bool or None)
        r = scale * u^T Phi for the SVM's f = beta + u^T Phi, and whether the
        solution is degenerate (None: the question does not arise); may
        refuse the solution.
    finish : callable (model, decision, y, sample_weight) -> None
        Sets the threshold from ``decision()``, the training pairs'
        d = r(x') - r(x) + v^T context, each pair counted by its weight (None: 1).
    """

    check_labels: object
    build: object
    bias: bool
    rank_scale: object
    finish: object


@dataclass(frozen=True)
class Prepared:
    """Everything a solver needs, computed once per data set (see :func:`prepare`)."""

    kernel: object
    y: np.ndarray
    scaler: Standardizer
    Xs: np.ndarray
    problem: object
    solver: str
    feature_map: object = None  # NystroemMap of the "nystroem" solver, fitted once
    X: np.ndarray = None  # the validated pairs (calibration refits on them)
    context: np.ndarray = None  # the validated pair context, or None
    sample_weight: np.ndarray = None  # the validated pair weights, or None
    gram: np.ndarray = None  # k(items, items), when a C path computed it for its fits
    # The primal solvers' rows d_t, when a C path formed them once for its fits.
    rows: object = None
    # The features fit would keep (vary over the items), when Xs holds others
    # too: partial_fit's features as given.
    n_kept: int = None

    @property
    def n_weights(self):
        """The weights of a linear fit on explicit features: kept features and context."""
        kept = self.Xs.shape[2] if self.n_kept is None else self.n_kept
        return kept + self.problem.context.shape[1]
