# Fast move choices for the train games, on the C state: the playout policies of the train
# searches and the expert's heuristic (docs/bots.md, "Train games").
from libc.stdint cimport int64_t, uint64_t

from bones.core.trainsample cimport TrainSampler
from bones.core.trainstate cimport TrainState

cdef enum TrainPolicy:
    TP_RANDOM = 0                # uniform over the legal moves
    TP_GREEDY = 1                # the heaviest tile (0-0 counting zero_double); first of equals
    TP_EXPERT = 2                # the expert's move: the planner (tp_plan_pick)
    TP_CHAIN = 3                 # the chain heuristic (tp_chain_pick)

cdef enum:
    ROLLOUT_BUDGET = 1000        # planner nodes per chain planned in a playout
    NEAR_OUT = 1                 # a seat with this many tiles or fewer is close to going out

cdef int tp_plan_pick(const TrainState* s, int64_t budget, const int* sizes) noexcept nogil
cdef int tp_chain_pick(const TrainState* s, int64_t budget) noexcept nogil
cdef int tp_seat_pick(TrainSampler sampler, int policy, int64_t budget) noexcept nogil
cdef void tp_hand_sizes(const TrainState* s, int* sizes) noexcept nogil
cdef int tp_pick(const TrainState* s, int policy, uint64_t* rng) noexcept nogil
cdef void tp_playout(TrainState* s, int policy, uint64_t* rng) noexcept nogil
