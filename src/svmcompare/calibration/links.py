"""Win / tie / loss probabilities from comparison scores: an ordered-logit link.

A comparison model scores a pair by d = r(x') - r(x) (for ratings, the
rating difference).  The link models the three ordered outcomes
y in {-1, 0, 1} by the proportional-odds model on d (McCullagh 1980):

    P(y <= -1 | d) = sigma(theta_1 - w d),   P(y <= 0 | d) = sigma(theta_2 - w d),

so that

    P(y = -1) = sigma(theta_1 - w d),
    P(y =  0) = sigma(theta_2 - w d) - sigma(theta_1 - w d),
    P(y =  1) = 1 - sigma(theta_2 - w d),

with theta_1 < theta_2 and sigma the logistic function.  w, theta_1 and
theta_2 are fitted by maximum likelihood (:class:`OrderedLogit`, with a
negligible ridge on w so that separable scores stay finite).  The width
theta_2 - theta_1 sets how likely ties are.

By default the link is symmetric, theta_1 = -theta_2: swapping x and x'
negates d and swaps P(y = -1) and P(y = 1), as :meth:`predict` does with the
labels.  It is fitted on every pair in both orientations, (d, y) and
(-d, -y), whose likelihood is symmetric, so the maximum is.  ``symmetric=False``
lets |theta_1| and |theta_2| differ: an advantage of one side of the pair that
the scores do not carry (e.g. White's in chess, for rating differences).
The slope w is kept >= 0: scores that rank the outcomes backwards on the
calibration pairs give w = 0, the class frequencies, rather than probabilities
that fall as d grows.

Drawish pairs.  With a constant band, how likely a tie is depends on the
pair only through |d|; yet two defensive teams draw more often than two
attacking teams of the same strength.  :class:`PairTieCalibrator` lets the
band's half-width depend on the pair through symmetric pair features s
(s = (x + x') / 2 on standardized features, which a swap leaves unchanged):

    P(y = -1) = sigma(-theta(s) - w d),
    P(y =  1) = sigma(-theta(s) + w d),
    P(y =  0) = 1 - P(y = -1) - P(y = 1),    theta(s) = exp(a + b^T s) > 0,

so that P(y = 0) is symmetric and P(y = -1) <-> P(y = 1) antisymmetric under
a swap, as for the constant band (b = 0 is it).  w >= 0, a and b are fitted
by maximum likelihood on both orientations with a ridge on b.  The tie
features are s = [(x + x') / 2, |x' - x|]: how drawish the two items are
together, and how alike they are feature by feature (|d| sees only a
weighted sum of the differences: two sushis of one style tie more often
than their score gap says).

Davidson's link.  ``PairTieCalibrator(link="davidson")`` replaces the
ordered logit by Davidson's (1970) model of ties, a multinomial logit with
logits (-eta, nu(s), eta):

    P(y = j) = exp(l_j) / (exp(-eta) + exp(nu(s)) + exp(eta)),
    (l_-1, l_0, l_1) = (-eta, nu(s), eta),   eta = w d,   nu(s) = a + b^T s,

(nu constant without tie features), the same swap symmetry.  A tie's
probability falls with |d| as 1 / (1 + 2 exp(-nu) cosh(eta)): on games
with few draws (chess) it fits better than the ordered logit's band, on
sets with many ties it fits worse, so the choice is left to validation.

For a fitted SVM the scores must be held out:
:func:`svmcompare.calibration.held_out.cross_validated_scores` refits clones
of the model on K folds and scores each pair with the model that did not see
it (as scikit-learn's ``SVC(probability=True)`` does for Platt scaling).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from .._ordinal_core import davidson_terms, pair_band_terms
from .._validation import LABELS, LINKS

# A ridge on w that only matters when the scores separate the outcomes.
_LINK_ALPHA = 1e-6
_TINY = 1e-300


def _link_design(score, context, scale, limit=np.inf):
    """Columns of the link's linear predictor: the score over ``scale`` (clipped
    to +-``limit``), then the pair context (whose coefficients the link
    re-estimates by likelihood)."""
    score = np.clip(np.asarray(score, dtype=np.float64).ravel() / scale, -limit, limit)
    if context is None:
        return score[:, None]
    return np.hstack([score[:, None], np.asarray(context, dtype=np.float64)])


def _unit_mean(sample_weight):
    """Pair weights divided by their mean (None stays None): the link's ridge
    and its optimizer's tolerances are absolute, so weights of 1e-8 (with C
    1e8: the same SVM) moved the probabilities by 0.06; only their ratios
    matter to the likelihood."""
    if sample_weight is None:
        return None
    weight = np.asarray(sample_weight, dtype=float)
    mean = weight.mean() if weight.size else 0.0
    return weight / mean if mean > 0 else weight


class ScoreCalibrator:
    """The ordered-logit link from scores d to P(y = -1), P(y = 0), P(y = 1).

    Scores are divided by their standard deviation before the fit (the
    optimizer's conditioning; the model is unchanged).  With a pair context
    (``fit(..., context=...)``) the link's predictor is w d + u^T context:
    the positional advantage is re-estimated by likelihood next to the
    scores (an SVM's hinge loss sets its own context coefficient for the tie
    band, not for probabilities).  Outcomes absent from the training labels
    get probability 0.

    Parameters
    ----------
    symmetric : bool, default=True
        theta_1 = -theta_2 (see the module docstring).

    Attributes
    ----------
    link_ : OrderedLogit
    scale_ : float
    limit_ : float
        The largest |score| / ``scale_`` seen in the fit; scores beyond it are
        clipped to it at prediction (no extrapolation of the link).
    """

    def __init__(self, *, symmetric=True):
        self.symmetric = symmetric

    def fit(self, score, y, context=None, sample_weight=None):
        """Fit on scores (n,), labels (n,) in {-1, 0, 1} (at least two distinct),
        an optional pair context (n, q) and optional weights (n,)."""
        from ..ordered_logit import OrderedLogit  # fitting only: scoring needs no sklearn

        score, y = _check_scores_labels(score, y)
        context = _check_link_context(context, score.size)
        weight = _unit_mean(sample_weight)
        # Symmetric: fitted on every pair and its swap (-d, -y, -context), the
        # ordered logit's mirrored fit (cut points symmetric about 0, the
        # optimum of the fit on both orientations, on half the rows).
        symmetric = bool(self.symmetric)
        spread = np.sqrt(np.mean(np.square(score))) if symmetric else score.std()
        self.scale_ = float(spread) if spread > 0 else 1.0
        # The link is known only over the scores it saw: a pair scored beyond
        # them (a model extrapolating to new teams, a later season) gets the
        # probabilities of the most extreme score seen, not a more confident one.
        self.limit_ = float(np.max(np.abs(score))) / self.scale_ if score.size else np.inf
        design = _link_design(score, context, self.scale_)
        self.link_ = OrderedLogit(alpha=_LINK_ALPHA, mirrored=symmetric).fit(
            design, y, sample_weight=weight)
        if self.link_.coef_[0] < 0:
            # No usable signal in the scores: w = 0 (the class frequencies, or
            # the context alone).
            design[:, 0] = 0.0
            self.link_ = OrderedLogit(alpha=_LINK_ALPHA, mirrored=symmetric).fit(
                design, y, sample_weight=weight)
        return self

    def tie_features(self, Xs):
        """The tie features this link reads from standardized pairs: none."""
        return tie_features_for(Xs, "constant")

    @property
    def context_coef(self):
        """u: the link's coefficients on the pair context (its predictor is
        w d / scale + u^T context, on the ordered logit's scale)."""
        return np.asarray(self.link_.coef_[1:], dtype=float)

    def at_equal_scores(self, context):
        """Probabilities of -1, 0, 1 for pairs of equal scores (d = 0) with
        the rows of ``context``: what the context alone does."""
        return self.predict_proba(np.zeros(len(context)), context)

    def predict_proba(self, score, context=None, tie_features=None):
        """(n, 3) probabilities of -1, 0, 1 (``tie_features`` unused)."""
        design = _link_design(score, context, self.scale_, self.limit_)
        present = self.link_.predict_proba(design)
        proba = np.zeros((design.shape[0], len(LABELS)))
        proba[:, np.searchsorted(LABELS, self.link_.classes_)] = present
        return proba


def _check_link_context(context, n):
    if context is None:
        return None
    context = np.asarray(context, dtype=np.float64)
    if context.ndim != 2 or context.shape[0] != n:
        raise ValueError(f"context must have shape ({n}, q); got {context.shape}.")
    return context


# Ridge on the tie-band coefficients b of PairTieCalibrator per pair (the
# penalty is this times the number of pairs): with dozens of standardized pair
# features and a few hundred pairs a weaker ridge fitted noise (held-out
# log-loss 0.06 above the constant band on league football).
_BAND_ALPHA_PER_PAIR = 0.1


def pair_tie_features(Xs):
    """Symmetric pair features s = [(x + x') / 2, |x' - x|] of standardized pairs.

    (x + x') / 2 says how drawish the two items are together; |x' - x|, feature
    by feature, how alike they are where |d| sees only the sum over features
    (two sushis of one style tie more often than their score gap says).
    Sparse pairs (:class:`~svmcompare.sparse_pairs.SparsePairs`, e.g. one-hot
    identities) give the same columns as a :class:`ShiftedSparse`, a sparse
    matrix plus the row that centers its sums as the dense layout's are:
    which two ids meet, without a dense one-hot."""
    if not isinstance(Xs, np.ndarray):
        first, second = Xs[:, 0], Xs[:, 1]
        S = sp.hstack([(first + second) / 2, abs(second - first)], format="csr")
        # Sparse pairs are not centered; the dense layout's (x + x') / 2 is.
        center = np.zeros(first.shape[1]) if Xs.center is None else Xs.center
        return ShiftedSparse(S, np.concatenate([-center, np.zeros(first.shape[1])]))
    return np.hstack([(Xs[:, 0] + Xs[:, 1]) / 2, np.abs(Xs[:, 1] - Xs[:, 0])])


class ShiftedSparse:
    """Tie features S + 1 shift^T held as a sparse S and a row ``shift``: those
    of sparse pairs, whose sums are centered as the dense layout's are
    without a dense copy.  Rows are selected as a matrix's (``S[rows]``)."""

    def __init__(self, matrix, shift):
        self.matrix, self.shift = sp.csr_matrix(matrix, dtype=np.float64), shift

    @property
    def shape(self):
        return self.matrix.shape

    def __getitem__(self, rows):
        return ShiftedSparse(self.matrix[rows], self.shift)


def _sweep_threads(n_rows):
    """Threads of a link's sweep over ``n_rows`` rows, as the ordered logit's
    (imported here: scoring, which reads this module, loads no scikit-learn)."""
    from ..ordered_logit import sweep_threads

    return sweep_threads(n_rows)


def _band_objective(params, F, S, y, alpha, weight):
    """Negative log-likelihood of the ordered link with a pair-dependent band
    and its gradient.

    ``F``: columns of the predictor eta = F w (the score, then the context);
    ``S``: the tie features of theta = exp(a + S b).  The rows' terms in one
    C sweep (``_ordinal_core.pair_band_terms``)."""
    k = F.shape[1]
    w, a, b = params[:k], params[k], params[k + 1:]
    d_eta, d_tie = np.empty(y.size), np.empty(y.size)
    loss = pair_band_terms(np.ascontiguousarray(F @ w), np.ascontiguousarray(a + S @ b), y,
                           weight, d_eta, d_tie, _TINY, _sweep_threads(y.size))
    loss += 0.5 * alpha * (b @ b)
    return loss, np.concatenate([F.T @ d_eta, [np.sum(d_tie)], S.T @ d_tie + alpha * b])


def _log_softmax(logits):
    """Row-wise log of the softmax, shifted by each row's largest logit (scipy's
    logsumexp costs ~0.6 ms of array-API dispatch per call, most of a link fit
    that SVMCompareCV repeats thousands of times)."""
    top = logits.max(axis=1, keepdims=True)
    shifted = logits - top
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def _davidson_objective(params, F, S, y, alpha, weight):
    """Negative log-likelihood of the Davidson link and its gradient.

    On the three logits (-eta, nu, eta): log P_y = logit_y - log sum_j
    exp(logit_j), and logit_y = sign(y) eta + [y = 0] nu; d(-log P_y)/d eta
    = P_1 - P_-1 - sign(y) and d(-log P_y)/d nu = P_0 - [y = 0].  The rows'
    terms in one C sweep (``_ordinal_core.davidson_terms``)."""
    k = F.shape[1]
    b = params[k + 1:]
    d_eta, d_nu = np.empty(y.size), np.empty(y.size)
    loss = davidson_terms(np.ascontiguousarray(F @ params[:k]),
                          np.ascontiguousarray(params[k] + S @ b), y, weight, d_eta, d_nu,
                          _sweep_threads(y.size))
    loss += 0.5 * alpha * (b @ b)
    return loss, np.concatenate([F.T @ d_eta, [np.sum(d_nu)], S.T @ d_nu + alpha * b])




# A tie feature goes to the link's objective as a sparse column plus a constant
# when at most this share of its entries differ from its median (one-hot
# identities: 2% each at 20,000 club-football pairs), else as a dense column
# (the history features: a sparse layout of those cost twice the dense one's
# products, ~0.5 against 0.2 ms on 16,000 pairs x 36 columns).
_SPARSE_COLUMN_SHARE = 0.3


class StandardizedTieFeatures:
    """Tie features of the pairs a link is fitted on, standardized once for
    many fits (:class:`SVMCompareCV` fits links on the same pairs at every grid
    point: standardizing 16,000 x 392 features again for each fit was a
    third of its link time at 20,000 pairs).

    Attributes
    ----------
    matrix : TieMatrix of shape (n, k)
        (S - mean) / scale, for the objective's products (``matrix @ b``,
        ``matrix.T @ g``): columns whose entries mostly equal their median
        (one-hot columns) are kept as the sparse (S - median) / scale plus
        the constant (median - mean) / scale, the others dense.
    low, high, mean, scale : ndarray of shape (k,)
        Each column's range, mean and standard deviation (1 where constant).
    """

    def __init__(self, matrix, low, high, mean, scale):
        self.matrix, self.low, self.high, self.mean, self.scale = matrix, low, high, mean, scale

    @classmethod
    def of(cls, tie_features):
        """Standardize an (n, k) array (or scipy sparse matrix) of tie features."""
        if isinstance(tie_features, ShiftedSparse):
            # A constant shift of a column moves its mean and range, not the
            # standardized values.
            plain = cls._of_sparse(sp.csc_matrix(tie_features.matrix))
            shift = tie_features.shift
            return cls(plain.matrix, plain.low + shift, plain.high + shift, plain.mean + shift,
                       plain.scale)
        if sp.issparse(tie_features):
            return cls._of_sparse(sp.csc_matrix(tie_features, dtype=np.float64))
        S = np.asarray(tie_features, dtype=np.float64)
        if S.ndim != 2:
            raise ValueError(f"tie_features must have shape (n, k); got {S.shape}.")
        mean, scale = S.mean(axis=0), S.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        median = np.median(S, axis=0) if S.shape[0] else np.zeros(S.shape[1])
        off = S != median
        busy = np.count_nonzero(off, axis=0) > _SPARSE_COLUMN_SHARE * S.shape[0]
        quiet = np.flatnonzero(~busy)
        rows, cols = np.nonzero(off[:, quiet])
        columns = quiet[cols]
        sparse = sp.csr_matrix(((S[rows, columns] - median[columns]) / scale[columns],
                                (rows, cols)), shape=(S.shape[0], quiet.size))
        busy = np.flatnonzero(busy)
        row = (median - mean) / scale
        row[busy] = 0.0
        matrix = TieMatrix((S[:, busy] - mean[busy]) / scale[busy], busy, sparse, quiet, row)
        return cls(matrix, S.min(axis=0), S.max(axis=0), mean, scale)

    @classmethod
    def _of_sparse(cls, S):
        """The same standardization of a sparse (n, k) CSC matrix (the tie
        features of sparse pairs), never densified: a column mostly 0 (an id)
        is shifted by 0, the few others by their median as dense columns are."""
        n, k = S.shape
        column = np.repeat(np.arange(k), np.diff(S.indptr))
        stored = np.bincount(column, minlength=k)
        mean = np.bincount(column, S.data, minlength=k) / n
        # Squared deviations of the stored entries plus those of the implicit zeros.
        deviation = S.data - mean[column]
        variance = (np.bincount(column, deviation * deviation, minlength=k)
                    + (n - stored) * mean**2) / n
        scale = np.sqrt(variance)
        scale = np.where(scale > 0, scale, 1.0)
        low, high = np.full(k, np.inf), np.full(k, -np.inf)
        np.minimum.at(low, column, S.data)
        np.maximum.at(high, column, S.data)
        implicit = stored < n  # the column holds zeros that are not stored
        low[implicit] = np.minimum(low[implicit], 0.0)
        high[implicit] = np.maximum(high[implicit], 0.0)
        zeros = (n - stored) + np.bincount(column[S.data == 0], minlength=k)
        # A column where 0 is not the median is mostly stored: a dense column.
        busy = np.flatnonzero(2 * zeros <= n)
        quiet = np.setdiff1d(np.arange(k), busy)
        sparse = (S[:, quiet] @ sp.diags(1.0 / scale[quiet])).tocsr()
        row = -mean / scale
        row[busy] = 0.0
        matrix = TieMatrix((S[:, busy].toarray() - mean[busy]) / scale[busy], busy, sparse,
                           quiet, row)
        return cls(matrix, low, high, mean, scale)

    def clipped(self, tie_features):
        """Other pairs' tie features as a link fitted on these sees them at
        prediction (clipped to this range, standardized as these; see
        :func:`_band_term`): for many links' predictions on the same pairs."""
        return ClippedTieFeatures(self, _clipped(tie_features, self))

    @property
    def shape(self):
        return self.matrix.shape


def _band_term(S, calibrator):
    """b^T s for each pair: its tie features clipped to the range the link saw
    and standardized as there."""
    if isinstance(S, ClippedTieFeatures):
        source = S.source
        if not all(np.array_equal(a, b) for a, b in (
                (source.low, calibrator.feature_min_), (source.high, calibrator.feature_max_),
                (source.mean, calibrator.feature_mean_),
                (source.scale, calibrator.feature_scale_))):
            raise ValueError("These tie features were clipped for another link's pairs.")
        return S.matrix @ calibrator.band_coef_
    return _clipped(S, calibrator) @ calibrator.band_coef_


def _clipped(S, features):
    """Tie features S (dense, scipy sparse or :class:`ShiftedSparse`) clipped to
    the range of ``features`` (a :class:`StandardizedTieFeatures`, or a fitted
    link's ``feature_*_`` attributes) and standardized as they were: a dense
    array, or for sparse S a :class:`TieMatrix` (a sparse matrix's implicit
    zeros clipped too, without densifying it)."""
    if isinstance(features, StandardizedTieFeatures):
        low, high, mean, scale = features.low, features.high, features.mean, features.scale
    else:
        low, high = features.feature_min_, features.feature_max_
        mean, scale = features.feature_mean_, features.feature_scale_
    if isinstance(S, ShiftedSparse):  # clip(S + shift) - mean = clip(S) - (mean - shift)
        S, low, high, mean = S.matrix, low - S.shift, high - S.shift, mean - S.shift
    if not sp.issparse(S):
        S = np.asarray(S, dtype=np.float64)
        return (np.clip(S, low, high) - mean) / scale
    S = sp.csr_matrix(S, dtype=np.float64)
    zero = np.clip(0.0, low, high)  # each column's value for an implicit 0
    data = (np.clip(S.data, low[S.indices], high[S.indices]) - zero[S.indices]) \
        / scale[S.indices]
    every = np.arange(S.shape[1])
    return TieMatrix(np.zeros((S.shape[0], 0)), every[:0],
                     sp.csr_matrix((data, S.indices, S.indptr), shape=S.shape), every,
                     (zero - mean) / scale)


class ClippedTieFeatures:
    """Tie features clipped and standardized for the links fitted on one set
    of :class:`StandardizedTieFeatures` (``source``): see
    :meth:`StandardizedTieFeatures.clipped`."""

    def __init__(self, source, matrix):
        self.source, self.matrix = source, matrix

    @property
    def shape(self):
        return self.matrix.shape


class TieMatrix:
    """A matrix of standardized tie features held as its dense columns
    (``dense``, at ``dense_columns``), its sparse ones (``sparse``, at
    ``sparse_columns``, each minus a constant) and those constants (``row``,
    0 at the dense columns): the products A b and A^T g of a link's objective
    without a dense copy of mostly constant columns (one-hot ids) nor a
    sparse copy of mostly varying ones."""

    def __init__(self, dense, dense_columns, sparse, sparse_columns, row):
        self.dense, self.dense_columns = np.ascontiguousarray(dense), dense_columns
        self.sparse, self.sparse_columns = sp.csr_matrix(sparse), sparse_columns
        self._sparse_t = None  # A^T's rows, made at the first A^T g
        self.row = row
        self.shape = (self.sparse.shape[0], row.size)

    def __matmul__(self, b):
        if self.dense_columns.size == self.shape[1]:  # every column dense (no constants)
            return self.dense @ b
        out = self.sparse @ b[self.sparse_columns]
        if self.dense_columns.size:
            out += self.dense @ b[self.dense_columns]
        return out + self.row @ b  # b of shape (k,) or (k, m)

    @property
    def T(self):
        return _Transposed(self)

    def rmatvec(self, g):
        """A^T g."""
        if self.dense_columns.size == self.shape[1]:
            return g @ self.dense
        if self._sparse_t is None:  # its rows: A^T g writes in order
            self._sparse_t = self.sparse.T.tocsr()
        out = self.row * g.sum()
        out[self.sparse_columns] += self._sparse_t @ g
        if self.dense_columns.size:
            out[self.dense_columns] += g @ self.dense
        return out


class _Transposed:
    """A^T of a :class:`TieMatrix`, for ``A.T @ g``."""

    def __init__(self, matrix):
        self.matrix = matrix

    def __matmul__(self, g):
        return self.matrix.rmatvec(np.ravel(g))


class PairTieCalibrator:
    """Win / tie / loss link with a pair-dependent tie term (see the module docstring).

    Parameters
    ----------
    link : {"ordered", "davidson"}, default="ordered"
        "ordered": the tie band of half-width theta(s) = exp(a + b^T s) on
        the ordered-logit scale.  "davidson": Davidson's (1970) tie model,
        P(y = j) proportional to exp(-eta), exp(nu(s)), exp(eta) for
        j = -1, 0, 1 with nu(s) = a + b^T s, where a tie's probability
        falls with |d| as 1 / cosh rather than as a difference of sigmoids.
        Both keep P(y = 0) symmetric and P(-1) <-> P(1) antisymmetric under a
        swap.  With tie features of no columns the tie term is a constant.

    Attributes
    ----------
    coef_ : ndarray
        w on the score divided by ``scale_`` (first, >= 0), then u on the context.
    band_intercept_ : float
        a.
    band_coef_ : ndarray
        b, on the tie features standardized by ``feature_mean_``, ``feature_scale_``
        (clipped to ``feature_min_``, ``feature_max_`` at prediction).
    scale_, limit_ : float
        As :class:`ScoreCalibrator`.
    """

    def __init__(self, *, link="ordered"):
        self.link = link

    def fit(self, score, y, tie_features, context=None, sample_weight=None, start=None,
            warm=None):
        """Fit on scores (n,), labels, symmetric pair features (n, k), an
        optional pair context (n, q) and optional weights (n,); ``start``, a
        :class:`ScoreCalibrator` fitted on the same scores, labels, context
        and weights (the constant band the fit starts from), when the caller
        has it.  ``warm``: a :class:`PairTieCalibrator` of the same link
        fitted on the same pairs' tie features, labels and weights but other
        scores (a neighbouring grid point's): its tie term starts this fit,
        the score's coefficients still come from ``start`` (another model's
        scores have another scale)."""
        if self.link not in LINKS:
            raise ValueError(f"link must be one of {LINKS}; got {self.link!r}.")
        score, y = _check_scores_labels(score, y)
        context = _check_link_context(context, score.size)
        features = tie_features if isinstance(tie_features, StandardizedTieFeatures) else \
            StandardizedTieFeatures.of(tie_features)
        if features.shape[0] != score.size:
            raise ValueError(f"tie_features must have shape ({score.size}, k); "
                             f"got {features.shape}.")
        if start is None:
            start = ScoreCalibrator().fit(score, y, context, sample_weight)
        weight = np.ones(score.size) if sample_weight is None else _unit_mean(sample_weight)
        # The likelihood of both orientations ((d, y) and (-d, -y), s unchanged):
        # the link is swap-symmetric, P(-y | -eta, s) = P(y | eta, s), so the swapped
        # copy of a pair adds the same term as the pair itself, and twice the weight
        # on one orientation is the same objective at half the cost.
        d, yy, ctx, weight = score, y, context, 2.0 * weight
        self.scale_, self.limit_ = start.scale_, start.limit_
        F = _link_design(d, ctx, self.scale_)
        self.feature_min_, self.feature_max_ = features.low, features.high
        self.feature_mean_, self.feature_scale_ = features.mean, features.scale
        S = features.matrix
        if self.link == "ordered":
            objective = _band_objective
            # Pairs without a tie fit a start link of one threshold (no band):
            # the band's own fit then drives P(tie) toward 0.
            thresholds = start.link_.thresholds_
            tie_term = np.log(max(float(thresholds[1]) if thresholds.size > 1 else 0.0, 1e-3))
        else:
            objective = _davidson_objective
            share = np.average(yy == 0, weights=weight)
            tie_term = np.log(max(share, 1e-6) / max((1.0 - share) / 2, 1e-6))
        x0 = np.concatenate([start.link_.coef_, [tie_term], np.zeros(S.shape[1])])
        if warm is not None and warm.link == self.link and warm.band_coef_.size == S.shape[1]:
            # SVMCompareCV's points along C: the tie term moves little from one
            # C to the next (20,000 pairs, 392 tie features: 13-31 objective
            # evaluations from the neighbour's against 29-41 from a constant band).
            x0[F.shape[1]:] = np.concatenate([[warm.band_intercept_], warm.band_coef_])
        bounds = [(0.0, None)] + [(None, None)] * (F.shape[1] + S.shape[1])
        alpha = _BAND_ALPHA_PER_PAIR * weight.sum()
        from scipy.optimize import minimize

        result = minimize(objective, x0, args=(F, S, yy.astype(np.intp), alpha, weight),
                          jac=True, method="L-BFGS-B", bounds=bounds)
        k = F.shape[1]
        self.coef_ = result.x[:k]
        self.band_intercept_ = float(result.x[k])
        self.band_coef_ = result.x[k + 1:]
        return self

    def tie_features(self, Xs):
        """The tie features this link was fitted on, from standardized pairs:
        :func:`pair_tie_features` for a band that moves with the pair
        (``tie_band="pair"``), none for a constant one."""
        return tie_features_for(Xs, "pair" if self.band_coef_.size else "constant")

    @property
    def context_coef(self):
        """u: the link's coefficients on the pair context (its predictor eta
        is w d / scale + u^T context; Davidson's odds of x' better over x
        better are exp(2 eta))."""
        return np.asarray(self.coef_[1:], dtype=float)

    def at_equal_scores(self, context):
        """Probabilities of -1, 0, 1 for pairs of equal scores (d = 0) with
        the rows of ``context``, each of the tie band's average pair."""
        mean = getattr(self, "feature_mean_", np.zeros(0))
        features = np.tile(mean, (len(context), 1))
        return self.predict_proba(np.zeros(len(context)), context, features)

    def predict_proba(self, score, context=None, tie_features=None):
        """(n, 3) probabilities of -1, 0, 1."""
        F = _link_design(score, context, self.scale_, self.limit_)
        # The tie term is known only over the tie features it saw (exp() of an
        # extrapolated feature, e.g. a count of games that keeps growing, made
        # every later pair a near-certain tie).
        S = np.zeros((F.shape[0], 0)) if tie_features is None else tie_features
        band = _band_term(S, self)
        eta = F @ self.coef_
        if self.link == "davidson":
            logits = np.column_stack([-eta, self.band_intercept_ + band, eta])
            return np.exp(_log_softmax(logits))
        theta = np.exp(np.clip(self.band_intercept_ + band, -30.0, 30.0))
        p_loss = expit(-theta - eta)
        p_win = expit(-theta + eta)
        return np.column_stack([p_loss, np.maximum(1.0 - p_loss - p_win, 0.0), p_win])


def fit_link(score, y, tie_features, *, link="ordered", context=None, sample_weight=None,
             start=None, warm=None):
    """The probability link of family ``link`` fitted on held-out scores and the
    pairs' tie features (``tie_features_for``: no columns for a constant band;
    or their :class:`StandardizedTieFeatures`, for many fits on the same pairs).

    ``start``: the constant ordered band (``fit_link(score, y, no columns)``)
    of the same scores, labels, context and weights, when already fitted: the
    other links start from it.  ``warm``: the same link fitted on the same
    pairs with other scores, whose tie term starts this one (see
    :meth:`PairTieCalibrator.fit`).  Returns a calibrator whose
    ``predict_proba(score, context, tie_features)`` takes the tie features of
    the pairs it scores.
    """
    from ..solvers.threads import one_blas_thread

    # Its products are n x (a few) columns: BLAS threads gain nothing, and once
    # numba's OpenMP threads exist they make each L-BFGS step ~10x slower
    # (0.13 s instead of 0.01 s for the link on 6,400 pairs).
    with one_blas_thread():
        if tie_features.shape[1] == 0 and link == "ordered":
            return start if start is not None else \
                ScoreCalibrator().fit(score, y, context, sample_weight)
        return PairTieCalibrator(link=link).fit(score, y, tie_features, context, sample_weight,
                                                start, warm)


def tie_features_for(Xs, tie_band):
    """The tie features of standardized pairs under ``tie_band``: none for
    "constant", :func:`pair_tie_features` for "pair"."""
    if tie_band == "pair":
        return pair_tie_features(Xs)
    return np.zeros((Xs.shape[0], 0))


def _check_scores_labels(score, y):
    score = np.asarray(score, dtype=np.float64).ravel()
    y = np.asarray(y).ravel()
    if score.shape != y.shape:
        raise ValueError(f"score has {score.size} entries but y has {y.size}.")
    if not np.all(np.isfinite(score)):
        raise ValueError("score contains NaN or infinity.")
    if not np.all(np.isin(y, LABELS)):
        raise ValueError("y must be in {-1, 0, 1}.")
    if y.size == 0 or np.all(y == y[0]):
        raise ValueError("Calibrating probabilities needs at least two distinct outcomes.")
    return score, y
