"""The command line: fit, predict, rank, evaluate from CSV files and tables of
matches; errors as one line."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmcompare.cli import main
from svmcompare.datasets import make_norm_pairs


def test_demo_writes_outputs_and_prints_errors(tmp_path, capsys):
    code = main(["demo", "--out", str(tmp_path), "--n-pairs", "40", "--n-test", "300",
                 "--seeds", "2", "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    for name in ("rank", "rank2", "compare", "truth"):
        assert name in out
    assert (tmp_path / "figure3.png").stat().st_size > 10_000
    errors = pd.read_csv(tmp_path / "errors.csv")
    assert set(errors["seed"]) == {1, 2}
    # The printed means are the means over the seeds.
    means = errors[errors["set"] == "test"].groupby("model")["error_percent"].mean()
    assert f"{means['compare']:.1f} ±" in out
    test = errors[(errors["set"] == "test") & (errors["seed"] == 1)].set_index("model")
    assert set(test.index) == {"rank", "rank2", "compare", "truth"}
    # The split adds up, and counts match the set size.
    parts = test[["false_positive", "false_negative", "inversion"]].sum(axis=1)
    np.testing.assert_allclose(parts / 300 * 100, test["error_percent"])
    levels = pd.read_csv(tmp_path / "level_curves.csv")
    assert set(levels["model"]) == {"latent", "rank", "rank2", "compare"}


def test_bad_argument_is_a_message_not_a_traceback(capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        main(["demo", "--n-pairs", "0"])
    assert exc.value.code == 2
    assert "must be a positive integer" in capsys.readouterr().err


def test_evaluate_prints_probability_scores_next_to_the_training_frequencies(tmp_path, capsys):
    import re

    from sklearn.metrics import log_loss

    from svmcompare.cli import main
    from svmcompare.datasets import make_norm_pairs
    from svmcompare.persistence import load_model

    def write(X, y, name):
        pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                      "b_v": X[:, 1, 1], "y": y}).to_csv(tmp_path / name, index=False)

    X, y = make_norm_pairs(150, "l1", 0.3, random_state=0)
    Xt, yt = make_norm_pairs(200, "l1", 0.5, random_state=1)
    write(X, y, "train.csv")
    write(Xt, yt, "test.csv")
    model_path = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "train.csv"), "--probability", "--model",
                 model_path]) == 0
    capsys.readouterr()
    plot = tmp_path / "eval.png"
    assert main(["evaluate", model_path, str(tmp_path / "test.csv"), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    model = load_model(model_path)
    proba = model.predict_proba(Xt)
    prior = np.bincount(y + 1, minlength=3) / y.size  # the training shares, not the test's
    np.testing.assert_allclose(model.class_prior_, prior)
    for label, p in (("model", proba), ("training frequencies", np.tile(prior, (200, 1)))):
        line = re.search(rf"^{label} +([\d.]+) +([\d.]+) +([\d.]+)$", out, re.M)
        expected_brier = np.mean(np.sum((p - np.eye(3)[yt + 1]) ** 2, axis=1))
        assert float(line.group(1)) == pytest.approx(log_loss(yt, p, labels=[-1, 0, 1]),
                                                     abs=1e-4)
        assert float(line.group(2)) == pytest.approx(expected_brier, abs=1e-4)
        assert float(line.group(3)) == pytest.approx(np.mean(p.argmax(1) - 1 == yt), abs=1e-3)
    assert "chance is 0.25, not 0.5" in out
    assert plot.stat().st_size > 10_000
    reliability = pd.read_csv(tmp_path / "eval_reliability.csv")
    assert set(reliability["outcome"]) == {-1, 0, 1}
    assert reliability.groupby("outcome")["count"].sum().tolist() == [200, 200, 200]


def test_predict_refuses_features_in_another_order_or_with_other_names(tmp_path, capsys):
    import pandas as pd

    from svmcompare.cli import main
    from svmcompare.datasets import make_norm_pairs
    from svmcompare.persistence import load_model

    X, y = make_norm_pairs(80, "l1", random_state=1)
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1], "y": y})
    frame.to_csv(tmp_path / "pairs.csv", index=False)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "pairs.csv"), "--model", model]) == 0
    assert list(load_model(model).feature_names_in_) == ["u", "v"]
    # The silent cases: two columns swapped in both blocks; another name.
    frame[["a_v", "a_u", "b_v", "b_u", "y"]].to_csv(tmp_path / "swapped.csv", index=False)
    frame.rename(columns={"a_u": "a_z", "b_u": "b_z"}).to_csv(tmp_path / "renamed.csv",
                                                              index=False)
    for name, detail in (("swapped.csv", "another order"), ("renamed.csv", "missing ['u']")):
        for command in (["predict", model, str(tmp_path / name), "-o",
                         str(tmp_path / "out.csv")], ["evaluate", model, str(tmp_path / name)]):
            assert main(command) != 0
            err = capsys.readouterr().err
            assert "do not match" in err and detail in err
    assert main(["predict", model, str(tmp_path / "pairs.csv"), "-o",
                 str(tmp_path / "out.csv")]) == 0


def test_rank_checks_the_columns_of_a_frame_against_the_fitted_names():
    import numpy as np
    import pandas as pd
    import pytest

    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(60, "l1", random_state=2)
    model = SVMCompare().fit(X, y)
    model.feature_names_in_ = np.array(["u", "v"], dtype=object)  # as the CLI stores them
    Z = pd.DataFrame(X[:, 0], columns=["u", "v"])
    np.testing.assert_allclose(model.rank(Z), model.rank(X[:, 0]))
    with pytest.raises(ValueError, match="not the features"):
        model.rank(Z[["v", "u"]])


def _matches(path, rng, n=300):
    """League results: home/away ids, H/D/A outcomes, a neutral-ground flag."""
    strength = {"ann": 1.5, "bob": 0.5, "cy": -0.5, "dee": -1.5}
    teams = list(strength)
    home = rng.choice(teams, size=n)
    away = np.array([rng.choice([t for t in teams if t != h]) for h in home])
    neutral = (rng.uniform(size=n) < 0.2).astype(int)
    d = np.array([strength[a] - strength[h] for h, a in zip(home, away, strict=True)])
    d = d - 0.4 * (1 - neutral) + rng.logistic(size=n) * 0.7
    result = np.where(d > 0.6, "A", np.where(d < -0.6, "H", "D"))
    # The context is +1 when x' (away) has the advantage, -1 when x (home) has it.
    frame = pd.DataFrame({"home": home, "away": away, "result": result,
                          "adv": -(1 - neutral), "match": np.arange(n)})
    frame.to_csv(path, index=False)
    return frame


def test_fit_predict_evaluate_from_a_table_of_matches_with_identities(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = _matches(tmp_path / "matches.csv", rng)
    common = ["--a", "home", "--b", "away", "--context", "adv"]
    mapping = ["--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "matches.csv"), "--model", model, "--kernel", "linear",
                 *common, *mapping]) == 0
    from svmcompare.persistence import load_model

    fitted = load_model(model)
    assert list(fitted.feature_names_in_) == ["is_ann", "is_bob", "is_cy", "is_dee"]
    r = fitted.rank(np.eye(4))
    assert list(np.argsort(-r)) == [0, 1, 2, 3]  # the teams' order
    assert fitted.context_coef_[0] > 0  # home advantage learned from the flag
    # Predict on new fixtures: ids are copied, the outcome map is not needed.
    fixtures = pd.DataFrame({"home": ["dee", "ann"], "away": ["ann", "dee"], "adv": [-1, -1]})
    fixtures.to_csv(tmp_path / "new.csv", index=False)
    out = tmp_path / "pred.csv"
    assert main(["predict", model, str(tmp_path / "new.csv"), "-o", str(out), *common]) == 0
    pred = pd.read_csv(out)
    assert list(pred["home"]) == ["dee", "ann"] and list(pred["y_pred"]) == [1, -1]
    assert list(pred["adv"]) == [-1, -1]  # the context as given, next to the predictions
    # The fit's note names only the column it did not use (not the outcome or context).
    assert capsys.readouterr().err.strip().endswith("nor weight): match")
    assert main(["evaluate", model, str(tmp_path / "matches.csv"), *common, *mapping]) == 0
    assert f"pairs {len(frame)}" in capsys.readouterr().out


@pytest.mark.parametrize("model_args", [["--kernel", "rbf"],
                                        ["--model-type", "lp", "--kernel", "linear"]])
def test_a_kernel_model_of_identities_ranks_predicts_and_leads_a_board(tmp_path, capsys,
                                                                        model_args):
    # Ids alone with a kernel expansion: its fit read dense one-hot ids, so
    # rank, predict, evaluate and leaderboard give it dense ones too (they
    # refused it: "pass a dense array").
    _matches(tmp_path / "matches.csv", np.random.default_rng(0), n=120)
    common = ["--a", "home", "--b", "away"]  # (the LP takes no context)
    mapping = ["--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]
    games, model = str(tmp_path / "matches.csv"), str(tmp_path / "k.skops")
    assert main(["fit", games, "--model", model, *model_args, *common, *mapping]) == 0
    from svmcompare.persistence import load_model

    fitted = load_model(model)
    assert main(["rank", model, "-o", str(tmp_path / "r.csv")]) == 0
    ranks = pd.read_csv(tmp_path / "r.csv")
    np.testing.assert_allclose(ranks["rank"], fitted.rank(np.eye(4)))
    assert main(["predict", model, games, *common, "-o", str(tmp_path / "p.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "p.csv")) == 120
    assert main(["evaluate", model, games, *common, *mapping]) == 0
    assert main(["leaderboard", model, "--games", games, "--a", "home", "--b", "away", *mapping,
                 "-o", str(tmp_path / "board.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "board.csv")) == 4


def test_outcome_and_identity_errors_name_the_fix(tmp_path, capsys):
    rng = np.random.default_rng(1)
    _matches(tmp_path / "matches.csv", rng, n=60)
    base = ["fit", str(tmp_path / "matches.csv"), "--model", str(tmp_path / "m.skops"),
            "--a", "home", "--b", "away", "--outcome", "result", "--kernel", "linear"]
    assert main(base) == 2
    assert "--outcome-map" in capsys.readouterr().err
    assert main(base + ["--outcome-map", "H=-1,A=1"]) == 2
    assert "outcome 'D' is not in the outcome map" in capsys.readouterr().err
    assert main(base + ["--outcome-map", "H=-1,D=draw,A=1"]) == 2
    assert "value=label pairs" in capsys.readouterr().err
    assert main(base + ["--outcome-map", "H=-1,D=0,A=1"]) == 0
    pd.DataFrame({"home": ["ann"], "away": ["zed"]}).to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", str(tmp_path / "m.skops"), str(tmp_path / "new.csv"), "-o",
                 str(tmp_path / "p.csv"), "--a", "home", "--b", "away"]) == 2
    assert "1 id(s) not in the items the model was fitted on: 'zed' (first on line 2)" \
        in capsys.readouterr().err


def test_numeric_outcomes_map_numerically(tmp_path):
    from svmcompare.io import PairColumns, read_pairs

    pd.DataFrame({"white": ["p", "q", "p"], "black": ["q", "p", "q"],
                  "score": [1.0, 0.5, 0.0]}).to_csv(tmp_path / "g.csv", index=False)
    columns = PairColumns(a="white", b="black", outcome="score",
                          outcome_map={"1": -1, "0.5": 0, "0": 1})
    X, y, features = read_pairs(tmp_path / "g.csv", columns=columns)
    assert list(y) == [-1, 0, 1] and features == ["is_p", "is_q"]
    np.testing.assert_array_equal(X[0], [[1, 0], [0, 1]])


def test_letor_files_get_query_ids_out_and_ranking_metrics(tmp_path, capsys):
    from svmcompare import GroupRankSVM
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor, load_letor
    from svmcompare.metrics import kendall_tau_per_group
    from svmcompare.persistence import save_model

    X, y, groups, _ = make_graded_blocks(random_state=0)
    dump_letor(X, y, groups, tmp_path / "items.letor")
    X, y, groups = load_letor(tmp_path / "items.letor")  # in the file's order
    model = GroupRankSVM(C=0.1).fit(X, y, groups)
    save_model(model, tmp_path / "g.skops")
    assert main(["rank", str(tmp_path / "g.skops"), str(tmp_path / "items.letor"), "-o",
                 str(tmp_path / "r.csv")]) == 0
    ranks = pd.read_csv(tmp_path / "r.csv")
    assert list(ranks.columns) == ["id", "qid", "rank"]
    np.testing.assert_array_equal(ranks["qid"], groups)
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "g.skops"), str(tmp_path / "items.letor")]) == 0
    out = capsys.readouterr().out
    tau = kendall_tau_per_group(y, model.rank(X), groups)[0]
    assert f"Kendall tau per query {tau:.4f}" in out and "NDCG@10" in out
    # A pair model on the same file: predictions name the query and the items.
    pairs_model = str(tmp_path / "p.skops")
    assert main(["fit", str(tmp_path / "items.letor"), "--kernel", "linear", "--model",
                 pairs_model]) == 0
    assert main(["predict", pairs_model, str(tmp_path / "items.letor"), "-o",
                 str(tmp_path / "p.csv")]) == 0
    pred = pd.read_csv(tmp_path / "p.csv")
    assert {"qid", "item_a", "item_b"} <= set(pred.columns)
    assert np.all(groups[pred["item_a"]] == pred["qid"])
    assert np.all(groups[pred["item_b"]] == pred["qid"])


def test_letor_files_keep_the_queries_until_and_after_select(tmp_path, capsys):
    # fit (every pair without forming them), predict and evaluate on a LETOR
    # file ignored --until / --after and used every query (review).
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor, load_letor
    from svmcompare.persistence import load_model

    X, y, groups, _ = make_graded_blocks(random_state=0)
    path = tmp_path / "items.letor"
    dump_letor(X, y, groups, path)
    X, y, groups = load_letor(path)
    cut = np.unique(groups)[(np.unique(groups).size - 1) // 2]
    model = tmp_path / "p.skops"
    assert main(["fit", str(path), "--kernel", "linear", "--until", f"qid={cut}",
                 "--model", str(model)]) == 0
    early = groups <= cut
    # The same fit as on a file of those queries alone.
    dump_letor(X[early], y[early], groups[early], tmp_path / "early.letor")
    assert main(["fit", str(tmp_path / "early.letor"), "--kernel", "linear",
                 "--model", str(tmp_path / "e.skops")]) == 0
    np.testing.assert_allclose(load_model(model).rank(X),
                               load_model(tmp_path / "e.skops").rank(X), rtol=1e-12)
    assert main(["predict", str(model), str(path), "--after", f"qid={cut}", "-o",
                 str(tmp_path / "p.csv")]) == 0
    pred = pd.read_csv(tmp_path / "p.csv")
    assert set(pred["qid"]) == set(groups[~early])
    assert np.all(groups[pred["item_a"]] == pred["qid"])  # the file's item numbers
    capsys.readouterr()
    assert main(["evaluate", str(model), str(path), "--after", f"qid={cut}"]) == 0
    assert f"items {int((~early).sum())} in" in capsys.readouterr().out
    assert main(["evaluate", str(model), str(path), "--after", "season=1"]) == 2
    assert "it has ['qid'] besides those" in capsys.readouterr().err


def test_letor_predict_and_rank_read_a_sparse_file_without_the_last_feature(tmp_path, capsys):
    """Review r6: a valid sparse test file whose last feature is 0 (omitted) on every
    line was refused by predict and rank ("X has 3 features per item, but the model
    was fitted with 4") while evaluate read it with the model's feature count."""
    from svmcompare import GroupRankSVM
    from svmcompare.persistence import save_model

    rng = np.random.default_rng(1)

    def write(path, n_queries, omit_last):
        lines = []
        for q in range(n_queries):
            for _ in range(6):
                x = rng.normal(size=4).round(3)
                grade = int(np.clip(np.round(x[0] + rng.normal(0, 0.4)), 0, 2))
                shown = x[:3] if omit_last else x
                lines.append(f"{grade} qid:{q + 1} "
                             + " ".join(f"{k + 1}:{v}" for k, v in enumerate(shown)))
        path.write_text("\n".join(lines) + "\n")
        return lines

    write(tmp_path / "train.svmlight", 20, False)
    lines = write(tmp_path / "test.svmlight", 4, True)
    (tmp_path / "full.svmlight").write_text("\n".join(f"{line} 4:0" for line in lines) + "\n")
    pair_model = str(tmp_path / "p.skops")
    assert main(["fit", str(tmp_path / "train.svmlight"), "--kernel", "linear", "--model",
                 pair_model]) == 0
    graded = tmp_path / "g.skops"
    from svmcompare.io import load_letor

    save_model(GroupRankSVM().fit(*load_letor(tmp_path / "train.svmlight")), graded)
    for name in ("test", "full"):
        assert main(["predict", pair_model, str(tmp_path / f"{name}.svmlight"), "-o",
                     str(tmp_path / f"{name}_pred.csv")]) == 0
        for model in (pair_model, str(graded)):
            assert main(["rank", model, str(tmp_path / f"{name}.svmlight"), "-o",
                         str(tmp_path / f"{name}_rank_{Path(model).stem}.csv")]) == 0
    capsys.readouterr()
    assert (tmp_path / "test_pred.csv").read_bytes() == (tmp_path / "full_pred.csv").read_bytes()
    for stem in ("p", "g"):
        assert (tmp_path / f"test_rank_{stem}.csv").read_bytes() == \
            (tmp_path / f"full_rank_{stem}.csv").read_bytes()
    # A file with a feature beyond the model's is still refused, naming it.
    (tmp_path / "wide.svmlight").write_text("1 qid:1 1:0.5 5:1\n0 qid:1 1:0.2\n")
    for command in ("predict", "rank"):
        assert main([command, pair_model, str(tmp_path / "wide.svmlight"), "-o",
                     str(tmp_path / "w.csv")]) == 2
        assert "wide.svmlight" in capsys.readouterr().err


def test_fit_on_a_letor_file_trains_on_every_pair_without_forming_them(tmp_path, capsys,
                                                                       monkeypatch):
    from svmcompare import GroupRankSVM, SVMCompare
    from svmcompare.cli import letor
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor, load_letor
    from svmcompare.pairs import pairwise_transform
    from svmcompare.persistence import load_model

    X, y, groups, _ = make_graded_blocks(random_state=1)
    dump_letor(X, y, groups, tmp_path / "items.letor")
    X, y, groups = load_letor(tmp_path / "items.letor")
    path = tmp_path / "m.skops"
    assert main(["fit", str(tmp_path / "items.letor"), "--kernel", "linear", "--C", "0.5",
                 "--model", str(path)]) == 0
    out = capsys.readouterr().out
    assert "without forming the pairs" in out
    model = load_model(path)
    assert isinstance(model, SVMCompare) and model.solver_ == "all-pairs"
    expected = GroupRankSVM(C=0.5, ties="keep", class_weight="balanced", pairs="all").fit(
        X, y, groups).pair_model_
    np.testing.assert_allclose(model.coef_, expected.coef_, rtol=1e-12)
    # The printed training error is the pair model's error on every pair (few here).
    P, labels = pairwise_transform(X, y, groups, ties="keep")
    error = 1 - model.score(P, labels)
    assert f"training error {100 * error:.1f}% (on all {labels.size} pairs)" in out
    # Settings the all-pairs solver does not cover still form the pairs, and say
    # what that costs when the pairs are many.
    monkeypatch.setattr(letor, "MANY_PAIRS", labels.size - 1)
    assert main(["fit", str(tmp_path / "items.letor"), "--kernel", "rbf", "--model",
                 str(path)]) == 0
    captured = capsys.readouterr()
    assert "without forming" not in captured.out
    assert f"note: {labels.size} pairs within queries, formed here" in captured.err
    assert load_model(path).solver_ == "exact"
    monkeypatch.setattr(letor, "MANY_PAIRS", labels.size)
    assert main(["fit", str(tmp_path / "items.letor"), "--kernel", "rbf", "--model",
                 str(path)]) == 0
    assert capsys.readouterr().err == ""  # (qid is used: it forms the pairs)
    # A file without ties: the command line's words, not the Python API's.
    dump_letor(X, np.arange(y.size), groups, tmp_path / "strict.letor")
    assert main(["fit", str(tmp_path / "strict.letor"), "--kernel", "linear", "--model",
                 str(path)]) == 2
    assert "no ties for SVMCompare" in capsys.readouterr().err


def test_evaluate_on_a_letor_file_forms_the_pairs_a_chunk_at_a_time(tmp_path, capsys,
                                                                     monkeypatch):
    from svmcompare.cli import letor
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor, load_letor
    from svmcompare.metrics import comparison_report, outcome_log_loss
    from svmcompare.pairs import pairwise_transform
    from svmcompare.persistence import load_model

    X, y, groups, _ = make_graded_blocks(random_state=2)
    dump_letor(X, y, groups, tmp_path / "items.letor")
    X, y, groups = load_letor(tmp_path / "items.letor")
    path = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "items.letor"), "--kernel", "linear", "--probability",
                 "--model", path]) == 0
    capsys.readouterr()
    monkeypatch.setattr(letor, "PAIR_CHUNK", 37)  # pairs formed 37 at a time
    assert main(["evaluate", path, str(tmp_path / "items.letor")]) == 0
    out = capsys.readouterr().out
    model = load_model(path)
    P, labels = pairwise_transform(X, y, groups, ties="keep")
    report = comparison_report(labels, model.decision_function(P), model.threshold_)
    assert f"pairs {labels.size} ({report['equality']} ties" in out
    assert f"zero-one error {100 * report['error_rate']:.2f}%" in out
    assert f"comparison AUC (Table 3) {report['auc']:.4f}" in out
    assert f"{outcome_log_loss(labels, model.predict_proba(P)):>9.4f}" in out
    # predict writes the same file chunk by chunk as at once.
    for chunk, name in ((37, "chunked.csv"), (10**9, "whole.csv")):
        monkeypatch.setattr(letor, "PAIR_CHUNK", chunk)
        assert main(["predict", path, str(tmp_path / "items.letor"), "--proba", "-o",
                     str(tmp_path / name)]) == 0
    chunked = (tmp_path / "chunked.csv").read_text()
    assert chunked == (tmp_path / "whole.csv").read_text()
    table = pd.read_csv(tmp_path / "chunked.csv")
    assert len(table) == labels.size and list(table.columns) == [
        "qid", "item_a", "item_b", "y_pred", "rank_difference", "p_x_better", "p_tie",
        "p_xprime_better"]
    np.testing.assert_allclose(table["rank_difference"], model.decision_function(P), rtol=1e-12)


