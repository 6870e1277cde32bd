# The round state as one C struct, with make/unmake (play/undo) that never allocates.
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t

from bones.core.geometry cimport Anchor, Spot
from bones.core.rules cimport Rules

cdef enum:
    MAX_ENDS = 16                # W, E and two arms for each of up to 7 spinners
    MAX_PLIES = 256              # placements, draws and passes of one round, bounded
    MAX_MOVES = 256              # legal moves of one position, bounded
    END_LEAD = 31                # the end field of a lead move

cdef enum MoveKind:
    KIND_PLACE = 0               # one tile (a lead when its end is END_LEAD)
    KIND_DOUBLE_DOUBLE = 1       # Kozel: two doubles on the two ends
    KIND_DRAW = 2                # draw one tile by choice
    KIND_PASS = 3                # pass by choice
    KIND_MUGGINS = 4             # claim the count an opponent failed to claim

cdef enum:
    CLAIM_BIT = 1 << 23          # on a placement: the player claims its count (muggins_claim)


cdef inline int kind_of(uint32_t move) noexcept nogil:
    return (move >> 20) & 7

cdef enum Status:
    PLAYING = 0
    OVER_OUT = 1                 # a hand was emptied
    OVER_BLOCKED = 2             # nobody can place and nobody may draw (fish)
    OVER_TARGET = 3              # a side reached the game target during the round

ctypedef struct End:
    uint8_t v                    # the open number
    int8_t tile                  # the extremity tile showing v; -1 for an empty spinner arm
    uint8_t pts                  # what this end adds to the All Fives count
    uint8_t live                 # 1 when a tile may be placed here
    int8_t side_of               # spinner whose uncovered side this end is, else -1

ctypedef struct Ply:
    uint32_t move                # the move code
    uint8_t seat                 # who made it
    uint8_t n_ends               # state.n_ends before the move
    uint8_t n_spinners           # state.n_spinners before the move
    int8_t end_idx[2]            # ends the move overwrote (-1: none)
    End saved[2]                 # their previous contents
    int8_t opened                # spinner whose arms the move opened, else -1
    uint8_t count                # the layout count after the move
    int16_t points               # what the move scored for its side (scaled)
    uint8_t prev_passes          # consecutive passes before the move
    int8_t prev_last             # last placer before the move
    int16_t prev_pending         # state.pending before the move
    int8_t prev_pending_side     # state.pending_side before the move
    uint8_t chain_seat           # first seat of the forced events after the move
    uint8_t drawn                # tiles that seat was forced to draw
    uint8_t passes               # forced passes after the move
    uint16_t closed              # bit e: the move closed end e (bounded table)
    Anchor saved_at[2]           # with state.geo: the anchors of end_idx before the move

ctypedef struct State:
    const Rules* r               # the rules; owned by a CompiledRules kept alive by the owner
    uint32_t hand[4]             # each seat's tiles
    uint32_t table               # tiles on the table
    uint8_t stock[28]            # the boneyard, top (next drawn) first
    uint8_t stock_top            # stock[stock_top:stock_len] are still in the boneyard
    uint8_t stock_len            # tiles dealt to the boneyard
    End ends[MAX_ENDS]           # open ends: 0 = W, 1 = E, then spinner arms in pairs
    uint8_t n_ends               # ends in use
    uint8_t sp_open[7]           # per spinner, sides not yet covered
    uint8_t sp_arm[7]            # per spinner, index of its first arm in ends
    uint8_t n_spinners           # spinners on the table
    uint8_t to_move              # seat to move
    uint8_t leader               # seat that leads the round
    int8_t lead_tile             # tile the leader must lead, or -1 for any
    uint8_t by_rule              # the first-round opening rule chose leader and lead (public)
    uint8_t n_placed             # tiles on the table
    uint8_t passes               # consecutive passes
    int8_t last_seat             # seat that placed the last tile, -1 before the lead
    uint8_t status               # Status
    int32_t score[4]             # per side: game score before the round + points since
    int16_t pending              # muggins_claim: unclaimed points of a count (unscaled)
    int8_t pending_side          # the side that failed to claim them
    uint32_t hand0[4]            # the deal, for serialisation and replays
    int32_t score0[4]            # scores at the deal
    uint32_t moves[MAX_MOVES]    # legal moves of to_move
    int32_t n_moves              # how many
    uint8_t geo                  # place tiles on the grid (bounded rules, or placements)
    uint16_t closed              # bit e: end e is closed (bounded table, G1); not live
    Anchor at[MAX_ENDS]          # with geo: where the next tile at each end touches
    Spot spots[28]               # with geo: where each placed tile lies, in play order
    int32_t n_plies              # plies made
    Ply plies[MAX_PLIES]         # undo stack; last, so a position copies without it

ctypedef struct Outcome:
    uint8_t reason               # Status of the finished round
    uint8_t winners              # bit mask of winning sides
    int32_t points[4]            # per side, the round-end award (scaled)
    int32_t values[4]            # per side, the value of the hands left

cdef inline size_t header_size(const State* s) noexcept nogil:
    """Bytes of a State before its undo stack: a position copies without it."""
    return <size_t>(<const char*>&s.plies[0] - <const char*>s)


cdef inline size_t played_size(const State* s) noexcept nogil:
    """Bytes of a State up to its last ply made: a copy that can be taken back (undo)."""
    return header_size(s) + <size_t>s.n_plies * sizeof(Ply)


cdef void state_init(State* s, const Rules* r, const uint32_t* hands, const uint8_t* stock,
                     int stock_len, int leader, int lead_tile,
                     const int32_t* scores) noexcept nogil
cdef void deal_random(State* s, const Rules* r, uint64_t* rng, const int32_t* scores,
                      int leader) noexcept nogil
cdef void opening(const Rules* r, const uint32_t* hands, int* leader,
                  int* lead_tile) noexcept nogil
cdef int find_move(const State* s, uint32_t move) noexcept nogil
cdef void play(State* s, uint32_t move) noexcept nogil
cdef bint lay(State* s, uint32_t move) noexcept nogil
cdef void apply_move(State* s, uint32_t move) noexcept nogil
cdef void finish_move(State* s) noexcept nogil
cdef void undo(State* s) noexcept nogil
cdef void add_points(State* s, int seat, int points) noexcept nogil
cdef int layout_count(const State* s) noexcept nogil
cdef int count_points(const Rules* r, int count) noexcept nogil
cdef int chip_point(const State* s, int seat) noexcept nogil
cdef void score_count(State* s, int seat, int count, uint32_t move) noexcept nogil
cdef uint32_t open_mask(const State* s) noexcept nogil
cdef void outcome(const State* s, Outcome* out) noexcept nogil
cdef int hand_value(const State* s, int seat) noexcept nogil
cdef int gen_moves(State* s) noexcept nogil
cdef long playout(const Rules* r, uint64_t* rng, long rounds, long* blocked,
                  long* points) noexcept nogil
