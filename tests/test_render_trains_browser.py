"""The train games' pictures in a real headless Chromium: the replay of a Mexican Train
and of a Chicken Foot game stepped through (the board's tiles checked at every step),
with no console error; screenshots are kept under tests/artifacts/."""

from __future__ import annotations

import base64
import os

import pytest
from browser import Browser, find_browser

from bones import Round, new_game
from bones.cli import main
from bones.match.journal import read_journal

pytest.importorskip("websocket", reason="the browser tests need websocket-client (bones[test])")
pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no chromium on PATH (apt-get install chromium; .ci/run does)"
)

ARTIFACTS = os.path.join(os.path.dirname(__file__), "artifacts")
TILES = "document.querySelectorAll('#board svg .board .tile:not(.engine)').length"
ENGINE = "document.querySelector('#board svg .board .engine').dataset.tile"


@pytest.fixture(scope="module")
def browser():
    with Browser.start(1100, 900) as b:
        yield b


def expected(record):
    """Per step: the tiles on the table and the round's engine, from the engine alone."""
    game = new_game(record["variant"], record["players"], record["seed"], **record["options"])
    steps = []
    for index, entry in enumerate(record["rounds"]):
        moves = Round.from_msgpack(base64.b64decode(entry["round"])).moves
        rnd = game.round
        engine = f"{rnd.engine}-{rnd.engine}"
        steps.append((0, engine))
        for move in moves:
            rnd.play(move)
            steps.append((len(rnd.placements), engine))
        if index < len(record["rounds"]) - 1:
            game.next_round()
    return steps


@pytest.mark.parametrize("variant,players", [("mexican-train", 4), ("chicken-foot", 3)])
def test_train_replay_in_the_browser(browser, tmp_path, variant, players):
    journal = tmp_path / "m.jsonl"
    argv = ["match", "greedy", "random", "--variant", variant, "--players", str(players)]
    argv += ["--games", "1", "--journal", str(journal), "--jobs", "1", "--progress", "never"]
    assert main(argv) == 0
    record = read_journal(journal).records[0]
    steps = expected(record)
    page = tmp_path / "replay.html"
    assert main(["replay", str(journal), "--game", str(record["id"]), "--html", str(page),
                 "--seat", "0"]) == 0  # fmt: skip
    browser.errors.clear()
    browser.open(str(page))
    shot = False
    for i, (tiles, engine) in enumerate(steps[:150]):  # the first rounds: enough, and quick
        assert browser.eval("document.body.dataset.step") == str(i)
        assert browser.eval(TILES) == tiles, f"step {i}"
        assert browser.eval(ENGINE) == engine
        hidden = browser.eval("document.querySelectorAll('#board .hand[data-visible=no]').length")
        assert hidden == players - 1
        if not shot and tiles >= 20:
            os.makedirs(ARTIFACTS, exist_ok=True)
            browser.screenshot(os.path.join(ARTIFACTS, f"replay-{variant}.png"))
            shot = True
        browser.key("ArrowRight", 39)
    browser.click("#last")
    assert browser.eval(TILES) == steps[-1][0]
    assert browser.errors == []