def test_fit_names_the_columns_it_does_not_use(tmp_path, capsys):
    rng = np.random.default_rng(2)
    frame = _matches(tmp_path / "m.csv", rng, n=80)
    frame.assign(referee="X").to_csv(tmp_path / "m.csv", index=False)
    assert main(["fit", str(tmp_path / "m.csv"), "--model", str(tmp_path / "m.skops"),
                 "--a", "home", "--b", "away", "--outcome", "result", "--outcome-map",
                 "H=-1,D=0,A=1", "--context", "adv", "--kernel", "linear"]) == 0
    err = capsys.readouterr().err
    assert "not used for fitting" in err and "match, referee" in err
    assert "home" not in err.split("weight):")[1]  # ids are used, not reported


def test_fit_calibration_flag_reaches_the_model_and_refuses_without_probability(tmp_path,
                                                                               capsys):
    from svmcompare.cli import main
    from svmcompare.datasets import make_norm_pairs
    from svmcompare.persistence import load_model

    X, y = make_norm_pairs(150, "l1", 0.3, random_state=0)
    pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                  "b_v": X[:, 1, 1], "y": y}).to_csv(tmp_path / "train.csv", index=False)
    train = str(tmp_path / "train.csv")
    for calibration, used in (("loo", "leave-one-out"), ("cv", "5-fold")):
        path = str(tmp_path / f"{calibration}.skops")
        assert main(["fit", train, "--probability", "--calibration", calibration,
                     "--model", path, "--no-progress"]) == 0
        model = load_model(path)
        assert model.calibration == calibration and model.calibration_ == used
    capsys.readouterr()
    assert main(["fit", train, "--calibration", "loo", "--model",
                 str(tmp_path / "x.skops")]) == 2
    assert "add --probability" in capsys.readouterr().err
    assert main(["fit", train, "--auto", "--probability", "--calibration", "loo", "--model",
                 str(tmp_path / "y.skops")]) == 2
    assert "--auto calibrates on its own search folds" in capsys.readouterr().err
    assert not (tmp_path / "x.skops").exists() and not (tmp_path / "y.skops").exists()


