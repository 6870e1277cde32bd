# The engine's random numbers: xorshift64* (as in ref_block.c), seeded through splitmix64 so
# that nearby seeds give unrelated streams.  Plain 64-bit integer arithmetic: the same seed
# gives the same numbers on every machine.
from libc.stdint cimport uint32_t, uint64_t


cdef inline uint64_t splitmix64(uint64_t x) noexcept nogil:
    x += 0x9E3779B97F4A7C15ULL
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef inline uint64_t rng_seed(uint64_t seed) noexcept nogil:
    cdef uint64_t s = splitmix64(seed)
    return s if s != 0 else 0x9E3779B97F4A7C15ULL


cdef inline uint64_t rng_next(uint64_t* s) noexcept nogil:
    cdef uint64_t x = s[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    s[0] = x
    return x * 0x2545F4914F6CDD1DULL


cdef inline uint32_t rng_below(uint64_t* s, uint32_t n) noexcept nogil:
    """A number in [0, n) by multiply-shift on the high 32 bits (as ref_block.c)."""
    return <uint32_t>(((rng_next(s) >> 32) * <uint64_t>n) >> 32)
