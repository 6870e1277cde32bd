"""Move choices for the train games on the C state (``bones.core.trainstate``): the
playout policies of the train searches (``tp_pick`` and ``tp_playout``: random, greedy,
expert, chain), the planner (``tp_plan_pick``: the ``planner`` and ``expert`` bots'
move, ``choose``) with the score it orders moves by (``tp_expert_score``), and the chain
heuristic (``tp_chain_pick``: the ``chain`` bot, ``choose_chain``).

The expert's score rates a placement by what it sheds and what it leaves (docs/bots.md):

* the pips shed (0-0 counts the round's ``zero_double``: 50 in Chicken Foot, so it goes
  early);
* a double is worth playing when it can be satisfied: in Mexican Train the same seat must
  satisfy it at once (else it draws), so +6 when the hand keeps a tile with its number and
  -6 when not; in Chicken Foot every seat owes it toes, +4;
* Mexican Train: a placement on the seat's own train lifts its marker (+5 when it has
  one); while the train is private a placement elsewhere (the Mexican train, a public
  train) is preferred (-2 on the own train) so the own train stays the seat's reserve, and
  a placement on it is worth +1 per tile left that fits its new end (up to 2);
* Chicken Foot: +0.5 per tile left that fits the new end (up to 2).

The planner (``tp_plan_pick``: the ``planner`` bot, the ``expert`` bot's move in the
train games, and pimc's and ismcts's ``planner`` playouts) orders the moves by what they
do to the seat's plan (``bones.core.trainplan``: the best chain it can lay on its own
train), then by the expert's score:

1. when another seat holds ``NEAR_OUT`` tiles or fewer, the heaviest shed first (the
   expert's score: a double that can be satisfied sheds two tiles);
2. the chain's first tile on the own train when the train carries a marker (it comes off
   before anyone else lays a tile there);
3. a tile that is not in the chain on another train (the chain stays for later);
4. the chain's first tile on the own train;
5. anything else (a chain tile elsewhere, another tile on the own train).

In Chicken Foot (no own train) only rule 1 applies, then the expert's score.  The chain
heuristic (``tp_chain_pick``: the ``chain`` bot) is the simpler rule of issue 33: the
heaviest tile not in the chain on another train, else the chain's first tile, else the
heaviest legal tile.
"""

from libc.stdint cimport int64_t, uint8_t, uint64_t

from bones.core.rng cimport rng_below
from bones.core.trainplan cimport ChainPlan, PLAN_BUDGET, plan_chain
from bones.core.trainsample cimport TrainSampler
from bones.core.trainstate cimport (
    LAYOUT_TRAINS, TR_MAX_SEATS, TR_PLAYING, TrainState, move_target, move_tile, ts_play,
)
from bones.core.wideset cimport (
    W128, WIDE_HI, WIDE_LO, WIDE_NUM, w_and, w_clear, w_count, w_has,
)

POLICIES = {"random": TP_RANDOM, "greedy": TP_GREEDY, "expert": TP_EXPERT, "chain": TP_CHAIN}


cdef inline int tile_pips(const TrainState* s, int t) noexcept nogil:
    return s.zero_double if t == 0 else WIDE_LO[t] + WIDE_HI[t]


cdef inline int other_half(int t, int v) noexcept nogil:
    return WIDE_LO[t] + WIDE_HI[t] - v


cdef double tp_expert_score(const TrainState* s, int move) noexcept nogil:
    """The expert's value of a legal move of s.to_move (the module docstring)."""
    cdef int seat = s.to_move, t = move_tile(move), target = move_target(move), v, end
    cdef int follow
    cdef bint double = WIDE_LO[t] == WIDE_HI[t]
    cdef W128 rest = s.hand[seat]
    cdef double score = tile_pips(s, t)
    w_clear(&rest, t)
    if s.layout == LAYOUT_TRAINS:
        end = other_half(t, s.train_open[target])
        follow = w_count(w_and(rest, WIDE_NUM[end]))
        if double:
            score += 6.0 if follow > 0 else -6.0
        if target == seat:
            if s.public >> seat & 1:
                score += 5.0
            else:
                score -= 2.0
            score += 1.0 * (follow if follow < 2 else 2)
        return score
    if double:
        return score + 4.0
    v = WIDE_LO[target] if target == s.pending else s.free_num[target]
    end = other_half(t, v)
    follow = w_count(w_and(rest, WIDE_NUM[end]))
    return score + 0.5 * (follow if follow < 2 else 2)


