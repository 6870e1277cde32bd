"""The 91 tiles of the double-12 set (and of its subsets, double-6 and double-9) as small
immutable objects: the tiles of the train games (``bones.core.trains``)."""

from cpython.number cimport PyIndex_Check
from libc.stdint cimport uint64_t

from bones.core.tiles cimport short_repr

_MASK64 = (1 << 64) - 1
_ALL = (1 << 91) - 1


cdef class SetTile:
    """One tile of a double-N set (N up to 12), written with the higher half first
    (``12-5``).

    There are exactly 91 instances; ``SetTile.parse`` and the engine hand out those, so
    tiles compare by identity as well as by value.  ``index`` is the tile's place in the
    double-12 order (0-0, 0-1, ..., 0-12, 1-1, ..., 12-12), the same in every set.
    """

    def __cinit__(self, *args):
        # Only this module makes tiles (there are exactly 91).
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError("use SetTile.parse('12-5')")

    def __init__(self, *args, **kwargs):
        raise TypeError("use SetTile.parse('12-5')")

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

    @property
    def pips(self):
        """The sum of both halves."""
        return self.high + self.low

    @property
    def is_double(self):
        return self.high == self.low

    def __str__(self):
        return f"{self.high}-{self.low}"

    def __repr__(self):
        return f"SetTile.parse('{self.high}-{self.low}')"

    def __hash__(self):
        return self.index

    def __eq__(self, other):
        if isinstance(other, SetTile):
            return self.index == (<SetTile>other).index
        return NotImplemented

    def __lt__(self, other):
        if isinstance(other, SetTile):
            return self.index < (<SetTile>other).index
        return NotImplemented

    def __reduce__(self):
        return (SetTile.parse, (str(self),))


cdef object _NEW = object()   # the token that lets this module construct tiles
cdef list _TILES = []
for _i in range(91):
    _t = SetTile.__new__(SetTile, _NEW)
    (<SetTile>_t).index = _i
    (<SetTile>_t).low = WIDE_LO[_i]
    (<SetTile>_t).high = WIDE_HI[_i]
    _TILES.append(_t)

SET_TILES = tuple(_TILES)
cdef dict _TEXT_INDEX = {}
for _t in _TILES:
    _TEXT_INDEX[str(_t)] = (<SetTile>_t).index
    _TEXT_INDEX[f"{(<SetTile>_t).low}-{(<SetTile>_t).high}"] = (<SetTile>_t).index


cdef SetTile wide_tile(int index):
    return <SetTile>_TILES[index]


cdef inline int _half(str part):
    """The number 0..12 written ``part`` (ASCII digits), else -1."""
    cdef Py_ssize_t n = len(part)
    if n == 0 or n > 8 or not part.isascii() or not part.isdigit():
        return -1
    cdef int v = int(part)
    return v if v <= 12 else -1


cdef int to_wide_index(object tile) except -1:
    """Index of a SetTile or of its text: TypeError for other types, ValueError for a str
    that is not a tile of the double-12 set."""
    cdef int a, b
    if isinstance(tile, SetTile):
        return (<SetTile>tile).index
    if not isinstance(tile, str):
        raise TypeError(
            f"a tile is a SetTile or its text like '12-5', not {type(tile).__name__}")
    found = _TEXT_INDEX.get(tile)  # the common case: canonical text
    if found is not None:
        return found
    if len(<str>tile) <= 40:
        text = (<str>tile).strip().replace(":", "-").replace("|", "-")
        parts = text.split("-")
        if len(parts) == 2:
            a = _half(parts[0])
            b = _half(parts[1])
            if a >= 0 and b >= 0:
                return wide_index(a, b)
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
