from collections.abc import Sequence

from .observation import TrainObservation
from .trains import TrainMove

def choose(
    observation: TrainObservation,
    legal_moves: Sequence[TrainMove],
    *,
    simulations: int = 400,
    seed: int = 0,
) -> tuple[TrainMove, int]:
    """montecarlo's move in a train game: ``simulations`` random playouts shared by the
    legal moves on uniform determinizations; ``(move, new_seed)``.  The same signature as
    ``bones.core.search.choose``."""

def pimc(
    observation: TrainObservation,
    legal_moves: Sequence[TrainMove],
    *,
    samples: int = 1000,
    time_ms: float = 20.0,
    policy: str = "expert",
    seed: int = 0,
    threads: int = 1,
    exact: None = None,
    weights: None = None,
    infer: float = 0.0,
    gate: float = 0.0,
) -> tuple[TrainMove, int, int]:
    """pimc's move in a train game: every legal move played out under ``policy`` on up to
    ``samples`` determinizations within ``time_ms`` ms of CPU time (0: no clock), shared
    out between ``threads``, each weighted by the belief model of sharpness ``infer`` (0:
    all alike); ``(move, new_seed, samples_used)``.  A move other than the policy's own
    (``expert``, ``chain``) only when its paired lead is more than ``gate`` standard
    errors.  The same signature as ``bones.core.search.pimc``; ``exact`` and ``weights``
    do not apply here (ValueError unless None)."""

def gate_statistic(
    lls: Sequence[float],
    utilities: Sequence[Sequence[float]],
    ref: int,
    best: int,
    infer: float = 1.0,
) -> tuple[float, float]:
    """The effective number of samples and ``best``'s lead over ``ref`` in standard
    errors, from the weighted sums pimc's search makes of these samples (for tests)."""
