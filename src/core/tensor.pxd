# One seat's view of a round as a flat float32 tensor, written by the core into a caller's
# buffer; the known voids it carries; the round's returns per seat.
from libc.stdint cimport int32_t, uint8_t, uint32_t

from bones.core.rules cimport CompiledRules, Rules
from bones.core.state cimport Ply, State

cdef enum:
    END_FEATURES = 10            # per end: its number one-hot (7), live, empty arm, double

ctypedef struct Planes:
    uint8_t players              # seats in the round
    uint8_t n_sides              # sides (teams) in the round
    uint8_t n_ends               # end slots (as the action space: 2, 4 or 16)
    float target                 # the game target the tensor shows (0: none)
    int32_t hand                 # offset of the own hand: 28
    int32_t table                # tiles on the table: 28
    int32_t ends                 # the ends: n_ends x END_FEATURES
    int32_t numbers              # placed tiles showing each number: 7
    int32_t voids                # numbers each other seat is known not to hold: (players-1) x 7
    int32_t sizes                # hand sizes, this seat first: players
    int32_t stock                # tiles in the boneyard: 1
    int32_t count                # the All Fives count of the layout: 1
    int32_t pending              # a count this seat's side may claim (muggins): 1
    int32_t scores               # scores, this seat's side first: n_sides
    int32_t target_at            # the game target: 1
    int32_t turn                 # whose turn, this seat first (all 0 once over): players
    int32_t size                 # floats in all

ctypedef struct Voids:
    uint32_t cannot[4]           # per seat, tiles the public record says it does not hold
    uint32_t chain[4]            # per seat, open tiles at a forced draw (it holds one: the last)

cdef void planes_of(const Rules* r, float target, Planes* t) noexcept nogil
cdef void voids_clear(Voids* v) noexcept nogil
cdef void voids_update(Voids* v, const Rules* r, const Ply* p, uint32_t open_after,
                       bint ended) noexcept nogil
cdef void voids_of(const State* s, Voids* v) noexcept nogil
cdef void write_tensor(const Planes* t, const State* s, const Voids* v, int seat,
                       float* out) noexcept nogil
cdef void write_returns(const State* s, float* out) noexcept nogil


cdef class TensorSpec:
    cdef Planes c                # the layout the core writes
    cdef readonly CompiledRules rules  # the compiled variant it was made from

    cdef void _set(self, CompiledRules rules) except *
    cdef object write(self, const State* s, int seat, object out)


cdef object tensor_buffer(object out, int size)  # out checked, or a new array.array("f")
cdef TensorSpec spec_of(CompiledRules rules)  # shared per compiled rules
cdef tuple returns_of(const State* s)
