"""Two builds of bones side by side: is a change free for the core and the Python loop?

    python bench/versions.py BASE_TREE [NEW_TREE] [--rounds 7] [--budget 1] [--json FILE]
    python bench/versions.py BASE_TREE [NEW_TREE] --instructions   # callgrind counts
    python bench/versions.py BASE_TREE [NEW_TREE] --cli [--rounds 7]  # `bones bench` figures

A tree is a source checkout whose core is built in place (``python setup.py build_ext
--inplace`` makes ``build/cython-include/bones``, the import path this script uses).
``NEW_TREE`` defaults to this checkout.  To measure a change against the commit before it::

    git worktree add --detach /tmp/bones-base HEAD~1
    (cd /tmp/bones-base && python setup.py build_ext --inplace -q)
    python bench/versions.py /tmp/bones-base

Each round runs every workload once in a fresh process per tree, alternating base and new
(base, new, base, new, ...), so both see the same machine load; the ratio new/base is taken
inside each round and the report gives its median, its range over the rounds and a 95%
bootstrap interval of the median (2,000 resamples of the rounds, seeded).  The
workloads come from this checkout's ``workloads.py`` and run the same Python code against
either build: the core's random playouts (block 2p, straight 4p, multiplayer 2p with
``geometry=unbounded`` and with its default options, which are unbounded before the
bounded table and bounded since), the Python ``legal_moves``/``play`` loop (block 2p and
4p), the msgpack round trip and the Monte Carlo search bot (which copies the core state
once per simulation and move).

``--instructions`` counts instead of timing: each workload runs a fixed amount of work
under ``valgrind --tool=callgrind`` (with ``PYTHONHASHSEED=0``), less a run that only starts
up, so the counts repeat exactly from run to run whatever else the machine is doing.

``--cli`` runs the command line's own measurement instead, ``bones bench --variant block
--variant straight --players 2 --players 4 --json`` (core playouts and the Python loop,
wall clock, ``--budget`` seconds each), alternating the trees the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (key, label, unit): "moves/s" is better higher, "us" better lower.
WORKLOADS = (
    ("core_block2", "core random playouts block/2p", "moves/s"),
    ("core_straight4", "core random playouts straight/4p", "moves/s"),
    ("core_multi2", "core random playouts multiplayer/2p unbounded", "moves/s"),
    ("core_multi2_default", "core playouts multiplayer/2p default options", "moves/s"),
    ("loop_block2", "Python loop block/2p", "moves/s"),
    ("loop_block4", "Python loop block/4p", "moves/s"),
    ("roundtrip", "msgpack round trip (mid-game block/2p)", "us"),
    ("search", "montecarlo choice (mid-game straight/2p)", "us"),
)

# Runs inside the child: measure every workload once and print one JSON object.
_CHILD = """
import json, sys
sys.path.insert(0, {bench!r})
import workloads as wl
budget, seed = {budget!r}, {seed!r}
out = {{}}
for key, variant, players, opts in wl.VERSION_PLAYOUTS:
    probe = wl.core_playouts(variant, players, 2000, seed=7, **opts)
    rounds = max(2000, int(2000 * budget / max(probe.seconds, 1e-6)))
    out[key] = wl.core_playouts(variant, players, rounds, seed=seed, **opts).moves_per_s
for key, players in (("loop_block2", 2), ("loop_block4", 4)):
    play = lambda n, s, p=players: wl.bones_loop("block", p, n, s)
    out[key] = wl.timed_loop(play, budget, 25, seed=seed).moves_per_s
r, _, _ = wl.bones_midgame()
out["roundtrip"] = wl.time_per_call(wl.bones_roundtrip(r), budget / 2) * 1e6
out["search"] = wl.time_per_call(wl.search_choice(), budget / 2) * 1e6
import bones
out["bones"] = bones.__file__
print(json.dumps(out))
"""


# Runs inside the child under callgrind: a fixed amount of one workload ("none": start-up).
_CHILD_FIXED = """
import sys
sys.path.insert(0, {bench!r})
import workloads as wl
what = {what!r}
r, _, _ = wl.bones_midgame()
playouts = {{key: (v, n, o) for key, v, n, o in wl.VERSION_PLAYOUTS}}
if what in playouts:
    variant, players, opts = playouts[what]
    wl.core_playouts(variant, players, 20000, 1, **opts)
elif what == "search":
    f = wl.search_choice()
    for _ in range(20):
        f()
elif what == "loop_block2":
    wl.bones_loop("block", 2, 2000, 1)
