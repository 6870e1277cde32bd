# Tiles are indices 0..27 (pairs lo <= hi in the order of ref_block.c: 0-0, 1-0, ..., 6-0,
# 1-1, ...); a set of tiles is a 32-bit mask.  The tables are static C data so every module
# that cimports this file inlines them.
from libc.stdint cimport uint8_t, uint32_t

from bones.core.bitops cimport ctz32 as ctz, popcount32 as popcount

cdef extern from "_portable.h":
    """
    #define BONES_N_TILES 28
    #define BONES_ALL_TILES 0x0FFFFFFFu
    static const uint8_t BONES_TILE_LO[28] = {
        0,0,0,0,0,0,0, 1,1,1,1,1,1, 2,2,2,2,2, 3,3,3,3, 4,4,4, 5,5, 6};
    static const uint8_t BONES_TILE_HI[28] = {
        0,1,2,3,4,5,6, 1,2,3,4,5,6, 2,3,4,5,6, 3,4,5,6, 4,5,6, 5,6, 6};
    static const uint8_t BONES_DOUBLE[7] = {0, 7, 13, 18, 22, 25, 27};
    static const uint32_t BONES_PIP_MASK[7] = {
        0x0000007Fu, 0x00001F82u, 0x0003E104u, 0x003C4208u,
        0x01C88410u, 0x06910820u, 0x0D221040u};
    static const uint32_t BONES_DOUBLES_MASK = 0x0A442081u;
    static inline int bones_nth_bit(uint32_t m, uint32_t k) {
        while (k--) m &= m - 1;
        return bones_ctz32(m);
    }
    static inline int bones_pips(int t) { return BONES_TILE_LO[t] + BONES_TILE_HI[t]; }
    static inline int bones_mask_pips(uint32_t m) {
        int s = 0;
        while (m) { s += bones_pips(bones_ctz32(m)); m &= m - 1; }
        return s;
    }
    static inline int bones_tile_index(int a, int b) {
        if (a > b) { int x = a; a = b; b = x; }
        return a * 7 - a * (a - 1) / 2 + (b - a);
    }
    """
    const int N_TILES "BONES_N_TILES"
    const uint32_t ALL_TILES "BONES_ALL_TILES"
    const uint8_t TILE_LO "BONES_TILE_LO"[28]
    const uint8_t TILE_HI "BONES_TILE_HI"[28]
    const uint8_t DOUBLE_OF "BONES_DOUBLE"[7]
    const uint32_t PIP_MASK "BONES_PIP_MASK"[7]
    const uint32_t DOUBLES_MASK "BONES_DOUBLES_MASK"
    int nth_bit "bones_nth_bit"(uint32_t m, uint32_t k) noexcept nogil
    int tile_pips "bones_pips"(int t) noexcept nogil
    int mask_pips "bones_mask_pips"(uint32_t m) noexcept nogil
    int tile_index "bones_tile_index"(int a, int b) noexcept nogil


cdef inline bint bad_hand(uint32_t h) noexcept nogil:
    """Kozel's redeal rule: five or more doubles, or six or more tiles of one number."""
    cdef int p
    if popcount(h & DOUBLES_MASK) >= 5:
        return True
    for p in range(7):
        if popcount(h & PIP_MASK[p]) >= 6:
            return True
    return False


cdef class TileFace:
    cdef readonly int index      # the tile's place in its set's numbering
    cdef readonly int high       # the larger half
    cdef readonly int low        # the smaller half


cdef class Tile(TileFace):      # index 0..27 in the double-six order
    pass


cdef TileFace make_tile(type cls, int index, int low, int high)  # the only maker of tiles
cdef int read_halves(str text, int top) except -2  # first * 16 + second half written; or -1
cdef Tile tile_at(int index)
cdef int to_tile_index(object tile) except -1  # TypeError: not a str/Tile; ValueError
cdef str short_repr(str text)
cdef uint32_t to_mask(object tiles) except? 0xFFFFFFFF
cpdef tuple tiles_of_mask(uint32_t mask)
