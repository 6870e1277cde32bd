"""Move choices for the train games on the C state (``bones.core.trainstate``): the
playout policies of the train searches (``tp_pick`` and ``tp_playout``: random, greedy,
expert, chain), the planner (``tp_plan_pick``: the ``planner`` and ``expert`` bots'
move, ``choose``) and the chain heuristic (``tp_chain_pick``: the ``chain`` bot,
``choose_chain``).

The planner plays the legal move of highest value (docs/bots.md, "Train games").  In
Mexican Train the value is what the seat keeps: its best chain for its own train
(``bones.core.trainplan``) after the move, planned again when the move breaks it, and
the *strays*, the tiles left outside that chain, which go out only where another train
shows their number:

* ``STRAY`` (far above every other term) per stray left: a stray that fits elsewhere
  goes before a chain tile is laid, and a chain tile is not spent elsewhere;
* the pips shed (0-0 counting ``zero_double``), less half the pips of the strays left;
* a double (the same seat must satisfy it at once, or it draws): ``DOUBLE_STRAY`` when a
  stray left can satisfy it, ``DOUBLE_CHAIN`` (a cost) when only a chain tile can,
  minus ``DOUBLE_STUCK`` when nothing can;
* on the own train, ``LIFT`` when the placement lifts its marker (before another seat
  lays a tile there and breaks the chain): the planner's only marker rule;
* on another train, ``FOLLOW`` when a stray left fits the new end (the next turn's play).

In Chicken Foot (no own train): the pips shed; a double +4, plus ``BLOCK`` times the
chance that the next seat holds no tile with its number (the toes it owes then make that
seat draw; the chance from the tiles the seat cannot see and the next hand's size, both
public); a non-double 0.5 per tile left that fits its new end (at most 2).

In both games, when another seat holds ``NEAR_OUT`` tiles or fewer the heaviest shed
comes first instead (a double +6 when the hand keeps a tile to satisfy it, -6 when not):
the round's penalty is near.

The chain heuristic (``tp_chain_pick``: the ``chain`` bot) is the simpler rule of issue
33: the heaviest tile not in the chain on another train, else the chain's first tile,
else the heaviest legal tile.
"""

from libc.stdint cimport int64_t, uint8_t, uint64_t

from bones.core.rng cimport rng_below
from bones.core.trainplan cimport ChainPlan, PLAN_BUDGET, plan_chain
from bones.core.trainstate cimport (
    LAYOUT_TRAINS, TR_MAX_SEATS, TR_PLAYING, TrainState, move_target, move_tile, ts_play,
)
from bones.core.wideset cimport (
    W128, WIDE_HI, WIDE_LO, WIDE_NUM, WIDE_SET, w_and, w_andnot, w_any, w_clear, w_count,
    w_has, w_pips, w_set, w_zero,
)

POLICIES = {"random": TP_RANDOM, "greedy": TP_GREEDY, "expert": TP_EXPERT, "chain": TP_CHAIN}


cdef inline int tile_pips(const TrainState* s, int t) noexcept nogil:
    return s.zero_double if t == 0 else WIDE_LO[t] + WIDE_HI[t]


cdef inline int other_half(int t, int v) noexcept nogil:
    return WIDE_LO[t] + WIDE_HI[t] - v


# The planner's weights (the module docstring), chosen on random deals against the chain
# heuristic; docs/strength.md measures the result on other deals.
cdef enum:
    STRAY = 50                   # per stray left: above every other term
    DOUBLE_STRAY = 15            # a double a stray left can satisfy
    DOUBLE_CHAIN = -10           # a double only a chain tile can satisfy
    DOUBLE_STUCK = 15            # a double nothing left can satisfy: the seat draws
    LIFT = 15                    # a placement that lifts the own train's marker
    FOLLOW = 6                   # a stray left fits the new end of another train
    BLOCK = 15                   # Chicken Foot: times the chance a double's toes block
    DUMP = 1000                  # the near-out rule ranks above every other value


cdef int tp_pick(const TrainState* s, int policy, uint64_t* rng) noexcept nogil:
    """A legal move of s.to_move (s.n_moves > 0) by policy; ties: the first."""
    cdef int i, best = 0
    cdef int sizes[TR_MAX_SEATS]
    cdef double value, top
    if s.n_moves == 1:
        return s.moves[0]
    if policy == TP_RANDOM:
        return s.moves[rng_below(rng, s.n_moves)]
    if policy == TP_EXPERT:
        tp_hand_sizes(s, sizes)
        return tp_plan_pick(s, ROLLOUT_BUDGET, sizes)
    if policy == TP_CHAIN:
        return tp_chain_pick(s, ROLLOUT_BUDGET)
    top = tile_pips(s, move_tile(s.moves[0]))
    for i in range(1, s.n_moves):
        value = tile_pips(s, move_tile(s.moves[i]))
        if value > top:
            top = value
            best = i
    return s.moves[best]


