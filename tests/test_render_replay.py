"""``bones replay`` and ``bones show --svg``: steps, explanations and bad input."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bones.cli import main
from bones.errors import BonesError
from bones.match.journal import load_record
from bones.render.replay import replay_html, replay_steps


def page_data(page: str) -> dict:
    """The replay page's step data (the JSON in its ``<script id="steps">``)."""
    text = page.split('<script id="steps" type="application/json">', 1)[1].split("</script>")[0]
    return json.loads(text.replace("<\\/", "</"))


def page_svgs(page: str) -> list[str]:
    """Every step's SVG as the page builds it: each step's list of pieces is edits of
    the previous step's (``-(start + 1), length`` copies a run of it, else a piece id)."""
    data = page_data(page)
    svgs, previous = [], []
    for step in data["steps"]:
        ids, k, enc = [], 0, step["svg"]
        while k < len(enc):
            if enc[k] < 0:
                start, n = -enc[k] - 1, enc[k + 1]
                ids += previous[start : start + n]
                k += 2
            else:
                ids.append(enc[k])
                k += 1
        svgs.append("".join(data["parts"][i] for i in ids))
        previous = ids
    return svgs


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "m.jsonl"
    argv = ["match", "greedy", "random", "heaviest", "--variant", "draw", "--players", "3"]
    argv += ["--seed", "1", "--secret", "5e" * 32]  # the same games at every run
    assert main([*argv, "--games", "3", "--journal", str(path), "--jobs", "1"]) == 0
    return path


def test_steps_cover_every_move_of_every_round(journal):
    record = load_record(journal, 1)
    steps = replay_steps(record)
    moves = [len(r["moves"].split()) if r["moves"] else 0 for r in record["rounds"]]
    assert len(steps) == sum(m + 1 for m in moves)
    assert [s.ply for s in steps if s.round == 1] == list(range(moves[0] + 1))
    assert steps[0].tiles == 0 and "leads" in steps[0].lines[0]
    text = "\n".join(line for s in steps for line in s.lines)
    assert "draws a tile from the boneyard" in text
    assert "round over" in steps[-1].lines[-1]


def test_page_is_self_contained(journal, tmp_path, capsys):
    out = tmp_path / "r.html"
    code, text, err = run(capsys, "replay", journal, "--game", 2, "--html", out)
    assert code == 0, err
    page = out.read_text()
    assert page == replay_html(load_record(journal, 2))  # deterministic
    assert "</script>" not in page.split('type="application/json">')[1].split("</script>")[0]
    assert "src=" not in page and "https:" not in page
    assert "ArrowRight" in page and "ArrowLeft" in page


def test_show_svg_positions(journal, tmp_path, capsys):
    svg = tmp_path / "b.svg"
    code, out, err = run(capsys, "show", journal, "--game", 0, "--svg", svg, "--round", 1)
    assert code == 0, err
    ET.parse(svg)
    assert "round 1 after" in out
    code, out, _ = run(capsys, "show", journal, "--game", 0, "--svg", svg, "--round", 1, "--ply", 0)
    assert code == 0 and "after 0 moves, 0 tiles" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "99"], "has no game 99; its games: 0-"),
        ([], "choose one with --game N"),
    ],
)
def test_replay_bad_game_number(journal, tmp_path, capsys, argv, message):
    out = tmp_path / "r.html"
    code, _, err = run(capsys, "replay", journal, *argv, "--html", out)
    assert code == 2 and message in err
    assert not out.exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--round", "999"], "--round 999: the game has rounds 1 to"),
        (["--round", "1", "--ply", "999"], "--ply 999: round 1 has plies 0 to"),
        (["--ply", "-1"], "--ply -1"),
    ],
)
def test_show_svg_bad_position(journal, tmp_path, capsys, argv, message):
    svg = tmp_path / "b.svg"
    code, _, err = run(capsys, "show", journal, "--game", 0, "--svg", svg, *argv)
    assert code == 2 and message in err, err
    assert not svg.exists()


def test_round_without_svg_is_a_usage_error(journal, capsys):
    code, _, err = run(capsys, "show", journal, "--game", 0, "--round", 1)
    assert code == 2 and "--round, --ply and --seat go with --svg FILE" in err


def test_missing_and_corrupt_journals(tmp_path, capsys):
    out = tmp_path / "r.html"
    code, _, err = run(capsys, "replay", tmp_path / "none.jsonl", "--html", out)
    assert code == 2 and "none.jsonl: no such file" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "match", "version": 1}\n{"type": "game", "id": [\n')
    code, _, err = run(capsys, "replay", bad, "--game", "0", "--html", out)
    assert code == 2 and err.startswith("bones: error:")
    assert not out.exists()


def test_tampered_record_does_not_replay(journal, tmp_path, capsys):
    record = load_record(journal, 0)
    moves = record["rounds"][0]["moves"].split()
    record["rounds"][0]["moves"] = " ".join(reversed(moves))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "replay", path, "--html", tmp_path / "r.html")
    assert code == 1 and "does not replay" in err


def test_void_game_has_nothing_to_replay(journal, tmp_path, capsys):
    record = load_record(journal, 0)
    record.update(rounds=[], error="a plugin failed", ranks=None, scores=None)
    path = tmp_path / "void.json"
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "replay", path, "--html", tmp_path / "r.html")
    assert code in (1, 2) and err.startswith("bones: error:"), err


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_fuzzed_records_replay_or_fail_cleanly(journal, tmp_path, data):
    line = json.dumps(load_record(journal, 1)).encode()
    blob = bytearray(line)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.sampled_from(b'0123456789{}[]",:abcdefWENS@-'))
    path = tmp_path / "fuzz.json"
    path.write_bytes(bytes(blob))
    try:
        html = replay_html(load_record(path))
    except BonesError as exc:
        assert str(exc)
    else:
        assert html.startswith("<!DOCTYPE html>")


