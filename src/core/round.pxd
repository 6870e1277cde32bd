from libc.stdint cimport uint32_t

from bones.core.rules cimport CompiledRules
from bones.core.state cimport State


cdef class Round:
    cdef State st                # the whole round, deal and undo stack included
    cdef readonly CompiledRules rules  # the compiled variant and options
    cdef object _legal           # the live LegalMoves view

    cdef void _replay(self, const uint32_t* codes, int n) except *
    cdef void _play_code(self, uint32_t code) except *
