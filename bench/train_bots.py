"""The train games' search bots per decision: ``pimc``'s samples per decision at two CPU
budgets, and the CPU time of ``expert`` and ``montecarlo`` (400 simulations).

Positions: 30 per game (2 players; Mexican Train on the core's double-12 with 15 tiles
each, Chicken Foot on double-9 with 13), the position before the 10th move of uniformly
random play from seeds 0 to 29 (or the last one with a choice before it).
Run: ``python bench/train_bots.py`` (docs/bots.md, "Train games").
"""

from __future__ import annotations

import random
import statistics
import time

from bones.core.trainpolicy import choose as expert
from bones.core.trains import TrainRound
from bones.core.trainsearch import choose as montecarlo
from bones.core.trainsearch import pimc


def positions(layout: str) -> list[TrainRound]:
    out = []
    for seed in range(30):
        r = TrainRound.deal(layout, players=2, seed=seed)
        rng = random.Random(seed)
        last = r.copy()
        for _ in range(10):
            if r.is_over:
                break
            if len(r.legal_moves) > 1:
                last = r.copy()
            r.play(rng.choice(r.legal_moves))
        out.append(last)
    return out


def main() -> None:
    for layout in ("trains", "chicken_foot"):
        pos = positions(layout)
        for budget in (5.0, 20.0):
            used = [
                pimc(
                    r.observation(r.to_move),
                    r.legal_moves,
                    samples=10**6,
                    time_ms=budget,
                    seed=1,
                )[2]
                for r in pos
            ]
            print(
                f"{layout}: pimc time_ms={budget:g}: samples/decision median "
                f"{statistics.median(used):g}, min {min(used)}, max {max(used)}"
            )
        for name, fn in (
            ("expert", lambda r: expert(r.observation(r.to_move), r.legal_moves)),
            ("montecarlo", lambda r: montecarlo(r.observation(r.to_move), r.legal_moves, 400, 1)),
        ):
            start = time.process_time()
            for r in pos:
                fn(r)
            ms = (time.process_time() - start) / len(pos) * 1e3
            print(f"{layout}: {name}: {ms:.3f} CPU ms/decision")


if __name__ == "__main__":
    main()
