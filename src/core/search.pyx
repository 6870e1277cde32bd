"""Search from an observation over deals of the hidden tiles drawn by the exact sampler
(``bones.core.sampler``): every sample is a full deal consistent with what the seat has
seen (hand sizes, the voids shown by passes and draws, the boneyard), drawn uniformly.

``choose`` is ``montecarlo``: every legal move is played out at random on every sample and
the best mean wins.  This is also the worked example of a bot that uses the core through
``cimport``.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy

from bones.core.moves cimport move_code
from bones.core.rng cimport rng_below, rng_seed
from bones.core.rules cimport FAMILY_KOZEL
from bones.core.sampler cimport DealSampler, sample_state
from bones.core.state cimport PLAYING, Outcome, State, find_move, outcome, play


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
    """The legal moves' codes into codes (at most MAX_CHOICES); checks that the layout is
    the one the events build, which the sampler alone does not read."""
    cdef int n = len(legal_moves), i
    if n > MAX_CHOICES:
        raise ValueError("too many legal moves")
    plays = tuple(e.move for e in observation.events if e.kind == "play")
    if tuple(observation.layout) != plays:
        raise ValueError("observation: the layout is not the one its events build")
    for i in range(n):
        codes[i] = move_code(legal_moves[i])
    return n


def choose(observation, legal_moves, int simulations, uint64_t seed):
    """The legal move with the best mean utility over ``simulations`` samples, each sample
    shared by every move; returns ``(move, new_seed)`` so a bot stays deterministic."""
    cdef DealSampler sampler
    cdef State base
    cdef State work
    cdef uint64_t rng = rng_seed(seed)
    cdef uint32_t codes[MAX_CHOICES]
    cdef double totals[MAX_CHOICES]
    cdef int n, i, _, rounds, side = observation.side, best
    cdef size_t header = header_size(&base)
    n = load_moves(observation, legal_moves, codes)
    sampler = DealSampler(observation)  # ValueError for an inconsistent observation
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
                memcpy(&work, &base, header)
                if find_move(&work, codes[i]) < 0:
                    totals[i] = -1e18
                    continue
                play(&work, codes[i])
                while work.status == PLAYING:
                    play(&work, work.moves[rng_below(&rng, work.n_moves)])
                totals[i] += utility(&work, side)
    best = 0
    for i in range(1, n):
        if totals[i] > totals[best]:
            best = i
    return legal_moves[best], rng
