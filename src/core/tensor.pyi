from typing import Any

from .rules import CompiledRules

class TensorSpec:
    """The layout of one seat's observation tensor (docs/envs.md)."""

    rules: CompiledRules
    def __init__(self, variant: str, players: int = 2, **options: Any) -> None: ...
    @property
    def size(self) -> int: ...
    @property
    def planes(self) -> tuple[tuple[str, int, tuple[int, ...]], ...]: ...
