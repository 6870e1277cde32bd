from collections.abc import Sequence

from ..observation import Observation
from .moves import Move

def choose(
    observation: Observation, legal_moves: Sequence[Move], simulations: int, seed: int
) -> tuple[Move, int]:
    """The legal move with the best mean utility over ``simulations`` deals of the hidden
    tiles drawn by the exact sampler, every legal move played out at random on each;
    returns ``(move, new_seed)`` (``seed`` is a 64-bit generator state)."""
