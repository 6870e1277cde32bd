# n rounds stepped together in C: the core of bones.envs.VectorEnv.
from libc.stdint cimport int32_t, uint32_t, uint64_t

from bones.core.actions cimport Actions
from bones.core.rules cimport CompiledRules
from bones.core.state cimport State
from bones.core.tensor cimport Planes, Voids


cdef class VectorCore:
    cdef State* states           # the n rounds (owned)
    cdef Voids* voids            # per round, what its record says about the hands (owned)
    cdef float* gained           # per round and seat, the returns so far (owned, n x 4)
    cdef uint32_t* codes         # per round, the move code of this step's action (owned)
    cdef readonly int n          # rounds
    cdef readonly CompiledRules rules  # the compiled variant
    cdef Actions a               # its action space
    cdef Planes t                # its tensor layout
    cdef uint64_t deal_rng       # deals (reset)
    cdef uint64_t act_rng        # random_actions
    cdef int32_t no_scores[4]    # every round starts at 0-0

    cdef void _deal(self, int i) noexcept nogil
    cdef void _emit(self, int i, float[:, ::1] obs, unsigned char[:, ::1] mask,
                    signed char[::1] to_play) noexcept nogil
