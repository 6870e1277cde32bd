"""Move choices for the train games on the C state (``bones.core.trainstate``): the
playout policies of the train searches (``tp_pick``: random, greedy, expert) and the
expert's heuristic (``tp_expert_score``), also the ``expert`` bot's move (``choose``).

The expert scores a placement by what it sheds and what it leaves (docs/bots.md):

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
"""

from libc.stdint cimport uint64_t

from bones.core.rng cimport rng_below
from bones.core.trainsample cimport TrainSampler
from bones.core.trainstate cimport (
    LAYOUT_TRAINS, TrainState, move_target, move_tile,
)
from bones.core.wideset cimport (
    W128, WIDE_HI, WIDE_LO, WIDE_NUM, w_and, w_clear, w_count,
)

POLICIES = {"random": TP_RANDOM, "greedy": TP_GREEDY, "expert": TP_EXPERT}


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
    if policy == TP_GREEDY:
        top = tile_pips(s, move_tile(s.moves[0]))
        for i in range(1, s.n_moves):
            value = tile_pips(s, move_tile(s.moves[i]))
            if value > top:
                top = value
                best = i
        return s.moves[best]
    top = tp_expert_score(s, s.moves[0])
    for i in range(1, s.n_moves):
        value = tp_expert_score(s, s.moves[i])
        if value > top:
            top = value
            best = i
    return s.moves[best]


def choose(observation, legal_moves):
    """The expert's move: the legal move (a TrainMove of ``legal_moves``) with the best
    score in the position ``observation`` shows (``TrainSampler``: nothing hidden is read);
    ties: the first in ``legal_moves``."""
    cdef TrainSampler sampler = TrainSampler(observation, model=False)  # no deals needed
    cdef int i, best = 0
    cdef double value, top = -1e300
    codes = check_moves(sampler, legal_moves)
    for i in range(len(codes)):
        value = tp_expert_score(sampler.base, codes[i])
        if value > top:
            top = value
            best = i
    return legal_moves[best]


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
