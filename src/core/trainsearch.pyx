"""Search for the train games (Mexican Train, Chicken Foot) over determinizations drawn by
``bones.core.trainsample`` (uniform over the deals consistent with the public record).

``choose`` is ``montecarlo``: on every sample every legal move is played out at random.
``pimc`` plays every legal move out on each of up to ``samples`` samples under a fast
policy (``bones.core.trainpolicy``: expert, chain, greedy or random) and stops at the budget of
samples or of CPU time.  A finished playout is worth, to the mover, the mean penalty of
the other seats less its own (penalties are the pips left in the hands); the move with the
best mean wins, the first of equals, except that under the planner (expert) or the chain
heuristic ``pimc`` leaves the policy's own move only for a move whose lead over it, paired
sample by sample, is more than ``gate`` standard errors of its mean.  With ``infer`` > 0
the means are weighted, each sample by how likely it makes the other seats' placements
(``TrainSampler.weighed_deal``), and the standard errors count the samples' effective
number.
"""


from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.math cimport exp, sqrt
from libc.stdint cimport uint64_t
from bones.core.bitops cimport thread_ms

from bones.core.rng cimport rng_next, rng_seed
from bones.core.threads cimport run_threads, share, thread_rng
from bones.core.trainplan cimport PLAN_BUDGET
from bones.core.trainpolicy cimport TP_RANDOM, tp_playout, tp_seat_pick
from bones.core.trainsample cimport TrainSampler
from bones.core.trainstate cimport (
    TR_MAX_MOVES, TrainState, ts_copy, ts_penalty, ts_play,
)

from bones.core.trainpolicy import POLICIES, check_moves
from bones.core.trainsample import MAX_BETA


cdef double utility(const TrainState* s, int seat) noexcept nogil:
    """What the finished round is worth to seat: the others' mean penalty less its own."""
    cdef int i
    cdef double others = 0
    for i in range(s.players):
        if i != seat:
            others += ts_penalty(s, i)
    return others / (s.players - 1) - ts_penalty(s, seat)


cdef double lead(const double* sums, int n, int i, int ref) noexcept nogil:
    """Move i's mean lead over ref, paired sample by sample, in standard errors of that
    mean over the samples' effective number (Kish's: all of them when unweighted); 0
    below two samples."""
    cdef double mass = sums[2 * n], effective, diff, spread
    if mass <= 0:
        return 0.0
    effective = mass * mass / sums[2 * n + 1]
    if effective < 2:
        return 0.0
    diff = (sums[i] - sums[ref]) / mass
    spread = max(sums[n + i] / mass - diff * diff, 0.0)
    if spread == 0:
        return 0.0 if diff == 0 else (1e300 if diff > 0 else -1e300)
    return diff / sqrt(spread / (effective - 1))


cdef void add_sample(double* sums, int n, const double* cur, int ref, double ll, double infer,
                     double* shift) noexcept nogil:
    """Add one sample's utilities ``cur`` (one per move) to ``sums`` (as :func:`search`
    lays them out), weighted by exp(ll - shift) under ``infer`` > 0 (else 1), ``shift``
    the largest log-likelihood so far: when ``ll`` exceeds it the sums are rescaled to
    the new shift first (the squared weights by its square), so that the weights stay
    numbers on a long record and their ratios stay exact."""
    cdef double weight = 1, scale
    cdef int i
    if infer > 0:
        if ll > shift[0]:
            scale = exp(shift[0] - ll)
            for i in range(2 * n + 1):
                sums[i] *= scale
            sums[2 * n + 1] *= scale * scale
            shift[0] = ll
        weight = exp(ll - shift[0])
    for i in range(n):
        sums[i] += weight * cur[i]
        if ref >= 0:
            sums[n + i] += weight * (cur[i] - cur[ref]) * (cur[i] - cur[ref])
    sums[2 * n] += weight
    sums[2 * n + 1] += weight * weight


def gate_statistic(lls, utilities, int ref, int best, double infer=1.0):
    """The weighted sums pimc's gate reads, made by the same code as a search's from
    given samples (``lls``: each sample's log-likelihood; ``utilities``: per sample, one
    utility per move): ``(effective number of samples, best's lead over ref in standard
    errors)``.  For the tests, which recompute both from the weights."""
    cdef int n = len(utilities[0]) if len(utilities) else 0
    cdef double sums[2 * TR_MAX_MOVES + 2]
    cdef double cur[TR_MAX_MOVES]
    cdef double shift = -1e300
    cdef int i
    if not 1 <= n <= TR_MAX_MOVES or len(lls) != len(utilities):
        raise ValueError("one log-likelihood per sample and 1 to TR_MAX_MOVES utilities each")
    if not (0 <= ref < n and 0 <= best < n):
        raise ValueError("ref and best must be moves of the samples")
    for i in range(2 * n + 2):
        sums[i] = 0
    for ll, row in zip(lls, utilities):
        if len(row) != n:
            raise ValueError("every sample needs one utility per move")
        for i in range(n):
            cur[i] = row[i]
        add_sample(sums, n, cur, ref, ll, infer, &shift)
    effective = 0.0 if sums[2 * n + 1] <= 0 else sums[2 * n] * sums[2 * n] / sums[2 * n + 1]
    return effective, lead(sums, n, best, ref)


