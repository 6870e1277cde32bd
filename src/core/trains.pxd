from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t

from bones.core.trainstate cimport TrainState
from bones.core.wideset cimport W128


cdef class TrainMove:
    cdef readonly int code       # tile | target << 7 | TR_CF_BIT for an anchor target
    cdef str _text               # the canonical text, made on first use (moves are shared)


# What one seat sees of a train round at one moment: plain C values, copied in O(1) (no
# log, no other hand: the log is shared, see TrainRound._pub).
ctypedef struct TrainSnap:
    uint8_t layout               # TrainLayout
    uint8_t set_max              # N of the double-N set
    uint8_t engine               # the engine double's number
    uint8_t players              # 2..8
    uint8_t leader               # the seat that moved first
    uint8_t zero_double          # what 0-0 counts (0 or 50)
    uint8_t first_turn_own       # trains: the first-turn rule is on
    uint8_t engine_toes          # chicken foot: 4 or 6
    uint8_t seat                 # the seat that sees
    uint8_t status               # TrainStatus
    uint8_t to_move              # the seat to move (while playing)
    uint8_t stock_size           # tiles left in the boneyard
    int8_t pending               # as TrainState.pending
    uint16_t public              # trains: the marker bits
    uint16_t open_trains         # trains: ts_open_trains of the seat to move
    W128 hand                    # the seat's own tiles
    uint8_t sizes[8]             # tiles held, per seat
    uint8_t train_open[9]        # trains: each train's open number
    uint8_t train_len[9]         # trains: tiles on each train
    W128 anchors[13]             # chicken: per number, ts_open_anchors (the seat to move's)
    int32_t n_events             # the log's length
    int32_t n_placed             # placements so far
    int32_t n_own                # the seat's own draws so far


cdef class TrainSeatView:
    cdef TrainSnap v             # the seat's view when it was made (from a round)
    cdef bint given              # made from given fields (a decoded message), not a round
    cdef bytearray _pub          # a round's public events (TEvent): the first v.n_events are ours
    cdef bytearray _own          # this seat's own draws in that round (OwnDraw): first v.n_own
    cdef object _to_move         # the seat to move, or None
    cdef object _pending         # the pending target's text, or None
    cdef object _result          # the TrainResult, or None
    cdef object _legal           # tuple of TrainMove: the legal moves (the seat to move's)
    cdef object _hand            # tuple of SetTile, made on first use
    cdef object _hand_sizes      # tuple of int, made on first use
    cdef object _trains          # trains' (open, tiles, public), made on first use
    cdef object _open_ends       # (target, number) pairs, made on first use
    cdef object _placements      # tuple of (seat, tile, target), made on first use
    cdef object _log             # tuple of TrainEvent, made on first use
    cdef object _variant         # the round's variant name (None: the layout's built-in one)
    cdef object _options         # the round's option overrides (dict, copied when read)
    cdef object _scores          # tuple of int: per seat, the scores as the round gave them


cdef class TrainRound:
    cdef TrainState* st          # the whole round, deal and undo stack included (owned)
    cdef bint partial            # the deal is not a full deal (from_deal(partial=True))
    cdef str _variant            # the registered variant it was dealt for (None: built-in)
    cdef tuple _scores           # per seat, the game scores before the round
    cdef dict _options           # the variant's options as given when it was dealt
    cdef bytearray _pub          # the public events so far, TEvent each (shared with views)
    cdef list _own               # per seat, a bytearray of its own draws, OwnDraw each (shared)
    cdef object _result          # the TrainResult once over, made once (undo drops it)

    cdef int _check(self) except -1  # TypeError for a round not made by this module
    cdef TrainSeatView _observation(self, int seat)  # observation() of a seat in range
    cdef void _refill(self, TrainSeatView o, int seat) except *  # o, held by its caller alone, anew
    cdef void _fill(self, TrainSeatView o, int seat) except *  # o (new or cleared): seat's view
    cdef bint _play_legal(self, int code) except -1  # play code if legal; False if not
    cdef tuple _events(self)
    cdef object _make_result(self)  # the TrainResult of a round that is over
    cdef void _sync(self) except *
    cdef void _bind(self, object variant, object scores, object options) except *


cdef TrainMove _move_of(int code)  # the interned move of a code
