from typing import Any

from .moves import Move
from .rules import CompiledRules

class VectorCore:
    """The C core of bones.envs.VectorEnv (use that)."""

    n: int
    rules: CompiledRules
    def __init__(
        self, token: object, variant: str, players: int, n: int, seed: int, options: dict[str, Any]
    ) -> None: ...
    def seed(self, seed: int) -> None: ...
    def reset(self, obs: Any, mask: Any, to_play: Any) -> None: ...
    def step(
        self, actions: Any, obs: Any, mask: Any, rewards: Any, dones: Any, to_play: Any
    ) -> None: ...
    def record(self, i: int) -> tuple[list[int], list[int], int, int, list[Move]]: ...
    def random_actions(self, out: Any) -> None: ...

_NEW: object