cdef int search(TrainSampler sampler, TrainState* base, TrainState* work, const int* codes,
                int n, double* sums, int ref, int samples, double start, double time_ms,
                int policy, double infer, double* shift, uint64_t* rng) noexcept nogil:
    """Add each move's utility over up to samples samples to sums; the samples used.
    sums holds per move its total (sums[i]) and its paired squared lead over ref
    (sums[n + i]), then the total weight and the total squared weight (sums[2n],
    sums[2n + 1]).  With infer > 0 every sample counts by its belief weight, held as
    exp(log-likelihood - shift) with shift the largest so far (the sums are rescaled when
    it grows), so no long record underflows every weight to 0.  The clock (started at
    ``start``, before the sampler was built) is read before every move's playout; a sample
    cut short is dropped, so every move is scored on the same deals (at least one sample
    is always completed).  shift starts at -1e300 and is left at the last one."""
    cdef double cur[TR_MAX_MOVES]
    cdef double ll
    cdef int used = 0, i
    cdef bint over = False
    while used < samples and not over:
        ll = sampler.sample_ll(base, rng, infer)
        for i in range(n):
            if time_ms > 0 and used > 0 and thread_ms() - start >= time_ms:
                over = True
                break
            ts_copy(work, base)
            ts_play(work, codes[i])
            tp_playout(work, policy, rng)
            cur[i] = utility(work, sampler.seat)
        if over:
            break
        add_sample(sums, n, cur, ref, ll, infer, shift)
        used += 1
    return used


cdef class _TrainPimcThread:
    """One thread's share of a pimc decision: its own sampler (a sampler keeps counts as
    it draws), positions, generator, quota and sums."""

    cdef TrainSampler sampler                  # this thread's sampler of the observation
    cdef TrainState* base                      # a sample (NULL: made without pimc())
    cdef TrainState* work                      # a playout
    cdef int codes[TR_MAX_MOVES]               # the legal moves' codes
    cdef double sums[2 * TR_MAX_MOVES + 2]     # search()'s sums
    cdef uint64_t rng                          # this thread's generator
    cdef double time_ms                        # the clock: this thread's CPU time (0: none)
    cdef double infer                          # the belief model's sharpness
    cdef double shift                          # with infer: sums in units of exp(shift)
    cdef int n                                 # legal moves
    cdef int ref                               # the policy's own move (-1: none)
    cdef int quota                             # most samples
    cdef int policy                            # the playout policy
    cdef int used                              # samples used

    def __dealloc__(self):
        PyMem_Free(self.base)
        PyMem_Free(self.work)

    cdef int prepare(self, TrainSampler sampler, const int* codes, int n, int ref,
                     int quota, double time_ms, int policy, double infer,
                     uint64_t rng) except -1:
        cdef int i
        self.base = <TrainState*>PyMem_Malloc(sizeof(TrainState))
        self.work = <TrainState*>PyMem_Malloc(sizeof(TrainState))
        if self.base is NULL or self.work is NULL:
            raise MemoryError()
        self.sampler, self.n, self.ref, self.quota = sampler, n, ref, quota
        self.time_ms, self.policy, self.infer, self.rng = time_ms, policy, infer, rng
        self.shift = -1e300
        for i in range(n):
            self.codes[i] = codes[i]
        for i in range(2 * n + 2):
            self.sums[i] = 0
        return 0

    def run(self):
        """Search, the clock (this thread's CPU time) started now."""
        self.search_from(thread_ms())

    cdef int search_from(self, double start) except -1:
        cdef TrainSampler sampler = self.sampler
        if self.base is NULL:  # made without pimc(): nothing to search
            raise ValueError("a train pimc thread is made by pimc()")
        with nogil:
            self.used = search(sampler, self.base, self.work, self.codes, self.n, self.sums,
                               self.ref, self.quota, start, self.time_ms, self.policy,
                               self.infer, &self.shift, &self.rng)
        return 0


