"""``Round``: one round of any variant, with python-chess-like make/unmake."""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.number cimport PyIndex_Check, PyNumber_Index
from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.string cimport memcpy
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t

import msgpack


cdef extern from "Python.h":
    object PyType_GenericAlloc(PyTypeObject* type, Py_ssize_t nitems)
    object _new_instance "__bones_new_instance" (object type)

cdef extern from *:
    """
    /* An instance of a class, made by its tp_new with no arguments (the class is a
       Python subclass of a compiled class whose tp_new does all the work). */
    static PyObject *__bones_new_instance(PyObject *type) {
        PyObject *args = PyTuple_New(0);
        PyObject *out;
        if (args == NULL) return NULL;
        out = ((PyTypeObject *)type)->tp_new((PyTypeObject *)type, args, NULL);
        Py_DECREF(args);
        return out;
    }
    """

from bones.core.actions cimport space_of
from bones.core.geometry cimport Spot
from bones.core.moves cimport Move, move_code, move_of
from bones.core.rng cimport rng_seed, splitmix64
from bones.core.rules cimport OPEN_DOUBLES, OPEN_RANDOM, CompiledRules, Rules, compile_rules

from bones.core.scorer cimport call_scorer
from bones.core.seatview cimport SeatView
from bones.core.tensor cimport returns_of, spec_of
from bones.core.state cimport (
    CLAIM_BIT, KIND_DOUBLE_DOUBLE, KIND_DRAW, KIND_MUGGINS, KIND_PASS, MAX_PLIES, PLAYING, Outcome,
    Ply, State, kind_of,
    add_points, apply_move, chip_point, count_points, deal_random, find_move, finish_move,
    header_size, lay, layout_count, opening, outcome, play, played_size, state_init, undo,
)
from bones.core.tiles cimport (
    ALL_TILES, mask_pips, popcount, tile_at, tiles_of_mask, to_mask, to_tile_index,
)

from bones.core.moves import END_NAMES
from bones.errors import BonesError, IllegalMove, OptionError
from bones.records import Event, Placement, RoundResult

SCHEMA_VERSION = 5          # a round of a full deal: field 11 is whether the rule opened it
PARTIAL_SCHEMA_VERSION = 6  # a round of a partial deal: field 12 is True
# Versions 3 and 4 (full, partial) are without field 11: whether the opening rule chose the
# leader is derived from the deal.  Versions 1 and 2 are those written before the bounded
# table: their rounds keep the geometry they were played with (pre_geometry_options).
MAX_SCORE = 1_000_000_000   # the largest game score a round accepts (either sign)
_ROUND_FIELDS = {1: 11, 2: 12, 3: 11, 4: 12, 5: 12, 6: 13}  # by schema version
_PACKER = msgpack.Packer(use_bin_type=True)
_REASONS = (None, "out", "blocked", "target")
_MASK64 = (1 << 64) - 1


def derive_seed(seed, stream, index):
    """``splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index) >> 1``, arithmetic
    modulo 2**64 (docs/game.md): the seeds a game and a match derive, the same everywhere."""
    cdef uint64_t x = splitmix64(<uint64_t>(seed & _MASK64))
    x = splitmix64(x ^ <uint64_t>(stream & _MASK64))
    return splitmix64(x ^ <uint64_t>(index & _MASK64)) >> 1


cdef object _NEW = object()  # the token that lets this module construct rounds and views
cdef int _MAX_BYTES = 1 << 16  # no round's msgpack comes near this
cdef long _MAX_SCORE = MAX_SCORE  # C copies of the limits, for checks without a lookup
cdef tuple _END_PAIRS = tuple(tuple((name, v) for v in range(7)) for name in END_NAMES)
cdef object _Observation = None  # bones.core.observation.Observation, imported on first use


cdef inline void _put(object tup, Py_ssize_t i, object item):
    Py_INCREF(item)  # PyTuple_SET_ITEM steals a reference
    PyTuple_SET_ITEM(tup, i, item)


cdef tuple _int_tuple(const int32_t* values, int n):
    """``tuple(values[:n])``, made without a list."""
    cdef tuple out = PyTuple_New(n)
    cdef object item
    cdef int i
    for i in range(n):
        item = values[i]
        _put(out, i, item)
    return out


cdef object _event(str kind, int seat, object move, int count, int points):
    """An Event (a NamedTuple: a tuple subclass) made without calling its Python __new__."""
    cdef object ev = PyType_GenericAlloc(<PyTypeObject*>Event, 5)
    _put(ev, 0, kind)
    _put(ev, 1, seat)
    _put(ev, 2, move)
    _put(ev, 3, count)
    _put(ev, 4, points)
    return ev


cdef class LegalMoves:
    """A live, read-only sequence of the legal moves of the seat to move."""

    cdef Round _round

    def __cinit__(self, *args):
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError("LegalMoves is a view of a round: use round.legal_moves")

    def __len__(self):
        return self._round.st.n_moves

    def __bool__(self):
        return self._round.st.n_moves > 0

    def __getitem__(self, index):
        cdef Py_ssize_t n = self._round.st.n_moves, i
        if isinstance(index, slice):
            return [move_of(self._round.st.moves[j]) for j in range(*index.indices(n))]
        try:
            i = index
        except OverflowError:
            raise IndexError("legal move index out of range") from None
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("legal move index out of range")
        return move_of(self._round.st.moves[i])

    def __iter__(self):
        return iter([move_of(self._round.st.moves[i]) for i in range(self._round.st.n_moves)])

    def __contains__(self, move):
        try:
            code = move_code(move)
        except (TypeError, ValueError):
            return False
        return find_move(self._round.st, code) >= 0

    def __eq__(self, other):
        try:
            return list(self) == list(other)
        except TypeError:
            return NotImplemented

    def __repr__(self):
        return f"<LegalMoves ({', '.join(str(m) for m in self)})>"


