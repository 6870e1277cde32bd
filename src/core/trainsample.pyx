"""A determinizer for the train games (Mexican Train, Chicken Foot).

``TrainSampler(observation)`` rebuilds, from a ``TrainObservation`` alone, the public
position of the round (the trains or the chicken feet, the pending double and its toes
still due, the markers, the run of passes, a tile just drawn that must be placed) with the
observer's own hand, in a ``TrainState`` whose undo stack starts here.  Each ``sample``
then deals the tiles the seat cannot see (the set less the engine, its hand and the tiles
on the table) uniformly at random to the other hands and the stock, every hand and the
stock at its size.

It is uniform over the unseen tiles: the passes and the draws of the other seats (a seat
that drew showed it could not play on the ends open then) tell more, which this sampler
does not use yet; the double-six one (``bones.core.sampler``) is exact on such voids.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset

from bones.core.rng cimport rng_below, rng_seed
from bones.core.trainstate cimport (
    LAYOUT_CHICKEN, LAYOUT_TRAINS, TR_MEXICAN, TR_PLAYING, TrainState,
    move_target, move_tile, ts_copy, ts_gen,
)
from bones.core.trains cimport TrainRound
from bones.core.wideset cimport (
    W128, WIDE_DOUBLE, WIDE_HI, WIDE_LO, WIDE_SET, to_wide_index, w_andnot, w_any, w_bit, w_clear,
    w_count, w_first, w_has, w_or, w_rest, w_set, w_zero, wide_tile,
)

from bones.trains_records import TrainObservation


cdef inline int other_half(int t, int v) noexcept nogil:
    return WIDE_LO[t] + WIDE_HI[t] - v


cdef int _code(object text) except -1:
    """A move's code from its text (``TrainMove.parse``)."""
    from bones.core.trains import TrainMove

    return TrainMove.parse(text).code


cdef class TrainSampler:
    """The position ``observation`` shows to its seat (which must be the seat to move),
    and random deals of what that seat cannot see.  Only the observation is read."""

    def __cinit__(self, *args, **kwargs):
        self.base = <TrainState*>PyMem_Malloc(sizeof(TrainState))
        if self.base is NULL:
            raise MemoryError()
        memset(self.base, 0, sizeof(TrainState))
        self.seat = -1  # not built: made with __new__, sample() refuses

    def __dealloc__(self):
        PyMem_Free(self.base)

    def __init__(self, observation):
        _build(self, observation)

    cdef void sample(self, TrainState* dst, uint64_t* rng) noexcept nogil:
        """dst = the base position with the unseen tiles dealt at random (Fisher-Yates),
        the other hands first in seat order, the rest the stock (top first)."""
        cdef uint8_t deck[91]
        cdef int n = self.n_unseen, i, j, k = 0, seat, _c
        cdef uint8_t x
        ts_copy(dst, self.base)
        for i in range(n):
            deck[i] = self.unseen[i]
        for i in range(n - 1):
            j = i + <int>rng_below(rng, n - i)
            x = deck[i]
            deck[i] = deck[j]
            deck[j] = x
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


cdef int _build(TrainSampler self, object obs) except -1:
    cdef TrainState* s = self.base
    cdef int seat, players, set_max, engine, e_tile, t, target, code, v, i, n_others
    cdef W128 hand = w_zero(), seen, rest
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
    # the layout, placement by placement, as ts_play builds it (hands aside)
    for _p_seat, tile, where in obs.placements:
        code = _code(f"{tile}@{where}")
        t = move_tile(code)
        target = move_target(code)
        if w_has(s.table, t) or w_has(hand, t):
            raise ValueError(f"observation: tile {tile} is placed twice or placed and held")
        w_set(&s.table, t)
        if s.layout == LAYOUT_TRAINS:
            if target > TR_MEXICAN:
                raise ValueError(f"observation: bad target {where!r}")
            s.train_open[target] = other_half(t, s.train_open[target])
            s.train_len[target] += 1
            s.pending = target if WIDE_LO[t] == WIDE_HI[t] else -1
        elif target == s.pending:
            v = WIDE_LO[target]
            s.free_num[t] = other_half(t, v)
            w_set(&s.ends_by[s.free_num[t]], t)
            s.toes -= 1
            if s.toes == 0:
                s.pending = -1
        else:
            if not w_has(s.table, target):
                raise ValueError(f"observation: {tile} placed on {where}, not on the table")
            v = s.free_num[target]
            w_clear(&s.ends_by[v], target)
            if WIDE_LO[t] == WIDE_HI[t]:
                s.pending = t
                s.toes = 3
            else:
                s.free_num[t] = other_half(t, v)
                w_set(&s.ends_by[s.free_num[t]], t)
    if s.layout == LAYOUT_TRAINS:
        if len(obs.trains) != players + 1:
            raise ValueError("observation: one train per seat and the Mexican train")
        for i, (open_num, length, pub) in enumerate(obs.trains[:players]):
            if open_num != s.train_open[i] or length != s.train_len[i]:
                raise ValueError(f"observation: train P{i} disagrees with the placements")
            if pub:
                s.public |= 1 << i
    # the run of passes since the last placement, and a drawn tile the mover must place
    for kind, _seat, _tile, _target in obs.log:
        if kind == "place":
            s.passes = 0
        elif kind == "pass":
            s.passes += 1
    log = tuple(obs.log)
    last = log[len(log) - 1] if log else None  # (the core is built without wraparound)
    if last is not None and last[0] == "draw" and last[1] == seat:
        if last[2] is None:
            raise ValueError("observation: the mover's own draw does not show its tile")
        s.forced = to_wide_index(last[2])
        if not w_has(hand, s.forced):
            raise ValueError("observation: the tile just drawn is not in the hand")
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
    self.seat = seat
    return 0
