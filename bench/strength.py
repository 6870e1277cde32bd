"""Regenerate docs/strength.md: every bot against random, greedy, expert and montecarlo,
for each variant and player count, on duplicate deals, with 95% intervals and the time
per move.

    python bench/strength.py --out docs/strength.md --pairs 2000 --jobs 1

``--pairs``: deal pairs (duplicate sets) per pairing; ``--goal-pairs``: deal pairs for the
two pairings the acceptance goals name (expert against greedy, pimc against montecarlo at
6,400 samples, both in 2-player straight); ``--configs``: variants and player counts;
``--bots`` and ``--opponents``: the bot specs.  Each pairing is one ``bones.match`` run
(``run_match``: head-to-head, duplicate deals, match seed ``--seed``); its journal goes to
``--journals`` so a killed run resumes where it stopped, and ``--report`` writes the page
from the journals without playing (a long run done in parts).  ``--archive DIR`` keeps a
copy of each journal without the moves (gzip, about 65 bytes a game: small enough to
commit) and brings a journal back from it on a machine that has none, so a run in parts
survives a new machine.  The time per move is measured apart: each bot chooses in the
same ``--positions`` mid-round positions per configuration (random moves from seeded
deals, the median of three decisions each), one after the other in one process.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import os
import random
import statistics
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import bones
from bones.match import MatchConfig, run_match
from bones.match.journal import JournalReader, without_moves, write_private
from bones.match.report import summarize_journal
from bones.match.stats import SPRT

CONFIGS = (
    "straight:2",
    "straight:4",
    "block:2",
    "block:4",
    "kozel:2",
    "kozel:4",
    "multiplayer:2",
    "draw:2",
)
BOTS = ("expert", "pimc", "ismcts")
OPPONENTS = ("random", "greedy", "expert", "montecarlo")
GOALS = (
    ("expert", "greedy", "straight:2", "expert >= 65% against greedy"),
    (
        "pimc",
        "montecarlo:simulations=6400",
        "straight:2",
        "pimc (default budget) >= 60% against montecarlo at 6,400 samples",
    ),
)


def positions(variant: str, players: int, count: int, seed: int = 0) -> list[bones.Round]:
    """Mid-round positions with a choice: seeded deals, a random number of random moves."""
    rng = random.Random(seed)
    out: list[bones.Round] = []
    deal = seed
    while len(out) < count:
        rnd = bones.Round.deal(variant, players=players, seed=deal)
        deal += 1
        for _ in range(rng.randrange(0, 14)):
            if rnd.is_over:
                break
            rnd.play(rng.choice(list(rnd.legal_moves)))
        if not rnd.is_over and len(rnd.legal_moves) > 1:
            out.append(rnd)
    return out


REPEATS = 3  # decisions timed per position; the median is kept, so one descheduling or
# page fault does not become the largest time of a bot that takes microseconds


def time_per_move(spec: str, rounds: list[bones.Round]) -> tuple[float, float, float]:
    """Mean and largest CPU milliseconds per decision of ``spec`` over the positions (each
    the median of ``REPEATS`` decisions), and the mean wall milliseconds (longer on a
    loaded machine)."""
    bot = bones.make_bot(spec, seed=1)
    first = rounds[0]
    bot.choose(first.observation(first.to_move or 0), tuple(first.legal_moves))  # warm up
    cpu, wall = [], []
    for rnd in rounds:
        seat = rnd.to_move
        assert seat is not None
        obs, legal = rnd.observation(seat), tuple(rnd.legal_moves)
        times = []
        for _ in range(REPEATS):
            start, start_cpu = time.perf_counter(), time.process_time()
            bot.choose(obs, legal)
            times.append(
                ((time.process_time() - start_cpu) * 1e3, (time.perf_counter() - start) * 1e3)
            )
        times.sort()
        cpu.append(times[REPEATS // 2][0])
        wall.append(statistics.median(w for _, w in times))
    return statistics.fmean(cpu), max(cpu), statistics.fmean(wall)


PLAYED: dict[str, float] = {}  # the seconds of play each pairing's journal holds, by its
# name (a pairing on the page twice, as a goal and in its table, counts once)


def journal_name(bot: str, opponent: str, config: str, seed: int) -> str:
    """The file name of a pairing's journal (its archive copy adds ``.gz``)."""
    variant, players = config.split(":")
    name = f"{bot}-vs-{opponent}-{variant}{players}-seed{seed}".replace(":", "_")
    return f"{name.replace('=', '')}.jsonl"


