"""A cheating bot, as a bones plugin (tests/test_fair_play.py).

``t-cheat`` tries to recover the deal from its own seed: the runner gave a bot whose spec
names no seed ``derive(game seed, 4, seat)`` (splitmix64 three times), and splitmix64 is
invertible.  It inverts the derivation and deals the game again from each candidate seed.

A candidate is only a suspect when it deals the bot's own hand: with keyed seeds a wrong
candidate does that about once in 98,000 tries (a 5-tile hand of 28 tiles), and a match
makes hundreds of tries.  So the bot *confirms* a suspect before it claims the deal: it
replays every move of the round (its own and the other seats') on the suspect's deal, and
at the end of the round the suspect must give the bot exactly the observation it was
given (its hand with every tile it drew from the stock, in order, the layout, the hand
sizes, the events) and exactly the round's result (every seat's pips left).  A wrong
deal that passes all of that would have to hold the tiles every other seat played, in a
legal order, and leave each seat the same pips: that does not happen by chance.

A confirmed deal means the bot knew every hand and the order of the stock from its
first move on; it then raises :class:`Cheated` (so the match records it as a crash that
says "cheated"), which is how the tests count the rounds it saw through.
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
        self.suspects = []
        self.rounds = 0

    def start_round(self, observation):
        """The suspects: each candidate game whose first deal gives this seat the hand
        it holds."""
        self.suspects = []
        self.rounds += 1
        if self.rounds > 1:  # a later round's deal needs the earlier ones: the first will do
            return
        variant, players, options = self.game
        mine = sorted(str(t) for t in observation.hand)
        for seed in game_seeds(self.seed, self.seat):
            if seed >= 1 << 63:
                continue
            rnd = bones.new_game(variant, players, seed, **options).round
            if sorted(str(t) for t in rnd.hand(self.seat)) == mine:
                self.suspects.append((seed, rnd.copy(), rnd))

    def end_round(self, result, observation):
        """Confirm each suspect: the round's moves replayed on its deal give this seat
        the same observation and the round the same result."""
        moves = [e.move for e in observation.events if e.move is not None]
        for seed, start, rnd in self.suspects:
            try:
                for move in moves:
                    rnd.play(move)
            except Exception:  # noqa: BLE001  (an illegal move on this deal: not it)
                continue
            if rnd.observation(self.seat) == observation and rnd.result == result:
                hands = [" ".join(map(str, start.hand(s))) for s in range(start.players)]
                raise Cheated(
                    f"cheated, confirmed by the {len(moves)} moves of the round: game seed "
                    f"{seed}; hands {hands}; stock {start.stock}"
                )
        self.suspects = []

    def choose(self, observation, legal_moves):
        return legal_moves[0]


@hookimpl
def register_bots(register):
    register(BotSpec("t-cheat", CheatBot, "tries to recover the deal from its seed"))
