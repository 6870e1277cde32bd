from bones.core.trainstate cimport TrainState


cdef class TrainMove:
    cdef readonly int code       # tile | target << 7 | TR_CF_BIT for an anchor target
    cdef str _text               # the canonical text, made on first use (moves are shared)


cdef class TrainRound:
    cdef TrainState* st          # the whole round, deal and undo stack included (owned)
    cdef bint partial            # the deal is not a full deal (from_deal(partial=True))
    cdef str _variant            # the registered variant it was dealt for (None: built-in)
    cdef tuple _scores           # per seat, the game scores before the round
    cdef dict _options           # the variant's options as given when it was dealt

    cdef tuple _events(self, int viewer, bint as_events=*)
    cdef void _bind(self, object variant, object scores, object options) except *


cdef TrainMove _move_of(int code)  # the interned move of a code
