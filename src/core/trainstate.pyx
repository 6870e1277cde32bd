"""The train games' round state: move generation, play/undo and random playouts, in C.

Everything here is ``noexcept nogil`` over bitmasks: a hand is a 128-bit mask, the tiles
that can go on an end showing v are ``hand & WIDE_NUM[v]``.

Bounds (trainstate.pxd), for a double-N set with N <= 12, players 2..8, hands >= 1 tile:

* plies: a move is a placement and every placement puts one dealt tile on the table, so
  there are at most 90 (91 tiles less the engine) <= TR_MAX_PLIES.
* events: placements <= 90; draws <= the stock <= 90 - 2 = 88; passes: a pass made
  while the stock holds tiles follows a draw (<= 88 of them).  A run of consecutive
  passes ends at a placement or when the round is blocked; once the stock is empty, hands
  no longer change, and after ``players`` passes in a row every seat has passed (every
  train carries a marker), so the state no longer changes: either no seat can place
  (blocked) or the seat that can is reached within ``players - 1`` more turns.  So a run
  has at most ``2 * players - 1 <= 15`` passes with an empty stock, and there are at most
  placements + 1 <= 91 runs: passes <= 88 + 91 * 15 = 1453.  In all
  <= 90 + 88 + 1453 = 1631 <= TR_MAX_EVENTS (push_event still refuses to write past it).
* legal moves: trains, <= 9 trains x 13 tiles showing a number = 117; chicken foot, per
  number v the open ends showing v (e_v) times the hand's tiles with v (h_v), where both
  are distinct tiles containing v so e_v + h_v <= 13 and e_v * h_v <= 42: <= 13 * 42 = 546
  <= TR_MAX_MOVES.
"""

from libc.string cimport memcpy

from bones.core.rng cimport rng_below
from bones.core.wideset cimport (
    W128, WIDE_DOUBLE, WIDE_HI, WIDE_LO, WIDE_NUM, WIDE_SET, w_and, w_andnot, w_any, w_bit,
    w_clear, w_first, w_or, w_pips, w_rest, w_set, w_zero,
)


cdef inline int next_seat(const TrainState* s, int seat) noexcept nogil:
    seat += 1
    return 0 if seat == s.players else seat


cdef inline int other_half(int t, int v) noexcept nogil:
    """The number of tile t that is left free when its v half is joined (v for a double)."""
    return WIDE_LO[t] + WIDE_HI[t] - v


cdef inline void push_event(TrainState* s, int kind, int seat, int tile,
                            int target) noexcept nogil:
    cdef TEvent* e
    if s.n_events >= TR_MAX_EVENTS:  # cannot happen (module docstring); never write past
        return
    e = &s.events[s.n_events]
    e.kind = kind
    e.seat = seat
    e.tile = tile
    e.target = target
    s.n_events += 1


cdef int ts_set_tiles(int set_max) noexcept nogil:
    """Tiles in the double-set_max set."""
    return (set_max + 1) * (set_max + 2) // 2


# --- move generation -------------------------------------------------------------------

cdef inline int add_tiles(TrainState* s, int n, W128 m, int target_bits) noexcept nogil:
    while w_any(m):
        s.moves[n] = <uint16_t>(w_first(m) | target_bits)
        n += 1
        m = w_rest(m)
    return n


cdef uint16_t ts_open_trains(const TrainState* s, int seat) noexcept nogil:
    """Trains: the trains seat may place on if it were to move now, whatever its hand (bit
    t: train t, bit TR_MEXICAN the Mexican train).  The one statement of that rule: the
    move generator, ts_accepts (the blocked check, the sampler) and open_ends use it."""
    cdef bint first_only = s.first_turn_own and s.train_len[seat] == 0
    if s.pending >= 0:
        # Bound to the pending double; with first_turn_own_train a seat whose own train is
        # empty may still place only there (both rules hold): nothing unless it is the one.
        if first_only and s.pending != seat:
            return 0
        return <uint16_t>(1 << s.pending)
    if first_only:
        return <uint16_t>(1 << seat)
    return <uint16_t>(((s.public | 1 << seat) & ((1 << s.players) - 1)) | 1 << TR_MEXICAN)


cdef W128 ts_open_anchors(const TrainState* s, int v) noexcept nogil:
    """Chicken Foot: the anchor tiles of the open ends showing v, for any seat (the
    pending double while its toes are due, else every free end)."""
    if s.pending >= 0:
        return w_bit(s.pending) if WIDE_LO[s.pending] == v else w_zero()
    return s.ends_by[v]


