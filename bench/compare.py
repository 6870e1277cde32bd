"""Side-by-side speed comparison of bones against the C reference and the peer packages.

    python bench/compare.py                 # 5 alternating rounds of ~1 s samples, a table
    python bench/compare.py --rounds 7 --budget 2 --json results.json
    python bench/compare.py --json          # JSON on stdout instead of the table
    python bench/compare.py --split         # + the Python loops' play phase alone (info)
    python bench/compare.py --check         # exit 1 when a target is missed
    python bench/compare.py --no-trains     # without the train games' rows

The machine is shared and noisy, so every measurement is taken in one process run,
alternating (C reference, bones, peers, C reference, bones, peers, ...) for ``--rounds``
rounds.  A ratio is computed inside each round from samples taken seconds apart, and the
reported ratio is the median over the rounds; the absolute numbers are medians too.  Times
are CPU times of the measured process by default (``--clock wall`` for elapsed time): other
processes on the machine then do not count against whichever engine they happen to overlap.

Moves are counted the same way for every engine - tile placements only (see
``workloads.py``) - and every engine uses the same policy: uniform over its legal moves with
``random.Random.randrange``.  Missing pieces (the built core, open-spiel, dominoes, gcc, the C
reference) are reported as skipped; the rest still runs.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads as wl  # noqa: E402


@dataclass
class Measure:
    """One engine/workload, sampled once per round."""

    key: str
    label: str
    unit: str  # "moves/s" or "rounds/s" (higher is better), "us" (per call, lower is better)
    sample: Callable[[int], dict]  # round index -> {"value": ..., extras}
    missing: str | None = None
    samples: list[dict] = field(default_factory=list)

    def values(self) -> list[float]:
        return [s["value"] for s in self.samples]

    def median(self) -> float | None:
        return statistics.median(self.values()) if self.samples else None


@dataclass
class Target:
    key: str
    text: str
    ours: str  # measure key
    other: str | None  # measure key of the reference, or None for an absolute target
    goal: float | None  # ratio (ours faster by at least) or absolute bound; None: no goal
    absolute: str = ""  # "min" (value >= goal) or "max" (value <= goal) for absolute targets
    info: bool = False  # reported, not an issue target (ignored by --check)
    per_round: bool = False  # compare rounds/s (rounds / seconds of each sample), not values


T = Target
TARGETS = [
    T("T1", "core playout block/2p >= 1/2 of C reference", "core_block2", "ref", 0.5),
    T("T2", "core playout straight/4p >= 1/8 of C block ref", "core_straight4", "ref", 0.125),
    T("T3a", "Python loop block/2p >= 40x OpenSpiel block", "loop_bones2", "loop_os_block", 40),
    T("T3b", "Python loop block/4p >= 6x dominoes", "loop_bones4", "loop_dominoes", 6),
    T("T3c", "Python loop block/4p >= 40x OpenSpiel team", "loop_bones4", "loop_os_team", 40),
    T("T3d", "Python loop block/2p about 1M moves/s", "loop_bones2", None, 1e6, "min"),
    T("T3e", "Python loop block/4p about 1M moves/s", "loop_bones4", None, 1e6, "min"),
    T("T4a", "round trip >= 3x faster than OpenSpiel", "serial_bones", "serial_os", 3),
    T("T4b", "round trip under 3 us", "serial_bones", None, 3.0, "max"),
    # --split: the same loops with the deal left out of the time (information only)
    T(
        "I3a",
        "play phase block/2p vs OpenSpiel block",
        "play_bones2",
        "play_os_block",
        40,
        info=True,
    ),
    T("I3b", "play phase block/4p vs dominoes", "play_bones4", "play_dominoes", 6, info=True),
    T("I3c", "play phase block/4p vs OpenSpiel team", "play_bones4", "play_os_team", 40, info=True),
    # the train games (rounds/s; a train round is longer than a block round: no goal)
    T(
        "I5a",
        "Mexican Train 4p d12 rounds/s vs C ref block/2p",
        "core_mexican4",
        "ref",
        None,
        info=True,
        per_round=True,
    ),
    T(
        "I5b",
        "Chicken Foot 4p d9 rounds/s vs C ref block/2p",
        "core_chicken4",
        "ref",
        None,
        info=True,
        per_round=True,
    ),
    T(
        "I5c",
        "Mexican Train 4p d12 rounds/s vs core block/2p",
        "core_mexican4",
        "core_block2",
        None,
        info=True,
        per_round=True,
    ),
    T(
        "I5d",
        "Chicken Foot 4p d9 rounds/s vs core block/2p",
        "core_chicken4",
        "core_block2",
        None,
        info=True,
        per_round=True,
    ),
]


def build_measures(
    budget: float, workdir: Path, split: bool = False, trains: bool = True
) -> list[Measure]:
    core_missing = wl.core_missing()
    os_missing = wl.openspiel_missing()
    dom_missing = wl.dominoes_missing()

    ref = None
    try:
        ref = wl.RefBlock(workdir)
        ref_missing = None
    except (FileNotFoundError, RuntimeError) as exc:
        ref_missing = str(exc)

    def ref_sample(i: int) -> dict:
        run = ref.run(budget)
        return _run_dict(run)

    calib: dict[str, int] = {}

    def core_sample(variant: str, players: int) -> Callable[[int], dict]:
        name = f"{variant}{players}"

        def sample(i: int) -> dict:
            rounds = calib.get(name)
            if rounds is None:  # calibrate: a short run, then scale to the budget
                probe = wl.core_playouts(variant, players, 2000, seed=7)
                rounds = max(2000, int(2000 * budget / max(probe.seconds, 1e-6)))
            run = wl.core_playouts(variant, players, rounds, seed=1_000_003 * (i + 1))
            calib[name] = max(1000, int(rounds * budget / max(run.seconds, 1e-6)))
            return _run_dict(run)

        return sample

    def train_sample(variant: str, players: int) -> Callable[[int], dict]:
        name = f"{variant}{players}"

        def sample(i: int) -> dict:
            rounds = calib.get(name)
            if rounds is None:
                probe = wl.train_playouts(variant, players, 500, seed=7)
                rounds = max(500, int(500 * budget / max(probe.seconds, 1e-6)))
            run = wl.train_playouts(variant, players, rounds, seed=1_000_003 * (i + 1))
            calib[name] = max(100, int(rounds * budget / max(run.seconds, 1e-6)))
            return _run_dict(run, per_round=True)

        return sample

    def loop_sample(play: Callable[[int, int], int], chunk: int) -> Callable[[int], dict]:
        def sample(i: int) -> dict:
            return _run_dict(wl.timed_loop(play, budget, chunk, seed=100_000 * (i + 1)))

        return sample

    def bones_loop_sample(players: int) -> Callable[[int], dict]:
        def sample(i: int) -> dict:
            return _run_dict(wl.bones_timed_loop("block", players, budget, 100_000 * (i + 1)))

        return sample

    serial: dict[str, Callable[[], object]] = {}

    def serial_fns() -> dict[str, Callable[[], object]]:
        if not serial:
            if core_missing is None:
                r, deal_seed, moves = wl.bones_midgame()
                serial["bones"] = wl.bones_roundtrip(r)
                serial["bones_bytes"] = len(r.to_msgpack())
                if os_missing is None:
                    game, state = wl.openspiel_mirror(deal_seed, moves)
            elif os_missing is None:
                game, state = wl.openspiel_midgame()
            if os_missing is None:
                serial["os"] = wl.openspiel_roundtrip(game, state)
                serial["os_game"] = wl.openspiel_roundtrip_with_game(game, state)
                serial["os_bytes"] = len(state.serialize().encode())
        return serial

    def serial_sample(which: str) -> Callable[[int], dict]:
        def sample(i: int) -> dict:
            fns = serial_fns()
            sec = wl.time_per_call(fns[which], budget / 2)
            return {"value": sec * 1e6, "bytes": fns.get(which.split("_")[0] + "_bytes")}

        return sample

    def play_sample(play: Callable[[int, int], tuple], chunk: int) -> Callable[[int], dict]:
        def sample(i: int) -> dict:
            return _run_dict(wl.timed_play_phase(play, budget, chunk, seed=100_000 * (i + 1)))

        return sample

    B, OS, TEAM, M = "block", wl.OS_BLOCK, wl.OS_TEAM, Measure
    measures = [
        M("ref", "C reference ref_block.c (block/2p, gcc -O2)", "moves/s", ref_sample, ref_missing),
        M(
            "core_block2",
            "bones core random_playouts block/2p",
            "moves/s",
            core_sample(B, 2),
            core_missing,
        ),
        M(
            "core_straight4",
            "bones core random_playouts straight/4p",
            "moves/s",
            core_sample("straight", 4),
            core_missing,
        ),
        M(
            "loop_bones2",
            "bones Python loop block/2p",
            "moves/s",
            bones_loop_sample(2),
            core_missing,
        ),
        M(
            "loop_os_block",
            "OpenSpiel python_block_dominoes loop",
            "moves/s",
            loop_sample(lambda n, s: wl.openspiel_loop(OS, n, s), 10),
            os_missing,
        ),
        M(
            "loop_bones4",
            "bones Python loop block/4p",
            "moves/s",
            bones_loop_sample(4),
            core_missing,
        ),
        M(
            "loop_dominoes",
            "dominoes (abw333) loop, 4p",
            "moves/s",
            loop_sample(wl.dominoes_loop, 10),
            dom_missing,
        ),
        M(
            "loop_os_team",
            "OpenSpiel python_team_dominoes loop",
            "moves/s",
            loop_sample(lambda n, s: wl.openspiel_loop(TEAM, n, s), 5),
            os_missing,
        ),
        M(
            "serial_bones",
            "bones to_msgpack + Round.from_msgpack",
            "us",
            serial_sample("bones"),
            core_missing,
        ),
        M(
            "serial_os",
            "OpenSpiel game.deserialize_state(state.serialize())",
            "us",
            serial_sample("os"),
            os_missing,
        ),
        M(
            "serial_os_game",
            "OpenSpiel (de)serialize_game_and_state (info)",
            "us",
            serial_sample("os_game"),
            os_missing,
        ),
    ]
    if trains:
        labels = {
            "core_mexican4": "bones core trains random_playouts mexican-train/4p (double-12)",
            "core_chicken4": "bones core trains random_playouts chicken-foot/4p (double-9)",
        }
        measures += [
            M(key, labels[key], "rounds/s", train_sample(variant, n), core_missing)
            for key, variant, n in wl.TRAIN_PLAYOUTS
        ]
    if split:
        measures += [
            M(
                "play_bones2",
                "bones block/2p, play phase only",
                "moves/s",
                play_sample(lambda n, s: wl.bones_play_phase(B, 2, n, s), 25),
                core_missing,
            ),
            M(
                "play_os_block",
                "OpenSpiel block, play phase only",
                "moves/s",
                play_sample(lambda n, s: wl.openspiel_play_phase(OS, n, s), 10),
                os_missing,
            ),
            M(
                "play_bones4",
                "bones block/4p, play phase only",
                "moves/s",
                play_sample(lambda n, s: wl.bones_play_phase(B, 4, n, s), 25),
                core_missing,
            ),
            M(
                "play_dominoes",
                "dominoes 4p, play phase only",
                "moves/s",
                play_sample(wl.dominoes_play_phase, 10),
                dom_missing,
            ),
            M(
                "play_os_team",
                "OpenSpiel team, play phase only",
                "moves/s",
                play_sample(lambda n, s: wl.openspiel_play_phase(TEAM, n, s), 5),
                os_missing,
            ),
        ]
    return measures


def _run_dict(run: wl.Run, per_round: bool = False) -> dict:
    return {
        "value": run.rounds / run.seconds if per_round else run.moves_per_s,
        "moves": run.moves,
        "rounds": run.rounds,
        "seconds": run.seconds,
        "moves_per_round": run.moves_per_round,
        "blocked": run.blocked,
    }


def run_all(measures: list[Measure], rounds: int, log) -> None:
    active = [m for m in measures if m.missing is None]
    for i in range(rounds):
        for m in active:
            try:
                m.samples.append(m.sample(i))
            except Exception as exc:  # a broken engine must not hide the others
                m.missing = f"failed: {type(exc).__name__}: {exc}"
                log(f"  {m.key}: {m.missing}")
        active = [m for m in active if m.missing is None]
        log(f"round {i + 1}/{rounds} done")


def evaluate(measures: list[Measure]) -> list[dict]:
    by_key = {m.key: m for m in measures}
    out = []
    for t in TARGETS:
        if t.ours not in by_key:  # e.g. the --split rows of a run without --split
            continue
        ours = by_key[t.ours]
        other = by_key.get(t.other) if t.other else None
        row = {
            "key": t.key,
            "target": t.text,
            "goal": t.goal,
            "absolute": t.absolute,
            "info": t.info,
            "unit": ours.unit,
            "ratio": None,
            "value": None,
        }
        why = ours.missing or (other.missing if other else None)
        if why or not ours.samples or (other is not None and not other.samples):
            row.update(status="SKIP", reason=why or "no samples")
            out.append(row)
            continue
        if t.per_round:  # rounds/s of both, from each sample's rounds and seconds
            mine = [s["rounds"] / s["seconds"] for s in ours.samples]
            theirs = [s["rounds"] / s["seconds"] for s in other.samples]
            ratios = [a / b for a, b in zip(mine, theirs, strict=False)]
            row.update(
                unit="rounds/s",
                ratio=statistics.median(ratios),
                ratios=ratios,
                value=statistics.median(mine),
                other=statistics.median(theirs),
                status="info",
            )
        elif other is None:
            value = ours.median()
            ok = value >= t.goal if t.absolute == "min" else value <= t.goal
            row.update(value=value, status=_status(ok, t.info))
        else:
            pairs = zip(ours.values(), other.values(), strict=False)
            if ours.unit == "us":  # time per call: speed-up = theirs / ours
                ratios = [b / a for a, b in pairs]
            else:
                ratios = [a / b for a, b in pairs]
            ratio = statistics.median(ratios)
            row.update(
                ratio=ratio,
                ratios=ratios,
                value=ours.median(),
                other=other.median(),
                status=_status(ratio >= t.goal, t.info),
            )
        out.append(row)
    return out


def _status(ok: bool, info: bool) -> str:
    return ("above" if ok else "below") if info else ("PASS" if ok else "FAIL")


def fmt_value(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "us":
        return f"{v:.2f} us" if v < 100 else f"{v:.0f} us"
    if unit == "rounds/s":
        return f"{v / 1e6:.3f} M rounds/s" if v >= 1e6 else f"{v / 1e3:.1f} k rounds/s"
    if v >= 1e6:
        return f"{v / 1e6:.2f} M/s"
    return f"{v / 1e3:.1f} k/s"


def fmt_ratio(r: float) -> str:
    return f"{r:.3f}x" if r < 1 else f"{r:.2f}x" if r < 10 else f"{r:.1f}x"


def render(measures: list[Measure], results: list[dict], meta: dict) -> str:
    lines = [
        f"bones speed comparison - {meta['date']} - {meta['rounds']} alternating rounds, "
        f"~{meta['budget']:g} s per sample, {meta['clock']} clock",
        f"machine: {meta['cpu']} ({meta['nproc']} cores), Python {meta['python']}, "
        f"load avg {meta['load_before']} -> {meta['load_after']}",
        f"bones core built {meta['core_build']}; gcc: {meta['gcc']}",
        "",
        "| measurement | median | min .. max | moves/round | blocked |",
        "|---|---:|---:|---:|---:|",
    ]
    for m in measures:
        if m.missing or not m.samples:
            lines.append(f"| {m.label} | skipped: {m.missing or 'no samples'} | | | |")
            continue
        vals = m.values()
        mpr = [s.get("moves_per_round") for s in m.samples]
        mpr_txt = f"{statistics.median(mpr):.3f}" if mpr[0] is not None else ""
        bl = [s.get("blocked") for s in m.samples]
        bl_txt = f"{statistics.median(bl):.3f}" if bl[0] is not None else ""
        if m.unit == "us":
            b = m.samples[0].get("bytes")
            mpr_txt = f"{b} bytes" if b else ""
        lines.append(
            f"| {m.label} | {fmt_value(m.median(), m.unit)} | "
            f"{fmt_value(min(vals), m.unit)} .. {fmt_value(max(vals), m.unit)} | "
            f"{mpr_txt} | {bl_txt} |"
        )
    lines += [
        "",
        "| target | bones | reference | ratio (median of rounds) | goal | result |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in results:
        unit, name = r["unit"], f"{r['key']} {r['target']}"
        if r["status"] == "SKIP":
            lines.append(f"| {name} | | | | | SKIP ({r['reason']}) |")
        elif r["ratio"] is None:
            goal = fmt_value(r["goal"], unit)
            lines.append(
                f"| {name} | {fmt_value(r['value'], unit)} | | "
                f"| {'>=' if r['absolute'] == 'min' else '<='} {goal} | {r['status']} |"
            )
        else:
            spread = f" ({fmt_ratio(min(r['ratios']))} .. {fmt_ratio(max(r['ratios']))})"
            lines.append(
                f"| {name} | {fmt_value(r['value'], unit)} | "
                f"{fmt_value(r['other'], unit)} | {fmt_ratio(r['ratio'])}{spread} | "
                f"{'-' if r['goal'] is None else '>= ' + fmt_ratio(r['goal'])} | {r['status']} |"
            )
    return "\n".join(lines)


def machine_meta(args) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for mod, dist in (("bones", "bones"), ("pyspiel", "open-spiel"), ("dominoes", "dominoes")):
        try:
            from importlib.metadata import version

            versions[mod] = version(dist)
        except Exception:
            versions[mod] = None
    core_build = None
    try:  # which build of the core was measured: the newest extension module's mtime
        import bones.core

        mods = list(Path(bones.core.__file__).parent.glob("*.so"))
        mods += list(Path(bones.core.__file__).parent.glob("*.pyd"))
        if mods:
            newest = max(m.stat().st_mtime for m in mods)
            core_build = _dt.datetime.fromtimestamp(newest).astimezone().isoformat("T", "seconds")
    except Exception:
        pass
    cc = shutil.which("gcc") or shutil.which("cc")
    gcc = None
    if cc:
        gcc = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
        gcc = gcc.splitlines()[0] if gcc else None
    return {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": cpu,
        "nproc": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "gcc": gcc,
        "versions": versions,
        "core_build": core_build,
        "rounds": args.rounds,
        "budget": args.budget,
        "clock": args.clock,
        "command": " ".join(["python", *sys.argv]),
        "load_before": _load(),
    }


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per sample (default 1)")
    ap.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write the results as JSON to FILE (stdout when no FILE; then no table)",
    )
    ap.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu: each engine's own CPU time (default; robust on a shared machine); "
        "wall: elapsed time",
    )
    ap.add_argument(
        "--split",
        action="store_true",
        help="also time the Python loops' play phase alone (deal excluded), for information",
    )
    ap.add_argument(
        "--no-trains",
        action="store_true",
        help="leave out the train games' playouts (Mexican Train, Chicken Foot)",
    )
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    wl.use_clock(args.clock)
    meta = machine_meta(args)
    with tempfile.TemporaryDirectory(prefix="bones-bench-") as tmp:
        measures = build_measures(args.budget, Path(tmp), args.split, not args.no_trains)
        for m in measures:
            if m.missing:
                log(f"skipping {m.key}: {m.missing}")
        # warm-up: imports, first deals, calibration; not recorded
        t0 = time.perf_counter()
        for m in measures:
            if m.missing is None and m.unit != "us" and m.key != "ref":
                try:
                    m.sample(-1)
                except Exception as exc:
                    m.missing = f"failed: {type(exc).__name__}: {exc}"
        log(f"warm-up {time.perf_counter() - t0:.1f} s")
        run_all(measures, args.rounds, log)
    meta["load_after"] = _load()
    results = evaluate(measures)

    if args.json:
        payload = {
            "meta": meta,
            "measures": {
                m.key: {
                    "label": m.label,
                    "unit": m.unit,
                    "median": m.median(),
                    "missing": m.missing,
                    "samples": m.samples,
                }
                for m in measures
            },
            "targets": results,
        }
        text = json.dumps(payload, indent=2, default=str)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    if args.json != "-":
        print(render(measures, results, meta))
    if args.check and any(r["status"] == "FAIL" for r in results):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