def test_fit_takes_the_squared_hinge_for_a_single_linear_fit(tmp_path, capsys):
    from svmcompare.persistence import load_model

    _matches(tmp_path / "matches.csv", np.random.default_rng(2))
    model = str(tmp_path / "m.skops")
    base = ["fit", str(tmp_path / "matches.csv"), "--model", model, "--a", "home", "--b", "away",
            "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--context", "adv"]
    assert main([*base, "--loss", "squared_hinge", "--probability"]) == 0
    fitted = load_model(model)
    assert fitted.get_params()["loss"] == "squared_hinge"
    assert list(np.argsort(-fitted.rank(np.eye(4)))) == [0, 1, 2, 3]
    capsys.readouterr()
    assert main([*base, "--loss", "squared_hinge", "--kernel", "rbf"]) == 2
    assert "loss='squared_hinge'" in capsys.readouterr().err


def write_wide(path, X, y=None):
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1],
                          "b_u": X[:, 1, 0], "b_v": X[:, 1, 1]})
    if y is not None:
        frame["y"] = y
    frame.to_csv(path, index=False)


def test_wide_layout_from_fit_to_evaluation(tmp_path, capsys):
    X, y = make_norm_pairs(200, "l1", random_state=0)
    X_test, y_test = make_norm_pairs(300, "l1", random_state=1)
    write_wide(tmp_path / "train.csv", X, y)
    write_wide(tmp_path / "test.csv", X_test, y_test)
    model = str(tmp_path / "model.skops")
    assert main(["fit", str(tmp_path / "train.csv"), "--model", model, "--C", "10",
                 "--gamma", "0.5", "--probability"]) == 0
    assert main(["predict", model, str(tmp_path / "test.csv"), "--proba",
                 "-o", str(tmp_path / "pred.csv")]) == 0
    pred = pd.read_csv(tmp_path / "pred.csv")
    assert set(pred["y_pred"]) <= {-1, 0, 1} and len(pred) == 300
    np.testing.assert_allclose(pred[["p_x_better", "p_tie", "p_xprime_better"]].sum(axis=1), 1)
    assert np.mean(pred["y_pred"] == y_test) > 0.7
    items = pd.DataFrame({"id": ["p", "q"], "u": [0.0, 2.0], "v": [0.0, 2.0]})
    items.to_csv(tmp_path / "items.csv", index=False)
    assert main(["rank", model, str(tmp_path / "items.csv"), "-o",
                 str(tmp_path / "ranks.csv")]) == 0
    ranks = pd.read_csv(tmp_path / "ranks.csv").set_index("id")["rank"]
    assert ranks["q"] > ranks["p"]  # the l1 pattern's r grows with |x|
    assert main(["evaluate", model, str(tmp_path / "test.csv"), "--plot",
                 str(tmp_path / "roc.png")]) == 0
    out = capsys.readouterr().out
    error = 100 * np.mean(pred["y_pred"] != y_test)
    assert f"zero-one error {error:.2f}%" in out and "comparison AUC" in out
    assert (tmp_path / "roc.png").stat().st_size > 1000


