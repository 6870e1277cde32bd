"""The train games' exact sampler: how it draws (``method``: the exact table, rejection
from a relaxed table, or the uniform fallback) and what building it costs (the CPU time
of ``TrainSampler(observation)`` in the calling thread, which is what the search bots'
``time_ms`` counts, and its wall time), over every position of whole rounds where the
mover is the observer.

Rounds: seeds 0 to 5, each position of a round played by the heaviest-tile rule (ties:
the first legal move); the variants' standard hands.
Run: ``python bench/train_sampler.py`` (docs/sampler.md, "The train games");
``--slowest N`` lists each game's N slowest builds (seed, events, method, table
nodes, CPU ms; a position is named by its seed and its log events).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bones.core.trains import TrainRound
from bones.core.trainsample import TrainSampler

GAMES = [("trains", 12, 2), ("trains", 12, 4), ("trains", 12, 8), ("chicken_foot", 9, 2),
         ("chicken_foot", 9, 4), ("chicken_foot", 9, 8)]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slowest", type=int, default=0, metavar="N",
                        help="list each game's N slowest builds")  # fmt: skip
    slowest = parser.parse_args().slowest
    if slowest < 0:
        parser.error("--slowest takes a count >= 0")
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    print(
        "| game | positions | exact | rejection | uniform | median ms | p90 ms | max ms "
        "| max wall ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for layout, set_max, players in GAMES:
        times = []
        walls = []
        methods = {"exact": 0, "rejection": 0, "uniform": 0}
        builds = []
        for seed in range(6):
            r = TrainRound.deal(layout, set_max=set_max, players=players, seed=seed)
            while not r.is_over:
                obs = r.observation(r.to_move)
                w0 = time.perf_counter()
                t0 = time.thread_time()
                sampler = TrainSampler(obs)
                times.append(time.thread_time() - t0)
                walls.append(time.perf_counter() - w0)
                methods[sampler.method] += 1
                builds.append((times[-1], seed, len(r.log), sampler.method, sampler.table_size))
                r.play(max(r.legal_moves, key=lambda m: m.tile.high + m.tile.low))
        times.sort()
        name = f"{'Mexican Train' if layout == 'trains' else 'Chicken Foot'} {players}p"
        print(
            f"| {name} double-{set_max} | {len(times)} | {methods['exact']} | "
            f"{methods['rejection']} | {methods['uniform']} | "
            f"{1e3 * statistics.median(times):.1f} | "
            f"{1e3 * times[int(0.9 * len(times))]:.1f} | {1e3 * times[-1]:.1f} | "
            f"{1e3 * max(walls):.1f} |"
        )
        for cpu, seed, events, method, nodes in sorted(builds, reverse=True)[:slowest]:
            print(f"    seed {seed}, {events} events: {method}, {nodes} nodes, {1e3 * cpu:.1f} ms")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
