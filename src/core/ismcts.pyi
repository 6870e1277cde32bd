from collections.abc import Sequence

from ..observation import Observation
from .moves import Move

def choose(
    observation: Observation,
    legal_moves: Sequence[Move],
    iterations: int,
    time_ms: float,
    policy: str,
    c: float,
    weights: Sequence[float],
    seed: int,
) -> tuple[Move, int, int]:
    """ismcts's move after up to ``iterations`` iterations (and ``time_ms`` ms; 0: no
    clock); returns ``(move, new_seed, iterations_used)``."""
