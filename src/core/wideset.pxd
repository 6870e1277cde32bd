# Tiles of the double-N sets up to double-12 (the train games) and sets of them as 128-bit
# masks.  One numbering for every wide set: the double-12 order, index(a, b) (a <= b) =
# a*13 - a*(a-1)/2 + (b - a), 91 tiles; a double-N set is the subset with b <= N.  The
# tables are static C data so every module that cimports this file inlines them.
from libc.stdint cimport uint8_t, uint64_t

from bones.core.tiles cimport TileFace

cdef extern from "_portable.h":
    """
    #ifndef BONES_WIDESET_H
    #define BONES_WIDESET_H
    #define WIDE_N_TILES 91
    typedef struct { uint64_t lo; uint64_t hi; } bones_w128;  /* bits 0-63, 64-127 */
    static const uint8_t WIDE_LO[91] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2,
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4,
        4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 8, 8,
        8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 12};
    static const uint8_t WIDE_HI[91] = {
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 2,
        3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 4, 5, 6, 7, 8, 9,
        10, 11, 12, 5, 6, 7, 8, 9, 10, 11, 12, 6, 7, 8, 9, 10, 11, 12, 7, 8, 9, 10, 11, 12, 8, 9,
        10, 11, 12, 9, 10, 11, 12, 10, 11, 12, 11, 12, 12};
    static const uint8_t WIDE_DOUBLE[13] = {0, 13, 25, 36, 46, 55, 63, 70, 76, 81, 85, 88, 90};
    static const bones_w128 WIDE_NUM[13] = {
        {0x0000000000001fffULL, 0x0000000000000000ULL},
        {0x0000000001ffe002ULL, 0x0000000000000000ULL},
        {0x0000000ffe004004ULL, 0x0000000000000000ULL},
        {0x00003ff004008008ULL, 0x0000000000000000ULL},
        {0x007fc02008010010ULL, 0x0000000000000000ULL},
        {0x7f80804010020020ULL, 0x0000000000000000ULL},
        {0x8101008020040040ULL, 0x000000000000003fULL},
        {0x0202010040080080ULL, 0x0000000000000fc1ULL},
        {0x0404020080100100ULL, 0x000000000001f082ULL},
        {0x0808040100200200ULL, 0x00000000001e2104ULL},
        {0x1010080200400400ULL, 0x0000000000e44208ULL},
        {0x2020100400800800ULL, 0x0000000003488410ULL},
        {0x4040200801001000ULL, 0x0000000006910820ULL}};
    static const bones_w128 WIDE_SET[13] = {
        {0x0000000000000001ULL, 0x0000000000000000ULL},
        {0x0000000000002003ULL, 0x0000000000000000ULL},
        {0x0000000002006007ULL, 0x0000000000000000ULL},
        {0x000000100600e00fULL, 0x0000000000000000ULL},
        {0x000040300e01e01fULL, 0x0000000000000000ULL},
        {0x0080c0701e03e03fULL, 0x0000000000000000ULL},
        {0x8181c0f03e07e07fULL, 0x0000000000000000ULL},
        {0x8383c1f07e0fe0ffULL, 0x0000000000000041ULL},
        {0x8787c3f0fe1fe1ffULL, 0x00000000000010c3ULL},
        {0x8f8fc7f1fe3fe3ffULL, 0x00000000000231c7ULL},
        {0x9f9fcff3fe7fe7ffULL, 0x00000000002673cfULL},
        {0xbfbfdff7feffefffULL, 0x00000000016ef7dfULL},
        {0xffffffffffffffffULL, 0x0000000007ffffffULL}};
    static const bones_w128 WIDE_DOUBLES = {0x8080401002002001ULL, 0x0000000005221040ULL};
    static inline bones_w128 w128_and(bones_w128 a, bones_w128 b) {
        bones_w128 r = {a.lo & b.lo, a.hi & b.hi}; return r;
    }
    static inline bones_w128 w128_or(bones_w128 a, bones_w128 b) {
        bones_w128 r = {a.lo | b.lo, a.hi | b.hi}; return r;
    }
    static inline bones_w128 w128_andnot(bones_w128 a, bones_w128 b) {
        bones_w128 r = {a.lo & ~b.lo, a.hi & ~b.hi}; return r;
    }
    static inline int w128_any(bones_w128 a) { return (a.lo | a.hi) != 0; }
    static inline int w128_eq(bones_w128 a, bones_w128 b) {
        return a.lo == b.lo && a.hi == b.hi;
    }
    static inline int w128_has(bones_w128 a, int t) {
        return t < 64 ? (int)((a.lo >> t) & 1u) : (int)((a.hi >> (t - 64)) & 1u);
    }
    static inline bones_w128 w128_bit(int t) {
        bones_w128 r = {t < 64 ? 1ULL << t : 0, t < 64 ? 0 : 1ULL << (t - 64)}; return r;
    }
    static inline void w128_set(bones_w128 *a, int t) {
        if (t < 64) a->lo |= 1ULL << t; else a->hi |= 1ULL << (t - 64);
    }
    static inline void w128_clear(bones_w128 *a, int t) {
        if (t < 64) a->lo &= ~(1ULL << t); else a->hi &= ~(1ULL << (t - 64));
    }
    static inline int w128_count(bones_w128 a) {
        return bones_popcount64(a.lo) + bones_popcount64(a.hi);
    }
    /* The lowest tile of a non-empty mask. */
    static inline int w128_first(bones_w128 a) {
        return a.lo ? bones_ctz64(a.lo) : 64 + bones_ctz64(a.hi);
    }
    /* The mask without its lowest tile. */
    static inline bones_w128 w128_rest(bones_w128 a) {
        if (a.lo) a.lo &= a.lo - 1; else a.hi &= a.hi - 1;
        return a;
    }
    /* The k-th lowest tile (k < count). */
    static inline int w128_nth(bones_w128 a, int k) {
        while (k--) a = w128_rest(a);
        return w128_first(a);
    }
    static inline int wide_index(int a, int b) {
        if (a > b) { int x = a; a = b; b = x; }
        return a * 13 - a * (a - 1) / 2 + (b - a);
    }
    /* Pips of a mask, 0-0 counting zero_double. */
    static inline int w128_pips(bones_w128 a, int zero_double) {
        int s = 0, t;
        while (w128_any(a)) {
            t = w128_first(a);
            s += t == 0 ? zero_double : WIDE_LO[t] + WIDE_HI[t];
            a = w128_rest(a);
        }
        return s;
    }
    #endif
    """
    const int WIDE_N_TILES
    ctypedef struct W128 "bones_w128":
        uint64_t lo                  # tiles 0..63
        uint64_t hi                  # tiles 64..90
    const uint8_t WIDE_LO[91]
    const uint8_t WIDE_HI[91]
    const uint8_t WIDE_DOUBLE[13]
    const W128 WIDE_NUM[13]
    const W128 WIDE_SET[13]
    const W128 WIDE_DOUBLES
    W128 w_and "w128_and"(W128 a, W128 b) noexcept nogil
    W128 w_or "w128_or"(W128 a, W128 b) noexcept nogil
    W128 w_andnot "w128_andnot"(W128 a, W128 b) noexcept nogil
    bint w_any "w128_any"(W128 a) noexcept nogil
    bint w_eq "w128_eq"(W128 a, W128 b) noexcept nogil
    bint w_has "w128_has"(W128 a, int t) noexcept nogil
    W128 w_bit "w128_bit"(int t) noexcept nogil
    void w_set "w128_set"(W128* a, int t) noexcept nogil
    void w_clear "w128_clear"(W128* a, int t) noexcept nogil
    int w_count "w128_count"(W128 a) noexcept nogil
    int w_first "w128_first"(W128 a) noexcept nogil
    W128 w_rest "w128_rest"(W128 a) noexcept nogil
    int w_nth "w128_nth"(W128 a, int k) noexcept nogil
    int wide_index(int a, int b) noexcept nogil
    int w_pips "w128_pips"(W128 a, int zero_double) noexcept nogil


cdef inline W128 w_zero() noexcept nogil:
    cdef W128 z
    z.lo = 0
    z.hi = 0
    return z


cdef class SetTile(TileFace):   # index 0..90 in the double-12 order
    pass


cdef SetTile wide_tile(int index)
cdef int to_wide_index(object tile) except -1  # TypeError: not a str/SetTile; ValueError
cdef W128 mask_of_ints(object value) except *  # a Python int 0..2**91-1 as a mask
cdef object int_of_mask(W128 m)                 # the mask as a Python int
cpdef tuple wide_tiles_of(object mask)          # the SetTiles of a Python-int mask
