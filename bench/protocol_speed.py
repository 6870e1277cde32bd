"""Decisions per second of a pair of bots: two external bots playing each other through
:class:`bones.protocol.ExternalBot` (the bones-bot protocol over pipes), beside the same
random bots in process and served as ``bones match --isolate`` serves them.

    python bench/protocol_speed.py                     # every kind, interleaved
    python bench/protocol_speed.py --bot c --bot in-process --chunks 40 --chunk 10
    python bench/protocol_speed.py --affinity game     # only as bones match runs them
    python bench/protocol_speed.py --bot python --bot python-sandbox --affinity off
    python bench/protocol_speed.py --games 40          # bones match games/s, --sandbox or not
    python bench/protocol_speed.py --starts 40         # what a sandboxed start costs more

A decision is one ``choose`` (a move_request answered by a move); forced draws and
passes, made by the engine, are not counted.  The time covers the whole rounds (the
engine, the observations, every frame both ways), not the start of the processes.

The machine's load changes from second to second, so the kinds are measured side by
side: every pair of bots stays up, and chunks of ``--chunk`` rounds are played by each
kind in turn, ``--chunks`` times.  Every kind that runs processes is measured twice
(``--affinity both``, the default): with the driver and the pair's bots on one CPU, as
``bones match`` places a worker and the bots of its games (``game``), and placed by the
system (``off``, as with ``bones match --affinity off``).  Each line gives the decisions
per second over all its chunks, the quartiles of the chunks' rates (their spread), the
CPU seconds of the runner and the bots per decision, and the round trip of a ping.

``python-sandbox`` is the Python random bot inside bubblewrap, as ``bones match
--sandbox`` runs it (:func:`bones.protocol.sandbox.wrap`); the sandbox is made once per
process, so its decisions cost what the bot's do.  Only ``--affinity off`` places it (a
CPU set after the start would reach bubblewrap, not the bot inside).

``--games N`` times whole matches instead: ``bones match`` of the Python random bot
(``cmd:``) against ``greedy``, N games on one worker, plain, with ``--isolate`` and
with ``--sandbox`` (a fresh sandboxed process of the ``cmd:`` bot for every game,
started ahead during the games before; ``greedy``, bones' own, in process),
interleaved ``--repeats`` times; it prints the games per second of each (``--variant
block`` for the figure docs/protocol.md quotes).  ``--starts N`` times one start at a
time, plain and sandboxed: wall and CPU time, the sandbox's own cost per start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PY_BOT = os.path.join(ROOT, "examples", "python", "random_bot.py")
C_BOT = os.path.join(ROOT, "examples", "c", "random_bot")
SERVER = [sys.executable, "-m", "bones.protocol.server"]

#: name -> the command of the bot at ``seat``; "server" is what ``--isolate`` runs
BOTS: dict[str, Callable[[int], list[str]]] = {
    "python": lambda seat: [sys.executable, PY_BOT, str(seat + 1)],
    "c": lambda seat: [C_BOT, str(seat + 1)],
    "server": lambda seat: [*SERVER, f"random:seed={seat + 1}"],
    "server-greedy": lambda seat: [*SERVER, "greedy"],
    "python-sandbox": lambda seat: _sandboxed([sys.executable, PY_BOT, str(seat + 1)]),
}


def _sandboxed(command: list[str]) -> list[str]:
    from bones.protocol.sandbox import wrap

    return wrap(command)


#: every kind: the external ones and the random bots in process
KINDS = ["in-process", *BOTS]


def build_c() -> bool:
    path = os.path.join(ROOT, "examples/c")
    if shutil.which("make") is None:
        return os.path.exists(os.path.join(path, "random_bot"))
    return subprocess.run(["make", "-s", "-C", path], capture_output=True).returncode == 0


def _cpu(pid: int | None) -> float:
    """CPU seconds used so far by process ``pid`` and the processes below it (a
    sandboxed bot runs two levels below bubblewrap) (Linux: /proc; elsewhere 0)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                total += sum(_cpu(int(child)) for child in f.read().split())
    except OSError:
        pass
    return total


