"""A bot that looks for the real round in its own process (tests/test_match_external.py).

``t-peek`` walks the garbage collector's objects for a :class:`bones.Round` on which
another seat's hand is visible.  In-process it finds the runner's round (in-process bots
are trusted code: they share the engine's memory); behind ``--isolate`` its process holds
no round at all.  It raises :class:`Peeked` when it sees another hand, which the match
records as its crash.
"""

from __future__ import annotations

import gc

from bones import Round
from bones.bot import Bot, BotSpec
from bones.plugins import hookimpl


class Peeked(RuntimeError):
    """The bot saw a hand that is not its own."""


class PeekBot(Bot):
    """Plays the first legal move, after looking for another seat's hand."""

    name = "t-peek"

    def choose(self, observation, legal_moves):
        for obj in gc.get_objects():
            if isinstance(obj, Round) and not obj.is_partial:
                others = [obj.hand(s) for s in range(obj.players) if s != observation.seat]
                if any(others):
                    raise Peeked(f"saw another hand: {others}")
        return legal_moves[0]


@hookimpl
def register_bots(register):
    register(BotSpec("t-peek", PeekBot, "looks for the real round in its process"))
