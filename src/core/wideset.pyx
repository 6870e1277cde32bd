"""The 91 tiles of the double-12 set (and of its subsets, double-6 and double-9) as small
immutable objects: the tiles of the train games (``bones.core.trains``)."""

from cpython.number cimport PyIndex_Check
from libc.stdint cimport uint64_t

from bones.core.tiles cimport make_tile, read_halves, short_repr

_MASK64 = (1 << 64) - 1
_ALL = (1 << 91) - 1


cdef class SetTile(TileFace):
    """One tile of a double-N set (N up to 12), written with the higher half first
    (``12-5``).

    There are exactly 91 instances; ``SetTile.parse`` and the engine hand out those, so
    tiles compare by identity as well as by value.  ``index`` is the tile's place in the
    double-12 order (0-0, 0-1, ..., 0-12, 1-1, ..., 12-12), the same in every set.  A
    tile is its two halves: ``SetTile.parse('6-4') == bones.Tile.parse('6-4')`` (one hash,
    one order), though the double-six set numbers its ``index`` its own way.
    """

    _how = "use SetTile.parse('12-5')"

    @staticmethod
    def parse(object text):
        """The tile written ``text`` (``"12-5"``, ``"5-12"``, ``"12:5"``); a SetTile as is.
        TypeError for anything but a str or a SetTile, ValueError for a str that is not a
        tile of the double-12 set."""
        return wide_tile(to_wide_index(text))

    @staticmethod
    def at(object index):
        """The tile with ``index`` (0..90)."""
        if isinstance(index, bool) or not PyIndex_Check(index):
            raise TypeError(f"a tile index is an int, not {type(index).__name__}")
        if not 0 <= index < 91:
            raise ValueError(f"no tile {index}: tile indices are 0..90")
        return wide_tile(index)


cdef list _TILES = [make_tile(SetTile, i, WIDE_LO[i], WIDE_HI[i]) for i in range(91)]

SET_TILES = tuple(_TILES)
cdef dict _TEXT_INDEX = {}
for _t in _TILES:
    _TEXT_INDEX[str(_t)] = (<SetTile>_t).index
    _TEXT_INDEX[f"{(<SetTile>_t).low}-{(<SetTile>_t).high}"] = (<SetTile>_t).index


cdef SetTile wide_tile(int index):
    return <SetTile>_TILES[index]


cdef int to_wide_index(object tile) except -1:
    """Index of a SetTile or of its text: TypeError for other types, ValueError for a str
    that is not a tile of the double-12 set."""
    cdef int ab
    if isinstance(tile, SetTile):
        return (<SetTile>tile).index
    if not isinstance(tile, str):
        raise TypeError(
            f"a tile is a SetTile or its text like '12-5', not {type(tile).__name__}")
    found = _TEXT_INDEX.get(tile)  # the common case: canonical text
    if found is not None:
        return found
    ab = read_halves(<str>tile, 12)
    if ab >= 0:
        return wide_index(ab >> 4, ab & 15)
    raise ValueError(f"not a tile: {short_repr(tile)} (write it like '12-5'; halves 0..12)")


cdef W128 mask_of_ints(object value) except *:
    """A Python int (bit t = tile t) as a mask; ValueError outside 0..2**91-1."""
    cdef W128 m
    if type(value) is not int or not 0 <= value <= _ALL:
        raise ValueError("not a tile mask (an int of bits 0..90)")
    m.lo = <uint64_t>(value & _MASK64)
    m.hi = <uint64_t>(value >> 64)
    return m


cdef object int_of_mask(W128 m):
    return (<object>m.hi << 64) | <object>m.lo


cpdef tuple wide_tiles_of(object mask):
    """The tiles of a mask (a Python int, bit t = tile t), in index order."""
    cdef W128 m = mask_of_ints(mask)
    out = []
    while w_any(m):
        out.append(_TILES[w_first(m)])
        m = w_rest(m)
    return tuple(out)