cdef void tp_hand_sizes(const TrainState* s, int* sizes) noexcept nogil:
    """Each seat's hand size, from a state that holds every hand (a playout's)."""
    cdef int i
    for i in range(s.players):
        sizes[i] = w_count(s.hand[i])


cdef inline int fewest_other(const TrainState* s, const int* sizes) noexcept nogil:
    cdef int i, fewest = 1 << 30
    for i in range(s.players):
        if i != s.to_move and sizes[i] < fewest:
            fewest = sizes[i]
    return fewest


cdef inline bint in_chain(const uint8_t* chain, int length, int t) noexcept nogil:
    cdef int i
    for i in range(length):
        if chain[i] == t:
            return True
    return False


cdef inline W128 chain_set(const uint8_t* chain, int length) noexcept nogil:
    cdef W128 m = w_zero()
    cdef int i
    for i in range(length):
        w_set(&m, chain[i])
    return m


cdef double chance_none(const TrainState* s, int size, int v) noexcept nogil:
    """The chance that a hand of size tiles holds no tile with v, its tiles drawn
    uniformly from those s.to_move cannot see (the set less the table and its hand)."""
    cdef W128 unseen = w_andnot(w_andnot(WIDE_SET[s.set_max], s.table), s.hand[s.to_move])
    cdef int n = w_count(unseen), free = n - w_count(w_and(unseen, WIDE_NUM[v])), i
    cdef double p = 1.0
    for i in range(size if size < n else n):
        if free - i <= 0:
            return 0.0
        p *= <double>(free - i) / (n - i)
    return p


cdef double dump_value(const TrainState* s, int move) noexcept nogil:
    """The near-out rule: the pips shed, a double +6 when the hand keeps a tile with its
    number (it sheds two tiles) and -6 when not."""
    cdef int t = move_tile(move)
    cdef W128 rest = s.hand[s.to_move]
    w_clear(&rest, t)
    if WIDE_LO[t] != WIDE_HI[t]:
        return DUMP + tile_pips(s, t)
    return DUMP + tile_pips(s, t) + (6.0 if w_any(w_and(rest, WIDE_NUM[WIDE_LO[t]])) else -6.0)


cdef double chicken_value(const TrainState* s, int move, const int* sizes) noexcept nogil:
    """A Chicken Foot move's value (the module docstring)."""
    cdef int t = move_tile(move), target = move_target(move), v, follow
    cdef int nxt = (s.to_move + 1) % s.players
    cdef W128 rest = s.hand[s.to_move]
    w_clear(&rest, t)
    if WIDE_LO[t] == WIDE_HI[t]:
        return tile_pips(s, t) + 4.0 + BLOCK * chance_none(s, sizes[nxt], WIDE_LO[t])
    v = WIDE_LO[target] if target == s.pending else s.free_num[target]
    follow = w_count(w_and(rest, WIDE_NUM[other_half(t, v)]))
    return tile_pips(s, t) + 0.5 * (follow if follow < 2 else 2)


cdef double train_value(const TrainState* s, int move, const uint8_t* chain, int length,
                        W128 planned, int64_t budget) noexcept nogil:
    """A Mexican Train move's value (the module docstring) given the chain the seat plans
    on its own train (chain[0] next; planned: its tiles); a chain the move breaks is
    planned again within budget nodes."""
    cdef int seat = s.to_move, t = move_tile(move), target = move_target(move)
    cdef int end = other_half(t, s.train_open[target])
    cdef W128 rest = s.hand[seat], kept = planned, strays
    cdef ChainPlan plan
    cdef double value
    w_clear(&rest, t)
    if target == seat and length > 0 and chain[0] == t:
        w_clear(&kept, t)  # the rest of a best chain is a best chain
    elif target == seat or w_has(planned, t):
        plan_chain(rest, end if target == seat else s.train_open[seat], s.zero_double,
                   budget, &plan)
        kept = chain_set(plan.tiles, plan.length)
    strays = w_andnot(rest, kept)
    value = tile_pips(s, t) - STRAY * w_count(strays) - 0.5 * w_pips(strays, s.zero_double)
    if WIDE_LO[t] == WIDE_HI[t]:
        if w_any(w_and(strays, WIDE_NUM[end])):
            value += DOUBLE_STRAY
        elif w_any(w_and(rest, WIDE_NUM[end])):
            value += DOUBLE_CHAIN
        else:
            value -= DOUBLE_STUCK
    if target == seat:
        if s.public >> seat & 1:
            value += LIFT
    elif w_any(w_and(strays, WIDE_NUM[end])):
        value += FOLLOW
    return value