def test_ids_layout_and_grid(tmp_path, capsys):
    rng = np.random.default_rng(0)
    items = pd.DataFrame({"id": [f"i{k}" for k in range(40)], "u": rng.normal(size=40)})
    items.to_csv(tmp_path / "items.csv", index=False)
    a = rng.integers(0, 40, 300)
    b = (a + rng.integers(1, 40, 300)) % 40  # never an item against itself
    d = items["u"].to_numpy()[b] - items["u"].to_numpy()[a]
    y = np.where(d > 0.5, 1, np.where(d < -0.5, -1, 0))
    pd.DataFrame({"item_a": items["id"][a].to_numpy(), "item_b": items["id"][b].to_numpy(),
                  "y": y}).to_csv(tmp_path / "pairs.csv", index=False)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "pairs.csv"), "--items", str(tmp_path / "items.csv"),
                 "--model", model, "--kernel", "linear", "--grid", "--no-progress"]) == 0
    assert "chosen by 5-fold cross-validation" in capsys.readouterr().out
    assert main(["evaluate", model, str(tmp_path / "pairs.csv"), "--items",
                 str(tmp_path / "items.csv")]) == 0
    error = float(capsys.readouterr().out.split("zero-one error ")[1].split("%")[0])
    assert error < 10


@pytest.mark.parametrize("content, message", [
    ("a_u,b_u\n1,2\n", "no 'y' column"),
    ("a_u,b_u,y\n1,2,0\n1,x,1\n", "line 3, column b_u: 'x' is not a number"),
    ("a_u,b_u,y\n1,2,0\n1,3,2\n", "line 3, column y: 2 is not a label"),
    ("a_u,b_w,y\n1,2,0\n", "same features"),
    ("u,v,y\n1,2,0\n", "no a_<feature> columns"),
    ("a_u,b_u,y\n", "a header and no rows"),
    # pandas reads 1e400 as inf or as text, by version: named as not finite either way.
    ("a_u,b_u,y\n1,2,0\n1e400,3,1\n",
     r"line 3, column a_u: ('(inf|1e400)' is not finite|infinite, or past double precision)"),
])
def test_bad_pairs_files_give_one_line(tmp_path, capsys, content, message):
    import re

    (tmp_path / "bad.csv").write_text(content)
    code = main(["fit", str(tmp_path / "bad.csv"), "--model", str(tmp_path / "m.skops")])
    err = capsys.readouterr().err
    assert code == 2 and re.search(message, err) and err.count("\n") == 1


