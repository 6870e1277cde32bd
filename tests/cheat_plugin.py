"""A cheating bot, as a bones plugin (tests/test_fair_play.py).

``t-cheat`` tries to recover the deal from its own seed: the runner gave a bot whose spec
names no seed ``derive(game seed, 4, seat)`` (splitmix64 three times), and splitmix64 is
invertible.  It inverts the derivation, deals the game again from each candidate seed and
compares the hand with its own.  When it recognises the deal it knows every hand and the
order of the stock; it then raises :class:`Cheated` (so the match records it as a crash
that says "cheated"), which is how the tests count the rounds it saw through.
"""

from __future__ import annotations

import bones
from bones.bot import Bot, BotSpec
from bones.plugins import hookimpl

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
C1 = 0xBF58476D1CE4E5B9
C2 = 0x94D049BB133111EB


def _unxorshift(y: int, shift: int) -> int:
    x = y
    for _ in range(64 // shift + 1):
        x = y ^ (x >> shift)
    return x & MASK


def unsplitmix64(z: int) -> int:
    """The inverse of ``bones.game.splitmix64``."""
    z = _unxorshift(z, 31)
    z = (z * pow(C2, -1, 1 << 64)) & MASK
    z = _unxorshift(z, 27)
    z = (z * pow(C1, -1, 1 << 64)) & MASK
    z = _unxorshift(z, 30)
    return (z - GOLDEN) & MASK


def game_seeds(bot_seed: int, seat: int) -> list[int]:
    """The game seeds whose ``derive(seed, 4, seat)`` is ``bot_seed`` (the dropped low
    bit gives two candidates)."""
    out = []
    for low in (0, 1):
        x = unsplitmix64(((bot_seed << 1) | low) & MASK) ^ seat
        x = unsplitmix64(x) ^ 4
        out.append(unsplitmix64(x))
    return out


class Cheated(RuntimeError):
    """The bot recovered the deal."""


class CheatBot(Bot):
    """Plays the first legal move, after trying to see through the deal."""

    name = "t-cheat"

    def start_game(self, seat, variant, players, options):
        self.seat = seat
        self.game = (variant, players, dict(options))

    def start_round(self, observation):
        variant, players, options = self.game
        mine = sorted(str(t) for t in observation.hand)
        for seed in game_seeds(self.seed, self.seat):
            if seed >= 1 << 63:
                continue
            game = bones.new_game(variant, players, seed, **options)
            if sorted(str(t) for t in game.round.hand(self.seat)) == mine:
                rnd = game.round
                hands = [" ".join(map(str, rnd.hand(s))) for s in range(players)]
                raise Cheated(f"cheated: game seed {seed}; hands {hands}; stock {rnd.stock}")

    def choose(self, observation, legal_moves):
        return legal_moves[0]


@hookimpl
def register_bots(register):
    register(BotSpec("t-cheat", CheatBot, "tries to recover the deal from its seed"))
