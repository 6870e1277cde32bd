# The portable primitives of the compiled core (_portable.h): bit counts, exact counts
# below 2**128 and the clocks.  Every module takes them from here, never from a compiler's
# builtins or the POSIX clocks, so the core builds with GCC, Clang and MSVC alike.
from libc.stdint cimport uint32_t, uint64_t


cdef extern from "_portable.h" nogil:
    const char* BONES_BITS       # which branch the bit counts use: builtin, msvc or c
    int popcount32 "bones_popcount32"(uint32_t m) noexcept
    int popcount64 "bones_popcount64"(uint64_t m) noexcept
    int ctz32 "bones_ctz32"(uint32_t m) noexcept      # m != 0
    int ctz64 "bones_ctz64"(uint64_t m) noexcept      # m != 0

    ctypedef struct U128 "bones_u128":
        uint64_t lo                  # the low 64 bits
        uint64_t hi                  # the high 64 bits
    U128 u128_of "bones_u128_of"(uint64_t x) noexcept
    bint u128_is_max "bones_u128_is_max"(U128 a) noexcept  # the overflow mark
    bint u128_is_zero "bones_u128_is_zero"(U128 a) noexcept
    bint u128_lt "bones_u128_lt"(U128 a, U128 b) noexcept
    U128 u128_add "bones_u128_add"(U128 a, U128 b) noexcept    # saturates
    U128 u128_sub "bones_u128_sub"(U128 a, U128 b) noexcept    # b <= a

    double monotonic "bones_monotonic"() noexcept  # seconds, time.monotonic()'s clock
    double thread_ms "bones_thread_ms"() noexcept  # the calling thread's CPU time, ms
