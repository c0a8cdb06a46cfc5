"""SVMcompare: the support vector comparison machine (Algorithm 1)."""

from __future__ import annotations

import warnings

import numpy as np

from ._base import PairwiseKernelModel, lemma1_applies
from ._increment import partial_fit as partial_fit_solution
from ._problem import ProblemKind, flip_compare
from ._threshold import fit_threshold
from ._validation import check_compare_label_set
from .calibration.held_out import HeldOutCalibration, calibrate_link, held_out_gaps
from .exceptions import (
    DegenerateWarning,
    NoRankingError,
    degenerate_advice,
    degenerate_warnings_wanted,
    outside_stacklevel,
    probabilities_follow_wanted,
    search_found,
)


def _flipped_pairs(model, Xs, y, context=None, sample_weight=None):
    # Flipped data, eq. (8).
    return flip_compare(Xs, y, float(model.C), model.class_weight, context, sample_weight)


def _lemma1_scale_of(model, beta, bias_noise=0.0):
    return lemma1_scale(beta, bias_noise, model.C, model.on_degenerate,
                        class_weight=model.class_weight, loss=model.loss,
                        probability=bool(getattr(model, "probability", False))
                        or probabilities_follow_wanted())


def _machine_threshold_of(model, decision, y, sample_weight):
    model.threshold_, model.margin_ = machine_threshold(decision, y, model.degenerate_,
                                                        model.intercept_, sample_weight)


# The comparison machines' problem: the flipped data of eq. (8), which needs both
# equality and inequality pairs; Lemma 1's ranking function; the tie band of eq. (5).
COMPARISON_MACHINE = ProblemKind(check_labels=check_compare_label_set, build=_flipped_pairs,
                                 bias=True, rank_scale=_lemma1_scale_of,
                                 finish=_machine_threshold_of)


