# Shared pieces of the searches over sampled deals (montecarlo, pimc, ismcts).
from libc.stdint cimport uint32_t, uint64_t

from bones.core.policy cimport Weights
from bones.core.rng cimport rng_seed
from bones.core.sampler cimport DealSampler
from bones.core.state cimport State, header_size, played_size

cdef enum:
    MAX_CHOICES = 256            # legal moves of one decision, bounded (as MAX_MOVES)

cdef enum Policy:
    POLICY_RANDOM = 0            # uniform over the legal moves
    POLICY_GREEDY = 1            # policy.greedy_pick
    POLICY_EXPERT = 2            # policy.expert_pick, the others' hands unknown to it

cdef inline size_t position_size(const State* s) noexcept nogil:
    """Bytes a copy of s needs to be played on: the header, and the plies made so far when
    a Python move_scorer scores it (the scorer is given the layout, read from the plies)."""
    if s.r.scorer != NULL:
        return played_size(s)
    return header_size(s)


cdef double utility(const State* s, int side) noexcept nogil
cdef void play_out(State* s, int policy, const Weights* w, uint64_t* rng) noexcept nogil
cdef int load_moves(observation, legal_moves, uint32_t* codes) except -1
cdef DealSampler sampler_for(observation, const uint32_t* codes, int n, uint64_t rng)
cdef DealSampler start_search(observation, legal_moves, str policy, weights, Weights* w,
                              uint32_t* codes, int* n, int* pol, uint64_t rng)
cdef tuple line_weights(weights, str policy, double infer, double gate)
