"""The train planner's cost: nodes and CPU time of ``best_chain`` per hand size, and
pimc's samples per decision under each playout policy (docs/bots.md, "The train
planner"), and how often pimc picks the planner's own move (docs/strength.md).

Hands: 300 per size, random from the double-12 set (seeds 0 to 299), a random open
number, the default budget.  Positions: four-player Mexican Train, 12 random moves from
seeds 0 to 19 (those with a choice left); at 8 seats, ``eight_seats``.  Run:
``python bench/train_plan.py``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator
from typing import Any

from bones.bot import make_bot
from bones.core.trainplan import best_chain
from bones.core.trains import TrainRound
from bones.core.trainsearch import pimc

DECK = [f"{high}-{low}" for high in range(13) for low in range(high + 1)]


def planner() -> None:
    print("| hand | solved exactly | nodes: median, max | CPU ms: median, max |")
    print("|---:|---:|---|---|")
    for size in (10, 15, 20, 24):
        nodes, times, exact = [], [], 0
        for seed in range(300):
            rng = random.Random(seed)
            deck = DECK[:]
            rng.shuffle(deck)
            start = time.process_time()
            _, _, solved, visited = best_chain(deck[:size], rng.randrange(13))
            times.append((time.process_time() - start) * 1e3)
            nodes.append(visited)
            exact += solved
        print(
            f"| {size} | {exact} / 300 | {statistics.median(nodes):g}, {max(nodes)} | "
            f"{statistics.median(times):.3f}, {max(times):.3f} |"
        )


def samples() -> None:
    positions = []
    for seed in range(20):
        r = TrainRound.deal("trains", players=4, seed=seed)
        rng = random.Random(seed)
        for _ in range(12):
            if r.is_over:
                break
            r.play(rng.choice(r.legal_moves))
        if not r.is_over and len(r.legal_moves) > 1:
            positions.append(r)
    for policy in ("expert", "chain", "greedy"):
        used = [
            pimc(
                r.observation(r.to_move),
                r.legal_moves,
                samples=10**6,
                time_ms=20.0,
                policy=policy,
                seed=1,
            )[2]
            for r in positions
        ]
        print(
            f"pimc time_ms=20 policy={policy}, {len(positions)} positions: samples/decision "
            f"median {statistics.median(used):g}, min {min(used)}, max {max(used)}"
        )


def eight_seats() -> None:
    """pimc's decisions at 8 seats, where the exact sampler's build can outlast the
    budget: 4 to 29 random moves from seeds 0 to 19 (those with a choice left)."""
    used, cpu = [], []
    for seed in range(20):
        r = TrainRound.deal("trains", players=8, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(4, 30)):
            if r.is_over:
                break
            r.play(rng.choice(r.legal_moves))
        if r.is_over or len(r.legal_moves) < 2:
            continue
        start = time.process_time()
        used.append(
            pimc(r.observation(r.to_move), r.legal_moves, samples=1000, time_ms=20.0, seed=1)[2]
        )
        cpu.append((time.process_time() - start) * 1e3)
    print(
        f"8 seats, pimc time_ms=20, {len(used)} positions: samples median "
        f"{statistics.median(used):g}, min {min(used)}, max {max(used)}, single-sample "
        f"decisions {sum(u == 1 for u in used)}; CPU ms median {statistics.median(cpu):.1f}, "
        f"max {max(cpu):.1f}"
    )


def expert_decisions(players: int, rounds: int) -> Iterator[tuple[Any, Any, str]]:
    """The decisions with a choice of rounds that ``expert`` plays in every seat (seeds 0
    to ``rounds - 1``): ``(observation, legal_moves, the expert's move)``."""
    expert = make_bot("expert", seed=1)
    for seed in range(rounds):
        r = TrainRound.deal("trains", players=players, seed=seed)
        while not r.is_over:
            observation, legal = r.observation(r.to_move), r.legal_moves
            move = expert.choose(observation, legal)
            if len(legal) > 1:
                yield observation, legal, str(move)
            r.play(move)


def agreement(players: int = 4, rounds: int = 20) -> None:
    """How often ``pimc`` (default budget) picks the move ``expert`` picks, at the
    decisions of :func:`expert_decisions`: pimc's playouts are the expert's own policy, so
    it can only gain where its samples overturn the expert's choice."""
    search = make_bot("pimc", seed=1)
    same = total = 0
    for observation, legal, move in expert_decisions(players, rounds):
        total += 1
        same += str(search.choose(observation, legal)) == move
    print(
        f"{players} seats, {rounds} rounds of expert in every seat: pimc time_ms=20 picked "
        f"the expert's move at {same} of {total} decisions with a choice "
        f"({100 * same / total:.1f}%)"
    )


def stability(players: int = 4, rounds: int = 10, spec: str = "pimc") -> None:
    """Whether ``spec``'s departures from the planner are signal or noise: at the decisions
    of :func:`expert_decisions`, two copies of ``spec`` on independent samples (bot seeds
    1 and 2) are compared with each other and with ``expert``.  A departure the samples
    support is found again by the second copy; one drawn by noise is not."""
    first, second = make_bot(spec, seed=1), make_bot(spec, seed=2)
    total = same = departs = again = 0
    for observation, legal, move in expert_decisions(players, rounds):
        one = str(first.choose(observation, legal))
        two = str(second.choose(observation, legal))
        total += 1
        same += one == two
        if one != move:
            departs += 1
            again += one == two
    print(
        f"{players} seats, {rounds} rounds of expert in every seat, {spec}: two copies "
        f"agreed at {same} of {total} decisions with a choice ({100 * same / total:.1f}%); "
        f"the first departed from the expert at {departs}, the second made the same "
        f"departure at {again} ({100 * again / max(1, departs):.1f}%)"
    )


if __name__ == "__main__":
    planner()
    samples()
    eight_seats()
    agreement()
