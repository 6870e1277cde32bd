"""Tiles and moves (docs/api.md "Tiles", "Moves"; docs/serialization.md move codes):
parsing, canonical text, repr/str round trips, hashing, immutability, bad input."""

from __future__ import annotations

import pytest
from helpers import ALL_TILES

import bones
from bones import TILES, Move, Tile

# --------------------------------------------------------------------------------------
# Tiles


def test_tiles_are_the_28_double_six_tiles_in_index_order():
    # RULES.md §1.1: the 28 unordered pairs, each once, 7 doubles, 168 pips
    assert len(TILES) == 28
    assert len(set(TILES)) == 28
    assert [str(t) for t in TILES] == list(ALL_TILES)
    assert [t.index for t in TILES] == list(range(28))
    assert sum(t.pips for t in TILES) == 168
    assert sum(t.is_double for t in TILES) == 7
    assert {(t.high, t.low) for t in TILES} == {(a, b) for a in range(7) for b in range(a + 1)}


@pytest.mark.parametrize("tile", TILES, ids=str)
def test_tile_text_and_repr_round_trip(tile):
    text = str(tile)
    assert text == f"{tile.high}-{tile.low}"
    assert tile.high >= tile.low
    assert tile.pips == tile.high + tile.low
    assert tile.is_double == (tile.high == tile.low)
    assert Tile.parse(text) == tile
    assert Tile.parse(f"{tile.low}-{tile.high}") == tile  # either order
    assert repr(tile) == f"Tile.parse('{text}')"
    assert eval(repr(tile), {"Tile": Tile}) == tile
    assert hash(Tile.parse(text)) == hash(tile)
    assert TILES[tile.index] == tile


def test_tile_parse_either_order():
    t = Tile.parse("4-6")
    assert str(t) == "6-4" and (t.high, t.low, t.pips, t.is_double) == (6, 4, 10, False)
    assert Tile.parse("6-4") == t
    assert Tile.parse("3-3").is_double


def test_tiles_hash_as_set_members_and_keys():
    assert len({Tile.parse("6-4"), Tile.parse("4-6"), Tile.parse("6-4")}) == 1
    d = {Tile.parse("5-0"): "x"}
    assert d[Tile.parse("0-5")] == "x"
    assert Tile.parse("6-4") != Tile.parse("6-5")


@pytest.mark.parametrize("text", ["7-1", "6", "a-b", "", "6-4-1", "-1-2", "6--4", "6-7", "66"])
def test_tile_parse_rejects_bad_text(text):
    with pytest.raises(ValueError):
        Tile.parse(text)


def test_tile_is_immutable():
    t = Tile.parse("6-4")
    with pytest.raises((AttributeError, TypeError)):
        t.high = 3
    assert str(t) == "6-4"


# --------------------------------------------------------------------------------------
# Moves

CANONICAL = [
    "6-4",
    "0-0",
    "6-4@W",
    "6-4@E",
    "6-4@N",
    "6-4@S",
    "3-3@W",
    "2-2@W+5-5@E",
    "0-0@W+6-6@E",
    "draw",
    "pass",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_move_text_and_repr_round_trip(text):
    m = Move.parse(text)
    assert str(m) == text
    assert repr(m) == f"Move.parse('{text}')"
    assert eval(repr(m), {"Move": Move}) == m
    assert Move.parse(str(m)) == m
    assert hash(Move.parse(text)) == hash(m)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("4-6", "6-4"),
        ("4-6@E", "6-4@E"),
        ("0-5@N", "5-0@N"),
        ("5-5@E+2-2@W", "2-2@W+5-5@E"),
    ],
)
def test_move_parse_normalises(text, canonical):
    m = Move.parse(text)
    assert str(m) == canonical
    assert m == Move.parse(canonical)
    assert hash(m) == hash(Move.parse(canonical))


