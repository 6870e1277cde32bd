# A determinizer for the train games: from what one seat may know (a TrainObservation),
# the public position in a TrainState and, per sample, a hidden deal drawn uniformly among
# those consistent with the public record (docs/sampler.md, "The train games").
from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t

from bones.core.trainstate cimport TrainState
from bones.core.wideset cimport W128

ctypedef struct TSNode:
    int32_t first                # its first transition in TrainSampler.trans
    int32_t n                    # its transitions (>= 1)
    int32_t cls                  # the tiles it takes from: TrainSampler.cls_mask[cls]
    uint8_t group                # the group they go to
    uint8_t avail                # tiles of its class still unassigned here

ctypedef struct TSChoice:
    W128 offered                 # tiles that could go to another seat's train (or any foot)
    W128 placed                  # the tiles the seat placed before
    int32_t time                 # when (the log's time: 2 * event + 2)
    uint8_t seat                 # the other seat that chose
    uint8_t tile                 # the tile it placed

ctypedef struct TSTrans:
    double cum                   # cumulative probability of this and the earlier ones
    int32_t child                # the next node, -1 at the end
    uint8_t x                    # tiles taken from the node's class


cdef class TrainSampler:
    cdef TrainState* base        # the public position and the seat's hand; others empty
    cdef int seat                # the observer (the seat to move)
    cdef int n_unseen            # tiles the seat cannot see (other hands and the stock)
    cdef uint8_t unseen[91]      # those tiles, in index order
    cdef uint8_t sizes[8]        # each seat's hand size
    cdef int stock_size          # tiles left in the stock
    cdef bint exact              # 1: sample() draws from the exact model (nodes below)
    cdef object why_not          # why not exact (a str), or None
    cdef double weight           # the table's count of assignments (doubles: docs/sampler.md)
    cdef int n_groups            # hidden groups: draws, deals, the stock left (last)
    cdef uint8_t g_seat[96]      # per group, its seat (8: the stock left)
    cdef int8_t g_draw[96]       # per group, the draw it is (index in the draws), or -1
    cdef int n_draws             # draws so far (every seat's), in order
    cdef int8_t draw_tile[96]    # per draw, its tile when known (seen or placed), else -1
    cdef W128 hand0[8]           # the deals known: the observer's (others: empty)
    cdef W128 hidden             # tiles the model places (unseen, or placed by others)
    cdef int n_nodes             # nodes of the sampling walk (node 0 is the root)
    cdef TSNode* nodes           # malloc'd
    cdef TSTrans* trans          # malloc'd
    cdef W128* cls_mask          # malloc'd: per class of a node, its tiles
    cdef uint8_t stock_group     # the group of the stock left
    cdef W128 allowed[91]        # per hidden tile, the groups it may go to (bit g: group g)
    cdef bint rejecting          # 1: the table is the relaxed model; samples are checked
    cdef long tries              # proposals drawn (rejection; statistics, not atomic)
    cdef long accepted           # proposals kept
    cdef long misses             # samples with no proposal kept (then dealt uniformly)
    cdef int32_t g_got[96]       # per group, the time its tiles were got (the stock: T_END)
    cdef int n_choices           # the other seats' placements the belief model reads
    cdef TSChoice choices[91]    # those placements, in time order

    cdef void sample(self, TrainState* dst, uint64_t* rng) noexcept nogil
    cdef double sample_ll(self, TrainState* dst, uint64_t* rng, double beta) noexcept nogil
    cdef double log_likelihood(self, const uint8_t* where, double beta) noexcept nogil
    cdef bint draw_groups(self, uint8_t* where, uint64_t* rng) noexcept nogil
    cdef bint draw_one(self, uint8_t* where, uint64_t* rng) noexcept nogil


cdef TrainSampler sampler_of(object observation)  # ValueError/TypeError on bad input
