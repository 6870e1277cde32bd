"""pimc's work per decision with several threads: samples and wall time per decision over
the same mid-round positions, one thread count after the other, twice.

    python bench/pimc_threads.py                       # 2-player straight, 1 and 2 threads
    python bench/pimc_threads.py --variant kozel --players 4 --threads 1,2,4

The sample cap is lifted (``samples=100000``) so that the clock, ``time_ms`` per thread,
decides; N threads on N free cores should play N times the samples in the same wall time.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="straight")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    rounds = positions(args.variant, args.players, args.positions)
    counts = [int(t) for t in args.threads.split(",")]
    print(f"{args.variant}, {args.players} players, {len(rounds)} positions, {os.cpu_count()} CPUs")
    for threads in counts * 2:
        bot = bones.make_bot(f"pimc:samples=100000,threads={threads}", seed=1)
        samples, walls = [], []
        for rnd in rounds:
            seat = rnd.to_move
            assert seat is not None
            obs, legal = rnd.observation(seat), tuple(rnd.legal_moves)
            start = time.perf_counter()
            bot.choose(obs, legal)
            walls.append((time.perf_counter() - start) * 1e3)
            samples.append(bot.last_samples)
        print(
            f"threads {threads}: {statistics.fmean(samples):.0f} samples per decision, "
            f"{statistics.fmean(walls):.1f} ms wall (max {max(walls):.1f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
