"""A determinizer for the train games (Mexican Train, Chicken Foot).

``TrainSampler(observation)`` rebuilds, from a ``TrainObservation`` alone, the public
position of the round (the trains or the chicken feet, the pending double and its toes
still due, the markers, the run of passes, a tile just drawn that must be placed) with the
observer's own hand, in a ``TrainState`` whose undo stack starts here.  Each ``sample``
then deals the tiles the seat cannot see to the other hands and the stock, drawn
uniformly among the full deals (every hand at the deal, the stock in order) that replay
the public record to the same observation.  docs/sampler.md, "The train games", gives the
model; in short:

* Each other seat's tiles come from *groups* by when it got them: its deal, and each draw
  it passed after (one tile).  A draw it placed at once shows its tile (the one placed);
  the observer's own draws show theirs.  The stock not yet drawn is one more group.
* A draw or a pass by a seat, at a moment when the targets open to it showed the numbers
  O, says it then held no tile with a number in O (the draw's own tile included, for the
  pass after it): no tile held at that moment (from a group got before it, and placed
  after it or not at all) may have one.  A tile placed by a seat came from one of its
  groups got before the placement.
* So each hidden tile has a set of groups it may go to, and a consistent deal is an
  assignment of those tiles to the groups that fills each exactly (the order of the stock
  left multiplies every assignment alike).  Tiles with the same set are interchangeable:
  the assignments are counted exactly (Python integers) by a dynamic programme over the
  groups whose state is how many tiles of each class are left, the classes merged as the
  groups that told them apart are filled; the counts become one table of choice
  probabilities that ``sample`` walks without the GIL (uniform up to the rounding of those
  probabilities to doubles, a relative 2**-53 per choice).
* If that table would exceed ``max_states`` states, the sampler says so (``exact`` False,
  ``fallback`` the reason) and deals the unseen tiles uniformly instead, as it did before.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset

from bones.core.rng cimport rng_below, rng_next, rng_seed
from bones.core.trainstate cimport (
    LAYOUT_CHICKEN, LAYOUT_TRAINS, TR_MEXICAN, TR_PLAYING, TrainState,
    move_target, move_tile, ts_accepts, ts_copy, ts_gen, ts_place,
)
from bones.core.trains cimport TrainRound
from bones.core.wideset cimport (
    W128, WIDE_DOUBLE, WIDE_SET, to_wide_index, w_andnot, w_any, w_bit,
    w_count, w_first, w_has, w_or, w_rest, w_set, w_zero, wide_tile,
)

from math import comb, factorial

from bones.trains_records import TrainObservation

#: The default bound on the sampling table's states (TrainSampler(max_states=...)).
MAX_STATES = 50_000
cdef enum:
    _REJECT_TRIES = 200       # proposals of the relaxed table per sample before a miss
#: Proposals sample() draws from the relaxed table before it gives up on one sample.
REJECT_TRIES = _REJECT_TRIES
cdef int T_END = 1 << 20      # time "now": tiles not placed are held until then
cdef int STOCK = 8            # the seat of the stock group


cdef inline void shuffle(uint8_t* deck, int n, uint64_t* rng) noexcept nogil:
    """Fisher-Yates: every order of deck[:n] alike."""
    cdef int i, j
    cdef uint8_t x
    for i in range(n - 1):
        j = i + <int>rng_below(rng, n - i)
        x = deck[i]
        deck[i] = deck[j]
        deck[j] = x


cdef int _code(object text) except -1:
    """A move's code from its text (``TrainMove.parse``)."""
    from bones.core.trains import TrainMove

    return TrainMove.parse(text).code