cdef int plan_move(const TrainState* s, const uint8_t* chain, int length,
                   const int* sizes, int64_t budget) noexcept nogil:
    """The planner's move for s.to_move given the chain it still plans to lay on its own
    train (chain[0] next; none in Chicken Foot) and every seat's hand size; a chain a move
    breaks is planned again within budget nodes.  Ties: the first."""
    cdef int i, best = 0
    cdef bint near = fewest_other(s, sizes) <= NEAR_OUT
    cdef W128 planned = chain_set(chain, length)
    cdef double value, top = -1e300
    for i in range(s.n_moves):
        if near:
            value = dump_value(s, s.moves[i])
        elif s.layout == LAYOUT_TRAINS:
            value = train_value(s, s.moves[i], chain, length, planned, budget)
        else:
            value = chicken_value(s, s.moves[i], sizes)
        if value > top:
            top = value
            best = i
    return s.moves[best]


cdef int chain_move(const TrainState* s, const uint8_t* chain, int length) noexcept nogil:
    """The chain heuristic's move for s.to_move given its chain (chain[0] next).  Ties:
    the first."""
    cdef int seat = s.to_move, i, t, pips, top = -1, best = -1, heaviest = 0
    for i in range(s.n_moves):
        t = move_tile(s.moves[i])
        pips = tile_pips(s, t)
        if pips > tile_pips(s, move_tile(s.moves[heaviest])):
            heaviest = i
        if (s.layout == LAYOUT_TRAINS and move_target(s.moves[i]) != seat
                and not in_chain(chain, length, t) and pips > top):
            top = pips
            best = i
    if best >= 0:
        return s.moves[best]
    if length > 0:
        for i in range(s.n_moves):
            if move_tile(s.moves[i]) == chain[0] and move_target(s.moves[i]) == seat:
                return s.moves[i]
    return s.moves[heaviest]


cdef inline void own_plan(const TrainState* s, int64_t budget, ChainPlan* plan) noexcept nogil:
    """The best chain of s.to_move on its own train (none in Chicken Foot)."""
    if s.layout == LAYOUT_TRAINS:
        plan_chain(s.hand[s.to_move], s.train_open[s.to_move], s.zero_double, budget, plan)
    else:
        plan.length = 0


cdef int tp_plan_pick(const TrainState* s, int64_t budget, const int* sizes) noexcept nogil:
    """The planner's move for s.to_move (s.n_moves > 0), each chain searched within budget
    nodes; sizes: every seat's hand size (public)."""
    cdef ChainPlan plan
    if s.n_moves == 1:
        return s.moves[0]
    own_plan(s, budget, &plan)
    return plan_move(s, plan.tiles, plan.length, sizes, budget)


cdef int tp_chain_pick(const TrainState* s, int64_t budget) noexcept nogil:
    """The chain heuristic's move for s.to_move (s.n_moves > 0; the module docstring),
    the chain searched within budget nodes."""
    cdef ChainPlan plan
    if s.n_moves == 1:
        return s.moves[0]
    own_plan(s, budget, &plan)
    return chain_move(s, plan.tiles, plan.length)


ctypedef struct PlanCache:
    ChainPlan plan[TR_MAX_SEATS]  # each seat's chain when it was planned
    int next[TR_MAX_SEATS]       # its next tile's index in the chain
    int open[TR_MAX_SEATS]       # the own train's open number that tile needs; -1: none


cdef bint still_valid(const TrainState* s, const PlanCache* c, int seat) noexcept nogil:
    """Whether seat's cached chain can still be laid: the own train shows what it needs
    and the hand keeps its tiles (a tile drawn since may leave a better chain unseen: the
    price of planning once per playout instead of once per move)."""
    cdef int i
    if c.open[seat] != s.train_open[seat]:
        return False
    for i in range(c.next[seat], c.plan[seat].length):
        if not w_has(s.hand[seat], c.plan[seat].tiles[i]):
            return False
    return True


