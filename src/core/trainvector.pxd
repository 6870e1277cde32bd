# n train rounds stepped together in C: the core of bones.envs.VectorEnv for the train games.
from libc.stdint cimport int64_t, uint16_t, uint64_t

from bones.core.traintensor cimport TrainPlanes
from bones.core.trainstate cimport TrainState


cdef class TrainVectorCore:
    cdef TrainState* states      # the n rounds (owned)
    cdef uint16_t* codes         # per round, the move code of this step's action (owned)
    cdef readonly int n          # rounds
    cdef TrainPlanes t           # the tensor layout and the action numbering
    cdef int layout              # the deal's arguments (ts_deal_random) ...
    cdef int set_max
    cdef int engine
    cdef int players
    cdef int hand_size
    cdef int zero_double
    cdef int first_turn_own
    cdef int engine_toes         # ... to here
    cdef uint64_t deal_rng       # deals and leaders (reset, and a round that ended)
    cdef uint64_t act_rng        # random_actions
    cdef int no_scores[8]        # every round starts at 0 for every seat

    cdef int _code_of(self, const TrainState* s, int64_t act) noexcept nogil
    cdef void _deal(self, int i) noexcept nogil
    cdef void _emit(self, int i, float[:, ::1] obs, unsigned char[:, ::1] mask,
                    signed char[::1] to_play) noexcept nogil