cdef object _as_int(object value, str what, int index=-1):
    """value as an int: TypeError for a bool or anything that is not an integer (``what``,
    or ``what[index]`` when index >= 0, names it)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not PyIndex_Check(value):
        if index >= 0:
            what = f"{what}[{index}]"
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return PyNumber_Index(value)


cdef CompiledRules _rules_for(object variant, object players, dict options):
    """compile_rules, with a variant that is not a name or a player count that is not an
    int refused as ``Variant.resolve`` refuses them (OptionError)."""
    if type(variant) is str and type(players) is int and 0 <= players <= 8:
        return compile_rules(<str>variant, <int>players, options)
    if isinstance(variant, str) and isinstance(players, int) and not isinstance(players, bool) \
            and 0 <= players <= 8:  # subclasses (StrEnum, IntEnum): their plain values
        return compile_rules(str.__str__(variant), int(players), options)
    from bones.registry import variant as lookup

    lookup(variant).resolve(players, **options)
    raise OptionError(f"a variant is given by its name, not a {type(variant).__name__}")


cdef int _seat_arg(object seat, int players, str what) except -1:
    seat = _as_int(seat, what)
    if not 0 <= seat < players:
        raise ValueError(f"{what} must be a seat 0..{players - 1}, got {seat}")
    return seat


cdef uint64_t _seed_arg(object seed) except? 0:
    return <uint64_t>(_as_int(seed, "seed") & 0xFFFFFFFFFFFFFFFF)


cdef int _scores_arg(object scores, int n_sides, int32_t* out) except -1:
    """Check scores (None, or one int per side) into out."""
    cdef int i
    cdef long long x
    for i in range(4):
        out[i] = 0
    if scores is None:
        return 0
    if type(scores) is not list and type(scores) is not tuple:
        if isinstance(scores, (str, bytes)):
            raise TypeError(f"scores must be a sequence of ints, one per side, not "
                            f"{type(scores).__name__}")
        try:
            scores = tuple(scores)
        except TypeError:
            raise TypeError(f"scores must be a sequence of ints, one per side, not "
                            f"{type(scores).__name__}") from None
    if len(scores) != n_sides:
        raise ValueError(f"scores needs one number per side ({n_sides}), got {len(scores)}")
    for i in range(n_sides):
        v = _as_int(scores[i], "scores", i)
        try:
            x = v
        except OverflowError:
            x = _MAX_SCORE + 1
        if not -_MAX_SCORE <= x <= _MAX_SCORE:
            raise ValueError(f"scores[{i}] is out of range (at most {MAX_SCORE:_} either way)")
        out[i] = <int32_t>x
    return 0


cdef object _deal_problem(CompiledRules rules, const uint32_t* masks, uint32_t seen):
    """Why hands + stock (``seen``: every tile dealt) are not a full deal of the rules,
    or None.  A full deal gives each seat hand_size tiles and, where the variant draws,
    every other tile to the stock (Block: the rest are out of play)."""
    cdef int i, n, size = rules.c.hand_size
    for i in range(rules.c.players):
        n = popcount(masks[i])
        if n != size:
            return (f"seat {i} is dealt {n} tile{'' if n == 1 else 's'}; {rules.variant.name} with "
                    f"{rules.c.players} players deals {size}")
    if rules.c.draws and seen != ALL_TILES:
        return (f"the hands and the stock hold {popcount(seen)} of the 28 tiles; "
                f"{rules.variant.name} deals every tile (the rest is the stock)")
    return None


cdef int _scaled(CompiledRules rules, int points, int side_score) noexcept:
    """What add_points (state.pyx) adds for points: score_scale, then exact_target."""
    if rules.c.score_scale > 1:
        points //= rules.c.score_scale
    if rules.c.target > 0 and rules.c.exact_target and side_score + points > rules.c.target:
        return 0
    return points


cdef class Round:
    """One round: the deal, the table, whose turn, and the moves so far.

    Build one with ``Round.deal`` (a seeded random deal) or ``Round.from_deal`` (explicit
    hands, to replay a game from elsewhere).  ``play`` and ``undo`` make and unmake moves
    without allocating; the forced draws and passes that follow a move are part of it.
    """

    def __cinit__(self, *args):
        # Only this module makes rounds (Round.deal, from_deal, from_msgpack, copy): a
        # Round.__new__(Round) from Python would have no rules and no state.
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError(
                "use Round.deal(...), Round.from_deal(...) or Round.from_msgpack(...)")
        # Not zeroed: state_init sets every field that is read before it is written, and
        # the undo stack and move list are read only up to their counts.
        self.st = <State*>PyMem_Malloc(sizeof(State))
        if self.st is NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.st)

    def __init__(self, *args, **kwargs):
        raise TypeError("use Round.deal(...), Round.from_deal(...) or Round.from_msgpack(...)")

    @classmethod
    def deal(cls, variant, players=2, seed=0, leader=None, lead_tile=None, scores=None,
             **options):
        """A random deal from ``seed`` (the same on every machine).  ``leader=None``
        applies the variant's first-round rule.  A line variant only (OtherCore, an
        OptionError, for another family's): ``bones.Round.deal`` deals every family's."""
        cdef CompiledRules rules = _rules_for(variant, players, options)
        cdef Round self = Round.__new__(Round, _NEW)
        cdef int32_t sc[4]
        cdef uint64_t rng = rng_seed(_seed_arg(seed))
        cdef int lead = -1 if leader is None else _seat_arg(leader, rules.c.players, "leader")
        _scores_arg(scores, rules.c.n_sides, sc)
        self.rules = rules
        deal_random(self.st, &rules.c, &rng, sc, lead)
        if lead_tile is not None:
            self._force_lead(lead_tile)
        return self

    @classmethod
    def from_deal(cls, variant, hands, stock=(), leader=None, lead_tile=None,
                  scores=None, moves=None, seed=0, partial=False, **options):
        """A round from an explicit deal: ``hands`` one list of tiles per seat, ``stock``
        top first.  ``leader=None`` applies the variant's first-round rule (a random one
        drawn from ``seed``); ``moves`` are replayed in order.

        The deal must be a full deal of the variant (each hand of its hand size and, where
        it draws, every other tile in the stock) unless ``partial=True``, which allows any
        non-empty hands and any stock (worked examples; ``is_partial`` then says so)."""
        cdef int players, i, lead = 0, forced = -1
        cdef CompiledRules rules
        cdef Round self
        cdef uint32_t masks[4]
        cdef uint32_t seen = 0
        cdef uint8_t stock_idx[28]
        cdef int32_t sc[4]
        cdef uint64_t rng
        if type(partial) is not bool:
            raise TypeError(f"partial must be True or False, not {type(partial).__name__}")
        rng = rng_seed(_seed_arg(seed))
        if isinstance(hands, (str, bytes)):
            raise TypeError("hands must be one list of tiles per seat, not a string")
        hands = list(hands)
        players = len(hands)
        rules = _rules_for(variant, players, options)
        for i in range(4):
            masks[i] = 0
        for i in range(players):
            if isinstance(hands[i], (str, bytes)):
                raise TypeError(f"seat {i}'s hand must be a list of tiles, not a string")
            masks[i] = to_mask(hands[i])
            if masks[i] & seen:
                raise ValueError(f"tile {tiles_of_mask(masks[i] & seen)[0]} is dealt twice")
            if not masks[i]:
                raise ValueError(f"seat {i} has an empty hand")
            seen |= masks[i]
        if isinstance(stock, (str, bytes)):
            raise TypeError("stock must be a list of tiles, not a string")
        stock = list(stock)
        if stock and not rules.c.draws:
            raise ValueError(f"{variant} never draws: the stock must be empty")
        if len(stock) > 28:
            raise ValueError(f"a stock of {len(stock)} tiles: the set has 28")
        for i, tile in enumerate(stock):
            stock_idx[i] = to_tile_index(tile)
            if seen >> stock_idx[i] & 1:
                raise ValueError(f"tile {tile_at(stock_idx[i])} is dealt twice")
            seen |= 1u << stock_idx[i]
        problem = _deal_problem(rules, masks, seen)
        if problem is not None and not partial:
            raise ValueError(f"not a full deal: {problem} (pass partial=True for a partial "
                             f"deal)")
        _scores_arg(scores, rules.c.n_sides, sc)
        if leader is None:
            if rules.c.opening == OPEN_DOUBLES:
                opening(&rules.c, masks, &lead, &forced)
            elif rules.c.opening == OPEN_RANDOM:
                lead = <int>((rng >> 32) * players >> 32)
        else:
            lead = _seat_arg(leader, players, "leader")
        if isinstance(moves, (str, bytes)):
            raise TypeError("moves must be a list of moves, not a string")
        self = Round.__new__(Round, _NEW)
        self.rules = rules
        self.partial = problem is not None
        state_init(self.st, &rules.c, masks, stock_idx, len(stock), lead, forced, sc)
        self.st.by_rule = leader is None and rules.c.opening == OPEN_DOUBLES
        if lead_tile is not None:
            self._force_lead(lead_tile)
        if moves:
            self._replay_moves(moves)
        return self

    def _replay_moves(self, moves):
        cdef uint32_t codes[MAX_PLIES]
        cdef int n = 0
        for move in moves:
            if n == MAX_PLIES:
                raise IllegalMove(f"more than {MAX_PLIES} moves in one round")
            try:
                codes[n] = move_code(move)
            except (TypeError, ValueError) as exc:
                raise IllegalMove(f"move {n + 1} of the replay: {exc}") from None
            n += 1
        self._replay(codes, n)

    def _force_lead(self, tile):
        cdef int t = to_tile_index(tile)
        self._check_idle()
        if not self.st.hand[self.st.leader] >> t & 1:
            raise ValueError(f"the leader (seat {self.st.leader}) does not hold {tile_at(t)}")
        self.st.lead_tile = t
        state_init(self.st, self.st.r, self.st.hand0, self.st.stock, self.st.stock_len,
                   self.st.leader, t, self.st.score0)
        self._forget_events(0)

    cdef void _replay(self, const uint32_t* codes, int n) except *:
        cdef int k, i
        for k in range(n):
            i = find_move(self.st, codes[k]) if self.st.status == PLAYING else -1
            if i < 0:
                raise IllegalMove(f"move {k + 1} of the replay, {move_of(codes[k])}, is "
                                  f"illegal{self._legal_text()}")
            self._play_code(self.st.moves[i])

    # --- playing ---------------------------------------------------------------------

    @property
    def legal_moves(self):
        """The legal moves of the seat to move (a live view; empty once the round is over)."""
        if self._legal is None:
            view = LegalMoves.__new__(LegalMoves, _NEW)
            (<LegalMoves>view)._round = self
            self._legal = view
        return self._legal

    def play(self, move):
        """Make ``move`` (a Move, its text or an action index) for the seat to move; the
        forced draws and passes that follow are applied before this returns.  Anything that
        is not a legal move raises IllegalMove; whatever ``play`` raises, the round is
        unchanged."""
        cdef uint32_t code
        cdef int i
        if PyIndex_Check(move):  # an action index (a bool is refused as one)
            if self.st.status != PLAYING:
                raise IllegalMove(f"action {move!r:.20}: the round is over")
            self._play_code(space_of(self.rules).legal_code(self.st, move))
            return
        try:
            code = move_code(move)
        except (TypeError, ValueError) as exc:
            raise IllegalMove(f"{exc}{self._legal_text()}") from None
        if self.st.status != PLAYING:
            raise IllegalMove(f"{move_of(code)}: the round is over")
        i = find_move(self.st, code)
        if i < 0:
            raise IllegalMove(f"{move_of(code)} is not legal for seat {self.st.to_move}"
                              f"{self._legal_text()}")
        self._play_code(self.st.moves[i])

    @property
    def action_space(self):
        """The variant's fixed ActionSpace (docs/envs.md)."""
        return space_of(self.rules)

    @property
    def legal_actions(self):
        """The legal moves of the seat to move as action indices, ascending."""
        return space_of(self.rules).legal(self.st)

    def action_mask(self, out=None):
        """The legal actions as a mask of ``action_space.size`` bytes (1: legal), written
        into ``out`` (a writable buffer: a numpy bool/uint8 array, a bytearray) or a new
        bytearray."""
        return space_of(self.rules).mask(self.st, out)

    @property
    def tensor_spec(self):
        """The layout of ``observation_tensor`` (a TensorSpec; docs/envs.md)."""
        return spec_of(self.rules)

    def observation_tensor(self, seat, out=None):
        """What ``seat`` may know as ``tensor_spec.size`` float32 values, written into
        ``out`` (a writable float32 buffer: a numpy array, an array.array("f")) or a new
        array.array("f")."""
        return spec_of(self.rules).write(self.st, self._check_seat(seat), out)

    def returns(self):
        """Per seat, its side's gain this round less the other sides' mean gain (zero-sum;
        docs/envs.md): the final returns once the round is over."""
        return returns_of(self.st)

    cdef void _play_code(self, uint32_t code) except *:
        """Make a legal move; atomic: when it raises, the round is as before."""
        if self._scoring:
            self._check_idle()
        if self.st.n_plies >= MAX_PLIES:
            raise IllegalMove(f"{move_of(code)}: a round holds at most {MAX_PLIES} moves")
        if not self.rules.c.python_scorer:
            play(self.st, code)
        else:
            self._play_scored(code)

    cdef void _play_scored(self, uint32_t code) except *:
        """``_play_code`` for a variant with a Python move_scorer (kept apart so that the
        common path stays short)."""
        cdef Ply* p
        cdef int points
        apply_move(self.st, code)
        p = &self.st.plies[self.st.n_plies - 1]
        if kind_of(code) <= KIND_DOUBLE_DOUBLE:
            try:
                points = self._python_points(code, p.count) + chip_point(self.st, p.seat)
            except BaseException:
                undo(self.st)  # the move is not finished: no forced events to unmake
                self._forget_events(self.st.n_plies)
                raise
            if points:
                add_points(self.st, p.seat, points)
        finish_move(self.st)

    cdef int _python_points(self, uint32_t code, int count) except? -1:
        """The variant's move_scorer on the move just applied (the layout before it)."""
        layout = self.layout
        self._scoring = True
        try:
            return call_scorer(self.rules, layout[:len(layout) - 1], move_of(code), count)
        finally:
            self._scoring = False

    def _check_idle(self):
        if self._scoring:
            raise BonesError(f"variant {self.rules.variant.name!r}: its move_scorer may "
                             "not play, undo or copy the round it is scoring")

    def _legal_text(self):
        if self.st.status != PLAYING:
            return " (the round is over)"
        return "; legal: " + ", ".join(str(m) for m in self.legal_moves)

    def undo(self):
        """Unmake the last move (and the forced events after it); returns that move."""
        if self._scoring:
            self._check_idle()
        if self.st.n_plies == 0:
            raise IndexError("undo: no move has been played")
        cdef uint32_t code = self.st.plies[self.st.n_plies - 1].move
        undo(self.st)
        self._forget_events(self.st.n_plies)
        return move_of(code)

    def copy(self):
        """An independent copy (same rules object, own state)."""
        if self._scoring:
            self._check_idle()
        cdef Round other = Round.__new__(Round, _NEW)
        other.rules = self.rules
        other.partial = self.partial
        memcpy(other.st, self.st, played_size(self.st))  # the position and the plies made
        return other

    # --- what the engine knows ------------------------------------------------------

    @property
    def variant(self):
        return self.rules.variant.name

    @property
    def options(self):
        """Every option of the variant as resolved for this round."""
        return dict(self.rules.options)

    @property
    def players(self):
        return self.rules.c.players

    @property
    def sides(self):
        """The seats of each side: ((0, 2), (1, 3)) with partnerships."""
        return self.rules.sides

    def side_of(self, seat):
        return self.rules.c.side_of[self._check_seat(seat)]

    def _check_seat(self, seat):
        seat = _as_int(seat, "seat")
        if not 0 <= seat < self.rules.c.players:
            raise ValueError(f"no seat {seat}: seats are 0..{self.rules.c.players - 1}")
        return seat

    @property
    def to_move(self):
        """The seat to move, or None once the round is over."""
        return self.st.to_move if self.st.status == PLAYING else None

    @property
    def leader(self):
        return self.st.leader

    @property
    def lead_tile(self):
        """The tile the leader must lead, or None when any tile may lead."""
        return tile_at(self.st.lead_tile) if self.st.lead_tile >= 0 else None

    @property
    def opening(self):
        """Whether the variant's first-round opening rule chose the leader (and the lead):
        ``Round.deal``/``from_deal`` with ``leader=None`` under a doubles opening.  It is
        public (``Observation.opening``), and tells the sampler that no seat was dealt a
        tile the rule ranks above the opener."""
        return bool(self.st.by_rule)

    def hand(self, seat):
        """The tiles in seat's hand (the engine's view: bots get observations)."""
        return tiles_of_mask(self.st.hand[<int>self._check_seat(seat)])

    def dealt_hand(self, seat):
        """The tiles dealt to seat (the engine's view)."""
        return tiles_of_mask(self.st.hand0[<int>self._check_seat(seat)])

    @property
    def dealt_stock(self):
        """The boneyard as dealt, top first (the engine's view)."""
        return tuple(tile_at(self.st.stock[i]) for i in range(self.st.stock_len))

    @property
    def dealt_scores(self):
        """Per side, the game's scores the round was dealt with."""
        return tuple([self.st.score0[i] for i in range(self.rules.c.n_sides)])

    def hand_pips(self, seat):
        """The pips in seat's hand (the engine's view)."""
        return mask_pips(self.st.hand[<int>self._check_seat(seat)])

    @property
    def hand_sizes(self):
        return self._hand_sizes()

    cdef tuple _hand_sizes(self):
        cdef int32_t sizes[4]
        cdef int i
        for i in range(self.rules.c.players):
            sizes[i] = popcount(self.st.hand[i])
        return _int_tuple(sizes, self.rules.c.players)

    @property
    def stock_size(self):
        return self.st.stock_len - self.st.stock_top

    @property
    def stock(self):
        """The boneyard, top first (the engine's view: never shown to a bot)."""
        return tuple(tile_at(self.st.stock[i]) for i in range(self.st.stock_top, self.st.stock_len))

    @property
    def ends(self):
        """The ends a tile may be placed on now, as (name, open number) pairs."""
        return self._ends()

    cdef tuple _ends(self):
        cdef int e, n = 0
        for e in range(self.st.n_ends):
            n += self.st.ends[e].live != 0
        cdef tuple out = PyTuple_New(n)
        cdef object pair
        n = 0
        for e in range(self.st.n_ends):
            if self.st.ends[e].live:
                pair = _END_PAIRS[e][self.st.ends[e].v]  # one shared (name, number) tuple
                Py_INCREF(pair)
                PyTuple_SET_ITEM(out, n, pair)
                n += 1
        return out

    @property
    def count(self):
        """The All Fives count of the layout (RULES.md 2.6)."""
        return layout_count(self.st) if self.st.n_placed else 0

    @property
    def moves(self):
        """Every move made so far, draws and passes by choice included."""
        return tuple([move_of(self.st.plies[i].move) for i in range(self.st.n_plies)])

    def moves_text(self):
        """``" ".join(map(str, round.moves))``, made in the core (a journal stores it for
        every round)."""
        cdef list parts = []
        cdef Move m
        cdef int i
        for i in range(self.st.n_plies):
            m = move_of(self.st.plies[i].move)
            if m._text is None:
                m._text = m._make_text()
            parts.append(m._text)
        return " ".join(parts)

    @property
    def layout(self):
        """The placements on the table, in play order."""
        return tuple(self._layout_list())

    cdef list _layout_list(self):
        """The cached placements, extended to the plies made since the last call."""
        cdef int i
        if self._layout is None:
            self._layout = []
            self._layout_plies = 0
        for i in range(self._layout_plies, self.st.n_plies):
            if kind_of(self.st.plies[i].move) <= KIND_DOUBLE_DOUBLE:
                self._layout.append(move_of(self.st.plies[i].move))
        self._layout_plies = self.st.n_plies
        return self._layout

    @property
    def placements(self):
        """Where each tile of the layout lies, in play order (a tuple of ``Placement``;
        docs/geometry.md).  Computed from the layout moves when asked."""
        cdef uint32_t codes[MAX_PLIES]
        cdef int n = 0, i
        for i in range(self.st.n_plies):
            if kind_of(self.st.plies[i].move) <= KIND_DOUBLE_DOUBLE:
                codes[n] = self.st.plies[i].move
                n += 1
        return _placements(self.rules, codes, n)[0]

    @property
    def table(self):
        """The bounded table as ``(x_min, y_min, x_max, y_max)`` in grid units, or None for
        an unbounded one."""
        return _table_of(self.rules)

    @property
    def closed_ends(self):
        """The names of the ends the bounded table has closed (RULES.md 3.4 G1)."""
        if not self.st.closed:
            return ()
        return tuple([END_NAMES[e] for e in range(self.st.n_ends) if self.st.closed >> e & 1])

    @property
    def scores(self):
        """Per side: the game score before the round plus what this round scored so far."""
        return self._scores()

    cdef tuple _scores(self):
        return _int_tuple(self.st.score, self.rules.c.n_sides)

    @property
    def is_over(self):
        return self.st.status != PLAYING

    @property
    def is_partial(self):
        """True for a partial deal (``from_deal(partial=True)`` with hands or a stock that
        are not a full deal of the variant)."""
        return self.partial

    @property
    def result(self):
        """The RoundResult once the round is over, else None."""
        cdef Outcome out
        cdef int n = self.rules.c.n_sides
        if self.st.status == PLAYING:
            return None
        if self._result is None:
            outcome(self.st, &out)
            self._result = RoundResult(
                _REASONS[out.reason],
                tuple([x for x in range(n) if out.winners >> x & 1]),
                tuple([out.points[x] for x in range(n)]),
                tuple([out.values[x] for x in range(n)]),
                self.st.last_seat,
            )
        return self._result  # immutable; forgotten on undo

    @property
    def events(self):
        """The public log: plays (with the count and points), draws (how many) and passes."""
        return tuple(self._event_list())

    cdef list _event_list(self):
        cdef int n = self.st.n_plies, i
        if self._events is None:
            self._events = []
            self._event_marks = []
        for i in range(len(self._event_marks), n):
            self._event_marks.append(len(self._events))
            self._ply_events(i)
        return self._events

    cdef void _ply_events(self, int i) except *:
        """Append the events of ply i to the cache."""
        cdef const Ply* p = &self.st.plies[i]
        cdef int kind = kind_of(p.move), seat = p.chain_seat, _
        out = self._events
        if kind == KIND_DRAW:
            out.append(_event("draw", p.seat, None, 1, 0))
        elif kind == KIND_PASS:
            out.append(_event("pass", p.seat, None, 0, 0))
        elif kind == KIND_MUGGINS:
            out.append(_event("muggins", p.seat, move_of(p.move), 0, p.points))
        else:
            out.append(_event("play", p.seat, move_of(p.move), p.count, p.points))
        if p.drawn:
            out.append(_event("draw", p.chain_seat, None, p.drawn, 0))
        for _ in range(p.passes):
            out.append(_event("pass", seat, None, 0, 0))
            seat = (seat + 1) % self.rules.c.players

    cdef void _forget_events(self, int plies) except *:
        """Drop the cached events and placements of plies from ``plies`` on (after undo or
        a new deal)."""
        cdef int i, kept = 0
        self._result = None
        if self._event_marks is not None and len(self._event_marks) > plies:
            del self._events[self._event_marks[plies]:]
            del self._event_marks[plies:]
        if self._layout is not None and self._layout_plies > plies:
            for i in range(plies):
                kept += kind_of(self.st.plies[i].move) <= KIND_DOUBLE_DOUBLE
            del self._layout[kept:]
            self._layout_plies = plies

    def observation(self, seat):
        """What seat may know: its hand, the table, public events, sizes and scores."""
        return self._observation(self._check_seat(seat))

    cdef object _observation(self, int s):
        global _Observation
        if _Observation is None:
            from bones.core.observation import Observation
            _Observation = Observation
        cdef SeatView o = _new_instance(_Observation)
        o.seat = s
        o.side = self.rules.c.side_of[s]
        o.variant = self.rules.name
        o.options = dict(self.rules.overrides)
        o.players = self.rules.c.players
        o.hand = tiles_of_mask(self.st.hand[s])
        o.hand_sizes = self._hand_sizes()
        o.stock_size = self.st.stock_len - self.st.stock_top
        o.ends = self._ends()
        o.layout = tuple(self._layout_list())
        o.count = layout_count(self.st) if self.st.n_placed else 0
        o.events = tuple(self._event_list())
        o.scores = self._scores()
        o.closed_ends = self.closed_ends if self.st.closed else ()
        o.opening = bool(self.st.by_rule)
        if self.st.status == PLAYING:
            o.to_move = self.st.to_move
            o.legal_moves = self._legal_tuple() if self.st.to_move == s else ()
        else:
            o.to_move = None
            o.legal_moves = ()
        return o

    cdef tuple _legal_tuple(self):
        cdef int i, n = self.st.n_moves
        cdef tuple out = PyTuple_New(n)
        cdef object move
        for i in range(n):
            move = move_of(self.st.moves[i])
            Py_INCREF(move)
            PyTuple_SET_ITEM(out, i, move)
        return out

    # --- serialisation --------------------------------------------------------------

    def to_msgpack(self):
        """The round as bytes (schema in docs/serialization.md): deal and moves."""
        cdef int i, players = self.rules.c.players, n = self.st.n_plies
        cdef unsigned char buf[4 * MAX_PLIES]
        cdef uint32_t code
        for i in range(n):
            code = self.st.plies[i].move
            buf[4 * i] = code & 255
            buf[4 * i + 1] = (code >> 8) & 255
            buf[4 * i + 2] = (code >> 16) & 255
            buf[4 * i + 3] = code >> 24
        out = [
            SCHEMA_VERSION, "round", self.rules.variant.name, players, self.rules.overrides,
            [self.st.hand0[i] for i in range(players)],
            PyBytes_FromStringAndSize(<char*>self.st.stock, self.st.stock_len),
            self.st.leader, self.st.lead_tile,
            [self.st.score0[i] for i in range(self.rules.c.n_sides)],
            PyBytes_FromStringAndSize(<char*>buf, 4 * n),
            bool(self.st.by_rule),
        ]
        if self.partial:
            out[0] = PARTIAL_SCHEMA_VERSION
            out.append(True)
        return _PACKER.pack(out)

    @classmethod
    def from_msgpack(cls, data):
        """The round encoded by ``to_msgpack``; bad bytes raise ValueError (never another
        exception), including bytes of a deal or a move sequence that cannot happen."""
        cdef Round self
        cdef CompiledRules rules
        cdef uint32_t masks[4]
        cdef uint32_t codes[MAX_PLIES]
        cdef uint32_t seen = 0
        cdef int32_t sc[4]
        cdef int i, players, leader, lead_tile, n_stock, n_codes, version, rule_leader, rule_tile
        cdef const unsigned char* stock
        cdef const unsigned char* plies
        cdef bint partial = False, by_rule = False
        try:
            if len(data) > _MAX_BYTES:
                raise ValueError(f"{len(data)} bytes is too long for a round")
            # unpackb bounds every str, bin, array and map by the input's length
            obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
        except Exception as exc:
            raise ValueError(f"not a bones round: {exc}") from None
        if type(obj) is not list or len(obj) < 2 or obj[1] != "round" \
                or type(obj[0]) is not int or obj[0] not in _ROUND_FIELDS \
                or len(obj) != _ROUND_FIELDS[obj[0]]:
            raise ValueError(f"not a bones round (schema 1 to {PARTIAL_SCHEMA_VERSION}): "
                             f"wrong header or length")
        try:
            version, _, variant, players_o, overrides, hands, stock_b, leader_o, lead_o, \
                scores, plies_b = obj[:11]
            known = version >= SCHEMA_VERSION  # field 11 says whether the rule opened it
            if known:
                if type(obj[11]) is not bool:
                    raise ValueError("field 11 (opening) must be true or false")
                by_rule = obj[11]
            if version % 2 == 0:  # (no obj[-1]: the module does not wrap negative indices)
                if obj[len(obj) - 1] is not True:
                    raise ValueError(f"field {len(obj) - 1} (partial) must be true")
                partial = True
            if type(variant) is not str or type(players_o) is not int \
                    or type(overrides) is not dict or type(hands) is not list \
                    or type(stock_b) is not bytes or type(leader_o) is not int \
                    or type(lead_o) is not int or type(scores) is not list \
                    or type(plies_b) is not bytes:
                raise ValueError("wrong field types")
            players = players_o  # an int beyond C's is an OverflowError: a ValueError below
            leader = leader_o
            lead_tile = lead_o
            if not 2 <= players <= 4 or len(hands) != players or len(stock_b) > 28 \
                    or len(plies_b) % 4 or len(plies_b) > 4 * MAX_PLIES \
                    or not 0 <= leader < players or not -1 <= lead_tile < 28:
                raise ValueError("wrong field sizes or values")
            for key in overrides:
                if type(key) is not str:
                    raise ValueError("option names must be strings")
            if version <= 2:  # before the bounded table
                overrides = pre_geometry_options(variant, overrides)
            rules = compile_rules(variant, players, overrides)
            for i in range(4):
                masks[i] = 0
            for i in range(players):
                if type(hands[i]) is not int:
                    raise ValueError(f"seat {i}'s hand is not a tile mask")
                masks[i] = hands[i]  # OverflowError (-> ValueError) beyond 32 bits
                if masks[i] == 0 or masks[i] >> 28:
                    raise ValueError(f"seat {i}'s hand is not a non-empty tile mask")
                if masks[i] & seen:
                    raise ValueError("hands overlap")
                seen |= masks[i]
            stock = stock_b
            n_stock = len(stock_b)
            if n_stock and not rules.c.draws:
                raise ValueError(f"{variant} never draws: the stock must be empty")
            for i in range(n_stock):
                if stock[i] >= 28 or seen >> stock[i] & 1:
                    raise ValueError("the stock repeats a tile")
                seen |= 1u << stock[i]
            problem = _deal_problem(rules, masks, seen)
            if problem is not None and not partial:
                raise ValueError(f"not a full deal ({problem}) in version {version} bytes")
            if problem is None and partial:
                raise ValueError(f"a full deal in version {version} (partial) bytes")
            if lead_tile >= 0 and not masks[leader] >> lead_tile & 1:
                raise ValueError("the leader does not hold the lead tile")
            if by_rule or not known:  # the rule's choice, to check or to compare
                rule_leader, rule_tile = -1, -1
                if rules.c.opening == OPEN_DOUBLES:
                    opening(&rules.c, masks, &rule_leader, &rule_tile)
                if not known:  # what a round made by the rule looks like
                    by_rule = rule_leader == leader and rule_tile == lead_tile
                elif rule_leader != leader or rule_tile != lead_tile:
                    raise ValueError("the opening rule did not choose this leader and lead")
            _scores_arg(scores, rules.c.n_sides, sc)
        except Exception as exc:
            raise ValueError(f"corrupt bones round: {exc}") from None
        self = Round.__new__(Round, _NEW)
        self.rules = rules
        self.partial = partial
        state_init(self.st, &rules.c, masks, stock, n_stock, leader, lead_tile, sc)
        self.st.by_rule = by_rule
        plies = plies_b
        n_codes = len(plies_b) // 4
        for i in range(n_codes):
            codes[i] = (plies[4 * i] | <uint32_t>plies[4 * i + 1] << 8
                        | <uint32_t>plies[4 * i + 2] << 16 | <uint32_t>plies[4 * i + 3] << 24)
        try:
            self._replay(codes, n_codes)
        except ValueError as exc:  # IllegalMove, or a malformed move code
            raise ValueError(f"corrupt bones round: {exc}") from None
        except BonesError as exc:  # the variant's move_scorer failed
            raise ValueError(f"cannot load the round: {exc}") from exc
        if self.st.status == PLAYING and self.st.n_moves == 0:
            raise ValueError("corrupt bones round: the seat to move has no legal move")
        return self

    def __eq__(self, other):
        if not isinstance(other, Round):
            return NotImplemented
        return self.to_msgpack() == (<Round>other).to_msgpack()

    __hash__ = None

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()  # nothing in a round is shared but its immutable rules

    def __reduce__(self):
        return (Round.from_msgpack, (self.to_msgpack(),))

    def __repr__(self):
        cdef int i
        hands = [[str(t) for t in tiles_of_mask(self.st.hand0[i])]
                 for i in range(self.rules.c.players)]
        stock = [str(tile_at(self.st.stock[i])) for i in range(self.st.stock_len)]
        args = [repr(self.rules.variant.name), f"hands={hands!r}", f"stock={stock!r}"]
        if self.st.by_rule:  # leader=None: the rule chooses them again (it is deterministic)
            args.append("leader=None")
        else:
            args.append(f"leader={self.st.leader}")
            if self.st.lead_tile >= 0:
                args.append(f"lead_tile={str(tile_at(self.st.lead_tile))!r}")
        if any(self.st.score0[i] for i in range(self.rules.c.n_sides)):
            args.append(f"scores={[self.st.score0[i] for i in range(self.rules.c.n_sides)]!r}")
        if self.st.n_plies:
            args.append(f"moves={[str(m) for m in self.moves]!r}")
        if self.partial:
            args.append("partial=True")
        args += [f"{k}={v!r}" for k, v in self.rules.overrides.items()]
        return f"Round.from_deal({', '.join(args)})"

    def __str__(self):
        from bones.core.text import draw_round

        return draw_round(self)

    def _repr_svg_(self):
        """The position as SVG, for notebooks (every hand face up; bones.render)."""
        from bones.render.svg import svg_of

        return svg_of(self)


