"""Moves: small hashable objects with a canonical text form that parses back."""

from libc.stdint cimport uint32_t

from bones.core.state cimport (
    CLAIM_BIT, END_LEAD, KIND_DOUBLE_DOUBLE, KIND_DRAW, KIND_MUGGINS, KIND_PASS, KIND_PLACE,
    MAX_ENDS, kind_of,
)
from bones.core.tiles cimport TILE_HI, TILE_LO, short_repr, tile_at, to_tile_index

END_NAMES = ("W", "E", "N", "S") + tuple(
    f"{arm}{k}" for k in range(2, 8) for arm in ("N", "S")
)
cdef dict _END_INDEX = {name: i for i, name in enumerate(END_NAMES)}
cdef list _PLACES = [None] * 1024     # interned single placements and leads, by code
cdef dict _OTHERS = {}                # interned double-doubles, draw and pass
cdef object _NEW = object()           # the token that lets this module construct moves


cdef class Move:
    """A move: ``6-4`` (lead), ``6-4@W`` (placement at W, E, N, S, N2, ...),
    ``2-2@W+5-5@E`` (Kozel's double-double), ``draw`` or ``pass``.  With the All Fives
    option ``muggins_claim``, ``6-4@W!`` places and claims the count, and ``muggins``
    claims the count the previous player failed to claim.

    Instances are interned: equal moves are usually the same object.
    """

    def __cinit__(self, *args):
        # Only move_of makes moves (interned, with a checked code).
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError("use Move.parse('6-4@W') or pick from round.legal_moves")

    def __init__(self, *args, **kwargs):
        raise TypeError("use Move.parse('6-4@W') or pick from round.legal_moves")

    @staticmethod
    def parse(object text):
        """The move written ``text`` (the inverse of ``str(move)``).  TypeError for
        anything but a str, ValueError for a str that is not a move."""
        if not isinstance(text, str):
            raise TypeError(f"Move.parse takes the text of a move, not {type(text).__name__}")
        return move_of(_parse(<str>text))

    @staticmethod
    def from_action(index, variant, players=2, **options):
        """The move of action ``index`` in the action space of ``variant`` with ``players``
        and ``options`` (``ActionSpace(variant, players, **options).move(index)``)."""
        from bones.core.actions import ActionSpace

        return ActionSpace(variant, players, **options).move(index)

    def action(self, variant, players=2, **options):
        """This move's index in the action space of ``variant`` with ``players`` and
        ``options``; ValueError when that space has no such action."""
        from bones.core.actions import ActionSpace

        return ActionSpace(variant, players, **options).index(self)

    @property
    def kind(self):
        """``"place"``, ``"double_double"``, ``"draw"``, ``"pass"`` or ``"muggins"``."""
        return ("place", "double_double", "draw", "pass", "muggins")[kind_of(self.code)]

    @property
    def tile(self):
        """The (first) tile placed, or None for draw and pass."""
        return tile_at(self.code & 31) if kind_of(self.code) < KIND_DRAW else None

    @property
    def end(self):
        """Where the (first) tile goes: ``"W"``, ``"E"``, ``"N"``, ...; None for a lead."""
        cdef uint32_t e = (self.code >> 5) & 31
        if kind_of(self.code) >= KIND_DRAW or e == END_LEAD:
            return None
        return END_NAMES[e]

    @property
    def tile2(self):
        """The second double of a double-double, else None."""
        return tile_at((self.code >> 10) & 31) if self.is_double_double else None

    @property
    def end2(self):
        return END_NAMES[(self.code >> 15) & 31] if self.is_double_double else None

    @property
    def is_lead(self):
        return kind_of(self.code) == 0 and (self.code >> 5) & 31 == END_LEAD

    @property
    def is_draw(self):
        return kind_of(self.code) == KIND_DRAW

    @property
    def is_pass(self):
        return kind_of(self.code) == KIND_PASS

    @property
    def is_double_double(self):
        return kind_of(self.code) == KIND_DOUBLE_DOUBLE

    @property
    def is_claim(self):
        """A placement that claims its count (``muggins_claim``)."""
        return bool(self.code & CLAIM_BIT)

    @property
    def is_muggins(self):
        """Claiming the count the previous player failed to claim."""
        return kind_of(self.code) == KIND_MUGGINS

    def __str__(self):
        if self._text is None:
            self._text = self._make_text()
        return self._text

    cdef str _make_text(self):
        cdef uint32_t kind = kind_of(self.code)
        if kind == KIND_DRAW:
            return "draw"
        if kind == KIND_PASS:
            return "pass"
        if kind == KIND_MUGGINS:
            return "muggins"
        first = str(tile_at(self.code & 31))
        if (self.code >> 5) & 31 != END_LEAD:
            first += "@" + END_NAMES[(self.code >> 5) & 31]
        if kind == KIND_DOUBLE_DOUBLE:
            first += f"+{tile_at((self.code >> 10) & 31)}@{END_NAMES[(self.code >> 15) & 31]}"
        if self.code & CLAIM_BIT:
            first += "!"
        return first

    def __repr__(self):
        return f"Move.parse('{self}')"

    def __hash__(self):
        return self.code

    def __eq__(self, other):
        if isinstance(other, Move):
            return self.code == (<Move>other).code
        return NotImplemented

    def __reduce__(self):
        return (Move.parse, (str(self),))


