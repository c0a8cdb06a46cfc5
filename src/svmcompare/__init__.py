"""svmcompare: learning to compare with ties, by support vector comparison machines."""

from ._pairs import make_pairs
from .compare import NoRankingError, SVMCompare
from .compare_lp import SVMCompareLP
from .hard_margin import HardMarginLP, HardMarginQP, NotSeparableError
from .model_selection import SVMCompareCV
from .pairwise import pairwise_transform
from .persistence import load_model, save_model
from .rank import SVMRank, SVMRank2
from .ranking import OrdinalSVM, RankSVM

__version__ = "0.1.0"

__all__ = [
    "HardMarginLP",
    "HardMarginQP",
    "NotSeparableError",
    "OrdinalSVM",
    "RankSVM",
    "NoRankingError",
    "SVMCompare",
    "SVMCompareCV",
    "SVMCompareLP",
    "SVMRank",
    "SVMRank2",
    "load_model",
    "make_pairs",
    "pairwise_transform",
    "save_model",
    "__version__",
]