def test_move_attributes():
    lead = Move.parse("6-4")
    assert lead.is_lead and lead.end is None and lead.tile == Tile.parse("6-4")
    assert not (lead.is_draw or lead.is_pass or lead.is_double_double)

    place = Move.parse("4-6@W")
    assert place.tile == Tile.parse("6-4") and place.end == "W"
    assert place.tile2 is None and place.end2 is None
    assert not (place.is_lead or place.is_draw or place.is_pass or place.is_double_double)

    dd = Move.parse("2-2@W+5-5@E")
    assert dd.is_double_double and not dd.is_lead
    assert (str(dd.tile), dd.end, str(dd.tile2), dd.end2) == ("2-2", "W", "5-5", "E")

    draw, pass_ = Move.parse("draw"), Move.parse("pass")
    assert draw.is_draw and not draw.is_pass and draw.tile is None
    assert pass_.is_pass and not pass_.is_draw and pass_.tile is None


def test_moves_hash_as_set_members_and_keys():
    moves = {Move.parse("6-4@W"), Move.parse("4-6@W"), Move.parse("6-4@E"), Move.parse("6-4")}
    assert len(moves) == 3
    assert Move.parse("6-4@W") != Move.parse("6-4@E")
    assert Move.parse("6-4@W") != Move.parse("6-4")
    assert Move.parse("draw") != Move.parse("pass")
    assert {Move.parse("draw"): 1}[Move.parse("draw")] == 1


def test_move_is_immutable():
    m = Move.parse("6-4@W")
    with pytest.raises((AttributeError, TypeError)):
        m.end = "E"
    assert str(m) == "6-4@W"


@pytest.mark.parametrize(
    "text",
    [
        "6-4@X",
        "6-4@",
        "@W",
        "7-4@W",
        "2-2@W+",
        "drawx",
        "",
        "6-4@W@E",
        "+",
        "6-4W",
        "6-4@W+draw",
        # a double-double of one double twice, or at one end twice; a second claim behind a
        # space; a non-ASCII letter that str.upper() turns into an end name
        "2-2@W+2-2@E",
        "2-2@E+5-5@E",
        "6-4@W! !",
        "6-4@W!\t!",
        "6-4@\u017f",
    ],
)
def test_move_parse_rejects_bad_text(text):
    with pytest.raises(ValueError):
        Move.parse(text)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # docs/serialization.md: bits 0-4 tile index, 5-9 end (31 = lead), 10-19 second
        # tile and end, 20-22 kind (0 place, 1 double-double, 2 draw, 3 pass)
        ("6-4", 24 | 31 << 5),
        ("6-4@W", 24),
        ("6-4@E", 24 | 1 << 5),
        ("6-4@N", 24 | 2 << 5),
        ("6-4@S", 24 | 3 << 5),
        ("2-2@W+5-5@E", 13 | 25 << 10 | 1 << 15 | 1 << 20),
        ("draw", 2 << 20),
        ("pass", 3 << 20),
    ],
)
def test_move_codes(text, code):
    assert Move.parse(text).code == code


def test_legal_moves_accept_text_and_round_trip():
    r = bones.Round.deal("straight", players=2, seed=3, leader=0)
    for _ in range(6):
        moves = list(r.legal_moves)
        assert len(r.legal_moves) == len(moves) > 0
        for i, m in enumerate(moves):
            assert isinstance(m, Move)
            assert r.legal_moves[i] == m
            assert m in r.legal_moves and str(m) in r.legal_moves
            assert Move.parse(str(m)) == m
        r.play(str(moves[-1]))  # text is accepted wherever a move is
        if r.is_over:
            break


def test_round_takes_tiles_as_text_or_objects():
    hands_text = [["6-4", "2-1", "3-3"], ["5-5", "4-0", "1-1"]]
    hands_obj = [[Tile.parse(t) for t in h] for h in hands_text]
    a = bones.Round.from_deal("block", hands=hands_text, leader=0, partial=True)
    b = bones.Round.from_deal("block", hands=hands_obj, leader=0, partial=True)
    assert a.to_msgpack() == b.to_msgpack()
    a.play("6-4")
    b.play(Move.parse("6-4"))
    assert a.to_msgpack() == b.to_msgpack()
