# Exact, uniform sampling of the hidden deal behind one seat's view of a round: every full
# deal (hands at the deal, boneyard order) that replays to the same public record is equally
# likely.  See docs/sampler.md for the model and the exactness argument.
from libc.stdint cimport int16_t, int32_t, int8_t, uint8_t, uint32_t, uint64_t

from bones.core.bitops cimport U128
from bones.core.rules cimport CompiledRules, Rules
from bones.core.scorer cimport PythonScorer
from bones.core.state cimport State


cdef enum:
    MAX_GROUPS = 48              # places a tile may come from: hands, draws, boneyard
    MAX_EVENTS = 1024            # public events of one round, bounded
    MAX_CASES = 29               # opening cases: the possible openers, or one
    GROUP_STOCK = 4              # Group.seat of the boneyard still undrawn
    GROUP_OUT = 5                # Group.seat of Block's tiles out of play
    SAMPLE_TRIES = 100000        # rejection attempts before sample_state gives up

cdef enum EventKind:
    EV_PLAY = 0                  # a placement (move holds its code)
    EV_DRAW = 1                  # count tiles drawn
    EV_PASS = 2                  # a pass
    EV_MUGGINS = 3               # a muggins claim

cdef enum DealsError:
    DEALS_OK = 0                 # built
    DEALS_TOO_BIG = -1           # more groups or events than the fixed arrays hold
    DEALS_NOT_FULL = -2          # hand sizes or the boneyard disagree with a full deal
    DEALS_BAD_RECORD = -3        # the events do not replay on the public layout
    DEALS_NONE = -4              # no hidden deal is consistent with the record
    DEALS_OVERFLOW = -5          # the count of deals does not fit 128 bits

ctypedef struct SEvent:
    uint32_t move                # the move code of a play or muggins claim, else 0
    uint8_t kind                 # EventKind
    uint8_t seat                 # who
    uint8_t count                # tiles drawn (draws)
    uint8_t chain                # draws: 1 forced (after a move), 0 a move, 2 not known

ctypedef struct Group:
    int16_t time                 # when its tiles were acquired (see sampler.pyx: times)
    uint8_t seat                 # the holder, GROUP_STOCK or GROUP_OUT
    uint8_t cap                  # how many tiles it holds
    uint8_t ordered              # 1: boneyard positions (all orders are consistent)
    uint32_t need                # tiles in it must be in this mask (last draw of a chain)

ctypedef struct Memo:
    uint64_t* keys               # 4 words per slot; bit 63 of word 3 marks a used slot
    U128* vals                   # the count stored in each slot
    size_t mask                  # slots - 1 (a power of two)
    size_t used                  # slots in use

ctypedef struct Case:
    uint64_t allowed[28]         # per tile, the groups it may go to (bit g: group g)
    uint8_t order[28]            # tiles in the order the DP assigns them
    uint8_t suffix[29][48]       # suffix[i][g]: tiles order[i:] that may go to group g
    U128 count                   # consistent assignments of tiles to groups (< 28!)
    int8_t opener                # the opening tile this case assumes, -1: none
    Memo memo                    # counts of partial assignments

ctypedef struct Deals:
    const Rules* r               # the rules (owned by a CompiledRules the caller keeps)
    uint8_t seat                 # the seat whose view this is
    uint8_t players              # seats in the round
    uint8_t leader               # seat that led (or leads) the round
    int8_t lead_tile             # the forced lead tile to replay with, -1: none
    uint8_t opening              # 1: the leader came from the opening rule (leader=None)
    uint8_t exact                # 1: every sample is consistent; 0: samples are checked
    uint8_t status               # Status of the round in the record
    uint8_t to_move              # seat to move (when status is PLAYING)
    uint32_t own                 # the seat's hand now
    uint32_t played              # tiles on the table
    uint32_t exist_tiles         # the seat to move holds one of these tiles ...
    uint64_t exist_groups        # ... in one of these groups (0: no such constraint)
    int32_t score0[4]            # scores per side at the deal
    int n_events                 # events of the record
    SEvent events[MAX_EVENTS]    # the public record
    int n_groups                 # groups in use
    Group groups[MAX_GROUPS]     # the hidden places tiles came from
    int n_cases                  # opening cases
    Case* cases                  # MAX_CASES cases (malloc'd by deals_build)
    U128 total                   # sum of the cases' counts (saturated: overflow)
    long tries                   # samples attempted (rejection statistics)
    long accepted                # samples that replayed to the record


cdef int deals_from_state(Deals* d, const State* s, int seat,
                          int opening) noexcept nogil
cdef int deals_build(Deals* d, int opening) noexcept nogil
cdef void deals_free(Deals* d) noexcept nogil
cdef bint sample_state(Deals* d, State* out, uint64_t* rng) noexcept nogil
cdef int sample_states(Deals* d, State* out, int n, uint64_t* rng) noexcept nogil
cdef bint replay_events(State* s, const Deals* d) noexcept nogil


cdef class DealSampler:
    cdef Deals* d                # the record, its groups, cases and counts (owned)
    cdef readonly CompiledRules rules  # the round's compiled rules (d.r points into it)
    cdef readonly int seat       # the seat whose view is sampled
    cdef readonly bint opening   # the opening rule's constraints are applied
    cdef readonly dict options   # the variant's option overrides
    cdef str variant_name        # the variant's name
    cdef PythonScorer scorer     # a variant with a Python move_scorer: d.r is its rules

    cdef void _score_in_python(self) except *
    cdef void check_scorer(self) except *

    cdef object _round_of(self, const State* s)
    cdef void _check(self) except *
