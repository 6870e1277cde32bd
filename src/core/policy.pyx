"""Fast move choice on a ``State``, for the ``expert`` bot and for the playouts of the
searches: ``expert_pick`` scores every legal move by weighted features of the position
after it, seen from what the mover may know; ``greedy_pick`` takes the most points now,
then the heaviest tile.

The features (docs/bots.md, ``expert``): points now; the most the next opponent could
score in reply with the tiles it may hold (its known voids excluded); pips shed, and
again when a block or the end of the round is near; suit variety and the tiles left that
still match; ends the next opponent cannot match (blocking) and ends the partner may
match; shedding doubles; going out; Kozel's lone 0-0, its 13 rule (an unrecorded side
loses nothing below 13) and the goat line.  A move is tried with ``apply_move`` and taken
back with ``undo``, so the position's own rules decide the scores (a variant's Python
move_scorer too, through ``bones.core.scorer``).
"""

from libc.stdint cimport int32_t, uint32_t

from bones.core.moves cimport move_code
from bones.core.rules cimport FAMILY_KOZEL, CompiledRules, Rules, compile_rules
from bones.core.scorer cimport PythonScorer
from bones.core.state cimport (
    CLAIM_BIT, KIND_DOUBLE_DOUBLE, KIND_DRAW, KIND_MUGGINS, KIND_PASS, MAX_MOVES, State,
    apply_move, find_move, gen_moves, kind_of, lay, open_mask, state_init, undo,
)
from bones.core.tiles cimport ALL_TILES, DOUBLES_MASK, PIP_MASK, ctz, mask_pips, popcount

FIELDS = ("points", "reply", "heavy", "heavy_near", "variety", "follow", "block",
          "partner", "double", "out", "lone_zero", "closed", "goat")


cdef void known_of(const State* s, Known* k) noexcept nogil:
    """What the seat to move may know in a full position, without its voids: the others
    may hold any tile not on the table and not its own."""
    cdef int seat, me = s.to_move
    cdef uint32_t unseen = ALL_TILES & ~s.table & ~s.hand[me]
    for seat in range(4):
        k.may_hold[seat] = s.hand[me] if seat == me else unseen
    k.goat_line = 0


cdef inline int numbers_in(uint32_t hand) noexcept nogil:
    cdef int v, n = 0
    for v in range(7):
        if hand & PIP_MASK[v]:
            n += 1
    return n


cdef int best_reply(State* s, uint32_t may) noexcept nogil:
    """The most points the seat to move could score with one of the tiles in may (the
    position's count rule); its hand is restored after each try."""
    cdef int e, t, side = s.r.side_of[s.to_move], best = 0, gain
    cdef uint32_t m, saved = s.hand[s.to_move], claim = CLAIM_BIT if s.r.muggins else 0
    cdef int32_t before = s.score[side]
    for e in range(s.n_ends):
        if not s.ends[e].live:
            continue
        m = may & PIP_MASK[s.ends[e].v]
        while m:
            t = ctz(m)
            m &= m - 1
            apply_move(s, <uint32_t>t | (<uint32_t>e << 5) | claim)
            gain = s.score[side] - before
            undo(s)
            s.hand[s.to_move] = saved
            if gain > best:
                best = gain
    return best


