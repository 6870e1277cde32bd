"""The replay page of a train game (``bones replay``): every step shows exactly what the
step's own SVG (``bones show --svg``) shows, the page stays small (each tile, open number
and line of the tree is stored once and moved into place), it is deterministic, and an
edited record is refused with a clear error."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from test_render_replay import page_data, page_svgs

from bones.cli import main
from bones.errors import BonesError
from bones.match.journal import read_journal
from bones.render.replay import replay_html, replay_steps
from bones.render.trains_svg import render_train_frame

SVG = "{http://www.w3.org/2000/svg}"
AXIS = {"x": 0, "x1": 0, "x2": 0, "cx": 0, "y": 1, "y1": 1, "y2": 1, "cy": 1}
TRANSLATE = re.compile(r"translate\((-?[0-9.]+),(-?[0-9.]+)\)")
#: a coordinate of the page may differ from the SVG's by the rounding of its translates
#: (each number is written with 2 decimals): 3 roundings of 0.005 at most
TOLERANCE = 0.02


def _path(d: str, dx: float, dy: float) -> list[Any]:
    """A path's commands and points, moved by ``(dx, dy)`` (the pictures' paths use
    absolute commands only, their numbers x, y pairs)."""
    out: list[Any] = []
    axis = 0
    for token in re.findall(r"[A-Za-z]|-?[0-9.]+", d):
        if token.isalpha():
            assert token in "MCLZ", d  # absolute: a relative command would not move
            out.append(token)
        else:
            out.append(float(token) + (dx, dy)[axis])
            axis ^= 1
    return out


def drawn(svg: str) -> list[Any]:
    """What ``svg`` draws: its elements as nested ``(tag, attributes, text, children)``
    with every coordinate where it lands on the picture, the translates applied and the
    groups that only move what they hold (``<g transform>``) left out."""

    def walk(element: ET.Element, dx: float, dy: float) -> list[Any]:
        out: list[Any] = []
        for child in element:
            move = child.get("transform")
            if move is not None:
                match = TRANSLATE.fullmatch(move)
                assert child.tag == f"{SVG}g" and list(child.keys()) == ["transform"], child
                assert match, move
                out += walk(child, dx + float(match[1]), dy + float(match[2]))
                continue
            attrs: dict[str, Any] = {}
            for key, value in child.attrib.items():
                if key in AXIS:
                    attrs[key] = float(value) + (dx, dy)[AXIS[key]]
                elif key == "d":
                    attrs[key] = _path(value, dx, dy)
                else:
                    attrs[key] = value
            out.append((child.tag, attrs, child.text or "", walk(child, dx, dy)))
        return out

    root = ET.fromstring(svg)  # well-formed XML, or this raises
    return [(root.tag, dict(root.attrib), "", walk(root, 0.0, 0.0))]


def assert_same(page: Any, static: Any, where: str = "") -> None:
    if isinstance(static, float):
        assert isinstance(page, float) and abs(page - static) <= TOLERANCE, (where, page, static)
    elif isinstance(static, (list, tuple)):
        assert isinstance(page, (list, tuple)) and len(page) == len(static), (where, page, static)
        for k, (a, b) in enumerate(zip(page, static, strict=True)):
            assert_same(a, b, f"{where}/{k}")
    elif isinstance(static, dict):
        assert isinstance(page, dict) and page.keys() == static.keys(), (where, page, static)
        for key in static:
            assert_same(page[key], static[key], f"{where}@{key}")
    else:
        assert page == static, (where, page, static)


def tiles_of(svg: str) -> list[tuple[str, str, float, float, float, float]]:
    """Every tile of a picture (the board's and the hands'): its class, its label (none
    for a face-down tile) and the box of its ``<rect>`` on the picture."""
    out = []
    for tag, attrs, _, children in _elements(drawn(svg)):
        cls = attrs.get("class", "") if tag == f"{SVG}g" else ""
        if cls.split()[:1] in (["tile"], ["hand-tile"]):
            rect = next(a for t, a, _, _ in children if t == f"{SVG}rect")
            box = (rect["x"], rect["y"], float(rect["width"]), float(rect["height"]))
            out.append((cls, attrs.get("data-tile", ""), *box))
    return out


def _elements(tree: list[Any]):
    for node in tree:
        yield node
        yield from _elements(node[-1])


#: the bots' seeds' key (docs/matches.md): with it and the seed, always the same games
SECRET = "ab" * 32


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A whole 4-player Chicken Foot game (double-9: 10 rounds, engines 9-9 down to 0-0)
    and a whole 4-player Mexican Train game (double-12: 13 rounds), the games of
    docs/render.md's sizes."""
    root = tmp_path_factory.mktemp("trains-replay")
    out = {}
    for variant in ("chicken-foot", "mexican-train"):
        path = root / f"{variant}.jsonl"
        argv = ["match", "greedy", "random", "--variant", variant, "--players", "4"]
        argv += ["--games", "1", "--seed", "1", "--secret", SECRET, "--journal", str(path)]
        assert main([*argv, "--jobs", "1", "--progress", "never"]) == 0
        record = read_journal(path).records[1]
        assert len(record["rounds"]) == (10 if variant == "chicken-foot" else 13)
        out[variant] = (path, record)
    return out


