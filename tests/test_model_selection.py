import numpy as np
import pytest
from sklearn.model_selection import GroupKFold

import svmcompare.grid_search as grid_search
from svmcompare import NoRankingError, SVMCompare, SVMCompareCV, SVMRank, make_pairs
from svmcompare.datasets import make_norm_pairs
from svmcompare.grid_search import grid_points, paper_grid, validation_search
from svmcompare.model_selection import default_grid
from svmcompare.ranking_function import rank_gap


def test_paper_grid_values():
    grid = paper_grid()
    np.testing.assert_allclose(grid["C"][[0, -1]], [1e-3, 1e3])
    np.testing.assert_allclose(grid["gamma"][[0, -1]], [2**-7, 2**4])
    assert len(grid["C"]) == len(grid["gamma"]) == 10
    assert list(grid) == ["gamma", "C"]  # C varies fastest, as in the paper's scripts


@pytest.mark.parametrize("scoring", ["error", "auc"])
def test_selects_the_best_validation_point(norm_data, scoring):
    (X, y), (Xv, yv) = norm_data
    grid = {"gamma": [0.25, 1.0], "C": [0.01, 1.0, 100.0]}
    best, results = validation_search(SVMRank(), grid, X, y, Xv, yv, scoring=scoring)
    assert len(results) == 6 and results["selected"].sum() == 1
    chosen = results[results["selected"]].iloc[0]
    column = results[scoring]
    assert chosen[scoring] == (column.min() if scoring == "error" else column.max())
    assert (best.C, best.gamma) == (chosen["C"], chosen["gamma"])
    assert np.mean(best.predict(Xv) != yv) == pytest.approx(chosen["error"])