def test_unreadable_and_incompatible_models_give_one_line(tmp_path, capsys):
    X, y = make_norm_pairs(60, "l1", random_state=0)
    write_wide(tmp_path / "pairs.csv", X, y)
    (tmp_path / "junk.skops").write_text("junk")
    assert main(["predict", str(tmp_path / "junk.skops"), str(tmp_path / "pairs.csv"),
                 "-o", str(tmp_path / "o.csv")]) == 2
    assert "not an svmcompare model file" in capsys.readouterr().err
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "pairs.csv"), "--model", model]) == 0
    pd.DataFrame({"a_u": [1.0], "b_u": [2.0]}).to_csv(tmp_path / "one.csv", index=False)
    capsys.readouterr()
    assert main(["predict", model, str(tmp_path / "one.csv"), "-o",
                 str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "feature" in err and err.count("\n") == 1
    assert main(["predict", model, str(tmp_path / "pairs.csv"), "--proba", "-o",
                 str(tmp_path / "o.csv")]) == 2
    assert "without --probability" in capsys.readouterr().err


def test_letor_files_of_graded_items(tmp_path):
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor
    from svmcompare.metrics import kendall_tau_per_group

    X, y, groups, _ = make_graded_blocks()
    dump_letor(X, y, groups, tmp_path / "items.svmlight")
    model = str(tmp_path / "m.skops")
    # Pairs inside each query, equal grades as ties; a linear SVMCompare on them.
    assert main(["fit", str(tmp_path / "items.svmlight"), "--model", model, "--kernel",
                 "linear", "--C", "10"]) == 0
    assert main(["rank", model, str(tmp_path / "items.svmlight"), "-o",
                 str(tmp_path / "r.csv")]) == 0
    scores = pd.read_csv(tmp_path / "r.csv")["rank"].to_numpy()
    assert kendall_tau_per_group(y, scores, groups)[0] > 0.7
    (tmp_path / "bad.svmlight").write_text("1 qid:1 1:0.5\nnonsense here\n")
    assert main(["fit", str(tmp_path / "bad.svmlight"), "--model", model]) == 2


def test_ids_that_pandas_would_read_as_missing_are_ids(tmp_path, capsys):
    # Namibia ("NA") and a team called "None" are ids; only an empty cell is missing.
    (tmp_path / "m.csv").write_text("item_a,item_b,y\nNA,None,-1\nNone,NA,1\nNA,None,0\n"
                                    "null,NA,0\nnull,None,1\n")
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), "--model", model]) == 0
    from svmcompare.persistence import load_model

    assert list(load_model(model).feature_names_in_) == ["is_NA", "is_None", "is_null"]
    (tmp_path / "gap.csv").write_text("item_a,item_b,y\nNA,,-1\n")
    assert main(["fit", str(tmp_path / "gap.csv"), "--model", model]) == 2
    assert "empty id" in capsys.readouterr().err


def _small_letor_model(tmp_path):
    """A LETOR file of graded items and a linear pair model fitted on it."""
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor

    X, y, groups, _ = make_graded_blocks(10, random_state=0)
    dump_letor(X, y, groups, tmp_path / "items.letor")
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "items.letor"), "--kernel", "linear", "--model",
                 model]) == 0
    return model, str(tmp_path / "items.letor")


def test_output_to_a_closed_pipe_stops_quietly(tmp_path, capsys, monkeypatch):
    """Review r14: 'predict ... -o - | head -1' (and fit / evaluate piped to head)
    exited 2 with 'error: [Errno 32] Broken pipe'; a Unix tool stops quietly,
    with the status of SIGPIPE (141)."""
    import io
    import subprocess
    import sys

    model, letor = _small_letor_model(tmp_path)
    capsys.readouterr()

    class ClosedPipe(io.TextIOBase):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    for argv in (["evaluate", model, letor], ["predict", model, letor, "-o", "-"],
                 ["rank", model, letor, "-o", "-"]):
        assert main(argv) == 141
    monkeypatch.undo()
    assert capsys.readouterr().err == ""
    # A real process whose reader is gone before it writes: no message, no
    # "Exception ignored" from the flush at exit.
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; from svmcompare.cli import main; "
         f"sys.exit(main({['predict', model, letor, '-o', '-']!r}))"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()
    err = child.stderr.read()
    assert child.wait(timeout=60) == 141, err
    assert err == b""


