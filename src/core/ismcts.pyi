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
    threads: int = 1,
) -> tuple[Move, int, int]:
    """ismcts's move after up to ``iterations`` iterations (and ``time_ms`` ms of CPU time;
    0: no clock); returns ``(move, new_seed, iterations_used)``. With ``threads`` > 1 the
    iterations are shared out between that many trees, each on its own thread, and the
    root visits are summed."""
