"""svmcompare: learning to compare with ties, by support vector comparison machines."""

from ._pairs import make_pairs
from .compare import NoRankingError, SVMCompare
from .rank import SVMRank, SVMRank2

__version__ = "0.1.0"

__all__ = ["NoRankingError", "SVMCompare", "SVMRank", "SVMRank2", "make_pairs", "__version__"]
