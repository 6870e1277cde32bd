# What the vector cores (vector.pyx, trainvector.pyx) share: a batch's size checked, its
# per-round buffers allocated, its two random streams seeded.
from cpython.mem cimport PyMem_Calloc
from libc.stdint cimport uint64_t

from bones.core.rng cimport rng_seed


cdef inline int check_batch(bint made, int n, int most, str cls) except -1:
    """A core is initialised once, with 1 to most rounds."""
    if made:
        raise TypeError(f"a {cls} is initialised once")
    if n < 1 or n > most:
        raise ValueError(f"n must be from 1 to {most} rounds, got {n}")
    return 0


cdef inline void* batch_calloc(int n, size_t size) except NULL:
    """n zeroed items of size bytes, freed with PyMem_Free (MemoryError if none)."""
    cdef void* p = PyMem_Calloc(n, size)
    if p is NULL:
        raise MemoryError()
    return p


cdef inline int seed_streams(uint64_t* deal_rng, uint64_t* act_rng, seed) except -1:
    """Restart the deals' stream and random_actions' from seed (an int, mod 2**64)."""
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    deal_rng[0] = rng_seed(seed)
    act_rng[0] = rng_seed(seed ^ 0x5DEECE66D)
    return 0
