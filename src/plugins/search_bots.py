"""The built-in search bot, registered like a third-party plugin: ``montecarlo``, which
samples the hidden tiles and plays each legal move out in the compiled core.

The playouts run in the compiled core, which scores moves with the core's own rules: a
variant whose moves are scored by a Python ``move_scorer`` would be searched with the
wrong scores, so ``montecarlo`` refuses such a variant (:class:`~bones.OptionError`
naming it, from ``start_game`` and from ``choose``) instead of playing it badly."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..bot import Bot, BotSpec
from ..errors import OptionError
from ..registry import variant as lookup_variant
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

    def start_game(self, seat: int, variant: str, players: int, options: dict[str, Any]) -> None:
        check_searchable(variant)

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        from ..core.search import choose

        check_searchable(observation.variant)
        move, self._state = choose(observation, legal_moves, self.simulations, self._state)
        return move


def check_searchable(variant: str) -> None:
    """:class:`OptionError` unless the compiled playouts score ``variant`` as it is
    played: a variant with a Python ``move_scorer`` is refused, naming it."""
    if lookup_variant(variant).move_scorer is not None:  # a dict look-up: cheap per move
        raise OptionError(
            f"montecarlo cannot play {variant!r}: its moves are scored by a Python "
            "move_scorer, which the compiled playouts do not run (they would search with "
            "the core's own scores)"
        )


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
