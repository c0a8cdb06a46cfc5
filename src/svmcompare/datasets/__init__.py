"""Data sets: simulations made here, real data read from paths (never shipped)."""

from .chess import chess_features, load_chess_games
from .games import GAME_FEATURES, POINTS_FEATURES, games_features
from .league import make_league
from .simulated import latent_rank, make_graded_blocks, make_linear_pairs, make_norm_pairs
from .sushi import load_sushi, load_sushi_scores

__all__ = ["GAME_FEATURES", "POINTS_FEATURES", "chess_features", "games_features", "latent_rank",
           "load_chess_games", "load_sushi", "load_sushi_scores", "make_graded_blocks",
           "make_league", "make_linear_pairs", "make_norm_pairs"]