def test_rank_writes_to_standard_output_and_plots_name_the_file_written(tmp_path, capsys,
                                                                          monkeypatch):
    """Review r14: 'rank -o -' wrote a file named '-' (predict -o - writes to
    standard output); 'evaluate --plot roc' wrote roc.png and said 'roc'."""
    model, letor = _small_letor_model(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["rank", model, letor, "-o", "ranks.csv"]) == 0
    capsys.readouterr()
    assert main(["rank", model, letor, "-o", "-"]) == 0
    assert capsys.readouterr().out == (tmp_path / "ranks.csv").read_text()
    assert not (tmp_path / "-").exists()
    assert main(["evaluate", model, letor, "--plot", "roc"]) == 0
    assert "plot written to roc.png" in capsys.readouterr().out
    assert (tmp_path / "roc.png").stat().st_size > 1000 and not (tmp_path / "roc").exists()
    assert main(["evaluate", model, letor, "--plot", "curve.svg"]) == 0
    assert "plot written to curve.svg" in capsys.readouterr().out
    assert (tmp_path / "curve.svg").exists()


def test_features_rankings_and_rolling_write_standard_output_for_a_dash(tmp_path, capsys,
                                                                          monkeypatch):
    """'-o -' is standard output for every command that writes a table (a file
    named '-' was written by features, rankings and rolling), and the summary
    line stays off the table."""
    import pandas as pd

    from svmcompare.datasets import make_league

    matches, _ = make_league(n_teams=6, n_seasons=2, random_state=0)
    matches.to_csv(tmp_path / "m.csv", index=False)
    races = pd.DataFrame({"race": [1, 1, 1, 2, 2, 2], "horse": list("abcabd"),
                          "place": [1, 2, 3, 2, 1, 3]})
    races.to_csv(tmp_path / "r.csv", index=False)
    monkeypatch.chdir(tmp_path)
    game = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]
    commands = [["features", "m.csv", *game, "--time", "season", "--advantage", "home_adv"],
                ["rankings", "r.csv", "--event", "race", "--item", "horse", "--position",
                 "place"],
                ["rolling", "m.csv", *game, "--context", "home_adv", "--period", "season",
                 "--no-progress"]]
    for command in commands:
        assert main([*command, "-o", "table.csv"]) == 0
        capsys.readouterr()
        assert main([*command, "-o", "-"]) == 0
        assert capsys.readouterr().out == (tmp_path / "table.csv").read_text(), command[0]
        assert not (tmp_path / "-").exists()


def test_fit_takes_the_tie_band_and_link_of_a_single_fit(tmp_path, capsys):
    """Ids whose own draw rates differ: --tie-band pair on the command line
    gives the Python model's probabilities; refused without --probability,
    with --auto and for the baselines."""
    import pandas as pd

    from svmcompare import SVMCompare, load_model, pairs_from_frame

    rng = np.random.default_rng(0)
    teams = np.array([f"T{k}" for k in range(8)])
    drawish = rng.normal(0, 0.8, 8)
    a = rng.integers(0, 8, 600)
    b = (a + rng.integers(1, 8, 600)) % 8
    band = np.exp(drawish[a] + drawish[b])
    u = rng.logistic(size=600)
    result = np.where(u > band, "A", np.where(u < -band, "H", "D"))
    matches = pd.DataFrame({"home": teams[a], "away": teams[b], "result": result})
    matches.to_csv(tmp_path / "m.csv", index=False)
    game = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]
    model_path = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), *game, "--probability", "--tie-band", "pair",
                 "--link", "davidson", "--model", model_path]) == 0
    fitted = load_model(model_path)
    assert (fitted.tie_band, fitted.link) == ("pair", "davidson")
    data = pairs_from_frame(matches, a="home", b="away", outcome="result",
                            outcome_map={"H": -1, "D": 0, "A": 1}, sparse=True)
    # On a table of ids a single fit takes the squared hinge (its solution is unique).
    assert fitted.loss == "squared_hinge"
    python = SVMCompare(kernel="linear", probability=True, tie_band="pair", link="davidson",
                        scale_indicators=False, loss="squared_hinge",
                        random_state=0).fit(data.X, data.y)
    np.testing.assert_allclose(fitted.predict_proba(data.X[:50]),
                               python.predict_proba(data.X[:50]), atol=1e-10)
    capsys.readouterr()
    for extra, message in ((["--tie-band", "pair"], "add --probability"),
                           (["--probability", "--auto", "--link", "davidson"],
                            "--auto chooses link itself"),
                           (["--probability", "--model-type", "rank", "--tie-band", "pair"],
                            "SVMCompare's")):
        assert main(["fit", str(tmp_path / "m.csv"), *game, *extra, "--model",
                     model_path]) == 2
        assert message in capsys.readouterr().err


def test_tol_reaches_the_solver_and_is_checked(tmp_path, capsys):
    from svmcompare.persistence import load_model

    rng = np.random.default_rng(3)
    _matches(tmp_path / "matches.csv", rng)
    base = ["fit", str(tmp_path / "matches.csv"), "--a", "home", "--b", "away", "--context",
            "adv", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1",
            "--model", str(tmp_path / "m.skops")]
    assert main([*base, "--tol", "1e-8"]) == 0
    fitted = load_model(tmp_path / "m.skops")
    assert fitted.tol == 1e-8 and fitted.converged_
    capsys.readouterr()
    for extra, message in ((["--tol", "0"], "--tol must be a positive number"),
                           (["--tol", "1e-6", "--auto"], "--tol 1e-06 applies to a single fit"),
                           (["--tol", "1e-6", "--model-type", "lp"], "no --tol")):
        assert main([*base, *extra]) == 2
        assert message in capsys.readouterr().err


def test_progress_bars_go_to_a_terminal_only(tmp_path, capsys, monkeypatch):
    # A new user's logs filled with the search's carriage-return frames: on the
    # command line the bars are drawn only when stderr is a terminal.
    import sys

    from svmcompare.solvers import interrupt

    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    monkeypatch.setattr(interrupt, "PROGRESS_AFTER", 0.0)  # as if the search ran long
    fit = ["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
           "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--context", "home_adv",
           "--auto", "--groups", "season", "--model", str(tmp_path / "m.skops")]
    capsys.readouterr()
    assert main(fit) == 0
    assert "\r" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(fit) == 0
    assert "SVMCompareCV" in capsys.readouterr().err


def test_auto_searches_squared_hinge_points_with_that_loss(tmp_path, capsys):
    # --auto refused --loss squared_hinge, the loss the README gives ratings of ids.
    # (Two seasons only: which loss a search takes shows on any data.)
    from svmcompare.persistence import load_model

    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--context",
                 "home_adv", "--auto", "--probability", "--groups", "season", "--until",
                 "season=2", "--loss", "squared_hinge", "--model", str(tmp_path / "m.skops")]) == 0
    assert "loss = squared_hinge" in capsys.readouterr().out
    model = load_model(tmp_path / "m.skops")
    assert model.get_params()["loss"] == "squared_hinge" and model.kernel == "linear"
    # On a table of ids --auto searches the squared hinge unless told otherwise
    # (a new user's leaderboard of a hinge search read 4e-8); features: the hinge.
    ids = ["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
           "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--context", "home_adv",
           "--auto", "--probability", "--groups", "season", "--until", "season=2",
           "--no-progress"]
    for extra, expected in (([], "squared_hinge"), (["--loss", "hinge"], "hinge")):
        assert main([*ids, *extra, "--model", str(tmp_path / "i.skops")]) == 0
        assert load_model(tmp_path / "i.skops").get_params()["loss"] == expected
    features = tmp_path / "f.csv"
    assert main(["features", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b",
                 "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--time",
                 "season", "--advantage", "home_adv", "-o", str(features)]) == 0
    assert main(["fit", str(features), "--auto", "--probability", "--groups", "season",
                 "--after", "season=1", "--until", "season=3", "--no-progress", "--model",
                 str(tmp_path / "h.skops")]) == 0
    assert load_model(tmp_path / "h.skops").get_params()["loss"] == "hinge"


