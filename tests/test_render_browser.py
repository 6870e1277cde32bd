"""The pages in a real headless Chromium: the replay stepped through a whole game (the
board's tile count checked at every step), the match report and a position's SVG, with
no console error; screenshots are kept under tests/artifacts/."""

from __future__ import annotations

import base64
import os

import pytest
from browser import Browser, find_browser

from bones import Round, new_game
from bones.cli import main
from bones.match.journal import load_record, read_journal

pytest.importorskip("websocket", reason="the browser tests need websocket-client (bones[test])")
pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no chromium on PATH (apt-get install chromium; .ci/run does)"
)

ARTIFACTS = os.path.join(os.path.dirname(__file__), "artifacts")
TILES = "document.querySelectorAll('#board svg .board .tile').length"


def artifact(name: str) -> str:
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name)
    print(f"screenshot: {path}")
    return path


@pytest.fixture(scope="module")
def browser():
    with Browser.start() as b:
        yield b


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    """A straight match (spinners, counts) and a 3-player draw match (draws and passes)."""
    root = tmp_path_factory.mktemp("pages")
    paths = {}
    for variant, players, bots in (("straight", 2, 2), ("draw", 3, 3)):
        path = root / f"{variant}.jsonl"
        argv = ["match", *["greedy", "random", "heaviest"][:bots]]
        argv += ["--variant", variant, "--players", str(players), "--games", str(2 * players)]
        argv += ["--journal", str(path), "--jobs", "1", "--progress", "never"]
        if variant == "straight":
            argv += ["--sprt", "elo0=0", "elo1=50"]
        assert main(argv) == 0
        paths[variant] = path
    return paths


def expected_steps(record):
    """Per step of the replay: the tiles on the table and the public events' kinds,
    recomputed with the engine alone."""
    game = new_game(record["variant"], record["players"], record["seed"], **record["options"])
    steps = []
    for index, entry in enumerate(record["rounds"]):
        moves = Round.from_msgpack(base64.b64decode(entry["round"])).moves
        rnd = game.round
        steps.append((0, {e.kind for e in rnd.events}))
        for move in moves:
            seen = len(rnd.events)
            rnd.play(move)
            tiles = sum(1 + (m.tile2 is not None) for m in rnd.layout)
            steps.append((tiles, {e.kind for e in rnd.events[seen:]}))
        if index < len(record["rounds"]) - 1:
            game.next_round()
    return steps


@pytest.mark.parametrize("variant", ["straight", "draw"])
def test_replay_steps_through_a_whole_game(browser, journal, tmp_path, capsys, variant):
    # the first game with a pass (the draw game's boneyard runs out): every kind of line
    record, steps = next(
        (r, s)
        for r in read_journal(journal[variant]).records
        for s in [expected_steps(r)]
        if variant != "draw" or any("pass" in kinds for _, kinds in s)
    )
    gid = str(record["id"])
    page = tmp_path / "replay.html"
    assert main(["replay", str(journal[variant]), "--game", gid, "--html", str(page)]) == 0
    browser.errors.clear()
    browser.open(str(page))
    kinds = set()
    shot = None
    for i, (tiles, events) in enumerate(steps):
        assert browser.eval("document.body.dataset.step") == str(i)
        assert browser.eval(TILES) == tiles, f"step {i}"
        text = browser.eval("document.getElementById('events').textContent")
        if "draw" in events:
            assert "draws" in text and "from the boneyard" in text
        if "pass" in events:
            assert "passes: no tile for the open ends" in text
        kinds |= events
        if shot is None and tiles >= 8:
            shot = artifact(f"replay-{variant}.png")
            browser.screenshot(shot)
        browser.key("ArrowRight", 39)
    assert browser.eval("document.body.dataset.step") == str(len(steps) - 1)  # stays at the end
    browser.key("Home", 36)
    assert browser.eval(TILES) == 0
    browser.click("#last")
    assert browser.eval(TILES) == steps[-1][0]
    browser.click("#prev")
    assert browser.eval("document.body.dataset.step") == str(len(steps) - 2)
    browser.key("ArrowLeft", 37)
    assert browser.eval("document.body.dataset.step") == str(len(steps) - 3)
    assert browser.errors == []
    if variant == "draw":
        assert {"draw", "pass"} <= kinds  # the game shows what the test means to check


def test_report_page(browser, journal, tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "report.html"
    assert main(["report", str(journal["straight"]), "--html", str(page)]) == 0
    browser.errors.clear()
    browser.open(str(page))
    assert browser.eval("document.querySelectorAll('section svg').length") == 3
    assert "greedy" in browser.eval("document.getElementById('table').textContent")
    browser.screenshot(artifact("report.png"))
    assert browser.errors == []


def test_position_svg(browser, journal, tmp_path):
    svg = tmp_path / "board.svg"
    argv = ["show", str(journal["straight"]), "--game", "1", "--svg", str(svg)]
    assert main([*argv, "--round", "1", "--ply", "6"]) == 0
    browser.errors.clear()
    browser.open(str(svg))
    assert browser.eval("document.querySelectorAll('.board .tile').length") == sum(
        1 + (m.tile2 is not None)
        for m in Round.from_msgpack(
            base64.b64decode(load_record(journal["straight"], 1)["rounds"][0]["round"])
        ).moves[:6]
        if not (m.is_draw or m.is_pass)
    )
    browser.screenshot(artifact("board.png"))
    assert browser.errors == []
