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
  the assignments are counted by a dynamic programme in C (``dp_table``) over the groups
  whose state is how many tiles of each class are left, the classes merged as the groups
  that told them apart are filled (the strictest seat's groups first: ``_fill_order``).
  Its counts are doubles (positive sums, below 90!: no overflow, no cancellation;
  docs/sampler.md says why); ``count`` reruns it over the finished table in Python
  integers, exactly.  The counts become one table of choice
  probabilities that ``sample`` walks without the GIL (uniform up to their rounding).
* If that table would exceed ``max_states`` states in both orders tried, a relaxed table
  proposes deals and only consistent ones are kept (rejection); if even that is too big,
  the sampler says so (``exact`` False, ``fallback`` the reason) and deals uniformly.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.math cimport exp, log as c_log  # log: the round's log in _build
from libc.stdint cimport int16_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

from bones.core.rng cimport rng_below, rng_next, rng_seed
from bones.core.trainstate cimport (
    LAYOUT_CHICKEN, LAYOUT_TRAINS, TR_MEXICAN, TR_PLAYING, TrainState,
    move_target, move_tile, ts_accepts, ts_copy, ts_fit_trains, ts_gen, ts_open_trains,
    ts_place,
)
from bones.core.trains cimport TrainMove, TrainRound
from bones.core.wideset cimport (
    W128, WIDE_DOUBLE, WIDE_HI, WIDE_LO, WIDE_SET, to_wide_index, w_and, w_andnot,
    w_any, w_bit, w_count, w_first, w_has, w_or, w_rest, w_set, w_zero, wide_tile,
)

from math import comb, factorial

from bones.core.observation import TrainObservation

#: The sharpest belief model (weighed_deal's beta): exp(-beta * pips) stays a number.
MAX_BETA = 100.0
#: The default bound on the sampling table's states (TrainSampler(max_states=...)).
MAX_STATES = 150_000
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


cdef int _code(object move) except -1:
    """A move's code from a TrainMove or its text: an observation's legal moves and log
    may hold either (the code, not the text, is what the sampler reads)."""
    if isinstance(move, TrainMove):
        return (<TrainMove>move).code
    return TrainMove.parse(move).code


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
        self.n_choices = 0

    def __dealloc__(self):
        PyMem_Free(self.base)
        free(self.nodes)
        free(self.trans)
        free(self.cls_mask)

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
        self.sample_ll(dst, rng, 0.0)

    cdef double sample_ll(self, TrainState* dst, uint64_t* rng, double beta) noexcept nogil:
        """sample, and the deal's log-likelihood under the belief model of sharpness beta
        (log_likelihood; 0.0 when beta is 0 or the deal is not from the exact model)."""
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
            return self.log_likelihood(where, beta) if beta > 0 else 0.0
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
        return 0.0

    cdef double log_likelihood(self, const uint8_t* where, double beta) noexcept nogil:
        """The log-probability that the other seats, holding the tiles where gives them,
        chose the tiles they placed on trains not their own (any foot in Chicken Foot):
        each such choice a softmax over the tiles it could have placed there then,
        exp(beta * pips).  Their own trains are left out: a player builds its own train
        by its plan, not by its tiles' weight, and a placement just after a draw was the
        drawn tile's."""
        cdef W128 got[96]
        cdef double below[25]
        cdef W128 m, held, offered
        cdef TSChoice* c
        cdef double ll = 0, total
        cdef int t, k, e, top, pips
        for k in range(self.n_groups):
            got[k] = w_zero()
        m = self.hidden
        while w_any(m):
            t = w_first(m)
            m = w_rest(m)
            w_set(&got[where[t]], t)
        for k in range(25):  # the weight of a tile k pips lighter than the heaviest offered
            below[k] = exp(-beta * k)
        for e in range(self.n_choices):
            c = &self.choices[e]
            held = w_zero()
            for k in range(self.n_groups):
                if self.g_seat[k] == c.seat and self.g_got[k] < c.time:
                    held = w_or(held, got[k])
            offered = w_andnot(w_and(held, c.offered), c.placed)
            if w_count(offered) < 2:
                continue  # no choice
            top = 0
            m = offered
            while w_any(m):
                t = w_first(m)
                m = w_rest(m)
                pips = WIDE_LO[t] + WIDE_HI[t]
                if pips > top:
                    top = pips
            total = 0
            m = offered
            while w_any(m):
                t = w_first(m)
                m = w_rest(m)
                total += below[top - WIDE_LO[t] - WIDE_HI[t]]
            ll += -beta * (top - WIDE_LO[c.tile] - WIDE_HI[c.tile]) - c_log(total)
        return ll

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
        return _exact_count(self) * factorial(self.stock_size)

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
        return self.weighed_deal(seed, 0.0)[:2]

    def weighed_deal(self, uint64_t seed, double beta):
        """One sample from ``seed`` and its log-likelihood under the belief model of
        sharpness ``beta`` (``bones.core.trainsearch.pimc``'s ``infer``; 0: none):
        ``(hands, stock, log_likelihood)``, the first two as :meth:`deal` gives them."""
        cdef TrainState* s
        cdef uint64_t rng = rng_seed(seed)
        cdef double ll
        self._check_built()
        if not 0 <= beta <= MAX_BETA:
            raise ValueError(f"beta must be from 0 to {MAX_BETA:g}, not {beta}")
        s = <TrainState*>PyMem_Malloc(sizeof(TrainState))
        if s is NULL:
            raise MemoryError()
        try:
            ll = self.sample_ll(s, &rng, beta)
            hands = tuple([_texts(s.hand[i]) for i in range(s.players)])
            stock = tuple([str(wide_tile(s.stock[i])) for i in range(s.stock_len)])
            return hands, stock, ll
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


cdef int _place(TrainState* s, int t, int target, int seat, object tile, object where) except -1:
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
    cdef W128 placed_by[8]
    cdef TSChoice* choice
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
    if obs.layout_name not in ("trains", "chicken_foot"):
        raise ValueError(f"observation: unknown layout {obs.layout_name!r}")
    e_tile = WIDE_DOUBLE[engine]
    memset(s, 0, sizeof(TrainState))
    s.layout = LAYOUT_TRAINS if obs.layout_name == "trains" else LAYOUT_CHICKEN
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
    for i in range(8):
        placed_by[i] = w_zero()
    self.n_choices = 0
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
            if who != seat and (s.layout == LAYOUT_CHICKEN or target != who) \
                    and not (e > 0 and log[e - 1][0] == "draw" and log[e - 1][1] == who) \
                    and self.n_choices < 91:
                # a choice the belief model reads (log_likelihood): not on its own train,
                # not of the tile it just drew (one per tile placed: the bound never binds)
                choice = &self.choices[self.n_choices]
                if s.layout == LAYOUT_CHICKEN:
                    choice.offered = ts_accepts(s, who)
                else:
                    choice.offered = ts_fit_trains(s, ts_open_trains(s, who) & ~(1 << who))
                choice.placed = placed_by[who]
                choice.time = 2 * e + 2
                choice.seat = who
                choice.tile = t
                self.n_choices += 1
            _place(s, t, target, who, tile, where)
            w_set(&placed_by[who], t)
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
    cdef int seat = self.seat, players = obs.players, i  # k stays a Python int: 1 << k past bit 31
    # groups per other seat (its deal, then its draws in time order), the stock left last;
    # the programme fills them in another order (below)
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
    # The order the programme fills the groups in decides how many states its table has
    # (tens of times more in one order than another at 8 seats).  The seats are taken
    # strictest first (the one whose deal rules out the most unseen tiles), as the tiles
    # they tell apart are then merged early; with more than one other seat each seat's
    # draws before its deal (smaller tables at 4 and 8 seats), with one its deal first
    # (smaller at 2); if the table is too big, the other way round.
    unseen = [self.unseen[i] for i in range(self.n_unseen)]
    deal_of = {g[0]: k for k, g in enumerate(groups) if g[3] < 0 and g[0] != STOCK}
    rules_out = {w: sum([1 for u in unseen if not masks[u] >> k & 1])
                 for w, k in deal_of.items()}
    strictest = sorted(deal_of, key=lambda w: (-rules_out[w], w))
    orders = [_fill_order(groups, strictest, len(strictest) > 1),
              _fill_order(groups, strictest, len(strictest) == 1)]
    built = False
    for order in orders[:1] if orders[0] == orders[1] else orders:
        permuted = {t: _permuted(m, order) for t, m in masks.items()}
        built = _try_table(self, permuted, [caps[k] for k in order], max_states)
        if built:
            break
    order = order if built else orders[0]
    groups = [groups[k] for k in order]
    caps = [caps[k] for k in order]
    masks = {t: _permuted(m, order) for t, m in masks.items()}
    for k, (gs, got, cap, d) in enumerate(groups):
        self.g_seat[k] = gs
        self.g_draw[k] = d
        self.g_got[k] = got
    for t, m in masks.items():
        self.allowed[t].lo = <uint64_t>(m & 0xFFFFFFFFFFFFFFFF)
        self.allowed[t].hi = <uint64_t>(m >> 64)
    if built:
        if self.weight == 0:
            raise ValueError("observation: no hidden deal is consistent with the record")
        self.exact = True
        self.why_not = None
        return 0
    # Too many states: a relaxed model (the unseen tiles may go to any group of some
    # other seats, whose voids then bind only the tiles they placed) is a superset of the
    # exact one, so its samples that satisfy every constraint are uniform over the
    # consistent deals (rejection).  The seats are relaxed one more at a time, the one
    # whose deal rules out the fewest unseen tiles first, until the table fits.
    by_seat = {}
    for k, (gs, got, cap, d) in enumerate(groups):
        if gs != STOCK:
            by_seat[gs] = by_seat.get(gs, 0) | 1 << k
    loosest = strictest[::-1]
    for n_relaxed in range(1, len(loosest) + 1):
        for t in unseen:
            for w in loosest[:n_relaxed]:
                masks[t] |= by_seat[w]
        built = _try_table(self, masks, caps, max_states)
        if built:
            break
    if not built or self.weight == 0:
        self.why_not = (f"the sampling table would exceed max_states={max_states} states, "
                        f"even relaxed: the unseen tiles are dealt uniformly")
        return 0
    self.exact = True
    self.rejecting = True
    self.why_not = None
    return 0


def _fill_order(list groups, list seats, bint draws_first):
    """The groups' indices in a filling order: per seat of seats its draws (in time
    order) and its deal, the draws first or last; the stock left last."""
    order = []
    for who in seats:
        deal = [k for k, g in enumerate(groups) if g[0] == who and g[3] < 0]
        draws = [k for k, g in enumerate(groups) if g[0] == who and g[3] >= 0]
        order += draws + deal if draws_first else deal + draws
    order.append(len(groups) - 1)
    return order


cdef int _try_table(TrainSampler self, dict masks, list caps, long max_states) except -1:
    """Build the table of this model into self (dp_table); 1, or 0 past max_states."""
    cdef W128 m[91]
    cdef uint8_t tiles[91]
    cdef uint8_t cp[96]
    cdef int n = 0, k, rc
    cdef double weight = 0
    for t, mask in masks.items():
        tiles[n] = t
        m[n].lo = <uint64_t>(mask & 0xFFFFFFFFFFFFFFFF)
        m[n].hi = <uint64_t>(mask >> 64)
        n += 1
    for k in range(len(caps)):
        cp[k] = caps[k]
    free(self.nodes)
    free(self.trans)
    free(self.cls_mask)
    self.nodes = NULL
    self.trans = NULL
    self.cls_mask = NULL
    self.n_nodes = 0
    rc = dp_table(self, m, tiles, n, cp, len(caps), max_states, &weight)
    if rc == DP_NO_MEMORY:
        raise MemoryError()
    self.weight = weight
    return rc == DP_BUILT


cdef object _exact_count(TrainSampler self):
    """The assignments the table counts, as an exact integer: the same programme over
    its nodes (a child always after its parent), in Python integers."""
    cdef int i, e
    cdef TSNode* nd
    if self.n_nodes == 0:
        return 1 if self.weight > 0 else 0
    count = [0] * self.n_nodes
    for i in range(self.n_nodes - 1, -1, -1):
        nd = &self.nodes[i]
        total = 0
        for e in range(nd.first, nd.first + nd.n):
            child = self.trans[e].child
            total += comb(nd.avail, self.trans[e].x) * (1 if child < 0 else count[child])
        count[i] = total
    return count[0]


def _permuted(m, list order):
    """Mask m with group order[i] moved to bit i."""
    out = 0
    for i, k in enumerate(order):
        if m >> k & 1:
            out |= 1 << i
    return out


# --- the counting programme (C) ----------------------------------------------------------

cdef enum:
    DP_BUILT = 0                 # the table is built (its total may be 0: no deal)
    DP_TOO_BIG = 1               # more than max_states states
    DP_NO_MEMORY = 2

cdef int DP_DEAD = -1            # stage_start: no way to fill the groups from here
cdef int DP_END = -2             # stage_start: every group is filled


ctypedef struct DPLayer:
    int key_len                  # bytes of a state's key at this step
    int n                        # states
    int room                     # states the key arena holds
    uint8_t* keys                # n * key_len bytes: cap left, then the class counts
    int real_len                 # bytes in use (the rest, to a multiple of 8, zero)
    int32_t* slots               # open addressing: local index + 1, 0 when empty
    uint32_t* tags               # per slot, the low 32 bits of its key's hash
    int n_slots                  # a power of two, >= 2 * n


ctypedef struct DP:
    int n_groups                 # G
    int n_steps                  # S: one per (group, class allowed in it)
    const uint8_t* caps          # per group, its size
    int n_cls[97]                # per stage k (0..G), its classes
    W128* key                    # [97 * 91]: per stage and class, the allowed groups >> k
    W128* mem                    # [97 * 91]: per stage and class, its tiles
    int16_t* nxt                 # [96 * 91]: the class at stage k + 1 of its leftovers
    int16_t* elig                # [96 * 91]: per stage, the classes allowed in group k
    int n_elig[96]               # their number
    int16_t* nonel               # [96 * 91]: the others
    int n_nonel[96]              # their number
    int* step_of                 # [97]: the first step of each stage
    int* step_k                  # [S]: the stage of each step
    int* step_j                  # [S]: the eligible class of each step
    DPLayer* layers              # [S]
    long n_states                # states so far
    long max_states              # the bound
    int n_edges                  # edges so far
    int room_edges               # edges the arrays hold
    uint8_t* e_x                 # per edge, tiles taken
    int32_t* e_step              # per edge, the child's step (or DP_END)
    int32_t* e_local             # per edge, the child's index in its layer
    int32_t* s_first             # per state (global id), its first edge
    uint8_t* s_avail             # per state, tiles of its class left
    int room_states              # states the per-state arrays hold


cdef inline W128 w_shr1(W128 a) noexcept nogil:
    cdef W128 r
    r.lo = (a.lo >> 1) | (a.hi << 63)
    r.hi = a.hi >> 1
    return r


cdef inline bint w_eq(W128 a, W128 b) noexcept nogil:
    return a.lo == b.lo and a.hi == b.hi


cdef inline uint64_t key_hash(const uint8_t* key, int n) noexcept nogil:
    """A hash of n bytes (a multiple of 8), a word at a time."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL, w
    cdef int i
    for i in range(0, n, 8):
        memcpy(&w, key + i, 8)
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL
        h ^= h >> 32
    return h


cdef int layer_find(DP* d, DPLayer* L, uint8_t* key) noexcept nogil:
    """The index of key in L, inserted if new; -1 past max_states, -2 out of memory."""
    cdef uint64_t h
    cdef int i, j, k
    cdef int32_t* slots
    cdef uint32_t* tags
    cdef uint8_t* keys
    memset(key + L.real_len, 0, L.key_len - L.real_len)
    h = key_hash(key, L.key_len)
    if L.n_slots == 0 or 2 * (L.n + 1) > L.n_slots:
        k = 64 if L.n_slots == 0 else 2 * L.n_slots
        slots = <int32_t*>calloc(k, sizeof(int32_t))
        tags = <uint32_t*>malloc(k * sizeof(uint32_t))
        if slots is NULL or tags is NULL:
            free(slots)
            free(tags)
            return -2
        for i in range(L.n_slots):
            if L.slots[i]:
                j = <int>(L.tags[i] & (k - 1))
                while slots[j]:
                    j = (j + 1) & (k - 1)
                slots[j] = L.slots[i]
                tags[j] = L.tags[i]
        free(L.slots)
        free(L.tags)
        L.slots = slots
        L.tags = tags
        L.n_slots = k
    j = <int>(h & (L.n_slots - 1))
    while L.slots[j]:
        if L.tags[j] == <uint32_t>h:
            i = L.slots[j] - 1
            if memcmp(L.keys + <size_t>i * L.key_len, key, L.key_len) == 0:
                return i
        j = (j + 1) & (L.n_slots - 1)
    if d.n_states >= d.max_states:
        return -1
    if L.n == L.room:
        k = 16 if L.room == 0 else 2 * L.room
        keys = <uint8_t*>realloc(L.keys, <size_t>k * L.key_len)
        if keys is NULL:
            return -2
        L.keys = keys
        L.room = k
    memcpy(L.keys + <size_t>L.n * L.key_len, key, L.key_len)
    L.slots[j] = L.n + 1
    L.tags[j] = <uint32_t>h
    L.n += 1
    d.n_states += 1
    return L.n - 1


cdef int stage_start(DP* d, int k, uint8_t* counts, uint8_t* out) noexcept nogil:
    """From the class counts at the start of stage k: the first step whose state (written
    to out) has a group to fill, DP_END or DP_DEAD.  counts is overwritten."""
    cdef int c, i, na, total
    while k < d.n_groups:
        na = d.n_cls[k + 1]
        memset(out + 1, 0, na)
        for i in range(d.n_nonel[k]):
            c = d.nonel[k * 91 + i]
            out[1 + d.nxt[k * 91 + c]] += counts[c]
        if d.n_elig[k] == 0:
            if d.caps[k]:
                return DP_DEAD
            memcpy(counts, out + 1, na)
            k += 1
            continue
        total = 0
        for i in range(d.n_elig[k]):
            c = d.elig[k * 91 + i]
            out[1 + na + i] = counts[c]
            total += counts[c]
        if d.caps[k] > total:
            return DP_DEAD
        out[0] = d.caps[k]
        return d.step_of[k]
    return DP_END


cdef int add_edge(DP* d, int x, int step, int local) noexcept nogil:
    cdef int k
    if d.n_edges == d.room_edges:
        k = 1024 if d.room_edges == 0 else 2 * d.room_edges
        d.e_x = <uint8_t*>realloc(d.e_x, k)
        d.e_step = <int32_t*>realloc(d.e_step, k * sizeof(int32_t))
        d.e_local = <int32_t*>realloc(d.e_local, k * sizeof(int32_t))
        if d.e_x is NULL or d.e_step is NULL or d.e_local is NULL:
            return -1
        d.room_edges = k
    d.e_x[d.n_edges] = x
    d.e_step[d.n_edges] = step
    d.e_local[d.n_edges] = local
    d.n_edges += 1
    return 0


cdef void dp_free(DP* d) noexcept nogil:
    cdef int s
    if d.layers is not NULL:
        for s in range(d.n_steps):
            free(d.layers[s].keys)
            free(d.layers[s].slots)
            free(d.layers[s].tags)
    free(d.layers)
    free(d.key)
    free(d.mem)
    free(d.nxt)
    free(d.elig)
    free(d.nonel)
    free(d.step_of)
    free(d.step_k)
    free(d.step_j)
    free(d.e_x)
    free(d.e_step)
    free(d.e_local)
    free(d.s_first)
    free(d.s_avail)


cdef inline bint w_less(W128 a, W128 b) noexcept nogil:
    return a.hi < b.hi or (a.hi == b.hi and a.lo < b.lo)


cdef void sort_classes(W128* key, W128* mem, int n) noexcept nogil:
    """Classes in the order of their masks (the groups still open, as a number): the
    order the programme takes them in, which keeps its states few."""
    cdef int i, j
    cdef W128 k, m
    for i in range(1, n):
        k = key[i]
        m = mem[i]
        j = i - 1
        while j >= 0 and w_less(k, key[j]):
            key[j + 1] = key[j]
            mem[j + 1] = mem[j]
            j -= 1
        key[j + 1] = k
        mem[j + 1] = m


cdef int find_class(const W128* key, int n, W128 r) noexcept nogil:
    cdef int c
    for c in range(n):
        if w_eq(key[c], r):
            return c
    return -1


cdef int dp_classes(DP* d, const W128* masks, const uint8_t* tiles, int n_tiles) noexcept nogil:
    """The classes of every stage, their successors and the steps."""
    cdef int k, i, c, n, s
    cdef W128 r
    cdef W128* key
    cdef W128* mem
    n = 0  # stage 0: the tiles' masks, merged when equal
    for i in range(n_tiles):
        c = find_class(d.key, n, masks[i])
        if c < 0:
            c = n
            n += 1
            d.key[c] = masks[i]
            d.mem[c] = w_zero()
        w_set(&d.mem[c], tiles[i])
    sort_classes(d.key, d.mem, n)
    d.n_cls[0] = n
    for k in range(d.n_groups):
        key = d.key + (k + 1) * 91
        mem = d.mem + (k + 1) * 91
        n = 0
        d.n_elig[k] = 0
        d.n_nonel[k] = 0
        for i in range(d.n_cls[k]):
            if d.key[k * 91 + i].lo & 1:
                d.elig[k * 91 + d.n_elig[k]] = i
                d.n_elig[k] += 1
            else:
                d.nonel[k * 91 + d.n_nonel[k]] = i
                d.n_nonel[k] += 1
            r = w_shr1(d.key[k * 91 + i])
            if not w_any(r):
                continue
            c = find_class(key, n, r)
            if c < 0:
                c = n
                n += 1
                key[c] = r
                mem[c] = w_zero()
            mem[c] = w_or(mem[c], d.mem[k * 91 + i])
        sort_classes(key, mem, n)
        d.n_cls[k + 1] = n
        for i in range(d.n_cls[k]):
            r = w_shr1(d.key[k * 91 + i])
            d.nxt[k * 91 + i] = find_class(key, n, r) if w_any(r) else -1
    s = 0
    for k in range(d.n_groups):
        d.step_of[k] = s
        s += d.n_elig[k]
    d.step_of[d.n_groups] = s
    d.n_steps = s
    d.step_k = <int*>malloc(max(1, s) * sizeof(int))
    d.step_j = <int*>malloc(max(1, s) * sizeof(int))
    d.layers = <DPLayer*>calloc(max(1, s), sizeof(DPLayer))
    if d.step_k is NULL or d.step_j is NULL or d.layers is NULL:
        return -1
    for k in range(d.n_groups):
        for i in range(d.n_elig[k]):
            s = d.step_of[k] + i
            d.step_k[s] = k
            d.step_j[s] = i
            d.layers[s].real_len = 1 + d.n_cls[k + 1] + d.n_elig[k] - i
            d.layers[s].key_len = (d.layers[s].real_len + 7) & ~7
    return 0


cdef int dp_expand(DP* d) noexcept nogil:
    """Every state of every step, in order, with its edges (d.s_first: per state by global
    id, states numbered layer after layer); DP_TOO_BIG or DP_NO_MEMORY."""
    cdef uint8_t buf[200]
    cdef uint8_t counts[100]
    cdef int s, i, k, j, c, nx, na, nr, n, cap, s2, x, lo, hi, left, child, local, gid = 0
    cdef DPLayer* L
    cdef uint8_t* key
    cdef uint8_t* p
    for s in range(d.n_steps):
        L = &d.layers[s]
        k = d.step_k[s]
        j = d.step_j[s]
        c = d.elig[k * 91 + j]
        nx = d.nxt[k * 91 + c]
        na = d.n_cls[k + 1]
        nr = d.n_elig[k] - j
        if gid + L.n > d.room_states:
            d.room_states = max(2 * d.room_states, gid + L.n + 1024)
            d.s_first = <int32_t*>realloc(d.s_first, (d.room_states + 1) * sizeof(int32_t))
            d.s_avail = <uint8_t*>realloc(d.s_avail, d.room_states)
            if d.s_first is NULL or d.s_avail is NULL:
                return DP_NO_MEMORY
        for i in range(L.n):
            # (L.keys moves when the layer grows: only later layers grow here)
            key = L.keys + <size_t>i * L.key_len
            cap = key[0]
            n = key[1 + na]
            s2 = 0
            for x in range(1, nr):
                s2 += key[1 + na + x]
            d.s_first[gid] = d.n_edges
            d.s_avail[gid] = n
            gid += 1
            lo = cap - s2 if cap > s2 else 0
            hi = n if n < cap else cap
            for x in range(lo, hi + 1):
                left = n - x
                if left and nx < 0:
                    continue
                if nr > 1:
                    p = buf
                    p[0] = cap - x
                    memcpy(p + 1, key + 1, na)
                    if left:
                        p[1 + nx] += left
                    memcpy(p + 1 + na, key + 2 + na, nr - 1)
                    child = s + 1
                else:
                    memcpy(counts, key + 1, na)
                    if left:
                        counts[nx] += left
                    child = stage_start(d, k + 1, counts, buf)
                    if child == DP_DEAD:
                        continue
                if child == DP_END:
                    local = 0
                else:
                    local = layer_find(d, &d.layers[child], buf)
                    if local == -1:
                        return DP_TOO_BIG
                    if local == -2:
                        return DP_NO_MEMORY
                if add_edge(d, x, child, local) < 0:
                    return DP_NO_MEMORY
    d.s_first[gid] = d.n_edges
    return DP_BUILT


cdef double[92][92] COMB        # binomial coefficients as doubles
cdef int _init_comb() except -1:
    cdef int n, k
    for n in range(92):
        COMB[n][0] = 1.0
        for k in range(1, 92):
            COMB[n][k] = 0.0 if k > n else COMB[n - 1][k - 1] + (COMB[n - 1][k] if k < n else 0.0)
    return 0
_init_comb()


cdef int dp_table(TrainSampler self, const W128* masks, const uint8_t* tiles, int n_tiles,
                  const uint8_t* caps, int n_groups, long max_states,
                  double* total) noexcept:
    """Count the assignments of the tiles (masks[i]: the groups tiles[i] may go to, bit k
    for group k) to the groups (caps: their sizes), filling group 0, then 1, ..., in
    doubles; and the table that draws one uniformly (self.nodes, trans, cls_mask).

    Stage k fills group k.  Its classes are the tiles' masks shifted right by k (the
    groups still to fill), merged when equal; a state is how many tiles of each class are
    left.  Within a stage the classes allowed in group k are taken one at a time (how many
    go to group k: each choice a step), the others carried to the next stage's classes."""
    cdef DP d
    cdef uint8_t counts[100]
    cdef uint8_t buf[200]
    cdef int i, root
    cdef int rc = DP_NO_MEMORY
    memset(&d, 0, sizeof(DP))
    d.n_groups = n_groups
    d.caps = caps
    d.max_states = max_states
    total[0] = 0
    for i in range(n_tiles):
        if not w_any(masks[i]):
            return DP_BUILT  # a tile with nowhere to go: no deal
    d.key = <W128*>malloc(97 * 91 * sizeof(W128))
    d.mem = <W128*>malloc(97 * 91 * sizeof(W128))
    d.nxt = <int16_t*>malloc(96 * 91 * sizeof(int16_t))
    d.elig = <int16_t*>malloc(96 * 91 * sizeof(int16_t))
    d.nonel = <int16_t*>malloc(96 * 91 * sizeof(int16_t))
    d.step_of = <int*>malloc(97 * sizeof(int))
    if d.key is NULL or d.mem is NULL or d.nxt is NULL or d.elig is NULL \
            or d.nonel is NULL or d.step_of is NULL or dp_classes(&d, masks, tiles, n_tiles):
        dp_free(&d)
        return DP_NO_MEMORY
    for i in range(d.n_cls[0]):
        counts[i] = <uint8_t>w_count(d.mem[i])
    root = stage_start(&d, 0, counts, buf)
    if root == DP_DEAD:
        dp_free(&d)
        return DP_BUILT
    if root == DP_END:
        total[0] = 1
        dp_free(&d)
        return DP_BUILT
    if layer_find(&d, &d.layers[root], buf) < 0:
        dp_free(&d)
        return DP_TOO_BIG
    rc = dp_expand(&d)
    if rc != DP_BUILT:
        dp_free(&d)
        return rc
    rc = dp_emit(self, &d, total)
    dp_free(&d)
    return rc