class SVMCompare(HeldOutCalibration, PairwiseKernelModel):
    """Support vector comparison machine (Algorithm 1 of Venuto et al.).

    Learns a ranking function r(x) and the comparison function
    c_1(x, x') = t_1(r(x') - r(x)) (eqs. 4, 5) from pairs labeled -1, 0, 1.

    Fitting (i) centers and scales every feature over the stacked x and x'
    rows, dropping constant features; (ii) builds the flipped data of eq. (8)
    (inequality pairs oriented toward the better item, labeled 1; each
    equality pair twice, once per orientation, labeled -1: m = n + |I_0| rows);
    (iii) solves the dual (18) with the kernel K~ = M^T K M, whose rows are
    computed on demand, by SMO; (iv) applies Lemma 1:
    r(x) = sum_i y~_i v_i [k(x~_i, x) - k(x~'_i, x)] / beta (eq. 19).

    Parameters
    ----------
    C : float, default=1.0
        Cost of the slack variables in the primal (15).
    kernel : {"rbf", "linear", "poly", "laplacian"} or callable, default="rbf"
        See :mod:`svmcompare.kernels` for the conventions (kernlab's).
    gamma : float, default=1.0
        Kernel scale: exp(-gamma ||x - z||^2) for "rbf".
    degree : int, default=3
        Degree of the "poly" kernel (gamma <x, z> + coef0) ** degree.
    coef0 : float, default=1.0
        Offset of the "poly" kernel.
    class_weight : None, "auto", "balanced" or dict, default="auto"
        Multiplies C per flipped label (eq. 8 rows): ``{1: w_1, -1: w_-1}``
        where 1 marks a significant difference and -1 an equality (two rows
        per tie).  "balanced" uses m / (2 * rows of the label), so that ties
        and non-ties weigh the same whatever their shares.  ``None`` is the
        paper's problem (its reproductions use it); on noisy data with few
        ties it often has beta >= 0 at every C.  "auto" is "balanced" when
        ties are under a third of the pairs (their rows the minority) and
        ``None`` otherwise: ties are weighted up, never down.  Measured by
        ``benchmarks/bench_class_weight.py`` (BENCHMARKS.md): at the paper's
        50% ties "balanced" cost up to 1 point of test error against the
        paper's problem, and on the real sets with 5-27% ties ``None``
        degenerated at every C.
    scale_indicators : bool, default=True
        Whether features that take the values 0 and 1 only (one-hot
        identities, flags) are standardized like the others (True: the
        paper's preprocessing) or only centered (False: every identity's
        effect is shrunk alike toward the mean, however few its games;
        standardized, a rare identity's weight is the least penalized).
        :class:`SVMCompareCV` tries both on its linear points when the pairs
        have such features.
    on_degenerate : {"fallback", "raise"}, default="fallback"
        What to do when the SVM's beta is >= 0 or within the solver's noise of
        0, so that Lemma 1's r = u^T Phi / (-beta) does not exist or has a
        meaningless scale.  "fallback": keep the direction the SVM found,
        r = u^T Phi, and choose the tie threshold tau on the training pairs by
        eq. (6), as SVMRank does; a UserWarning says so, and ``degenerate_``
        is True.  "raise": the paper's behaviour, :class:`NoRankingError`.
        With few ties and ``class_weight=None`` the hinge's exact solution is
        often u = 0, and the direction kept is where the solver stopped on its
        way there; for linear and Nystroem fits of at most 50,000 rows an LP
        of the optimality conditions tells, and the warning says so.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        The loss of the SVM's slacks.  "hinge": the paper's problem (eq. 15).
        "squared_hinge": C_t max(0, 1 - y_t f_t)^2 instead (the L2-loss SVM,
        scikit-learn's ``LinearSVC`` default), solved by dual coordinate
        descent; it needs ``kernel="linear"`` or ``solver="nystroem"``.  Every
        pair near or past the margin keeps pulling the ranking in proportion to
        how far it is, where the hinge lets the pairs far past the margin go:
        on identities at scale its win / draw / loss probabilities are the
        better ones (BENCHMARKS.md, "Identities at scale").
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation of the dual.
    max_iter : int or None, default=None
        Maximum SMO steps of the exact solver; None means max(10_000_000,
        100 m).  The primal solvers (``solver="linear"``, Nystroem, the
        squared hinge) stop by their own limits and tolerance, not by it.
    cache_size : float, default=200
        Megabytes for kernel rows during fitting (exact solver).  With
        ``probability=True`` the fit's rows stay for its calibration folds,
        which share what is left (at least a tenth more).
    shrinking : bool, default=True
        Set aside dual variables that sit at a bound while the solver works on
        the rest (LIBSVM's shrinking, exact solver).  It starts once steps
        revisit variables, so it saves most at large C and costs nothing
        measurable at small C (BENCHMARKS.md, "Exact RBF fit"); False turns
        it off.
    solver : {"auto", "exact", "linear", "nystroem"}, default="auto"
        "exact": SMO on the dual (18).  "linear" (kernel="linear" only): the
        primal problem on difference vectors, for millions of pairs (sparse
        rows such as ids with a moderate C ||d||^2: dual coordinate descent,
        ``solvers.dual_cd``; otherwise Newton's method on a smoothed hinge).
        "nystroem": the linear solver on a Nystroem approximation of the
        kernel with ``n_components`` landmarks.  "auto": "linear" for the
        linear kernel (O(m p) memory and O(m p^2) per Newton step; "exact"
        instead when there are more than 1,000 features and more features
        than pairs); for a polynomial kernel whose feature space has at most
        500 dimensions (comb(n_features + degree, degree)), the linear solver
        on an exact feature map (SMO needs millions of steps on these low-rank
        duals at large C); otherwise "exact" up to 50,000 pairs, "nystroem"
        beyond.
    n_components : int, default=100
        Landmarks of the Nystroem approximation.
    probability : bool, default=False
        Also fit the win / tie / loss probabilities of :meth:`predict_proba`:
        an ordered-logit link on held-out rank differences (see
        ``calibration``; :mod:`svmcompare.calibration`).
        (:class:`SVMCompareCV` reuses its search folds instead.)
    calibration : {"auto", "cv", "loo"}, default="auto"
        Where ``probability=True`` gets rank differences of pairs the model
        did not see.  "auto": "cv", except for a linear fit with at least
        100 pairs per weight (identities at scale: 1,000,000 games of
        10,000 players), whose own rank differences are used ("in-sample",
        no refit: their optimism is negligible there; BENCHMARKS.md,
        "Identities at scale").  "cv": five folds, each this fit's problem
        without the fold's pairs (same standardization, C and features),
        started from the solution on all pairs and run side by side
        (``n_jobs`` threads, :mod:`svmcompare.solvers.folds`; their cost over
        a plain fit is in BENCHMARKS.md, "Probabilities from row folds").
        "loo" (exact solver): leave-one-pair-out rank differences estimated
        from the fit itself (Opper and Winther's approximation,
        :mod:`svmcompare.solvers.loo`: one factorization of the free support
        vectors' kernel block, no refit) when at most 2,000 dual variables
        are free and their system is well conditioned (otherwise, and for the
        other solvers, it refits the folds).  Faster than "cv", but on real
        games its log-loss can be worse at some settings
        (``benchmarks/bench_calibration.py``; BENCHMARKS.md), hence not the
        default.  ``calibration_`` says which was used.
    tie_band : {"constant", "pair"}, default="constant"
        The probability link's tie band.  "constant": P(y = 0) depends on
        the pair only through |r(x') - r(x)| (the paper's model).  "pair":
        drawish pairs, a band of half-width exp(a + b^T s) with the symmetric
        pair features s = [(x + x') / 2, |x' - x|] (standardized), so that
        two items can tie more often than their rank gap says
        (:class:`svmcompare.calibration.PairTieCalibrator`, equations in
        its module); on identities (one-hot ids, dense or sparse pairs) s
        says which two ids meet, so each id can have a draw rate of its own.
        Only ``predict_proba`` changes; ``SVMCompareCV`` chooses it by
        validation.
    link : {"ordered", "davidson"}, default="ordered"
        The probability link's family.  "ordered": the ordered logit, where
        P(y = 0) is a difference of two sigmoids of d.  "davidson":
        Davidson's tie model, P(y = -1), P(y = 0), P(y = 1) proportional to
        exp(-w d), exp(nu), exp(w d) (nu = a + b^T s with ``tie_band="pair"``),
        whose tie probability has heavier tails in d.  ``SVMCompareCV``
        chooses it by validation.
    n_jobs : int or None, default=None
        Threads of the solvers' parallel loops (the exact solver's rows of
        K~ over all items, the linear solver's sums), or of the calibration
        folds run side by side with ``probability=True``; None or -1: every
        core.  The fitted model has the same bits whatever the number.
    random_state : int, RandomState or None
        Seed of the Nystroem landmarks and of the calibration folds (the
        solvers are otherwise deterministic).
    cost : array-like of shape (3, 3), default=None
        With ``probability=True``, :meth:`predict` gives the label of least
        expected cost, cost[i, j] being the cost of predicting labels[j] when
        the truth is labels[i] (labels -1, 0, 1; e.g. a missed draw that
        costs less than a wrong winner); None: zero-one cost, the most
        probable outcome.  Without probabilities :meth:`predict` is the
        comparison rule :meth:`compare`.
    verbose : bool, default=False
        Show a progress line on stderr (SMO steps so far and their rate)
        while an exact fit runs longer than 2 s, and with ``probability=True``
        a bar over the calibration folds once they run longer than 2 s.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the flipped data of eq. (8).
    dual_coef_ : ndarray of shape (n_SV,)
        y~_i v_i of the support vectors.
    intercept_ : float
        beta of eq. (9); negative for every fitted model (Lemma 1).
    n_support_ : ndarray of shape (2,)
        Number of support vectors with flipped label -1 (equality) and 1.
    classes_ : ndarray, [-1, 0, 1]
    n_features_in_ : int
    margin_ : float
        -1 / beta, the margin of Lemma 1 in units of rank (NaN when degenerate).
    threshold_ : float
        tau of the comparison t_tau(r(x') - r(x)): 1 (c_1, eq. 5), or the
        threshold of eq. (6) when ``degenerate_``.
    degenerate_ : bool
        Whether beta was >= 0 or within the solver's noise of 0, so that the
        ``on_degenerate="fallback"`` ranking and threshold are used.
    dual_objective_ : float
        Objective of the dual (18) at the solution (exact solver).
    kkt_violation_ : float
        Maximal KKT violation at the solution, < tol (exact solver).
    primal_objective_ : float
        Objective of the primal (15) (linear and Nystroem solvers).
    n_iter_ : int
        SMO steps (exact), Newton steps (linear, Nystroem) or passes over the
        rows (dual coordinate descent on sparse rows).
    converged_ : bool
        Whether the solver met ``tol``; False comes with a
        ``ConvergenceWarning`` that says why and what to change.
    solver_ : str
        The solver used.
    coef_ : ndarray of shape (n_features_in_,)
        Ranking weights w = -u / beta of Lemma 1 (linear kernel only).
    expansion_items_, expansion_coef_ : ndarray
        Standardized items e_j and coefficients c_j with r(z) = sum_j c_j k(e_j, z)
        (exact solver; None otherwise).
    weights_ : ndarray or None
        w with r(z) = w^T phi(z) on standardized items (linear, Nystroem).
    calibrator_ : ScoreCalibrator
        The link of :meth:`predict_proba` (``probability=True`` only).
    calibration_ : {"in-sample", "leave-one-out", "5-fold"}
        Where the link's held-out rank differences came from
        (``probability=True`` only; see ``calibration``).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcompare import SVMCompare, make_pairs
    >>> rng = np.random.default_rng(0)
    >>> Xi = rng.uniform(-2, 2, size=(60, 2))
    >>> Xip = Xi + rng.uniform(-1, 1, size=(60, 2))
    >>> d = (Xip ** 2).sum(1) - (Xi ** 2).sum(1)
    >>> y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    >>> model = SVMCompare(C=10, gamma=0.5).fit(make_pairs(Xi, Xip), y)
    >>> model.predict(make_pairs(Xi, Xip)).shape
    (60,)
    """

    problem_kind = COMPARISON_MACHINE

    def __init__(self, *, C=1.0, kernel="rbf", gamma=1.0, degree=3, coef0=1.0,
                 class_weight="auto", scale_indicators=True, on_degenerate="fallback",
                 loss="hinge", tol=1e-3, max_iter=None,
                 cache_size=200.0, shrinking=True, solver="auto", n_components=100,
                 probability=False, calibration="auto", tie_band="constant", link="ordered",
                 cost=None, n_jobs=None, random_state=None, verbose=False):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.class_weight = class_weight
        self.scale_indicators = scale_indicators
        self.on_degenerate = on_degenerate
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.solver = solver
        self.n_components = n_components
        self.probability = probability
        self.calibration = calibration
        self.tie_band = tie_band
        self.link = link
        self.cost = cost
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def partial_fit(self, X, y, context=None, sample_weight=None, *, earlier_weight=1.0):
        """Add pairs to those of the earlier ``partial_fit`` calls and refit on
        all of them, starting from the last solution (a week of new results).

        After each call the model is the one :meth:`fit` would give on every
        pair given so far, to the solver's tolerance ``tol`` (threshold,
        probability link and calibration folds included), at a fraction of a
        refit's cost on large data: the solver keeps the earlier rows'
        gradient and Hessian and needs one pass over them per round
        (:mod:`svmcompare.solvers.incremental`; 10,000 ids x 1,000,000 games,
        then a week of 20,000: BENCHMARKS.md).  For ``kernel="linear"`` and
        ``loss="squared_hinge"`` (the ratings model).

        Unlike :meth:`fit`, features are used as given, not standardized
        (every batch must be on one scale): one-hot identities need nothing
        (they are what ``scale_indicators=False`` fits, and their scores
        differ from fit's by a constant only); scale other features before the
        first call.  An id first seen in a later batch needs its column from
        the start (build every batch's pairs with the same ids).

        Parameters
        ----------
        X, y, context, sample_weight : the new pairs, as :meth:`fit`.
        earlier_weight : float in [0, 1], default=1.0
            Multiplies the weight of every pair given before this call: a time
            decay's factor for the time since the last call, e.g.
            ``2 ** (-days / half_life)`` (what :func:`svmcompare.time_decay`
            gives the earlier pairs, applied week by week); 0 forgets them.
            A batch's ``sample_weight`` may be all 0 while earlier pairs
            weigh something.  A DataFrame batch must name its columns as the
            first call's did (in the same order).

        Returns
        -------
        self

        Notes
        -----
        The state (every pair so far and the solver's expansion) is kept in
        memory between calls; :meth:`fit` discards it, a model file leaves it
        out, and a later ``partial_fit`` on a model without it (fitted by
        ``fit``, read from a file, or after a call that failed in its solve)
        is refused.  Changing a parameter other than ``n_jobs``, ``verbose``,
        ``cache_size`` or ``random_state`` between calls is refused too.
        """
        prepared, result, state = partial_fit_solution(self, X, y, context, sample_weight,
                                                       earlier_weight)
        if self.probability:
            calibrate_link(self, held_out_gaps(self, prepared, result, None), prepared.y,
                           prepared.Xs, prepared.context, prepared.sample_weight)
        self._increment = state
        return self


