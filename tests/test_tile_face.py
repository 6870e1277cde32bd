"""The double-six Tile and the train games' SetTile share their Python face (TileFace:
text, halves, hash, pickling, order) but not their numbering: a tile equals and orders
only against tiles of its own set (issue 24)."""

from __future__ import annotations

import copy
import pickle
import re

import pytest

import bones
from bones.core.tiles import TILES, Tile, TileFace
from bones.core.wideset import SET_TILES, SetTile


@pytest.mark.parametrize(("cls", "tiles", "top"), [(Tile, TILES, 6), (SetTile, SET_TILES, 12)])
def test_the_shared_face(cls, tiles, top):
    assert issubclass(cls, TileFace) and len(tiles) == (top + 1) * (top + 2) // 2
    assert [t.index for t in tiles] == list(range(len(tiles)))
    assert sorted(reversed(tiles)) == list(tiles)
    for t in tiles:
        assert type(t) is cls and 0 <= t.low <= t.high <= top
        text = f"{t.high}-{t.low}"
        assert str(t) == text and repr(t) == f"{cls.__name__}.parse('{text}')"
        assert eval(repr(t), {cls.__name__: cls}) is t
        for written in (text, f"{t.low}-{t.high}", f" {t.high}:{t.low} ", f"{t.low}|0{t.high}"):
            assert cls.parse(written) is t
        assert cls.parse(t) is t
        assert hash(t) == SetTile.parse(text).index  # one hash per pair of halves
        assert t.pips == t.high + t.low and t.is_double == (t.high == t.low)
        assert pickle.loads(pickle.dumps(t)) is t and copy.deepcopy(t) is t
    assert tiles[0] < tiles[1] and not tiles[1] < tiles[0] and tiles[1] > tiles[0]
    assert len(set(tiles)) == len(tiles)


def test_one_tile_concept_for_every_set():
    """A tile is its two halves: the double-six 6-4 is the double-12 set's 6-4 (issue 30),
    though each set numbers its tiles its own way."""
    six, wide = Tile.parse("6-4"), SetTile.parse("6-4")
    assert str(six) == str(wide) and six.index != wide.index  # two numberings
    assert six == wide and wide == six and not six != wide
    assert hash(six) == hash(wide) and len({six, wide}) == 1 and {six: 1}[wide] == 1
    assert Tile.parse("6-6") != SetTile.parse("6-5") and Tile.parse("1-0") != SetTile.parse("2-0")
    assert SetTile.parse("6-4") in (Tile.parse("3-1"), Tile.parse("6-4"))
    for a in TILES:  # the double-six tiles in the wide set, both ways
        b = SetTile.parse(str(a))
        assert a == b and hash(a) == hash(b)
        for c in TILES:
            assert (a < c) == (b < SetTile.parse(str(c))) == (a < SetTile.parse(str(c)))
    assert Tile.parse("6-6") < SetTile.parse("7-0") or SetTile.parse("7-0") < Tile.parse("6-6")
    assert sorted([SetTile.parse("12-0"), Tile.parse("1-1"), Tile.parse("0-0")]) == [
        Tile.parse("0-0"),
        SetTile.parse("12-0"),
        Tile.parse("1-1"),
    ]


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (Tile, r"^use Tile.parse\('6-4'\) or bones.TILES\[index\]$"),
        (SetTile, r"^use SetTile.parse\('12-5'\)$"),
        (TileFace, r"^use Tile.parse\('6-4'\) or SetTile.parse\('12-5'\)$"),
    ],
)
def test_only_the_modules_make_tiles(cls, message):
    for make in (lambda: cls.__new__(cls), lambda: cls.__new__(cls, object()), lambda: cls()):
        with pytest.raises(TypeError, match=message):
            make()


@pytest.mark.parametrize(
    ("text", "six", "wide"),
    [
        ("7-0", "not a double-six tile: '7-0' (write it like '6-4')", None),
        (
            "13-0",
            "not a double-six tile",
            "not a tile: '13-0' (write it like '12-5'; halves 0..12)",
        ),
        ("6-4-1", "not a double-six tile", "not a tile"),
        ("-6", "not a double-six tile", "not a tile"),
        ("+6-4", "not a double-six tile", "not a tile"),
        ("６-4", "not a double-six tile", "not a tile"),  # a full-width digit
        ("1" * 60, "(60 characters)", "(60 characters)"),
    ],
)
def test_bad_text(text, six, wide):
    with pytest.raises(ValueError, match=re.escape(six)):
        Tile.parse(text)
    if wide is None:
        assert SetTile.parse(text).high == 7
    else:
        with pytest.raises(ValueError, match=re.escape(wide)):
            SetTile.parse(text)


def test_wrong_types():
    with pytest.raises(TypeError, match="a tile is a Tile or its text like '6-4', not SetTile"):
        Tile.parse(SetTile.parse("6-4"))
    with pytest.raises(TypeError, match="a tile is a SetTile or its text like '12-5', not Tile"):
        SetTile.parse(bones.Tile.parse("6-4"))
