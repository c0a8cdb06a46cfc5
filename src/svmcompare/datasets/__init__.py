"""Data sets: simulations made here, real data read from paths (never shipped)."""

from .simulated import latent_rank, make_linear_pairs, make_norm_pairs
from .sushi import load_sushi

__all__ = ["latent_rank", "load_sushi", "make_linear_pairs", "make_norm_pairs"]