cdef uint32_t _placement(str text) except 0xFFFFFFFF:
    tile, sep, end = text.partition("@")
    cdef uint32_t t = to_tile_index(tile)
    if not sep:
        return t | (END_LEAD << 5)
    end = end.strip()
    # ASCII letters only: str.upper() would also turn the long s "ſ" into "S"
    e = _END_INDEX.get(end.upper()) if end.isascii() else None
    if e is None:
        raise ValueError(f"unknown end {short_repr(end)} in {short_repr(text)}; "
                         f"ends are {', '.join(END_NAMES)}")
    return t | (<uint32_t>e << 5)


cdef uint32_t _parse(str text) except 0xFFFFFFFF:
    """The code of the move written ``text`` (a str, never None); ValueError if it is not
    a move."""
    cdef uint32_t a, b
    stripped = text.strip()
    if len(stripped) > 32:  # the longest move, "2-2@N7+5-5@S7", has 13 characters
        raise ValueError(f"not a move: {short_repr(text)}")
    word = stripped.lower()
    if word == "draw":
        return KIND_DRAW << 20
    if word == "pass":
        return KIND_PASS << 20
    if word == "muggins":
        return KIND_MUGGINS << 20
    if word.endswith("!"):
        inner = stripped[:len(stripped) - 1].rstrip()
        if inner.endswith("!"):  # "6-4@W!!" and "6-4@W! !" alike
            raise ValueError(f"not a move: {short_repr(text)}; a claim is one '!'")
        a = _parse(inner)
        if kind_of(a) > KIND_DOUBLE_DOUBLE:
            raise ValueError(
                f"not a move: {short_repr(text)}; only a placement can claim its count")
        return a | CLAIM_BIT
    try:
        first, plus, second = text.partition("+")
        a = _placement(first)
        if not plus:
            return a
        b = _placement(second)
    except ValueError as exc:
        raise ValueError(
            f"not a move: {short_repr(text)} ({exc}); write '6-4', '6-4@W', '2-2@W+5-5@E', "
            "'6-4@W!', 'draw', 'pass' or 'muggins'"
        ) from None
    if (a >> 5) & 31 == END_LEAD or (b >> 5) & 31 == END_LEAD:
        raise ValueError(
            f"not a move: {short_repr(text)}; both halves of a double-double need an end")
    if TILE_LO[a & 31] != TILE_HI[a & 31] or TILE_LO[b & 31] != TILE_HI[b & 31]:
        raise ValueError(
            f"not a move: {short_repr(text)}; a double-double places two doubles")
    # two different doubles at two different ends (docs/protocol.md, "Move text"): the
    # same tile or end twice is no move at all, not merely an illegal one
    if a & 31 == b & 31 or (a >> 5) & 31 == (b >> 5) & 31:
        raise ValueError(
            f"not a move: {short_repr(text)}; a double-double places two different doubles "
            "at two different ends")
    if (b >> 5) & 31 < (a >> 5) & 31:
        a, b = b, a
    return (a & 1023) | ((b & 1023) << 10) | (KIND_DOUBLE_DOUBLE << 20)


cdef bint _well_formed(uint32_t code):
    """Whether code is a move the engine could make (tiles and ends in range)."""
    cdef uint32_t kind = kind_of(code), e = (code >> 5) & 31
    if code >> 24 or kind > KIND_MUGGINS:
        return False
    if kind >= KIND_DRAW:
        return code & ((1u << 20) - 1) == 0 and (kind == KIND_MUGGINS or not code & CLAIM_BIT)
    if code & 31 >= 28 or (e >= MAX_ENDS and e != END_LEAD):
        return False
    if kind == KIND_PLACE:
        return (code >> 10) & 1023 == 0
    return (code >> 10) & 31 < 28 and (code >> 15) & 31 < MAX_ENDS and e != END_LEAD


cdef Move move_of(uint32_t code):
    cdef Move m
    if code < 1024:
        m = <Move>_PLACES[code]
        if m is not None:
            return m
    else:
        m = _OTHERS.get(code)
        if m is not None:
            return m
    if not _well_formed(code):
        raise ValueError(f"not a move code: {code:#x}")
    m = Move.__new__(Move, _NEW)
    m.code = code
    if code < 1024:
        _PLACES[code] = m
    else:
        _OTHERS[code] = m
    return m


cdef uint32_t move_code(object move) except 0xFFFFFFFF:
    if isinstance(move, Move):
        return (<Move>move).code
    if isinstance(move, str):
        return _parse(move)
    raise TypeError(f"a move is a Move or its text, not {type(move).__name__}")


def _intern_all():
    for t in range(28):
        move_of(t | (END_LEAD << 5))
        for e in range(MAX_ENDS):
            move_of(t | (e << 5))


_intern_all()