def test_replay_as_one_seat_saw_it(journal, tmp_path, capsys):
    record = load_record(journal, 1)
    everything = replay_steps(record)
    seen = replay_steps(record, seat=2)
    assert [s.tiles for s in seen] == [s.tiles for s in everything]
    for mine, full in zip(seen, everything, strict=True):
        assert mine.frame.hands[2] == full.frame.hands[2]
        assert mine.frame.hands[0] is None and mine.frame.hands[1] is None
    out = tmp_path / "r.html"
    code, _, err = run(capsys, "replay", journal, "--game", 1, "--seat", 2, "--html", out)
    assert code == 0, err
    page = out.read_text()
    assert "as seat 2 saw it" in page
    deal = everything[0].frame
    hidden = {str(t) for s in (0, 1) for t in deal.hands[s]}
    first_svg = page_svgs(page)[0]  # the deal, as seat 2 saw it
    assert not any(f'data-tile="{t}"' in first_svg for t in hidden)
    assert all(f'data-tile="{t}"' in first_svg for t in deal.hands[2])
    assert [s.frame.spinners for s in seen] == [s.frame.spinners for s in everything]


def test_bad_seat(journal, tmp_path, capsys):
    code, _, err = run(
        capsys, "replay", journal, "--game", 0, "--seat", 3, "--html", tmp_path / "r"
    )
    assert code == 2 and "seat 3: the game has seats 0 to 2" in err
    argv = ["show", journal, "--game", 0, "--svg", tmp_path / "b.svg", "--seat", -1]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "seat -1" in err


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """A straight match (spinners; long games of many rounds)."""
    path = tmp_path_factory.mktemp("straight") / "s.jsonl"
    argv = ["match", "greedy", "random", "--variant", "straight", "--games", "4"]
    argv += ["--seed", "1", "--secret", "5eed" * 16]  # the same games at every run
    assert main([*argv, "--journal", str(path), "--jobs", "1", "--progress", "never"]) == 0
    return path


def longest(path):
    from bones.match.journal import read_journal

    records = read_journal(path).records
    return max(records, key=lambda r: sum(len(e["moves"].split()) + 1 for e in r["rounds"]))


def test_captions_are_words_not_python_lists(straight):
    record = longest(straight)
    steps = replay_steps(record)
    text = [line for s in steps for line in (*s.lines, *s.frame.lines)]
    assert not [line for line in text if "[" in line or "]" in line]
    ends = [line for line in text if line.startswith("round over")]
    words = re.compile(r"; points: seat 0 \((greedy|random)\) \d+, seat 1 \((greedy|random)\) \d+$")
    assert ends and all(words.search(line) for line in ends), ends[:2]


def test_every_step_is_its_picture_at_one_size(straight):
    from bones.render.svg import board_bounds, render_frame

    record = longest(straight)
    steps = replay_steps(record)
    svgs = page_svgs(replay_html(record))
    assert len(svgs) == len(steps)
    sizes = {(ET.fromstring(s).get("width"), ET.fromstring(s).get("height")) for s in svgs}
    assert len(sizes) == 1  # one size: the page never jumps
    width, height = (float(v) for v in sizes.pop())
    box: dict[int, tuple[int, int, int, int]] = {}
    for s in steps:  # a round's board is drawn in one box: the union of its positions'
        x0, y0, x1, y1 = board_bounds(s.frame)
        b = box.get(s.round, (x0, y0, x1, y1))
        box[s.round] = (min(b[0], x0), min(b[1], y0), max(b[2], x1), max(b[3], y1))
    for s, svg in zip(steps, svgs, strict=True):
        assert svg == render_frame(s.frame, defs=False, bounds=box[s.round], size=(width, height))


def test_replay_size_budget(straight):
    """The page stores each distinct piece of SVG once (a tile face, a tile at its place,
    a line of text) and each step as edits of the previous step's list of pieces.  What a
    step adds is then its explanation, its edits and the few pieces new at it (the tile
    laid at its place, the status lines, a hand's label): about 1.2 KB, under the 1.5 KB
    allowed here; the fixed part (script, style, pip symbols) is under 20 KB.  Drawing
    every step whole, as before, took about 8 KB a step (1.2 MB for 141 steps)."""
    from bones.render.svg import render_frame

    record = longest(straight)
    steps = replay_steps(record)
    assert len(steps) >= 100, len(steps)  # a long game, many rounds
    page = replay_html(record)
    whole = sum(len(render_frame(s.frame, defs=False)) for s in steps)
    assert len(page) <= 20_000 + 1_500 * len(steps), (len(page), len(steps))
    assert len(page) <= whole / 4, (len(page), whole)