cdef W128 ts_fit_trains(const TrainState* s, uint16_t trains) noexcept nogil:
    """The tiles that fit one of trains (bit t: train t, TR_MEXICAN the Mexican train)."""
    cdef W128 m = w_zero()
    cdef int t
    for t in range(TR_MEXICAN + 1):
        if trains >> t & 1:
            m = w_or(m, WIDE_NUM[s.train_open[t]])
    return m


cdef W128 ts_accepts(const TrainState* s, int seat) noexcept nogil:
    """The tiles that would give seat a placement if it were to move now, whatever its
    hand (a seat holding none of them draws, then passes)."""
    cdef W128 m = w_zero()
    cdef int v
    if s.layout == LAYOUT_TRAINS:
        return ts_fit_trains(s, ts_open_trains(s, seat))
    for v in range(s.set_max + 1):
        if w_any(ts_open_anchors(s, v)):
            m = w_or(m, WIDE_NUM[v])
    return m


cdef bint ts_any_placement(const TrainState* s) noexcept nogil:
    """Some seat holds a tile it could place if it were to move now (the blocked rule:
    with the stock empty, a round is blocked only when none does)."""
    cdef int seat
    for seat in range(s.players):
        if w_any(w_and(s.hand[seat], ts_accepts(s, seat))):
            return True
    return False


cdef int gen_trains(TrainState* s) noexcept nogil:
    cdef int seat = s.to_move, n = 0, t
    cdef W128 h = s.hand[seat]
    cdef uint16_t trains = ts_open_trains(s, seat)
    if s.forced >= 0:
        h = w_bit(s.forced)
    for t in range(TR_MEXICAN + 1):  # the Mexican train last
        if trains >> t & 1:
            n = add_tiles(s, n, w_and(h, WIDE_NUM[s.train_open[t]]), t << 7)
    return n


cdef int gen_chicken(TrainState* s) noexcept nogil:
    cdef int n = 0, v, anchor
    cdef W128 h = s.hand[s.to_move], m, ends
    if s.forced >= 0:
        h = w_bit(s.forced)
    for v in range(s.set_max + 1):
        ends = ts_open_anchors(s, v)
        if not w_any(ends):
            continue
        m = w_and(h, WIDE_NUM[v])
        if not w_any(m):
            continue
        while w_any(ends):
            anchor = w_first(ends)
            n = add_tiles(s, n, m, TR_CF_BIT | anchor << 7)
            ends = w_rest(ends)
    return n


cdef int ts_gen(TrainState* s) noexcept nogil:
    """Fill s.moves with the legal moves of s.to_move; their number (0 once over)."""
    if s.status != TR_PLAYING:
        s.n_moves = 0
    elif s.layout == LAYOUT_TRAINS:
        s.n_moves = gen_trains(s)
    else:
        s.n_moves = gen_chicken(s)
    return s.n_moves


cdef int ts_find(const TrainState* s, int move) noexcept nogil:
    cdef int i
    for i in range(s.n_moves):
        if s.moves[i] == move:
            return i
    return -1


# --- the forced events ------------------------------------------------------------------

cdef void settle(TrainState* s) noexcept nogil:
    """From a position where s.to_move is to move: the automatic draws and passes until a
    seat has a placement (s.moves filled) or the round is blocked."""
    cdef int seat, t
    while True:
        if ts_gen(s) > 0:
            return
        seat = s.to_move
        if s.stock_top < s.stock_len:
            t = s.stock[s.stock_top]
            s.stock_top += 1
            w_set(&s.hand[seat], t)
            push_event(s, EV_DRAW, seat, t, 0)
            s.forced = t
            if ts_gen(s) > 0:
                return
            s.forced = -1
        push_event(s, EV_PASS, seat, -1, 0)
        s.passes += 1
        if s.layout == LAYOUT_TRAINS:
            s.public |= <uint16_t>(1 << seat)  # the marker goes on the passer's own train
        # Every seat has now passed in this run, so every train carries a marker; the
        # round is blocked only if no seat can place even so (a marker put up after a
        # seat's pass may have opened a train to it: play goes on to that seat).
        if s.passes >= s.players and s.stock_top == s.stock_len \
                and not ts_any_placement(s):
            s.status = TR_BLOCKED
            s.n_moves = 0
            return
        s.to_move = next_seat(s, seat)


# --- make / unmake ----------------------------------------------------------------------

