"""The fixed action space of a variant: every move as an integer, with a legal-action mask.

Layout (docs/envs.md): placements first, position-major -- index ``28 * p + tile`` where
position 0 is the lead and position ``1 + e`` is end ``e`` (W, E, N, S, N2, S2, ...) --
then, where the variant has them, the same placements with the count claimed
(``muggins_claim``), Kozel's double-doubles, draw, pass and muggins.  Only the options
change the layout (the spinner rule, ``muggins_claim``, ``double_double``,
``may_draw_with_playable``, ``voluntary_pass``); the seat never does, so every seat sees the
same indices.
"""

from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer,
)
from cpython.number cimport PyIndex_Check, PyNumber_Index
from libc.stdint cimport int32_t, uint8_t, uint32_t
from libc.string cimport memset

from bones.core.moves cimport move_code, move_of
from bones.core.rules cimport SPINNER_ALL_DOUBLES, SPINNER_NONE, compile_rules
from bones.core.state cimport (
    CLAIM_BIT, END_LEAD, KIND_DOUBLE_DOUBLE, KIND_DRAW, KIND_MUGGINS, KIND_PASS, KIND_PLACE,
    MAX_ENDS, State, find_move, kind_of,
)
from bones.core.tiles cimport DOUBLE_OF, TILE_LO

from bones.core.moves import END_NAMES
from bones.core.rules import OtherCore
from bones.errors import IllegalMove, OptionError

cdef dict _spaces = {}  # CompiledRules -> its ActionSpace (compiled rules are cached too)


cdef void actions_of(const Rules* r, Actions* a) noexcept nogil:
    cdef int32_t n
    if r.spinner == SPINNER_NONE:
        a.n_ends = 2
    elif r.spinner == SPINNER_ALL_DOUBLES:
        a.n_ends = MAX_ENDS
    else:
        a.n_ends = 4
    a.n_place = 28 * (1 + a.n_ends)
    n = a.n_place
    a.claim0 = a.dd0 = a.draw = a.pass_ = a.muggins = -1
    if r.muggins:
        a.claim0 = n
        n += a.n_place
    if r.double_double:
        a.dd0 = n
        n += N_DOUBLE_DOUBLES
    if r.draws and (r.draw_with_playable or r.voluntary_pass):
        a.draw = n
        n += 1
    if r.draws and r.voluntary_pass:
        a.pass_ = n
        n += 1
    if r.muggins:
        a.muggins = n
        n += 1
    a.size = n


cdef inline int32_t placement_index(const Actions* a, uint32_t code) noexcept nogil:
    cdef uint32_t e = (code >> 5) & 31
    if e == END_LEAD:
        return <int32_t>(code & 31)
    if e >= a.n_ends:
        return NO_ACTION
    return <int32_t>(28 * (1 + e) + (code & 31))


cdef int32_t action_of(const Actions* a, uint32_t code) noexcept nogil:
    """The index of a well-formed move code, or NO_ACTION when the variant has no such
    action (a claim without muggins_claim, an end beyond the variant's)."""
    cdef int kind = kind_of(code)
    cdef int32_t i
    cdef uint32_t lo, hi
    if kind == KIND_PLACE:
        i = placement_index(a, code & ~(<uint32_t>CLAIM_BIT))
        if i < 0 or not code & CLAIM_BIT:
            return i
        return a.claim0 + i if a.claim0 >= 0 else NO_ACTION
    if kind == KIND_DOUBLE_DOUBLE:
        if a.dd0 < 0 or code & CLAIM_BIT or (code >> 5) & 31 != 0 or (code >> 15) & 31 != 1:
            return NO_ACTION
        lo = TILE_LO[code & 31]        # the double's number on W
        hi = TILE_LO[(code >> 10) & 31]  # on E
        if lo == hi:
            return NO_ACTION
        return a.dd0 + <int32_t>(6 * lo + (hi - 1 if hi > lo else hi))
    if kind == KIND_DRAW:
        return a.draw
    if kind == KIND_PASS:
        return a.pass_
    if kind == KIND_MUGGINS:
        return a.muggins
    return NO_ACTION


cdef uint32_t code_of(const Actions* a, int32_t index) noexcept nogil:
    """The move code of an index, or NO_CODE for an index outside the space."""
    cdef uint32_t pos, tile, w, e
    cdef uint32_t claim = 0
    if index < 0 or index >= a.size:
        return NO_CODE
    if a.claim0 >= 0 and a.claim0 <= index < a.claim0 + a.n_place:
        index -= a.claim0
        claim = CLAIM_BIT
    if index < a.n_place:
        pos = <uint32_t>index // 28
        tile = <uint32_t>index % 28
        return tile | ((END_LEAD if pos == 0 else pos - 1) << 5) | claim
    if a.dd0 >= 0 and a.dd0 <= index < a.dd0 + N_DOUBLE_DOUBLES:
        w = <uint32_t>(index - a.dd0) // 6
        e = <uint32_t>(index - a.dd0) % 6
        if e >= w:
            e += 1
        return DOUBLE_OF[w] | (<uint32_t>DOUBLE_OF[e] << 10) | (1u << 15) | (
            <uint32_t>KIND_DOUBLE_DOUBLE << 20)
    if index == a.draw:
        return <uint32_t>KIND_DRAW << 20
    if index == a.pass_:
        return <uint32_t>KIND_PASS << 20
    return <uint32_t>KIND_MUGGINS << 20


cdef void write_mask(const Actions* a, const State* s, uint8_t* out) noexcept nogil:
    """out[0:a.size]: 1 for the legal actions of the seat to move, else 0."""
    cdef int i
    cdef int32_t k
    memset(out, 0, a.size)
    for i in range(s.n_moves):
        k = action_of(a, s.moves[i])
        if k >= 0:
            out[k] = 1