cdef void tp_playout(TrainState* s, int policy, uint64_t* rng) noexcept nogil:
    """Play s to the end of the round under policy.  The planner and the chain heuristic
    plan each seat's chain once and keep it while it can still be laid (``still_valid``),
    so a playout searches a few chains, not one per move."""
    cdef PlanCache cache
    cdef int seat, move, k
    cdef int sizes[TR_MAX_SEATS]
    cdef const ChainPlan* plan
    if not (s.layout == LAYOUT_TRAINS and (policy == TP_EXPERT or policy == TP_CHAIN)):
        while s.status == TR_PLAYING:
            ts_play(s, tp_pick(s, policy, rng))
        return
    for seat in range(TR_MAX_SEATS):
        cache.open[seat] = -1
    while s.status == TR_PLAYING:
        seat = s.to_move
        if s.n_moves == 1:
            ts_play(s, s.moves[0])
            continue
        if not still_valid(s, &cache, seat):
            plan_chain(s.hand[seat], s.train_open[seat], s.zero_double, ROLLOUT_BUDGET,
                       &cache.plan[seat])
            cache.next[seat] = 0
            cache.open[seat] = s.train_open[seat]
        plan = &cache.plan[seat]
        k = cache.next[seat]
        if policy == TP_EXPERT:
            tp_hand_sizes(s, sizes)
            move = plan_move(s, &plan.tiles[k], plan.length - k, sizes, ROLLOUT_BUDGET)
        else:
            move = chain_move(s, &plan.tiles[k], plan.length - k)
        if k < plan.length and move_target(move) == seat and move_tile(move) == plan.tiles[k]:
            cache.next[seat] = k + 1
            cache.open[seat] = WIDE_LO[plan.tiles[k]] + WIDE_HI[plan.tiles[k]] - cache.open[seat]
        ts_play(s, move)


def choose(observation, legal_moves, *, weights=None, budget=None):
    """The planner's move (the ``planner`` bot, and ``expert`` in the train games): the
    legal move (a TrainMove of ``legal_moves``) ``tp_plan_pick`` ranks first in the
    position ``observation`` shows (``TrainSampler``: nothing hidden is read), its chain
    searched within ``budget`` nodes (None: ``PLAN_BUDGET``); ties: the first in the
    core's order of the moves.  The same signature as ``bones.core.policy.choose``, whose
    ``weights`` (the line expert's) do not apply here: ValueError unless they are None."""
    if weights is not None:
        raise ValueError("weights (the line expert's) do not apply to the train games")
    return _pick(observation, legal_moves, TP_EXPERT, PLAN_BUDGET if budget is None else budget)


def choose_chain(observation, legal_moves, *, budget=None):
    """The chain heuristic's move (the ``chain`` bot; the module docstring), its chain
    searched within ``budget`` nodes (None: ``PLAN_BUDGET``)."""
    return _pick(observation, legal_moves, TP_CHAIN, PLAN_BUDGET if budget is None else budget)


cdef object _pick(observation, legal_moves, int policy, long budget):
    cdef TrainSampler sampler = TrainSampler(observation, model=False)  # no deals needed
    if budget < 1:
        raise ValueError(f"budget must be >= 1, not {budget}")
    codes = check_moves(sampler, legal_moves)
    return legal_moves[codes.index(tp_seat_pick(sampler, policy, budget))]


cdef int tp_seat_pick(TrainSampler sampler, int policy, int64_t budget) noexcept nogil:
    """The planner's (``TP_EXPERT``) or the chain heuristic's (``TP_CHAIN``) move in the
    seat's own position, its chain searched within ``budget`` nodes: the base holds only
    the seat's hand, the other seats' sizes are the public ones.  -1 for another policy."""
    cdef int i
    cdef int sizes[TR_MAX_SEATS]
    if policy == TP_CHAIN:
        return tp_chain_pick(sampler.base, budget)
    if policy != TP_EXPERT:
        return -1
    for i in range(sampler.base.players):
        sizes[i] = sampler.sizes[i]
    return tp_plan_pick(sampler.base, budget, sizes)


def check_moves(sampler, legal_moves):
    """The codes of ``legal_moves`` (TrainMoves), in their order; ValueError unless they
    are the legal moves of the sampler's position."""
    from bones.core.trains import TrainMove

    if not legal_moves:
        raise ValueError("no legal moves to choose from")
    codes = []
    for m in legal_moves:
        if not isinstance(m, TrainMove):
            raise TypeError(f"a train game's legal moves are TrainMoves, not "
                            f"{type(m).__name__}")
        codes.append(m.code)
    if sorted(codes) != sorted(sampler.legal_codes):
        raise ValueError("legal_moves are not the legal moves of the observation")
    return codes
