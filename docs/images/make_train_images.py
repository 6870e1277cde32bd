"""Make the train games' pictures of docs/render.md with the test suite's headless Chromium.

    python docs/images/make_train_images.py      (needs chromium, websocket-client, Pillow)

A Mexican Train round (4 players, double-12) with a double to satisfy and two markers out
(trains.png), and a Chicken Foot round (4 players, double-9) with toes due, as seat 0
sees it (chicken-foot.png); both from fixed seeds, random moves.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))

from browser import Browser  # noqa: E402
from PIL import Image  # noqa: E402

from bones.core.trains import TrainRound  # noqa: E402
from bones.render import svg_of  # noqa: E402


def find(layout: str, set_max: int, wanted) -> TrainRound:  # type: ignore[no-untyped-def]
    """The first random round (seed 0 up) that reaches a position ``wanted`` accepts."""
    for seed in range(2000):
        rnd = TrainRound.deal(layout, set_max=set_max, players=4, seed=seed)
        rng = random.Random(seed)
        while not rnd.is_over:
            rnd.play(rng.choice(rnd.legal_moves))
            if wanted(rnd):
                return rnd
    raise SystemExit(f"no {layout} position found")


def mexican(rnd: TrainRound) -> bool:
    return (
        rnd.pending is not None
        and sum(public for _, _, public in rnd.trains[:4]) >= 2
        and len(rnd.placements) >= 40
    )


def foot(rnd: TrainRound) -> bool:
    return (
        rnd.pending is not None
        and rnd.pending != f"{rnd.engine}-{rnd.engine}"
        and len(rnd.placements) >= 24
    )


def main_() -> None:
    work = tempfile.mkdtemp(prefix="bones-images-")
    shots = [
        ("trains", svg_of(find("trains", 12, mexican), ["greedy", "random"] * 2)),
        ("chicken-foot", svg_of(find("chicken_foot", 9, foot).observation(0))),
    ]
    for name, svg in shots:
        path = os.path.join(work, f"{name}.svg")
        with open(path, "w") as f:
            f.write(svg)
        width = int(float(svg.split("width='", 1)[1].split("'", 1)[0]))
        height = int(float(svg.split("height='", 1)[1].split("'", 1)[0]))
        png = os.path.join(work, f"{name}.png")
        with Browser.start(width, height) as b:
            b.open(path)
            b.screenshot(png)
            assert not b.errors, b.errors
        with Image.open(png) as im:  # the page's size, in 256 colours: small files
            im = im.crop((0, 0, width, height)).convert("RGB")
            im = im.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
            im.save(os.path.join(HERE, f"{name}.png"), optimize=True)


if __name__ == "__main__":
    main_()
