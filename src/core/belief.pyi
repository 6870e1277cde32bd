from collections.abc import Sequence

from .round import Round

MAX_BETA: float

def round_log_likelihood(rnd: Round, seat: int, beta: float, weights: Sequence[float]) -> float:
    """The log-probability that the seats other than ``seat`` chose their placements in
    ``rnd`` under the softmax model with sharpness ``beta`` and the expert ``weights``."""
