from libc.stdint cimport uint32_t

from bones.core.rules cimport CompiledRules
from bones.core.state cimport State


cdef class Round:
    cdef State* st               # the whole round, deal and undo stack included (owned)
    cdef readonly CompiledRules rules  # the compiled variant and options
    cdef object _legal           # the live LegalMoves view
    cdef list _events            # the public events of the plies seen so far (a cache)
    cdef list _event_marks       # _event_marks[k]: len(_events) before ply k
    cdef list _layout            # the placements of the first _layout_plies plies (a cache)
    cdef int _layout_plies       # plies scanned into _layout
    cdef object _result          # the RoundResult once over (a cache, reset on undo)
    cdef bint partial            # the deal is not a full deal of the variant (partial=True)
    cdef bint _scoring           # a Python move_scorer is running: play/undo/copy refuse

    cdef void _replay(self, const uint32_t* codes, int n) except *
    cdef void _play_code(self, uint32_t code) except *
    cdef void _play_scored(self, uint32_t code) except *
    cdef int _python_points(self, uint32_t code, int count) except? -1
    cdef void _ply_events(self, int i) except *
    cdef void _forget_events(self, int plies) except *
    cdef list _event_list(self)
    cdef list _layout_list(self)
    cdef tuple _hand_sizes(self)
    cdef tuple _ends(self)
    cdef tuple _scores(self)
    cdef tuple _legal_tuple(self)
    cdef object _observation(self, int s)  # the seat's Observation (s checked by the caller)
