"""The figures of docs/matches.md on intervals at many seats and the fairness monitor.

``python bench/seats_fairness.py coverage --players 8 --matches 200 --deals 10``: how
often the 95% interval of random vs random (identical bots) on Chicken Foot covers 0 Elo;
each match's games are played through the runner's driver with the real schedule and
deals (fresh bot seeds per game: with the runner's seeds, by deal and seat, a seating and
its mirror replay one game and every deal scores exactly 50%) and summarised as the
runner does.

``python bench/seats_fairness.py false-alarms --bots greedy,random --players 2
--matches 200``: in how many matches of honest bots (50 deals of straight each, played in
the runner's shuffled order) the fairness monitor flags a bot.

``python bench/seats_fairness.py detection --matches 20``: in how many matches the
monitor flags tests/memory_plugin.py's deal-remembering bot against random (through
``run_match``; by default 3-player straight, 240 games: 40 deals; ``--variant``,
``--players``, ``--games`` change it).

Each prints the count, the share and its 95% Wilson interval.  tests/test_match_seats.py
runs the same functions (smaller in its fast tests).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from table_geometry import wilson

from bones.match import MatchConfig, run_match
from bones.match.driver import play_game
from bones.match.report import Summary
from bones.match.runner import plan, seatings

SECRET = "ab" * 32


def covered(players: int, matches: int, deals: int, seed: int = 0) -> int:
    """In how many of ``matches`` matches of ``deals`` deals the 95% interval of random
    vs random at ``players`` seats of Chicken Foot covers 50% (0 Elo)."""
    count = 0
    for m in range(matches):
        config = MatchConfig(
            bots=("random", "random"), variant="chicken-foot", players=players,
            games=deals * len(seatings(2, players)), seed=seed * 100_000 + m,
            secret=SECRET, timeout=None,
        )  # fmt: skip
        p = plan(config)
        summary = Summary(config.to_dict(), total=p.schedule.total, labels=p.labels)
        rng = random.Random(config.seed)
        for gid in range(p.schedule.total):
            seeds = [rng.getrandbits(63) for _ in range(players)]
            summary.add(play_game(p.task(gid, seeds)))
        e = summary.result()["pairs"][0]["estimate"]
        # no interval (every deal scored the same) covers nothing
        count += e["score_lo"] is not None and e["score_lo"] <= 0.5 <= e["score_hi"]
    return count


def false_alarms(bots: tuple[str, str], matches: int, seed: int, players: int = 2) -> int:
    """In how many of ``matches`` matches of honest bots, 50 deals of straight each at
    ``players`` seats played in the runner's order, the monitor flags a bot."""
    flagged = 0
    for m in range(matches):
        config = MatchConfig(
            bots=bots, players=players, games=50 * len(seatings(2, players)),
            seed=seed * 100_000 + m, secret=SECRET,
        )  # fmt: skip
        p = plan(config)
        summary = Summary(config.to_dict(), total=p.schedule.total, labels=p.labels)
        for gid in p.order():
            summary.add(play_game(p.task(gid)))
        flagged += bool(summary.result()["fairness"]["flagged"])
    return flagged


def detections(
    matches: int, seed: int = 100, variant: str = "straight", players: int = 3, games: int = 240
) -> int:
    """In how many of ``matches`` matches (``games`` games of ``variant`` at ``players``
    seats) the monitor flags the deal-remembering ``t-memory`` against random."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    hits = 0
    with tempfile.TemporaryDirectory() as folder:
        for m in range(matches):
            config = MatchConfig(
                bots=("t-memory", "random"), variant=variant, players=players, games=games,
                seed=seed + m, plugins=("memory_plugin",),
            )  # fmt: skip
            summary = run_match(config, Path(folder) / f"{m}.jsonl", jobs=1, progress=False)
            hits += summary["bots"][0]["fairness"]["flagged"]
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("coverage", "false-alarms", "detection"))
    parser.add_argument("--players", type=int, help="seats (default 3 for detection, else 2)")
    parser.add_argument("--variant", default="straight", help="detection's variant")
    parser.add_argument("--games", type=int, default=240, help="detection's games a match")
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--bots", default="greedy,random")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.players is None:
        args.players = 3 if args.what == "detection" else 2
    if args.what == "coverage":
        k = covered(args.players, args.matches, args.deals, args.seed)
        what = f"coverage at {args.players} seats, {args.deals} deals a match"
    elif args.what == "false-alarms":
        bots = tuple(args.bots.split(","))
        assert len(bots) == 2, "--bots takes two bot specs"
        k = false_alarms((bots[0], bots[1]), args.matches, args.seed, args.players)
        what = f"flagged matches of {args.bots} at {args.players} seats"
    else:
        k = detections(args.matches, args.seed, args.variant, args.players, args.games)
        what = (
            f"matches that flag t-memory ({args.variant}, {args.players} seats, {args.games} games)"
        )
    lo, hi = wilson(k, args.matches)
    n = args.matches
    print(f"{what}: {k}/{n} = {100 * k / n:.1f}% (95% Wilson [{100 * lo:.1f}%, {100 * hi:.1f}%])")


if __name__ == "__main__":
    main()
