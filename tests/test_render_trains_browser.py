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
from bones.render.replay import replay_steps

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
    argv += ["--seed", "1", "--secret", "5e" * 32]  # the same games at every run
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


#: Where the page's parts are (their boxes in the window, rounded to 0.1 px), how far the
#: page scrolls, and the picture's board and hands.
GEOMETRY = """(() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom].map((x) => Math.round(x * 10) / 10); };
  const parts = {};
  for (const id of ['controls', 'events', 'board', 'moves']) {
    parts[id] = box(document.getElementById(id));
  }
  parts.svg = box(document.querySelector('#board svg'));
  return {parts: parts, page: [document.documentElement.scrollWidth,
          document.documentElement.scrollHeight],
          shown: [box(document.querySelector('#board svg .board')),
                  ...Array.from(document.querySelectorAll('#board svg .hand'), box)]};
})()"""


@pytest.mark.parametrize(
    "variant, players",
    [
        ("mexican-train", 4),
        pytest.param("mexican-train", 8, marks=pytest.mark.slow),  # a match of 254 games
        ("chicken-foot", 4),
    ],
)
def test_the_board_and_every_hand_fit_a_1200_by_900_window(browser, tmp_path, variant, players):
    """At 1200x900 the page does not scroll, the board and every hand are inside the
    window at every step, and no part of the page moves from one step to the next (the
    picture is scaled to fit its part of the window; the events and the move list scroll
    on their own)."""
    journal = tmp_path / "m.jsonl"
    argv = ["match", "greedy", "random", "--variant", variant, "--players", str(players)]
    argv += ["--games", "1", "--seed", "2", "--secret", "cd" * 32, "--journal", str(journal)]
    assert main([*argv, "--jobs", "1", "--progress", "never"]) == 0
    record = read_journal(journal).records[-1]
    page = tmp_path / "replay.html"
    assert main(["replay", str(journal), "--game", str(record["id"]), "--html", str(page)]) == 0
    count = len(replay_steps(record))
    browser.resize(1200, 900)
    try:
        browser.errors.clear()
        browser.open(str(page))
        first = None
        # the first rounds and the last ones: enough, and quick
        for k in [*range(min(count, 120)), *range(max(120, count - 40), count)]:
            if browser.eval("document.body.dataset.step") != str(k):  # skipped ahead
                browser.eval(f"location.hash = '#step-{k + 1}'")
                browser.wait_for_eval(f"document.body.dataset.step === '{k}'")
            here = browser.eval(GEOMETRY)
            assert here["page"] == [1200, 900], f"step {k}: the page scrolls"
            assert len(here["shown"]) == 1 + players
            for left, top, right, bottom in here["shown"]:
                assert 0 <= left < right <= 1200 and 0 <= top < bottom <= 900, (k, here)
            first = first or here["parts"]
            assert here["parts"] == first, f"step {k}: the page moved"
            if k == 40:
                os.makedirs(ARTIFACTS, exist_ok=True)
                browser.screenshot(os.path.join(ARTIFACTS, f"replay-{variant}-{players}p.png"))
            browser.key("ArrowRight", 39)
        assert browser.errors == []
    finally:
        browser.resize(1100, 900)


#: Every tile of the picture on the page, in document order: its class, its label (none
#: face down), the box of its <rect> in the picture's own units (whatever the translates
#: and the page's scaling), and whether it is seen: drawn, and the topmost thing at its
#: centre.
PLACED = """(() => {
  const svg = document.querySelector('#board svg');
  const back = svg.getScreenCTM().inverse();
  return Array.from(svg.querySelectorAll('.tile, .hand-tile'), function (g) {
    const rect = g.querySelector('rect');
    const b = rect.getBBox();
    const m = back.multiply(rect.getScreenCTM());
    const p = new DOMPoint(b.x, b.y).matrixTransform(m);
    const q = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(m);
    const r = g.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const seen = r.width > 0 && r.height > 0 && top !== null &&
      top.closest('.tile, .hand-tile') === g;
    return [g.getAttribute('class'), g.dataset.tile || '', p.x, p.y, q.x - p.x, q.y - p.y, seen];
  });
})()"""


@pytest.mark.parametrize(
    "variant, seat, count", [("chicken-foot", None, None), ("mexican-train", 0, 120)]
)
def test_each_step_shows_the_tiles_of_its_own_svg(browser, tmp_path, variant, seat, count):
    """The page draws each step from shared pieces moved into place; stepping through
    the game with the arrow key, the tiles seen at each step (the board's and the hands')
    are those of the step's own SVG (``bones show --svg``, parsed here), each at its
    place and none hidden under another thing."""
    from test_render_trains_replay import tiles_of

    from bones.render.replay import replay_steps
    from bones.render.trains_svg import render_train_frame

    journal = tmp_path / "m.jsonl"
    argv = ["match", "greedy", "random", "--variant", variant, "--players", "4", "--seed", "1"]
    argv += ["--secret", "ab" * 32, "--games", "1", "--journal", str(journal), "--jobs", "1"]
    argv += ["--progress", "never"]
    assert main(argv) == 0
    record = read_journal(journal).records[1]
    steps = replay_steps(record, seat)[:count]
    page = tmp_path / "replay.html"
    more = [] if seat is None else ["--seat", str(seat)]
    assert main(["replay", str(journal), "--game", str(record["id"]), "--html", str(page),
                 *more]) == 0  # fmt: skip
    tall = max(float(render_train_frame(s.frame).split("height='")[1].split("'")[0]) for s in steps)
    browser.resize(1700, int(tall) + 1200)  # the whole picture in view: every tile hit-tested
    try:
        browser.errors.clear()
        browser.open(str(page))
        for k, step in enumerate(steps):
            assert browser.eval("document.body.dataset.step") == str(k)
            shown = browser.eval(PLACED)
            static = tiles_of(render_train_frame(step.frame))
            assert len(shown) == len(static), f"step {k}"
            for got, want in zip(shown, static, strict=True):
                assert got[:2] == list(want[:2]), f"step {k}: {got} {want}"
                assert all(abs(a - b) <= 0.05 for a, b in zip(got[2:6], want[2:], strict=True)), (
                    f"step {k}: {got} {want}"
                )
                assert got[6], f"step {k}: {got[:2]} is not seen"
            browser.key("ArrowRight", 39)
        assert browser.errors == []
    finally:
        browser.resize(1100, 900)