cdef double move_value(State* s, uint32_t move, const Weights* w,
                       const Known* k) noexcept nogil:
    """The weighted features of move for the seat to move."""
    cdef const Rules* r = s.r
    cdef int me = s.to_move, side = r.side_of[me], kind = kind_of(move), e, o, partner
    cdef int live = 0, blocked = 0, helped = 0, shed, left_pips, reply = 0, unit
    cdef uint32_t bits, left, ends = 0, o_may
    cdef int32_t before = s.score[side]
    cdef double value, heavy, near
    if kind == KIND_MUGGINS:
        return 1e6  # free points
    if kind == KIND_DRAW or kind == KIND_PASS:
        return -1e6  # only when nothing else is legal
    bits = 1u << (move & 31)
    if kind == KIND_DOUBLE_DOUBLE:
        bits |= 1u << ((move >> 10) & 31)
    shed = mask_pips(bits)
    left = s.hand[me] & ~bits
    apply_move(s, move)
    # in pips: a point is score_scale pips, and a Fives and Threes point five (its count
    # of 5 scores 1 where All Fives' scores 5); unscaled, the expert only drew level with
    # greedy there, scaled it scores 60.1% over 2,000 games (CHANGELOG)
    unit = 5 if r.threes else r.score_scale
    value = w.points * (s.score[side] - before) * unit
    o = s.to_move  # the next seat: an opponent in every seating bones plays
    partner = (me + 2) % 4 if r.players == 4 and r.n_sides == 2 else -1
    o_may = k.may_hold[o] & ~bits
    for e in range(s.n_ends):
        if s.ends[e].live:
            live += 1
            ends |= PIP_MASK[s.ends[e].v]
            if not o_may & PIP_MASK[s.ends[e].v]:
                blocked += 1
            if partner >= 0 and k.may_hold[partner] & ~bits & PIP_MASK[s.ends[e].v]:
                helped += 1
    if (r.count_scoring or r.scorer != NULL) and left and w.reply:
        reply = best_reply(s, o_may)
    undo(s)
    if not left:
        return w.out + value
    # Near the end: nothing left to draw and some hand almost empty (or a pass already).
    near = 0
    if not (r.draws and s.stock_len - s.stock_top > r.reserve):
        if s.passes or popcount(left) <= 2 or popcount(o_may & open_mask(s)) == 0:
            near = 1
    heavy = w.heavy * shed + w.heavy_near * near * shed
    if r.family == FAMILY_KOZEL:
        left_pips = mask_pips(left)
        if s.score[side] == 0 and left_pips < 13:
            heavy *= w.closed  # an unrecorded side writes nothing below 13
        if k.goat_line and s.score[side] + left_pips + shed >= k.goat_line:
            heavy *= 1 + w.goat
        if left == 1u:
            value += w.lone_zero
    value += heavy - w.reply * reply * unit
    value += w.variety * numbers_in(left) + w.follow * popcount(left & ends)
    value += w.block * blocked + w.partner * helped
    if bits & DOUBLES_MASK:
        value += w.double_
    return value


cdef int expert_pick(State* s, const uint32_t* moves, int n, const Weights* w,
                     const Known* k) noexcept nogil:
    """Index in moves[0:n] of the move with the best value (the first of equals)."""
    cdef uint32_t local[MAX_MOVES]
    cdef int i, best = 0
    cdef double v, best_v = -1e300
    for i in range(n):
        local[i] = moves[i]  # moves may be s.moves, which undo regenerates
    for i in range(n):
        v = move_value(s, local[i], w, k)
        if v > best_v:
            best_v = v
            best = i
    return best


cdef int greedy_pick(State* s) noexcept nogil:
    """Index in s.moves of the most points now, then the most pips (first of equals)."""
    cdef uint32_t local[MAX_MOVES]
    cdef int i, n = s.n_moves, best = 0, side = s.r.side_of[s.to_move], kind
    cdef long key, best_key = -1
    cdef int32_t before
    cdef uint32_t bits
    if n == 1:
        return 0
    for i in range(n):
        local[i] = s.moves[i]
    for i in range(n):
        kind = kind_of(local[i])
        if kind == KIND_DRAW or kind == KIND_PASS:
            continue
        bits = 1u << (local[i] & 31)
        if kind == KIND_DOUBLE_DOUBLE:
            bits |= 1u << ((local[i] >> 10) & 31)
        key = mask_pips(bits) if kind != KIND_MUGGINS else 0
        if s.r.count_scoring or s.r.scorer != NULL:
            before = s.score[side]
            apply_move(s, local[i])
            key += 64 * (s.score[side] - before)
            undo(s)
        if key > best_key:
            best_key = key
            best = i
    for i in range(n):
        s.moves[i] = local[i]
    s.n_moves = n
    return best


