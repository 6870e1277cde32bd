"""``Round``: one round of any variant, with python-chess-like make/unmake."""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memcpy
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t

import msgpack

from bones.core.moves cimport move_code, move_of
from bones.core.rng cimport rng_seed
from bones.core.rules cimport OPEN_DOUBLES, OPEN_RANDOM, CompiledRules, compile_rules
from bones.core.state cimport (
    CLAIM_BIT, KIND_DOUBLE_DOUBLE, KIND_DRAW, KIND_MUGGINS, KIND_PASS, MAX_PLIES, PLAYING, Outcome,
    Ply, State, kind_of,
    add_points, apply_move, deal_random, find_move, finish_move, lay, layout_count, opening,
    outcome, play, state_init, undo,
)
from bones.core.tiles cimport tile_at, to_mask, to_tile_index

from bones.core.moves import END_NAMES
from bones.core.tiles import tiles_of_mask
from bones.errors import IllegalMove
from bones.records import Event, RoundResult

SCHEMA_VERSION = 1
_PACKER = msgpack.Packer(use_bin_type=True)
_REASONS = (None, "out", "blocked", "target")


cdef class LegalMoves:
    """A live, read-only sequence of the legal moves of the seat to move."""

    cdef Round _round

    def __len__(self):
        return self._round.st.n_moves

    def __bool__(self):
        return self._round.st.n_moves > 0

    def __getitem__(self, index):
        cdef int n = self._round.st.n_moves, i
        if isinstance(index, slice):
            return [move_of(self._round.st.moves[j]) for j in range(*index.indices(n))]
        i = index
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


cdef tuple _scores_arg(object scores, int n_sides, int32_t* out):
    cdef int i
    for i in range(4):
        out[i] = 0
    if scores is None:
        return ()
    scores = tuple(scores)
    if len(scores) != n_sides:
        raise ValueError(f"scores needs one number per side ({n_sides}), got {len(scores)}")
    for i in range(n_sides):
        out[i] = int(scores[i])
    return scores


