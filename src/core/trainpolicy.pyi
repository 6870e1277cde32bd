from collections.abc import Sequence

from ..api import Move, Observation
from .trains import TrainMove
from .trainsample import TrainSampler

POLICIES: dict[str, int]

def choose(
    observation: Observation,
    legal_moves: Sequence[Move],
    *,
    weights: None = None,
    budget: int | None = None,
) -> Move:
    """The planner's move (``planner``, and ``expert`` in the train games) in the position
    the observation shows, its chain searched within ``budget`` nodes (None: the default
    budget).  The same signature as ``bones.core.policy.choose``; ``weights`` do not apply
    here (ValueError unless None)."""

def choose_chain(
    observation: Observation, legal_moves: Sequence[Move], *, budget: int | None = None
) -> Move:
    """The chain heuristic's move (``chain``), its chain searched within ``budget`` nodes
    (None: the default budget)."""

def check_moves(sampler: TrainSampler, legal_moves: Sequence[TrainMove]) -> list[int]: ...
