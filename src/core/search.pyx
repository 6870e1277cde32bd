"""Search from an observation over deals of the hidden tiles drawn by the exact sampler
(``bones.core.sampler``): every sample is a full deal consistent with what the seat has
seen (hand sizes, the voids shown by passes and draws, the boneyard), drawn uniformly.

``choose`` is ``montecarlo``: every legal move is played out at random on every sample and
the best mean wins.  ``pimc`` (perfect-information Monte Carlo) plays every legal move out
on every sample under a fast policy (greedy or expert) instead, solves the sampled deal
exactly by alpha-beta once few tiles are left in the hands and nothing can be drawn, and
stops at a budget of samples or of time.  This is also the worked example of a bot that
uses the core through ``cimport``.
"""


from bones.core.belief import MAX_BETA
from bones.core.policy import FIELDS
from bones.core.policy import choose as expert_choose

from libc.math cimport exp, sqrt
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy
from bones.core.bitops cimport thread_ms

from bones.core.belief cimport log_likelihood
from bones.core.moves cimport move_code
from bones.core.policy cimport Known, Weights, expert_pick, greedy_pick, known_of, load_weights
from bones.core.rng cimport rng_below, rng_next, rng_seed
from bones.core.rules cimport FAMILY_KOZEL
from bones.core.sampler cimport Deals, DealSampler, sample_state
from bones.core.state cimport (
    MAX_MOVES, PLAYING, Outcome, State, find_move, outcome, play, undo,
)
from bones.core.threads cimport run_threads, share, thread_rng
from bones.core.tiles cimport popcount

POLICIES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY, "expert": POLICY_EXPERT}


cdef double utility(const State* s, int side) noexcept nogil:
    """What the finished round is worth to side: its gain (counts during the round plus the
    round-end award; a Kozel penalty counts against it) less the best other side's gain."""
    cdef Outcome out
    cdef int x
    cdef double gain, mine = 0, best = -1e9
    outcome(s, &out)
    for x in range(s.r.n_sides):
        gain = s.score[x] - s.score0[x]
        if s.r.family == FAMILY_KOZEL:
            gain -= out.points[x]
        else:
            gain += out.points[x]
        if out.winners >> x & 1:
            gain += 0.5  # a win is worth a little even at no points (ties, Kozel)
        if x == side:
            mine = gain
        elif gain > best:
            best = gain
    return mine - best


cdef int load_moves(observation, legal_moves, uint32_t* codes) except -1:
    """The legal moves' codes into codes (at most MAX_CHOICES); checks that they are the
    observation's and that its layout is the one its events build (the sampler reads
    neither)."""
    cdef int n = len(legal_moves), i
    if n > MAX_CHOICES:
        raise ValueError("too many legal moves")
    if tuple(legal_moves) != tuple(observation.legal_moves):
        raise ValueError("the legal moves are not the observation's")
    plays = tuple(e.move for e in observation.events if e.kind == "play")
    if tuple(observation.layout) != plays:
        raise ValueError("observation: the layout is not the one its events build")
    for i in range(n):
        codes[i] = move_code(legal_moves[i])
    return n


cdef DealSampler sampler_for(observation, const uint32_t* codes, int n, uint64_t rng):
    """The observation's sampler (ValueError if no deal explains it), after checking on
    one deal that every move is legal there (the seat's moves are the same in every
    consistent deal)."""
    cdef DealSampler sampler = DealSampler(observation)
    cdef State s
    cdef int i
    cdef bint ok
    ok = sample_state(sampler.d, &s, &rng)
    sampler.check_scorer()
    if not ok:
        raise ValueError("cannot sample: no consistent deal found")
    for i in range(n):
        if find_move(&s, codes[i]) < 0:
            raise ValueError("the legal moves are not those of the observation's position")
    return sampler