def pre_geometry_options(str variant not None, dict options not None):
    """The options of a round saved before the bounded table (round msgpack versions 1 and
    2): a variant with a ``geometry`` option was then played unbounded, whatever its
    default is now."""
    from bones.registry import variant as lookup

    if "geometry" in options or "geometry" not in lookup(variant).options:
        return options
    return {**options, "geometry": "unbounded"}


cdef object _table_of(CompiledRules rules):
    cdef const Rules* r = &rules.c
    if not r.table.bounded:
        return None
    return (r.table.x0, r.table.y0, r.table.x1, r.table.y1)


cdef tuple _placements(CompiledRules rules, const uint32_t* codes, int n):
    """``(placements, closed end names)`` of the layout made by the n placement moves
    ``codes``; ValueError when one does not fit."""
    cdef State* pub = <State*>PyMem_Malloc(sizeof(State))
    cdef uint32_t hands[4]
    cdef int32_t sc[4]
    cdef int i, k = 0, slot
    cdef const Spot* spot
    if pub is NULL:
        raise MemoryError()
    try:
        for i in range(4):
            hands[i] = 0
            sc[i] = 0
        state_init(pub, &rules.c, hands, NULL, 0, 0, -1, sc)
        pub.geo = 1
        out = []
        for i in range(n):
            if not lay(pub, codes[i]):
                raise ValueError(f"{move_of(codes[i])} does not fit the layout")
            move = move_of(codes[i])
            for slot in range(2 if kind_of(codes[i]) == KIND_DOUBLE_DOUBLE else 1):
                spot = &pub.spots[k]
                k += 1
                out.append(Placement(move, tile_at(codes[i] >> (10 * slot) & 31), spot.x,
                                     spot.y, 90 * spot.dir, spot.first, spot.second))
        closed = tuple([END_NAMES[i] for i in range(pub.n_ends) if pub.closed >> i & 1])
        return tuple(out), closed
    finally:
        PyMem_Free(pub)


