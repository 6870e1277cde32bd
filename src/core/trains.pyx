"""``TrainRound``: one round of a train game (Mexican Train, Chicken Foot), with make/unmake.

The rules are TRAINS_SPEC (docs/trains.md).  Where the spec left a choice, this core
reads it so (each also in docs/trains.md):

* **blocked**: the stock is empty and no seat can place, checked once every seat has
  passed in a row (the spec's "players consecutive passes"; a marker put up by a later
  pass may open a train to an earlier passer, and then play goes on to that seat).
* **first_turn_own_train and a pending double**: both restrictions hold, so a seat whose
  own train is still empty may satisfy a double only when it is on its own train; otherwise
  it draws (and passes).
* **the bonus move** after a double (Mexican Train) is a new turn for the same seat: when it
  cannot satisfy, it draws one tile (even if it drew before playing the double).
* **Chicken Foot has no bonus move**: after any placement, the turn passes.
* ``from_deal`` wants a full deal (every tile of the set but the engine in a hand or the
  stock, equal hands) unless ``partial=True`` (hand-made positions: any non-empty hands,
  any stock).
* ``open_ends`` lists the targets open to the seat to move (markers, the pending double and
  ``first_turn_own_train`` applied, hands ignored); () once the round is over.
* ``trains`` is () in Chicken Foot.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_Resize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.number cimport PyIndex_Check
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport int8_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy, memset
from bones.core.bitops cimport monotonic

import warnings

import msgpack

from bones.core.rng cimport rng_seed
from bones.core.tiles cimport short_repr
from bones.core.trainstate cimport (
    EV_DRAW, EV_PLACE, LAYOUT_CHICKEN, LAYOUT_TRAINS, TR_CF_BIT,
    TR_MAX_PLIES, TR_MEXICAN, TR_OUT, TR_PLAYING, TEvent, TrainState, move_target, move_tile,
    ts_copy, ts_deal_random, ts_find, ts_init, ts_open_trains, ts_penalty,
    ts_open_anchors, ts_play, ts_playout, ts_set_tiles, ts_undo,
)
from bones.core.wideset cimport (
    W128, WIDE_DOUBLE, WIDE_HI, WIDE_SET, to_wide_index, w_andnot, w_any, w_bit,
    w_count, w_first, w_has, w_rest, w_set, w_zero, wide_tile,
)

from bones.errors import IllegalMove, OptionError
from bones.records import Event
from bones.trains_records import TrainResult
from bones.variant import STANDARD_HANDS  # the one table of default hand sizes

SCHEMA = "bones.trainround"
SCHEMA_VERSION = 1
MAX_SCORE = 1_000_000_000   # the largest game score a round accepts (either sign), as Round
LAYOUTS = ("trains", "chicken_foot")
SETS = (6, 9, 12)

#: Default engine toes of the chicken_foot layout: one on each side of the engine, a
#: cross (most sources; docs/rules.md).  6 is the "double chicken foot".
DEFAULT_ENGINE_TOES = 4

cdef object _NEW = object()  # the token that lets this module construct rounds and moves
cdef tuple _NEW_ARGS = (_NEW,)  # the arguments of a view made by a round
cdef int _MAX_BYTES = 1 << 14  # no round's msgpack comes near this (about 400 bytes)
cdef list _MOVES = [None] * (TR_CF_BIT << 1)  # interned TrainMove objects by code (15 bits)
cdef tuple _TEXTS = tuple([str(wide_tile(t)) for t in range(91)])  # tile texts, made once
cdef tuple _TRAIN_NAMES = tuple([f"P{t}" for t in range(8)] + ["M"])  # trains targets
cdef type _observation_class = None  # bones.core.observation.TrainObservation, on first use
_PACKER = msgpack.Packer(use_bin_type=True)
# The log's entries are immutable tuples of a few values: each is made once per process
# and shared by every round, so a move's events cost a lookup, not new objects.
cdef dict _PLACES = {}  # seat << 16 | move code: (log entry, placement), made on first use
cdef tuple _DRAWN = tuple([("draw", s, None, None) for s in range(8)])  # as others see it
cdef tuple _PASSED = tuple([("pass", s, None, None) for s in range(8)])
cdef tuple _OWN_DRAWS = tuple([("draw", s, _TEXTS[t], None)  # seat * 91 + tile: as s sees it
                               for s in range(8) for t in range(91)])


# The log as a round shares it with its views: plain bytes, appended to in C as the round
# goes (a decision makes no Python object for it), made into entries when a reader asks.
# ``pub`` holds every event as a TEvent whose drawn tile is hidden (-1); a seat's ``own``
# holds an OwnDraw per tile it drew.
ctypedef struct OwnDraw:
    uint16_t index               # the draw's place in the log
    int8_t tile                  # the tile drawn
    uint8_t pad                  # (4 bytes an entry)


cdef Py_ssize_t _EV = sizeof(TEvent)  # bytes of an event in ``pub``
cdef Py_ssize_t _OWN = sizeof(OwnDraw)  # bytes of a draw in ``own``


cdef inline const TEvent* _pub_events(bytearray pub):
    return <const TEvent*>PyByteArray_AS_STRING(pub)


cdef tuple _place_of(const TEvent* e, int layout):
    """The shared ``(log entry, placement)`` of a placement event."""
    cdef int code = e.tile | e.target << 7 | (TR_CF_BIT if layout else 0)
    cdef object place = _PLACES.get(e.seat << 16 | code)
    return <tuple>place if place is not None else _place_entries(e.seat, code)


cdef tuple _log_entries(bytearray pub, Py_ssize_t n, bytearray own, Py_ssize_t n_own,
                        int seat, int layout):
    """The first n events of ``pub`` as log entries, ``seat``'s first n_own own draws
    (``own``; None: none) showing their tile."""
    cdef const TEvent* e = _pub_events(pub)
    cdef const OwnDraw* d
    cdef list out = PyList_New(n)
    cdef Py_ssize_t i
    for i in range(n):
        if e[i].kind == EV_PLACE:
            entry = _place_of(&e[i], layout)[0]
        elif e[i].kind == EV_DRAW:
            entry = _DRAWN[e[i].seat]
        else:
            entry = _PASSED[e[i].seat]
        Py_INCREF(entry)
        PyList_SET_ITEM(out, i, entry)
    if own is not None:
        d = <const OwnDraw*>PyByteArray_AS_STRING(own)
        for i in range(n_own):
            out[d[i].index] = _OWN_DRAWS[seat * 91 + d[i].tile]
    return tuple(out)


cdef tuple _placements_of(bytearray pub, Py_ssize_t n, int layout):
    """``(seat, tile, target)`` of the placements among the first n events of ``pub``."""
    cdef const TEvent* e = _pub_events(pub)
    cdef Py_ssize_t i
    return tuple([_place_of(&e[i], layout)[1] for i in range(n) if e[i].kind == EV_PLACE])


cdef object _layout_of(bytearray pub, Py_ssize_t n, int layout):
    """The placements among the first n events of ``pub`` as a TrainLayout of moves."""
    cdef const TEvent* e = _pub_events(pub)
    cdef Py_ssize_t i
    cdef int cf = TR_CF_BIT if layout else 0
    return TrainLayout([_move_of(e[i].tile | e[i].target << 7 | cf)
                        for i in range(n) if e[i].kind == EV_PLACE], LAYOUTS[layout])


class TrainLayout(tuple):
    """The tiles on a train game's table: a tuple of the placements (``TrainMove``) in
    play order, as every family's ``layout`` is a sequence of its placed moves
    (docs/api.md), and ``name``, the table's kind: ``"trains"`` (Mexican Train) or
    ``"chicken_foot"``.  The trains themselves are the round's ``trains``."""

    def __new__(cls, moves=(), name="trains"):
        if name not in LAYOUTS:
            raise ValueError(f"a train layout is one of {LAYOUTS}, not {short_repr(repr(name))}")
        self = tuple.__new__(cls, moves)
        self.name = name
        return self

    def __repr__(self):
        return f"TrainLayout({list(self)!r}, {self.name!r})"

    def __eq__(self, other):
        if isinstance(other, str):  # the layout used to be the table's name
            warnings.warn("a train layout is now the placed moves: compare layout_name "
                          "with 'trains' or 'chicken_foot'", DeprecationWarning, stacklevel=2)
            return self.name == other
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__

    def __reduce__(self):
        return (TrainLayout, (tuple(self), self.name))


