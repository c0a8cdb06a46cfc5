"""Pair context: an advantage that belongs to the position in the pair (issue 16)."""

import numpy as np
import pytest
from sklearn.base import clone

from svmcompare import SVMCompare, SVMRank
from svmcompare._problem import BinaryProblem, flip_compare
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual

from .reference.dense import dual_objective, ktilde_from_definition, rbf, solve_dual_reference


def _home_advantage_pairs(n=400, home=0.8, seed=0):
    """r(z) = 2 z_0 - z_1; x' at home (+1), x at home (-1) or neutral (0)."""
    rng = np.random.default_rng(seed)
    Xi, Xip = rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    context = rng.choice([-1.0, 0.0, 1.0], size=n)
    w = np.array([2.0, -1.0])
    d = Xip @ w - Xi @ w + home * context + rng.logistic(scale=0.3, size=n)
    y = np.where(d > 0.7, 1, np.where(d < -0.7, -1, 0))
    return np.stack([Xi, Xip], axis=1), y, context[:, None]


@pytest.mark.parametrize("solver", ["linear", "exact"])
def test_a_simulated_home_advantage_is_recovered(solver):
    X, y, context = _home_advantage_pairs()
    model = SVMCompare(kernel="linear", C=10.0, solver=solver).fit(X, y, context=context)
    # The ranking's scale is Lemma 1's; the advantage in units of w_0 is not.
    ratio = model.context_coef_[0] / model.coef_[0]
    assert ratio == pytest.approx(0.8 / 2.0, rel=0.2)
    plain = SVMCompare(kernel="linear", C=10.0, solver=solver).fit(X, y)
    assert model.score(X, y, context=context) > plain.score(X, y) + 0.03