cdef ActionSpace space_of(CompiledRules rules):
    cdef ActionSpace space = _spaces.get(rules)
    if space is None:
        space = ActionSpace.__new__(ActionSpace)
        space._set(rules)
        _spaces[rules] = space
    return space


cdef object _index_arg(object index):
    """index as an int: IllegalMove for a bool or anything that is not an integer."""
    if type(index) is int:
        return index
    if isinstance(index, bool) or not PyIndex_Check(index):
        raise IllegalMove(f"an action is an int index, not {type(index).__name__}")
    return PyNumber_Index(index)


cdef class ActionSpace:
    """The actions of one variant with its options: ``ActionSpace("straight", 2)``.

    ``size`` actions, numbered as docs/envs.md describes; ``move(index)`` and
    ``index(move)`` convert.  Every seat uses the same numbering."""

    def __init__(self, variant, players=2, **options):
        cdef CompiledRules rules
        if not isinstance(variant, str) or isinstance(players, bool) \
                or not isinstance(players, int):
            raise OptionError("ActionSpace(variant name, players, **options)")
        try:
            rules = compile_rules(str.__str__(variant), int(players), options)
        except OtherCore as other:
            raise OtherCore(other.variant, "ActionSpace") from None
        self._set(rules)

    cdef void _set(self, CompiledRules rules) noexcept:
        self.rules = rules
        actions_of(&rules.c, &self.c)

    def _check(self):
        if self.rules is None:
            raise TypeError("use ActionSpace(variant, players, **options)")

    @property
    def size(self):
        """How many actions there are (the length of a mask)."""
        return self.c.size

    def __len__(self):
        return self.c.size

    @property
    def sections(self):
        """(name, first index, count) of each block of the layout, in order."""
        self._check()
        out = [("lead", 0, 28)]
        out += [(f"@{END_NAMES[e]}", 28 * (1 + e), 28) for e in range(self.c.n_ends)]
        if self.c.claim0 >= 0:
            out.append(("claims", self.c.claim0, self.c.n_place))
        if self.c.dd0 >= 0:
            out.append(("double_double", self.c.dd0, N_DOUBLE_DOUBLES))
        for name, k in (("draw", self.c.draw), ("pass", self.c.pass_),
                        ("muggins", self.c.muggins)):
            if k >= 0:
                out.append((name, k, 1))
        return tuple(out)

    def move(self, index):
        """The Move of action ``index``: IllegalMove for a bool, a non-integer or an index
        outside ``0..size-1``."""
        self._check()
        i = _index_arg(index)
        if not 0 <= i < self.c.size:
            raise IllegalMove(f"action {i} is out of range: {self.rules.variant.name} has "
                              f"actions 0..{self.c.size - 1}")
        return move_of(code_of(&self.c, i))

    def index(self, move):
        """The action of ``move`` (a Move or its text); ValueError when this variant has
        no such action."""
        cdef int32_t k
        self._check()
        k = action_of(&self.c, move_code(move))
        if k < 0:
            raise ValueError(f"{move} is not an action of {self.rules.variant.name} with "
                             f"these options")
        return k

    cdef uint32_t legal_code(self, const State* s, object index) except NO_CODE:
        """The legal move code of action ``index`` in s; IllegalMove otherwise."""
        cdef int32_t k
        cdef int i
        self._check()
        index = _index_arg(index)
        if not 0 <= index < self.c.size:
            raise IllegalMove(f"action {index} is out of range: {self.rules.variant.name} "
                              f"has actions 0..{self.c.size - 1}")
        k = index
        i = find_move(s, code_of(&self.c, k))
        if i < 0:
            raise IllegalMove(f"action {k} ({move_of(code_of(&self.c, k))}) is not legal "
                              f"now; legal actions: {self.legal(s)}")
        return s.moves[i]

    cdef list legal(self, const State* s):
        cdef int i
        return sorted([action_of(&self.c, s.moves[i]) for i in range(s.n_moves)])

    cdef object mask(self, const State* s, object out):
        """The mask of s into out (any writable C-contiguous buffer of ``size`` one-byte
        items: a numpy bool or uint8 array, a bytearray), or a new bytearray."""
        cdef Py_buffer view
        self._check()
        if out is None:
            out = bytearray(self.c.size)
        try:
            PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
        except (BufferError, ValueError) as exc:  # read-only, or not contiguous
            raise TypeError(f"the mask needs a writable C-contiguous buffer: {exc}") from None
        try:
            if view.itemsize != 1 or view.len != self.c.size:
                raise ValueError(f"the mask needs a writable buffer of {self.c.size} one-byte "
                                 f"items, got {view.len // view.itemsize} of "
                                 f"{view.itemsize} bytes")
            write_mask(&self.c, s, <uint8_t*>view.buf)
        finally:
            PyBuffer_Release(&view)
        return out

    cdef tuple _layout(self):
        return (self.c.size, self.c.n_ends, self.c.claim0, self.c.dd0, self.c.draw,
                self.c.pass_, self.c.muggins)

    def __eq__(self, other):
        """Spaces with the same layout are equal (same indices, same moves)."""
        if not isinstance(other, ActionSpace):
            return NotImplemented
        return self._layout() == (<ActionSpace>other)._layout()

    def __hash__(self):
        return hash(self._layout())

    def __repr__(self):
        if self.rules is None:
            return "<ActionSpace (empty)>"
        return f"<ActionSpace {self.rules.variant.name} size={self.c.size}>"
