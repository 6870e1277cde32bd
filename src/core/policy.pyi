from collections.abc import Sequence

from ..observation import Observation
from .moves import Move

FIELDS: tuple[str, ...]

def choose(observation: Observation, legal_moves: Sequence[Move], weights: Sequence[float]) -> Move:
    """The expert's move: the legal move of the best weighted value (``weights`` in
    ``FIELDS`` order), from the observation alone."""
