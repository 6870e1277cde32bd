"""The 28 tiles of the double-six set as small immutable objects."""

from libc.stdint cimport uint32_t


cdef class Tile:
    """One tile of the double-six set, written with the higher half first (``6-4``).

    There are exactly 28 instances; ``Tile.parse`` and the engine hand out those, so tiles
    compare by identity as well as by value.
    """

    def __init__(self, *args):
        raise TypeError("use Tile.parse('6-4') or bones.TILES[index]")

    @staticmethod
    def parse(object text):
        """The tile written ``text`` (``"6-4"``, ``"4-6"``, ``"6:4"``); a Tile as is."""
        return tile_at(to_tile_index(text))

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
        return f"Tile.parse('{self.high}-{self.low}')"

    def __hash__(self):
        return self.index

    def __eq__(self, other):
        if isinstance(other, Tile):
            return self.index == (<Tile>other).index
        return NotImplemented

    def __lt__(self, other):
        if isinstance(other, Tile):
            return self.index < (<Tile>other).index
        return NotImplemented

    def __reduce__(self):
        return (Tile.parse, (str(self),))


cdef list _TILES = []
for _i in range(28):
    _t = Tile.__new__(Tile)
    (<Tile>_t).index = _i
    (<Tile>_t).low = TILE_LO[_i]
    (<Tile>_t).high = TILE_HI[_i]
    _TILES.append(_t)

TILES = tuple(_TILES)


cdef Tile tile_at(int index):
    return <Tile>_TILES[index]


cdef int to_tile_index(object tile) except -1:
    """Index of a Tile or of its text; a clear ValueError for anything else."""
    cdef int a, b
    if isinstance(tile, Tile):
        return (<Tile>tile).index
    if isinstance(tile, str):
        text = (<str>tile).strip().replace(":", "-").replace("|", "-")
        parts = text.split("-")
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
            a = int(parts[0])
            b = int(parts[1])
            if 0 <= a <= 6 and 0 <= b <= 6:
                return tile_index(a, b)
    raise ValueError(f"not a double-six tile: {tile!r} (write it like '6-4')")


cdef uint32_t to_mask(object tiles) except? 0xFFFFFFFF:
    """Mask of an iterable of tiles; a repeated tile is a ValueError."""
    cdef uint32_t m = 0, bit
    for tile in tiles:
        bit = 1u << to_tile_index(tile)
        if m & bit:
            raise ValueError(f"tile {tile_at(ctz(bit))} appears twice")
        m |= bit
    return m


def tiles_of_mask(uint32_t mask):
    """The tiles of a mask (bit t = tile t), in index order."""
    if mask & ~ALL_TILES:
        raise ValueError(f"not a tile mask: {mask:#x} (tiles are bits 0..27)")
    out = []
    while mask:
        out.append(_TILES[ctz(mask)])
        mask &= mask - 1
    return tuple(out)
