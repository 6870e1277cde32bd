# The threads of one search decision, shared by both families' searches (the line games'
# search and ismcts, the train games' trainsearch and trainismcts): each thread's own
# generator, its share of the samples or iterations, and running them.
from libc.stdint cimport uint64_t

from bones.core.rng cimport rng_seed


cdef inline uint64_t thread_rng(uint64_t rng, int t) noexcept nogil:
    """The generator of thread t of a decision on several threads whose own is rng."""
    return rng_seed(rng ^ (0x9E3779B97F4A7C15ULL * <uint64_t>(t + 1)))


cdef inline int share(int total, int parts, int t) noexcept nogil:
    """Thread t's part of total shared out between parts threads (the first get the rest)."""
    return total // parts + (1 if t < total % parts else 0)


cdef inline object run_threads(first, list others):
    """Call ``first()`` on this thread while each of ``others`` runs on a thread of its
    own; returns when all have finished."""
    import threading

    helpers = [threading.Thread(target=f) for f in others]
    for helper in helpers:
        helper.start()
    try:
        first()
    finally:
        for helper in helpers:
            helper.join()
