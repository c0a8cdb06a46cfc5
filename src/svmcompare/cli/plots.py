"""Plots of the command line (matplotlib is an optional extra)."""

from __future__ import annotations

from pathlib import Path


def pyplot():
    """matplotlib's pyplot, or a clear error: plots need the optional extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ValueError('--plot needs matplotlib: pip install "svmcompare[experiments]"') from exc
    return plt


def figure_path(path):
    """The file a figure saved at ``path`` goes to: matplotlib gives a path
    without an extension its default format's (roc -> roc.png), so messages
    name that file, not the path as given."""
    path = Path(path)
    if not path.suffix:
        path = path.with_name(f"{path.name}.{pyplot().rcParams['savefig.format']}")
    return path


def plot_evaluation(path, y, score, auc, chance, proba):
    """The comparison ROC with its chance line and, for probabilities, a
    reliability diagram (its points also written as <path>_reliability.csv)."""
    from ..metrics import comparison_roc_curve, reliability_table

    plt = pyplot()
    panels = 1 if proba is None else 2
    fig, axes = plt.subplots(1, panels, figsize=(4.5 * panels, 4.5), squeeze=False)
    ax = axes[0, 0]
    fpr, tpr, _ = comparison_roc_curve(y, score)
    ax.plot(fpr, tpr, drawstyle="steps-post", label="model")
    # A random score finds a difference with the right sign half the time:
    # chance is TPR = FPR / 2 (area 0.25), not the usual diagonal.
    ax.plot([0, 1], [0, 2 * chance], color="0.7", ls="--", label=f"chance (AUC {chance:g})")
    ax.legend(loc="lower right")
    ax.set(xlabel="false positive rate (ties called different)",
           ylabel="true positive rate (differences, right sign)",
           title=f"comparison ROC, AUC {auc:.3f}")
    if proba is not None:
        table = reliability_table(y, proba)
        table.to_csv(Path(path).with_name(Path(path).stem + "_reliability.csv"), index=False)
        ax = axes[0, 1]
        ax.plot([0, 1], [0, 1], color="0.7", ls="--", label="calibrated")
        names = {-1: "x better", 0: "tie", 1: "x' better"}
        for outcome, part in table.groupby("outcome"):
            ax.plot(part["predicted"], part["observed"], marker="o", label=names[outcome])
        ax.legend(loc="upper left")
        ax.set(xlabel="predicted probability", ylabel="observed share",
               title="reliability", xlim=(0, 1), ylim=(0, 1))
    fig.tight_layout()
    path = figure_path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"plot written to {path}" + ("" if proba is None else
                                      " (reliability points in *_reliability.csv)"))
