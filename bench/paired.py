"""Two versions of a bot on the same deals, compared deal pair by deal pair.

    python bench/paired.py A.jsonl B.jsonl

A and B are journals of two head-to-head matches with the same match seed, opponent,
variant and player count (bench/strength.py's ``--journals``, or ``bones match``), whose
first bot differs (``pimc`` against ``pimc:infer=0``, say): the deal pairs then hold the
same deals.  For every deal pair complete in both, the first bot's mean game score
(``bones.match.stats.game_scores``, as the match summary counts it) is taken in each
journal; the report is each journal's mean over those pairs and the mean of B minus A, each
with its 95% interval (Student's t over the deal pairs, ``bones.match.stats``; a score's
shown clipped to 0-100%).
A name ending in ``.gz`` is read compressed (``bench/strength.py --archive``'s copies).
Pairing removes the deals' luck, shared by both, so the difference is much tighter than
the two intervals suggest.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from bones.match.journal import JournalError, JournalReader
from bones.match.stats import estimate_samples, game_scores, mean_interval


def pair_scores(path: str) -> tuple[dict[int, float], dict[str, Any]]:
    """``{group: bot 0's mean game score over the deal pair}`` for the complete pairs, and
    the journal's match config."""
    reader = JournalReader(path)
    try:
        if reader.config is None:
            raise JournalError(f"{path} holds no match (no complete header line)")
        config = reader.config  # the header's: seed, variant and bots do not change
        games: dict[int, list[float]] = {}
        seen: set[int] = set()
        for rec in reader.games(rounds=False):
            ranks = rec.get("ranks")
            if rec["id"] in seen or not ranks:
                continue
            seen.add(rec["id"])
            side_bots = [rec["seat_bots"][side[0]] for side in rec["sides"]]
            points, count = game_scores(ranks, side_bots).get(0, (0.0, 0))
            if count:
                games.setdefault(int(rec["group"]), []).append(points / count)
    finally:
        reader.close()
    return {g: math.fsum(v) / 2 for g, v in games.items() if len(v) == 2}, config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    args = parser.parse_args(argv)
    try:
        a, config_a = pair_scores(args.a)
        b, config_b = pair_scores(args.b)
    except JournalError as exc:
        parser.error(f"cannot read a journal: {exc}")
    for key in ("seed", "variant", "players"):
        if config_a.get(key) != config_b.get(key):
            parser.error(
                f"the journals differ in {key}: {config_a.get(key)} and {config_b.get(key)}"
            )
    if config_a.get("bots", [None])[1:] != config_b.get("bots", [None])[1:]:
        parser.error("the journals have different opponents")
    common = sorted(set(a) & set(b))
    if not common:
        parser.error("no deal pair is complete in both journals")
    bots = (config_a["bots"][0], config_b["bots"][0])
    for name, scores in zip(("A", "B"), (a, b), strict=True):
        e = estimate_samples([scores[g] for g in common])
        # shown clipped, as bench/strength.py does (NaN, not available, stays NaN)
        m, lo, hi = e.score, max(e.score_lo, 0.0), min(e.score_hi, 1.0)
        print(f"{name} {bots[name == 'B']}: {100 * m:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
    m, lo, hi = mean_interval([b[g] - a[g] for g in common])
    diff = f"{100 * m:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
    print(f"B - A over {len(common)} deal pairs: {diff} points")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