cdef inline void place(TrainState* s, int seat, int t, int target) noexcept nogil:
    """Lay tile t (already on the table, out of the hand) on target: the trains, the
    pending double and its toes, the open ends (inline: ts_play's hot path)."""
    cdef int v
    cdef bint double = WIDE_LO[t] == WIDE_HI[t]
    if s.layout == LAYOUT_TRAINS:
        s.train_open[target] = other_half(t, s.train_open[target])
        s.train_len[target] += 1
        if target == seat:
            s.public &= <uint16_t>~(1 << seat)  # the owner's placement lifts the marker
        # A double leaves its train pending (a bonus move follows); any other tile
        # satisfies the pending double it was placed on, or is an ordinary placement.
        s.pending = target if double else -1
    elif target == s.pending:  # a toe on the pending double
        v = WIDE_LO[target]
        s.free_num[t] = other_half(t, v)
        w_set(&s.ends_by[s.free_num[t]], t)
        s.toes -= 1
        if s.toes == 0:
            s.pending = -1
    else:  # on the open end of a non-double
        v = s.free_num[target]
        w_clear(&s.ends_by[v], target)
        if double:
            s.pending = t
            s.toes = 3
        else:
            s.free_num[t] = other_half(t, v)
            w_set(&s.ends_by[s.free_num[t]], t)


cdef void ts_place(TrainState* s, int seat, int t, int target) noexcept nogil:
    """place() for other modules: the sampler replays a record's placements with it."""
    place(s, seat, t, target)


cdef void ts_play(TrainState* s, int move) noexcept nogil:
    """Make a legal move (one of s.moves), then the forced draws and passes after it."""
    cdef int seat = s.to_move, t = move_tile(move), target = move_target(move)
    cdef TPly* p = &s.plies[s.n_plies]
    cdef bint double = WIDE_LO[t] == WIDE_HI[t]
    p.move = <uint16_t>move
    p.seat = seat
    p.prev_public = s.public
    p.prev_pending = s.pending
    p.prev_toes = s.toes
    p.prev_passes = s.passes
    p.prev_forced = s.forced
    p.ev_mark = <uint16_t>s.n_events
    p.prev_open = 0
    s.n_plies += 1
    w_clear(&s.hand[seat], t)
    w_set(&s.table, t)
    push_event(s, EV_PLACE, seat, t, target)
    s.passes = 0
    s.forced = -1
    if s.layout == LAYOUT_TRAINS:
        p.prev_open = s.train_open[target]
    place(s, seat, t, target)
    if not w_any(s.hand[seat]):
        s.status = TR_OUT
        s.out_seat = seat
        s.n_moves = 0
        return
    if not (s.layout == LAYOUT_TRAINS and double):
        s.to_move = next_seat(s, seat)
    settle(s)


cdef void ts_undo(TrainState* s) noexcept nogil:
    """Unmake the last move and the forced events after it, exactly."""
    cdef TPly* p
    cdef TEvent* e
    cdef int i, t, target
    if s.n_plies == 0:
        return
    s.n_plies -= 1
    p = &s.plies[s.n_plies]
    for i in range(s.n_events - 1, p.ev_mark, -1):  # the draws after the move, last first
        e = &s.events[i]
        if e.kind == EV_DRAW:
            w_clear(&s.hand[e.seat], e.tile)
            s.stock_top -= 1
    s.n_events = p.ev_mark
    t = move_tile(p.move)
    target = move_target(p.move)
    w_set(&s.hand[p.seat], t)
    w_clear(&s.table, t)
    if s.layout == LAYOUT_TRAINS:
        s.train_open[target] = p.prev_open
        s.train_len[target] -= 1
    else:
        if WIDE_LO[t] != WIDE_HI[t]:
            w_clear(&s.ends_by[s.free_num[t]], t)
        if target != p.prev_pending:  # it covered the open end of target: uncover it
            w_set(&s.ends_by[s.free_num[target]], target)
    s.public = p.prev_public
    s.pending = p.prev_pending
    s.toes = p.prev_toes
    s.passes = p.prev_passes
    s.forced = p.prev_forced
    s.to_move = p.seat
    s.status = TR_PLAYING
    s.out_seat = -1
    ts_gen(s)


cdef void ts_copy(TrainState* dst, const TrainState* src) noexcept nogil:
    """dst = src: the fixed part, the plies made and the events so far."""
    cdef size_t head = <size_t>(<const char*>&src.plies[0] - <const char*>src)
    cdef size_t ev = <size_t>(<const char*>&src.events[0] - <const char*>src)
    memcpy(dst, src, head)
    memcpy(&dst.plies[0], &src.plies[0], <size_t>src.n_plies * sizeof(TPly))
    memcpy(<char*>dst + ev, &src.events[0], <size_t>src.n_events * sizeof(TEvent))