def test_an_id_list_reads_its_ids_as_written(tmp_path):
    # "01" and "1" are two teams; a list of "01" alone was parsed as the
    # number 1 and answered with team "1"'s rating (rank and leaderboard).
    rng = np.random.default_rng(0)
    strength = {"01": -1.0, "1": 1.0, "2": 0.0, "3": 0.5}
    rows = []
    for _ in range(300):
        a, b = rng.choice(list(strength), 2, replace=False)
        d = strength[b] - strength[a] + rng.logistic()
        rows.append((a, b, "H" if d < -0.8 else "A" if d > 0.8 else "D"))
    pd.DataFrame(rows, columns=["home", "away", "result"]).to_csv(tmp_path / "m.csv",
                                                                 index=False)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), "--a", "home", "--b", "away", "--outcome",
                 "result", "--outcome-map", "H=-1,D=0,A=1", "--kernel", "linear",
                 "--model", model]) == 0
    assert main(["rank", model, "-o", str(tmp_path / "all.csv")]) == 0
    every = pd.read_csv(tmp_path / "all.csv", dtype={"id": str}).set_index("id")["rank"]
    (tmp_path / "want.csv").write_text("id\n01\n")
    assert main(["rank", model, str(tmp_path / "want.csv"), "-o",
                 str(tmp_path / "one.csv")]) == 0
    one = pd.read_csv(tmp_path / "one.csv", dtype={"id": str})
    assert list(one["id"]) == ["01"]
    assert one["rank"].iloc[0] == pytest.approx(every["01"])
    assert every["01"] != pytest.approx(every["1"])


def test_a_letor_bootstrap_is_fitted_and_ranks_positions_within_queries(tmp_path):
    # --bootstrap on a LETOR file with a linear kernel went to the all-pairs
    # fit and was dropped without a word; rank --interval then numbered the
    # positions across every query (items of two queries are never compared).
    from svmcompare import BootstrapCompare
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor
    from svmcompare.persistence import load_model

    X, y, groups, _ = make_graded_blocks(6, random_state=0)
    letor, model = str(tmp_path / "items.letor"), str(tmp_path / "b.skops")
    dump_letor(X, y, groups, letor)
    assert main(["fit", letor, "--kernel", "linear", "--bootstrap", "5", "--n-jobs", "1",
                 "--no-progress", "--model", model]) == 0
    fitted = load_model(model)
    assert isinstance(fitted, BootstrapCompare) and len(fitted.replicates_) == 5
    assert main(["rank", model, letor, "-o", str(tmp_path / "r.csv"), "--interval", "0.9"]) == 0
    ranks = pd.read_csv(tmp_path / "r.csv")
    for _, query in ranks.groupby("qid"):
        assert sorted(query["position"]) == sorted(
            pd.Series(-query["rank"]).rank(method="min").astype(int))
        assert query["position_worst"].max() <= len(query)
        assert (query["position_best"] >= 1).all()


def test_context_columns_are_matched_by_name(tmp_path, capsys):
    # A context is read by position: swapped, renamed or other columns gave
    # other predictions with exit code 0.
    frame = _matches(tmp_path / "m.csv", np.random.default_rng(0))
    frame = frame.rename(columns={"adv": "ctx_home"})
    frame["ctx_rest"] = np.random.default_rng(1).integers(-2, 3, len(frame))
    frame.to_csv(tmp_path / "m.csv", index=False)
    common = ["--a", "home", "--b", "away"]
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), *common, "--outcome", "result",
                 "--outcome-map", "H=-1,D=0,A=1", "--kernel", "linear", "--model", model]) == 0
    out = str(tmp_path / "p.csv")
    assert main(["predict", model, str(tmp_path / "m.csv"), *common, "-o", out]) == 0
    for name, table in (("swapped", frame[["home", "away", "ctx_rest", "ctx_home"]]),
                        ("renamed", frame.rename(columns={"ctx_rest": "ctx_neutral"}))):
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        for command in ("predict", "evaluate"):
            extra = ["-o", out] if command == "predict" else ["--outcome", "result",
                                                              "--outcome-map", "H=-1,D=0,A=1"]
            if command == "evaluate" and name == "swapped":
                continue  # (no outcome column kept in that table)
            capsys.readouterr()
            assert main([command, model, str(tmp_path / f"{name}.csv"), *common, *extra]) == 2
            assert f"{name}.csv's context columns" in capsys.readouterr().err


def test_id_columns_next_to_a_b_feature_columns_are_named_as_unused(tmp_path, capsys):
    # --a home --b away with a_goals / b_goals in the file: the wide layout is
    # read (features' own output holds ids next to a_/b_ features, which
    # rolling and leaderboard name with --a / --b), and the note said nothing
    # of the ids, as if they were fitted on.
    frame = _matches(tmp_path / "m.csv", np.random.default_rng(0))
    frame["a_goals"], frame["b_goals"] = np.arange(len(frame)) % 3, np.arange(len(frame)) % 2
    frame.to_csv(tmp_path / "m.csv", index=False)
    assert main(["fit", str(tmp_path / "m.csv"), "--a", "home", "--b", "away", "--outcome",
                 "result", "--outcome-map", "H=-1,D=0,A=1", "--kernel", "linear", "--model",
                 str(tmp_path / "m.skops")]) == 0
    note = [line for line in capsys.readouterr().err.splitlines() if "not used" in line][0]
    assert "home, away" in note


def test_features_copies_the_other_columns_as_written(tmp_path):
    # Every column but the ids was read as numbers: a game id 000123 came
    # back as 123, a referee "NA" as an empty cell, and a 1X2 result of 1 was
    # 1.0, which the outcome map's "1" did not match.
    rows = [("000001", "A", "B", "1", "NA"), ("000002", "C", "D", "2", "Smith"),
            ("000003", "A", "C", "X", "Lee"), ("000004", "B", "D", "1", "NA")]
    pd.DataFrame(rows, columns=["game_id", "home", "away", "res", "ref"]).to_csv(
        tmp_path / "g.csv", index=False)
    out = tmp_path / "f.csv"
    assert main(["features", str(tmp_path / "g.csv"), "--a", "home", "--b", "away",
                 "--outcome", "res", "--outcome-map", "1=-1,X=0,2=1", "-o", str(out)]) == 0
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(written["game_id"]) == ["000001", "000002", "000003", "000004"]
    assert list(written["ref"]) == ["NA", "Smith", "Lee", "NA"]
    assert list(written["y"].astype(int)) == [-1, 1, 0, -1]


