"""Decisions per second of a pair of external bots playing each other through
:class:`bones.protocol.ExternalBot` (the bones-bot protocol over pipes).

    python bench/protocol_speed.py                       # both examples and the server
    python bench/protocol_speed.py --bot python --rounds 200 --variant straight

A decision is one ``choose`` (a move_request answered by a move); forced draws and
passes, made by the engine, are not counted.  The time covers the whole rounds (the
engine, the observations, every frame both ways), not the start of the processes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PY_BOT = os.path.join(ROOT, "examples", "python", "random_bot.py")
C_BOT = os.path.join(ROOT, "examples", "c", "random_bot")
SERVER = [sys.executable, "-m", "bones.protocol.server"]

#: name -> the command of the bot at ``seat``
BOTS: dict[str, Callable[[int], list[str]]] = {
    "python": lambda seat: [sys.executable, PY_BOT, str(seat + 1)],
    "c": lambda seat: [C_BOT, str(seat + 1)],
    "server": lambda seat: [*SERVER, f"random:seed={seat + 1}"],
    "server-greedy": lambda seat: [*SERVER, "greedy"],
}


def build_c() -> bool:
    path = os.path.join(ROOT, "examples/c")
    if os.path.exists(os.path.join(path, "random_bot")):
        return True
    if shutil.which("make") is None:
        return False
    return subprocess.run(["make", "-s", "-C", path], capture_output=True).returncode == 0


def _cpu(pid: int | None) -> float:
    """CPU seconds used so far by process ``pid`` (Linux: /proc; elsewhere 0)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(kind: str, variant: str, players: int, rounds: int) -> tuple[int, float, float]:
    """``(decisions, wall seconds, CPU seconds of the runner and the bots)`` of
    ``rounds`` rounds played by ``players`` external bots."""
    import bones
    from bones.bot import play_round
    from bones.protocol import ExternalBot

    bots = [ExternalBot(BOTS[kind](seat), start=False) for seat in range(players)]
    ExternalBot.start_all(bots)
    try:
        for seat, bot in enumerate(bots):
            bot.start_game(seat, variant, players, {})
        requests = sum(bot._request for bot in bots)  # move requests so far (and pings)
        seconds = 0.0
        cpu = time.process_time() + sum(_cpu(bot.pid) for bot in bots)
        for index in range(rounds):
            rnd = bones.Round.deal(variant, players=players, seed=index)
            start = time.perf_counter()
            play_round(rnd, bots)
            seconds += time.perf_counter() - start
        cpu = time.process_time() + sum(_cpu(bot.pid) for bot in bots) - cpu
        decisions = sum(bot._request for bot in bots) - requests
    finally:
        for bot in bots:
            bot.close()
    return decisions, seconds, cpu


def round_trip(kind: str, count: int = 3000) -> float:
    """Seconds of one ping/pong with one bot: the floor of a decision's latency."""
    from bones.protocol import ExternalBot

    with ExternalBot(BOTS[kind](0)) as bot:
        for _ in range(100):
            bot.ping()
        start = time.perf_counter()
        for _ in range(count):
            bot.ping()
        return (time.perf_counter() - start) / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", choices=[*BOTS, "all"], default="all")
    parser.add_argument("--variant", default="straight")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    kinds = list(BOTS) if args.bot == "all" else [args.bot]
    if hasattr(os, "getloadavg"):
        print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    for kind in kinds:
        if kind == "c" and not build_c():
            print("c: skipped (cannot build examples/c: make and libmsgpack-dev needed)")
            continue
        decisions, seconds, cpu = measure(kind, args.variant, args.players, args.rounds)
        print(
            f"{kind:>14}: {decisions} decisions in {args.rounds} rounds of {args.variant} "
            f"({args.players} players) in {seconds:.3f} s: {decisions / seconds:,.0f} "
            f"decisions/s; CPU (runner + bots) {cpu / decisions * 1e6:.0f} us per decision; "
            f"ping round trip {round_trip(kind) * 1e6:.0f} us"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
