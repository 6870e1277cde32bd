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
# where the page's parts are, and the board's table inside the picture
LAYOUT = """(() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return [r.left, r.top, r.width, r.height].map(Math.round); };
  const svg = box('#board svg'), table = box('#board .board .table');
  return {board: box('#board'), svg: svg, moves: box('#moves'), controls: box('#controls'),
          events: box('#events'), centred: Math.abs((svg[0] + svg[2] / 2) -
          (table[0] + table[2] / 2)) <= 1};
})()"""
# What is drawn on top at a point of the page, in the viewport's coordinates (a function
# of no argument, asked again after a scroll): elementFromPoint sees the viewport only, so
# a point outside it (a tall board's lowest tiles) is scrolled into view first.  The
# expressions that use it put the scroll back, for the layout's boxes.
TOP_AT = """const topAt = (point) => {
  let p = point();
  if (p.x < 0 || p.y < 0 || p.x >= innerWidth || p.y >= innerHeight) {
    scrollBy(p.x - innerWidth / 2, p.y - innerHeight / 2);
    p = point();
  }
  return document.elementFromPoint(p.x, p.y);
};"""
# every spinner's mark: drawn, and nothing drawn over its centre
SPINNERS = f"""(() => {{
  {TOP_AT}
  const x0 = scrollX, y0 = scrollY;
  const marks = [...document.querySelectorAll('.board .spinner-mark')];
  const hidden = marks.filter((c) => topAt(() => {{ const r = c.getBoundingClientRect();
    return new DOMPoint(r.left + r.width / 2, r.top + r.height / 2); }}) !== c);
  scrollTo(x0, y0);
  return [document.querySelectorAll('.board .tile.spinner').length, marks.length,
          hidden.length];
}})()"""
# every pip of every tile on the board: nothing drawn over its centre
PIPS = f"""(() => {{
  {TOP_AT}
  const x0 = scrollX, y0 = scrollY;
  let n = 0; const covered = [];
  for (const use of document.querySelectorAll('.board .tile use')) {{
    for (const c of document.querySelector(use.getAttribute('href')).querySelectorAll('circle')) {{
      n += 1;
      const e = topAt(() => new DOMPoint(c.cx.baseVal.value, c.cy.baseVal.value)
        .matrixTransform(use.getScreenCTM()));
      if (e !== use) covered.push([use.closest('.tile').dataset.tile, e && e.tagName]);
    }}
  }}
  scrollTo(x0, y0);
  return [n, covered];
}})()"""


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
        argv += ["--seed", "1", "--secret", "5e" * 32]  # the same games at every run
        if variant == "straight":
            argv += ["--sprt", "elo0=0", "elo1=50"]
        assert main(argv) == 0
        paths[variant] = path
    return paths


def expected_steps(record):
    """Per step of the replay: the tiles on the table, the public events' kinds and the
    spinners on the table, recomputed with the engine alone (in straight, the first
    double laid spins)."""
    game = new_game(record["variant"], record["players"], record["seed"], **record["options"])
    spins = record["variant"] == "straight"
    steps = []
    for index, entry in enumerate(record["rounds"]):
        moves = Round.from_msgpack(base64.b64decode(entry["round"])).moves
        rnd = game.round
        steps.append((0, {e.kind for e in rnd.events}, 0))
        for move in moves:
            seen = len(rnd.events)
            rnd.play(move)
            tiles = sum(1 + (m.tile2 is not None) for m in rnd.layout)
            doubles = any(p.tile.is_double for p in rnd.placements)
            steps.append((tiles, {e.kind for e in rnd.events[seen:]}, int(spins and doubles)))
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
        if variant != "draw" or any("pass" in kinds for _, kinds, _ in s)
    )
    gid = str(record["id"])
    page = tmp_path / "replay.html"
    assert main(["replay", str(journal[variant]), "--game", gid, "--html", str(page)]) == 0
    browser.errors.clear()
    browser.open(str(page))
    kinds = set()
    shot = None
    layout = None
    for i, (tiles, events, spinners) in enumerate(steps):
        assert browser.eval("document.body.dataset.step") == str(i)
        assert browser.eval(TILES) == tiles, f"step {i}"
        assert browser.eval(SPINNERS) == [spinners, spinners, 0], f"step {i}"
        here = browser.eval(LAYOUT)
        assert here["centred"], f"step {i}: the board is not centred"
        layout = layout or here
        assert here == layout, f"step {i}: the page moved"
        text = browser.eval("document.getElementById('events').textContent")
        if "draw" in events:
            assert "draws" in text and "from the boneyard" in text
        if "pass" in events:
            assert "passes: no tile for the open ends" in text
        kinds |= events
        if i % 7 == 0:
            assert browser.eval(PIPS)[1] == [], f"step {i}"
            browser.wait_for_eval(f"location.hash === '#step-{i + 1}'")
        if shot is None and tiles >= 8:
            shot = artifact(f"replay-{variant}.png")
            browser.screenshot(shot)
        browser.key("ArrowRight", 39)
    assert browser.eval("document.body.dataset.step") == str(len(steps) - 1)  # stays at the end
    browser.key("Home", 36)
    assert browser.eval(TILES) == 0
    browser.click("#last")
    assert browser.eval(TILES) == steps[-1][0]
    browser.wait_for_eval(f"location.hash === '#step-{len(steps)}'")
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