elif what == "loop_block4":
    wl.bones_loop("block", 4, 2000, 1)
elif what == "roundtrip":
    f = wl.bones_roundtrip(r)
    for _ in range(3000):
        f()
elif what.startswith("cli_"):  # `bones bench`'s own loop, its clock ticking once per round
    import itertools, types
    import bones.speed as speed
    tick = itertools.count()
    speed.time = types.SimpleNamespace(perf_counter=lambda: float(next(tick)))
    variant, players = what[4:-1], int(what[-1])
    speed.python_loop(variant, players, seconds=1, seed=1)  # imports (one round), not counted
    if not {warm!r}:
        speed.python_loop(variant, players, seconds=2000, seed=1)  # exactly 2,000 rounds
"""
#: what each fixed workload does, to turn its count into a count per unit
_FIXED_UNITS = {
    "core_block2": "20,000 rounds",
    "core_straight4": "20,000 rounds",
    "core_multi2": "20,000 rounds",
    "core_multi2_default": "20,000 rounds",
    "loop_block2": "2,000 rounds",
    "loop_block4": "2,000 rounds",
    "roundtrip": "3,000 round trips",
    "search": "20 choices",
    "cli_block2": "2,000 rounds",
    "cli_straight4": "2,000 rounds",
}

_WARM = ("cli_block2", "cli_straight4")

#: ``--instructions`` only: ``bones bench``'s Python loop (``bones.speed.python_loop`` of
#: each tree) for a fixed number of rounds
CLI_FIXED = (
    ("cli_block2", "bones bench Python loop block/2p", "moves/s"),
    ("cli_straight4", "bones bench Python loop straight/4p", "moves/s"),
)


def instructions(tree: Path, what: str, warm: bool = False) -> int:
    """Instructions callgrind counts for the fixed workload ``what`` on ``tree``; with
    ``warm``, only what the workload runs before its counted part (imports, warm-up)."""
    env = dict(os.environ, PYTHONPATH=str(import_path(tree)), PYTHONHASHSEED="0")
    code = _CHILD_FIXED.format(bench=str(HERE), what=what, warm=warm)
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
    done = subprocess.run([*cmd, "-c", code], env=env, capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"{tree}: callgrind gave no count for {what}:\n{done.stderr[-2000:]}")


def report_instructions(trees: dict[str, Path]) -> None:
    start = {name: instructions(tree, "none") for name, tree in trees.items()}
    print(f"base: {trees['base']}\nnew:  {trees['new']}")
    print("instructions (callgrind, PYTHONHASHSEED=0), start-up subtracted\n")
    print(f"{'workload':42} {'fixed work':>18} {'base':>14} {'new':>14}  new/base")
    for key, label, _ in WORKLOADS + CLI_FIXED:
        # a `bones bench` loop: its warm-up round and imports subtracted too
        base = {
            n: instructions(t, key, True) if key in _WARM else start[n] for n, t in trees.items()
        }
        count = {n: instructions(t, key) - base[n] for n, t in trees.items()}
        print(
            f"{label:42} {_FIXED_UNITS[key]:>18} {count['base']:14,} {count['new']:14,}  "
            f"{count['new'] / count['base']:.4f}"
        )
    print("\n(new/base < 1: the new tree runs fewer instructions)")


def bootstrap(ratios: list[float], resamples: int = 2000, seed: int = 1) -> tuple[float, float]:
    """A 95% bootstrap interval of the median of ``ratios`` (percentile method, seeded)."""
    import random

    rng = random.Random(seed)
    medians = sorted(
        statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples)
    )
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def spread(ratios: list[float]) -> str:
    """``median [min, max] (95% CI lo-hi)`` of per-round ratios."""
    lo, hi = bootstrap(ratios)
    return (
        f"{statistics.median(ratios):.3f} [{min(ratios):.3f}, {max(ratios):.3f}] "
        f"(95% CI {lo:.3f}-{hi:.3f})"
    )


def import_path(tree: Path) -> Path:
    path = tree / "build" / "cython-include"
    if not (path / "bones" / "core").is_dir() or not any((tree / "src" / "core").glob("*.so")):
        raise SystemExit(f"{tree}: no built core (run python setup.py build_ext --inplace there)")
    return path


def sample(tree: Path, budget: float, seed: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(import_path(tree)))
    code = _CHILD.format(bench=str(HERE), budget=budget, seed=seed)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{tree}: the workloads failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result.pop("bones").startswith(str(tree)):
        raise SystemExit(f"{tree}: bones was imported from elsewhere (an editable install?)")
    return result


#: ``--cli``: the ``bones bench`` command run in each tree (its figures, wall clock)
CLI_ROWS = (("block", 2), ("block", 4), ("straight", 2), ("straight", 4))


def cli_sample(tree: Path, budget: float, seed: int) -> dict:
    """One ``bones bench --json`` run on ``tree``: ``{"block2_core": moves/s, ...}``."""
    env = dict(os.environ, PYTHONPATH=str(import_path(tree)))
    cmd = [sys.executable, "-m", "bones", "bench", "--json", "--seconds", str(budget)]
    cmd += ["--seed", str(seed)]
    for variant in dict.fromkeys(v for v, _ in CLI_ROWS):
        cmd += ["--variant", variant]
    for players in dict.fromkeys(n for _, n in CLI_ROWS):
        cmd += ["--players", str(players)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{tree}: bones bench failed:\n{done.stderr}")
    out = {}
    for row in json.loads(done.stdout):
        key = f"{row['variant']}{row['players']}"
        out[key + "_core"] = row["core"]["moves_per_s"]
        out[key + "_python"] = row["python"]["moves_per_s"]
    return out


def report_cli(trees: dict[str, Path], rounds: int, budget: float) -> dict[str, list[dict]]:
    samples: dict[str, list[dict]] = {"base": [], "new": []}
    for i in range(rounds):
        for name, tree in trees.items():
            samples[name].append(cli_sample(tree, budget, seed=1_000_003 * (i + 1)))
        print(f"round {i + 1}/{rounds} done", file=sys.stderr)
    print(f"base: {trees['base']}\nnew:  {trees['new']}")
    print(f"{rounds} alternating rounds of `bones bench --json --seconds {budget}` (wall clock)\n")
    print(f"{'bones bench row':42} {'base':>12} {'new':>12}  new/base median [min, max] (CI)")
    for variant, players in CLI_ROWS:
        for part in ("core", "python"):
            key = f"{variant}{players}_{part}"
            base = [s[key] for s in samples["base"]]
            new = [s[key] for s in samples["new"]]
            ratios = [n / b for b, n in zip(base, new, strict=True)]
            label = f"{variant}/{players}p {part} moves/s"
            print(
                f"{label:42} {statistics.median(base):12,.0f} {statistics.median(new):12,.0f}  "
                f"{spread(ratios)}"
            )
    print("\n(ratio > 1: the new tree is faster)")
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the tree to compare against")
    parser.add_argument("new", type=Path, nargs="?", default=HERE.parent, help="default: here")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (default 7)")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per workload")
    parser.add_argument("--json", metavar="FILE", help="also write every sample as JSON")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions with callgrind"
    )
    parser.add_argument("--cli", action="store_true", help="alternate `bones bench` runs instead")
    args = parser.parse_args(argv)
    trees = {"base": args.base.resolve(), "new": args.new.resolve()}
    if args.instructions:
        report_instructions(trees)
        return 0
    if args.cli:
        cli = report_cli(trees, args.rounds, args.budget)
        if args.json:
            Path(args.json).write_text(
                json.dumps({"trees": {k: str(v) for k, v in trees.items()}, "cli": cli}, indent=1)
            )
        return 0
    samples: dict[str, list[dict]] = {"base": [], "new": []}
    for i in range(args.rounds):
        for name, tree in trees.items():
            samples[name].append(sample(tree, args.budget, seed=1_000_003 * (i + 1)))
        print(f"round {i + 1}/{args.rounds} done", file=sys.stderr)
    print(f"base: {trees['base']}\nnew:  {trees['new']}")
    print(f"{args.rounds} alternating rounds, {args.budget} s per workload, CPU clock\n")
    print(f"{'workload':42} {'base':>12} {'new':>12}  new/base median [min, max] (CI)")
    for key, label, unit in WORKLOADS:
        base = [s[key] for s in samples["base"]]
        new = [s[key] for s in samples["new"]]
        # a ratio above 1 is always "new is faster"
        ratios = [(n / b if unit == "moves/s" else b / n) for b, n in zip(base, new, strict=True)]
        fmt = "{:12,.0f}" if unit == "moves/s" else "{:9.2f} us"
        print(
            f"{label:42} {fmt.format(statistics.median(base))} "
            f"{fmt.format(statistics.median(new))}  {spread(ratios)}"
        )
    print("\n(ratio > 1: the new tree is faster; for the round trip, base time / new time)")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"trees": {k: str(v) for k, v in trees.items()}, "samples": samples}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