# --- moves -----------------------------------------------------------------------------

cdef tuple _place_entries(int seat, int code):
    """``(("place", seat, tile, target), (seat, tile, target))`` of a placement, kept."""
    tile = _TEXTS[move_tile(code)]
    target = _target_text(code)
    cdef tuple place = (("place", seat, tile, target), (seat, tile, target))
    _PLACES[seat << 16 | code] = place
    return place


cdef str _target_text(int code):
    cdef int target = move_target(code)
    if code & TR_CF_BIT:
        return <str>_TEXTS[target]
    return <str>_TRAIN_NAMES[target]


cdef class TrainMove:
    """A placement of a train game: ``12-5@M`` (on the Mexican train), ``7-3@P1`` (on seat
    1's train), ``9-4@9-9`` (Chicken Foot: on the end hanging from 9-9).  The text parses
    back with ``TrainMove.parse``; instances are interned."""

    def __cinit__(self, *args):
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError("use TrainMove.parse('12-5@M') or pick from round.legal_moves")

    def __init__(self, *args, **kwargs):
        raise TypeError("use TrainMove.parse('12-5@M') or pick from round.legal_moves")

    @staticmethod
    def parse(object text):
        """The move written ``text`` (a TrainMove as is); TypeError for anything else
        but a str, ValueError for a str that is not a train move."""
        if isinstance(text, TrainMove):
            return text
        if not isinstance(text, str):
            raise TypeError(f"TrainMove.parse takes the text of a move, not "
                            f"{type(text).__name__}")
        return _move_of(_parse(<str>text))

    @property
    def tile(self):
        """The tile placed (a SetTile)."""
        return wide_tile(move_tile(self.code))

    @property
    def target(self):
        """``"M"``, ``"P{seat}"`` or (Chicken Foot) the text of the anchor tile."""
        return _target_text(self.code)

    @property
    def tile2(self):
        """Always None (the train games place one tile per move)."""
        return None

    @property
    def kind(self):
        return "place"

    def __str__(self):
        if self._text is None:
            self._text = f"{wide_tile(move_tile(self.code))}@{_target_text(self.code)}"
        return self._text

    def __repr__(self):
        return f"TrainMove.parse('{self}')"

    def __hash__(self):
        return self.code

    def __eq__(self, other):
        if isinstance(other, TrainMove):
            return self.code == (<TrainMove>other).code
        return NotImplemented

    def __reduce__(self):
        return (TrainMove.parse, (str(self),))


cdef tuple _legal_of(const TrainState* st):
    """The legal moves of st's seat to move, as interned TrainMoves."""
    cdef tuple out = PyTuple_New(st.n_moves)
    cdef object m
    cdef int i
    for i in range(st.n_moves):
        m = _move_of(st.moves[i])
        Py_INCREF(m)
        PyTuple_SET_ITEM(out, i, m)
    return out


cdef TrainMove _move_of(int code):
    cdef TrainMove m = _MOVES[code & (TR_CF_BIT << 1) - 1]  # codes are 15 bits
    if m is None:
        m = TrainMove.__new__(TrainMove, _NEW)
        m.code = code
        _MOVES[code] = m
    return m


cdef int _parse(str text) except -1:
    """The code of the move written text; ValueError if it is not one."""
    cdef int t
    if len(text) <= 40:
        tile, sep, where = text.strip().partition("@")
        where = where.strip().upper()
        if sep and where:
            try:
                t = to_wide_index(tile)
                if where == "M":
                    return t | TR_MEXICAN << 7
                if where[0] == "P" and where[1:].isascii() and where[1:].isdigit() \
                        and len(where) <= 3 and int(where[1:]) < 8:
                    return t | int(where[1:]) << 7
                return t | to_wide_index(where) << 7 | TR_CF_BIT
            except ValueError:
                pass
    raise ValueError(f"not a train move: {short_repr(text)} (write '12-5@M', '7-3@P1' or, "
                     f"in Chicken Foot, '9-4@9-9')")


# --- arguments ---------------------------------------------------------------------------

