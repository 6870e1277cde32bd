from collections.abc import Sequence

from ..observation import Observation
from .moves import Move

def choose(
    observation: Observation,
    legal_moves: Sequence[Move],
    *,
    iterations: int = 1000,
    time_ms: float = 20.0,
    policy: str = "expert",
    c: float = 0.7,
    seed: int = 0,
    threads: int = 1,
    weights: Sequence[float] | None = None,
) -> tuple[Move, int, int]:
    """ismcts's move after up to ``iterations`` iterations (and ``time_ms`` ms of CPU time;
    0: no clock), playouts under ``policy`` (the expert's with ``weights``, needed for
    it); returns ``(move, new_seed, iterations_used)``. With ``threads`` > 1 the
    iterations are shared out between that many trees, each on its own thread, and the
    root visits are summed.  The same signature as ``bones.core.trainismcts.choose``."""
