# Fast move choice on a State: the expert heuristic (every legal move scored by weighted
# features of the position after it, from what the mover may know) and greedy.
from libc.stdint cimport int32_t, uint32_t

from bones.core.state cimport State

cdef enum:
    N_WEIGHTS = 13               # fields of Weights, in order

ctypedef struct Weights:
    double points                # points scored by the move now
    double reply                 # the most the next opponent could score in reply
    double heavy                 # pips shed
    double heavy_near            # pips shed, again, when a block or the end is near
    double variety               # distinct numbers left in the hand
    double follow                # own tiles left that match the ends after the move
    double block                 # live ends whose number the next opponent lacks
    double partner               # live ends whose number the partner may hold
    double double_               # the move sheds a double
    double out                   # the move empties the hand
    double lone_zero             # Kozel: the hand left is the lone 0-0
    double closed                # Kozel 13 rule: heavy weights' factor while unrecorded
    double goat                  # Kozel: heavy weights' extra factor near the goat line

ctypedef struct Known:
    uint32_t may_hold[4]         # per seat, tiles it may hold (the mover: its hand)
    int32_t goat_line            # Kozel: the score that makes a side the goat (0: none)


cdef void known_of(const State* s, Known* k) noexcept nogil
cdef double move_value(State* s, uint32_t move, const Weights* w,
                       const Known* k) noexcept nogil
cdef int expert_pick(State* s, const uint32_t* moves, int n, const Weights* w,
                     const Known* k) noexcept nogil
cdef int greedy_pick(State* s) noexcept nogil
cdef int load_weights(object values, Weights* w) except -1
