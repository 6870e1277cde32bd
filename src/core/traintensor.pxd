# One seat's view of a train round (Mexican Train, Chicken Foot) as a flat float32 tensor,
# the legal-action mask of bones.train_actions.TrainActionSpace, and the returns, all
# written by the core from the round's TrainState (docs/envs.md).
from libc.stdint cimport int8_t, int32_t, uint8_t

from bones.core.trainstate cimport TrainState

ctypedef struct TrainPlanes:
    uint8_t layout               # TrainLayout: LAYOUT_TRAINS or LAYOUT_CHICKEN
    uint8_t set_max              # N of the double-N set
    uint8_t players              # seats in the round
    int32_t n_tiles              # tiles in the set: (N + 1)(N + 2) / 2
    int32_t n_targets            # actions per tile: players + 1 (trains) or n_tiles
    int32_t n_actions            # n_tiles x n_targets
    int8_t pos[91]               # a tile's place in the set (action and plane order), or -1
    int32_t hand                 # offset of the own hand: n_tiles
    int32_t table                # tiles on the table, the engine included: n_tiles
    int32_t numbers              # per number, tiles on the table showing it: N + 1
    int32_t trains               # trains: (players + 1) x (N + 4), P0 .. M as the targets
    int32_t ends                 # chicken: n_tiles, 1 where a tile has a free end
    int32_t end_numbers          # chicken: per number, free ends showing it: N + 1
    int32_t pending              # chicken: one-hot of the double whose toes are due: n_tiles
    int32_t toes                 # chicken: toes still due on it: 1
    int32_t sizes                # hand sizes, this seat first: players
    int32_t stock                # tiles in the stock: 1
    int32_t scores               # game scores before the round, this seat first: players
    int32_t seat                 # one-hot: the observing seat (targets are absolute): players
    int32_t turn                 # whose turn, this seat first (all 0 once over): players
    int32_t size                 # floats in all

cdef void train_planes_of(int layout, int set_max, int players,
                          TrainPlanes* t) noexcept nogil
cdef void write_train_tensor(const TrainPlanes* t, const TrainState* s,
                             const int32_t* scores, int seat, float* out) noexcept nogil
cdef int train_action_of(const TrainPlanes* t, int move) noexcept nogil
cdef void write_train_mask(const TrainPlanes* t, const TrainState* s,
                           uint8_t* out) noexcept nogil
cdef void write_train_returns(const TrainState* s, float* out) noexcept nogil


cdef class TrainTensorSpec:
    cdef TrainPlanes c           # the layout the core writes
    cdef readonly str variant    # the variant's name
