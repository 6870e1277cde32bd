from collections.abc import Sequence

from .observation import TrainObservation
from .trains import TrainMove

def choose(
    observation: TrainObservation,
    legal_moves: Sequence[TrainMove],
    *,
    iterations: int = 1000,
    time_ms: float = 20.0,
    policy: str = "expert",
    c: float = 0.7,
    seed: int = 0,
    threads: int = 1,
    weights: None = None,
) -> tuple[TrainMove, int, int]:
    """ismcts's move in a train game: one tree over the seat's information set (one per
    thread with ``threads`` > 1, their root visits summed), up to ``iterations``
    iterations on uniform determinizations within ``time_ms`` ms of CPU time (0: no
    clock); ``(move, new_seed, iterations_used)``.  The same signature as
    ``bones.core.ismcts.choose``; ``weights`` do not apply here (ValueError unless None)."""
