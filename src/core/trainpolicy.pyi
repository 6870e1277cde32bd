from collections.abc import Sequence

from .observation import TrainObservation
from .trains import TrainMove
from .trainsample import TrainSampler

POLICIES: dict[str, int]

def choose(
    observation: TrainObservation,
    legal_moves: Sequence[TrainMove],
    *,
    weights: None = None,
    budget: int | None = None,
) -> TrainMove:
    """The planner's move (``planner``, and ``expert`` in the train games) in the position
    the observation shows, its chain searched within ``budget`` nodes (None: the default
    budget).  The same signature as ``bones.core.policy.choose``; ``weights`` do not apply
    here (ValueError unless None)."""

def choose_chain(
    observation: TrainObservation, legal_moves: Sequence[TrainMove], *, budget: int | None = None
) -> TrainMove:
    """The chain heuristic's move (``chain``), its chain searched within ``budget`` nodes
    (None: the default budget)."""

def check_moves(sampler: TrainSampler, legal_moves: Sequence[TrainMove]) -> list[int]: ...