def test_exact_and_linear_solvers_agree_on_the_context_coefficient():
    X, y, context = _home_advantage_pairs(n=150, seed=1)
    exact = SVMCompare(kernel="linear", C=1.0, solver="exact", tol=1e-6).fit(X, y, context)
    linear = SVMCompare(kernel="linear", C=1.0, solver="linear", tol=1e-8).fit(X, y, context)
    np.testing.assert_allclose(exact.context_coef_, linear.context_coef_, rtol=1e-3)
    np.testing.assert_allclose(exact.decision_function(X, context),
                               linear.decision_function(X, context), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("precomputed", [False, True])
def test_the_context_block_is_the_dual_of_the_reference_qp(shrinking, precomputed):
    # Independent check of the compiled context block: Clarabel on
    # Q = y y^T * (K~ + C C^T) built from the definitions.
    X, y, context = _home_advantage_pairs(n=40, seed=2)
    problem = flip_compare(X, y, 1.0, None, context)
    kernel = resolve_kernel("rbf", gamma=0.5)
    xt, xtp = problem.items[problem.a], problem.items[problem.b]
    K = ktilde_from_definition(xt, xtp, rbf(0.5)) + problem.context @ problem.context.T
    Q = np.outer(problem.y, problem.y) * K
    reference = solve_dual_reference(Q, problem.y, problem.C)
    gram = kernel.block(problem.items, problem.items) if precomputed else None
    ours = solve_dual(problem, kernel, tol=1e-8, shrinking=shrinking, gram=gram)
    assert dual_objective(ours.alpha, Q) == pytest.approx(dual_objective(reference, Q),
                                                          rel=1e-6)


def test_warm_started_gradients_include_the_context():
    X, y, context = _home_advantage_pairs(n=60, seed=3)
    problem = flip_compare(X, y, 1.0, None, context)
    kernel = resolve_kernel("rbf", gamma=0.5)
    cold = solve_dual(problem, kernel, tol=1e-8)
    warm = solve_dual(problem, kernel, tol=1e-8, alpha0=cold.alpha, cache_size=0.001)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
    assert warm.n_iter <= 2


def test_an_empty_context_is_the_problem_without_context():
    X, y, _ = _home_advantage_pairs(n=60, seed=4)
    problem = flip_compare(X, y, 1.0)
    empty = BinaryProblem(problem.items, problem.a, problem.b, problem.y, problem.C,
                          np.zeros((problem.m, 0)))
    kernel = resolve_kernel("rbf", gamma=0.5)
    np.testing.assert_array_equal(solve_dual(problem, kernel).alpha,
                                  solve_dual(empty, kernel).alpha)


@pytest.mark.parametrize("kernel, solver", [("linear", "auto"), ("rbf", "exact"),
                                            ("rbf", "nystroem")])
def test_swapping_the_pair_and_negating_the_context_mirrors_everything(kernel, solver):
    X, y, context = _home_advantage_pairs(n=200, seed=5)
    model = SVMCompare(kernel=kernel, solver=solver, n_components=50, probability=True,
                       random_state=0).fit(X, y, context)
    assert model.context_coef_[0] > 0  # x' at home helps x'
    assert model.solver_ == ("linear" if kernel == "linear" else solver)
    swapped = X[:, ::-1]
    np.testing.assert_allclose(model.decision_function(swapped, -context),
                               -model.decision_function(X, context), atol=1e-10)
    np.testing.assert_array_equal(model.predict(swapped, -context), -model.predict(X, context))
    np.testing.assert_allclose(model.predict_proba(swapped, -context),
                               model.predict_proba(X, context)[:, ::-1], atol=1e-10)


def test_baselines_take_a_context_too():
    X, y, context = _home_advantage_pairs(n=200, seed=6)
    model = SVMRank(kernel="linear").fit(X, y, context=context)
    assert model.context_coef_[0] / model.coef_[0] == pytest.approx(0.4, rel=0.3)


def test_context_errors_name_the_problem():
    X, y, context = _home_advantage_pairs(n=100, seed=7)
    fitted = SVMCompare(kernel="linear").fit(X, y, context=context)
    with pytest.raises(ValueError, match="fitted with a pair context of 1 column"):
        fitted.predict(X)
    with pytest.raises(ValueError, match="2 column"):
        fitted.predict(X, np.hstack([context, context]))
    plain = clone(fitted).fit(X, y)
    with pytest.raises(ValueError, match="fitted with no context"):
        plain.predict(X, context)
    with pytest.raises(ValueError, match="shape"):
        clone(fitted).fit(X, y, context=context[:50])
    with pytest.raises(ValueError, match="NaN"):
        clone(fitted).fit(X, y, context=np.full_like(context, np.nan))
    with pytest.raises(TypeError, match="numeric"):
        clone(fitted).fit(X, y, context=np.full(context.shape, "home", dtype=object))
    # A 1-D context is one column.
    assert clone(fitted).fit(X, y, context=context[:, 0]).context_coef_.shape == (1,)


def test_the_command_line_reads_ctx_columns(tmp_path):
    import pandas as pd

    from svmcompare.cli import main
    from svmcompare.persistence import load_model

    X, y, context = _home_advantage_pairs(n=200, seed=8)
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1], "ctx_home": context[:, 0], "y": y})
    frame.to_csv(tmp_path / "pairs.csv", index=False)
    assert main(["fit", str(tmp_path / "pairs.csv"), "--kernel", "linear", "--model",
                 str(tmp_path / "m.skops")]) == 0
    model = load_model(tmp_path / "m.skops")
    assert model.context_coef_.shape == (1,)
    assert main(["predict", str(tmp_path / "m.skops"), str(tmp_path / "pairs.csv"), "-o",
                 str(tmp_path / "out.csv")]) == 0
    out = pd.read_csv(tmp_path / "out.csv")
    np.testing.assert_allclose(out["rank_difference"], model.decision_function(X, context))
    frame.drop(columns="ctx_home").to_csv(tmp_path / "plain.csv", index=False)
    assert main(["predict", str(tmp_path / "m.skops"), str(tmp_path / "plain.csv"), "-o",
                 str(tmp_path / "out2.csv")]) != 0


def test_a_context_far_from_order_one_is_refused_at_fit():
    # Unscaled next to kernel values of order 1: at 1e8 an RBF fit of 100
    # pairs ran to the 10,000,000-step limit and then predicted worse.
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(100, 2, 3)), rng.choice([-1, 0, 1], 100)
    side = rng.choice([-1.0, 1.0], 100)
    for kernel in ("rbf", "linear"):
        with pytest.raises(ValueError, match="context reaches 1e\\+08 .*units where it is of"):
            SVMCompare(kernel=kernel).fit(X, y, context=1e8 * side)
    model = SVMCompare(kernel="linear").fit(X, y, context=1e3 * side)
    assert np.isfinite(model.decision_function(X, 1e9 * side[:, None])).all()  # predict: any


