"""One bot's game score over the deal pairs of several `bones match` journals together:
each journal summarized as `bones match` summarizes it (`summarize_journal`: a deal's
score is the bot's mean over the deal's games), the journals' deals then taken as one
sample, with the 95% interval over the deals (`bones.match.stats.estimate`: Student's
t).  For matches of the same two bots on different seeds, whose deals are independent:
docs/strength.md pools its `pimc` runs against `chain` ("Goals") and against `expert` at
8 seats so.

    python bench/pool_games.py pimc A.jsonl B.jsonl

Deals of different journals are different deals even when their numbers are equal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NamedTuple

from bones.match.journal import JournalError
from bones.match.report import summarize_journal
from bones.match.stats import estimate


class Deals(NamedTuple):
    """A bot's deal scores in summary: how many, their mean and their sample variance."""

    n: int
    mean: float
    variance: float


def journal_deals(path: str, bot: str) -> Deals:
    """``bot``'s deal scores in the journal at ``path``, as ``bones match`` reports them."""
    try:
        summary = summarize_journal(path)
    except JournalError as exc:
        raise SystemExit(str(exc)) from None
    for row in summary["bots"]:
        if row["bot"] == bot:
            e = row["estimate"]
            return Deals(e["n"], e["score"] or 0.0, e["variance"] or 0.0)  # None: n < 2
    names = ", ".join(repr(row["bot"]) for row in summary["bots"]) or "none"
    raise SystemExit(f"{path}: no seat of {bot!r} (its bots: {names})")


def pool(parts: Sequence[Deals]) -> Deals:
    """The deals of ``parts`` as one sample: the mean and the sample variance that the
    whole list of deal scores gives (within each part's spread, plus between the parts)."""
    n = sum(p.n for p in parts)
    if n == 0:
        return Deals(0, 0.0, 0.0)
    mean = sum(p.n * p.mean for p in parts) / n
    spread = sum((p.n - 1) * p.variance + p.n * (p.mean - mean) ** 2 for p in parts if p.n)
    return Deals(n, mean, spread / (n - 1) if n > 1 else 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bot", help="the bot's name as `bones match` reports it")
    ap.add_argument("journals", nargs="+", help="journals of `bones match`")
    args = ap.parse_args(argv)
    parts = []
    for path in args.journals:
        parts.append(journal_deals(path, args.bot))
        print(f"{path}: {line(args.bot, parts[-1])}")
    print(f"pooled: {line(args.bot, pool(parts))}")
    return 0


def line(bot: str, deals: Deals) -> str:
    est = estimate(deals.mean, deals.variance, deals.n)
    note = f" ({est.note})" if est.note else ""
    return f"{deals.n} deals, {bot} {est.score:.1%} [{est.score_lo:.1%}, {est.score_hi:.1%}]{note}"


if __name__ == "__main__":
    sys.exit(main())