cdef class Round:
    """One round: the deal, the table, whose turn, and the moves so far.

    Build one with ``Round.deal`` (a seeded random deal) or ``Round.from_deal`` (explicit
    hands, to replay a game from elsewhere).  ``play`` and ``undo`` make and unmake moves
    without allocating; the forced draws and passes that follow a move are part of it.
    """

    def __cinit__(self):
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
    def deal(cls, str variant, int players=2, seed=0, leader=None, lead_tile=None,
             scores=None, **options):
        """A random deal from ``seed`` (the same on every machine).  ``leader=None``
        applies the variant's first-round rule."""
        cdef CompiledRules rules = compile_rules(variant, players, options)
        cdef Round self = Round.__new__(Round)
        cdef int32_t sc[4]
        cdef uint64_t rng = rng_seed(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        _scores_arg(scores, rules.c.n_sides, sc)
        self.rules = rules
        if leader is not None and not 0 <= leader < players:
            raise ValueError(f"leader must be a seat 0..{players - 1}, got {leader}")
        deal_random(self.st, &rules.c, &rng, sc, -1 if leader is None else leader)
        if lead_tile is not None:
            self._force_lead(lead_tile)
        return self

    @classmethod
    def from_deal(cls, str variant, hands, stock=(), leader=None, lead_tile=None,
                  scores=None, moves=None, seed=0, **options):
        """A round from an explicit deal: ``hands`` one list of tiles per seat, ``stock``
        top first.  ``leader=None`` applies the variant's first-round rule (a random one
        drawn from ``seed``); ``moves`` are replayed in order."""
        cdef int players = len(hands), i, lead = 0, forced = -1
        cdef CompiledRules rules = compile_rules(variant, players, options)
        cdef Round self = Round.__new__(Round)
        cdef uint32_t masks[4]
        cdef uint32_t seen = 0
        cdef uint8_t stock_idx[28]
        cdef int32_t sc[4]
        cdef uint64_t rng
        for i in range(4):
            masks[i] = 0
        for i in range(players):
            masks[i] = to_mask(hands[i])
            if masks[i] & seen:
                raise ValueError(f"tile {tiles_of_mask(masks[i] & seen)[0]} is dealt twice")
            if not masks[i]:
                raise ValueError(f"seat {i} has an empty hand")
            seen |= masks[i]
        stock = list(stock)
        if stock and not rules.c.draws:
            raise ValueError(f"{variant} never draws: the stock must be empty")
        for i, tile in enumerate(stock):
            stock_idx[i] = to_tile_index(tile)
            if seen >> stock_idx[i] & 1:
                raise ValueError(f"tile {tile_at(stock_idx[i])} is dealt twice")
            seen |= 1u << stock_idx[i]
        _scores_arg(scores, rules.c.n_sides, sc)
        if leader is None:
            if rules.c.opening == OPEN_DOUBLES:
                opening(&rules.c, masks, &lead, &forced)
            elif rules.c.opening == OPEN_RANDOM:
                rng = rng_seed(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
                lead = <int>((rng >> 32) * players >> 32)
        elif not 0 <= leader < players:
            raise ValueError(f"leader must be a seat 0..{players - 1}, got {leader}")
        else:
            lead = leader
        self.rules = rules
        state_init(self.st, &rules.c, masks, stock_idx, len(stock), lead, forced, sc)
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
            codes[n] = move_code(move)
            n += 1
        self._replay(codes, n)

    def _force_lead(self, tile):
        cdef int t = to_tile_index(tile)
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
            view = LegalMoves.__new__(LegalMoves)
            (<LegalMoves>view)._round = self
            self._legal = view
        return self._legal

    def play(self, move):
        """Make ``move`` (a Move or its text) for the seat to move; the forced draws and
        passes that follow are applied before this returns."""
        cdef uint32_t code
        cdef int i
        try:
            code = move_code(move)
        except (TypeError, ValueError) as exc:
            raise IllegalMove(f"{exc}{self._legal_text()}") from None
        if self.st.status != PLAYING:
            raise IllegalMove(f"{move}: the round is over")
        i = find_move(self.st, code)
        if i < 0:
            raise IllegalMove(f"{move_of(code)} is not legal for seat {self.st.to_move}"
                              f"{self._legal_text()}")
        self._play_code(self.st.moves[i])

    cdef void _play_code(self, uint32_t code) except *:
        if not self.rules.c.python_scorer:
            play(self.st, code)
            return
        apply_move(self.st, code)
        cdef Ply* p = &self.st.plies[self.st.n_plies - 1]
        if kind_of(code) <= KIND_DOUBLE_DOUBLE:
            layout = self.layout
            points = self.rules.move_scorer(layout[:len(layout) - 1], move_of(code), p.count)
            if points:
                add_points(self.st, p.seat, int(points))
        finish_move(self.st)

    def _legal_text(self):
        if self.st.status != PLAYING:
            return " (the round is over)"
        return "; legal: " + ", ".join(str(m) for m in self.legal_moves)

    def undo(self):
        """Unmake the last move (and the forced events after it); returns that move."""
        if self.st.n_plies == 0:
            raise IndexError("undo: no move has been played")
        cdef uint32_t code = self.st.plies[self.st.n_plies - 1].move
        undo(self.st)
        self._forget_events(self.st.n_plies)
        return move_of(code)

    def copy(self):
        """An independent copy (same rules object, own state)."""
        cdef Round other = Round.__new__(Round)
        other.rules = self.rules
        # the position, then the part of the undo stack in use
        memcpy(other.st, self.st, <size_t>(<char*>&self.st.plies[0] - <char*>self.st))
        memcpy(&other.st.plies[0], &self.st.plies[0], self.st.n_plies * sizeof(Ply))
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

    def side_of(self, int seat):
        self._check_seat(seat)
        return self.rules.c.side_of[seat]

    def _check_seat(self, int seat):
        if not 0 <= seat < self.rules.c.players:
            raise ValueError(f"no seat {seat}: seats are 0..{self.rules.c.players - 1}")

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

    def hand(self, int seat):
        """The tiles in seat's hand (the engine's view: bots get observations)."""
        self._check_seat(seat)
        return tiles_of_mask(self.st.hand[seat])

    @property
    def hand_sizes(self):
        return tuple(bin(self.st.hand[i]).count("1") for i in range(self.rules.c.players))

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
        return tuple((END_NAMES[e], self.st.ends[e].v) for e in range(self.st.n_ends)
                     if self.st.ends[e].live)

    @property
    def count(self):
        """The All Fives count of the layout (RULES.md 2.6)."""
        return layout_count(self.st) if self.st.n_placed else 0

    @property
    def moves(self):
        """Every move made so far, draws and passes by choice included."""
        return tuple([move_of(self.st.plies[i].move) for i in range(self.st.n_plies)])

    @property
    def layout(self):
        """The placements on the table, in play order."""
        return tuple([move_of(self.st.plies[i].move) for i in range(self.st.n_plies)
                      if kind_of(self.st.plies[i].move) <= KIND_DOUBLE_DOUBLE])

    @property
    def scores(self):
        """Per side: the game score before the round plus what this round scored so far."""
        return tuple(self.st.score[i] for i in range(self.rules.c.n_sides))

    @property
    def is_over(self):
        return self.st.status != PLAYING

    @property
    def result(self):
        """The RoundResult once the round is over, else None."""
        cdef Outcome out
        cdef int n = self.rules.c.n_sides
        if self.st.status == PLAYING:
            return None
        outcome(self.st, &out)
        return RoundResult(
            _REASONS[out.reason],
            tuple(x for x in range(n) if out.winners >> x & 1),
            tuple(out.points[x] for x in range(n)),
            tuple(out.values[x] for x in range(n)),
            self.st.last_seat,
        )

    @property
    def events(self):
        """The public log: plays (with the count and points), draws (how many) and passes."""
        cdef int n = self.st.n_plies, i
        if self._events is None:
            self._events = []
            self._event_marks = []
        for i in range(len(self._event_marks), n):
            self._event_marks.append(len(self._events))
            self._ply_events(i)
        return tuple(self._events)

    cdef void _ply_events(self, int i) except *:
        """Append the events of ply i to the cache."""
        cdef const Ply* p = &self.st.plies[i]
        cdef int kind = kind_of(p.move), seat = p.chain_seat, _
        out = self._events
        if kind == KIND_DRAW:
            out.append(Event("draw", p.seat, None, 1, 0))
        elif kind == KIND_PASS:
            out.append(Event("pass", p.seat, None, 0, 0))
        elif kind == KIND_MUGGINS:
            out.append(Event("muggins", p.seat, move_of(p.move), 0, p.points))
        else:
            out.append(Event("play", p.seat, move_of(p.move), p.count, p.points))
        if p.drawn:
            out.append(Event("draw", p.chain_seat, None, p.drawn, 0))
        for _ in range(p.passes):
            out.append(Event("pass", seat, None, 0, 0))
            seat = (seat + 1) % self.rules.c.players

    cdef void _forget_events(self, int plies) except *:
        """Drop the cached events of plies from ``plies`` on (after undo or a new deal)."""
        if self._event_marks is not None and len(self._event_marks) > plies:
            del self._events[self._event_marks[plies]:]
            del self._event_marks[plies:]

    def observation(self, int seat):
        """What seat may know: its hand, the table, public events, sizes and scores."""
        from bones.observation import Observation

        self._check_seat(seat)
        mine = self.st.status == PLAYING and self.st.to_move == seat
        return Observation(
            seat=seat,
            side=self.rules.c.side_of[seat],
            variant=self.variant,
            options=dict(self.rules.overrides),
            players=self.rules.c.players,
            hand=tiles_of_mask(self.st.hand[seat]),
            hand_sizes=self.hand_sizes,
            stock_size=self.stock_size,
            ends=self.ends,
            layout=self.layout,
            count=self.count,
            events=self.events,
            scores=self.scores,
            to_move=self.to_move,
            legal_moves=tuple(self.legal_moves) if mine else (),
        )

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
        return _PACKER.pack([
            SCHEMA_VERSION, "round", self.rules.variant.name, players, self.rules.overrides,
            [self.st.hand0[i] for i in range(players)],
            PyBytes_FromStringAndSize(<char*>self.st.stock, self.st.stock_len),
            self.st.leader, self.st.lead_tile,
            [self.st.score0[i] for i in range(self.rules.c.n_sides)],
            PyBytes_FromStringAndSize(<char*>buf, 4 * n),
        ])

    @classmethod
    def from_msgpack(cls, data):
        """The round encoded by ``to_msgpack``; bad bytes raise ValueError."""
        try:
            obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
        except Exception as exc:
            raise ValueError(f"not a bones round: {exc}") from None
        if type(obj) is not list or len(obj) != 11 or obj[0] != SCHEMA_VERSION \
                or obj[1] != "round":
            raise ValueError("not a bones round (schema 1): wrong header or length")
        cdef Round self = Round.__new__(Round)
        cdef CompiledRules rules
        cdef uint32_t masks[4]
        cdef uint32_t codes[MAX_PLIES]
        cdef uint32_t seen = 0
        cdef int32_t sc[4]
        cdef int i, players, leader, lead_tile, n_stock, n_codes
        cdef const unsigned char* stock
        cdef const unsigned char* plies
        try:
            _, _, variant, players, overrides, hands, stock_b, leader, lead_tile, scores, \
                plies_b = obj
            if type(overrides) is not dict or type(hands) is not list \
                    or len(hands) != players or type(stock_b) is not bytes \
                    or type(plies_b) is not bytes or len(plies_b) % 4 \
                    or len(plies_b) > 4 * MAX_PLIES:
                raise ValueError("wrong field types or sizes")
            rules = compile_rules(variant, players, overrides)
            for i in range(4):
                masks[i] = 0
            for i in range(players):
                masks[i] = hands[i]
                if masks[i] & seen or masks[i] >> 28:
                    raise ValueError("hands overlap or hold unknown tiles")
                seen |= masks[i]
            stock = stock_b
            n_stock = len(stock_b)
            for i in range(n_stock):
                if stock[i] >= 28 or seen >> stock[i] & 1:
                    raise ValueError("the stock repeats a tile")
                seen |= 1u << stock[i]
            if not 0 <= leader < players or not -1 <= lead_tile < 28 or (
                    lead_tile >= 0 and not masks[leader] >> lead_tile & 1):
                raise ValueError("bad leader or lead tile")
            _scores_arg(scores, rules.c.n_sides, sc)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"corrupt bones round: {exc}") from None
        self.rules = rules
        state_init(self.st, &rules.c, masks, stock, n_stock, leader, lead_tile, sc)
        plies = plies_b
        n_codes = len(plies_b) // 4
        for i in range(n_codes):
            codes[i] = (plies[4 * i] | <uint32_t>plies[4 * i + 1] << 8
                        | <uint32_t>plies[4 * i + 2] << 16 | <uint32_t>plies[4 * i + 3] << 24)
        try:
            self._replay(codes, n_codes)
        except ValueError as exc:  # IllegalMove, or a malformed move code
            raise ValueError(f"corrupt bones round: {exc}") from None
        return self

    def __eq__(self, other):
        if not isinstance(other, Round):
            return NotImplemented
        return self.to_msgpack() == (<Round>other).to_msgpack()

    __hash__ = None

    def __copy__(self):
        return self.copy()

    def __reduce__(self):
        return (Round.from_msgpack, (self.to_msgpack(),))

    def __repr__(self):
        cdef int i
        hands = [[str(t) for t in tiles_of_mask(self.st.hand0[i])]
                 for i in range(self.rules.c.players)]
        stock = [str(tile_at(self.st.stock[i])) for i in range(self.st.stock_len)]
        args = [repr(self.rules.variant.name), f"hands={hands!r}", f"stock={stock!r}",
                f"leader={self.st.leader}"]
        if self.st.lead_tile >= 0:
            args.append(f"lead_tile={str(tile_at(self.st.lead_tile))!r}")
        if any(self.st.score0[i] for i in range(self.rules.c.n_sides)):
            args.append(f"scores={[self.st.score0[i] for i in range(self.rules.c.n_sides)]!r}")
        if self.st.n_plies:
            args.append(f"moves={[str(m) for m in self.moves]!r}")
        args += [f"{k}={v!r}" for k, v in self.rules.overrides.items()]
        return f"Round.from_deal({', '.join(args)})"

    def __str__(self):
        from bones.core.text import draw_round

        return draw_round(self)


def points_after(str variant, int players, dict options, layout, moves, int side_score=0):
    """The points each of ``moves`` would score for its side on the public ``layout`` (a
    sequence of placements), under ``variant`` with ``options``: what a bot may compute
    from its observation.  The layout is rebuilt once for all the moves.  ``side_score``
    matters only with ``exact_target``."""
    cdef CompiledRules rules = compile_rules(variant, players, options)
    cdef State pub
    cdef State work
    cdef uint32_t hands[4]
    cdef int32_t sc[4]
    cdef int i
    cdef size_t header = <size_t>(<char*>&pub.plies[0] - <char*>&pub)
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
        out.append(_points_one(rules, &work, move_code(move), layout, side_score))
    return out


cdef int _points_one(CompiledRules rules, State* s, uint32_t code, layout,
                     int side_score) except? -1:
    cdef int count, points
    if kind_of(code) == KIND_MUGGINS and rules.c.muggins:
        count = layout_count(s)  # a miss can only be claimed before the layout changes
    elif kind_of(code) > KIND_DOUBLE_DOUBLE:
        return 0
    elif not lay(s, code):
        raise ValueError(f"{move_of(code)} does not fit the layout")
    else:
        count = layout_count(s)
        if rules.c.muggins and not code & CLAIM_BIT:
            return 0
    if rules.c.python_scorer:
        return int(rules.move_scorer(tuple(layout), move_of(code), count))
    if not rules.c.count_scoring or count <= 0 or count % 5:
        return 0
    points = count // rules.c.score_scale
    if rules.c.target and rules.c.exact_target and side_score + points > rules.c.target:
        return 0
    return points
