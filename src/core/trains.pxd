from bones.core.trainstate cimport TrainState


cdef class TrainMove:
    cdef readonly int code       # tile | target << 7 | TR_CF_BIT for an anchor target
    cdef str _text               # the canonical text, made on first use (moves are shared)


cdef class TrainRound:
    cdef TrainState* st          # the whole round, deal and undo stack included (owned)
    cdef bint partial            # the deal is not a full deal (from_deal(partial=True))

    cdef tuple _events(self, int viewer)


cdef TrainMove _move_of(int code)  # the interned move of a code
