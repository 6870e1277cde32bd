from typing import Any

from .trains import TrainMove
from .wideset import SetTile

class TrainVectorCore:
    """The C core of bones.envs.VectorEnv for the train games (use that)."""

    n: int
    def __init__(
        self, token: object, args: dict[str, Any], players: int, n: int, seed: int
    ) -> None: ...
    def seed(self, seed: int) -> None: ...
    def reset(self, obs: Any, mask: Any, to_play: Any) -> None: ...
    def step(
        self, actions: Any, obs: Any, mask: Any, rewards: Any, dones: Any, to_play: Any
    ) -> None: ...
    def record(self, i: int) -> tuple[list[list[SetTile]], list[SetTile], int, list[TrainMove]]: ...
    def random_actions(self, out: Any) -> None: ...

_NEW: object