@pytest.mark.parametrize(
    "variant, seat", [("chicken-foot", None), ("chicken-foot", 2), ("mexican-train", None)]
)
def test_every_step_draws_what_its_own_svg_draws(records, variant, seat):
    """The page moves each tile, open number and line into place with a translate; once
    moved, every element of every step is the step's own SVG's (``render_train_frame``,
    what ``bones show --svg`` writes), at the same place, in the same order."""
    record = records[variant][1]
    steps = replay_steps(record, seat)
    svgs = page_svgs(replay_html(record, seat))
    assert len(svgs) == len(steps)
    every = 1 if variant == "chicken-foot" else 3  # 980 steps: a third of them is enough
    for k, (step, svg) in list(enumerate(zip(steps, svgs, strict=True)))[::every]:
        static = render_train_frame(step.frame)
        assert_same(drawn(svg), drawn(static), f"step {k}")
        assert "transform=" not in static  # the SVG itself stays absolute
    assert "transform=" in svgs[-1]


def test_the_page_of_a_ten_round_chicken_foot_game_is_small(records):
    """Drawn whole at every step, as the page did before, the 356 steps of this game took
    4,885,101 bytes (the sum of the steps' SVGs: 5.8 MB); now 344,639 (docs/render.md).
    A step adds about 0.9 KB: its explanation, the edits of its list of pieces and the few
    pieces new at it (the status lines' words, a hand's label, the place of a tile that
    moved).  The bounds leave some room for a change of the pictures."""
    record = records["chicken-foot"][1]
    steps = replay_steps(record)
    page = replay_html(record)
    whole = sum(len(render_train_frame(s.frame)) for s in steps)
    assert len(steps) == 356, len(steps)  # the game of docs/render.md
    assert len(page) <= 400_000, len(page)  # 12 times smaller at least
    assert len(page) <= 20_000 + 1_100 * len(steps), (len(page), len(steps))
    assert len(page) * 14 <= whole, (len(page), whole)
    mexican = replay_html(records["mexican-train"][1])
    assert len(mexican) <= 800_000, len(mexican)  # was 21,996,669 bytes: 658,112


def test_the_page_is_deterministic_and_self_contained(records, tmp_path):
    path, record = records["chicken-foot"]
    page = replay_html(record, 1)
    assert page == replay_html(copy.deepcopy(record), 1)
    out = tmp_path / "r.html"
    assert main(["replay", str(path), "--game", str(record["id"]), "--html", str(out)]) == 0
    assert out.read_text() == replay_html(record) == replay_html(record)
    text = out.read_text()
    assert "src=" not in text and "https:" not in text and "url(" not in text
    assert "</script>" not in text.split('type="application/json">')[1].split("</script>")[0]
    data = page_data(text)
    assert len(data["parts"]) == len(set(data["parts"]))  # each piece stored once


def test_an_edited_record_is_refused(records, tmp_path, capsys):
    path, record = records["chicken-foot"]
    edited = copy.deepcopy(record)
    moves = edited["rounds"][3]["moves"].split()
    edited["rounds"][3]["moves"] = " ".join(moves[:5] + moves[6:])  # one move left out
    with pytest.raises(BonesError, match="does not replay"):
        replay_html(edited)
    bad = tmp_path / "game.json"
    bad.write_text(json.dumps(edited))
    out = tmp_path / "r.html"
    capsys.readouterr()
    assert main(["replay", str(bad), "--html", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("bones: error:") and "does not replay" in err, err
    assert not out.exists()
    with pytest.raises(BonesError, match="seat 7: the game has seats 0 to 3"):
        replay_html(record, 7)


def test_the_move_list_names_each_move(records):
    """The move list beside the board: each round's deal, then ``ply. move`` as the record
    writes the move (it said ``7.`` alone for a train game)."""
    record = records["chicken-foot"][1]
    labels = [s["label"] for s in page_data(replay_html(record))["steps"]]
    expected = []
    for index, entry in enumerate(record["rounds"]):
        expected.append(f"round {index + 1}: the deal")
        expected += [f"{ply}. {move}" for ply, move in enumerate(entry["moves"].split(), 1)]
    assert labels == expected
    assert "3. 9-5@9-9" in labels
