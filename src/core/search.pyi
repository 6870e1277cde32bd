from collections.abc import Sequence

from ..observation import Observation
from .moves import Move

def choose(
    observation: Observation, legal_moves: Sequence[Move], simulations: int, seed: int
) -> tuple[Move, int]:
    """The legal move with the best mean utility over ``simulations`` deals of the hidden
    tiles drawn by the exact sampler, every legal move played out at random on each;
    returns ``(move, new_seed)`` (``seed`` is a 64-bit generator state)."""

POLICIES: dict[str, int]

def pimc(
    observation: Observation,
    legal_moves: Sequence[Move],
    samples: int,
    time_ms: float,
    policy: str,
    exact: int,
    weights: Sequence[float],
    seed: int,
    threads: int = 1,
    infer: float = 0.0,
) -> tuple[Move, int, int]:
    """pimc's move: every legal move played out on each of up to ``samples`` sampled deals
    under ``policy``, or solved by alpha-beta with at most ``exact`` tiles in the hands and
    nothing to draw, the deals shared out between ``threads``, each deal weighted by the
    belief model with sharpness ``infer`` (0: unweighted); returns ``(move, new_seed,
    samples_used)``."""
