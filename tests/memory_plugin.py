"""A deal-remembering bot, as a bones plugin (tests/test_fairness_monitor.py).

``t-memory`` keeps, in its worker process, what it saw of every round it played: its own
hand and the tiles each other seat played.  At the start of a round it recognises a deal
it has played before: its hand is one it held, or it holds every tile (four or more)
that some seat played in a remembered round -- in a block game a seat plays only from
its hand, so in the seat-swapped replay of a deal the bot holds what its opponent
played.  On a deal it has seen it plays as ``expert`` does; on a
new one it plays at random.  No sandbox can stop such a bot; the fairness monitor must flag it.
"""

from __future__ import annotations

import random

from bones.bot import Bot, BotSpec, make_bot
from bones.plugins import hookimpl

#: What the bot saw, per round played in this process: (its hand, the tile sets played
#: by each other seat).
SEEN: list[tuple[frozenset[str], list[frozenset[str]]]] = []


#: The rounds remembered (the last ones: the games of a deal are played close together).
MEMORY = 1024


def _known(hand: frozenset[str]) -> bool:
    return any(
        hand == mine or any(len(theirs) >= 4 and theirs <= hand for theirs in others)
        for mine, others in SEEN
    )


class MemoryBot(Bot):
    name = "t-memory"

    def __init__(self, seed: int = 0, **options):
        super().__init__(seed, **options)
        self.rng = random.Random(seed)
        self.strong = make_bot("expert", seed=seed)
        self.known = False
        self.hand: frozenset[str] = frozenset()

    def start_game(self, seat, variant, players, options):
        self.seat = seat
        self.players = players

    def start_round(self, observation):
        self.hand = frozenset(str(t) for t in observation.hand)
        self.known = _known(self.hand)

    def choose(self, observation, legal_moves):
        if self.known:
            return self.strong.choose(observation, legal_moves)
        return legal_moves[self.rng.randrange(len(legal_moves))]

    def end_round(self, result, observation):
        played: list[set[str]] = [set() for _ in range(self.players)]
        for event in observation.events:
            if event.move is not None and event.move.tile is not None:
                played[event.seat].add(str(event.move.tile))
        others = [frozenset(p) for s, p in enumerate(played) if s != self.seat]
        SEEN.append((self.hand, others))
        del SEEN[:-MEMORY]


@hookimpl
def register_bots(register):
    register(BotSpec("t-memory", MemoryBot, "plays well on the deals it remembers"))