cdef DealSampler start_search(observation, legal_moves, str policy, weights, Weights* w,
                              uint32_t* codes, int* n, int* pol, uint64_t rng):
    """The start that pimc and ismcts share: the code of ``policy`` (ValueError for an
    unknown one) into pol, the weights into w, the legal moves' codes into codes and
    their number into n, and the observation's sampler."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    pol[0] = POLICIES[policy]
    load_weights(weights, w)
    n[0] = load_moves(observation, legal_moves, codes)
    return sampler_for(observation, codes, n[0], rng)


def choose(observation, legal_moves, *, int simulations=400, uint64_t seed=0):
    """montecarlo's move: the legal move with the best mean utility over ``simulations``
    playouts in all, each sample shared by every move; returns ``(move, new_seed)`` so a
    bot stays deterministic.  The same signature as ``bones.core.trainsearch.choose``."""
    if simulations < 1:
        raise ValueError(f"simulations must be >= 1, not {simulations}")
    cdef DealSampler sampler
    cdef State base
    cdef State work
    cdef uint64_t rng = rng_seed(seed)
    cdef uint32_t codes[MAX_CHOICES]
    cdef double totals[MAX_CHOICES]
    cdef int n, i, _, rounds, side = observation.side, best
    n = load_moves(observation, legal_moves, codes)
    sampler = sampler_for(observation, codes, n, rng)
    if n == 1:
        return legal_moves[0], rng
    for i in range(n):
        totals[i] = 0
    rounds = max(1, simulations // n)
    with nogil:
        for _ in range(rounds):
            if not sample_state(sampler.d, &base, &rng):
                break  # the rejection limit: keep the samples drawn so far
            for i in range(n):
                memcpy(&work, &base, position_size(&base))
                play(&work, codes[i])
                while work.status == PLAYING:
                    play(&work, work.moves[rng_below(&rng, work.n_moves)])
                totals[i] += utility(&work, side)
    sampler.check_scorer()
    best = 0
    for i in range(1, n):
        if totals[i] > totals[best]:
            best = i
    return legal_moves[best], rng


cdef void play_out(State* s, int policy, const Weights* w, uint64_t* rng) noexcept nogil:
    """Play s to the end of the round, every seat by the policy."""
    cdef Known k
    while s.status == PLAYING:
        if policy == POLICY_GREEDY:
            play(s, s.moves[greedy_pick(s)])
        elif policy == POLICY_EXPERT:
            known_of(s, &k)
            play(s, s.moves[expert_pick(s, s.moves, s.n_moves, w, &k)])
        else:
            play(s, s.moves[rng_below(rng, s.n_moves)])


cdef bint endgame(const State* s, int tiles) noexcept nogil:
    """Few enough tiles in the hands, and nothing left to draw: solve exactly."""
    cdef int i, held = 0
    if s.r.draws and s.stock_len - s.stock_top > s.r.reserve:
        return False
    for i in range(s.r.players):
        held += popcount(s.hand[i])
    return held <= tiles


cdef double alphabeta(State* s, int side, double alpha, double beta) noexcept nogil:
    """The exact utility of s for side with every hand known (the others minimise it:
    with more than two sides, the paranoid value)."""
    cdef uint32_t local[MAX_MOVES]
    cdef int i, n
    cdef double v, best
    cdef bint mine
    if s.status != PLAYING:
        return utility(s, side)
    n = s.n_moves
    for i in range(n):
        local[i] = s.moves[i]
    mine = s.r.side_of[s.to_move] == side
    best = -1e18 if mine else 1e18
    for i in range(n):
        play(s, local[i])
        v = alphabeta(s, side, alpha, beta)
        undo(s)
        if mine:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best


cdef int pimc_chunk(Deals* d, const uint32_t* codes, int n, int quota, double time_ms,
                    double start, int pol, const Weights* w, int exact, int side,
                    uint64_t* rng, double* totals, double infer, int seat,
                    double* shift, int ref, double* sq, double* mass) noexcept nogil:
    """pimc's work on up to ``quota`` deals from ``d`` (and until ``time_ms`` of this
    thread's CPU time after ``start``): every move's value added into totals; the deals
    used.  With ``infer`` > 0 a value counts times its deal's belief weight, held as
    exp(log weight - shift): shift is the largest log weight so far (totals are rescaled
    when it grows), so long records cannot underflow every weight to 0.  With ``ref`` >= 0
    (``gate``) every move's weighted squared lead over move ref is added into sq, and the
    total weight and total squared weight into mass[0] and mass[1]."""
    cdef State base
    cdef State work
    cdef double values[MAX_CHOICES]
    cdef double weight = 1, ll, scale
    cdef int used = 0, i
    cdef bint over = False
    while used < quota and not over:
        if not sample_state(d, &base, rng):
            break  # the rejection limit: keep the samples drawn so far
        if infer > 0:
            ll = log_likelihood(&base, &work, seat, infer, w)
            if ll > shift[0]:
                scale = exp(shift[0] - ll)
                for i in range(n):
                    totals[i] *= scale
                if ref >= 0:
                    for i in range(n):
                        sq[i] *= scale
                    mass[0] *= scale
                    mass[1] *= scale * scale
                shift[0] = ll
            weight = exp(ll - shift[0])
        for i in range(n):
            # the clock is read before every move's playout; a sample cut short is
            # dropped, so every move is scored on the same deals
            if time_ms > 0 and used and thread_ms() - start >= time_ms:
                over = True
                break
            memcpy(&work, &base, position_size(&base))
            play(&work, codes[i])
            if endgame(&work, exact):
                values[i] = alphabeta(&work, side, -1e18, 1e18)
            else:
                play_out(&work, pol, w, rng)
                values[i] = utility(&work, side)
        if not over:
            used += 1
            for i in range(n):
                totals[i] += weight * values[i]
            if ref >= 0:
                for i in range(n):
                    sq[i] += weight * (values[i] - values[ref]) * (values[i] - values[ref])
                mass[0] += weight
                mass[1] += weight * weight
    return used


cdef double lead(const double* totals, const double* sq, const double* mass, int i,
                 int ref) noexcept nogil:
    """Move i's mean lead over move ref, paired deal by deal, in standard errors of that
    mean over the deals' effective number (Kish's: all of them when unweighted); 0 below
    two deals.  The same test as ``bones.core.trainsearch``'s gate."""
    cdef double effective, diff, spread
    if mass[0] <= 0:
        return 0.0
    effective = mass[0] * mass[0] / mass[1]
    if effective < 2:
        return 0.0
    diff = (totals[i] - totals[ref]) / mass[0]
    spread = max(sq[i] / mass[0] - diff * diff, 0.0)
    if spread == 0:
        return 0.0 if diff == 0 else (1e300 if diff > 0 else -1e300)
    return diff / sqrt(spread / (effective - 1))