cdef int dp_emit(TrainSampler self, DP* d, double* total) noexcept:
    """The counts of d's states, last first, and the sampling table from them."""
    cdef long n_states = d.n_states
    cdef int* base = <int*>malloc((d.n_steps + 1) * sizeof(int))
    cdef double* cnt = <double*>malloc(max(1, n_states) * sizeof(double))
    cdef int* new_id = <int*>malloc(max(1, n_states) * sizeof(int))
    cdef int rc = DP_NO_MEMORY
    if base is not NULL and cnt is not NULL and new_id is not NULL:
        rc = dp_emit_into(self, d, base, cnt, new_id, total)
    free(base)
    free(cnt)
    free(new_id)
    return rc


cdef int dp_emit_into(TrainSampler self, DP* d, int* base, double* cnt, int* new_id,
                      double* total) noexcept:
    cdef int i, k, s, n_nodes, e, child, nn, first
    cdef long g, n_states = d.n_states
    cdef double w, run, here
    g = 0
    for s in range(d.n_steps):
        base[s] = <int>g
        g += d.layers[s].n
    # counts, last state first (a child is in a later layer: a larger id)
    for g in range(n_states - 1, -1, -1):
        w = 0
        for e in range(d.s_first[g], d.s_first[g + 1]):
            if d.e_step[e] == DP_END:
                w += COMB[d.s_avail[g]][d.e_x[e]]
            else:
                w += COMB[d.s_avail[g]][d.e_x[e]] * cnt[base[d.e_step[e]] + d.e_local[e]]
        cnt[g] = w
    total[0] = cnt[0]  # the root is the first state
    # the table: the states with a non-zero count, in order (the root first)
    n_nodes = 0
    nn = 0
    for g in range(n_states):
        new_id[g] = -1
        if cnt[g] > 0:
            new_id[g] = n_nodes
            n_nodes += 1
            for e in range(d.s_first[g], d.s_first[g + 1]):
                if d.e_step[e] == DP_END or cnt[base[d.e_step[e]] + d.e_local[e]] > 0:
                    nn += 1
    self.nodes = <TSNode*>malloc(max(1, n_nodes) * sizeof(TSNode))
    self.trans = <TSTrans*>malloc(max(1, nn) * sizeof(TSTrans))
    self.cls_mask = <W128*>malloc(max(1, d.n_steps) * sizeof(W128))
    if self.nodes is NULL or self.trans is NULL or self.cls_mask is NULL:
        return DP_NO_MEMORY
    for s in range(d.n_steps):
        k = d.step_k[s]
        self.cls_mask[s] = d.mem[k * 91 + d.elig[k * 91 + d.step_j[s]]]
    nn = 0
    i = 0
    s = 0
    for g in range(n_states):
        while s + 1 < d.n_steps and g >= base[s + 1]:
            s += 1
        if new_id[g] < 0:
            continue
        here = cnt[g]
        first = nn
        run = 0
        for e in range(d.s_first[g], d.s_first[g + 1]):
            if d.e_step[e] == DP_END:
                child = -1
                w = COMB[d.s_avail[g]][d.e_x[e]]
            else:
                child = base[d.e_step[e]] + d.e_local[e]
                w = COMB[d.s_avail[g]][d.e_x[e]] * cnt[child]
                if w == 0:
                    continue
                child = new_id[child]
            run += w
            self.trans[nn].cum = run / here
            self.trans[nn].child = child
            self.trans[nn].x = d.e_x[e]
            nn += 1
        self.trans[nn - 1].cum = 1.0
        self.nodes[i].first = first
        self.nodes[i].n = nn - first
        self.nodes[i].cls = s
        self.nodes[i].group = d.step_k[s]
        self.nodes[i].avail = d.s_avail[g]
        i += 1
    self.n_nodes = n_nodes
    return DP_BUILT