cdef object _int(object value, str what):
    """value as an int; TypeError for a bool or a non-integer (naming ``what``)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not PyIndex_Check(value):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return int(value)


cdef tuple _options(object layout, object set_max, object engine, object zero_double,
                    object first_turn_own_train, object engine_toes):
    """The checked rule options (OptionError for a bad value), defaults filled in:
    (layout code, set_max, engine, zero_double, first_turn_own, engine_toes)."""
    if not isinstance(layout, str) or layout not in LAYOUTS:
        raise OptionError(f"layout must be 'trains' or 'chicken_foot', not {layout!r:.40}")
    cdef bint chicken = layout == "chicken_foot"
    if set_max is None:
        set_max = 9 if chicken else 12
    set_max = _int(set_max, "set_max")
    if set_max not in SETS:
        raise OptionError(f"set_max must be 6, 9 or 12 (a double-N set), not {set_max}")
    if engine is None:
        engine = set_max
    engine = _int(engine, "engine")
    if not 0 <= engine <= set_max:
        raise OptionError(f"engine must be a number 0..{set_max} (the engine double of the "
                          f"double-{set_max} set), not {engine}")
    if zero_double is None:
        zero_double = 50 if chicken else 0
    zero_double = _int(zero_double, "zero_double")
    if zero_double not in (0, 50):
        raise OptionError(f"zero_double must be 0 or 50, not {zero_double}")
    if first_turn_own_train is None:
        first_turn_own_train = False
    if type(first_turn_own_train) is not bool:
        raise OptionError(f"first_turn_own_train must be True or False, not "
                          f"{first_turn_own_train!r:.40}")
    if first_turn_own_train and chicken:
        raise OptionError("first_turn_own_train is an option of the trains layout only")
    if engine_toes is None:
        engine_toes = DEFAULT_ENGINE_TOES
    engine_toes = _int(engine_toes, "engine_toes")
    if engine_toes not in (4, 6):
        raise OptionError(f"engine_toes must be 4 or 6, not {engine_toes}")
    if engine_toes != DEFAULT_ENGINE_TOES and not chicken:
        raise OptionError("engine_toes is an option of the chicken_foot layout only")
    return (LAYOUT_CHICKEN if chicken else LAYOUT_TRAINS, set_max, engine, zero_double,
            first_turn_own_train, engine_toes)


cdef int _players(object players) except -1:
    players = _int(players, "players")
    if not 2 <= players <= 8:
        raise ValueError(f"players must be 2..8, got {players}")
    return players


cdef int _hand_size(object hand_size, int players, int set_max) except -2:
    """hand_size checked against the set: players * hand_size <= its tiles less one."""
    hand_size = _int(hand_size, "hand_size")
    if not 1 <= hand_size <= 90 or players * hand_size > ts_set_tiles(set_max) - 1:
        raise ValueError(
            f"hand_size {hand_size} with {players} players: players * hand_size must be "
            f"1..{ts_set_tiles(set_max) - 1} (the {_set_name(set_max)} set less the engine)")
    return hand_size


cdef int _seat(object seat, int players, str what) except -1:
    seat = _int(seat, what)
    if not 0 <= seat < players:
        raise ValueError(f"{what} must be a seat 0..{players - 1}, got {seat}")
    return seat


cdef list _tile_list(object tiles, str what):
    """The indices of a list of tiles (texts or SetTiles), errors naming ``what[j]``."""
    if isinstance(tiles, (str, bytes)):
        raise TypeError(f"{what} must be a list of tiles, not a string")
    try:
        items = list(tiles)
    except TypeError:
        raise TypeError(f"{what} must be a list of tiles, not {type(tiles).__name__}") \
            from None
    out = []
    for j, tile in enumerate(items):
        try:
            out.append(to_wide_index(tile))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{what}[{j}]: {exc}") from None
    return out


cdef str _set_name(int set_max):
    return f"double-{set_max}"


# --- the round ---------------------------------------------------------------------------

cdef class TrainRound:
    """One round of a train game: the deal, the layout, whose turn, and the moves so far.

    Build one with ``TrainRound.deal`` (a seeded random deal), ``TrainRound.from_deal``
    (explicit hands and stock) or ``TrainRound.from_msgpack``.  ``play`` and ``undo`` make
    and unmake moves without allocating; the automatic draws and passes after a move are
    part of it (``log`` lists them).
    """

    def __cinit__(self, *args):
        # Only this module makes rounds: a TrainRound.__new__(TrainRound) from Python
        # would have no state.
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError("use TrainRound.deal(...), TrainRound.from_deal(...) or "
                            "TrainRound.from_msgpack(...)")
        self.st = <TrainState*>PyMem_Malloc(sizeof(TrainState))
        if self.st is NULL:
            raise MemoryError()
        memset(self.st, 0, sizeof(TrainState))
        self._pub = bytearray()
        self._own = [bytearray() for _ in range(8)]

    def __dealloc__(self):
        PyMem_Free(self.st)

    def __init__(self, *args, **kwargs):
        raise TypeError("use TrainRound.deal(...), TrainRound.from_deal(...) or "
                        "TrainRound.from_msgpack(...)")

    @classmethod
    def deal(cls, layout, set_max=None, players=4, hand_size=None, engine=None, leader=0,
             seed=0, zero_double=None, first_turn_own_train=None, engine_toes=None,
             variant=None, scores=None, options=None):
        """A random deal from ``seed`` (the same on every machine): the set less the engine
        double shuffled, ``hand_size`` tiles to each seat in turn, the rest the stock.
        ``variant`` and ``options``: the registered variant's name and the options it was
        dealt with, which the round reports (``bones.Round.deal`` of a train variant gives
        them); ``scores``: per seat, the game scores before it."""
        cdef tuple opt = _options(layout, set_max, engine, zero_double,
                                  first_turn_own_train, engine_toes)
        cdef int n_players, size, lead
        cdef uint64_t rng
        n_players = _players(players)
        if hand_size is None:  # the variants' standard deal (bones.variant.STANDARD_HANDS)
            hand_size = STANDARD_HANDS[layout][_set_name(opt[1])][n_players]
        size = _hand_size(hand_size, n_players, opt[1])
        lead = _seat(leader, n_players, "leader")
        rng = rng_seed(<uint64_t>(_int(seed, "seed") & 0xFFFFFFFFFFFFFFFF))
        cdef TrainRound self = TrainRound.__new__(TrainRound, _NEW)
        ts_deal_random(self.st, opt[0], opt[1], opt[2], n_players, size, opt[3], opt[4],
                       opt[5], lead, &rng)
        self._bind(variant, scores, options)
        return self

    @classmethod
    def from_deal(cls, layout, set_max=None, hands=None, stock=(), engine=None, leader=0,
                  zero_double=None, first_turn_own_train=None, engine_toes=None, moves=None,
                  partial=False, variant=None, scores=None, options=None):
        """A round from an explicit deal: ``hands`` one list of tiles (texts or SetTiles)
        per seat, ``stock`` top (next drawn) first; ``moves`` are replayed in order.

        The deal must be full (equal hands; every tile of the set but the engine double in
        a hand or the stock) unless ``partial=True`` (any non-empty hands, any stock;
        ``is_partial`` then says whether the deal is not a full one)."""
        cdef tuple opt = _options(layout, set_max, engine, zero_double,
                                  first_turn_own_train, engine_toes)
        if type(partial) is not bool:
            raise TypeError(f"partial must be True or False, not {type(partial).__name__}")
        if hands is None:
            raise ValueError("hands: give one list of tiles per seat")
        if isinstance(hands, (str, bytes)):
            raise TypeError("hands must be one list of tiles per seat, not a string")
        hands = list(hands)
        hand_idx = [_tile_list(h, f"hands[{i}]") for i, h in enumerate(hands)]
        stock_idx = _tile_list(stock, "stock")
        self = _build(opt, hand_idx, stock_idx, leader, partial)
        self._bind(variant, scores, options)
        if moves is not None:
            if isinstance(moves, (str, bytes)):
                raise TypeError("moves must be a list of moves, not a string")
            for k, move in enumerate(moves):
                try:
                    self.play(move)
                except IllegalMove as exc:
                    raise IllegalMove(f"move {k + 1} of the replay: {exc}") from None
        return self

    cdef void _bind(self, object variant, object scores, object options) except *:
        """Name the round's variant and its options, and give its seats' game scores
        (checked)."""
        cdef int n = self.st.players, i
        if variant is not None and (type(variant) is not str or not 0 < len(variant) <= 64):
            raise TypeError(f"variant must be a variant's name, not {short_repr(repr(variant))}")
        if options is not None and (type(options) is not dict or len(options) > 32
                                    or any([type(k) is not str for k in options])):
            raise TypeError("options must be a dict of at most 32 options by name")
        self._variant = variant
        self._options = {} if options is None else dict(options)
        if scores is None:
            self._scores = (0,) * n
            return
        if isinstance(scores, (str, bytes)):
            raise TypeError("scores must be one int per seat, not a string")
        scores = tuple(scores)
        if len(scores) != n:
            raise ValueError(f"scores must give one number per seat ({n}); got {len(scores)}")
        for i in range(n):
            if type(scores[i]) is not int or not -MAX_SCORE <= scores[i] <= MAX_SCORE:
                raise ValueError(f"scores[{i}] must be an int from {-MAX_SCORE} to "
                                 f"{MAX_SCORE}; got {short_repr(repr(scores[i]))}")
        self._scores = scores

    @property
    def variant(self):
        """The name of the variant the round was dealt for."""
        self._check()
        if self._variant is not None:
            return self._variant
        return "mexican-train" if self.st.layout == LAYOUT_TRAINS else "chicken-foot"

    @property
    def options(self):
        """The variant's options the round was dealt with, as given (``engine`` too when
        the game gave it)."""
        self._check()
        return dict(self._options)

    @property
    def rules(self):
        """The round's rules: its variant (``variant``), the options as given
        (``overrides``) and resolved (``options``); a ``bones.core.train_games.TrainRules``,
        as a line round's ``rules`` is its compiled rules."""
        from bones.core.train_games import rules_of

        self._check()
        return rules_of(self.variant, self.st.players, self._options)

    @property
    def layout(self):
        """The tiles placed, in play order: a ``TrainLayout`` (a tuple of ``TrainMove``
        with the table's ``name``), as every family's ``layout``."""
        self._check()
        return TrainLayout(self.moves, LAYOUTS[self.st.layout])

    @property
    def action_space(self):
        """The variant's fixed action space (its family's ``action_space`` part:
        ``bones.train_actions.TrainActionSpace``; docs/envs.md)."""
        from bones.registry import part_of

        self._check()
        space = part_of(self.variant, "action_space")
        return space(self.variant, self.st.players, **self._options)

    @property
    def legal_actions(self):
        """The legal moves of the seat to move as action indices, ascending."""
        return self.action_space.legal_actions(self)

    def action_mask(self, out=None):
        """The legal actions as a mask of ``action_space.size`` bytes (1: legal), written
        into ``out`` (a writable buffer) or a new bytearray."""
        space = self.action_space
        if out is None:
            out = bytearray(space.size)
        space.action_mask(self, out)
        return out

    @property
    def tensor_spec(self):
        """The layout of ``observation_tensor`` (``TrainTensorSpec``; docs/envs.md)."""
        from bones.core.traintensor import TrainTensorSpec

        self._check()
        return TrainTensorSpec(self.variant, self.st.players, **self._options)

    def observation_tensor(self, seat, out=None):
        """What ``seat`` may know as ``tensor_spec.size`` float32 values, written into
        ``out`` (a writable float32 buffer) or a new array.array("f")."""
        return self.tensor_spec.write(self, seat, out)

    def returns(self):
        """Per seat, its gain this round less the other seats' mean gain (zero-sum; a
        penalty is a loss): the final returns once the round is over."""
        from bones.core.traintensor import returns

        return returns(self)

    @property
    def sides(self):
        """Every seat plays for itself: ``((0,), (1,), ...)``."""
        self._check()
        return tuple([(i,) for i in range(self.st.players)])

    def side_of(self, seat):
        """The side of ``seat``: itself."""
        self._check()
        return _seat(seat, self.st.players, "seat")

    @property
    def scores(self):
        """Per seat, the game score before the round plus what this round scored so far
        (as :attr:`bones.Round.scores`): the scores it was dealt with while it is played,
        plus each seat's penalty (``result.points``) once it is over."""
        self._check()
        if self.st.status == TR_PLAYING:
            return self._scores
        return tuple([self._scores[i] + ts_penalty(self.st, i)
                      for i in range(self.st.players)])

    def hand_pips(self, seat):
        """The pips in ``seat``'s hand (0-0 counts 0; see ``result.penalties``)."""
        self._check()
        return sum([t.pips for t in self.hand(seat)])

    def moves_text(self):
        """The moves made so far as one line of text (``12-5@M 5-3@P1 ...``)."""
        cdef TrainMove m
        cdef int i
        cdef list texts = PyList_New(self.st.n_plies)  # every round's journal entry has one
        for i in range(self.st.n_plies):
            m = _move_of(self.st.plies[i].move)
            text = m._text if m._text is not None else str(m)
            Py_INCREF(text)
            PyList_SET_ITEM(texts, i, text)
        return " ".join(texts)

    def journal_entry(self):
        """The round's entry in a match journal as compact JSON text: exactly what
        ``json`` writes (with ``bones.match.journal``'s separators) for
        ``{"round": base64 of to_msgpack(), "moves": moves_text(), "result": [reason,
        winners, points, values, last_seat] or null}``, written in one buffer (a match
        writes one per round; the dict and the encoder cost it several microseconds).  The
        engine's move texts and reasons are plain ASCII: one that JSON would have to escape
        raises ValueError rather than be written wrong."""
        self._check()
        cdef bytes packed = self.to_msgpack()
        cdef Py_ssize_t n = len(packed), m = 0, size, k, i, t
        cdef TrainMove move
        cdef const char* text
        for i in range(self.st.n_plies):  # the moves' texts, each made once and kept
            move = _move_of(self.st.plies[i].move)
            PyUnicode_AsUTF8AndSize(move._text if move._text is not None else str(move), &t)
            m += t + 1
        result = self.result
        cdef bytes reason = b"" if result is None else result.reason.encode()
        # the fixed text, the base64, the moves, the reason, 3 lists of ints and last_seat
        size = 64 + 4 * (n // 3 + 1) + m + len(reason)
        if result is not None:
            size += 3 * 21 * len(result.points) + 21
        cdef char* out = <char*>PyMem_Malloc(size)
        if out == NULL:
            raise MemoryError()
        try:
            k = _put(out, 0, b'{"round":"', 10)
            k = _base64(out, k, packed, n)
            k = _put(out, k, b'","moves":"', 11)
            for i in range(self.st.n_plies):
                if i:
                    out[k] = 32  # " "
                    k += 1
                text = PyUnicode_AsUTF8AndSize(_move_of(self.st.plies[i].move)._text, &t)
                k = _put_plain(out, k, text, t)
            k = _put(out, k, b'","result":', 11)
            if result is None:
                k = _put(out, k, b"null", 4)
            else:
                k = _put(out, k, b'["', 2)
                k = _put_plain(out, k, reason, len(reason))
                k = _put(out, k, b'",', 2)
                k = _json_ints(out, k, result.winners)
                k = _json_ints(out, k, result.points)
                k = _json_ints(out, k, result.values)
                k = _json_int(out, k, result.last_seat)
                k = _put(out, k, b"]", 1)
            k = _put(out, k, b"}", 1)
            return out[:k].decode("ascii")
        finally:
            PyMem_Free(out)

    # --- playing -------------------------------------------------------------------------

    @property
    def legal_moves(self):
        """The legal moves of the seat to move, in the core's order (() once over)."""
        self._check()
        return _legal_of(self.st)

    def play(self, move):
        """Make ``move`` (a TrainMove, its text, or an action index of ``action_space``, as
        every family's ``play`` takes) for the seat to move; the automatic draws and passes
        after it are applied before this returns.  Anything that is not a legal move
        raises IllegalMove and changes nothing."""
        cdef int code
        self._check()
        if self.st.status != TR_PLAYING:
            raise IllegalMove(f"{move!r:.40}: the round is over")
        if isinstance(move, TrainMove):
            code = (<TrainMove>move).code
        elif isinstance(move, str):
            try:
                code = _parse(<str>move)
            except ValueError as exc:
                raise IllegalMove(f"{exc}{self._legal_text()}") from None
        elif PyIndex_Check(move) and not isinstance(move, bool):
            try:
                code = (<TrainMove?>self.action_space.move(int(move))).code
            except (TypeError, ValueError, OverflowError) as exc:
                raise IllegalMove(f"action {move!r:.40}: {exc}{self._legal_text()}") from None
        else:
            raise IllegalMove(f"a move is a TrainMove, its text or an action index, not "
                              f"{type(move).__name__}")
        if not self._play_legal(code):
            raise IllegalMove(f"{_move_of(code)} is not legal for seat {self.st.to_move}"
                              f"{self._legal_text()}")

    cdef bint _play_legal(self, int code) except -1:
        """Play ``code`` for the seat to move if it is legal now; False (nothing changed)
        if it is not.  The referee's check and move in one C call."""
        if self.st.status != TR_PLAYING or ts_find(self.st, code) < 0:
            return False
        if self.st.n_plies >= TR_MAX_PLIES:  # cannot happen (trainstate.pyx bounds)
            raise IllegalMove(f"a round holds at most {TR_MAX_PLIES} moves")
        ts_play(self.st, code)
        return True

    def _legal_text(self):
        if self.st.status != TR_PLAYING:
            return " (the round is over)"
        return "; legal: " + ", ".join([str(_move_of(self.st.moves[i]))
                                        for i in range(self.st.n_moves)])

    def undo(self):
        """Unmake the last move and the automatic draws and passes after it; returns that
        move.  IndexError when no move has been played."""
        self._check()
        if self.st.n_plies == 0:
            raise IndexError("undo: no move has been played")
        cdef int code = self.st.plies[self.st.n_plies - 1].move
        cdef int n
        ts_undo(self.st)
        self._result = None  # the round may be over no more, or end otherwise
        n = self.st.n_events
        if len(self._pub) > n * _EV:  # new buffers: older views keep theirs whole
            self._pub = self._pub[:n * _EV]
            self._own = [own[:_own_before(own, n) * _OWN] for own in self._own]
        return _move_of(code)

    def copy(self):
        """An independent copy."""
        self._check()
        cdef TrainRound other = TrainRound.__new__(TrainRound, _NEW)
        ts_copy(other.st, self.st)
        other.partial = self.partial
        other._variant = self._variant
        other._scores = self._scores
        other._options = self._options
        return other

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    cdef int _check(self) except -1:
        if self.st is NULL or self.st.players == 0:  # not made by this module
            raise TypeError("this TrainRound was not made by deal, from_deal or from_msgpack")
        return 0

    # --- what the engine knows ---------------------------------------------------------

    @property
    def layout_name(self):
        """``"trains"`` or ``"chicken_foot"``."""
        return LAYOUTS[self.st.layout]

    @property
    def set_max(self):
        return self.st.set_max

    @property
    def engine(self):
        """The engine double's number (the double is on the table from the start)."""
        return self.st.engine

    @property
    def players(self):
        return self.st.players

    @property
    def leader(self):
        return self.st.leader

    @property
    def zero_double(self):
        return self.st.zero_double

    @property
    def first_turn_own_train(self):
        return bool(self.st.first_turn_own)

    @property
    def engine_toes(self):
        return self.st.engine_toes

    @property
    def is_partial(self):
        """True when the deal is not a full deal (``from_deal(partial=True)``)."""
        return self.partial

    @property
    def to_move(self):
        """The seat to move, or None once the round is over."""
        return self.st.to_move if self.st.status == TR_PLAYING else None

    def hand(self, seat):
        """The tiles in seat's hand, in index order (the engine's view: bots get
        observations)."""
        self._check()
        return _tiles(self.st.hand[_seat(seat, self.st.players, "seat")])

    def dealt_hand(self, seat):
        """The tiles dealt to seat, before the draws of the round (the engine's view)."""
        self._check()
        return _tiles(self.st.hand0[_seat(seat, self.st.players, "seat")])

    @property
    def dealt_stock(self):
        """The boneyard as dealt, top first (the engine's view)."""
        self._check()
        return tuple([wide_tile(self.st.stock[i]) for i in range(self.st.stock_len)])

    @property
    def dealt_scores(self):
        """Per seat, the game's scores the round was dealt with."""
        self._check()
        return self._scores

    @property
    def hand_sizes(self):
        return tuple([w_count(self.st.hand[i]) for i in range(self.st.players)])

    @property
    def stock_size(self):
        return self.st.stock_len - self.st.stock_top

    @property
    def stock(self):
        """The boneyard, top first (the engine's view: never shown to a bot)."""
        return tuple([wide_tile(self.st.stock[i])
                      for i in range(self.st.stock_top, self.st.stock_len)])

    @property
    def is_over(self):
        return self.st.status != TR_PLAYING

    @property
    def result(self):
        """The TrainResult once the round is over, else None."""
        if self.st.status == TR_PLAYING:
            return None
        if self._result is None:  # the referee, the game and the journal all ask for it
            self._result = self._make_result()
        return self._result

    cdef object _make_result(self):
        penalties = tuple([ts_penalty(self.st, i) for i in range(self.st.players)])
        if self.st.status == TR_OUT:
            winners = (self.st.out_seat,)
        else:
            low = min(penalties)
            winners = tuple([i for i in range(self.st.players) if penalties[i] == low])
        return TrainResult(
            "out" if self.st.status == TR_OUT else "blocked",
            winners,
            penalties,
            penalties,
            self.st.plies[self.st.n_plies - 1].seat if self.st.n_plies else self.st.leader,
        )

    @property
    def moves(self):
        """The moves made so far (placements: draws and passes are automatic)."""
        return tuple([_move_of(self.st.plies[i].move) for i in range(self.st.n_plies)])

    @property
    def log(self):
        """Every placement, draw and pass in order as ``(kind, seat, tile, target)``;
        drawn tiles are hidden (None): see ``log_of``."""
        self._check()
        self._sync()
        return _log_entries(self._pub, self.st.n_events, None, 0, 0, self.st.layout)

    def log_of(self, seat):
        """``log`` as ``seat`` sees it: its own draws show the tile drawn."""
        self._check()
        cdef int s = _seat(seat, self.st.players, "seat")
        self._sync()
        own = <bytearray>self._own[s]
        return _log_entries(self._pub, self.st.n_events, own, len(own) // _OWN, s,
                            self.st.layout)

    @property
    def events(self):
        """The public events, as :attr:`bones.Round.events` gives them: ``Event("play",
        seat, move)``, ``Event("draw", seat, count=1)`` (the tile unseen) and
        ``Event("pass", seat)``."""
        return self._events()

    cdef tuple _events(self):
        """The round's events in order, as ``bones.Event``s."""
        cdef const TEvent* e
        cdef int i
        out = []
        for i in range(self.st.n_events):
            e = &self.st.events[i]
            if e.kind == EV_PLACE:
                out.append(Event("play", e.seat, _move_of(
                    e.tile | e.target << 7 | (TR_CF_BIT if self.st.layout else 0))))
            elif e.kind == EV_DRAW:
                out.append(Event("draw", e.seat, None, 1))
            else:
                out.append(Event("pass", e.seat))
        return tuple(out)

    cdef void _sync(self) except *:
        """Bring the shared log buffers (``_pub``, ``_own``) up to the round's events: a
        copy of each new event, the tile of a draw hidden in ``_pub`` and kept in the
        drawer's ``_own``.  They are only appended to (``undo`` gives the round new ones),
        so a seat's view keeps its prefix of them: a view costs O(1) however long the log,
        and no Python object is made until a reader asks for the log."""
        cdef Py_ssize_t i = len(self._pub) // _EV, n = self.st.n_events, k
        cdef TEvent* out
        cdef OwnDraw* d
        cdef bytearray own
        if i >= n:
            return
        PyByteArray_Resize(self._pub, n * _EV)  # grows in place, amortised
        out = <TEvent*>PyByteArray_AS_STRING(self._pub)
        while i < n:
            out[i] = self.st.events[i]
            if out[i].kind == EV_DRAW:
                out[i].tile = -1
                own = <bytearray>self._own[out[i].seat]
                k = len(own) // _OWN
                PyByteArray_Resize(own, (k + 1) * _OWN)
                d = <OwnDraw*>PyByteArray_AS_STRING(own) + k
                d.index = <uint16_t>i
                d.tile = self.st.events[i].tile
                d.pad = 0
            i += 1

    @property
    def placements(self):
        """``(seat, tile, target)`` of every tile placed, in play order."""
        self._check()
        self._sync()
        return _placements_of(self._pub, self.st.n_events, self.st.layout)

    @property
    def trains(self):
        """Trains layout: per train (P0, P1, ..., then M) ``(open number, tiles, public)``;
        () in Chicken Foot."""
        cdef TrainSnap v
        _snap(self.st, self.st.to_move, &v)
        return _trains_of(&v)

    @property
    def pending(self):
        """The target of the double that must be satisfied (Mexican Train: ``"M"``,
        ``"P1"``) or whose toes are due (Chicken Foot: ``"9-9"``), else None."""
        return _pending_of(self.st.layout, self.st.pending)

    @property
    def open_ends(self):
        """``(target, open number)`` of every target the seat to move may place on now,
        whatever its hand holds (markers, the pending double and first_turn_own_train
        applied); () once the round is over."""
        cdef TrainSnap v
        _snap(self.st, self.st.to_move, &v)
        return _open_ends_of(&v)

    def observation(self, seat):
        """What ``seat`` may know (a :class:`bones.observation.TrainObservation`): its own
        hand, the hand sizes, the stock's size, the public layout and events (its own draws
        visible).  It costs O(1): the log's entries are shared with the round, and what is
        made from them is made when first read."""
        if self.st.players == 0:
            self._check()
        return self._observation(
            seat if type(seat) is int and 0 <= seat < self.st.players
            else _seat(seat, self.st.players, "seat"))

    cdef TrainSeatView _observation(self, int s):
        global _observation_class
        cdef TrainSeatView o
        if _observation_class is None:
            from bones.core.observation import TrainObservation
            _observation_class = TrainObservation
        # the class's tp_new at once: no lookup of __new__, no argument tuple to make
        o = <TrainSeatView>(<PyTypeObject*>_observation_class).tp_new(
            _observation_class, <PyObject*>_NEW_ARGS, NULL)
        self._fill(o, s)
        return o

    cdef void _refill(self, TrainSeatView o, int s) except *:
        # o is this round's observation and its caller holds the only reference (so nobody
        # can see it change): it becomes s's view now, as a new one would be
        o._to_move = o._pending = o._result = o._legal = None
        o._hand = o._hand_sizes = o._trains = o._open_ends = o._placements = o._log = None
        self._fill(o, s)

    cdef void _fill(self, TrainSeatView o, int s) except *:
        if len(self._pub) < self.st.n_events * _EV:
            self._sync()
        _snap(self.st, s, &o.v)
        o._variant = self._variant
        o._options = self._options
        o._scores = self._scores
        o._pub = self._pub
        o._own = <bytearray>self._own[s]
        o.v.n_own = len(o._own) // _OWN
        if self.st.pending >= 0:
            o._pending = _pending_of(self.st.layout, self.st.pending)
        if self.st.status == TR_PLAYING:
            o._to_move = self.st.to_move
            o._legal = _legal_of(self.st) if self.st.to_move == s else ()
        else:
            o._result = self.result
            o._legal = ()
            o._scores = self.scores  # with the round's penalties, as the round's own

    # --- serialisation -------------------------------------------------------------------

    def to_msgpack(self):
        """The round as bytes: schema "bones.trainround" version 1, the deal, the rule
        options and the moves (docs/trains.md)."""
        self._check()
        cdef int i
        cdef bytes moves = PyBytes_FromStringAndSize(NULL, 2 * self.st.n_plies)
        cdef uint8_t* out = <uint8_t*>PyBytes_AS_STRING(moves)
        for i in range(self.st.n_plies):
            out[2 * i] = self.st.plies[i].move & 255
            out[2 * i + 1] = self.st.plies[i].move >> 8
        return _PACKER.pack([
            SCHEMA, SCHEMA_VERSION, LAYOUTS[self.st.layout], self.st.set_max, self.st.engine,
            self.st.leader, self.st.zero_double, bool(self.st.first_turn_own),
            self.st.engine_toes, self.partial,
            [_indices(self.st.hand0[i]) for i in range(self.st.players)],
            (<char*>self.st.stock)[:self.st.stock_len],
            moves,
            self._variant,
            list(self._scores),
            self._options,
        ])

    @classmethod
    def from_msgpack(cls, data):
        """The round encoded by ``to_msgpack``.  Anything else raises ValueError (never
        another exception): the deal is checked like ``from_deal``'s and the moves are
        replayed from it."""
        cdef TrainRound self
        cdef int code, k
        try:
            if len(data) > _MAX_BYTES:
                raise ValueError(f"{len(data)} bytes is too long for a train round")
            obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
        except Exception as exc:
            raise ValueError(f"not a bones train round: {exc}") from None
        if type(obj) is not list or len(obj) != 16 or obj[0] != SCHEMA \
                or type(obj[1]) is not int or obj[1] != SCHEMA_VERSION:
            raise ValueError(f"not a bones train round ({SCHEMA!r} version {SCHEMA_VERSION}): "
                             "wrong header or length")
        try:
            _, _, layout, set_max, engine, leader, zero_double, first_turn, toes, partial, \
                hands, stock, moves, variant, scores, options = obj
            if type(layout) is not str or type(set_max) is not int or type(engine) is not int \
                    or type(leader) is not int or type(zero_double) is not int \
                    or type(first_turn) is not bool or type(toes) is not int \
                    or type(partial) is not bool or type(hands) is not list \
                    or type(stock) is not bytes or type(moves) is not bytes or len(moves) % 2:
                raise ValueError("wrong field types")
            for h in hands:
                if type(h) is not bytes:
                    raise ValueError("a hand is not bytes")
            opt = _options(layout, set_max, engine, zero_double, first_turn, toes)
            self = _build(opt, [list(h) for h in hands], list(stock), leader, partial)
            if type(scores) is not list:
                raise ValueError("scores is not a list")
            self._bind(variant, scores, options)
            if self.partial != partial:
                raise ValueError("a full deal marked partial")
        except Exception as exc:
            raise ValueError(f"corrupt bones train round: {exc}") from None
        for k in range(len(moves) // 2):
            code = moves[2 * k] | moves[2 * k + 1] << 8
            if self.st.status != TR_PLAYING or ts_find(self.st, code) < 0:
                raise ValueError(f"corrupt bones train round: move {k + 1} is not legal")
            ts_play(self.st, code)
        return self

    def __eq__(self, other):
        if not isinstance(other, TrainRound):
            return NotImplemented
        return self.to_msgpack() == (<TrainRound>other).to_msgpack()

    __hash__ = None

    def __reduce__(self):
        return (TrainRound.from_msgpack, (self.to_msgpack(),))

    def __repr__(self):
        if self.st.players == 0:
            return "<TrainRound (not made by deal, from_deal or from_msgpack)>"
        cdef int i
        hands = [[str(t) for t in _tiles(self.st.hand0[i])] for i in range(self.st.players)]
        stock = [str(wide_tile(self.st.stock[i])) for i in range(self.st.stock_len)]
        args = [repr(self.layout_name), f"set_max={self.st.set_max}", f"hands={hands!r}",
                f"stock={stock!r}", f"engine={self.st.engine}", f"leader={self.st.leader}",
                f"zero_double={self.st.zero_double}"]
        if self.st.layout == LAYOUT_TRAINS:
            args.append(f"first_turn_own_train={bool(self.st.first_turn_own)}")
        else:
            args.append(f"engine_toes={self.st.engine_toes}")
        if self.st.n_plies:
            args.append(f"moves={[str(m) for m in self.moves]!r}")
        if self.partial:
            args.append("partial=True")
        return f"TrainRound.from_deal({', '.join(args)})"

    def _repr_svg_(self):
        """The position as SVG, for notebooks (every hand face up; bones.render)."""
        from bones.render.trains_svg import train_svg_of

        return train_svg_of(self)

    def __str__(self):
        if self.st.players == 0:
            return repr(self)
        cdef int i
        name = "Mexican Train" if self.st.layout == LAYOUT_TRAINS else "Chicken Foot"
        lines = [f"{name}, double-{self.st.set_max} set, engine "
                 f"{self.st.engine}-{self.st.engine}, {self.st.players} players"]
        if self.st.layout == LAYOUT_TRAINS:
            laid = {}
            for _who, tile, target in self.placements:
                laid.setdefault(target, []).append(tile)
            for i, (open_v, n, public) in enumerate(self.trains):
                name = "M" if i == self.st.players else f"P{i}"
                marker = " (public)" if public and name != "M" else ""
                lines.append(f"  {name:<3} {' '.join(laid.get(name, [])) or '(empty)'}"
                             f"  -> {open_v}{marker}")
        else:
            for seat, tile, target in self.placements:
                lines.append(f"  {tile} on {target} (seat {seat})")
            ends = ", ".join([f"{t}:{v}" for t, v in self.open_ends])
            lines.append(f"  open ends: {ends or '(none)'}")
        if self.pending is not None:
            lines.append(f"  pending double: {self.pending}")
        sizes = " ".join([str(n) for n in self.hand_sizes])
        lines.append(f"  hands {sizes}, stock {self.stock_size}")
        if self.st.status == TR_PLAYING:
            lines.append(f"  seat {self.st.to_move} to move")
        else:
            res = self.result
            lines.append(f"  over: {res.reason}"
                         + (f" (seat {res.out_seat})" if res.out_seat is not None else "")
                         + f", penalties {list(res.penalties)}")
        return "\n".join(lines)


cdef bytes _indices(W128 m):
    """The wide indices of the tiles of m, in order, one byte each (at most 91)."""
    cdef uint8_t out[128]
    cdef int n = 0
    while w_any(m):
        out[n] = w_first(m)
        n += 1
        m = w_rest(m)
    return (<char*>out)[:n]


cdef tuple _tiles(W128 m):
    out = []
    while w_any(m):
        out.append(wide_tile(w_first(m)))
        m = w_rest(m)
    return tuple(out)


# --- a journal entry's text (TrainRound.journal_entry) -----------------------------------

cdef const char* _B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


cdef inline Py_ssize_t _put(char* out, Py_ssize_t k, const char* text,
                            Py_ssize_t n) noexcept nogil:
    memcpy(out + k, text, n)
    return k + n


cdef Py_ssize_t _put_plain(char* out, Py_ssize_t k, const char* text,
                           Py_ssize_t n) except -1:
    """_put of a text that JSON writes as it is (printable ASCII, no quote or backslash):
    ValueError for any other, which would need an escape."""
    cdef Py_ssize_t i
    cdef unsigned char c
    for i in range(n):
        c = text[i]
        if c < 32 or c > 126 or c == 34 or c == 92:
            raise ValueError(f"{text[:n]!r} needs escapes in JSON")
    return _put(out, k, text, n)


cdef Py_ssize_t _base64(char* out, Py_ssize_t k, const unsigned char* data,
                        Py_ssize_t n) noexcept nogil:
    """data in standard base64 with padding (``base64.b64encode``'s) at out + k."""
    cdef Py_ssize_t i = 0
    cdef unsigned int w
    while i + 3 <= n:
        w = data[i] << 16 | data[i + 1] << 8 | data[i + 2]
        out[k] = _B64[w >> 18]
        out[k + 1] = _B64[w >> 12 & 63]
        out[k + 2] = _B64[w >> 6 & 63]
        out[k + 3] = _B64[w & 63]
        i += 3
        k += 4
    if i < n:
        w = data[i] << 16 | (data[i + 1] << 8 if i + 1 < n else 0)
        out[k] = _B64[w >> 18]
        out[k + 1] = _B64[w >> 12 & 63]
        out[k + 2] = _B64[w >> 6 & 63] if i + 1 < n else 61  # "="
        out[k + 3] = 61
        k += 4
    return k


cdef Py_ssize_t _json_int(char* out, Py_ssize_t k, object value) except -1:
    """An int as JSON writes it (at most 20 characters), or null for None."""
    cdef char digits[20]
    cdef int d = 0
    cdef long long v
    cdef unsigned long long u
    if value is None:
        return _put(out, k, b"null", 4)
    if type(value) is not int:  # a bool or a float would be written otherwise
        raise TypeError(f"a journal entry's number must be an int, not {type(value).__name__}")
    v = value
    u = v
    if v < 0:
        out[k] = 45  # "-"
        k += 1
        u = -u
    while True:
        digits[d] = 48 + <int>(u % 10)
        d += 1
        u //= 10
        if u == 0:
            break
    while d:
        d -= 1
        out[k] = digits[d]
        k += 1
    return k


cdef Py_ssize_t _json_ints(char* out, Py_ssize_t k, tuple values) except -1:
    """A tuple of ints as a JSON array, then a comma."""
    cdef Py_ssize_t i
    out[k] = 91  # "["
    k += 1
    for i in range(len(values)):
        if i:
            out[k] = 44  # ","
            k += 1
        k = _json_int(out, k, values[i])
    return _put(out, k, b"],", 2)


# --- what one seat sees ------------------------------------------------------------------

cdef void _snap(const TrainState* st, int seat, TrainSnap* v) noexcept nogil:
    """The plain values of ``seat``'s view of st (no log, no other hand) into v."""
    cdef int i
    v.layout = st.layout
    v.set_max = st.set_max
    v.engine = st.engine
    v.players = st.players
    v.leader = st.leader
    v.zero_double = st.zero_double
    v.first_turn_own = st.first_turn_own
    v.engine_toes = st.engine_toes
    v.seat = seat
    v.status = st.status
    v.to_move = st.to_move
    v.stock_size = st.stock_len - st.stock_top
    v.pending = st.pending
    v.public = st.public
    v.hand = st.hand[seat]
    for i in range(st.players):
        v.sizes[i] = w_count(st.hand[i])
    memcpy(v.train_open, st.train_open, sizeof(v.train_open))
    memcpy(v.train_len, st.train_len, sizeof(v.train_len))
    if st.layout == LAYOUT_CHICKEN:
        for i in range(st.set_max + 1):
            v.anchors[i] = ts_open_anchors(st, i)
    v.open_trains = ts_open_trains(st, st.to_move) if st.layout == LAYOUT_TRAINS else 0
    v.n_events = st.n_events
    v.n_placed = st.n_plies
    v.n_own = 0


cdef tuple _trains_of(const TrainSnap* v):
    """Trains layout: per train (P0, ..., then M) ``(open number, tiles, public)``."""
    cdef int i
    if v.layout != LAYOUT_TRAINS:
        return ()
    out = [(v.train_open[i], v.train_len[i], bool(v.public >> i & 1))
           for i in range(v.players)]
    out.append((v.train_open[TR_MEXICAN], v.train_len[TR_MEXICAN], True))
    return tuple(out)


cdef object _pending_of(int layout, int pending):
    if pending < 0:
        return None
    if layout == LAYOUT_TRAINS:
        return _TRAIN_NAMES[pending]
    return _TEXTS[pending]


cdef tuple _open_ends_of(const TrainSnap* v):
    """The targets open to the seat to move in v (see ``TrainRound.open_ends``)."""
    cdef int t, val
    cdef W128 ends
    if v.status != TR_PLAYING:
        return ()
    if v.layout == LAYOUT_TRAINS:
        return tuple([(_TRAIN_NAMES[t], v.train_open[t])
                      for t in range(TR_MEXICAN + 1) if v.open_trains >> t & 1])
    out = []
    for val in range(v.set_max + 1):
        ends = v.anchors[val]
        while w_any(ends):
            out.append((w_first(ends), val))
            ends = w_rest(ends)
    out.sort()
    return tuple([(_TEXTS[t], val) for t, val in out])


cdef Py_ssize_t _own_before(bytearray own, Py_ssize_t n):
    """How many of the draws in ``own`` come before log index n (they are in log order)."""
    cdef const OwnDraw* d = <const OwnDraw*>PyByteArray_AS_STRING(own)
    cdef Py_ssize_t k = 0, m = len(own) // _OWN
    while k < m and d[k].index < n:
        k += 1
    return k


cdef class TrainSeatView:
    """The fields of what one seat may know of a train round, as a compiled base class:
    ``TrainRound.observation`` copies a few plain values (O(1)), and each tuple is made from
    them when first read.  :class:`bones.observation.TrainObservation` adds the methods;
    docs/bots.md lists the fields."""

    def __cinit__(self, *args, **fields):
        # Made by TrainRound.observation (with the token) or from its fields by name
        # (TrainObservation(seat=..., ...)): an empty view from __new__ would show a round
        # that never was.
        if not fields and (len(args) != 1 or args[0] is not _NEW):
            raise TypeError("use round.observation(seat), TrainObservation.from_msgpack(b) "
                            "or TrainObservation(**fields)")

    def _give(self, seat, layout, set_max, engine, players, leader, to_move, hand,
              hand_sizes, stock_size, trains, pending, open_ends, placements, log,
              legal_moves, zero_double, first_turn_own_train, engine_toes, result,
              variant=None, options=None, scores=None):
        """Set every field as given (a decoded message; the decoder checked them)."""
        if self.given or self._pub is not None:
            raise TypeError("a TrainObservation's fields are set once")
        self.given = True
        self._variant = variant
        self._options = {} if options is None else dict(options)
        self._scores = (0,) * players if scores is None else tuple(scores)
        self.v.seat = seat
        self.v.layout = LAYOUTS.index(layout)
        self.v.set_max = set_max
        self.v.engine = engine
        self.v.players = players
        self.v.leader = leader
        self.v.stock_size = stock_size
        self.v.zero_double = zero_double
        self.v.first_turn_own = first_turn_own_train
        self.v.engine_toes = engine_toes
        self._to_move = to_move
        self._hand = tuple(hand)
        self._hand_sizes = tuple(hand_sizes)
        self._trains = tuple(trains)
        self._pending = pending
        self._open_ends = tuple(open_ends)
        self._placements = tuple(placements)
        self._log = tuple(log)
        self._legal = tuple(legal_moves)
        self._result = result

    @property
    def seat(self):
        """The seat this view belongs to."""
        return self.v.seat

    @property
    def variant(self):
        """The name of the variant the round was dealt for."""
        if self._variant is not None:
            return self._variant
        return "mexican-train" if self.v.layout == LAYOUT_TRAINS else "chicken-foot"

    @property
    def options(self):
        """The variant's options the round was dealt with, as given (a copy)."""
        return {} if self._options is None else dict(self._options)

    @property
    def scores(self):
        """Per seat, the game scores before the round (with the round's penalties once it
        is over), as the round's ``scores``."""
        return (0,) * self.v.players if self._scores is None else self._scores

    @property
    def side(self):
        """The seat's side: itself (every seat plays for itself in the train games)."""
        return self.v.seat

    @property
    def is_over(self):
        """Whether the round has ended."""
        return self._result is not None

    @property
    def layout_name(self):
        """``"trains"`` (Mexican Train) or ``"chicken_foot"``: the table's kind."""
        return LAYOUTS[self.v.layout]

    @property
    def layout(self):
        """The tiles placed, in play order: a ``TrainLayout`` (a tuple of ``TrainMove``
        with the table's ``name``), as every family's ``layout``."""
        if self._pub is None:  # a given view: from its placements
            return TrainLayout([TrainMove.parse(f"{tile}@{target}")
                                for _, tile, target in self.placements], LAYOUTS[self.v.layout])
        return _layout_of(self._pub, self.v.n_events, self.v.layout)

    @property
    def events(self):
        """The public events, as the round's ``events`` gives them (``Event("play", seat,
        move)``, ``Event("draw", seat, count=1)``, ``Event("pass", seat)``): what every
        seat saw, its own draws' tiles left out as everyone else's are."""
        out = []
        for kind, seat, tile, target in self.log:
            if kind == "place":
                out.append(Event("play", seat, TrainMove.parse(f"{tile}@{target}")))
            elif kind == "draw":
                out.append(Event("draw", seat, None, 1))
            else:
                out.append(Event("pass", seat))
        return tuple(out)

    @property
    def set_max(self):
        """N of the double-N set (6, 9 or 12)."""
        return self.v.set_max

    @property
    def engine(self):
        """The engine double's number."""
        return self.v.engine

    @property
    def players(self):
        return self.v.players

    @property
    def leader(self):
        """The seat that moved first."""
        return self.v.leader

    @property
    def to_move(self):
        """The seat to move, None once the round is over."""
        return self._to_move

    @property
    def hand(self):
        """This seat's tiles (SetTile, the type of ``legal_moves[i].tile``), index order."""
        if self._hand is None:
            self._hand = _tiles(self.v.hand)
        return self._hand

    @property
    def hand_sizes(self):
        """Tiles held, per seat."""
        if self._hand_sizes is None:
            self._hand_sizes = tuple([self.v.sizes[i] for i in range(self.v.players)])
        return self._hand_sizes

    @property
    def stock_size(self):
        """Tiles left in the boneyard (not their order)."""
        return self.v.stock_size

    @property
    def trains(self):
        """Trains layout: per train, P0 ... P(players-1) then M, ``(open number, tiles,
        public)``; () in Chicken Foot."""
        if self._trains is None:
            self._trains = _trains_of(&self.v)
        return self._trains

    @property
    def pending(self):
        """The double that must be satisfied (its target), or whose toes are due; None."""
        return self._pending

    @property
    def open_ends(self):
        """``(target, open number)`` the seat to move may place on (hands ignored)."""
        if self._open_ends is None:
            self._open_ends = _open_ends_of(&self.v) if self.v.players else ()
        return self._open_ends

    @property
    def placements(self):
        """``(seat, tile text, target)`` of every tile placed, in play order."""
        if self._placements is None:  # a view from a round (given views have theirs)
            self._placements = _placements_of(self._pub, self.v.n_events, self.v.layout)
        return self._placements

    @property
    def log(self):
        """The round's log as this seat sees it, ``(kind, seat, tile, target)``: its own
        draws show the tile drawn, the others' are None."""
        if self._log is None:  # a view from a round (given views have theirs)
            self._log = _log_entries(self._pub, self.v.n_events, self._own, self.v.n_own,
                                     self.v.seat, self.v.layout)
        return self._log

    @property
    def legal_moves(self):
        """This seat's legal moves (TrainMove) when it is to move, else (); the same
        objects that ``choose`` gets."""
        return () if self._legal is None else self._legal

    @property
    def zero_double(self):
        """What 0-0 counts in a hand at the end (0 or 50)."""
        return self.v.zero_double

    @property
    def first_turn_own_train(self):
        return bool(self.v.first_turn_own)

    @property
    def engine_toes(self):
        return self.v.engine_toes

    @property
    def result(self):
        """The TrainResult once the round is over, else None."""
        return self._result


cdef TrainRound _build(tuple opt, list hands, list stock, object leader, bint partial):
    """A round from checked options and tile indices; ValueError naming what is wrong."""
    cdef int layout = opt[0], set_max = opt[1], engine = opt[2], n = len(hands), i, t
    cdef int e_tile = WIDE_DOUBLE[engine], size
    cdef W128 masks[8]
    cdef W128 seen = w_zero(), in_set = WIDE_SET[set_max]
    cdef uint8_t stock_c[91]
    if not 2 <= n <= 8:
        raise ValueError(f"hands: 2 to 8 players (one hand per seat), got {n}")
    cdef int lead = _seat(leader, n, "leader")
    where = {}
    for i in range(n):
        masks[i] = w_zero()
        for t in hands[i]:
            if not 0 <= t < 91:
                raise ValueError(f"hands[{i}]: no tile {t}")
            _check_tile(t, set_max, e_tile, f"hands[{i}]")
            if w_has(seen, t):
                raise ValueError(f"tile {wide_tile(t)} is dealt twice ({where[t]} and "
                                 f"hands[{i}])")
            where[t] = f"hands[{i}]"
            w_set(&seen, t)
            w_set(&masks[i], t)
        if not w_any(masks[i]):
            raise ValueError(f"hands[{i}] is empty")
    if len(stock) > 90:
        raise ValueError(f"stock: {len(stock)} tiles, more than any set holds")
    for i, t in enumerate(stock):
        if not 0 <= t < 91:
            raise ValueError(f"stock: no tile {t}")
        _check_tile(t, set_max, e_tile, "stock")
        if w_has(seen, t):
            raise ValueError(f"tile {wide_tile(t)} is dealt twice ({where[t]} and stock)")
        where[t] = "stock"
        w_set(&seen, t)
        stock_c[i] = t
    problem = None  # why the deal is not a full deal
    size = w_count(masks[0])
    for i in range(1, n):
        if w_count(masks[i]) != size:
            problem = (f"hands: seat 0 holds {size} tiles, seat {i} {w_count(masks[i])}; a "
                       f"full deal gives every seat the same number")
            break
    missing = w_andnot(w_andnot(in_set, seen), w_bit(e_tile))
    if problem is None and w_any(missing):
        problem = (f"stock: the hands and the stock hold {w_count(seen)} of the "
                   f"{ts_set_tiles(set_max) - 1} tiles of the {_set_name(set_max)} set less "
                   f"the engine ({wide_tile(w_first(missing))} is missing); a full deal "
                   f"deals them all")
    if problem is not None and not partial:
        raise ValueError(f"{problem} (pass partial=True for a hand-made position)")
    cdef TrainRound self = TrainRound.__new__(TrainRound, _NEW)
    self.partial = problem is not None
    ts_init(self.st, layout, set_max, engine, n, opt[3], opt[4], opt[5], masks, stock_c,
            len(stock), lead)
    return self


cdef int _check_tile(int t, int set_max, int e_tile, str what) except -1:
    if WIDE_HI[t] > set_max:
        raise ValueError(f"{what}: tile {wide_tile(t)} is not in the {_set_name(set_max)} set")
    if t == e_tile:
        raise ValueError(f"{what}: {wide_tile(t)} is the engine double, which starts on the "
                         f"table")
    return 0


# --- random playouts ----------------------------------------------------------------------

def random_playouts(layout, set_max, players, hand_size, n_rounds, seed=0, engine=None,
                    zero_double=None, first_turn_own_train=None, engine_toes=None):
    """Play ``n_rounds`` random rounds (each choice uniform over the legal moves, the leader
    rotating from seat 0) with the GIL released.  Returns ``{"rounds", "blocked",
    "plies", "events", "max_events", "seconds"}``: ``plies`` counts the placements (the
    moves), ``events`` placements, draws and passes."""
    cdef tuple opt = _options(layout, set_max, engine, zero_double, first_turn_own_train,
                              engine_toes)
    cdef int n_players = _players(players)
    cdef int size = _hand_size(hand_size, n_players, opt[1])
    cdef long rounds, plies, blocked = 0, events = 0, max_events = 0
    cdef int lay = opt[0], smax = opt[1], eng = opt[2], zd = opt[3], ft = opt[4], toes = opt[5]
    cdef uint64_t rng = rng_seed(<uint64_t>(_int(seed, "seed") & 0xFFFFFFFFFFFFFFFF))
    cdef double t0, t1
    cdef TrainState* s
    n_rounds = _int(n_rounds, "n_rounds")
    if not 0 <= n_rounds <= 1 << 40:
        raise ValueError(f"n_rounds must be 0..2**40, got {n_rounds}")
    rounds = n_rounds
    s = <TrainState*>PyMem_Malloc(sizeof(TrainState))
    if s is NULL:
        raise MemoryError()
    try:
        with nogil:
            t0 = monotonic()
            plies = ts_playout(s, lay, smax, eng, n_players, size, zd, ft, toes, &rng, rounds,
                               &blocked, &events, &max_events)
            t1 = monotonic()
    finally:
        PyMem_Free(s)
    return {"rounds": rounds, "blocked": blocked, "plies": plies, "events": events,
            "max_events": max_events, "seconds": t1 - t0}
