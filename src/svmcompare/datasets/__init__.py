"""Data sets: simulations made here, real data read from paths (never shipped)."""

from .simulated import latent_rank, make_norm_pairs

__all__ = ["latent_rank", "make_norm_pairs"]