def test_failed_points_are_recorded():
    X, y = make_norm_pairs(200, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    Xv, yv = make_norm_pairs(200, "l2", equality_fraction=0.1, noise=1.0, random_state=1)
    grid = {"class_weight": [None, "balanced"]}
    paper = SVMCompare(on_degenerate="raise")
    best, results = validation_search(paper, grid, X, y, Xv, yv)
    assert results["failed"].tolist() == [True, False]
    assert best.class_weight == "balanced"
    with pytest.raises(NoRankingError, match="Every grid point failed"):
        validation_search(paper, {"class_weight": [None]}, X, y, Xv, yv)


@pytest.mark.parametrize("cls", [SVMCompare, SVMRank])
def test_warm_started_path_equals_cold_fits(norm_data, cls):
    from svmcompare.grid_search import fit_C_path

    (X, y), (Xtest, _) = norm_data
    Cs = [10.0, 0.01, 1.0, 0.1]  # unsorted on purpose: results follow this order
    path = fit_C_path(cls(gamma=0.5, tol=1e-5), X, y, Cs)
    for C, warm in zip(Cs, path, strict=True):
        cold = cls(C=C, gamma=0.5, tol=1e-5).fit(X, y)
        assert warm.C == C
        assert warm.dual_objective_ == pytest.approx(cold.dual_objective_, rel=1e-5)
        np.testing.assert_allclose(warm.decision_function(Xtest), cold.decision_function(Xtest),
                                   atol=1e-2 * (1 + np.abs(cold.decision_function(Xtest)).max()))


@pytest.mark.parametrize("cls", [SVMCompare, SVMRank])
def test_a_linear_path_started_from_the_previous_C_equals_cold_fits(cls, monkeypatch):
    # The primal solvers start from the previous C's (u, beta) past the first
    # smoothing levels (and coordinate descent from its scaled alphas): the
    # same optimum as cold fits, in fewer steps.
    from svmcompare.grid_search import fit_C_path
    from svmcompare.solvers import dual_cd

    monkeypatch.setattr(dual_cd, "DUAL_CD_MAX_COST", 0.0)  # every C to Newton's steps
    X, y = make_norm_pairs(400, "l1", equality_fraction=0.3, noise=0.5, random_state=3)
    Xtest, _ = make_norm_pairs(300, "l1", random_state=4)
    Cs = [0.1, 1.0, 10.0, 100.0]
    path = fit_C_path(cls(kernel="linear"), X, y, Cs)
    warm_steps = cold_steps = 0
    for C, warm in zip(Cs, path, strict=True):
        cold = cls(kernel="linear", C=C).fit(X, y)
        assert warm.primal_objective_ == pytest.approx(cold.primal_objective_, rel=1e-7)
        np.testing.assert_allclose(warm.decision_function(Xtest), cold.decision_function(Xtest),
                                   atol=1e-4 * (1 + np.abs(cold.decision_function(Xtest)).max()))
        warm_steps += warm.n_iter_
        cold_steps += cold.n_iter_
    assert warm_steps < cold_steps


def test_a_path_stops_trying_coordinate_descent_once_a_smaller_C_needed_newton(monkeypatch):
    # Coordinate descent's passes grow with C: once it fails at one C of a
    # path (its budget spent, Newton's method taking over), the larger C
    # values go straight to Newton's method, whose solution each model is.
    from svmcompare.grid_search import fit_C_path
    from svmcompare.solvers import dual_cd

    X, y = make_norm_pairs(400, "l1", equality_fraction=0.3, noise=0.5, random_state=3)
    Xtest, _ = make_norm_pairs(300, "l1", random_state=4)
    Cs = [1e-3, 1.0, 10.0, 100.0]
    original = dual_cd.solve_linear_dual
    tried = []  # the largest cost of each coordinate-descent attempt

    def counted(D, y, C, **kwargs):
        result = original(D, y, C, **kwargs)
        tried.append((float(np.max(C)), result.converged))
        return result

    monkeypatch.setattr(dual_cd, "solve_linear_dual", counted)
    path = fit_C_path(SVMCompare(kernel="linear"), X, y, Cs)
    failed = [C for C, converged in tried if not converged]
    assert failed, "the test needs a C where coordinate descent fails"
    # Nothing tried past the first failure, and the C values before it converged.
    assert max(C for C, _ in tried) == min(failed)
    assert all(converged for C, converged in tried if C < min(failed))
    assert max(Cs) > min(failed)
    monkeypatch.setattr(dual_cd, "solve_linear_dual", original)
    for C, fitted in zip(Cs, path, strict=True):
        alone = SVMCompare(kernel="linear", C=C).fit(X, y)
        assert fitted.primal_objective_ == pytest.approx(alone.primal_objective_, rel=1e-6)
        np.testing.assert_allclose(
            fitted.decision_function(Xtest), alone.decision_function(Xtest),
            atol=1e-4 * (1 + np.abs(alone.decision_function(Xtest)).max()))


def test_a_nystroem_path_forms_its_rows_once_and_equals_fits_alone(monkeypatch):
    # The rows phi(x') - phi(x) are the same at every C: formed once per path,
    # each model as the same fit alone (same landmarks from random_state).
    from svmcompare import _problem
    from svmcompare.grid_search import fit_C_path

    X, y = make_norm_pairs(300, "l2", equality_fraction=0.3, random_state=5)
    Xtest, _ = make_norm_pairs(100, "l2", random_state=6)
    formed = []
    original = _problem.nystroem_rows
    monkeypatch.setattr(_problem, "nystroem_rows",
                        lambda *args: formed.append(1) or original(*args))
    monkeypatch.setattr("svmcompare._base.nystroem_rows", _problem.nystroem_rows)
    model = SVMCompare(solver="nystroem", n_components=30, random_state=0, gamma=0.5, tol=1e-7)
    Cs = [0.1, 1.0, 10.0]
    path = fit_C_path(model, X, y, Cs)
    assert len(formed) == 1
    for C, fitted in zip(Cs, path, strict=True):
        alone = SVMCompare(solver="nystroem", n_components=30, random_state=0, gamma=0.5,
                           tol=1e-7, C=C).fit(X, y)
        assert fitted.primal_objective_ == pytest.approx(alone.primal_objective_, rel=1e-6)
        np.testing.assert_allclose(fitted.decision_function(Xtest),
                                   alone.decision_function(Xtest), rtol=1e-4, atol=1e-6)


def test_path_marks_failed_fits_as_none():
    from svmcompare.grid_search import fit_C_path

    X, y = make_norm_pairs(200, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    path = fit_C_path(SVMCompare(class_weight=None, on_degenerate="raise"), X, y, [1.0])
    assert path == [None]


def test_svmcomparecv_matches_an_exhaustive_search(norm_data):
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from svmcompare import SVMCompareCV

    (X, y), (Xtest, _) = norm_data
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    Cs, gammas = [0.1, 1.0, 10.0], [0.25, 1.0]
    ours = SVMCompareCV(param_grid={"gamma": gammas, "C": Cs}, cv=cv, selection="best").fit(X, y)
    reference = GridSearchCV(SVMCompare(), {"gamma": gammas, "C": Cs}, cv=cv).fit(X, y)
    assert ours.best_params_ == pytest.approx(reference.best_params_)
    # Minus the error against the accuracy: both larger-is-better, one apart.
    assert 1 + ours.best_score_ == pytest.approx(reference.best_score_, abs=1e-9)
    np.testing.assert_array_equal(ours.predict(Xtest), reference.predict(Xtest))
    assert len(ours.cv_results_) == 6
    assert ours.score(Xtest, ours.predict(Xtest)) == 1.0


def test_svmcomparecv_by_auc_and_for_rank_models(norm_data):
    from svmcompare import SVMCompareCV

    (X, y), _ = norm_data
    model = SVMCompareCV(SVMRank(), param_grid={"gamma": [0.5], "C": [0.1, 10.0]}, scoring="auc",
                         cv=3).fit(X, y)
    assert model.best_params_["C"] in (0.1, 10.0)
    assert 0.5 < model.best_score_ <= 1.0
    assert isinstance(model.best_estimator_, SVMRank)
    with pytest.raises(ValueError, match="scoring"):
        SVMCompareCV(scoring="f1").fit(X, y)


def _recorded_grams(monkeypatch):
    """The item kernel (``prepared.gram``, or None) of every fit of a path, as
    the fits read their training gaps."""
    from svmcompare import _base

    grams = []
    from_gradient = _base.gaps_from_gradient

    def seen_gram(model, prepared, *args):
        grams.append(prepared.gram)
        return from_gradient(model, prepared, *args)

    monkeypatch.setattr(_base, "gaps_from_gradient", seen_gram)
    return grams


def test_path_training_gaps_from_the_item_kernel_equal_kernel_blocks(norm_data, monkeypatch):
    # SVMRank's equal pairs have no row of the dual: along a C path their
    # training rank gaps come from the path's item kernel, not kernel blocks.
    from svmcompare.grid_search import _fit_path
    from svmcompare.ranking_function import score_spread

    (X, y), _ = norm_data
    assert np.any(y == 0)
    import dataclasses

    seen = {}
    kind = SVMRank.problem_kind

    def recorded(model, decision, y, sample_weight):
        seen[id(model)] = decision()
        return kind.finish(model, decision, y, sample_weight)

    monkeypatch.setattr(SVMRank, "problem_kind", dataclasses.replace(kind, finish=recorded))
    grams = _recorded_grams(monkeypatch)
    models, prepared = _fit_path(SVMRank(gamma=0.5), X, y, [0.1, 1.0, 10.0])
    assert len(grams) == 3 and all(gram is not None for gram in grams)
    assert prepared.gram is None  # not kept past the fits
    for model in models:
        training = seen[id(model)]
        gaps = rank_gap(model, X)  # kernel blocks against the expansion
        np.testing.assert_allclose(training, gaps, rtol=1e-9, atol=1e-12)
        assert model._fit_spread == pytest.approx(score_spread(gaps), rel=1e-10)
        cold = SVMRank(C=model.C, gamma=0.5).fit(X, y)
        assert model.threshold_ == pytest.approx(cold.threshold_, rel=1e-3)


def test_a_path_keeps_its_item_kernel_past_the_row_cache(norm_data, monkeypatch):
    """A C path keeps the item kernel up to PATH_GRAM_BYTES even where
    cache_size is smaller (a matrix product instead of kernel rows computed
    one by one in every solve), with the same models as without it."""
    from svmcompare import grid_search

    (X, y), _ = norm_data
    grams = _recorded_grams(monkeypatch)
    tiny = SVMCompare(gamma=0.5, cache_size=0.01)  # half: 5 KB, under one row
    kept, _ = grid_search._fit_path(tiny, X, y, [0.1, 1.0])
    assert len(grams) == 2 and all(gram is not None for gram in grams)
    monkeypatch.setattr(grid_search, "PATH_GRAM_BYTES", 0)
    grams.clear()
    rows, _ = grid_search._fit_path(tiny, X, y, [0.1, 1.0])
    assert len(grams) == 2 and all(gram is None for gram in grams)
    for with_gram, without in zip(kept, rows, strict=True):
        np.testing.assert_allclose(with_gram.decision_function(X), without.decision_function(X),
                                   rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("cls", [SVMCompare, SVMRank])
def test_one_validation_block_per_path_scores_as_each_model(cls, monkeypatch):
    # A C path scores its validation pairs from one kernel block against the
    # path's training items; each model must score as its own decision_function.
    from svmcompare.grid_search import _fit_path, _path_decisions

    X, y = make_norm_pairs(240, "l1", random_state=5)
    context = np.random.default_rng(5).choice([-1.0, 0.0, 1.0], size=(240, 1))
    train, val = np.arange(160), np.arange(160, 240)
    models, prepared = _fit_path(cls(gamma=0.5), X[train], y[train], [0.1, 1.0, 100.0],
                                 context[train])
    decisions = _path_decisions(cls(), prepared, models, X[val], context[val])
    assert all(d is not None for d in decisions)
    for model, d in zip(models, decisions, strict=True):
        np.testing.assert_allclose(d, model.decision_function(X[val], context[val]),
                                   rtol=1e-10, atol=1e-12)
    # Past the path's budget (half of cache_size or PATH_GRAM_BYTES, the larger)
    # the block is not built: each model scores alone.
    monkeypatch.setattr(grid_search, "PATH_GRAM_BYTES", 1000)
    assert _path_decisions(cls(cache_size=0.01), prepared, models, X[val], None) \
        == [None] * 3
    assert _path_decisions(cls(cache_size=1.0), prepared, models, X[val], None)[0] is not None


def test_past_many_pairs_the_kernel_points_are_fitted_by_nystroem(monkeypatch):
    # Exact SMO on every fold of a 20,000-pair search did not finish its first
    # wave in 16 minutes: past SEARCH_NYSTROEM_PAIRS the RBF points, the
    # estimator's own RBF point among them (and the refit of one chosen), take
    # solver="nystroem"; fewer pairs keep the exact kernel.
    from svmcompare import model_selection

    assert "solver" not in default_grid(3, n_pairs=10_000)[1]
    assert default_grid(3, n_pairs=10_001)[1]["solver"] == ["nystroem"]
    assert "solver" not in default_grid(3, n_pairs=10_001)[0]  # linear points
    monkeypatch.setattr(model_selection, "SEARCH_NYSTROEM_PAIRS", 100)
    X, y = make_norm_pairs(300, "l2", equality_fraction=0.3, random_state=2)
    search = SVMCompareCV(cv=3, probability=True, race=False,
                          param_grid=None).fit(X, y)
    results = search.cv_results_
    rbf = results[results["kernel"] == "rbf"]
    own = (rbf["gamma"] == 1.0) & (rbf["C"] == 1.0)
    assert own.any() and set(rbf["solver"]) == {"nystroem"}
    assert set(results.loc[results["kernel"] == "linear", "solver"].dropna()) <= {"auto"}
    best = search.best_estimator_
    expected = "linear" if search.best_params_["kernel"] == "linear" else \
        "nystroem" if search.best_params_.get("solver") == "nystroem" else "exact"
    assert best.solver_ == expected


def test_items_past_the_path_budget_are_fitted_by_nystroem(monkeypatch):
    # An exact RBF path keeps its fold's item kernel up to the path budget
    # (8,192 items at PATH_GRAM_BYTES); past it the default grid's RBF points
    # (and the estimator's own) take solver="nystroem" however few the pairs.
    # Repeated items count once.
    from svmcompare import model_selection
    from svmcompare.model_selection import rbf_by_nystroem

    assert not rbf_by_nystroem(100, 8192) and rbf_by_nystroem(100, 8193)
    assert not rbf_by_nystroem(100, 8193, budget=8.0 * 8193 ** 2)
    assert default_grid(3, n_pairs=100, n_items=8193)[1]["solver"] == ["nystroem"]
    assert "solver" not in default_grid(3, n_pairs=100, n_items=8192)[1]

    X, y = make_norm_pairs(150, "l2", equality_fraction=0.3, random_state=2)  # 300 items
    budget = 8.0 * 300 ** 2  # the kernel of 300 items fits, of 302 does not
    monkeypatch.setattr(model_selection, "path_budget", lambda estimator: budget)

    def rbf_solvers(X, y):
        results = SVMCompareCV(cv=3, probability=True, race=False).fit(X, y).cv_results_
        rbf = results[results["kernel"] == "rbf"]
        assert ((rbf["gamma"] == 1.0) & (rbf["C"] == 1.0)).any()  # the own point
        return set(rbf["solver"].fillna("auto")) if "solver" in rbf else {"auto"}

    # 600 rows of the same 300 items (each pair again, swapped): exact.
    assert rbf_solvers(np.concatenate([X, X[:, ::-1]]), np.concatenate([y, -y])) == {"auto"}
    X_new, y_new = make_norm_pairs(1, "l2", random_state=3)  # two more items
    assert rbf_solvers(np.concatenate([X, X_new]), np.concatenate([y, y_new])) == {"nystroem"}


def test_paths_are_dispatched_longest_first():
    from svmcompare.grid_search import _longest_first

    linear = (("kernel", "linear"), ("class_weight", None))
    wide = (("kernel", "rbf"), ("gamma", 0.01))
    narrow = (("kernel", "rbf"), ("gamma", 1.0))
    own = (("kernel", "rbf"), ("gamma", 1.0), ("class_weight", "auto"))
    paths = [(linear, [(0, 1e-3), (1, 1.0)]), (wide, [(2, 0.1), (3, 1.0)]),
             (own, [(4, 1.0)]), (narrow, [(5, 0.1), (6, 1.0)])]
    tasks = [(0, [path]) for path in paths]  # each path a chain of its own
    # First split: nothing timed yet, kernel paths first, narrow kernels first.
    assert [task[1][0][0] for task in _longest_first(tasks, {})] == [narrow, own, wide, linear]
    # Later splits: by the time per C measured, times the C values still run.
    seconds = {repr(linear): 2.0, repr(wide): 0.1, repr(own): 0.5, repr(narrow): 0.3}
    later = [(1, [(others, entries[:1])]) for others, entries in paths]
    assert [task[1][0][0] for task in _longest_first(later, seconds)] == \
        [linear, own, narrow, wide]
    assert sorted(map(repr, _longest_first(tasks, {}))) == sorted(map(repr, tasks))
    # A chain's time is its paths' together: the RBF chain's 0.2 + 0.5 + 0.6 s
    # after the linear path's 4 s.
    chained = [(1, [paths[1], paths[2], paths[3]]), (1, [paths[0]])]
    assert [len(task[1]) for task in _longest_first(chained, seconds)] == [1, 3]
    # Untimed, a chain of kernel paths goes before a single kernel path.
    assert [len(task[1]) for task in _longest_first([(0, [paths[3]]), chained[0]], {})] == [3, 1]


def test_kernel_chains_group_a_splits_exact_rbf_paths():
    from svmcompare.grid_search import _grouped_by_C, _kernel_chains

    grid = [{"kernel": ["linear"], "class_weight": ["balanced", None], "C": [0.1, 1.0]},
            {"kernel": ["rbf"], "class_weight": ["balanced"], "gamma": [4.0, 0.25, 1.0],
             "C": [0.1, 1.0]},
            {"kernel": ["rbf"], "gamma": [0.5], "class_weight": [None], "C": [1.0]},
            {"kernel": ["rbf"], "gamma": [0.5], "solver": ["nystroem"], "C": [1.0]},
            {"kernel": ["laplacian"], "gamma": [0.5, 1.0], "C": [1.0]}]
    chains = _kernel_chains(_grouped_by_C(grid_points(grid), SVMCompare()), SVMCompare())
    lengths = sorted(len(chain) for chain in chains)
    # Two linear paths, Nystroem's and two Laplacian ones alone; four exact RBF.
    assert lengths == [1, 1, 1, 1, 1, 4]
    rbf = next(chain for chain in chains if len(chain) == 4)
    assert sorted(dict(others)["gamma"] for others, _ in rbf) == [0.25, 0.5, 1.0, 4.0]
    # Every path once.
    assert sum(lengths) == len(_grouped_by_C(grid_points(grid), SVMCompare()))


def test_a_balanced_path_starts_at_the_corner_with_the_gradient_there(norm_data):
    """At its smallest C an exact path with balanced class weights starts
    from alpha = C (feasible: both labels weigh the same in total) with
    G = Q alpha - 1 from the item kernel (eq. 17-18, checked against Q
    formed by definition), and reaches the cold fits' optima in fewer steps."""
    from svmcompare._problem import flip_compare

    (X, y), (Xtest, _) = norm_data
    model = SVMCompare(gamma=0.5, class_weight="balanced", tol=1e-5)
    rng = np.random.default_rng(0)
    context = rng.choice([-1.0, 0.0, 1.0], size=(y.size, 1))
    test_context = rng.choice([-1.0, 0.0, 1.0], size=(len(Xtest), 1))
    prepared = grid_search.prepare(model.set_params(C=0.01), X, y, context)
    problem = prepared.problem
    gram = prepared.kernel.block(problem.items, problem.items)
    start = grid_search._corner_start(problem, gram)
    np.testing.assert_array_equal(start["alpha0"], problem.C)
    M = np.zeros((problem.items.shape[0], problem.m))
    M[problem.b, np.arange(problem.m)] += 1.0
    M[problem.a, np.arange(problem.m)] -= 1.0
    Q = (M.T @ gram @ M + problem.context @ problem.context.T) * np.outer(problem.y, problem.y)
    np.testing.assert_allclose(start["gradient0"], Q @ problem.C - 1.0, atol=1e-10)
    # Unbalanced weights: the corner breaks y^T alpha = 0, no start.
    unbalanced = grid_search.prepare(SVMCompare(gamma=0.5, class_weight={1: 1.0, -1: 3.0}),
                                     X, y).problem
    assert grid_search._corner_start(unbalanced, prepared.kernel.block(
        unbalanced.items, unbalanced.items)) == {}
    # Large C: the dual (18) is higher at the corner than at 0, no start.
    assert grid_search._corner_start(
        flip_compare(prepared.Xs, y, 1e4, "balanced", context), gram) == {}

    Cs = [0.01, 1.0]
    path = grid_search.fit_C_path(model, X, y, Cs, context=context)
    for C, warm in zip(Cs, path, strict=True):
        cold = SVMCompare(C=C, gamma=0.5, class_weight="balanced", tol=1e-5).fit(X, y, context)
        assert warm.dual_objective_ == pytest.approx(cold.dual_objective_, rel=1e-5)
        np.testing.assert_allclose(warm.decision_function(Xtest, test_context),
                                   cold.decision_function(Xtest, test_context), atol=1e-2)
    assert path[0].n_iter_ < SVMCompare(C=0.01, gamma=0.5, class_weight="balanced",
                                        tol=1e-5).fit(X, y, context).n_iter_



def test_a_split_that_trains_on_no_ties_is_named_before_any_fit():
    # Three ties, all in group 0: the split that validates group 0 trains on none.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2, 3))
    y = np.sign((X[:, 1] - X[:, 0]).sum(1)).astype(int)
    y[:3] = 0
    groups = np.repeat(np.arange(5), 40)
    search = SVMCompareCV(probability=True, cv=GroupKFold(5), progress=False)
    with pytest.raises(ValueError, match=r"split \d trains on no ties \(y = 0\): all 3 of them "
                                         r"are among the pairs it validates \(group\(s\) 0\)"):
        search.fit(X, y, groups=groups)
    # Spread over the groups, the same three ties train every split.
    y[:3], y[[0, 40, 80, 120, 160]] = np.sign((X[:3, 1] - X[:3, 0]).sum(1)), 0
    search.set_params(param_grid={"kernel": ["linear"], "C": [1.0]}).fit(X, y, groups=groups)
    assert search.best_params_["C"] == 1.0


def test_cv_results_carry_scikit_learns_score_columns():
    X, y = make_norm_pairs(150, "l1", random_state=2)
    search = SVMCompareCV(probability=True, progress=False, cv=3,
                          param_grid={"kernel": ["linear"], "C": [0.01, 1.0, 100.0]}).fit(X, y)
    results = search.cv_results_
    np.testing.assert_allclose(results["mean_test_score"], -results["mean_log_loss"])
    np.testing.assert_allclose(results["std_test_score"], results["std_log_loss"])
    best = results["mean_log_loss"].idxmin()
    assert results.loc[best, "rank_test_score"] == 1
    assert sorted(results["rank_test_score"])[-1] <= len(results)
    auc = SVMCompareCV(scoring="auc", progress=False, cv=3,
                       param_grid={"kernel": ["linear"], "C": [0.01, 1.0]}).fit(X, y)
    np.testing.assert_allclose(auc.cv_results_["mean_test_score"], auc.cv_results_["mean_auc"])


def test_a_split_without_labels_names_the_ones_it_needs_counting_weighed_pairs():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2, 3))
    y = np.sign((X[:, 1] - X[:, 0]).sum(1)).astype(int)
    groups = np.repeat(np.arange(5), 40)
    grid = {"kernel": ["linear"], "C": [1.0]}
    search = SVMCompareCV(param_grid=grid, cv=GroupKFold(5), progress=False)
    # Group 0 holds every -1 and every tie: the split is short of ties, not of -1.
    y[40:] = 1
    y[:20], y[20:40] = -1, 0
    with pytest.raises(ValueError, match=r"trains on no ties \(y = 0\): all 20 of them"):
        search.fit(X, y, groups=groups)
    # Group 0 holds every pair with a winner.
    y[:] = 0
    y[:10], y[10:40] = -1, 1
    with pytest.raises(ValueError, match=r"trains on no pairs with a winner \(y = -1 or 1\): "
                                         r"all 40 of them"):
        search.fit(X, y, groups=groups)
    # Five ties, two in training with weight 0: three are counted, in group 0.
    y = np.sign((X[:, 1] - X[:, 0]).sum(1)).astype(int)
    y[[0, 1, 2, 50, 90]] = 0
    weight = np.ones(200)
    weight[[50, 90]] = 0.0
    with pytest.raises(ValueError, match=r"trains on no ties \(y = 0\): all 3 of them are "
                                         r"among the pairs it validates \(group\(s\) 0\)"):
        search.fit(X, y, groups=groups, sample_weight=weight)
    # A splitter that leaves pairs out of both sides (a time series' first split).
    from sklearn.model_selection import TimeSeriesSplit

    y = np.sign((X[:, 1] - X[:, 0]).sum(1)).astype(int)
    y[150:160] = 0
    series = SVMCompareCV(param_grid=grid, cv=TimeSeriesSplit(4), progress=False)
    with pytest.raises(ValueError, match=r"split 0 trains on no ties \(y = 0\): none of the "
                                         r"data's 10 is among its training pairs \(0 among"):
        series.fit(X, y)
    y = np.sign((X[:, 1] - X[:, 0]).sum(1)).astype(int)
    y[[0, 1, 2, 50, 90]] = 0
    # No tie weighs anything: the estimator's own message, which says so.
    weight[[0, 1, 2]] = 0.0
    with pytest.raises(ValueError, match="sample_weight is positive"):
        search.fit(X, y, groups=groups, sample_weight=weight)


def test_a_path_seeds_each_C_from_the_lower_of_the_scaled_solution_and_zero(norm_data):
    # Alpha seeding scales the previous C's solution; where that point's dual
    # value lies above 0's (large C: the free alphas do not grow with C), SMO
    # starts from 0 instead.  Either way the path's fits are the cold fits
    # (test_warm_started_path_equals_cold_fits).
    from svmcompare._base import prepare
    from svmcompare.grid_search import _seeded_start
    from svmcompare.solvers.smo import solve_dual

    (X, y), _ = norm_data
    prepared = prepare(SVMCompare(gamma=0.5, C=1.0), X, y, None, None)
    solution = solve_dual(prepared.problem, prepared.kernel, tol=1e-6)
    alpha, gradient = solution.alpha, solution.gradient

    def dual(start):  # eq. (18) at the start: 1/2 alpha^T Q alpha - sum alpha
        if not start:
            return 0.0
        return 0.5 * float(start["alpha0"] @ (start["gradient0"] + 1.0)) \
            - float(start["alpha0"].sum())

    # The scaled seed's dual, 1/2 k^2 a - k b, is below 0 for k < 2 b / a only.
    edge = 2.0 * float(alpha.sum()) / float(alpha @ (gradient + 1.0))
    below, above = 0.5 * edge, 2.0 * edge
    seeded = _seeded_start(alpha, gradient, below)
    assert seeded and dual(seeded) < 0.0
    np.testing.assert_allclose(seeded["alpha0"], below * alpha)
    np.testing.assert_allclose(seeded["gradient0"], (gradient + 1.0) * below - 1.0)
    assert _seeded_start(alpha, gradient, above) == {}
    scaled = {"alpha0": above * alpha, "gradient0": (gradient + 1.0) * above - 1.0}
    assert dual(scaled) > 0.0


def test_cv_results_has_scikit_learn_s_params_and_param_columns(tmp_path):
    from svmcompare import load_model, save_model

    X, y = make_norm_pairs(n_pairs=120, random_state=3)
    grid = {"kernel": ["linear"], "C": [0.1, 1.0]}
    search = SVMCompareCV(param_grid=grid, cv=3, probability=True, progress=False).fit(X, y)
    results = search.cv_results_
    assert len(results["params"]) == len(results)
    for params, (_, row) in zip(results["params"], results.iterrows(), strict=True):
        assert set(params) == {"kernel", "C", "tie_band", "link"}
        assert all(row[f"param_{name}"] == value for name, value in params.items())
    assert results["params"][search.best_index_] == search.best_params_
    path = tmp_path / "search.skops"
    save_model(search, path)
    loaded = load_model(path).cv_results_
    assert [dict(p) for p in loaded["params"]] == [dict(p) for p in results["params"]]


def _logistic_pairs(n, seed):
    rng = np.random.default_rng(seed)
    Xi, Xj = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    d = (Xj - Xi).sum(1) + rng.logistic(size=n)
    return make_pairs(Xi, Xj), np.where(d > 1, 1, np.where(d < -1, -1, 0))


def test_auc_scoring_averages_the_folds_that_define_it():
    # An attack (stop 70): a season of draws only has no comparison AUC, and
    # its NaN made every point's mean NaN: "Every grid point failed".
    from sklearn.model_selection import GroupKFold

    X, y = _logistic_pairs(300, 0)
    groups = np.repeat(np.arange(5), 60)
    y[groups == 2] = 0
    search = SVMCompareCV(scoring="auc", cv=GroupKFold(5), progress=False,
                          param_grid={"kernel": ["linear"], "C": [0.1, 1.0]})
    search.fit(X, y, groups=groups)
    results = search.cv_results_
    assert results["split2_auc"].isna().all()
    defined = [f"split{k}_auc" for k in (0, 1, 3, 4)]
    np.testing.assert_allclose(results["mean_auc"], results[defined].mean(axis=1))
    with pytest.raises(ValueError, match="scoring='auc' needs validation pairs with both"):
        SVMCompareCV(scoring="auc", cv=GroupKFold(5), progress=False,
                     param_grid={"kernel": ["linear"], "C": [1.0]}).fit(
            X, np.where(groups % 2 == 0, 0, np.where(y == 0, 1, y)), groups=groups)


def test_a_split_whose_link_would_see_one_outcome_is_refused_before_the_search(monkeypatch):
    # An attack (stop 70): later blocks all won by x' left split 0's link
    # with one outcome, and the search failed after every fit, naming no split.
    from sklearn.model_selection import TimeSeriesSplit

    import svmcompare.model_selection as ms

    X, y = _logistic_pairs(400, 5)
    y[200:] = 1
    monkeypatch.setattr(ms, "search_grid", lambda *a, **k: pytest.fail("searched"))
    with pytest.raises(ValueError, match="split 0's probability link .* only the outcome 1"):
        SVMCompareCV(probability=True, cv=TimeSeriesSplit(3), progress=False,
                     param_grid={"kernel": ["linear"], "C": [1.0]}).fit(X, y)
    weight = np.ones(y.size)
    weight[:300] = 0.0  # positive weight only where the outcome is 1
    y2 = y.copy()
    y2[:300] = _logistic_pairs(400, 5)[1][:300]
    with pytest.raises(ValueError, match="only the outcome 1"):
        SVMCompareCV(probability=True, cv=3, progress=False,
                     param_grid={"kernel": ["linear"], "C": [1.0]}).fit(X, y2,
                                                                        sample_weight=weight)
