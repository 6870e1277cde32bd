# The pieces of the train games' searches that trainismcts shares (threads of a decision).
from libc.stdint cimport uint64_t

from bones.core.rng cimport rng_seed

cdef inline uint64_t thread_rng(uint64_t rng, int t) noexcept nogil:
    """The generator of thread t of a decision on several threads whose own is rng (as
    ``bones.core.search``'s threads derive theirs)."""
    return rng_seed(rng ^ (0x9E3779B97F4A7C15ULL * <uint64_t>(t + 1)))


cdef inline int share(int total, int parts, int t) noexcept nogil:
    """Thread t's part of total shared out between parts threads (the first get the rest)."""
    return total // parts + (1 if t < total % parts else 0)


cdef run_threads(first, list others)