def test_a_context_frame_in_another_column_order_is_refused_not_misread():
    import pandas as pd

    from svmcompare import SVMCompareCV

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2, 3))
    ctx = pd.DataFrame({"home": rng.choice([-1.0, 1.0], 300), "rest_days": rng.normal(size=300)})
    d = X[:, 1, 0] - X[:, 0, 0] + 1.5 * ctx["home"].to_numpy() + rng.logistic(size=300) * 0.3
    y = np.where(d > 0.5, 1, np.where(d < -0.5, -1, 0))
    for model in (SVMCompare(kernel="linear").fit(X, y, context=ctx),
                  SVMCompareCV(param_grid={"kernel": ["linear"], "C": [1.0]}, cv=3).fit(
                      X, y, context=ctx)):
        assert list(model.context_names_in_) == ["home", "rest_days"]
        expected = model.decision_function(X, ctx)
        np.testing.assert_array_equal(model.decision_function(X, ctx.to_numpy()), expected)
        with pytest.raises(ValueError, match="context: .*another order"):
            model.decision_function(X, ctx[["rest_days", "home"]])
        with pytest.raises(ValueError, match="context: .*missing \\['rest_days'\\]"):
            model.predict(X, ctx.rename(columns={"rest_days": "rest"}))
    # Fitted on an array: nothing to match by name.
    plain = SVMCompare(kernel="linear").fit(X, y, context=ctx.to_numpy())
    assert not hasattr(plain, "context_names_in_")
    plain.predict(X, ctx[["rest_days", "home"]])


