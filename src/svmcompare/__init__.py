"""svmcompare: learning to compare with ties, by support vector comparison machines.

The public names are loaded on first use (PEP 562), so that ``import
svmcompare`` and the command line's ``--help`` do not pay for scikit-learn,
numba and pandas until a model is built.
"""

from ._lazy import lazy_exports

__version__ = "0.7.0"

# public name -> the module that defines it
_EXPORTS = {
    "BootstrapCompare": ".bootstrap",
    "HardMarginLP": ".hard_margin",
    "HardMarginQP": ".hard_margin",
    "NotSeparableError": ".exceptions",
    "OrdinalSVM": ".graded",
    "GroupRankSVM": ".graded",
    "NoRankingError": ".exceptions",
    "SVMCompare": ".compare",
    "SVMCompareCV": ".model_selection",
    "SVMCompareLP": ".compare_lp",
    "SVMRank": ".baselines",
    "SVMRank2": ".baselines",
    "load_model": ".persistence",
    "make_pairs": ".pairs",
    "matches_from_rankings": ".pairs",
    "pairs_from_frame": ".pairs",
    "pairwise_transform": ".pairs",
    "plot_rating_paths": ".temporal",
    "rolling_fit": ".temporal",
    "save_model": ".persistence",
    "time_decay": ".temporal",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


__getattr__ = lazy_exports(__name__, globals(), _EXPORTS)


def __dir__():
    return sorted({*globals(), *__all__})
