from collections.abc import Sequence

from .observation import TrainObservation
from .trains import TrainMove
from .trainsample import TrainSampler

POLICIES: dict[str, int]

def choose(observation: TrainObservation, legal_moves: Sequence[TrainMove]) -> TrainMove:
    """The expert's move: the best-scored legal move in the position the observation
    shows; ties: the first."""

def check_moves(sampler: TrainSampler, legal_moves: Sequence[TrainMove]) -> list[int]: ...
