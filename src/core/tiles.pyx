"""The 28 tiles of the double-six set as small immutable objects."""

from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport uint32_t


cdef class TileFace:
    """What a tile shows to Python, shared by the double-six :class:`Tile` and the train
    games' ``SetTile`` (``bones.core.wideset``): its halves, text, hash, pickling and an
    order.  A tile is its two halves, whatever set it comes from: the double-six ``6-4``
    equals the double-12 set's ``6-4`` (``Tile.parse('6-4') == SetTile.parse('6-4')``, one
    hash), and tiles order by (low half, high half), the order of every set's ``index``.
    ``index`` itself is the tile's place in its own set's numbering.

    Tiles are made only by their module (``make_tile``); a class says how in ``_how``.
    """

    _how = "use Tile.parse('6-4') or SetTile.parse('12-5')"

    def __cinit__(self, *args):
        # Only make_tile makes tiles (each set has a fixed number of them):
        # Tile.__new__(Tile) from Python would make one more, uninitialised.
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError(type(self)._how)

    def __init__(self, *args, **kwargs):
        raise TypeError(type(self)._how)

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
        return f"{type(self).__name__}.parse('{self.high}-{self.low}')"

    def __hash__(self):
        return _key(self)

    def __eq__(self, other):
        if isinstance(other, TileFace):
            return _key(self) == _key(<TileFace>other)
        return NotImplemented

    def __lt__(self, other):
        if isinstance(other, TileFace):
            return _key(self) < _key(<TileFace>other)
        return NotImplemented

    def __reduce__(self):
        return (type(self).parse, (str(self),))


cdef class Tile(TileFace):
    """One tile of the double-six set, written with the higher half first (``6-4``).

    There are exactly 28 instances; ``Tile.parse`` and the engine hand out those, so tiles
    compare by identity as well as by value.
    """

    _how = "use Tile.parse('6-4') or bones.TILES[index]"

    @staticmethod
    def parse(object text):
        """The tile written ``text`` (``"6-4"``, ``"4-6"``, ``"6:4"``); a Tile as is.
        TypeError for anything but a str or a Tile, ValueError for a str that is not a
        tile."""
        return tile_at(to_tile_index(text))


cdef object _NEW = object()   # the token that lets make_tile construct tiles


cdef inline int _key(TileFace t) noexcept:
    """The tile's place in the double-12 order (0-0, 0-1, ..., 0-12, 1-1, ...): one number
    per pair of halves, whatever the set, in the order of every set's own ``index``."""
    return t.low * 13 - t.low * (t.low - 1) // 2 + (t.high - t.low)


cdef TileFace make_tile(type cls, int index, int low, int high):
    """The tile ``index`` of ``cls`` (a subclass of TileFace) with its halves."""
    cdef TileFace t = cls.__new__(cls, _NEW)
    t.index = index
    t.low = low
    t.high = high
    return t


cdef list _TILES = [make_tile(Tile, i, TILE_LO[i], TILE_HI[i]) for i in range(28)]

TILES = tuple(_TILES)


cdef Tile tile_at(int index):
    return <Tile>_TILES[index]


cdef inline int _half(str part, int top):
    """The number 0..top written ``part`` (ASCII digits, leading zeros allowed), else -1."""
    cdef Py_ssize_t n = len(part)
    if n == 0 or n > 8 or not part.isascii() or not part.isdigit():
        return -1
    cdef int v = int(part)  # at most 8 digits: fits
    return v if v <= top else -1


cdef int read_halves(str text, int top) except -2:
    """The halves written in ``text`` (``"6-4"``, ``" 4:6"``, ``"6|4"``), each 0..top, as
    ``first * 16 + second``; -1 if ``text`` is not that (the caller names the error)."""
    cdef int a, b
    if len(text) > 40:
        return -1
    parts = text.strip().replace(":", "-").replace("|", "-").split("-")
    if len(parts) != 2:
        return -1
    a = _half(parts[0], top)
    b = _half(parts[1], top)
    if a < 0 or b < 0:
        return -1
    return a * 16 + b


cdef str short_repr(str text):
    """repr(text), cut to about 40 characters (for error messages about user input)."""
    if len(text) <= 32:
        return repr(text)
    return f"{text[:24]!r}... ({len(text)} characters)"


cdef int to_tile_index(object tile) except -1:
    """Index of a Tile or of its text: TypeError for other types, ValueError for a str that
    is not a tile."""
    cdef int ab
    if isinstance(tile, Tile):
        return (<Tile>tile).index
    if not isinstance(tile, str):
        raise TypeError(f"a tile is a Tile or its text like '6-4', not {type(tile).__name__}")
    ab = read_halves(<str>tile, 6)
    if ab >= 0:
        return tile_index(ab >> 4, ab & 15)
    raise ValueError(f"not a double-six tile: {short_repr(tile)} (write it like '6-4')")


cdef uint32_t to_mask(object tiles) except? 0xFFFFFFFF:
    """Mask of an iterable of tiles; a repeated tile is a ValueError."""
    cdef uint32_t m = 0, bit
    for tile in tiles:
        bit = 1u << to_tile_index(tile)
        if m & bit:
            raise ValueError(f"tile {tile_at(ctz(bit))} appears twice")
        m |= bit
    return m


cpdef tuple tiles_of_mask(uint32_t mask):
    """The tiles of a mask (bit t = tile t), in index order."""
    if mask & ~ALL_TILES:
        raise ValueError(f"not a tile mask: {mask:#x} (tiles are bits 0..27)")
    cdef tuple out = PyTuple_New(popcount(mask))
    cdef object tile
    cdef Py_ssize_t i = 0
    while mask:
        tile = _TILES[ctz(mask)]
        Py_INCREF(tile)
        PyTuple_SET_ITEM(out, i, tile)
        i += 1
        mask &= mask - 1
    return out