def play(
    bot: str,
    opponent: str,
    config: str,
    pairs: int,
    args: argparse.Namespace,
    sprt: SPRT | None = None,
    plugins: tuple[str, ...] = (),
) -> Any:
    variant, players = config.split(":")
    match = MatchConfig(
        bots=(bot, opponent),
        variant=variant,
        players=int(players),
        games=2 * pairs,
        seed=args.seed,
        timeout=None,
        sprt=sprt,
        plugins=plugins,
    )
    journal = Path(args.journals) / journal_name(bot, opponent, config, args.seed)
    archived = Path(args.archive) / f"{journal.name}.gz" if args.archive else None
    if archived is not None:
        restore(journal, archived)
    if args.report:
        if not journal.exists():
            nan = float("nan")
            return {"games": 0, "pairs": 0, "score": nan, "lo": nan, "hi": nan, "sprt": None}
        summary = summarize_journal(journal, total=match.games)
    else:
        summary = run_match(match, journal, jobs=args.jobs, progress=False)
    if archived is not None:
        keep(journal, archived)
    PLAYED[journal.name] = seconds(journal)
    first = summary["bots"][0]
    est = first["estimate"]
    return {
        "games": first["games"],
        "pairs": est["n"],  # complete deal pairs: a pair cut short by a kill is left out
        "score": 100 * est["score"],
        "lo": 100 * est["score_lo"],
        "hi": 100 * est["score_hi"],
        "sprt": summary["sprt"],
    }


def seconds(journal: Path) -> float:
    """The wall seconds of the games a journal holds, each by its own clock (read as the
    summary reads them: each game once, a line cut short by a kill left out)."""
    reader = JournalReader(journal)
    try:
        return sum(float(game.get("seconds") or 0) for game in reader.games(rounds=False))
    finally:
        reader.close()


def _read_archive(archived: Path) -> bytes:
    try:
        data = gzip.decompress(archived.read_bytes())
        if not data.startswith(b'{"type":"match"'):
            raise ValueError("not a journal: no match header")
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise SystemExit(
            f"strength.py: the archive {archived} cannot be read ({exc}); it is left as it is"
        ) from None
    return data


def _games(data: bytes) -> int:
    return data.count(b'\n{"type":"game"')


def restore(journal: Path, archived: Path) -> None:
    """Bring a pairing's journal back from its archive copy when this machine has none:
    the games it holds are reported, and kept when the run resumes."""
    if not journal.exists() and archived.exists():
        write_private(journal, _read_archive(archived))


def keep(journal: Path, archived: Path) -> None:
    """Write the archive copy of a pairing's journal: its lines without the moves
    (``without_moves``), compressed the same way each time, so that a journal with no new
    line leaves its copy as it is.  A copy holding more games than the journal is kept."""
    if not journal.exists():
        return
    data = without_moves(journal.read_bytes())
    if archived.exists():
        old = _read_archive(archived)
        if old == data:
            return
        if _games(old) > _games(data):
            print(
                f"strength.py: {archived} holds more games than {journal}; kept as it is",
                file=sys.stderr,
            )
            return
    archived.parent.mkdir(parents=True, exist_ok=True)
    partial = archived.with_name(archived.name + ".part")
    write_private(partial, gzip.compress(data, compresslevel=9, mtime=0))
    os.replace(partial, archived)


def dominoes_section(args: argparse.Namespace) -> list[str]:
    """pimc against the dominoes package's probabilistic_alphabeta (bench/dominoes_bot.py),
    4-player partnership block, with the time per move of each."""
    here = str(Path(__file__).resolve().parent)
    sys.path.insert(0, here)  # the worker processes get it through PYTHONPATH
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    from bones.match.runner import load_plugins

    load_plugins(["dominoes_bot"])
    result = play(
        "pimc", "dominoes-pab", "block:4", args.dominoes_pairs, args, None, ("dominoes_bot",)
    )
    rounds = positions("block", 4, args.positions)
    times = {spec: time_per_move(spec, rounds) for spec in ("pimc", "dominoes-pab")}
    return [
        "`bench/dominoes_bot.py` wraps the `dominoes` package's (abw333) "
        "`probabilistic_alphabeta` player (defaults: 4 sampled hands per decision, search "
        "from move 14 on) as the bot `dominoes-pab`; it builds the package's `Game` from "
        "the observation on a deal from the exact sampler. 4-player partnership block, "
        f"`pimc` (default budget) against it: {cell(result)} over "
        f"{result['pairs']} deal pairs. CPU ms per move, mean and max "
        "(wall mean): "
        + "; ".join(f"`{k}` {m:.3f}, {w:.2f} ({wall:.2f})" for k, (m, w, wall) in times.items())
        + ".",
    ]


