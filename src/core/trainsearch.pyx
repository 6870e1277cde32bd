"""Search for the train games (Mexican Train, Chicken Foot) over determinizations drawn by
``bones.core.trainsample`` (uniform over the deals consistent with the public record).

``choose`` is ``montecarlo``: on every sample every legal move is played out at random.
``pimc`` plays every legal move out on each of up to ``samples`` samples under a fast
policy (``bones.core.trainpolicy``: expert, chain, greedy or random) and stops at the budget of
samples or of CPU time.  A finished playout is worth, to the mover, the mean penalty of
the other seats less its own (penalties are the pips left in the hands); the move with the
best mean wins, the first of equals.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint64_t
from posix.time cimport CLOCK_THREAD_CPUTIME_ID, clock_gettime, timespec

from bones.core.rng cimport rng_seed
from bones.core.trainpolicy cimport TP_RANDOM, tp_playout
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


cdef double now_ms() noexcept nogil:
    """The calling thread's CPU time in ms (as bones.core.search)."""
    cdef timespec t
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6


cdef int search(TrainSampler sampler, TrainState* base, TrainState* work, const int* codes,
                int n, double* totals, int samples, double start, double time_ms, int policy,
                uint64_t* rng) noexcept nogil:
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
            if time_ms > 0 and used > 0 and now_ms() - start >= time_ms:
                over = True
                break
            ts_copy(work, base)
            ts_play(work, codes[i])
            tp_playout(work, policy, rng)
            cur[i] = utility(work, sampler.seat)
        if not over:
            for i in range(n):
                totals[i] += cur[i]
            used += 1
    return used


cdef tuple run(observation, legal_moves, int samples, double time_ms, int policy,
               uint64_t seed):
    cdef double start = now_ms()  # building the sampler is part of the decision's time
    cdef TrainSampler sampler = TrainSampler(observation)
    cdef int codes[TR_MAX_MOVES]
    cdef double totals[TR_MAX_MOVES]
    cdef uint64_t rng = rng_seed(seed)
    cdef int n, i, best = 0, used
    cdef TrainState* base = NULL
    cdef TrainState* work = NULL
    moves = check_moves(sampler, legal_moves)
    n = len(moves)
    if n == 1:
        return legal_moves[0], rng, 0
    for i in range(n):
        codes[i] = moves[i]
        totals[i] = 0
    base = <TrainState*>PyMem_Malloc(sizeof(TrainState))
    work = <TrainState*>PyMem_Malloc(sizeof(TrainState))
    try:
        if base is NULL or work is NULL:
            raise MemoryError()
        with nogil:
            used = search(sampler, base, work, codes, n, totals, samples, start, time_ms,
                          policy, &rng)
    finally:
        PyMem_Free(base)
        PyMem_Free(work)
    for i in range(1, n):
        if totals[i] > totals[best]:
            best = i
    return legal_moves[best], rng, used


def choose(observation, legal_moves, int simulations, uint64_t seed):
    """montecarlo's move in a train game: ``simulations`` playouts in all, shared by the
    legal moves (each sample plays every move out at random); ``(move, new_seed)``."""
    if simulations < 1:
        raise ValueError(f"simulations must be >= 1, not {simulations}")
    move, rng, _ = run(observation, legal_moves, max(1, simulations // max(1, len(legal_moves))),
                       0.0, TP_RANDOM, seed)
    return move, rng


def pimc(observation, legal_moves, int samples, double time_ms, str policy, uint64_t seed):
    """pimc's move in a train game: every legal move played out under ``policy`` on each
    of up to ``samples`` samples, within ``time_ms`` ms of CPU time (0: no clock, the
    result then depends only on the seed); ``(move, new_seed, samples_used)``."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if samples < 1:
        raise ValueError(f"samples must be >= 1, not {samples}")
    return run(observation, legal_moves, samples, time_ms, POLICIES[policy], seed)