cdef inline double rng_unit(uint64_t* rng) noexcept nogil:
    return <double>(rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef class TrainSampler:
    """The position ``observation`` shows to its seat (which must be the seat to move),
    and random deals of what that seat cannot see, uniform over the deals consistent with
    the public record.  Only the observation is read.

    ``max_states`` bounds the sampling table (``exact`` is False beyond it, and the unseen
    tiles are then dealt uniformly); ``model=False`` skips the table (the position only:
    the expert bot's use) and deals uniformly too."""

    def __cinit__(self, *args, **kwargs):
        self.base = <TrainState*>PyMem_Malloc(sizeof(TrainState))
        if self.base is NULL:
            raise MemoryError()
        memset(self.base, 0, sizeof(TrainState))
        self.seat = -1  # not built: made with __new__, sample() refuses
        self.exact = False
        self.n_nodes = 0
        self.nodes = NULL
        self.trans = NULL
        self.cls_mask = NULL
        self.why_not = "not built"
        self.rejecting = False
        self.tries = 0
        self.accepted = 0
        self.misses = 0

    def __dealloc__(self):
        PyMem_Free(self.base)
        PyMem_Free(self.nodes)
        PyMem_Free(self.trans)
        PyMem_Free(self.cls_mask)

    def __init__(self, observation, *, max_states=MAX_STATES, model=True):
        if type(max_states) is not int or max_states < 1:
            raise ValueError(f"max_states must be a positive int, not {max_states!r:.40}")
        if self.seat >= 0:
            raise ValueError("a TrainSampler is built once")
        _build(self, observation, max_states, bool(model))

    cdef bint draw_groups(self, uint8_t* where, uint64_t* rng) noexcept nogil:
        """where[t] = the group of each hidden tile t, uniformly over the consistent
        assignments: the walk of the table, each node taking its class's tiles."""
        cdef W128 taken = w_zero(), pool
        cdef uint8_t buf[91]
        cdef int node = 0 if self.n_nodes > 0 else -1, i, last, k, j, r, x
        cdef double u
        cdef uint8_t tmp
        cdef TSNode* nd
        while node >= 0:
            nd = &self.nodes[node]
            u = rng_unit(rng)
            i = nd.first
            last = nd.first + nd.n - 1
            while i < last and u >= self.trans[i].cum:
                i += 1
            x = self.trans[i].x
            if x:
                pool = w_andnot(self.cls_mask[nd.cls], taken)
                k = 0
                while w_any(pool):
                    buf[k] = w_first(pool)
                    k += 1
                    pool = w_rest(pool)
                if k < x:
                    return False  # cannot happen: the table counts these tiles
                for j in range(x):
                    r = j + <int>rng_below(rng, k - j)
                    tmp = buf[j]
                    buf[j] = buf[r]
                    buf[r] = tmp
                    where[buf[j]] = nd.group
                    w_set(&taken, buf[j])
            node = self.trans[i].child
        return True

    cdef bint draw_one(self, uint8_t* where, uint64_t* rng) noexcept nogil:
        """draw_groups, and when the table is the relaxed one, again until every tile
        is in one of its allowed groups (at most REJECT_TRIES proposals: False then)."""
        cdef int _try, t
        cdef W128 m
        cdef bint ok
        if not self.rejecting:
            return self.draw_groups(where, rng)
        for _try in range(_REJECT_TRIES):
            self.tries += 1
            if not self.draw_groups(where, rng):
                return False
            ok = True
            m = self.hidden
            while w_any(m):
                t = w_first(m)
                m = w_rest(m)
                if not w_has(self.allowed[t], where[t]):
                    ok = False
                    break
            if ok:
                self.accepted += 1
                return True
        self.misses += 1
        return False

    cdef void sample(self, TrainState* dst, uint64_t* rng) noexcept nogil:
        """dst = the base position with the unseen tiles dealt: from the exact model (the
        stock left in a uniform order), or uniformly (Fisher-Yates) when not exact."""
        cdef uint8_t deck[91]
        cdef uint8_t where[91]
        cdef int n = self.n_unseen, i, k = 0, seat, _c, t, g
        ts_copy(dst, self.base)
        if self.exact and self.draw_one(where, rng):
            for seat in range(dst.players):
                if seat != self.seat:
                    dst.hand[seat] = w_zero()
            for i in range(n):
                t = self.unseen[i]
                g = where[t]
                if g == self.stock_group:
                    deck[k] = t
                    k += 1
                else:
                    w_set(&dst.hand[self.g_seat[g]], t)
            shuffle(deck, k, rng)
            for seat in range(dst.players):
                if seat != self.seat:
                    dst.hand0[seat] = dst.hand[seat]
            for i in range(k):
                dst.stock[i] = deck[i]
            dst.stock_len = k
            dst.stock_top = 0
            ts_gen(dst)
            return
        for i in range(n):
            deck[i] = self.unseen[i]
        shuffle(deck, n, rng)
        for seat in range(dst.players):
            if seat == self.seat:
                continue
            dst.hand[seat] = w_zero()
            for _c in range(self.sizes[seat]):
                w_set(&dst.hand[seat], deck[k])
                k += 1
            dst.hand0[seat] = dst.hand[seat]
        for i in range(self.stock_size):
            dst.stock[i] = deck[k + i]
        dst.stock_len = self.stock_size
        dst.stock_top = 0
        ts_gen(dst)

    def _check_built(self):
        if self.seat < 0:
            raise ValueError("a TrainSampler is made from an observation: "
                             "TrainSampler(round.observation(seat))")

    @property
    def unseen_tiles(self):
        """The tiles the seat cannot see, as text, in index order."""
        self._check_built()
        return tuple([str(wide_tile(self.unseen[i])) for i in range(self.n_unseen)])

    @property
    def legal_codes(self):
        """The codes of the seat's legal moves in the rebuilt position."""
        self._check_built()
        return tuple([self.base.moves[i] for i in range(self.base.n_moves)])

    @property
    def is_exact(self):
        """True when the samples come from the exact model (uniform over the consistent
        deals); False after a fallback to the uniform deal of the unseen tiles."""
        self._check_built()
        return bool(self.exact)

    @property
    def fallback(self):
        """Why the samples are not exact (``is_exact`` False), else None."""
        self._check_built()
        return None if self.exact else self.why_not

    @property
    def count(self):
        """The number of full deals (every hand at the deal, the whole stock in order)
        consistent with the record; None when not exact."""
        self._check_built()
        if not self.exact or self.rejecting:
            return None
        return self.total * factorial(self.stock_size)

    @property
    def method(self):
        """How samples are drawn: ``"exact"`` (the exact table), ``"rejection"`` (the
        relaxed table, proposals kept only when consistent: uniform over the consistent
        deals too) or ``"uniform"`` (the fallback: the unseen tiles dealt uniformly)."""
        self._check_built()
        if not self.exact:
            return "uniform"
        return "rejection" if self.rejecting else "exact"

    @property
    def rejection_stats(self):
        """``(proposals, accepted, misses)`` of the rejection method so far: a miss is a
        sample for which REJECT_TRIES proposals found no consistent deal, and which was
        then dealt uniformly (not consistent)."""
        self._check_built()
        return self.tries, self.accepted, self.misses

    @property
    def table_size(self):
        """Nodes of the sampling table (0 when not exact or nothing is hidden)."""
        self._check_built()
        return self.n_nodes

    def public(self):
        """The rebuilt position's public fields (``public_of`` gives a round's)."""
        self._check_built()
        return _public(self.base)

    def deal(self, uint64_t seed):
        """One sample from ``seed``: ``(hands, stock)``, per seat its tiles as text (index
        order) and the stock top first."""
        cdef TrainState* s
        cdef uint64_t rng = rng_seed(seed)
        self._check_built()
        s = <TrainState*>PyMem_Malloc(sizeof(TrainState))
        if s is NULL:
            raise MemoryError()
        try:
            self.sample(s, &rng)
            hands = tuple([_texts(s.hand[i]) for i in range(s.players)])
            stock = tuple([str(wide_tile(s.stock[i])) for i in range(s.stock_len)])
            return hands, stock
        finally:
            PyMem_Free(s)

    def full_deal(self, uint64_t seed):
        """One sample from ``seed`` as the full deal behind it: ``(hands, stock)``, per
        seat its tiles at the deal (text, index order) and the whole stock, top first
        (the tiles drawn so far, then the rest); ``TrainRound.from_deal`` with the
        placements replays it to the observation.  ValueError when not exact."""
        cdef uint8_t where[91]
        cdef uint64_t rng = rng_seed(seed)
        cdef int g, t, i, d
        cdef W128 hands[8]
        cdef uint8_t by_draw[96]
        cdef uint8_t rest[91]
        cdef int n_rest = 0, j
        cdef uint8_t x
        cdef W128 m
        self._check_built()
        if not self.exact:
            raise ValueError(f"this sampler is not exact: {self.why_not}")
        if not self.draw_one(where, &rng):
            raise RuntimeError(f"no consistent deal in {REJECT_TRIES} proposals of the "
                               f"relaxed table")
        for i in range(8):
            hands[i] = self.hand0[i]
        m = self.hidden
        while w_any(m):
            t = w_first(m)
            m = w_rest(m)
            g = where[t]
            if g == self.stock_group:
                rest[n_rest] = t
                n_rest += 1
            elif self.g_draw[g] >= 0:
                by_draw[self.g_draw[g]] = t
            else:
                w_set(&hands[self.g_seat[g]], t)
        for i in range(n_rest - 1):
            j = i + <int>rng_below(&rng, n_rest - i)
            x = rest[i]
            rest[i] = rest[j]
            rest[j] = x
        stock = []
        for d in range(self.n_draws):
            t = self.draw_tile[d] if self.draw_tile[d] >= 0 else by_draw[d]
            stock.append(str(wide_tile(t)))
        stock += [str(wide_tile(rest[i])) for i in range(n_rest)]
        return tuple([_texts(hands[i]) for i in range(self.base.players)]), tuple(stock)


cdef tuple _texts(W128 m):
    out = []
    while w_any(m):
        out.append(str(wide_tile(w_first(m))))
        m = w_rest(m)
    return tuple(out)


cdef tuple _public(const TrainState* s):
    ends = tuple([(s.ends_by[v].lo, s.ends_by[v].hi) for v in range(13)])
    return (s.layout, s.set_max, s.engine, s.players, s.to_move, s.status, s.passes,
            s.forced, s.pending, s.toes, tuple(s.train_open[:9]), tuple(s.train_len[:9]),
            s.public, (s.table.lo, s.table.hi), ends,
            tuple(sorted([s.moves[i] for i in range(s.n_moves)])))


def public_of(round):
    """A TrainRound's public fields, as ``TrainSampler.public`` gives them (tests)."""
    if not isinstance(round, TrainRound):
        raise TypeError(f"public_of takes a TrainRound, not {type(round).__name__}")
    return _public((<TrainRound>round).st)


cdef TrainSampler sampler_of(object observation):
    return TrainSampler(observation)


cdef int _place(TrainState* s, int t, int target, int seat, str tile, str where) except -1:
    """Put tile t on target as ts_play does (hands aside), after checking that the record
    can say so."""
    if w_has(s.table, t):
        raise ValueError(f"observation: tile {tile} is placed twice")
    if s.layout == LAYOUT_TRAINS:
        if target > TR_MEXICAN or (target != TR_MEXICAN and target >= s.players):
            raise ValueError(f"observation: bad target {where!r}")
    elif target != s.pending and (not w_has(s.table, target) or target == t):
        raise ValueError(f"observation: {tile} placed on {where}, not on the table")
    w_set(&s.table, t)
    ts_place(s, seat, t, target)
    return 0


cdef object _int_of(W128 m):
    return (<object>m.hi << 64) | <object>m.lo


cdef int _build(TrainSampler self, object obs, int max_states, bint model) except -1:
    cdef TrainState* s = self.base
    cdef int seat, players, set_max, engine, e_tile, t, target, code, i, n_others, e, who
    cdef W128 hand = w_zero(), seen, rest, mine_placed = w_zero(), mine_drawn = w_zero()
    cdef W128 others_placed = w_zero()
    if not isinstance(obs, TrainObservation):
        raise TypeError(f"a TrainSampler is built from a TrainObservation, not "
                        f"{type(obs).__name__}")
    if obs.to_move is None or obs.to_move != obs.seat:
        raise ValueError(f"the sampler rebuilds the position of the seat to move: seat "
                         f"{obs.seat} is not to move (to_move: {obs.to_move})")
    seat = obs.seat
    players = obs.players
    set_max = obs.set_max
    engine = obs.engine
    if not 2 <= players <= 8 or set_max not in (6, 9, 12) or not 0 <= engine <= set_max \
            or not 0 <= seat < players or len(obs.hand_sizes) != players:
        raise ValueError("observation: players, set, engine, seat or hand_sizes out of range")
    if obs.layout not in ("trains", "chicken_foot"):
        raise ValueError(f"observation: unknown layout {obs.layout!r}")
    e_tile = WIDE_DOUBLE[engine]
    memset(s, 0, sizeof(TrainState))
    s.layout = LAYOUT_TRAINS if obs.layout == "trains" else LAYOUT_CHICKEN
    s.set_max = set_max
    s.engine = engine
    s.players = players
    s.zero_double = obs.zero_double
    s.first_turn_own = bool(obs.first_turn_own_train)
    s.engine_toes = obs.engine_toes
    s.leader = obs.leader
    s.to_move = seat
    s.status = TR_PLAYING
    s.out_seat = -1
    s.forced = -1
    s.table = w_bit(e_tile)
    for i in range(9):
        s.train_open[i] = engine
    if s.layout == LAYOUT_CHICKEN:
        s.pending = e_tile
        s.toes = s.engine_toes
    else:
        s.pending = -1
    for t_text in obs.hand:
        w_set(&hand, to_wide_index(t_text))
    if w_count(hand) != obs.hand_sizes[seat]:
        raise ValueError("observation: the hand and its hand size disagree")
    s.hand[seat] = hand
    s.hand0[seat] = hand
    # The round's log in order: the layout placement by placement (as ts_play builds it),
    # the markers, and what each draw and pass showed.  Times: event e at 2e + 2; a tile
    # drawn and then passed with is got at 2e + 3 (after the draw's void, before the pass).
    log = tuple(obs.log)
    places = [ev[1:] for ev in log if ev[0] == "place"]
    if places != [tuple(p) for p in obs.placements]:
        raise ValueError("observation: the placements are not the log's place events")
    voids = []          # (seat, time, mask as a Python int)
    play_time = {}      # tile -> (seat, time) of a placement by another seat
    drawn = [0] * players
    placed = [0] * players
    draw_known = []     # per draw, its tile (index) when known, else None
    draw_groups = []    # (seat, time, draw index) of a tile drawn and then passed with
    known_drawn = 0     # tiles of other seats known from their draws (placed at once)
    stock_left = obs.stock_size + sum([1 for ev in log if ev[0] == "draw"])
    empty_passes = 0    # passes in a row made with the stock empty
    for e, (kind, who, tile, where) in enumerate(log):
        if not 0 <= who < players:
            raise ValueError(f"observation: a log event of seat {who}")
        if kind == "place":
            code = _code(f"{tile}@{where}")
            t = move_tile(code)
            target = move_target(code)
            if w_has(hand, t):
                raise ValueError(f"observation: tile {tile} is placed and held")
            _place(s, t, target, who, tile, where)
            s.passes = 0
            empty_passes = 0
            placed[who] += 1
            if who == seat:
                w_set(&mine_placed, t)
            else:
                w_set(&others_placed, t)
                play_time[t] = (who, 2 * e + 2)
        elif kind == "draw":
            stock_left -= 1
            voids.append((who, 2 * e + 2, _int_of(ts_accepts(s, who))))
            drawn[who] += 1
            if who == seat:
                if tile is None:
                    raise ValueError("observation: the seat's own draw does not show its tile")
                t = to_wide_index(tile)
                w_set(&mine_drawn, t)
                draw_known.append(t)
            else:
                nxt = log[e + 1] if e + 1 < len(log) else None
                if nxt is None or nxt[1] != who or nxt[0] == "draw":
                    raise ValueError(f"observation: seat {who}'s draw is not followed by its "
                                     f"placement or pass")
                if nxt[0] == "place":
                    draw_known.append(to_wide_index(nxt[2]))
                    known_drawn += 1
                else:
                    draw_groups.append((who, 2 * e + 3, len(draw_known)))
                    draw_known.append(None)
        elif kind == "pass":
            voids.append((who, 2 * e + 2, _int_of(ts_accepts(s, who))))
            s.passes += 1
            if stock_left == 0:
                empty_passes += 1
                if empty_passes >= 2 * players:  # trainstate.pyx: fewer in any run
                    raise ValueError("observation: more passes in a row with the stock "
                                     "empty than a round allows")
            if s.layout == LAYOUT_TRAINS:
                s.public |= 1 << who
        else:
            raise ValueError(f"observation: a log event of kind {kind!r}")
    if len(draw_known) > 88:
        raise ValueError("observation: more draws than any stock holds")
    if s.layout == LAYOUT_TRAINS:
        if len(obs.trains) != players + 1:
            raise ValueError("observation: one train per seat and the Mexican train")
        for i, (open_num, length, pub) in enumerate(obs.trains[:players]):
            if open_num != s.train_open[i] or length != s.train_len[i] \
                    or bool(pub) != bool(s.public >> i & 1):
                raise ValueError(f"observation: train P{i} disagrees with the log")
    # a drawn tile the mover must place
    last = log[len(log) - 1] if log else None  # (the core is built without wraparound)
    if last is not None and last[0] == "draw" and last[1] == seat:
        s.forced = to_wide_index(last[2])
        if not w_has(hand, s.forced):
            raise ValueError("observation: the tile just drawn is not in the hand")
    # the observer's deal: its hand and its placements, less its draws
    if w_any(w_andnot(mine_drawn, w_or(hand, mine_placed))):
        raise ValueError("observation: a tile the seat drew is neither held nor placed")
    self.hand0[seat] = w_andnot(w_or(hand, mine_placed), mine_drawn)
    # what the seat cannot see
    seen = w_or(w_or(s.table, hand), w_bit(e_tile))
    rest = w_andnot(WIDE_SET[set_max], seen)
    self.n_unseen = 0
    while w_any(rest):
        self.unseen[self.n_unseen] = w_first(rest)
        self.n_unseen += 1
        rest = w_rest(rest)
    n_others = 0
    for i in range(players):
        self.sizes[i] = obs.hand_sizes[i]
        if i != seat:
            if obs.hand_sizes[i] < 1:
                raise ValueError(f"observation: seat {i} holds no tile while play goes on")
            n_others += obs.hand_sizes[i]
        if obs.hand_sizes[i] + placed[i] - drawn[i] < 1:
            raise ValueError(f"observation: seat {i}'s hand size, placements and draws "
                             f"leave it no tile at the deal")
    self.stock_size = obs.stock_size
    if n_others + obs.stock_size != self.n_unseen:
        raise ValueError(f"observation: the other hands ({n_others}) and the stock "
                         f"({obs.stock_size}) do not hold the {self.n_unseen} unseen tiles")
    ts_gen(s)
    if s.n_moves == 0:
        raise ValueError("observation: the seat to move has no placement")
    legal = sorted([_code(m) for m in obs.legal_moves])
    if legal != sorted([s.moves[i] for i in range(s.n_moves)]):
        raise ValueError("observation: its legal moves are not the position's")
    self.n_draws = len(draw_known)
    for i in range(self.n_draws):
        self.draw_tile[i] = -1 if draw_known[i] is None else draw_known[i]
    known = {kt for kt in draw_known if kt is not None}
    self.seat = seat
    if not model:
        self.why_not = "built without the model (model=False)"
        return 0
    try:
        _model(self, obs, voids, play_time, known, draw_groups, drawn, placed, max_states)
    except BaseException:
        self.seat = -1  # not built
        self.exact = False
        raise
    return 0


cdef int _model(TrainSampler self, object obs, list voids, dict play_time, set known,
                list draw_groups, list drawn, list placed, int max_states) except -1:
    """The groups, each hidden tile's allowed groups, the count and the sampling table."""
    cdef int seat = self.seat, players = obs.players, i, k
    # groups in the order the programme fills them: per other seat its deal then its
    # draws in time order (an unseen tile allowed in one of them is allowed in the later
    # ones: the classes merge as they are filled), the stock left last
    groups = []         # (seat, time got, capacity, draw index or -1)
    for who in range(players):
        if who == seat:
            continue
        # the deal: the tiles it holds now and placed, less the ones it drew
        groups.append((who, 0, obs.hand_sizes[who] + placed[who] - drawn[who], -1))
        for (s2, time, d) in draw_groups:
            if s2 == who:
                groups.append((who, time, 1, d))
    groups.append((STOCK, T_END, obs.stock_size, -1))
    n_groups = len(groups)
    if n_groups > 96:
        raise ValueError("observation: more hidden groups than the sampler holds")
    by_seat_voids = {}
    for (who, time, mask) in voids:
        by_seat_voids.setdefault(who, []).append((time, mask))
    # per hidden tile: its allowed groups (bit k: groups[k])
    tiles = {}
    for i in range(self.n_unseen):
        tiles[self.unseen[i]] = (-1, T_END)
    for t, (who, time) in play_time.items():
        if t not in known:
            tiles[t] = (who, time)
    masks = {}
    for t, (who, held) in tiles.items():
        m = 0
        for k, (gs, got, cap, d) in enumerate(groups):
            if gs == STOCK:
                if who < 0:
                    m |= 1 << k
                continue
            if gs == seat or (who >= 0 and gs != who) or got >= held:
                continue
            bit = 1 << t
            if any(got < vt < held and vm & bit for (vt, vm) in by_seat_voids.get(gs, ())):
                continue
            m |= 1 << k
        masks[t] = m
    caps = [cap for (_w, _tm, cap, _d) in groups]
    if any(c < 0 for c in caps) or sum(caps) != len(masks):
        raise ValueError("observation: the hand sizes, draws and placements do not add up")
    hidden = w_zero()
    for t in masks:
        w_set(&hidden, t)
    self.hidden = hidden
    self.n_groups = n_groups
    self.stock_group = n_groups - 1
    # The exact table, in that order; if it is too big, in the other one (per seat its
    # draws, then its deal), which is smaller in some positions with many seats.
    other = []
    for who in range(players):
        other += [k for k, g in enumerate(groups) if g[0] == who and g[3] >= 0]
        other += [k for k, g in enumerate(groups) if g[0] == who and g[3] < 0]
    other.append(n_groups - 1)
    result = _table(masks, caps, max_states)
    if result is None and other != list(range(n_groups)):
        permuted = {t: _permuted(m, other) for t, m in masks.items()}
        result = _table(permuted, [caps[k] for k in other], max_states)
        if result is not None:
            groups = [groups[k] for k in other]
            masks = permuted
    for k, (gs, got, cap, d) in enumerate(groups):
        self.g_seat[k] = gs
        self.g_draw[k] = d
    for t, m in masks.items():
        self.allowed[t].lo = <uint64_t>(m & 0xFFFFFFFFFFFFFFFF)
        self.allowed[t].hi = <uint64_t>(m >> 64)
    if result is not None:
        total, nodes, trans, classes = result
        if total == 0:
            raise ValueError("observation: no hidden deal is consistent with the record")
        self.total = total
        _store(self, nodes, trans, classes)
        self.exact = True
        self.why_not = None
        return 0
    # Too many states: a relaxed model (the unseen tiles may go to any group of some
    # other seats, whose voids then bind only the tiles they placed) is a superset of the
    # exact one, so its samples that satisfy every constraint are uniform over the
    # consistent deals (rejection).  The seats are relaxed one more at a time, the one
    # whose deal rules out the fewest unseen tiles first, until the table fits.
    unseen = [self.unseen[i] for i in range(self.n_unseen)]
    by_seat = {}
    for k, (gs, got, cap, d) in enumerate(groups):
        if gs != STOCK:
            by_seat[gs] = by_seat.get(gs, 0) | 1 << k
    deal_bit = {gs: 1 << k for k, (gs, got, cap, d) in enumerate(groups) if d < 0}
    order = sorted(by_seat, key=lambda w: (
        sum([1 for u in unseen if not masks[u] & deal_bit[w]]), w))
    result = None
    for n_relaxed in range(1, len(order) + 1):
        for t in unseen:
            for w in order[:n_relaxed]:
                masks[t] |= by_seat[w]
        result = _table(masks, caps, max_states)
        if result is not None:
            break
    if result is None or result[0] == 0:
        self.why_not = (f"the sampling table would exceed max_states={max_states} states, "
                        f"even relaxed: the unseen tiles are dealt uniformly")
        return 0
    total, nodes, trans, classes = result
    _store(self, nodes, trans, classes)
    self.exact = True
    self.rejecting = True
    self.why_not = None
    return 0


def _permuted(m, list order):
    """Mask m with group order[i] moved to bit i."""
    out = 0
    for i, k in enumerate(order):
        if m >> k & 1:
            out |= 1 << i
    return out


cdef int _store(TrainSampler self, list nodes, list trans, list classes) except -1:
    cdef int i
    cdef W128 m
    self.nodes = <TSNode*>PyMem_Malloc(max(1, len(nodes)) * sizeof(TSNode))
    self.trans = <TSTrans*>PyMem_Malloc(max(1, len(trans)) * sizeof(TSTrans))
    self.cls_mask = <W128*>PyMem_Malloc(max(1, len(classes)) * sizeof(W128))
    if self.nodes is NULL or self.trans is NULL or self.cls_mask is NULL:
        raise MemoryError()
    for i, (first, n, cls, group) in enumerate(nodes):
        self.nodes[i].first = first
        self.nodes[i].n = n
        self.nodes[i].cls = cls
        self.nodes[i].group = group
    for i, (cum, child, x) in enumerate(trans):
        self.trans[i].cum = cum
        self.trans[i].child = child
        self.trans[i].x = x
    for i, tiles in enumerate(classes):
        m = w_zero()
        for t in tiles:
            w_set(&m, t)
        self.cls_mask[i] = m
    self.n_nodes = len(nodes)
    return 0


def _table(dict masks, list caps, int max_states):
    """Count the assignments of the tiles (``masks``: tile -> allowed groups, bit k for
    group k) to the groups (``caps``: their sizes), filling group 0, then 1, ...; and the
    table that draws one uniformly.  None when it would exceed ``max_states`` states.

    Stage k fills group k.  Its classes are the tiles' masks shifted right by k (the groups
    still to fill), merged when equal; a state is how many tiles of each class are left.
    Within a stage the eligible classes (bit 0 set) are taken one at a time (how many go
    to group k: each choice a step), the others carried to the next stage's classes.
    Returns ``(total, nodes, trans, classes)``: nodes ``(first, n, class, group)``,
    transitions ``(cumulative probability, child or -1, tiles taken)``, class tile lists.
    """
    n_groups = len(caps)
    if any(m == 0 for m in masks.values()):
        return 0, [], [], []
    cl = []
    members = []
    for k in range(n_groups + 1):
        d = {}
        for t, m in masks.items():
            r = m >> k
            if r:
                d.setdefault(r, []).append(t)
        keys = sorted(d)
        cl.append(keys)
        members.append([sorted(d[r]) for r in keys])
    index = [{r: i for i, r in enumerate(keys)} for keys in cl]
    nxt = [[index[k + 1].get(r >> 1, -1) for r in cl[k]] for k in range(n_groups)]
    elig = [[i for i, r in enumerate(cl[k]) if r & 1] for k in range(n_groups)]
    nonel = [[i for i, r in enumerate(cl[k]) if not r & 1] for k in range(n_groups)]
    step_of = []
    steps = []  # (k, j)
    for k in range(n_groups):
        step_of.append(len(steps))
        for j in range(len(elig[k])):
            steps.append((k, j))
    n_steps = len(steps)
    END = (n_steps, None)

    def stage_start(int k, tuple counts):
        while k < n_groups:
            acc = [0] * len(cl[k + 1])
            for c in nonel[k]:
                acc[nxt[k][c]] += counts[c]
            if not elig[k]:
                if caps[k]:
                    return None
                counts = tuple(acc)
                k += 1
                continue
            rest = tuple([counts[c] for c in elig[k]])
            if caps[k] > sum(rest):
                return None
            return (step_of[k], (caps[k], tuple(acc), rest))
        return END

    root = stage_start(0, tuple([len(mm) for mm in members[0]]))
    if root is None:
        return 0, [], [], []
    if root == END:
        return 1, [], [], []
    layers = [dict() for _ in range(n_steps)]
    layers[root[0]][root[1]] = None
    n_states = 1
    for step in range(n_steps):
        k, j = steps[step]
        c = elig[k][j]
        nx = nxt[k][c]
        layer = layers[step]
        for state in layer:
            cap, acc, rest = state
            n = rest[0]
            rest2 = rest[1:]
            s2 = sum(rest2)
            edges = []
            for x in range(max(0, cap - s2), min(n, cap) + 1):
                left = n - x
                if left and nx < 0:
                    continue
                acc2 = acc
                if left:
                    acc2 = acc[:nx] + (acc[nx] + left,) + acc[nx + 1:]
                if rest2:
                    child = (step + 1, (cap - x, acc2, rest2))
                else:
                    child = stage_start(k + 1, acc2)
                    if child is None:
                        continue
                if child != END and child[1] not in layers[child[0]]:
                    layers[child[0]][child[1]] = None
                    n_states += 1
                    if n_states > max_states:
                        return None
                edges.append((x, child))
            layer[state] = edges
    # counts, last step first
    count = {END: 1}
    for step in range(n_steps - 1, -1, -1):
        k, j = steps[step]
        for state, edges in layers[step].items():
            n = state[2][0]
            total = 0
            for x, child in edges:
                total += comb(n, x) * count.get(child, 0)
            count[(step, state)] = total
    total = count[root]
    if total == 0:
        return 0, [], [], []
    # the table: nodes reachable from the root with a non-zero count, root first
    ids = {root: 0}
    order = [root]
    nodes = []
    trans = []
    classes = []
    cls_ids = {}
    i = 0
    while i < len(order):
        key = order[i]
        i += 1
        step, state = key
        k, j = steps[step]
        c = elig[k][j]
        if (k, c) not in cls_ids:
            cls_ids[(k, c)] = len(classes)
            classes.append(members[k][c])
        n = state[2][0]
        here = count[key]
        first = len(trans)
        run = 0
        for x, child in layers[step][state]:
            w = comb(n, x) * count.get(child, 0)
            if w == 0:
                continue
            run += w
            if child == END:
                cid = -1
            else:
                if child not in ids:
                    ids[child] = len(order)
                    order.append(child)
                cid = ids[child]
            trans.append((run / here, cid, x))
        trans[len(trans) - 1] = (1.0, trans[len(trans) - 1][1], trans[len(trans) - 1][2])
        nodes.append((first, len(trans) - first, cls_ids[(k, c)], k))
    return total, nodes, trans, classes
