"""The built-in search bot, registered like a third-party plugin: ``montecarlo``, which
samples the hidden tiles and plays each legal move out in the compiled core."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..bot import Bot, BotSpec
from ..variant import Option
from . import hookimpl

if TYPE_CHECKING:
    from ..core.moves import Move
    from ..observation import Observation

__all__ = ["MonteCarlo", "register_bots"]


class MonteCarlo(Bot):
    """Determinised Monte Carlo: for each of ``simulations`` samples of the unseen tiles
    (hand sizes and known voids respected), every legal move is played out at random to
    the end of the round; the move with the best mean result for its side is chosen."""

    name = "montecarlo"

    def __init__(self, seed: int = 0, simulations: int = 400, **options: Any) -> None:
        super().__init__(seed=seed, simulations=simulations, **options)
        self.simulations = simulations
        self._state = seed & 0xFFFFFFFFFFFFFFFF  # the core's generator, carried between calls

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        from ..core.search import choose

        move, self._state = choose(observation, legal_moves, self.simulations, self._state)
        return move


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


SPEC = BotSpec(
    "montecarlo",
    MonteCarlo,
    "Samples the hidden tiles and plays every legal move out at random in the compiled core",
    options={
        "simulations": Option(
            "simulations",
            400,
            doc="samples per decision, shared by every legal move",
            check=_positive,
            expects="an int >= 1",
        )
    },
)


@hookimpl
def register_bots(register: Callable[[BotSpec], None]) -> None:
    """Register the search bot."""
    register(SPEC)