def test_replay_links_autoplay_and_move_list(browser, journal, tmp_path):
    """``#step-N`` opens step N, clicking the move list goes to a step, play steps on by
    itself at the chosen speed and pause stops it; as seat 1 saw it, the spinner is still
    marked (the seat's observation keeps only the options given, not the variant's)."""
    import time

    record = read_journal(journal["straight"]).records[0]
    steps = expected_steps(record)
    page = tmp_path / "replay.html"
    argv = ["replay", str(journal["straight"]), "--game", str(record["id"]), "--seat", "1"]
    assert main([*argv, "--html", str(page)]) == 0
    browser.errors.clear()
    browser.open(str(page), "step-5")
    assert browser.eval("document.body.dataset.step") == "4"
    assert browser.eval("document.querySelector('#moves li.current a').hash") == "#step-5"
    # a link in the move list
    browser.eval("document.querySelectorAll('#moves a')[2].click()")
    browser.wait_for_eval("document.body.dataset.step === '2'")
    browser.wait_for_eval("location.hash === '#step-3'")
    # the spinner as the seat saw it, at the step after its first double
    first = next(i for i, (_, _, spinners) in enumerate(steps) if spinners)
    browser.eval(f"location.hash = '#step-{first + 1}'")
    browser.wait_for_eval(f"document.body.dataset.step === '{first}'")
    assert browser.eval(SPINNERS) == [1, 1, 0]
    # play at 10 steps a second (the page's timer is asked for 100 ms: how fast it then
    # runs is the machine's business), then pause
    browser.eval(
        "window.delays = []; const every = window.setInterval;"
        "window.setInterval = (f, ms) => { delays.push(ms); return every(f, ms); }"
    )
    browser.eval("document.getElementById('speed').value = '100'")
    browser.click("#play")
    assert browser.eval("document.body.dataset.playing") == "yes"
    assert browser.eval("delays") == [100]
    browser.wait_for_eval(f"Number(document.body.dataset.step) >= {first + 3}")
    browser.click("#play")
    assert browser.eval("document.body.dataset.playing") == "no"
    held = browser.eval("document.body.dataset.step")
    time.sleep(0.3)
    assert browser.eval("document.body.dataset.step") == held  # paused stays
    # play runs to the end and stops there
    browser.key("End", 35)
    browser.key("ArrowLeft", 37)
    browser.key(" ", 32)
    browser.wait_for_eval("document.body.dataset.playing === 'no'")
    assert browser.eval("document.body.dataset.step") == str(len(steps) - 1)
    assert browser.errors == []


def closed_end_board():
    """The first random Multiplayer round (seed 0 up) with a closed end and 15 tiles."""
    import random

    for seed in range(1000):
        rnd = Round.deal("multiplayer", 2, seed=seed)
        rng = random.Random(seed)
        while not rnd.is_over:
            rnd.play(rng.choice(list(rnd.legal_moves)))
            if rnd.closed_ends and len(rnd.placements) >= 15:
                return rnd
    raise AssertionError("no position with a closed end")


def test_tiles_are_big_and_closed_ends_leave_their_pips_visible(browser, tmp_path):
    from bones.render import svg_of

    rnd = closed_end_board()
    svg = tmp_path / "closed.svg"
    svg.write_text(svg_of(rnd))
    browser.errors.clear()
    browser.open(str(svg))
    sizes = browser.eval(
        """(() => { const size = (sel) => [...document.querySelectorAll(sel)].map((r) => {
          const b = r.getBoundingClientRect(); return [Math.min(b.width, b.height),
          Math.max(b.width, b.height)]; });
          return [size('.board .tile > rect'), size('.hand-tile > rect')]; })()"""
    )
    board, hands = sizes
    assert board and all(short >= 28 and long >= 56 for short, long in board), board
    assert hands and all(short >= 22 and long >= 44 for short, long in hands), hands
    assert browser.eval("document.querySelectorAll('.closed-end').length") == len(rnd.closed_ends)
    pips, covered = browser.eval(PIPS)
    assert pips >= 30 and covered == [], covered
    browser.screenshot(artifact("closed-end.png"))
    assert browser.errors == []


@pytest.mark.parametrize("width", [885, 700])
def test_report_keeps_every_line_in_view(browser, journal, tmp_path, width):
    """The match table wraps its long lines (the SPRT line) instead of cutting them off."""
    pytest.importorskip("matplotlib")
    page = tmp_path / "report.html"
    assert main(["report", str(journal["straight"]), "--html", str(page)]) == 0
    browser.resize(width, 900)
    try:
        browser.open(str(page))
        pre = "document.getElementById('table')"
        assert browser.eval(f"{pre}.scrollWidth <= {pre}.clientWidth")
        assert browser.eval("document.documentElement.scrollWidth") <= width
        outside = browser.eval(
            f"""(() => {{ const box = {pre}.getBoundingClientRect();
            return [...{pre}.querySelectorAll('.line')].filter((l) => {{
              const r = document.createRange(); r.selectNodeContents(l);
              return [...r.getClientRects()].some((q) => q.right > box.right + 0.5); }})
              .map((l) => l.textContent); }})()"""
        )
        assert outside == []
        lines = browser.eval(f"[...{pre}.querySelectorAll('.line')].map((l) => l.textContent)")
        sprt = next(line for line in lines if line.startswith("SPRT"))  # the fairness line follows
        assert sprt.endswith("deal pairs"), sprt
        browser.screenshot(artifact(f"report-{width}.png"))
    finally:
        browser.resize(1000, 900)
