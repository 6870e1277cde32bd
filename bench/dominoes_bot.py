"""The ``dominoes`` package's (abw333) ``probabilistic_alphabeta`` player as a bones bot,
for 4-player partnership Block: ``bones match pimc dominoes-pab --variant block --players 4
--plugin dominoes_bot`` (run from ``bench/``, or with ``bench`` on ``PYTHONPATH``; needs the
``bench`` extra: ``pip install dominoes``).

The player searches a ``dominoes.Game``; the wrapper builds one from the observation
alone.  A deal consistent with it is drawn by the exact sampler (so the other hands it
puts in the Game are a guess, never the real ones), the moves of the record are replayed
on it (bones' West end is the Game's left end), and the player -- which draws its own
possible hands from the Game's public record -- orders the valid moves; the first is
played.  Before ``start_move`` moves (passes included) the player does nothing, as in the
package, and the wrapper plays the package's first valid move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import bones
from bones.plugins import hookimpl
from bones.variant import Option, at_least

if TYPE_CHECKING:
    from bones.core.moves import Move
    from bones.observation import Observation


class DominoesPAB(bones.Bot):
    """abw333/dominoes ``probabilistic_alphabeta`` (block, 4 players)."""

    name = "dominoes-pab"

    def __init__(self, seed: int = 0, samples: int = 4, start_move: int = 14) -> None:
        super().__init__(seed=seed, samples=samples, start_move=start_move)
        from dominoes.players import probabilistic_alphabeta

        self.player = probabilistic_alphabeta(start_move=start_move, sample_size=samples)

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        import random

        game = game_of(observation, self.rng.getrandbits(64))
        state = random.getstate()
        random.seed(self.rng.getrandbits(64))  # the package draws from the global module
        try:
            self.player(game)
        finally:
            random.setstate(state)
        domino, left = game.valid_moves[0]
        return move_of(domino, left, legal_moves, lead=not observation.layout)


def game_of(observation: Observation, seed: int) -> Any:
    """A ``dominoes.Game`` with the observation's record, on a sampled consistent deal."""
    import dominoes

    if observation.variant != "block" or observation.players != 4:
        raise bones.OptionError("dominoes-pab plays block with 4 players only")
    deal = observation.sample(seed)
    played: list[list[Any]] = [[] for _ in range(4)]
    for event in observation.events:
        if event.kind == "play":
            played[event.seat].append(event.move.tile)
    hands = [dominoes.Hand([domino(t) for t in (*deal.hand(s), *played[s])]) for s in range(4)]
    first = deal.leader
    game = dominoes.Game(dominoes.Board(), hands, [], first, (), first, None)
    game.valid_moves = tuple((d, True) for d in hands[first])
    for event in observation.events:
        if event.kind == "play":
            tile = event.move.tile
            game.make_move(domino(tile), event.move.end != "E")
    if game.turn != observation.seat:
        raise ValueError("the dominoes Game is not at the observation's seat")
    return game


def domino(tile: Any) -> Any:
    import dominoes

    return dominoes.Domino(tile.high, tile.low)


def move_of(d: Any, left: bool, legal: tuple[Move, ...], lead: bool) -> Move:
    """The bones move of the Game's (domino, left): that tile, on W for left and E for
    right (one end when both ends show the same number)."""
    tile = f"{max(d.first, d.second)}-{min(d.first, d.second)}"
    mine = [m for m in legal if m.tile is not None and str(m.tile) == tile]
    if lead or len(mine) == 1:
        return mine[0]
    end = "W" if left else "E"
    return next((m for m in mine if m.end == end), mine[0])


@hookimpl
def register_bots(register: Callable[[bones.BotSpec], None]) -> None:
    register(
        bones.BotSpec(
            "dominoes-pab",
            DominoesPAB,
            "abw333/dominoes probabilistic_alphabeta (block, 4 players)",
            options={
                "samples": Option(
                    "samples", 4, doc="hands sampled per decision", check=at_least(1)
                ),
                "start_move": Option(
                    "start_move", 14, doc="search from this move on", check=at_least(0)
                ),
            },
        )
    )
