# The train planner: the best chain a hand can lay on one open end (a personal train),
# longest then heaviest, by a bounded branch-and-bound search over the hand's tiles as the
# edges of a graph on the numbers (docs/bots.md, "The train planner").
from libc.stdint cimport int32_t, int64_t, uint8_t

from bones.core.wideset cimport W128

cdef enum:
    PLAN_MAX_TILES = 91          # a chain holds at most every tile of the double-12 set
    PLAN_BUDGET = 20000          # default node budget: a 24-tile hand in a few ms

ctypedef struct ChainPlan:
    int32_t length               # tiles in the chain
    int32_t pips                 # their pips, 0-0 counting zero_double
    int64_t nodes                # search nodes visited
    bint exact                   # the search finished within its budget: the best chain
    uint8_t tiles[PLAN_MAX_TILES]  # the chain in the order it is laid

cdef void plan_chain(W128 hand, int open_num, int zero_double, int64_t budget,
                     ChainPlan* out) noexcept nogil
