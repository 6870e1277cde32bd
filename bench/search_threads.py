"""The work per decision of ``pimc`` or ``ismcts`` with several threads: samples (or
iterations) and wall time per decision over the same mid-round positions, one thread count
after the other, twice.

    python bench/search_threads.py                     # pimc, 2-player straight, 1 and 2 threads
    python bench/search_threads.py --bot ismcts
    python bench/search_threads.py --variant kozel --players 4 --threads 1,2,4

The count cap is lifted (``samples=100000`` or ``iterations=100000``) so that the clock,
``time_ms`` per thread, decides; N threads on N free cores should do N times the work in
the same wall time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from strength import positions  # noqa: E402

import bones  # noqa: E402

WORK = {"pimc": ("samples", "last_samples"), "ismcts": ("iterations", "last_iterations")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", choices=sorted(WORK), default="pimc")
    parser.add_argument("--variant", default="straight")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    cap, counter = WORK[args.bot]
    rounds = positions(args.variant, args.players, args.positions)
    counts = [int(t) for t in args.threads.split(",")]
    print(
        f"{args.bot}, {args.variant}, {args.players} players, {len(rounds)} positions, "
        f"{os.cpu_count()} CPUs"
    )
    for threads in counts * 2:
        bot = bones.make_bot(f"{args.bot}:{cap}=100000,threads={threads}", seed=1)
        work, walls = [], []
        for rnd in rounds:
            seat = rnd.to_move
            assert seat is not None
            obs, legal = rnd.observation(seat), tuple(rnd.legal_moves)
            start = time.perf_counter()
            bot.choose(obs, legal)
            walls.append((time.perf_counter() - start) * 1e3)
            work.append(getattr(bot, counter))
        print(
            f"threads {threads}: {statistics.fmean(work):.0f} {cap} per decision, "
            f"{statistics.fmean(walls):.1f} ms wall (max {max(walls):.1f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
