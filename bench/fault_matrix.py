"""One match per fault of an external bot: the game it lost, the recorded reason, and
that the match completed.

    python bench/fault_matrix.py                 # every mode of tests/protocol_bots/misbehave.py
    python bench/fault_matrix.py --games 4 --mode crash --mode hang

Each match is ``misbehave.py MODE`` (a real process that misbehaves on its third move
request) against ``greedy``, 2-player Straight, ``--timeout 1``.  The table gives, per
mode, the games scheduled and played, the first game the bot forfeited, the reason and
the start of the detail the journal recorded.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MISBEHAVE = ROOT / "tests" / "protocol_bots" / "misbehave.py"

#: mode -> the reason the runner must record
MODES = {
    "crash": "crash",
    "exit_early": "crash",
    "hang": "timeout",
    "not_reading": "timeout",
    "garbage": "bad_frame",
    "bad_msgpack": "bad_frame",
    "not_a_map": "bad_frame",
    "zero_length": "bad_frame",
    "truncated": "crash",
    "wrong_type": "bad_frame",
    "wrong_id": "bad_frame",
    "no_move": "bad_frame",
    "unknown_type": "bad_frame",
    "oversized": "bad_frame",
    "illegal_index": "illegal",
    "illegal_move": "illegal",
}


def run(mode: str, games: int, workdir: Path) -> dict:
    from bones.match.runner import MatchConfig, run_match

    modefile = workdir / f"mode-{mode}"
    modefile.write_text(mode)
    spec = "cmd:" + shlex.join([sys.executable, str(MISBEHAVE), str(modefile)])
    config = MatchConfig(bots=(spec, "greedy"), games=games, timeout=1.0, seed=1)
    journal = workdir / f"{mode}.jsonl"
    summary = run_match(config, journal, jobs=1, progress=False)
    lost = []
    with open(journal) as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("type") == "game" and rec.get("forfeit"):
                lost.append(rec)
    first = min(lost, key=lambda r: r["id"]) if lost else None
    return {
        "mode": mode,
        "expected": MODES.get(mode),
        "scheduled": summary["scheduled"],
        "played": summary["played"],
        "forfeits": len(lost),
        "first_game": None if first is None else first["id"],
        "reason": None if first is None else first["forfeit"]["reason"],
        "detail": None if first is None else first["forfeit"]["detail"][:90],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--mode", action="append", choices=sorted(MODES))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.mode or list(MODES):
            rows.append(run(mode, args.games, Path(tmp)))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("| fault | reason (expected) | games played/scheduled | lost | first lost | detail |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print(
                f"| {r['mode']} | {r['reason']} ({r['expected']}) | {r['played']}/{r['scheduled']}"
                f" | {r['forfeits']} | {r['first_game']} | {r['detail']} |"
            )
    bad = [r["mode"] for r in rows if r["reason"] != r["expected"] or r["played"] != r["scheduled"]]
    if bad:
        print(f"unexpected: {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
