"""Command line: ``svmcompare <command>``.  Thin: parses, calls the library, prints."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {text}")
    return value


def _demo(args):
    from .experiments import run_figure3
    from .experiments.reproduce import write_figure3

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    print(
        f"Fitting rank, rank2 and compare on the simulated ||x||_1^2 pattern: "
        f"{args.n_pairs} train and {args.n_pairs} validation pairs, half equality; "
        f"10 x 10 grid (C, gamma) selected by validation error; {args.n_test} test pairs."
    )
    result = run_figure3(n_pairs=args.n_pairs, n_test=args.n_test, random_state=args.seed,
                         n_jobs=args.n_jobs, progress=not args.no_progress)
    test = result.errors[result.errors["set"] == "test"]
    print()
    print(f"{'model':<8} {'test error':>10} {'FP':>4} {'FN':>4} {'inv':>4} {'C':>9} {'gamma':>9}")
    for row in test.itertuples(index=False):
        print(
            f"{row.model:<8} {row.error_percent:>9.1f}% {row.false_positive:>4} "
            f"{row.false_negative:>4} {row.inversion:>4} {row.C:>9.3g} {row.gamma:>9.3g}"
        )
    print("(FP: equality pair predicted different; FN: difference predicted equal; "
          "inv: difference predicted the wrong way; truth: the latent r with threshold 1)")
    write_figure3(result, out)
    print(f"\nWrote {out / 'figure3.png'}, errors.csv, level_curves.csv and "
          f"validation_grid.csv in {out}/ ({time.perf_counter() - start:.1f} s).")
    return 0


def _reproduce(args):
    from .experiments.reproduce import FIGURES, reproduce

    figures = FIGURES if args.figure == "all" else (args.figure,)
    start = time.perf_counter()
    print(f"Reproducing {', '.join(figures)}{' (quick settings)' if args.quick else ''} "
          f"into {args.out}/ ...")
    reproduce(figures, args.out, quick=args.quick, sushi_path=args.sushi_path,
              chess_path=args.chess_path, n_jobs=args.n_jobs, progress=not args.no_progress,
              log=lambda message: print("\n" + message, flush=True))
    print(f"\nDone in {time.perf_counter() - start:.0f} s. Tables (CSV) and plots (PNG, SVG) "
          f"are in {args.out}/.")
    return 0


def build_parser():
    from .experiments.reproduce import FIGURES

    parser = argparse.ArgumentParser(
        prog="svmcompare",
        description="Learning to compare with ties: support vector comparison machines.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="fit rank, rank2 and compare on simulated data; print errors, plot level curves",
        description=(
            "Fit SVMRank, SVMRank2 and SVMCompare on the paper's simulated ||x||_1^2 pattern "
            "(half equality pairs), select C and gamma on a validation set, print each test "
            "error with its false positive / false negative / inversion split, and write a "
            "PNG of the learned level curves like the paper's Figure 3."
        ),
    )
    demo.add_argument("--out", default="svmcompare-demo",
                      help="output folder (default: %(default)s)")
    demo.add_argument("--n-pairs", type=_positive_int, default=100,
                      help="pairs in the train and validation sets (default: %(default)s)")
    demo.add_argument("--n-test", type=_positive_int, default=10_000,
                      help="pairs in the test set (default: %(default)s)")
    demo.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    demo.add_argument("--n-jobs", type=int, default=None, help="parallel fits (joblib)")
    demo.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    demo.set_defaults(func=_demo)

    rep = sub.add_parser(
        "reproduce",
        help="regenerate the paper's Figures 1-6, the RankSVM tutorial and the sushi ordinal "
             "comparison (tables, plots, paper side by side)",
        description=(
            "Draw the paper's Figures 1 (geometry of pairs) and 2 (hard-margin LP vs QP), and "
            "run its experiments (section 4): Figure 3 (level curves), Figure 4 (test "
            "error vs training pairs, models chosen by validation error) and Figure 5 (test "
            "AUC vs the fraction of ties, models chosen by validation AUC) on the simulated "
            "patterns and the sushi data, and write CSV tables with the paper's numbers beside "
            "ours, and plots. 'tutorial': Ridge vs RankSVM on two query blocks of graded "
            "items, Kendall tau per block. 'ordinal': ordinal regression (OrdinalSVM, "
            "one-vs-rest SVC, SVR, ordered logit) and RankSVM with ties dropped vs kept on "
            "the sushi scores of new people. 'figure6': SVMCompare vs Elo, Glicko and the "
            "trivial model on chess games, with win/draw/loss probabilities. 'all' takes "
            "about 35 minutes on 2 cores."
        ),
    )
    rep.add_argument("figure", choices=[*FIGURES, "all"])
    rep.add_argument("--out", default="svmcompare-reproduction",
                     help="output folder (default: %(default)s)")
    rep.add_argument("--quick", action="store_true",
                     help="5 x 5 grid, n <= 200, 2 seeds, 3 tie fractions: a few minutes")
    rep.add_argument("--sushi-path", default=None,
                     help="folder of Kamishima's sushi3 data (not shipped: its license forbids "
                          "redistribution); default $SVMCOMPARE_SUSHI_PATH, else the sushi "
                          "panel is skipped")
    rep.add_argument("--chess-path", default=None,
                     help="CSV of chess games for Figure 6 (time, white, black, result, or the "
                          "Lichess layout); default $SVMCOMPARE_CHESS_PATH, else Figure 6 is "
                          "skipped")
    rep.add_argument("--n-jobs", type=int, default=None, help="parallel fits (joblib)")
    rep.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    rep.set_defaults(func=_reproduce)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError) as exc:
        print(f"svmcompare {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
