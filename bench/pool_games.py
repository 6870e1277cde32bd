"""One bot's game score over the deal pairs of several `bones match` journals together,
as `bones match` computes it for one journal: each game's pairwise score from its ranks
(`bones.match.stats.game_scores`), a deal's score the mean of its games, and the 95%
interval over the deals (`estimate_samples`: Student's t).  For matches of the same two
bots on different seeds, whose deals are independent: docs/strength.md pools its `pimc`
runs against `chain` ("Goals") and against `expert` at 8 seats so.

    python bench/pool_games.py pimc A.jsonl B.jsonl

A deal is counted once all of its games are in its journal; deals of different journals
are different deals even when their numbers are equal.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from bones.match.journal import JournalError, read_journal
from bones.match.stats import estimate_samples, game_scores


def deal_scores(path: str, bot: str) -> list[float]:
    """``bot``'s score in each complete deal of the journal at ``path``."""
    try:
        data = read_journal(path)
    except JournalError as exc:
        raise SystemExit(str(exc)) from None
    if data.config is None:
        raise SystemExit(f"{path}: not a match journal (no header)")
    per_deal: dict[int, list[float]] = defaultdict(list)
    games_per_deal = 0
    for rec in data.records:
        if rec.get("ranks") is None:  # an aborted game has no result
            continue
        seats = rec["seats"]
        if bot not in seats:
            raise SystemExit(f"{path}: game {rec.get('id')} has no seat of {bot!r}")
        sides = [0 if s == bot else 1 for s in seats]
        points, comparisons = game_scores(rec["ranks"], sides)[0]
        per_deal[rec["deal"]].append(points / comparisons)
        games_per_deal = max(games_per_deal, len(per_deal[rec["deal"]]))
    return [sum(v) / len(v) for v in per_deal.values() if len(v) == games_per_deal]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bot", help="the bot's name as the journals' seats give it")
    ap.add_argument("journals", nargs="+", help="journals of `bones match`")
    args = ap.parse_args(argv)
    pooled: list[float] = []
    for path in args.journals:
        scores = deal_scores(path, args.bot)
        print(f"{path}: {line(args.bot, scores)}")
        pooled += scores
    print(f"pooled: {line(args.bot, pooled)}")
    return 0


def line(bot: str, scores: list[float]) -> str:
    est = estimate_samples(scores)
    note = f" ({est.note})" if est.note else ""
    return (
        f"{len(scores)} deals, {bot} {est.score:.1%} [{est.score_lo:.1%}, {est.score_hi:.1%}]{note}"
    )


if __name__ == "__main__":
    sys.exit(main())