class _Counted:
    """An in-process bot whose decisions are counted (as ``ExternalBot._request``)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self._request = 0
        self.pid = None

    def choose(self, observation: Any, legal_moves: Any) -> Any:
        self._request += 1
        return self.bot.choose(observation, legal_moves)

    def __getattr__(self, name: str) -> Any:  # the other hooks: the bot's own
        return getattr(self.bot, name)


def pair(kind: str, variant: str, players: int) -> list[Any]:
    """The bots of ``kind``, started, each told its seat."""
    from bones.bot import make_bot
    from bones.protocol import ExternalBot

    bots: list[Any]
    if kind == "in-process":
        bots = [_Counted(make_bot("random", seed=seat + 1)) for seat in range(players)]
    else:
        bots = [ExternalBot(BOTS[kind](seat), start=False) for seat in range(players)]
        ExternalBot.start_all(bots)
    for seat, bot in enumerate(bots):
        bot.start_game(seat, variant, players, {})
    return bots


#: every CPU this process may run on (the placement of ``--affinity off``)
ALL_CPUS = frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None


def place(bots: list[Any], pinned: bool) -> None:
    """Put this process and ``bots``' processes on the first CPU (``pinned``, as a worker
    of ``bones match`` with its bots), or let them run anywhere."""
    if ALL_CPUS is None:
        return
    cpus = {min(ALL_CPUS)} if pinned else set(ALL_CPUS)
    os.sched_setaffinity(0, cpus)
    for bot in bots:
        if bot.pid is not None:
            os.sched_setaffinity(bot.pid, cpus)


def play_chunk(bots: list[Any], variant: str, seeds: range) -> tuple[int, float, float]:
    """``(decisions, wall seconds, CPU seconds of the runner and the bots)`` of the
    rounds dealt with ``seeds``."""
    import bones
    from bones.bot import play_round

    requests = sum(bot._request for bot in bots)  # move requests so far (and pings)
    cpu = time.process_time() + sum(_cpu(bot.pid) for bot in bots)
    seconds = 0.0
    for seed in seeds:
        rnd = bones.Round.deal(variant, players=len(bots), seed=seed)
        start = time.perf_counter()
        play_round(rnd, bots)
        seconds += time.perf_counter() - start
    cpu = time.process_time() + sum(_cpu(bot.pid) for bot in bots) - cpu
    return sum(bot._request for bot in bots) - requests, seconds, cpu


def round_trip(kind: str, pinned: bool, count: int = 3000) -> float:
    """Seconds of one ping/pong with one bot: the floor of a decision's latency."""
    from bones.protocol import ExternalBot

    with ExternalBot(BOTS[kind](0)) as bot:
        place([bot], pinned)
        for _ in range(100):
            bot.ping()
        start = time.perf_counter()
        for _ in range(count):
            bot.ping()
        return (time.perf_counter() - start) / count


#: a child that answers every read with its first 8 bytes: no frames, no msgpack
_ECHO = "import os\nwhile b := os.read(0, 65536):\n    os.write(1, b[:8])"


