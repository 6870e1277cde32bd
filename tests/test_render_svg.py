"""SVG pictures and the terminal board, drawn from placements built by hand."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st

from bones import Move, Tile
from bones.render.svg import Frame, render_frame, spinner_indices
from bones.render.terminal import board_text

SVG = "{http://www.w3.org/2000/svg}"


class P(NamedTuple):  # the fields of bones.Placement
    move: Move
    tile: Tile
    x: int
    y: int
    angle: int
    first: int
    second: int


def place(move: str, x: int, y: int, angle: int, first: int, second: int) -> P:
    m = Move.parse(move)
    return P(m, m.tile, x, y, angle, first, second)


# 6-6 led crosswise (the spinner), 6-4 west, 6-2 east, 6-1 north, 4-4 crosswise west
LAYOUT = (
    place("6-6", 0, 0, 90, 6, 6),
    place("6-4@W", -3, 0, 180, 6, 4),
    place("6-2@E", 3, 0, 0, 6, 2),
    place("6-1@N", 0, -4, 270, 6, 1),
    place("4-4@W", -6, 0, 90, 4, 4),
)


def frame(hands=None, closed=("W",), table=None) -> Frame:
    tiles = tuple(Tile.parse(t) for t in ("5-5", "3-0"))
    return Frame(
        title="straight, 2 players",
        lines=("count 9",),
        placements=LAYOUT,
        table=table,
        closed_ends=closed,
        spinners=spinner_indices(LAYOUT, {"spinner_rule": "first_double"}),
        hands=hands if hands is not None else (tiles, tiles[:1]),
        hand_sizes=(2, 1),
        seat_names=("seat 0", "seat 1"),
        to_move=0,
        stock_size=3,
    )


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if cls in g.get("class", "").split()]


def test_board_is_valid_xml_with_one_group_per_tile():
    root = ET.fromstring(render_frame(frame()))
    board = groups(root, "board")
    assert len(board) == 1
    tiles = groups(board[0], "tile")
    assert [t.get("data-tile") for t in tiles] == ["6-6", "6-4", "6-2", "6-1", "4-4"]
    assert [t.get("data-tile") for t in groups(root, "spinner")] == ["6-6"]
    closed = groups(root, "closed-end")
    assert [c.get("data-end") for c in closed] == ["W"]


def test_tile_orientation_and_pips_follow_the_placement():
    root = ET.fromstring(render_frame(frame()))
    tiles = {t.get("data-tile"): t for t in groups(root, "tile")}
    rect = tiles["6-4"].find(f"{SVG}rect")
    assert (rect.get("width"), rect.get("height")) == ("56", "28")  # along the line
    rect = tiles["4-4"].find(f"{SVG}rect")
    assert (rect.get("width"), rect.get("height")) == ("28", "56")  # crosswise
    uses = tiles["6-4"].findall(f"{SVG}use")
    # angle 180: the first half (6) lies east of the second (4)
    xs = {u.get("href"): float(u.get("transform").split()[0][10:]) for u in uses}
    assert xs["#bones-pips-6"] > xs["#bones-pips-4"]


def test_rendering_is_deterministic():
    assert render_frame(frame()) == render_frame(frame())


def test_hidden_hands_are_drawn_face_down_without_their_tiles():
    text = render_frame(frame(hands=(frame().hands[0], None)))
    root = ET.fromstring(text)
    hands = {h.get("data-seat"): h for h in groups(root, "hand")}
    assert hands["0"].get("data-visible") == "yes"
    assert hands["1"].get("data-visible") == "no"
    backs = groups(hands["1"], "hand-tile")
    assert len(backs) == 1
    assert all(b.get("data-tile") is None and not b.findall(f"{SVG}use") for b in backs)


def test_bounded_table_is_the_board_box():
    root = ET.fromstring(render_frame(frame(table=(-20, -10, 20, 10))))
    table = next(r for r in root.iter(f"{SVG}rect") if r.get("class") == "table")
    assert (table.get("width"), table.get("height")) == ("560", "280")


def test_empty_board_says_so():
    empty = frame()._replace(placements=(), spinners=frozenset(), closed_ends=())
    root = ET.fromstring(render_frame(empty))
    assert not groups(root, "tile")
    assert "no tile on the table" in render_frame(empty)


def test_spinners_follow_the_rule():
    assert spinner_indices(LAYOUT, {"spinner_rule": "all_doubles"}) == {0, 4}
    assert spinner_indices(LAYOUT, {"spinner_rule": "none"}) == frozenset()
    assert spinner_indices(LAYOUT, {}) == frozenset()


def test_terminal_board_draws_every_tile_in_place():
    text = board_text(LAYOUT, ("W",))
    lines = text.splitlines()
    assert "[4|6]" in text and "[6|2]" in text  # 6-4 laid west reads 4 then 6
    assert lines[-1] == "closed ends: W"
    row = next(i for i, line in enumerate(lines) if "[4|6]" in line)
    col = lines[row].index("[4|6]")
    assert lines[row].index("[6|2]") > col  # east of it
    # the crosswise doubles stand across the line's row and the row above
    assert lines[row - 1].count("[6]") == 1 and lines[row - 1].count("[4]") == 1
    assert "[1]" in lines[row - 3] and "[6]" in lines[row - 2]  # 6-1 north, 1 at the top
    assert board_text(()) == "(empty table)"


placements = st.lists(
    st.builds(
        lambda t, x, y, a, flip: P(
            Move.parse(str(t)), t, x, y, a, *((t.low, t.high) if flip else (t.high, t.low))
        ),
        st.sampled_from([Tile.parse(f"{a}-{b}") for a in range(7) for b in range(a + 1)]),
        st.integers(-60, 60),
        st.integers(-40, 40),
        st.sampled_from((0, 90, 180, 270)),
        st.booleans(),
    ),
    max_size=28,
)


@settings(max_examples=60, deadline=None)
@given(placements, st.lists(st.sampled_from(("W", "E", "N", "S", "N2")), unique=True))
def test_any_placements_give_valid_svg_and_text(layout, closed):
    f = frame(closed=tuple(closed))._replace(
        placements=tuple(layout), spinners=spinner_indices(layout, {"spinner_rule": "all_doubles"})
    )
    root = ET.fromstring(render_frame(f))
    assert len(groups(groups(root, "board")[0], "tile")) == len(layout)
    text = board_text(layout, closed)
    assert (text == "(empty table)") == (not layout)


def test_a_seat_sees_the_spinner_too():
    """An observation keeps only the options given; the spinner rule is the variant's
    default (straight: the first double spins), so the seat's picture marks it too."""
    from bones import Round
    from bones.render import svg_of

    for seed in range(50):
        rnd = Round.deal("straight", 2, seed=seed)
        while not rnd.is_over and not any(p.tile.is_double for p in rnd.placements):
            rnd.play(rnd.legal_moves[0])
        if any(p.tile.is_double for p in rnd.placements):
            break
    assert rnd.observation(0).options == {}  # what makes the case
    for picture in (svg_of(rnd), svg_of(rnd.observation(0)), svg_of(rnd.observation(1))):
        root = ET.fromstring(picture)
        assert len(groups(root, "spinner")) == 1
        assert len([c for c in root.iter(f"{SVG}circle") if c.get("class") == "spinner-mark"]) == 1


def test_spinner_marks_and_closed_ends_are_drawn_after_every_tile():
    root = ET.fromstring(render_frame(frame()))
    board = groups(root, "board")[0]
    kinds = [c.get("class", "").split()[0] for c in board]
    last_tile = max(i for i, k in enumerate(kinds) if k == "tile")
    assert kinds.index("spinner-mark") > last_tile and kinds.index("closed-end") > last_tile
    half = next(r for r in board.iter(f"{SVG}rect") if r.get("class") == "closed-half")
    assert half.get("fill") == "none"  # a frame: the half's pips show through
