"""How often the bounded table matters: random Multiplayer rounds, bounded against unbounded.

    python bench/table_geometry.py [--rounds 20000] [--width 8] [--height 5]

Each round is dealt from seed ``s`` (``s = 0, 1, ...``) and played with uniformly random
legal moves (``random.Random(s)``), once with ``geometry=unbounded`` and once on the bounded
table (same deals, same move-choice seeds).  Reported per geometry: rounds in which an end
closed, rounds in which both ends were closed at the end, rounds that ended blocked, and
how many tiles were placed, each count with its share and a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

from bones import Round


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k / n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(rounds: int, **options: object) -> dict[str, int]:
    counts = {"an end closed": 0, "both ends closed": 0, "blocked": 0, "tiles placed": 0}
    for seed in range(rounds):
        r = Round.deal("multiplayer", 2, seed=seed, **options)
        choose = random.Random(seed).choice
        closed = False
        while not r.is_over:
            r.play(choose(list(r.legal_moves)))
            closed = closed or bool(r.closed_ends)
        counts["an end closed"] += closed
        counts["both ends closed"] += len(r.closed_ends) == 2
        counts["blocked"] += r.result.reason == "blocked"
        counts["tiles placed"] += len(r.layout)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--width", type=int, default=8, help="table_width (tile lengths)")
    parser.add_argument("--height", type=int, default=5, help="table_height (tile lengths)")
    args = parser.parse_args(argv)
    n = args.rounds
    runs = {
        "unbounded": play(n, geometry="unbounded"),
        f"bounded {args.width}x{args.height}": play(
            n, geometry="bounded", table_width=args.width, table_height=args.height
        ),
    }
    print(f"{n} random Multiplayer rounds per geometry (seeds 0..{n - 1}), 95% Wilson intervals")
    for name, counts in runs.items():
        print(f"\n{name}")
        for what, k in counts.items():
            if what == "tiles placed":
                print(f"  {what:18} {k / n:8.2f} per round")
                continue
            low, high = wilson(k, n)
            print(f"  {what:18} {k:6} = {k / n:7.2%}  [{low:.2%}, {high:.2%}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
