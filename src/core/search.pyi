from collections.abc import Sequence

from ..observation import Observation
from .moves import Move

POLICIES: dict[str, int]
#: pimc's ``exact`` when none is given
EXACT: int

def choose(
    observation: Observation, legal_moves: Sequence[Move], *, simulations: int = 400, seed: int = 0
) -> tuple[Move, int]:
    """montecarlo's move: the legal move with the best mean utility over ``simulations``
    playouts in all on deals of the hidden tiles drawn by the exact sampler, every legal
    move played out at random on each; returns ``(move, new_seed)`` (``seed`` is a 64-bit
    generator state).  The same signature as ``bones.core.trainsearch.choose``."""

def pimc(
    observation: Observation,
    legal_moves: Sequence[Move],
    *,
    samples: int = 1000,
    time_ms: float = 20.0,
    policy: str = "expert",
    seed: int = 0,
    threads: int = 1,
    exact: int | None = None,
    weights: Sequence[float] | None = None,
    infer: float = 0.0,
    gate: float = 0.0,
) -> tuple[Move, int, int]:
    """pimc's move: every legal move played out on each of up to ``samples`` sampled deals
    under ``policy``, or solved by alpha-beta with at most ``exact`` tiles (None:
    :data:`EXACT`) in the hands and nothing to draw, the deals shared out between
    ``threads``, each deal weighted by the belief model with sharpness ``infer`` (0:
    unweighted), the expert's own move kept unless another leads it by more than ``gate``
    standard errors (0: the best mean); ``weights`` (the expert's, ``FIELDS`` order) are
    needed for policy ``expert``, ``infer`` > 0 or ``gate`` > 0.  Returns ``(move,
    new_seed, samples_used)``.  The same signature as ``bones.core.trainsearch.pimc``."""