def pipe_floor(count: int = 20000, size: int = 600) -> float:
    """Seconds of one bare round trip over pipes between this process and a Python child
    that echoes (``size`` bytes out, 8 back, blocking reads): what a decision costs at
    the least, without the engine, msgpack or deadlines."""
    child = subprocess.Popen(
        [sys.executable, "-c", _ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None
    out, back = child.stdin.fileno(), child.stdout.fileno()
    data = b"x" * size
    try:
        start = 0.0
        for index in range(count + 500):  # the first 500: warming up
            if index == 500:
                start = time.perf_counter()
            os.write(out, data)
            os.read(back, 64)
        return (time.perf_counter() - start) / count
    finally:
        child.stdin.close()
        child.wait()


def match_speed(games: int, repeats: int, variant: str, players: int) -> int:
    """Print the games per second of ``bones match`` between the tiny Python random bot
    (``cmd:``) and ``greedy``: plain, ``--isolate`` and ``--sandbox`` (a fresh sandboxed
    process for the ``cmd:`` bot every game; ``greedy``, trusted, in process), one
    worker, the three interleaved ``repeats`` times."""
    import shlex
    import tempfile

    from bones.match.runner import MatchConfig, run_match

    bots = ("cmd:" + shlex.join([sys.executable, PY_BOT]), "greedy")
    modes = {"plain": {}, "--isolate": {"isolate": True}, "--sandbox": {"sandbox": True}}
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        for index in range(repeats):
            for mode, extra in modes.items():
                config = MatchConfig(
                    bots=bots,
                    variant=variant,
                    players=players,
                    games=games,
                    secret="5e" * 32,
                    seed=index,
                    **extra,
                )
                path = os.path.join(folder, f"m-{index}-{mode}.jsonl")
                start = time.perf_counter()
                summary = run_match(config, path, jobs=1, progress=False)
                times[mode].append(time.perf_counter() - start)
                assert summary["counted"] == games, summary
    what = f"{variant}, {players} players, jobs 1"
    print(
        f"bones match, the Python random bot (cmd:) against greedy, {what}; load average "
        f"{load:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    for mode in modes:
        rates = sorted(games / t for t in times[mode])
        print(
            f"{mode:>10}: {statistics.median(rates):6.1f} games/s (median of {repeats} "
            f"matches of {games} games: " + " / ".join(f"{r:.1f}" for r in rates) + ")"
        )
    return 0


def start_cost(starts: int) -> int:
    """Print what one start of the Python random bot costs (process, handshake, end),
    plain and sandboxed as ``bones match --sandbox`` starts it for every game, the two
    interleaved ``starts`` times: its wall time, and the CPU time of its processes and
    of this process.  The differences are the sandbox's own cost per start: in wall
    time (what a start waits for, mostly in the kernel, joining the bot's cgroups; a
    match hides it by starting its bots ahead, beside the games before) and in CPU
    time (what every game of a match pays).  Two more sandboxes, without the bot's
    cgroup and without the seccomp filter too, say where that cost goes."""
    import resource

    from bones.protocol.client import ExternalBot
    from bones.protocol.sandbox import SandboxPolicy, close_spares, wrap

    bot = [sys.executable, PY_BOT]
    kinds = {
        "plain": bot,
        "--sandbox": wrap(bot),
        "no cgroup": wrap(bot, SandboxPolicy(cgroup=False)),
        "no cgroup, no seccomp": wrap(bot, SandboxPolicy(cgroup=False, seccomp=False)),
    }
    load = os.getloadavg()[0]
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    cpus: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(starts):
        for kind, command in kinds.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
            start = time.perf_counter()
            ExternalBot(list(command)).close()
            times[kind].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
            children = sum(after[0][:2]) - sum(before[0][:2])  # ru_utime + ru_stime
            cpus[kind].append(children + after[1] - before[1])
    close_spares()
    print(
        f"a start of the Python random bot (process, handshake, end), {starts} of each; "
        f"load average {load:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    for kind, values in times.items():
        q = statistics.quantiles(values, n=4)
        cpu = statistics.mean(cpus[kind])
        print(
            f"{kind:>22}: {statistics.median(values) * 1000:6.1f} ms (quartiles "
            f"{q[0] * 1000:.1f} / {q[2] * 1000:.1f}); CPU {cpu * 1000:.1f} ms"
        )
    pairs = sorted(b - a for a, b in zip(times["plain"], times["--sandbox"], strict=True))
    more = [b - a for a, b in zip(cpus["plain"], cpus["--sandbox"], strict=True)]
    cpu = statistics.mean(more)
    half = 1.96 * statistics.stdev(more) / len(more) ** 0.5  # the starts are independent
    print(
        f"the sandbox's own cost: {statistics.median(pairs) * 1000:.1f} ms a start (median), "
        f"{cpu * 1000:.1f} ms of CPU (mean; 95% interval [{(cpu - half) * 1000:.1f}, "
        f"{(cpu + half) * 1000:.1f}])"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", choices=[*KINDS, "all"], action="append")
    parser.add_argument("--variant", default="straight")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=10, help="rounds per chunk (10)")
    parser.add_argument("--chunks", type=int, default=20, help="chunks per kind (20)")
    parser.add_argument(
        "--affinity",
        choices=("game", "off", "both"),
        default="both",
        help="the bots' processes on the driver's CPU (game), anywhere (off) or both, "
        "interleaved (default)",
    )
    parser.add_argument(
        "--floor", action="store_true", help="also time a bare pipe round trip (no protocol)"
    )
    parser.add_argument(
        "--games", type=int, default=0, help="time bones match games instead (see above)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="with --games: runs of each (3)")
    parser.add_argument(
        "--starts", type=int, default=0, help="time N starts of a bot, plain and sandboxed"
    )
    args = parser.parse_args()
    if args.starts:
        return start_cost(args.starts)
    if args.games:
        return match_speed(args.games, args.repeats, args.variant, args.players)
    kinds = KINDS if not args.bot or "all" in args.bot else list(dict.fromkeys(args.bot))
    if "c" in kinds and not build_c():
        print("c: skipped (cannot build examples/c: make and libmsgpack-dev needed)")
        kinds.remove("c")
    placements = {"game": [True], "off": [False], "both": [True, False]}[args.affinity]
    if ALL_CPUS is None:
        placements = [False]
    # (kind, pinned): in-process bots have no processes to place
    runs = [
        (kind, p)
        for kind in kinds
        for p in ([False] if kind in ("in-process", "python-sandbox") else placements)
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    pairs = {kind: pair(kind, args.variant, args.players) for kind in kinds}
    chunks: dict[tuple[str, bool], list[tuple[int, float, float]]] = {run: [] for run in runs}
    try:
        for index in range(args.chunks):
            seeds = range(index * args.chunk, (index + 1) * args.chunk)
            for kind, pinned in runs:
                place(pairs[kind] if kind != "in-process" else [], pinned)
                chunks[kind, pinned].append(play_chunk(pairs[kind], args.variant, seeds))
    finally:
        place([], False)
        for bots in pairs.values():
            for bot in bots:
                getattr(bot, "close", lambda: None)()
    print(
        f"load average {load:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
        f"{args.variant}, {args.players} players; {args.chunks} chunks of {args.chunk} "
        f"rounds per kind, interleaved"
    )
    for kind, pinned in runs:
        done = chunks[kind, pinned]
        decisions = sum(c[0] for c in done)
        seconds = sum(c[1] for c in done)
        cpu = sum(c[2] for c in done)
        rates = [c[0] / c[1] for c in done if c[1] > 0]
        q1, q2, q3 = statistics.quantiles(rates, n=4) if len(rates) > 1 else rates * 3
        label = kind if kind == "in-process" else f"{kind} ({'game' if pinned else 'off'})"
        ping = "" if kind == "in-process" else f"; ping {round_trip(kind, pinned) * 1e6:.0f} us"
        print(
            f"{label:>20}: {decisions / seconds:>9,.0f} decisions/s ({decisions} in "
            f"{seconds:.3f} s; chunks' quartiles {q1:,.0f} / {q2:,.0f} / {q3:,.0f}); "
            f"CPU {cpu / decisions * 1e6:.0f} us per decision{ping}"
        )
    if args.floor:
        for pinned in placements:
            place([], pinned)
            trips = [pipe_floor() * 1e6 for _ in range(3)]
            print(
                f"bare pipe round trip to a Python echo child (600 bytes out, 8 back), "
                f"affinity {'game' if pinned else 'off'}, 3 runs: "
                + " / ".join(f"{t:.1f}" for t in trips)
                + " us"
            )
        place([], False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
