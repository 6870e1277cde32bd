"""Make the screenshots of docs/render.md with the test suite's headless Chromium.

    python docs/images/make_images.py      (needs chromium, websocket-client, matplotlib)

A Multiplayer position on the bounded table with a closed end (board.png), a step of a
replay just after the spinner was laid (replay.png, opened at ``#step-15``) and a match
report in a window 885 px wide (report.png), from fixed seeds.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))

from browser import Browser  # noqa: E402

import bones  # noqa: E402
from bones.cli import main  # noqa: E402
from bones.render import svg_of  # noqa: E402


def closed_end_position() -> bones.Round:
    """The first random Multiplayer round (seed 0 up) with a closed end and 15 tiles."""
    for seed in range(1000):
        rnd = bones.Round.deal("multiplayer", 2, seed=seed)
        rng = random.Random(seed)
        while not rnd.is_over:
            rnd.play(rng.choice(list(rnd.legal_moves)))
            if rnd.closed_ends and len(rnd.placements) >= 15:
                return rnd
    raise SystemExit("no position with a closed end found")


def main_() -> None:
    work = tempfile.mkdtemp(prefix="bones-images-")
    board = os.path.join(work, "board.svg")
    rnd = closed_end_position()
    with open(board, "w") as f:
        f.write(svg_of(rnd.observation(0)))
    journal = os.path.join(work, "m.jsonl")
    argv = ["match", "greedy", "random", "--games", "40", "--sprt", "elo0=0", "elo1=100"]
    secret = ["--secret", "5eed" * 16]  # the same bot seeds every time: the same pictures
    main([*argv, *secret, "--journal", journal, "--jobs", "1", "--progress", "never"])
    replay = os.path.join(work, "replay.html")
    main(["replay", journal, "--game", "0", "--html", replay])
    report = os.path.join(work, "report.html")
    main(["report", journal, "--html", report])
    shots = [
        (board, "board.png", (472, 590), ""),
        (replay, "replay.png", (1700, 1000), "step-15"),  # round 1, move 14
        (report, "report.png", (885, 1300), ""),
    ]
    for page, name, (width, height), fragment in shots:
        with Browser.start(width, height) as b:
            b.open(page, fragment)
            b.screenshot(os.path.join(HERE, name))
            assert not b.errors, b.errors


if __name__ == "__main__":
    main_()
