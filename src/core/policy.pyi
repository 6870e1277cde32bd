from collections.abc import Sequence

from ..observation import Observation
from .moves import Move

FIELDS: tuple[str, ...]

def choose(
    observation: Observation,
    legal_moves: Sequence[Move],
    *,
    weights: Sequence[float] | None = None,
    budget: None = None,
) -> Move:
    """The expert's move: the legal move of the best weighted value (``weights`` in
    ``FIELDS`` order, needed), from the observation alone.  The same signature as
    ``bones.core.trainpolicy.choose``; ``budget`` does not apply here (ValueError unless
    None)."""