# --- deals ------------------------------------------------------------------------------

cdef int ts_init(TrainState* s, int layout, int set_max, int engine, int players,
                 int zero_double, int first_turn_own, int engine_toes, const W128* hands,
                 const uint8_t* stock, int stock_len, int leader) noexcept nogil:
    """A round from a checked deal (the caller validates it: bones.core.trains), the forced
    events of the leader's first turn applied."""
    cdef int i, e_tile = WIDE_DOUBLE[engine]
    s.layout = layout
    s.set_max = set_max
    s.engine = engine
    s.players = players
    s.zero_double = zero_double
    s.first_turn_own = first_turn_own
    s.engine_toes = engine_toes
    s.leader = leader
    s.table = w_bit(e_tile)
    for i in range(TR_MAX_SEATS):
        if i < players:
            s.hand0[i] = hands[i]
        else:
            s.hand0[i] = w_zero()
        s.hand[i] = s.hand0[i]
    for i in range(stock_len):
        s.stock[i] = stock[i]
    s.stock_len = stock_len
    s.stock_top = 0
    s.to_move = leader
    s.status = TR_PLAYING
    s.passes = 0
    s.out_seat = -1
    s.forced = -1
    for i in range(9):
        s.train_open[i] = engine
        s.train_len[i] = 0
    s.public = 0
    for i in range(13):
        s.ends_by[i] = w_zero()
    if layout == LAYOUT_CHICKEN:
        s.pending = e_tile  # the engine's toes come first
        s.toes = engine_toes
    else:
        s.pending = -1
        s.toes = 0
    s.n_moves = 0
    s.n_plies = 0
    s.n_events = 0
    settle(s)
    return 0


cdef void ts_deal_random(TrainState* s, int layout, int set_max, int engine, int players,
                         int hand_size, int zero_double, int first_turn_own,
                         int engine_toes, int leader, uint64_t* rng) noexcept nogil:
    """Shuffle the set less the engine double (Fisher-Yates from rng, as Round.deal) and
    deal hand_size tiles to each seat in turn of seats, the rest to the stock."""
    cdef uint8_t deck[91]
    cdef W128 hands[8]
    cdef W128 rest = w_andnot(WIDE_SET[set_max], w_bit(WIDE_DOUBLE[engine]))
    cdef int n = 0, i, j, seat
    cdef uint8_t x
    while w_any(rest):
        deck[n] = w_first(rest)
        n += 1
        rest = w_rest(rest)
    for i in range(n - 1):
        j = i + <int>rng_below(rng, n - i)
        x = deck[i]
        deck[i] = deck[j]
        deck[j] = x
    for seat in range(players):
        hands[seat] = w_zero()
        for i in range(seat * hand_size, (seat + 1) * hand_size):
            w_set(&hands[seat], deck[i])
    i = players * hand_size
    ts_init(s, layout, set_max, engine, players, zero_double, first_turn_own, engine_toes,
            hands, &deck[i], n - i, leader)


cdef int ts_penalty(const TrainState* s, int seat) noexcept nogil:
    """Pips left in seat's hand, 0-0 counting zero_double."""
    return w_pips(s.hand[seat], s.zero_double)


cdef long ts_playout(TrainState* s, int layout, int set_max, int engine, int players,
                     int hand_size, int zero_double, int first_turn_own, int engine_toes,
                     uint64_t* rng, long rounds, long* blocked, long* events,
                     long* max_events) noexcept nogil:
    """Play rounds random rounds (each choice uniform over the legal moves; the leader
    rotates from seat 0) on s; returns the placements made.  Adds the blocked rounds and
    the events (placements, draws, passes) to *blocked and *events; *max_events is the
    most events one round had."""
    cdef long placements = 0, k
    for k in range(rounds):
        ts_deal_random(s, layout, set_max, engine, players, hand_size, zero_double,
                       first_turn_own, engine_toes, <int>(k % players), rng)
        while s.status == TR_PLAYING:
            ts_play(s, s.moves[rng_below(rng, s.n_moves)])
        placements += s.n_plies
        events[0] += s.n_events
        if s.n_events > max_events[0]:
            max_events[0] = s.n_events
        if s.status == TR_BLOCKED:
            blocked[0] += 1
    return placements
