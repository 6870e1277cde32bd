"""Two bots head to head in a train game, on duplicate deals, one round per deal: the
strength figures of docs/strength.md ("The train games").

    python bench/train_strength.py pimc chain --variant mexican-train --players 4 --deals 200
    python bench/train_strength.py pimc:infer=0.05 chain --deals 400 --seed 54 --paired pimc

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
are each bot's own ``time.process_time`` around its ``choose``.  ``--paired C`` also plays
C against B on the same deals and gives A's score and margin less C's, deal by deal,
with their intervals: two versions of a bot told apart with far fewer deals than two
separate intervals need.
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
    rows = [play_deal(variant, players, k, seed, bots) for k in range(deals)]
    scores = [score for score, _ in rows]
    e = estimate_samples(scores)
    return {
        "a": a,
        "b": b,
        "variant": variant,
        "players": players,
        "deals": deals,
        "seed": seed,
        "score": (e.score, e.score_lo, e.score_hi),
        "margin": mean_interval([margin for _, margin in rows]),
        "ms": [1e3 * bot.seconds / max(1, bot.decisions) for bot in bots],
        "bones": bones.__version__,
        "rows": rows,
    }


def paired(result: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """A's score and margin less ``other``'s A's, deal by deal (the same deals and B):
    the means and their 95% intervals (Student's t over the deals)."""
    pairs = list(zip(result["rows"], other["rows"], strict=True))
    return {
        "a": result["a"],
        "other": other["a"],
        "score": mean_interval([x[0] - y[0] for x, y in pairs]),
        "margin": mean_interval([x[1] - y[1] for x, y in pairs]),
    }


def paired_line(diff: dict[str, Any]) -> str:
    score, lo, hi = (100 * x for x in diff["score"])
    margin, mlo, mhi = diff["margin"]
    return (
        f"{diff['a']} less {diff['other']}, deal by deal: score {score:+.1f} points "
        f"[{lo:+.1f}, {hi:+.1f}], margin {margin:+.2f} pips [{mlo:+.2f}, {mhi:+.2f}]"
    )


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
    parser.add_argument(
        "--paired",
        metavar="SPEC",
        help="also play this bot against B on the same deals and give A's lead over it, "
        "deal by deal",
    )
    parser.add_argument("--json", help="append the result as one JSON line to this file")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be at least 2 (an interval needs two deals)")
    result = run(args.a, args.b, args.variant, args.players, args.deals, args.seed)
    print(line(result), flush=True)
    if args.paired:
        other = run(args.paired, args.b, args.variant, args.players, args.deals, args.seed)
        print(line(other), flush=True)
        result["paired"] = paired(result, other)
        print(paired_line(result["paired"]), flush=True)
    if args.json:
        with open(args.json, "a") as out:
            out.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