cdef class _PimcThread:
    """One thread's share of a pimc decision: its own sampler (a sampler fills its memo
    as it draws), generator, quota and totals."""

    cdef DealSampler sampler          # this thread's sampler of the observation
    cdef uint32_t codes[MAX_CHOICES]  # the legal moves' codes
    cdef double totals[MAX_CHOICES]   # per move, the sum of its values
    cdef Weights w                    # the playout policy's weights
    cdef uint64_t rng                 # this thread's generator
    cdef double time_ms               # the clock: this thread's CPU time (0: none)
    cdef int n                        # legal moves
    cdef int quota                    # most deals
    cdef int pol                      # the playout policy
    cdef int exact                    # tiles in the hands at which alpha-beta takes over
    cdef int side                     # the deciding seat's side
    cdef int used                     # deals used
    cdef double infer                 # the belief model's sharpness (0: deals unweighted)
    cdef int seat                     # the deciding seat (its own plays are not evidence)
    cdef double shift                 # with infer: totals are in units of exp(shift)
    cdef int ref                      # with gate: the policy's own move (-1: none)
    cdef double sq[MAX_CHOICES]       # with gate: per move, its weighted squared leads
    cdef double mass[2]               # with gate: the total weight, the total squared

    def run(self):
        """Search, the clock (this thread's CPU time) started now."""
        self.search_from(thread_ms())

    cdef int search_from(self, double start) except -1:
        if self.sampler is None:  # made without pimc(): nothing to search
            raise ValueError("a pimc thread is made by pimc()")
        with nogil:
            self.used = pimc_chunk(
                self.sampler.d, self.codes, self.n, self.quota, self.time_ms, start,
                self.pol, &self.w, self.exact, self.side, &self.rng, self.totals,
                self.infer, self.seat, &self.shift, self.ref, self.sq, self.mass,
            )
        return 0


#: pimc's ``exact`` when none is given: alpha-beta from 8 tiles in the hands
EXACT = 8


cdef tuple line_weights(weights, str policy, double infer, double gate):
    """The expert's weights, checked: needed by the expert policy, the belief model
    (``infer`` > 0) and the gate (the expert's own move); zeros for the others."""
    if weights is None:
        if policy == "expert" or infer > 0 or gate > 0:
            raise ValueError(
                "weights: the expert's weights (FIELDS order; the bots' defaults are "
                "bones.plugins.search_bots.expert_weights(variant, {})) are needed for "
                "policy 'expert', infer > 0 or gate > 0"
            )
        return (0.0,) * len(FIELDS)
    return tuple(weights)


