# Shared pieces of the searches over sampled deals (montecarlo, pimc, ismcts).
from libc.stdint cimport uint32_t

from bones.core.state cimport State

cdef enum:
    MAX_CHOICES = 256            # legal moves of one decision, bounded (as MAX_MOVES)

cdef inline size_t header_size(const State* s) noexcept nogil:
    """Bytes of a State before its undo stack: a position copies without it."""
    return <size_t>(<const char*>&s.plies[0] - <const char*>s)


cdef double utility(const State* s, int side) noexcept nogil
cdef int load_moves(observation, legal_moves, uint32_t* codes) except -1
