# Fast move choices for the train games, on the C state: the playout policies of the train
# searches and the expert's heuristic (docs/bots.md, "Train games").
from libc.stdint cimport uint64_t

from bones.core.trainstate cimport TrainState

cdef enum TrainPolicy:
    TP_RANDOM = 0                # uniform over the legal moves
    TP_GREEDY = 1                # the heaviest tile (0-0 counting zero_double); first of equals
    TP_EXPERT = 2                # the best tp_expert_score

cdef double tp_expert_score(const TrainState* s, int move) noexcept nogil
cdef int tp_pick(const TrainState* s, int policy, uint64_t* rng) noexcept nogil
