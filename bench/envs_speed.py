"""Steps per second of the learning-agent environments, side by side in one run.

    python bench/envs_speed.py                      # VectorEnv, 5 alternating rounds
    python bench/envs_speed.py --rounds 7 --budget 2 --n 256
    python bench/envs_speed.py --adapters           # + PettingZoo / OpenSpiel vs OpenSpiel's
                                                     #   python_block_dominoes (if installed)
    python bench/envs_speed.py --trains-only --rounds 7   # Mexican Train 4p vs straight 4p

Every sample plays uniformly random legal actions for about ``--budget`` CPU seconds (the
measured process's CPU time: other processes on the shared machine do not count).  The
rounds alternate the workloads, and each is reported as the median with the min..max over
the rounds.  A *step* is one action of the seat to move (forced draws and passes are part of
the step before them), with the observation tensor and the legal-action mask produced on
every step.  ``core playout`` (bones.core.playout.random_playouts, no tensors; for Mexican
Train bones.core.trains.random_playouts) is measured alongside as the engine's ceiling; its
unit is placements.  Mexican Train 4p (double-12, 15 tiles a hand) runs side by side with
the double-six straight/4p, and their ratio is printed per round.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from bones.core.playout import random_playouts
from bones.core.trains import random_playouts as train_playouts
from bones.envs import VectorEnv

CASES = (("block", 2), ("straight", 4), ("mexican-train", 4))
TRAIN_RATIO = ("mexican-train", "straight")  # their VectorEnv steps/s, 4p, per round


def vector_env(variant: str, players: int, n: int) -> Callable[[float], float]:
    env = VectorEnv(variant, players, n, seed=1)
    env.reset()

    def sample(budget: float) -> float:
        steps, t0 = 0, time.process_time()
        while time.process_time() - t0 < budget:
            for _ in range(20):
                env.step(env.random_actions())
            steps += 20 * n
        return steps / (time.process_time() - t0)

    return sample


def core_playout(variant: str, players: int) -> Callable[[float], float]:
    if variant == "mexican-train":
        return train_core_playout(players)

    def sample(budget: float) -> float:
        rounds, moves, t0 = 2000, 0, time.process_time()
        while time.process_time() - t0 < budget:
            moves += random_playouts(variant, players, rounds)["moves"]
        return moves / (time.process_time() - t0)

    return sample


def train_core_playout(players: int) -> Callable[[float], float]:
    def sample(budget: float) -> float:
        rounds, moves, t0 = 2000, 0, time.process_time()
        while time.process_time() - t0 < budget:
            moves += train_playouts("trains", 12, players, 15, rounds)["plies"]
        return moves / (time.process_time() - t0)

    return sample


def pettingzoo_env(variant: str, players: int) -> Callable[[float], float]:
    from bones.envs.pettingzoo import env as make

    e = make(variant=variant, players=players)
    rng = random.Random(1)

    def sample(budget: float) -> float:
        steps, t0 = 0, time.process_time()
        while time.process_time() - t0 < budget:
            e.reset(seed=rng.randrange(2**31))
            for _agent in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                e.step(int(legal[rng.randrange(len(legal))]))
                steps += 1
        return steps / (time.process_time() - t0)

    return sample


def openspiel_game(name: str, params: dict | None = None) -> Callable[[float], float]:
    import pyspiel

    if name.startswith("bones_"):
        import bones.envs.openspiel  # noqa: F401  (registers the games)
    else:
        from open_spiel.python.games import block_dominoes  # noqa: F401  (registers it)
    game = pyspiel.load_game(name, params or {})
    rng = random.Random(1)

    def sample(budget: float) -> float:
        steps, t0 = 0, time.process_time()
        while time.process_time() - t0 < budget:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                    continue
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps / (time.process_time() - t0)

    return sample


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--budget", type=float, default=1.0, help="CPU seconds per sample")
    ap.add_argument("--n", type=int, default=256, help="rounds in each VectorEnv")
    ap.add_argument("--adapters", action="store_true")
    ap.add_argument(
        "--trains-only", action="store_true", help="only the two 4p VectorEnvs of the ratio"
    )
    args = ap.parse_args(argv)
    work: dict[str, Callable[[float], float]] = {}
    cases = [(v, 4) for v in TRAIN_RATIO] if args.trains_only else CASES
    for variant, players in cases:
        work[f"VectorEnv {variant}/{players}p n={args.n} (steps/s)"] = vector_env(
            variant, players, args.n
        )
        if not args.trains_only:
            work[f"core playout {variant}/{players}p (placements/s)"] = core_playout(
                variant, players
            )
    if args.adapters:
        work["OpenSpiel python_block_dominoes (steps/s)"] = openspiel_game("python_block_dominoes")
        work["bones OpenSpiel game block/2p (steps/s)"] = openspiel_game(
            "bones_block", {"players": 2}
        )
        work["bones OpenSpiel game straight/4p (steps/s)"] = openspiel_game(
            "bones_straight", {"players": 4}
        )
        work["bones PettingZoo env block/2p (steps/s)"] = pettingzoo_env("block", 2)
        work["bones PettingZoo env straight/4p (steps/s)"] = pettingzoo_env("straight", 4)
        work["bones PettingZoo env mexican-train/4p (steps/s)"] = pettingzoo_env("mexican-train", 4)
    results: dict[str, list[float]] = {k: [] for k in work}
    for _ in range(args.rounds):
        for key, sample in work.items():
            results[key].append(sample(args.budget))
    print(f"{' '.join(sys.argv)}\n{args.rounds} alternating rounds of {args.budget} CPU s each")
    width = max(map(len, results))
    for key, values in results.items():
        med = statistics.median(values)
        print(
            f"{key:<{width}}  {med / 1e6:8.3f} M  ({min(values) / 1e6:.3f} .. "
            f"{max(values) / 1e6:.3f})"
        )
    train, double_six = (results[f"VectorEnv {v}/4p n={args.n} (steps/s)"] for v in TRAIN_RATIO)
    ratios = [a / b for a, b in zip(train, double_six, strict=True)]
    print(
        f"VectorEnv mexican-train/4p / straight/4p: {statistics.median(ratios):.2f}x "
        f"({min(ratios):.2f}x .. {max(ratios):.2f}x, per round)"
    )
    if args.adapters:
        base = results["OpenSpiel python_block_dominoes (steps/s)"]
        for key, values in results.items():
            if "OpenSpiel game" in key or "PettingZoo" in key:
                ratios = [a / b for a, b in zip(values, base, strict=True)]
                print(
                    f"{key} / python_block_dominoes: {statistics.median(ratios):.1f}x "
                    f"({min(ratios):.1f}x .. {max(ratios):.1f}x, per round)"
                )


if __name__ == "__main__":
    main()
