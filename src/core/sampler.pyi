import random

from ..observation import Observation
from .round import Round
from .rules import CompiledRules

class DealSampler:
    """Uniform sampler of the hidden deals behind one seat's view of a round."""

    rules: CompiledRules
    seat: int
    opening: bool
    options: dict[str, object]
    def __init__(
        self, source: Observation | Round, seat: int | None = None, *, opening: bool | None = None
    ) -> None: ...
    @property
    def count(self) -> int:
        """Full deals (hands at the deal, boneyard order) consistent with the record."""
    @property
    def exact(self) -> bool:
        """True when no rejection step is needed."""
    @property
    def acceptance(self) -> float:
        """Samples kept / samples drawn so far."""
    @property
    def groups(self) -> list[tuple[int, int, int]]:
        """The hidden groups: (holder, time, capacity)."""
    def sample(self, rng: int | random.Random = 0) -> Round: ...
    def samples(self, n: int, rng: int | random.Random = 0) -> list[Round]: ...
    def run(self, n: int, rng: int | random.Random = 0) -> int: ...

def sample_round(
    source: Observation | Round,
    rng: int | random.Random = 0,
    *,
    seat: int | None = None,
    opening: bool | None = None,
) -> Round:
    """A round drawn uniformly among the full deals consistent with what the seat sees."""

def count_deals(
    source: Observation | Round, *, seat: int | None = None, opening: bool | None = None
) -> int:
    """How many full deals are consistent with what the seat sees."""