def test_evaluate_on_a_letor_file_checks_the_models_features(tmp_path, capsys):
    # A model of named features (here team ids) read a LETOR file's numbered
    # features, padded with zeros to its count, and printed a full report.
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor

    _matches(tmp_path / "m.csv", np.random.default_rng(0))
    model = str(tmp_path / "ids.skops")
    assert main(["fit", str(tmp_path / "m.csv"), "--a", "home", "--b", "away", "--outcome",
                 "result", "--outcome-map", "H=-1,D=0,A=1", "--kernel", "linear",
                 "--model", model]) == 0
    X, y, groups, _ = make_graded_blocks(4, random_state=0)
    dump_letor(X[:, :3], y, groups, tmp_path / "g.letor")
    capsys.readouterr()
    assert main(["evaluate", model, str(tmp_path / "g.letor")]) == 2
    assert "features do not match" in capsys.readouterr().err


def test_an_output_may_not_overwrite_an_input_or_need_a_missing_folder(tmp_path, capsys):
    # fit --model onto its own training CSV replaced the data with a model
    # file; predict / features -o onto their input overwrote it; a missing
    # folder was found only after the whole fit.
    games = tmp_path / "m.csv"
    _matches(games, np.random.default_rng(0))
    before = games.read_bytes()
    common = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map",
              "H=-1,D=0,A=1"]
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(games), *common, "--kernel", "linear", "--model", str(games)]) == 2
    assert "--model" in capsys.readouterr().err and games.read_bytes() == before
    assert main(["fit", str(games), *common, "--kernel", "linear", "--model", model]) == 0
    capsys.readouterr()
    for argv in (["predict", model, str(games), "--a", "home", "--b", "away", "-o", str(games)],
                 ["features", str(games), *common, "-o", str(games)],
                 ["rank", model, "-o", model]):
        assert main(argv) == 2
        assert "is also this command's input" in capsys.readouterr().err
    assert games.read_bytes() == before
    assert main(["fit", str(games), *common, "--model", str(tmp_path / "no" / "m.skops")]) == 2
    assert "there is no folder" in capsys.readouterr().err


def test_predictions_that_fail_part_way_leave_no_half_file(tmp_path, monkeypatch, capsys):
    # A LETOR file's predictions were written chunk by chunk under their name:
    # an error in a later chunk left part of a table behind.
    from svmcompare.cli import letor

    model, items = _small_letor_model(tmp_path)
    out = tmp_path / "p.csv"
    assert main(["predict", model, items, "-o", str(out)]) == 0
    whole = out.read_text()
    out.unlink()
    monkeypatch.setattr(letor, "PAIR_CHUNK", 100)
    calls = []
    real = letor.with_predictions

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise ValueError("a chunk that cannot be scored")
        return real(*args, **kwargs)

    monkeypatch.setattr(letor, "with_predictions", failing)
    assert main(["predict", model, items, "-o", str(out)]) == 2
    assert not out.exists() and not list(tmp_path.glob(".p.csv*"))
    monkeypatch.setattr(letor, "with_predictions", real)
    assert main(["predict", model, items, "-o", str(out)]) == 0
    assert out.read_text() == whole  # chunks of 100 pairs make the same table


def test_an_output_through_a_link_writes_its_target(tmp_path):
    # The table went to a temporary file renamed over the link, which became
    # a file of its own while its target kept the old table.
    model, items = _small_letor_model(tmp_path)
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert main(["rank", model, items, "-o", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("id,")


def test_auto_on_graded_items_keeps_each_querys_pairs_together(tmp_path, capsys, monkeypatch):
    """fit --auto on a LETOR file dealt one query's pairs to training and
    validation alike, so its folds flattered it (a review: 0.8369 against
    0.8404 on new queries)."""
    import svmcompare.cli.product as product
    from svmcompare.datasets import make_graded_blocks
    from svmcompare.io import dump_letor, load_letor
    from svmcompare.pairs import pair_indices
    from svmcompare.persistence import load_model

    X, y, groups, _ = make_graded_blocks(random_state=0)
    dump_letor(X, y, groups, tmp_path / "items.letor")
    _, grades, qid = load_letor(tmp_path / "items.letor")
    first, _, _ = pair_indices(grades, qid, "keep")
    seen = []
    real = product.auto_folds
    monkeypatch.setattr(product, "auto_folds", lambda g: seen.append(g) or real(g))
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "items.letor"), "--auto", "--probability",
                 "--no-progress", "--model", str(tmp_path / "m.skops")]) == 0
    assert "folds keep each query's pairs together (--groups qid)" in capsys.readouterr().out
    np.testing.assert_array_equal(seen[0], qid[first])  # each pair's query
    assert load_model(tmp_path / "m.skops").n_features_in_ == X.shape[1]


def test_rolling_replays_ids_with_a_kernel_model(tmp_path, monkeypatch, capsys):
    # An attack (stop 70): `rolling --kernel rbf` on a table of ids failed after
    # its first fit, ranking the sparse ids ("pass a dense array").
    from svmcompare.datasets import make_league

    matches, _ = make_league(n_teams=6, n_seasons=3, random_state=0)
    matches.to_csv(tmp_path / "m.csv", index=False)
    monkeypatch.chdir(tmp_path)
    game = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]
    assert main(["rolling", "m.csv", *game, "--period", "season", "--kernel", "rbf",
                 "--ratings", "paths.csv", "--no-progress", "-o", "out.csv"]) == 0
    paths = pd.read_csv(tmp_path / "paths.csv")
    predicted = pd.read_csv(tmp_path / "out.csv")
    assert len(paths) == 2 and paths.drop(columns="season").notna().all().all()
    assert np.allclose(predicted[["p_x_better", "p_tie", "p_xprime_better"]].sum(axis=1), 1.0)


def test_evaluate_says_when_its_plot_cannot_be_drawn(tmp_path, capsys):
    # An attack (stop 70): without both ties and non-ties there is no ROC, and
    # --plot wrote nothing without a word.
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(120, "l1", 0.3, random_state=0)
    for name, labels in (("train.csv", y), ("ties.csv", np.zeros_like(y))):
        pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                      "b_v": X[:, 1, 1], "y": labels}).to_csv(tmp_path / name, index=False)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "train.csv"), "--model", model, "--no-progress"]) == 0
    capsys.readouterr()
    plot = tmp_path / "roc.png"
    assert main(["evaluate", model, str(tmp_path / "ties.csv"), "--plot", str(plot)]) == 0
    assert f"{plot} not written: the comparison ROC needs both" in capsys.readouterr().err
    assert not plot.exists()


@pytest.mark.parametrize("option, value, message", [
    ("--n-pairs", "1", "must be at least 2"),
    ("--n-jobs", "0", "positive integer or -1"),
    ("--seed", "-5", "in 0..2**32 - 1"),
])
def test_demo_refuses_settings_it_cannot_run_when_parsing(option, value, message, capsys):
    # An attack (stop 70): each was accepted, then failed inside a fit with
    # another message ("seeds -5--5", joblib's "n_jobs == 0 has no meaning").
    with pytest.raises(SystemExit) as exc:
        main(["demo", option, value])
    assert exc.value.code == 2 and message in capsys.readouterr().err
