# Moves as 32-bit codes: bits 0-4 tile, 5-9 end (31 = lead), 10-14 second tile, 15-19 its
# end (Kozel's double-double), 20-21 the kind (state.MoveKind).
from libc.stdint cimport uint32_t


cdef class Move:
    cdef readonly uint32_t code  # the engine's encoding
    cdef str _text               # the canonical text, made on first use (moves are shared)

    cdef str _make_text(self)


cdef Move move_of(uint32_t code)  # ValueError for a malformed code
cdef uint32_t move_code(object move) except 0xFFFFFFFF
