"""Search for the train games (Mexican Train, Chicken Foot) over determinizations drawn by
``bones.core.trainsample`` (uniform over the deals consistent with the public record).

``choose`` is ``montecarlo``: on every sample every legal move is played out at random.
``pimc`` plays every legal move out on each of up to ``samples`` samples under a fast
policy (``bones.core.trainpolicy``: expert, chain, greedy or random) and stops at the budget of
samples or of CPU time.  A finished playout is worth, to the mover, the mean penalty of
the other seats less its own (penalties are the pips left in the hands); the move with the
best mean wins, the first of equals, except that under the planner (expert) or the chain
heuristic ``pimc`` leaves the policy's own move only for a move whose lead over it, paired
sample by sample, is more than ``gate`` standard errors of its mean.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint64_t
from bones.core.bitops cimport thread_ms

from bones.core.rng cimport rng_seed
from bones.core.trainplan cimport PLAN_BUDGET
from bones.core.trainpolicy cimport TP_RANDOM, tp_playout, tp_seat_pick
from bones.core.trainsample cimport TrainSampler
from bones.core.trainstate cimport (
    TR_MAX_MOVES, TrainState, ts_copy, ts_penalty, ts_play,
)

from bones.core.trainpolicy import POLICIES, check_moves


cdef double utility(const TrainState* s, int seat) noexcept nogil:
    """What the finished round is worth to seat: the others' mean penalty less its own."""
    cdef int i
    cdef double others = 0
    for i in range(s.players):
        if i != seat:
            others += ts_penalty(s, i)
    return others / (s.players - 1) - ts_penalty(s, seat)


cdef int search(TrainSampler sampler, TrainState* base, TrainState* work, const int* codes,
                int n, double* totals, double* squares, int ref, int samples, double start,
                double time_ms, int policy, uint64_t* rng) noexcept nogil:
    """Add each move's utility over up to samples samples to totals; the samples used.
    The clock (started at ``start``, before the sampler was built) is read before every
    move's playout; a sample cut short is dropped, so every move is scored on the same
    deals (at least one sample is always completed)."""
    cdef double cur[TR_MAX_MOVES]
    cdef int used = 0, i
    cdef bint over = False
    while used < samples and not over:
        sampler.sample(base, rng)
        for i in range(n):
            if time_ms > 0 and used > 0 and thread_ms() - start >= time_ms:
                over = True
                break
            ts_copy(work, base)
            ts_play(work, codes[i])
            tp_playout(work, policy, rng)
            cur[i] = utility(work, sampler.seat)
        if not over:
            for i in range(n):
                totals[i] += cur[i]
                if ref >= 0:
                    squares[i] += (cur[i] - cur[ref]) * (cur[i] - cur[ref])
            used += 1
    return used


cdef tuple run(observation, legal_moves, int samples, double time_ms, int policy,
               double gate, uint64_t seed):
    cdef double start = thread_ms()  # building the sampler is part of the decision's time
    cdef TrainSampler sampler = TrainSampler(observation)
    cdef int codes[TR_MAX_MOVES]
    cdef double totals[TR_MAX_MOVES]
    cdef double squares[TR_MAX_MOVES]
    cdef uint64_t rng = rng_seed(seed)
    cdef int n, i, best = 0, used, ref = -1, ref_code
    cdef double diff, spread
    cdef TrainState* base = NULL
    cdef TrainState* work = NULL
    moves = check_moves(sampler, legal_moves)
    n = len(moves)
    if n == 1:
        return legal_moves[0], rng, 0
    for i in range(n):
        codes[i] = moves[i]
        totals[i] = 0
        squares[i] = 0
    if gate > 0:  # the move the expert (or chain) bot would make: -1 under other policies
        ref_code = tp_seat_pick(sampler, policy, PLAN_BUDGET)
        if ref_code >= 0:
            ref = moves.index(ref_code)
    base = <TrainState*>PyMem_Malloc(sizeof(TrainState))
    work = <TrainState*>PyMem_Malloc(sizeof(TrainState))
    try:
        if base is NULL or work is NULL:
            raise MemoryError()
        with nogil:
            used = search(sampler, base, work, codes, n, totals, squares, ref, samples, start,
                          time_ms, policy, &rng)
    finally:
        PyMem_Free(base)
        PyMem_Free(work)
    for i in range(1, n):
        if totals[i] > totals[best]:
            best = i
    if ref >= 0 and best != ref:
        # Depart from the policy's own move only when the paired difference is clear of
        # the noise of the samples: gate standard errors of its mean.
        diff = (totals[best] - totals[ref]) / used
        spread = squares[best] / used - diff * diff
        if used < 2 or diff * diff * (used - 1) <= gate * gate * max(spread, 0.0):
            best = ref
    return legal_moves[best], rng, used


def choose(observation, legal_moves, int simulations, uint64_t seed):
    """montecarlo's move in a train game: ``simulations`` playouts in all, shared by the
    legal moves (each sample plays every move out at random); ``(move, new_seed)``."""
    if simulations < 1:
        raise ValueError(f"simulations must be >= 1, not {simulations}")
    move, rng, _ = run(observation, legal_moves, max(1, simulations // max(1, len(legal_moves))),
                       0.0, TP_RANDOM, 0.0, seed)
    return move, rng


def pimc(observation, legal_moves, int samples, double time_ms, str policy, uint64_t seed,
         double gate=0.0):
    """pimc's move in a train game: every legal move played out under ``policy`` on each
    of up to ``samples`` samples, within ``time_ms`` ms of CPU time (0: no clock, the
    result then depends only on the seed), the policy's own move kept unless another
    leads it by more than ``gate`` standard errors (0: the best mean);
    ``(move, new_seed, samples_used)``."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if samples < 1:
        raise ValueError(f"samples must be >= 1, not {samples}")
    if not gate >= 0:
        raise ValueError(f"gate must be >= 0, not {gate}")
    return run(observation, legal_moves, samples, time_ms, POLICIES[policy], gate, seed)