def pimc(observation, legal_moves, *, int samples=1000, double time_ms=20.0,
         str policy="expert", uint64_t seed=0, int threads=1, exact=None, weights=None,
         double infer=0.0, double gate=0.0):
    """pimc's move: every legal move played out on each of up to ``samples`` deals under
    ``policy`` (``"greedy"``, ``"expert"`` with ``weights``, or ``"random"``), or solved
    exactly when at most ``exact`` tiles (default :data:`EXACT`) are left in the hands and
    nothing can be drawn; stops after ``time_ms`` milliseconds of CPU time (0: no clock;
    the result then depends only on the seed).  With ``threads`` > 1 the deals are shared
    out between that many threads, each on its own generator (derived from ``seed``) and
    its own clock of ``time_ms``.  With ``infer`` > 0 every deal counts in proportion to
    how likely the other seats' placements are in it (``bones.core.belief``, sharpness
    ``infer``, the expert ``weights``).  With ``gate`` > 0 and the expert policy, the
    expert's own move (``bones.core.policy.choose``) is left only for a move whose mean
    lead over it, paired deal by deal, is more than ``gate`` standard errors (0: the best
    mean wins), as in ``bones.core.trainsearch.pimc``.  Returns ``(move, new_seed,
    samples_used)``; the same signature as ``bones.core.trainsearch.pimc``."""
    cdef DealSampler sampler
    cdef Weights w
    cdef uint64_t rng = rng_seed(seed)
    cdef uint32_t codes[MAX_CHOICES]
    cdef double totals[MAX_CHOICES]
    cdef double sq[MAX_CHOICES]
    cdef double mass[2]
    cdef int n, i, t, used = 0, side = observation.side, best, pol, seat = observation.seat
    cdef int ref = -1, tiles
    cdef double start = thread_ms()
    cdef double shift = -1e300 if infer > 0 else 0, top, scale
    cdef _PimcThread task
    if samples < 1:
        raise ValueError(f"samples must be >= 1, not {samples}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, not {threads}")
    if not 0 <= infer <= MAX_BETA:
        raise ValueError(f"infer must be from 0 to {MAX_BETA:g}, not {infer}")
    if not gate >= 0:
        raise ValueError(f"gate must be >= 0, not {gate}")
    tiles = EXACT if exact is None else exact
    weights = line_weights(weights, policy, infer, gate)
    sampler = start_search(observation, legal_moves, policy, weights, &w, codes, &n, &pol, rng)
    if n == 1:
        return legal_moves[0], rng, 0
    for i in range(n):
        totals[i] = 0
        sq[i] = 0
    mass[0] = mass[1] = 0
    if gate > 0 and pol == POLICY_EXPERT:  # the expert bot's own move
        ref = list(legal_moves).index(expert_choose(observation, legal_moves, weights=weights))
    if threads == 1:
        with nogil:
            used = pimc_chunk(sampler.d, codes, n, samples, time_ms, start, pol, &w, tiles,
                              side, &rng, totals, infer, seat, &shift, ref, sq, mass)
        sampler.check_scorer()
    else:
        tasks = []
        for t in range(threads):
            task = _PimcThread()
            task.rng = thread_rng(rng, t)
            task.sampler = sampler if t == 0 else sampler_for(observation, codes, n, task.rng)
            memcpy(task.codes, codes, n * sizeof(uint32_t))
            task.w = w
            task.n, task.pol, task.exact, task.side = n, pol, tiles, side
            task.time_ms = time_ms
            task.infer, task.seat, task.shift = infer, seat, shift
            task.ref = ref
            task.quota = share(samples, threads, t)
            for i in range(n):
                task.totals[i] = 0
                task.sq[i] = 0
            task.mass[0] = task.mass[1] = 0
            tasks.append(task)
        task = tasks[0]  # the main thread's clock has run since the decision began
        run_threads(lambda: task.search_from(start), [other.run for other in tasks[1:]])
        top = shift
        for task in tasks:
            if task.shift > top:
                top = task.shift
        for task in tasks:
            task.sampler.check_scorer()
            used += task.used
            scale = exp(task.shift - top)
            for i in range(n):
                totals[i] += task.totals[i] * scale
                sq[i] += task.sq[i] * scale
            mass[0] += task.mass[0] * scale
            mass[1] += task.mass[1] * scale * scale
        rng_next(&rng)  # the next decision draws other threads' generators
    best = 0
    for i in range(1, n):
        if totals[i] > totals[best]:
            best = i
    if ref >= 0 and best != ref and lead(totals, sq, mass, best, ref) <= gate:
        # Depart from the expert's own move only when the paired difference is clear of
        # the noise of the deals: gate standard errors of its mean.
        best = ref
    return legal_moves[best], rng, used
