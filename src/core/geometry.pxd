# Where the tiles lie on the table (RULES.md 3.4, docs/geometry.md).  The grid unit is a
# quarter of a tile's length: a tile is 4 units long and 2 wide.  x grows to the right, y
# downwards, and the lead's centre is (0, 0).  Plain C on small structs, without the GIL.
from libc.stdint cimport int8_t, uint8_t

cdef enum Direction:
    DIR_E = 0                    # +x
    DIR_S = 1                    # +y (clockwise from E on a y-down grid)
    DIR_W = 2                    # -x
    DIR_N = 3                    # -y

cdef enum:
    NO_ROOM = -1                 # pick_way: no way for the next tile fits
    ALONGSIDE = 4                # a way's flag: the turn lies beside the end tile

ctypedef struct Anchor:
    int8_t x                     # the middle of the end tile's outer edge, where the next
    int8_t y                     # tile touches it
    uint8_t dir                  # Direction the line grows in from there

ctypedef struct Spot:
    int8_t x                     # the tile's centre
    int8_t y
    uint8_t dir                  # Direction from its first half to its second half
    uint8_t first                # pips on the first half (the one touching the line)
    uint8_t second               # pips on the second half
    int8_t x0                    # the box it covers (set with x, y and dir), for the
    int8_t y0                    # overlap tests
    int8_t x1
    int8_t y1

ctypedef struct Table:
    uint8_t bounded              # 1: the table has edges and blocked ends close
    int8_t x0                    # left edge
    int8_t y0                    # top edge
    int8_t x1                    # right edge
    int8_t y1                    # bottom edge


cdef void lead_spot(int hi, int lo, bint spinner, Spot* out, Anchor* ends) noexcept nogil
cdef int pick_way(const Spot* spots, int n, const Table* table, Anchor at) noexcept nogil
cdef void jump_ahead(const Spot* spots, int n, const Table* table, Anchor* at) noexcept nogil
cdef bint has_room(const Spot* spots, int n, const Table* table, Anchor at) noexcept nogil
cdef void place_spot(Anchor* at, int way, int v, int other, bint spinner,
                     Spot* out, Anchor* arms) noexcept nogil
cdef void spot_box(const Spot* s, int* box) noexcept nogil
cdef bint within_reach(const Spot* spot, Anchor at) noexcept nogil
