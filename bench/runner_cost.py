"""The match runner's own cost per move, beside the bare ``Round`` loop, in one run.

    python bench/runner_cost.py                     # 4-player straight, random bots
    python bench/runner_cost.py --variant block --players 2 --games 300 --repeats 9
    python bench/runner_cost.py --instructions      # callgrind counts instead of time
    python bench/runner_cost.py --base /tmp/bones-base      # against an older build, alternately
    python bench/runner_cost.py --instructions --tree /tmp/bones-base

A tree is a source checkout whose core is built in place (``python setup.py build_ext
--inplace`` makes ``build/cython-include/bones``, the import path used for it).

The runner plays the games as a worker of ``bones match`` does (``play_games`` on the
tasks of a match, with the worker's watch slot and the default time limit, so every hook
is watched and timed), random bots in-process.  Two bare loops play the same number of
rounds without a runner: ``bare``, the engine and ``rng.choice(round.legal_moves)``; and
``bare_bots``, the engine and the bots' own code, each game's random bots made as the
runner makes them and each move chosen by the bot's ``choose``.  The runner's own cost
per move, "beyond the bots' choose", is the runner's time less ``bare_bots``'s
(``cost``); ``cost_beyond_bare`` also counts the bots' code (their ``choose`` call and
the seeding of their ``random.Random``).  The workloads alternate ``--repeats`` times;
each figure is the fastest repeat (the one the machine's other load disturbed least)
and the report shows the spread.  Times are this process's CPU time
(``time.process_time``), which another process's load on a shared machine disturbs far
less than the wall clock.

``--instructions`` runs each workload under ``valgrind --tool=callgrind`` (less a run that
only starts up and plays a few games, so imports and first calls are not counted) and
reports instructions per move, which repeat exactly whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time


def _tasks(variant: str, players: int, games: int) -> list[dict]:
    from bones.match.runner import MatchConfig, plan

    config = MatchConfig(
        bots=("random", "random"), variant=variant, players=players, games=games, seed=1
    )
    the_plan = plan(config)
    return [the_plan.task(g) for g in range(the_plan.schedule.total)]


def _as_worker() -> None:
    """This process becomes a worker of the pool: watched hooks, stdout to stderr."""
    import multiprocessing

    try:
        from bones.match import driver
    except ImportError:  # a build from before the runner was split (for --base)
        from bones.match import runner as old

        old._IN_WORKER = True
        old._WATCH = old._Watch(multiprocessing.RawArray("d", old._SLOT), 0)
        return
    driver.enter_worker(multiprocessing.RawArray("d", driver.SLOT), 0)


def runner(tasks: list[dict]) -> tuple[int, int, float]:
    """``(moves, rounds, seconds)`` of the games of ``tasks`` played by the runner's
    worker function."""
    from bones.match.runner import play_games

    start = time.process_time()
    records = play_games(tasks)
    seconds = time.process_time() - start
    moves = rounds = 0
    for rec in records:
        if rec.get("forfeit") or rec.get("error"):
            raise SystemExit(f"game {rec['id']} did not finish: {rec}")
        line = json.loads(rec["line"])
        for rnd in line["rounds"]:
            moves += len(rnd["moves"].split())
            rounds += 1
    return moves, rounds, seconds


def bare(variant: str, players: int, rounds: int, seed: int = 1) -> tuple[int, float]:
    """``(moves, seconds)`` of ``rounds`` rounds of the bare loop."""
    from bones import Round

    rng = random.Random(seed)
    moves = 0
    start = time.process_time()
    for i in range(rounds):
        r = Round.deal(variant, players, seed=seed * 1_000_003 + i)
        while not r.is_over:
            r.play(rng.choice(r.legal_moves))
            moves += 1
    return moves, time.process_time() - start


def bare_bots(
    variant: str, players: int, rounds: int, games: int, seed: int = 1
) -> tuple[int, float]:
    """``(moves, seconds)`` of the bare loop with the bots' own code in it: the rounds of
    ``games`` games, each game's random bots made as the runner makes them
    (``make_bot``), each move chosen by the bot's own ``choose``.  The runner's cost
    beyond this is its own: the issue's "beyond the bots' choose"."""
    from bones import Round
    from bones.bot import make_bot

    per_game = max(1, rounds // max(1, games))
    moves = 0
    bots: list = []
    start = time.process_time()
    for i in range(rounds):
        if i % per_game == 0:
            bots = [make_bot("random", seed=seed * 7919 + i + s) for s in range(players)]
        r = Round.deal(variant, players, seed=seed * 1_000_003 + i)
        while not r.is_over:
            r.play(bots[r.to_move].choose(None, r.legal_moves))
            moves += 1
    return moves, time.process_time() - start


def timed(args: argparse.Namespace) -> dict:
    _as_worker()
    tasks = _tasks(args.variant, args.players, args.games)
    runner(tasks[:4])  # imports and first calls out of the way
    bare(args.variant, args.players, 4)
    bare_bots(args.variant, args.players, 4, 1)
    run_us, bare_us, bots_us = [], [], []
    for _ in range(args.repeats):
        moves, rounds, seconds = runner(tasks)
        run_us.append(seconds / moves * 1e6)
        b_moves, b_seconds = bare(args.variant, args.players, rounds)
        bare_us.append(b_seconds / b_moves * 1e6)
        b_moves, b_seconds = bare_bots(args.variant, args.players, rounds, len(tasks))
        bots_us.append(b_seconds / b_moves * 1e6)
    diffs = [r - b for r, b in zip(run_us, bots_us, strict=True)]
    return {
        "workload": f"{args.variant} {args.players}p, random bots, {len(tasks)} games",
        "moves": moves,
        "runner_us_per_move": min(run_us),
        "bare_us_per_move": min(bare_us),
        "bare_bots_us_per_move": min(bots_us),
        "cost_us_per_move": min(run_us) - min(bots_us),
        "cost_median_us": statistics.median(diffs),
        "cost_range_us": [min(diffs), max(diffs)],
        "cost_beyond_bare_us_per_move": min(run_us) - min(bare_us),
        "repeats": args.repeats,
    }


_CHILD = """
import sys
sys.path.insert(0, {here!r})
import runner_cost as rc
what, variant, players, games = {what!r}, {variant!r}, {players!r}, {games!r}
rc._as_worker()
tasks = rc._tasks(variant, players, games)
rc.runner(tasks[:4])  # imports, plugins and first calls: in the start-up run too
rc.bare(variant, players, 4)
rc.bare_bots(variant, players, 4, 1)
if what == "runner":
    moves, rounds, _ = rc.runner(tasks)
    print("MOVES", moves, rounds, file=sys.stderr)
elif what == "bare":
    moves, _ = rc.bare(variant, players, {rounds!r})
    print("MOVES", moves, file=sys.stderr)
elif what == "bare_bots":
    moves, _ = rc.bare_bots(variant, players, {rounds!r}, games)
    print("MOVES", moves, file=sys.stderr)
"""


def _instructions(what: str, args: argparse.Namespace, rounds: int = 0) -> tuple[int, int, int]:
    """``(instructions, moves, rounds)`` of one workload under callgrind."""
    code = _CHILD.format(
        here=os.path.dirname(os.path.abspath(__file__)),
        what=what,
        variant=args.variant,
        players=args.players,
        games=args.games,
        rounds=rounds,
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
            + [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=_env(args.tree),
            check=True,
        )
        total = int(re.search(r"Collected : (\d+)", proc.stderr).group(1))  # type: ignore[union-attr]
    found = re.search(r"MOVES (\d+)(?: (\d+))?", proc.stderr)
    moves = int(found.group(1)) if found else 0
    played = int(found.group(2)) if found and found.group(2) else 0
    return total, moves, played


def _env(tree: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if tree:
        env["PYTHONPATH"] = os.path.join(os.path.abspath(tree), "build", "cython-include")
    return env


def versus(args: argparse.Namespace) -> dict:
    """This checkout and ``--base`` alternately, a fresh process per repeat and tree."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    child = [sys.executable, os.path.abspath(__file__), "--variant", args.variant]
    child += ["--players", str(args.players), "--games", str(args.games), "--repeats", "1"]
    runs: dict[str, list[dict]] = {"new": [], "base": []}
    for _ in range(args.repeats):
        for key, tree in (("base", args.base), ("new", here)):
            out = subprocess.run(child, env=_env(tree), capture_output=True, text=True, check=True)
            runs[key].append(json.loads(out.stdout))
    report = {}
    for key, items in runs.items():
        report[key] = {
            "runner_us_per_move": min(r["runner_us_per_move"] for r in items),
            "bare_us_per_move": min(r["bare_us_per_move"] for r in items),
            "cost_us_per_move": min(r["cost_us_per_move"] for r in items),
            "cost_median_us": statistics.median(r["cost_us_per_move"] for r in items),
            "cost_beyond_bare_us_per_move": min(
                r.get("cost_beyond_bare_us_per_move", r["cost_us_per_move"]) for r in items
            ),
        }
    report["cost_ratio_new_over_base"] = (
        report["new"]["cost_us_per_move"] / report["base"]["cost_us_per_move"]
    )
    report["repeats"] = args.repeats
    return report


def instructions(args: argparse.Namespace) -> dict:
    start, _, _ = _instructions("none", args)
    run_total, moves, rounds = _instructions("runner", args)
    bare_total, bare_moves, _ = _instructions("bare", args, rounds)
    bots_total, bots_moves, _ = _instructions("bare_bots", args, rounds)
    run_per = (run_total - start) / moves
    bare_per = (bare_total - start) / bare_moves
    bots_per = (bots_total - start) / bots_moves
    return {
        "workload": f"{args.variant} {args.players}p, random bots",
        "moves": moves,
        "runner_instructions_per_move": round(run_per),
        "bare_instructions_per_move": round(bare_per),
        "bare_bots_instructions_per_move": round(bots_per),
        "cost_instructions_per_move": round(run_per - bots_per),
        "cost_beyond_bare_instructions_per_move": round(run_per - bare_per),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="straight")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=200, help="games of the match (default 200)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--tree", help="measure the build of this source tree (--instructions)")
    ap.add_argument("--base", help="a source tree to measure alternately with this one")
    args = ap.parse_args(argv)
    if args.instructions:
        result = instructions(args)
    elif args.base:
        result = versus(args)
    else:
        result = timed(args)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
