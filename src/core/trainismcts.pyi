from collections.abc import Sequence

from .observation import TrainObservation
from .trains import TrainMove

def choose(
    observation: TrainObservation,
    legal_moves: Sequence[TrainMove],
    iterations: int,
    time_ms: float,
    policy: str,
    c: float,
    seed: int,
) -> tuple[TrainMove, int, int]:
    """ismcts's move in a train game: one tree over the seat's information set, up to
    ``iterations`` iterations on uniform determinizations within ``time_ms`` ms of CPU time
    (0: no clock); ``(move, new_seed, iterations_used)``."""
