# The fixed action space of a variant: every move a seat could ever make, as an index.
from libc.stdint cimport int32_t, uint8_t, uint32_t

from bones.core.rules cimport CompiledRules, Rules
from bones.core.state cimport State

cdef enum:
    NO_ACTION = -1               # a move code outside the space
    NO_CODE = 0xFFFFFFFF         # an index outside the space
    N_DOUBLE_DOUBLES = 42        # ordered pairs of different doubles (on W, on E)

ctypedef struct Actions:
    uint8_t n_ends               # end slots the variant can open (2, 4 or 16)
    int32_t n_place              # placements: 28 tiles x (the lead + n_ends ends)
    int32_t claim0               # first claiming placement (muggins_claim), else -1
    int32_t dd0                  # first double-double (Kozel), else -1
    int32_t draw                 # the draw action where drawing is a choice, else -1
    int32_t pass_                # the pass action where passing is a choice, else -1
    int32_t muggins              # the muggins claim (muggins_claim), else -1
    int32_t size                 # actions in all

cdef void actions_of(const Rules* r, Actions* a) noexcept nogil
cdef int32_t action_of(const Actions* a, uint32_t code) noexcept nogil
cdef uint32_t code_of(const Actions* a, int32_t index) noexcept nogil
cdef void write_mask(const Actions* a, const State* s, uint8_t* out) noexcept nogil


cdef class ActionSpace:
    cdef Actions c               # the layout the core reads
    cdef readonly CompiledRules rules  # the compiled variant it was made from

    cdef void _set(self, CompiledRules rules) noexcept
    cdef uint32_t legal_code(self, const State* s, object index) except NO_CODE
    cdef list legal(self, const State* s)
    cdef tuple _layout(self)
    cdef object mask(self, const State* s, object out)


cdef ActionSpace space_of(CompiledRules rules)  # shared per compiled rules
