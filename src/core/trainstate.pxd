# The round state of the train games (Mexican Train, Chicken Foot) as one C struct, with
# make/unmake (ts_play/ts_undo) that never allocates.  docs/trains.md has the rules.
from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t, uint64_t

from bones.core.wideset cimport W128

cdef enum:
    TR_MAX_SEATS = 8             # players 2..8
    TR_MEXICAN = 8               # the train id of the Mexican train (personal trains: seats)
    TR_MAX_PLIES = 96            # moves are placements: at most 90 (91 tiles less the engine)
    TR_MAX_EVENTS = 1632         # placements + draws + passes of a round (<= 1631: trainstate.pyx)
    TR_MAX_MOVES = 576           # legal moves of one position (<= 546, trainstate.pyx)
    TR_CF_BIT = 1 << 14          # move code: the target is an anchor tile (chicken foot)

cdef enum TrainLayout:
    LAYOUT_TRAINS = 0            # Mexican Train: personal trains and the Mexican train
    LAYOUT_CHICKEN = 1           # Chicken Foot: ends named by the tile they hang from

cdef enum TrainStatus:
    TR_PLAYING = 0
    TR_OUT = 1                   # a placement emptied the mover's hand
    TR_BLOCKED = 2               # stock empty, no seat can place (checked after a run of passes)

cdef enum TrainEventKind:
    EV_PLACE = 0
    EV_DRAW = 1
    EV_PASS = 2


# A move is a uint16: bits 0-6 the tile, 7-13 the target (trains: train id 0..8; chicken
# foot: the anchor tile), bit 14 TR_CF_BIT for a chicken-foot target.
cdef inline int move_tile(int move) noexcept nogil:
    return move & 127

cdef inline int move_target(int move) noexcept nogil:
    return (move >> 7) & 127


ctypedef struct TEvent:
    uint8_t kind                 # TrainEventKind
    uint8_t seat                 # who placed, drew or passed
    int8_t tile                  # the tile placed or drawn; -1 for a pass
    uint8_t target               # a placement's target field (move_target); else 0

ctypedef struct TPly:
    uint16_t move                # the move code
    uint8_t seat                 # who made it
    uint8_t prev_open            # trains: the target train's open number before
    uint16_t prev_public         # trains: the marker bits before
    int8_t prev_pending          # state.pending before
    uint8_t prev_toes            # state.toes before
    uint8_t prev_passes          # state.passes before
    int8_t prev_forced           # state.forced before
    uint16_t ev_mark             # state.n_events before (the move's own event is there)

ctypedef struct TrainState:
    uint8_t layout               # TrainLayout
    uint8_t set_max              # N of the double-N set: 6, 9 or 12
    uint8_t engine               # E: the engine double E-E is on the table from the start
    uint8_t players              # 2..8
    uint8_t zero_double          # what 0-0 counts in a hand at the end (0 or 50)
    uint8_t first_turn_own       # trains: a seat with an empty train may play only on it
    uint8_t engine_toes          # chicken foot: tiles the engine takes first (4 or 6)
    uint8_t leader               # the seat that moves first
    W128 hand0[8]                # the deal, for serialisation and replays
    uint8_t stock[90]            # the boneyard, top (next drawn) first
    uint8_t stock_len            # tiles dealt to the boneyard
    uint8_t stock_top            # stock[stock_top:stock_len] are still in the boneyard
    W128 hand[8]                 # each seat's tiles
    W128 table                   # tiles on the table, the engine included
    uint8_t to_move              # seat to move
    uint8_t status               # TrainStatus
    uint8_t passes               # consecutive passes
    int8_t out_seat              # the seat that went out, else -1
    int8_t forced                # the tile just drawn, which the mover must place; else -1
    int8_t pending               # -1, or trains: the pending double's train; chicken: its tile
    uint8_t toes                 # chicken foot: toes still due on the pending double
    uint8_t train_open[9]        # trains: each train's open number (E while empty)
    uint8_t train_len[9]         # trains: tiles on each train
    uint16_t public              # trains: bit s, seat s's train carries a marker (public)
    W128 ends_by[13]             # chicken: per number v, the tiles whose free end shows v
    uint8_t free_num[91]         # chicken: the free number of a non-double tile on the table
    int32_t n_moves              # legal moves of to_move
    uint16_t moves[TR_MAX_MOVES]  # the legal moves
    int32_t n_plies              # moves made
    int32_t n_events             # events so far (the forced ones before the first move too)
    TPly plies[TR_MAX_PLIES]     # undo stack
    TEvent events[TR_MAX_EVENTS]  # every placement, draw and pass in order


cdef int ts_init(TrainState* s, int layout, int set_max, int engine, int players,
                 int zero_double, int first_turn_own, int engine_toes, const W128* hands,
                 const uint8_t* stock, int stock_len, int leader) noexcept nogil
cdef void ts_deal_random(TrainState* s, int layout, int set_max, int engine, int players,
                         int hand_size, int zero_double, int first_turn_own,
                         int engine_toes, int leader, uint64_t* rng) noexcept nogil
cdef uint16_t ts_open_trains(const TrainState* s, int seat) noexcept nogil
cdef W128 ts_open_anchors(const TrainState* s, int v) noexcept nogil
cdef W128 ts_fit_trains(const TrainState* s, uint16_t trains) noexcept nogil
cdef W128 ts_accepts(const TrainState* s, int seat) noexcept nogil
cdef bint ts_any_placement(const TrainState* s) noexcept nogil
cdef int ts_gen(TrainState* s) noexcept nogil
cdef int ts_find(const TrainState* s, int move) noexcept nogil
cdef void ts_place(TrainState* s, int seat, int t, int target) noexcept nogil
cdef void ts_play(TrainState* s, int move) noexcept nogil
cdef void ts_undo(TrainState* s) noexcept nogil
cdef void ts_copy(TrainState* dst, const TrainState* src) noexcept nogil
cdef int ts_penalty(const TrainState* s, int seat) noexcept nogil
cdef int ts_set_tiles(int set_max) noexcept nogil
cdef long ts_playout(TrainState* s, int layout, int set_max, int engine, int players,
                     int hand_size, int zero_double, int first_turn_own, int engine_toes,
                     uint64_t* rng, long rounds, long* blocked, long* events,
                     long* max_events) noexcept nogil