def cell(result: dict[str, Any], pairs: int | None = None) -> str:
    """The score with its interval; with ``pairs``, the deal pairs when fewer (a
    ``--report`` of an unfinished run)."""
    if not result["pairs"]:
        return "not played yet"
    lo, hi = max(0.0, result["lo"]), min(100.0, result["hi"])  # the normal interval, clipped
    text = f"{result['score']:.1f}% [{lo:.1f}, {hi:.1f}]"
    if pairs is not None and result["pairs"] < pairs:
        text += f" ({result['pairs']} pair{'s' if result['pairs'] > 1 else ''})"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/strength.md")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument(
        "--goal-pairs",
        default="2000,2000",
        help="deal pairs of the two goal pairings (expert-greedy, pimc-montecarlo; 0: skip)",
    )
    parser.add_argument(
        "--sprt-pairs",
        type=int,
        default=2000,
        help="most deal pairs of the SPRT of ismcts against pimc (0: skip it)",
    )
    parser.add_argument(
        "--pimc-pairs",
        type=int,
        default=2000,
        help="deal pairs of pimc against montecarlo in every configuration, for the goal "
        "that it scores above 50%% in each (0: skip)",
    )
    parser.add_argument(
        "--dominoes-pairs",
        type=int,
        default=2000,
        help="deal pairs of pimc against dominoes-pab, 4-player block (0: skip; needs "
        "the dominoes package)",
    )
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--bots", default=",".join(BOTS))
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--journals", default="strength-journals")
    parser.add_argument(
        "--archive",
        help="a folder of the journals' copies without the moves: written after each "
        "pairing (and by --report), read where a journal is missing",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="play nothing: write the page from what the journals hold (a run in parts)",
    )
    args = parser.parse_args(argv)
    os.makedirs(args.journals, exist_ok=True)
    configs = args.configs.split(",")
    bots = args.bots.split(",")
    opponents = args.opponents.split(",")
    given = sys.argv[1:] if argv is None else argv
    command = "python bench/strength.py " + " ".join(a for a in given if a != "--report")
    started = time.perf_counter()
    PLAYED.clear()
    lines = [
        "# Strength of the bots",
        "",
        "Generated by `bench/strength.py`; do not edit by hand. Regenerate with:",
        "",
        "```console",
        f"$ {command}",
        "```",
        "",
        f"{'Reported' if args.report else 'Run'} on {datetime.date.today().isoformat()} "
        f"with bones {bones.__version__}: {args.pairs} deal pairs per pairing "
        f"({args.goal_pairs} for the two goals), `--jobs {args.jobs}`, match seed "
        f"{args.seed}.",
        "",
        *(
            [
                "The run is not finished: this page is `--report` of its journals (written "
                "without playing; the command above resumes the run). A cell with fewer "
                "deal pairs than asked shows its count.",
                "",
            ]
            if args.report
            else []
        ),
        "Each cell is the row bot's game score against the column bot (`bones match`: "
        "head-to-head, duplicate deals, every deal played twice with the sides swapped; "
        "a game is played to the variant's target), with its 95% interval over the deal "
        "pairs (docs/matches.md: mean ± 1.96 standard errors, shown clipped to 0–100%). "
        "Time per move: the mean and the largest CPU milliseconds "
        f"per decision over {args.positions} mid-round positions (random moves from "
        f"seeded deals; each position the median of {REPEATS} decisions), and the mean "
        "wall milliseconds, measured one bot after the other "
        "in one process; the budgets of `pimc` and `ismcts` are in CPU time, so the wall "
        "time is longer on a loaded machine but the work per move is about the same.",
        "",
        "## Goals",
        "",
        "| goal | pairing | deal pairs | score, 95% interval | met |",
        "|---|---|---|---|---|",
    ]
    goal_pairs = [int(n) for n in args.goal_pairs.split(",")]
    for (bot, opponent, config, goal), pairs in zip(GOALS, goal_pairs, strict=True):
        if not pairs:
            continue
        result = play(bot, opponent, config, pairs, args)
        threshold = 65.0 if bot == "expert" else 60.0
        met = (
            "not played yet"
            if not result["pairs"]
            else "yes"
            if result["lo"] >= threshold
            else "no"
            if result["hi"] < threshold
            else "not decided (the interval contains the goal)"
        )
        lines.append(
            f"| {goal} | `{bot}` vs `{opponent}`, {config.replace(':', ', ')} players "
            f"| {result['pairs']} | {cell(result)} | {met} |"
        )
        print(lines[-1], flush=True)
    if args.sprt_pairs:
        test = SPRT(elo0=0.0, elo1=30.0, alpha=0.05, beta=0.05)
        result = play("ismcts", "pimc", "straight:2", args.sprt_pairs, args, test)
        sprt = result["sprt"]
        decision = {
            "H1": "ismcts is stronger (H1: at least +30 Elo)",
            "H0": "ismcts is not stronger (H0: at most +0 Elo)",
        }.get(
            str(sprt["decision"]) if sprt else "",
            f"not decided within {args.sprt_pairs} deal pairs",
        )
        lines += [
            "",
            "## `ismcts` against `pimc` (SPRT)",
            "",
            "GSPRT of H0 `elo <= 0` against H1 `elo >= 30`, alpha = beta = 0.05, 2-player "
            + (
                f"straight: {decision}; LLR {sprt['llr']:.2f} (bounds {sprt['lower']:.2f}, "
                f"{sprt['upper']:.2f}) after {sprt['units']} deal pairs; `ismcts` scored "
                f"{cell(result)}."
                if sprt
                else "straight: not played yet."
            ),
        ]
        print(lines[-1], flush=True)
    if args.pimc_pairs:
        lines += [
            "",
            "## `pimc` against `montecarlo` in every variant",
            "",
            "The goal: above 50% with the interval clear of it, in every variant and "
            f"player count; {args.pimc_pairs} deal pairs each (the cells of the tables "
            "below have fewer where `--pairs` is smaller).",
            "",
            "| variant, players | deal pairs | `pimc` vs `montecarlo` | above 50% |",
            "|---|---|---|---|",
        ]
        for config in configs:
            result = play("pimc", "montecarlo", config, args.pimc_pairs, args)
            clear = (
                "not played yet"
                if not result["pairs"]
                else "yes"
                if result["lo"] > 50
                else "no"
                if result["hi"] < 50
                else "not clear"
            )
            lines.append(
                f"| {config.replace(':', ', ')} | {result['pairs']} | {cell(result)} | {clear} |"
            )
            print(lines[-1], flush=True)
    for config in configs:
        variant, players = config.split(":")
        rounds = positions(variant, int(players), args.positions)
        lines += [
            "",
            f"## {variant}, {players} players",
            "",
            "| bot | CPU ms/move: mean, max (wall mean) | "
            + " | ".join(f"vs `{o}`" for o in opponents)
            + " |",
            "|---|---|" + "---|" * len(opponents),
        ]
        for bot in bots:
            mean, worst, wall = time_per_move(bot, rounds)
            row = [f"`{bot}`", f"{mean:.3f}, {worst:.2f} ({wall:.2f})"]
            for opponent in opponents:
                if opponent == bot:
                    row.append("—")
                    continue
                row.append(cell(play(bot, opponent, config, args.pairs, args), args.pairs))
            lines.append("| " + " | ".join(row) + " |")
            print(lines[-1], flush=True)
    if args.dominoes_pairs:
        lines += ["", "## Across engines: `pimc` against abw333/dominoes", ""]
        try:
            import dominoes  # noqa: F401
        except ImportError:
            lines.append("Not run: the `dominoes` package is not installed (`bench` extra).")
        else:
            lines += dominoes_section(args)
        print(lines[-1], flush=True)
    minutes = (time.perf_counter() - started) / 60
    hours = sum(PLAYED.values()) / 3600
    lines += [
        "",
        f"The games on this page took {hours:.1f} hours of play, the sum of each game's "
        "own wall time in the journals (`--jobs` plays that many at a time).",
    ]
    if not args.report:
        lines[-1] += (
            f" Wall time of this invocation: {minutes:.1f} minutes (games already in the "
            "journals are kept, not replayed: the same command resumes a run, and a larger "
            "`--pairs` extends it)."
        )
    lines.append("")
    Path(args.out).write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