cdef int tp_pick(const TrainState* s, int policy, uint64_t* rng) noexcept nogil:
    """A legal move of s.to_move (s.n_moves > 0) by policy; ties: the first."""
    cdef int i, best = 0
    cdef double value, top
    if s.n_moves == 1:
        return s.moves[0]
    if policy == TP_RANDOM:
        return s.moves[rng_below(rng, s.n_moves)]
    if policy == TP_EXPERT:
        return tp_plan_pick(s, ROLLOUT_BUDGET, tp_fewest_other(s))
    if policy == TP_CHAIN:
        return tp_chain_pick(s, ROLLOUT_BUDGET)
    top = tile_pips(s, move_tile(s.moves[0]))
    for i in range(1, s.n_moves):
        value = tile_pips(s, move_tile(s.moves[i]))
        if value > top:
            top = value
            best = i
    return s.moves[best]


# Rank bands of tp_plan_pick (the module docstring); the expert's score, at most about
# 12 + 13 + 2 + 5 = 32 in magnitude, orders the moves within a band.
cdef enum:
    BAND = 100
    RANK_DUMP = 5
    RANK_LIFT = 4
    RANK_ELSEWHERE = 3
    RANK_CHAIN = 2
    RANK_OTHER = 1


cdef int tp_fewest_other(const TrainState* s) noexcept nogil:
    """The fewest tiles in another seat's hand (the hands are full: a playout's state)."""
    cdef int i, n, fewest = 1 << 30
    for i in range(s.players):
        if i != s.to_move:
            n = w_count(s.hand[i])
            if n < fewest:
                fewest = n
    return fewest


cdef inline bint in_chain(const uint8_t* chain, int length, int t) noexcept nogil:
    cdef int i
    for i in range(length):
        if chain[i] == t:
            return True
    return False


cdef int plan_move(const TrainState* s, const uint8_t* chain, int length,
                   int fewest) noexcept nogil:
    """The planner's move for s.to_move given the chain it still plans to lay on its own
    train (chain[0] next); fewest: the fewest tiles another seat holds.  Ties: the first."""
    cdef int seat = s.to_move, i, t, target, rank, best = 0
    cdef bint trains = s.layout == LAYOUT_TRAINS
    cdef double value, top = -1e300
    for i in range(s.n_moves):
        t = move_tile(s.moves[i])
        target = move_target(s.moves[i])
        if fewest <= NEAR_OUT:
            rank = RANK_DUMP
        elif not trains:
            rank = RANK_OTHER
        elif target == seat:
            if length > 0 and t == chain[0]:
                rank = RANK_LIFT if s.public >> seat & 1 else RANK_CHAIN
            else:
                rank = RANK_OTHER
        elif in_chain(chain, length, t):
            rank = RANK_OTHER
        else:
            rank = RANK_ELSEWHERE
        value = rank * BAND + tp_expert_score(s, s.moves[i])
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


cdef int tp_plan_pick(const TrainState* s, int64_t budget, int fewest) noexcept nogil:
    """The planner's move for s.to_move (s.n_moves > 0), the plan searched within budget
    nodes; fewest: the fewest tiles another seat holds."""
    cdef ChainPlan plan
    if s.n_moves == 1:
        return s.moves[0]
    own_plan(s, budget, &plan)
    return plan_move(s, plan.tiles, plan.length, fewest)


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
            move = plan_move(s, &plan.tiles[k], plan.length - k, tp_fewest_other(s))
        else:
            move = chain_move(s, &plan.tiles[k], plan.length - k)
        if k < plan.length and move_target(move) == seat and move_tile(move) == plan.tiles[k]:
            cache.next[seat] = k + 1
            cache.open[seat] = WIDE_LO[plan.tiles[k]] + WIDE_HI[plan.tiles[k]] - cache.open[seat]
        ts_play(s, move)


def choose(observation, legal_moves, long budget=PLAN_BUDGET):
    """The planner's move (the ``planner`` bot, and ``expert`` in the train games): the
    legal move (a TrainMove of ``legal_moves``) ``tp_plan_pick`` ranks first in the
    position ``observation`` shows (``TrainSampler``: nothing hidden is read), its chain
    searched within ``budget`` nodes; ties: the first in the core's order of the moves."""
    return _pick(observation, legal_moves, TP_EXPERT, budget)


def choose_chain(observation, legal_moves, long budget=PLAN_BUDGET):
    """The chain heuristic's move (the ``chain`` bot; the module docstring), its chain
    searched within ``budget`` nodes."""
    return _pick(observation, legal_moves, TP_CHAIN, budget)


cdef object _pick(observation, legal_moves, int policy, long budget):
    cdef TrainSampler sampler = TrainSampler(observation, model=False)  # no deals needed
    cdef TrainState* s = sampler.base
    cdef int i, move, fewest = 1 << 30
    if budget < 1:
        raise ValueError(f"budget must be >= 1, not {budget}")
    codes = check_moves(sampler, legal_moves)
    for i in range(s.players):  # the base holds only the seat's hand: the public sizes
        if i != sampler.seat and sampler.sizes[i] < fewest:
            fewest = sampler.sizes[i]
    if policy == TP_CHAIN:
        move = tp_chain_pick(s, budget)
    else:
        move = tp_plan_pick(s, budget, fewest)
    return legal_moves[codes.index(move)]


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
