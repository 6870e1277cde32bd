"""Two bots head to head in a train game, on duplicate deals, one round per deal: the
strength figures of docs/strength.md ("The train games").

    python bench/train_strength.py pimc chain --variant mexican-train --players 4 --deals 200

Deal k (``--seed`` s) is ``TrainRound.deal`` from seed ``s * 1_000_003 + k``, its engine
the set's doubles in turn from the highest (as the rounds of a game), its leader seat
``k % players``.  It is played twice: bot A in the even seats and bot B in the odd ones,
then swapped (at 2 seats, A-B then B-A).  A round's winners are the seats with the lowest
penalty (the seat that went out, or the lowest hands of a blocked round); A's score in a
round is its share of the winners, and a deal's score the mean of its two rounds.  The
score's 95% interval is Student's t over the deals' scores (``bones.match.stats``, as
``bones match`` computes it: the deals are independent; the two rounds of one deal are
not), and so is the margin's (``mean_interval``): B's mean penalty less A's, in pips per
seat and round.  CPU milliseconds per decision
are each bot's own ``time.process_time`` around its ``choose``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from typing import Any

import bones
from bones.bot import Bot, make_bot
from bones.core.referee import play_round
from bones.core.trains import TrainRound
from bones.match.stats import estimate_samples, mean_interval

LAYOUTS = {"mexican-train": ("trains", 12), "chicken-foot": ("chicken_foot", 9)}


class Timed(Bot):
    """Plays as ``inner``, adding the CPU time of each decision to ``seconds``."""

    name = "timed"

    def __init__(self, inner: Bot) -> None:
        super().__init__(seed=0)
        self.inner = inner
        self.seconds = 0.0
        self.decisions = 0

    def choose(self, observation: Any, legal_moves: Any) -> Any:
        start = time.process_time()
        move = self.inner.choose(observation, legal_moves)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return move


def play_deal(
    variant: str, players: int, k: int, seed: int, bots: tuple[Timed, Timed]
) -> tuple[float, float]:
    """A's score and B's penalty margin (pips per seat) on deal k, both seatings."""
    layout, set_max = LAYOUTS[variant]
    scores, margins = [], []
    for swap in (0, 1):
        rnd = TrainRound.deal(
            layout,
            set_max=set_max,
            players=players,
            engine=set_max - k % (set_max + 1),
            leader=k % players,
            seed=seed * 1_000_003 + k,
        )
        seats = [bots[(seat + swap) % 2] for seat in range(players)]
        play_round(rnd, seats)
        penalty = [rnd.hand_pips(seat) for seat in range(players)]
        low = min(penalty)
        winners = [seat for seat in range(players) if penalty[seat] == low]
        a_seats = [seat for seat in range(players) if (seat + swap) % 2 == 0]
        b_seats = [seat for seat in range(players) if (seat + swap) % 2 == 1]
        scores.append(sum(seat in a_seats for seat in winners) / len(winners))
        margins.append(
            statistics.fmean(penalty[s] for s in b_seats)
            - statistics.fmean(penalty[s] for s in a_seats)
        )
    return statistics.fmean(scores), statistics.fmean(margins)


def run(a: str, b: str, variant: str, players: int, deals: int, seed: int) -> dict[str, Any]:
    bots = (Timed(make_bot(a, seed=1)), Timed(make_bot(b, seed=2)))
    scores, margins = [], []
    for k in range(deals):
        score, margin = play_deal(variant, players, k, seed, bots)
        scores.append(score)
        margins.append(margin)
    e = estimate_samples(scores)
    return {
        "a": a,
        "b": b,
        "variant": variant,
        "players": players,
        "deals": deals,
        "seed": seed,
        "score": (e.score, e.score_lo, e.score_hi),
        "margin": mean_interval(margins),
        "ms": [1e3 * bot.seconds / max(1, bot.decisions) for bot in bots],
        "bones": bones.__version__,
    }


def line(result: dict[str, Any]) -> str:
    score, lo, hi = (100 * x for x in result["score"])
    margin, mlo, mhi = result["margin"]
    ms_a, ms_b = result["ms"]
    # NaN: every deal scored the same (bones.match.stats.estimate)
    interval = f"[{lo:.1f}, {hi:.1f}]" if math.isfinite(lo) else "[n/a: every deal the same]"
    return (
        f"{result['variant']} {result['players']}p, {result['deals']} deals: "
        f"{result['a']} vs {result['b']}: score {score:.1f}% {interval}, "
        f"margin {margin:+.2f} pips [{mlo:+.2f}, {mhi:+.2f}], "
        f"CPU ms/decision {ms_a:.3f} vs {ms_b:.3f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="bot A's spec")
    parser.add_argument("b", help="bot B's spec")
    parser.add_argument("--variant", choices=sorted(LAYOUTS), default="mexican-train")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="append the result as one JSON line to this file")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be at least 2 (an interval needs two deals)")
    result = run(args.a, args.b, args.variant, args.players, args.deals, args.seed)
    print(line(result), flush=True)
    if args.json:
        with open(args.json, "a") as out:
            out.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
