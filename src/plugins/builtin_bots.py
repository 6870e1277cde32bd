"""The built-in baseline bots, registered like a third-party plugin: ``random``,
``heaviest`` and ``greedy``.  Each plays every variant and every player count."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..bot import Bot, BotSpec, move_weight
from . import hookimpl

if TYPE_CHECKING:
    from ..api import Move, Observation

__all__ = ["BUILTIN_BOTS", "Greedy", "Heaviest", "RandomBot", "register_bots"]


class RandomBot(Bot):
    """Uniform over the legal moves, from its own ``random.Random(seed)``."""

    name = "random"

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        return self.rng.choice(legal_moves)


class Heaviest(Bot):
    """The placement with the most pips (a double-double counts both tiles); ties: the
    first in legal order; a draw or a pass only when nothing else is legal."""

    name = "heaviest"

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        return max(legal_moves, key=move_weight)  # max() keeps the first of equals


class Greedy(Bot):
    """The most points scored now (``observation.points_after``), ties by weight (pips
    placed), then the first in legal order.  A draw or a pass scores nothing and weighs
    -1, so it is chosen only when nothing else is legal."""

    name = "greedy"

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        if len(legal_moves) == 1:
            return legal_moves[0]
        points_after = observation.points_after
        best = legal_moves[0]
        best_key = (points_after(best), move_weight(best))
        for move in legal_moves[1:]:
            key = (points_after(move), move_weight(move))
            if key > best_key:  # strictly better: the first of equals is kept
                best, best_key = move, key
        return best


#: The built-in bots, in registration order.
BUILTIN_BOTS = (
    BotSpec("random", RandomBot, "Uniform over the legal moves (its own seeded generator)"),
    BotSpec(
        "heaviest",
        Heaviest,
        "The heaviest placement (a double-double counts both tiles); ties: first legal",
    ),
    BotSpec(
        "greedy",
        Greedy,
        "The most points scored now, ties by weight then legal order",
    ),
)


@hookimpl
def register_bots(register: Callable[[BotSpec], None]) -> None:
    """Register the three built-in bots."""
    for spec in BUILTIN_BOTS:
        register(spec)
