from collections.abc import Sequence

from .observation import TrainObservation
from .trains import TrainMove

def choose(
    observation: TrainObservation, legal_moves: Sequence[TrainMove], simulations: int, seed: int
) -> tuple[TrainMove, int]:
    """montecarlo's move in a train game: ``simulations`` random playouts shared by the
    legal moves on uniform determinizations; ``(move, new_seed)``."""

def pimc(
    observation: TrainObservation,
    legal_moves: Sequence[TrainMove],
    samples: int,
    time_ms: float,
    policy: str,
    seed: int,
    gate: float = 0.0,
    infer: float = 0.0,
) -> tuple[TrainMove, int, int]:
    """pimc's move in a train game: every legal move played out under ``policy`` on up to
    ``samples`` determinizations within ``time_ms`` ms of CPU time (0: no clock), each
    weighted by the belief model of sharpness ``infer`` (0: all alike);
    ``(move, new_seed, samples_used)``.  A move other than the policy's own (``expert``,
    ``chain``) only when its paired lead is more than ``gate`` standard errors."""

def gate_statistic(
    lls: Sequence[float],
    utilities: Sequence[Sequence[float]],
    ref: int,
    best: int,
    infer: float = 1.0,
) -> tuple[float, float]:
    """The effective number of samples and ``best``'s lead over ``ref`` in standard
    errors, from the weighted sums pimc's search makes of these samples (for tests)."""