def _home_rest_pairs(n, seed):
    """Pairs whose outcome follows the first feature and a home column of a
    context frame (columns home, rest)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, 2))
    ctx = pd.DataFrame({"home": rng.choice([-1.0, 1.0], n), "rest": rng.normal(size=n)})
    d = X[:, 1, 0] - X[:, 0, 0] + ctx["home"].to_numpy() + rng.logistic(size=n) * 0.3
    return X, ctx, np.where(d > 0.5, 1, np.where(d < -0.5, -1, 0))


def test_model_files_keep_the_context_names(tmp_path):
    from svmcompare import load_model, save_model
    from svmcompare.persistence import load_predictor

    X, ctx, y = _home_rest_pairs(200, seed=1)
    model = SVMCompare(kernel="linear", probability=True, random_state=0).fit(X, y, context=ctx)
    save_model(model, tmp_path / "m.skops")
    for loaded in (load_model(tmp_path / "m.skops"), load_predictor(tmp_path / "m.skops")):
        assert list(loaded.context_names_in_) == ["home", "rest"]
        np.testing.assert_allclose(loaded.predict_proba(X, ctx), model.predict_proba(X, ctx),
                                   rtol=0, atol=1e-12)
        with pytest.raises(ValueError, match="another order"):
            loaded.predict_proba(X, ctx[["rest", "home"]])


def test_bootstrap_intervals_refuse_a_reordered_context_frame():
    from svmcompare import BootstrapCompare

    X, ctx, y = _home_rest_pairs(150, seed=2)
    boot = BootstrapCompare(SVMCompare(kernel="linear", probability=True), n_resamples=5,
                            random_state=0).fit(X, y, context=ctx)
    assert list(boot.context_names_in_) == ["home", "rest"]
    boot.predict_proba_interval(X[:5], ctx[:5])
    for call in (boot.predict_proba_interval, boot.proba_replicates, boot.predict_proba):
        with pytest.raises(ValueError, match="another order"):
            call(X[:5], ctx[["rest", "home"]][:5])


def test_a_refit_on_an_array_context_forgets_the_names_of_the_frame():
    from svmcompare import BootstrapCompare, SVMCompareCV

    X, ctx, y = _home_rest_pairs(150, seed=3)
    renamed = ctx.rename(columns={"home": "venue", "rest": "days"})
    for model in (SVMCompare(kernel="linear", probability=True),
                  SVMCompareCV(param_grid={"kernel": ["linear"], "C": [1.0]}, cv=3,
                               probability=True),
                  BootstrapCompare(SVMCompare(kernel="linear", probability=True),
                                   n_resamples=3, random_state=0)):
        model.fit(X, y, context=ctx)
        model.fit(X, y, context=ctx.to_numpy())
        assert not hasattr(model, "context_names_in_")
        model.predict_proba(X[:5], renamed[:5])
        if isinstance(model, BootstrapCompare):
            model.proba_replicates(X[:5], renamed[:5])


def test_a_model_file_without_context_names_has_no_such_field(tmp_path):
    import zipfile

    from svmcompare import save_model

    rng = np.random.default_rng(4)
    X = rng.normal(size=(100, 2, 2))
    y = np.where(X[:, 1, 0] - X[:, 0, 0] > 0.5, 1, np.where(X[:, 1, 0] - X[:, 0, 0] < -0.5,
                                                           -1, 0))
    save_model(SVMCompare(kernel="linear").fit(X, y), tmp_path / "m.skops")
    with zipfile.ZipFile(tmp_path / "m.skops") as archive:
        texts = [archive.read(n) for n in archive.namelist() if n.endswith(".json")]
    assert texts and not any(b"context_names" in text for text in texts)


def test_the_advantage_the_probabilities_use_is_readable(tmp_path, capsys):
    """A review of LLM judgments read the position bias in context_coef_ (the
    SVM's, near 0 and of either sign over folds) where the probability link's
    own coefficient was the one the probabilities used."""
    from svmcompare import SVMCompareCV, pairs_from_frame
    from svmcompare.cli import main
    from svmcompare.datasets import make_league

    matches, teams = make_league(random_state=0)
    data = pairs_from_frame(matches, teams, a="home", b="away", outcome="result",
                            context="home_adv", outcome_map={"H": -1, "D": 0, "A": 1})
    for options in ({}, {"tie_band": "pair", "link": "davidson"}):
        model = SVMCompare(kernel="linear", probability=True, random_state=0,
                           **options).fit(data.X, data.y, context=data.context)
        # home_adv = -1: x (the home side) has the advantage, so the link's
        # coefficient (x' favoured by +1) is positive.
        assert model.link_context_coef_.shape == (1,) and model.link_context_coef_[0] > 0
        neutral, home = model.context_effect([[0.0], [-1.0]])
        np.testing.assert_allclose(neutral[0], neutral[2])  # equal scores, neutral: symmetric
        assert home[0] > neutral[0] > home[2]
        if not options:  # a constant band: any pair of equal scores gets these
            pair = np.stack([data.X[0, 0], data.X[0, 0]])[None]
            np.testing.assert_allclose(model.predict_proba(pair, [[-1.0]])[0], home,
                                       atol=1e-12)
    search = SVMCompareCV(param_grid={"kernel": ["linear"], "C": [1.0]}, probability=True,
                          cv=3).fit(data.X, data.y, context=data.context)
    np.testing.assert_array_equal(search.link_context_coef_,
                                  search.best_estimator_.link_context_coef_)
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--context",
                 "home_adv", "--probability", "--model", str(tmp_path / "m.skops")]) == 0
    assert "home_adv = +1 (x' has the advantage), at equal scores: P(x better) / P(tie) / " \
           "P(x' better) 0.2" in capsys.readouterr().out


def test_the_advantage_is_read_by_name_and_refused_where_there_is_none():
    import pandas as pd

    from svmcompare import pairs_from_frame
    from svmcompare.datasets import make_league

    matches, teams = make_league(random_state=0)
    data = pairs_from_frame(matches, teams, a="home", b="away", outcome="result",
                            context="home_adv", outcome_map={"H": -1, "D": 0, "A": 1})
    named = pd.DataFrame({"home_adv": data.context[:, 0], "c2": 0.0})
    model = SVMCompare(kernel="linear", probability=True, random_state=0).fit(
        data.X, data.y, context=named)
    with pytest.raises(ValueError, match="another order"):
        model.context_effect(pd.DataFrame({"c2": [0.0], "home_adv": [1.0]}))
    np.testing.assert_allclose(model.context_effect(pd.DataFrame({"home_adv": [1.0],
                                                                  "c2": [0.0]})),
                               model.context_effect([[1.0, 0.0]]))
    plain = SVMCompare(kernel="linear").fit(data.X, data.y, context=data.context)
    with pytest.raises(ValueError, match="fit it with probability=True"):
        _ = plain.link_context_coef_
    alone = SVMCompare(kernel="linear", probability=True).fit(data.X, data.y)
    with pytest.raises(ValueError, match="fitted without a pair context"):
        alone.context_effect(np.zeros((1, 0)))