def lemma1_scale(beta, bias_noise, C, on_degenerate, model="SVMCompare", class_weight=None,
                 loss=None, probability=None):
    """Lemma 1's scale 1 / (-beta) of r = u^T Phi / (-beta), and whether the fit
    is degenerate (beta not clearly negative: scale 1 with ``on_degenerate=
    "fallback"``, a warning; :class:`NoRankingError` with "raise")."""
    beta = float(beta)
    if lemma1_applies(beta, bias_noise):
        # Lemma 1 / eq. (13): r(x) = u^T Phi(x) / (-beta), so by eq. (19) the
        # coefficient of row t on its x~' item b_t is y~_t v_t / (-beta).
        return 1.0 / (-beta), False
    what = ">= 0" if beta >= 0 else f"numerically 0 (|beta| < {max(float(bias_noise), 1e-300):.2g})"
    found = f"{model} found beta = {beta + 0.0:.4g}, {what} (C={C})"
    if on_degenerate == "raise":
        raise NoRankingError(
            f"{found}, so Lemma 1 gives no ranking function: the SVM predicts a "
            "significant difference for (nearly) every pair. This happens when ties weigh "
            "little against the other pairs at this C, or when the features say little "
            "about which item is better. More weight on ties is the usual cure: "
            "class_weight='balanced' when ties are under a third of the pairs (the default "
            "'auto' does so), else a dict {1: 1, -1: w} with w > 1; on_degenerate='fallback' "
            "keeps the SVM's ranking direction with a tie threshold chosen on the training "
            "pairs."
        )
    if not degenerate_warnings_wanted():
        return 1.0, True
    # The advice fits the class weights in use: "try 'balanced'" to a fit
    # whose 'auto' already was balanced contradicted itself (a review).
    weigh = "class_weight='balanced' (what the default 'auto' does when ties are under a " \
        "third of the pairs) or more weight on ties (class_weight={1: 1, -1: w} with w > 1)" \
        if class_weight is None else \
        "more weight on ties than now (class_weight={1: 1, -1: w}, w above the balanced " \
        "weight of ties)"
    # Only what this model has and is not using yet (``loss`` and ``probability``
    # None: a model without them, the LP).
    other_loss = ", or loss='squared_hinge' (linear kernel: a unique solution)" \
        if loss == "hinge" else ""
    advice = degenerate_advice(
        f"To avoid it, try a smaller C or {weigh}{other_loss}; on_degenerate='raise' makes it "
        "an error (the paper's NoRankingError).")
    probabilities = "" if probability is None else \
        "; its probabilities are fitted as usual" if probability else \
        "; with probability=True its probabilities are fitted as usual"
    warnings.warn(
        f"{search_found(found)}. The model is usable: it keeps the SVM's ranking direction "
        "and, like SVMRank, chooses the tie threshold of its comparison rule on the training "
        f"pairs (degenerate_ = True){probabilities}. What happened: ties weigh little at "
        "this C, so the paper's tie band (Lemma "
        "1) has no scale. If its scores r(x) are all at rounding level (around 1e-15), the "
        f"SVM found no direction at all and labels from it mean nothing. {advice}",
        DegenerateWarning, stacklevel=outside_stacklevel(),
    )
    return 1.0, True


def machine_threshold(d_train, y, degenerate, beta, sample_weight=None):
    """(threshold, margin) of a comparison machine: c_1 of eq. (5) with margin
    -1 / beta, or for a degenerate fit the threshold of eq. (6) on the training
    rank differences ``d_train()`` (margin NaN), each pair counted by its
    ``sample_weight``.

    ``d_train`` is a callable: scoring every training pair with an expansion
    over tens of thousands of items took a third of a 50,000-pair fit, and a
    fit with a usable beta does not need it.
    """
    if degenerate:
        return fit_threshold(d_train(), y, sample_weight), np.nan
    # c_1 of eq. (5): rank differences within [-1, 1] are not significant.
    return 1.0, -1.0 / float(beta)