def layout_geometry(str variant not None, int players, dict options not None, layout):
    """``(placements, table, closed_ends)`` of the public ``layout`` (a sequence of
    placement moves) under ``variant`` with ``options``: what an observation shows
    (docs/geometry.md)."""
    cdef CompiledRules rules = compile_rules(variant, players, options)
    cdef uint32_t codes[32]
    cdef int n = 0
    for move in layout:
        if n == 28:
            raise ValueError("a layout holds at most 28 placements")
        codes[n] = move_code(move)
        if kind_of(codes[n]) > KIND_DOUBLE_DOUBLE:
            raise ValueError(f"{move_of(codes[n])} is not a placement")
        n += 1
    placements, closed = _placements(rules, codes, n)
    return placements, _table_of(rules), closed


def points_after(str variant not None, int players, dict options not None, layout, moves,
                 side_score=0, hand_sizes=None, seat=None):
    """The points each of ``moves`` would score for its side on the public ``layout`` (a
    sequence of placements), under ``variant`` with ``options``: what a bot may compute
    from its observation.  The layout is rebuilt once for all the moves.  ``side_score``
    matters only with ``exact_target``.  ``hand_sizes`` (every seat's tiles before the
    move, public) and the mover's ``seat`` matter only with ``hand_award="one_point"``:
    a move that takes the mover's side out adds its point (without them, none does)."""
    cdef CompiledRules rules = compile_rules(variant, players, options)
    cdef State pub
    cdef State work
    cdef uint32_t hands[4]
    cdef int32_t sc[4]
    cdef int i, score, chip, mover = -1, left = -1
    cdef uint32_t code
    cdef size_t header = header_size(&pub)
    side_score = _as_int(side_score, "side_score")
    if not -MAX_SCORE <= side_score <= MAX_SCORE:
        raise ValueError(f"side_score {side_score} is out of range (at most {MAX_SCORE:_})")
    score = side_score
    if hand_sizes is not None or seat is not None:
        if hand_sizes is None or seat is None:
            raise ValueError("points_after: give hand_sizes and seat together")
        sizes = [_as_int(n, "hand_sizes", i) for i, n in enumerate(hand_sizes)]
        if len(sizes) != rules.c.players or any(not 0 <= n <= 28 for n in sizes):
            raise ValueError(f"hand_sizes must be {rules.c.players} counts from 0 to 28; "
                             f"got {sizes!r}")
        mover = _seat_arg(seat, rules.c.players, "seat")
        left = sizes[mover]
        if rules.c.both_out and any(
                sizes[i] for i in range(rules.c.players)
                if i != mover and rules.c.side_of[i] == rules.c.side_of[mover]):
            left = -1  # a partner still holds tiles: going out does not end the side
    layout = tuple(layout)
    for i in range(4):
        hands[i] = 0
        sc[i] = 0
    state_init(&pub, &rules.c, hands, NULL, 0, 0, -1, sc)
    for placed in layout:
        if not lay(&pub, move_code(placed)):
            raise ValueError(f"{placed} does not fit the layout")
    out = []
    for move in moves:
        memcpy(&work, &pub, header)  # lay() keeps no undo record: the position is enough
        code = move_code(move)
        chip = rules.c.out_point and kind_of(code) <= KIND_DOUBLE_DOUBLE and left == (
            2 if kind_of(code) == KIND_DOUBLE_DOUBLE else 1)
        out.append(_points_one(rules, &work, code, layout, score, chip))
    return out


cdef int _points_one(CompiledRules rules, State* s, uint32_t code, tuple layout,
                     int side_score, int chip) except? -1:
    """What the round would add to the mover's side for code (add_points: the count or
    the move_scorer's value, then score_scale and exact_target)."""
    cdef int count
    if kind_of(code) == KIND_MUGGINS and rules.c.muggins:
        count = layout_count(s)  # a miss can only be claimed before the layout changes
    elif kind_of(code) > KIND_DOUBLE_DOUBLE:
        return 0
    elif not lay(s, code):
        raise ValueError(f"{move_of(code)} does not fit the layout")
    else:
        count = layout_count(s)
        if rules.c.muggins and not code & CLAIM_BIT:
            count = 0  # unclaimed: only the point for going out, if any
    if rules.c.python_scorer:
        return _scaled(rules, call_scorer(rules, layout, move_of(code), count) + chip,
                       side_score)
    if not rules.c.count_scoring:
        return 0
    count = count_points(&rules.c, count) + chip
    return _scaled(rules, count, side_score) if count else 0