cdef int load_weights(object values, Weights* w) except -1:
    """Weights from a sequence of N_WEIGHTS numbers, in FIELDS order."""
    cdef double* out = <double*>w
    cdef int i
    values = tuple(values)
    if len(values) != N_WEIGHTS:
        raise ValueError(f"expert weights: {N_WEIGHTS} numbers expected, got {len(values)}")
    for i in range(N_WEIGHTS):
        out[i] = float(values[i])
    return 0


def choose(observation, legal_moves, *, weights=None, budget=None):
    """The expert's move: the legal move of the best weighted value (``weights``: the
    N_WEIGHTS numbers in ``FIELDS`` order; the bot's defaults are
    ``bones.plugins.search_bots.expert_weights(variant, {})``), from the observation
    alone.  The same signature as ``bones.core.trainpolicy.choose``, whose ``budget`` (the
    train planner's) does not apply here: ValueError unless it is None."""
    if budget is not None:
        raise ValueError("budget (the train planner's) does not apply to the line games")
    if weights is None:
        raise ValueError("weights: the expert's weights, N_WEIGHTS numbers in FIELDS order")
    cdef CompiledRules rules = compile_rules(
        observation.variant, observation.players, observation.options)
    cdef PythonScorer scorer = None
    cdef Weights w
    cdef Known k
    cdef State s
    cdef uint32_t codes[MAX_MOVES]
    cdef uint32_t void[4]
    cdef uint32_t hands[4]
    cdef int32_t scores[4]
    cdef int n = len(legal_moves), i, seat = observation.seat, players = rules.c.players
    cdef int passes = 0, last = -1
    cdef uint32_t own = 0, unseen
    # Passing, or being forced to draw, shows the numbers a seat lacks -- unless drawing
    # or passing are choices (options).
    cdef bint informative = not (rules.c.draw_with_playable or rules.c.voluntary_pass)
    load_weights(weights, &w)
    if n == 1:
        return legal_moves[0]
    if not 0 < n <= MAX_MOVES or not 0 <= seat < players \
            or len(observation.scores) != rules.c.n_sides:
        raise ValueError("observation: seat, scores or legal moves out of range")
    for tile in observation.hand:
        own |= 1u << tile.index
    for i in range(4):
        hands[i] = own if i == seat else 0
        scores[i] = observation.scores[i] if i < rules.c.n_sides else 0
        void[i] = 0
    if rules.c.python_scorer:  # the candidates are scored on the observation's layout
        scorer = PythonScorer(rules, observation.layout)
    state_init(&s, &scorer.c if scorer is not None else &rules.c, hands, NULL, 0, seat, -1,
               scores)
    for event in observation.events:
        kind = event.kind
        if kind == "play":
            if not lay(&s, move_code(event.move)):
                raise ValueError(f"observation: {event!r} does not fit the layout")
            last = event.seat
            passes = 0
        elif not 0 <= event.seat < players:
            raise ValueError(f"observation: bad event {event!r}")
        elif kind == "pass":
            passes += 1
            if informative:
                void[event.seat] |= open_mask(&s)
        elif kind == "draw" and informative:
            void[event.seat] = open_mask(&s)  # what it held then; new tiles may match
    s.to_move = seat
    s.passes = passes
    s.last_seat = last
    s.stock_len = observation.stock_size if 0 <= observation.stock_size <= 28 else 0
    unseen = ALL_TILES & ~s.table & ~own
    for i in range(4):
        k.may_hold[i] = own if i == seat else unseen & ~void[i]
    k.goat_line = rules.options.get("target", 101) if rules.c.family == FAMILY_KOZEL else 0
    gen_moves(&s)  # the placements open to the hand: every given placement must be one
    for i in range(n):
        codes[i] = move_code(legal_moves[i])
        if kind_of(codes[i]) <= KIND_DOUBLE_DOUBLE and find_move(&s, codes[i]) < 0:
            raise ValueError(f"{legal_moves[i]} is not a legal move for the observation")
    i = expert_pick(&s, codes, n, &w, &k)
    if scorer is not None:
        scorer.check()
    return legal_moves[i]