cdef tuple run(observation, legal_moves, int samples, double time_ms, int policy,
               double gate, double infer, uint64_t seed, int threads):
    cdef double start = thread_ms()  # building the sampler is part of the decision's time
    cdef TrainSampler sampler = TrainSampler(observation)
    cdef int codes[TR_MAX_MOVES]
    cdef double sums[2 * TR_MAX_MOVES + 2]
    cdef uint64_t rng = rng_seed(seed)
    cdef int n, i, t, best, used = 0, ref = -1, ref_code
    cdef double top, scale
    cdef _TrainPimcThread task
    moves = check_moves(sampler, legal_moves)
    n = len(moves)
    if n == 1:
        return legal_moves[0], rng, 0
    for i in range(n):
        codes[i] = moves[i]
    for i in range(2 * n + 2):
        sums[i] = 0
    if gate > 0:  # the move the expert (or chain) bot would make: -1 under other policies
        ref_code = tp_seat_pick(sampler, policy, PLAN_BUDGET)
        if ref_code >= 0:
            ref = moves.index(ref_code)
    tasks = []
    for t in range(threads):
        task = _TrainPimcThread()
        task.prepare(sampler if t == 0 else TrainSampler(observation), codes, n, ref,
                     share(samples, threads, t), time_ms, policy, infer,
                     rng if threads == 1 else thread_rng(rng, t))
        tasks.append(task)
    task = tasks[0]  # the main thread's clock has run since the decision began
    run_threads(lambda: task.search_from(start), [other.run for other in tasks[1:]])
    if threads == 1:
        used = task.used
        for i in range(2 * n + 2):
            sums[i] = task.sums[i]
        rng = task.rng  # one thread draws from the bot's own generator
    else:
        top = -1e300
        for task in tasks:
            if task.shift > top:
                top = task.shift
        for task in tasks:
            used += task.used
            scale = exp(task.shift - top)
            for i in range(2 * n + 1):
                sums[i] += task.sums[i] * scale
            sums[2 * n + 1] += task.sums[2 * n + 1] * scale * scale
        rng_next(&rng)  # the next decision draws other threads' generators
    best = 0
    for i in range(1, n):
        if sums[i] > sums[best]:
            best = i
    if ref >= 0 and best != ref and lead(sums, n, best, ref) <= gate:
        # Depart from the policy's own move only when the paired difference is clear of
        # the noise of the samples: gate standard errors of its mean.
        best = ref
    return legal_moves[best], rng, used


def choose(observation, legal_moves, *, int simulations=400, uint64_t seed=0):
    """montecarlo's move in a train game: ``simulations`` playouts in all, shared by the
    legal moves (each sample plays every move out at random); ``(move, new_seed)``.  The
    same signature as ``bones.core.search.choose``."""
    if simulations < 1:
        raise ValueError(f"simulations must be >= 1, not {simulations}")
    move, rng, _ = run(observation, legal_moves, max(1, simulations // max(1, len(legal_moves))),
                       0.0, TP_RANDOM, 0.0, 0.0, seed, 1)
    return move, rng


def pimc(observation, legal_moves, *, int samples=1000, double time_ms=20.0,
         str policy="expert", uint64_t seed=0, int threads=1, exact=None, weights=None,
         double infer=0.0, double gate=0.0):
    """pimc's move in a train game: every legal move played out under ``policy`` on each
    of up to ``samples`` samples, within ``time_ms`` ms of CPU time (0: no clock, the
    result then depends only on the seed), each sample weighted by the belief model of
    sharpness ``infer`` (``TrainSampler.weighed_deal``; 0: all alike), the policy's own
    move kept unless another leads it by more than ``gate`` standard errors (0: the best
    mean); ``(move, new_seed, samples_used)``.  With ``threads`` > 1 the samples are
    shared out between that many threads, each with its own sampler, generator (derived
    from ``seed``) and clock of ``time_ms``.  The same signature as
    ``bones.core.search.pimc``, whose ``exact`` (alpha-beta endgames) and ``weights`` (the
    line expert's) do not apply here: ValueError unless they are None."""
    if exact is not None:
        raise ValueError("exact (alpha-beta endgames) does not apply to the train games")
    if weights is not None:
        raise ValueError("weights (the line expert's) do not apply to the train games")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if samples < 1:
        raise ValueError(f"samples must be >= 1, not {samples}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, not {threads}")
    if not gate >= 0:
        raise ValueError(f"gate must be >= 0, not {gate}")
    if not 0 <= infer <= MAX_BETA:
        raise ValueError(f"infer must be from 0 to {MAX_BETA:g}, not {infer}")
    return run(observation, legal_moves, samples, time_ms, POLICIES[policy], gate, infer, seed,
               threads)
