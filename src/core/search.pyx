"""Monte Carlo move choice from an observation: sample the hidden tiles consistently with
what the seat knows, play every legal move out with random playouts, keep the best mean.

It sees only the Observation: the unseen tiles (other hands and the boneyard together)
are dealt at random for each sample, respecting hand sizes and the numbers a seat is known
to lack (it passed, or was forced to draw, with those numbers open and has not drawn
since).  This is also the worked example of a bot that uses the core through ``cimport``.
"""

from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from bones.core.moves cimport move_code
from bones.core.rng cimport rng_below, rng_seed
from bones.core.rules cimport FAMILY_BLOCK, FAMILY_KOZEL, CompiledRules, Rules, compile_rules
from bones.core.state cimport (
    PLAYING, Outcome, State, find_move, gen_moves, lay, open_mask, outcome, play, state_init,
)
from bones.core.tiles cimport ctz

cdef enum:
    MAX_LAYOUT = 32              # placements in one round are at most 28


cdef struct Sample:
    uint32_t own                 # the seat's own hand
    uint32_t unseen              # tiles in other hands or the boneyard
    uint32_t void[4]             # per seat, tiles it is known not to hold
    uint8_t sizes[4]             # hand sizes
    uint8_t stock_size           # boneyard size
    uint8_t seat                 # the seat choosing
    uint8_t players              # seats in the round
    int32_t scores[4]            # scores per side now
    uint32_t layout[MAX_LAYOUT]  # placements so far, as move codes
    int n_layout                 # how many
    int last_seat                # seat that placed the last tile
    int passes                   # consecutive passes before this turn


cdef bint deal_sample(const Sample* k, const Rules* r, State* s, uint64_t* rng) noexcept nogil:
    """Deal the unseen tiles into the other hands and the boneyard (voids respected where
    possible) and rebuild the table; False if the layout does not replay."""
    cdef uint32_t hands[4]
    cdef uint8_t stock[28]
    cdef uint8_t pool[28]
    cdef int n = 0, i, j, seat, need, tries, x, t
    cdef uint32_t m = k.unseen
    cdef int room[4]
    cdef bint ok, placed
    while m:
        pool[n] = ctz(m)
        n += 1
        m &= m - 1
    for tries in range(8):
        for i in range(n - 1, 0, -1):  # shuffle the unseen tiles
            j = rng_below(rng, i + 1)
            x = pool[i]
            pool[i] = pool[j]
            pool[j] = x
        for seat in range(4):
            hands[seat] = 0
            room[seat] = k.sizes[seat] if seat != k.seat and seat < k.players else 0
        hands[k.seat] = k.own
        need = 0
        ok = True
        for i in range(n):
            t = pool[i]
            # the first seat, starting at a random one, with room that may hold t
            x = rng_below(rng, k.players)
            placed = False
            for j in range(k.players):
                seat = (x + j) % k.players
                if room[seat] and (tries == 7 or not (k.void[seat] >> t & 1)):
                    hands[seat] |= 1u << t
                    room[seat] -= 1
                    placed = True
                    break
            if not placed:
                if need < k.stock_size:
                    stock[need] = t
                    need += 1
                elif r.family != FAMILY_BLOCK:  # block: the tiles left were never dealt
                    ok = False
                    break
        if ok:
            break
    state_init(s, r, hands, stock, need, k.seat, -1, k.scores)
    for i in range(k.n_layout):
        if not lay(s, k.layout[i]):
            return False
    s.to_move = k.seat
    s.last_seat = k.last_seat
    s.passes = k.passes
    gen_moves(s)
    return True


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


def choose(observation, legal_moves, int simulations, uint64_t seed):
    """The legal move with the best mean utility over ``simulations`` samples, each sample
    shared by every move; returns ``(move, new_seed)`` so a bot stays deterministic."""
    cdef CompiledRules rules = compile_rules(
        observation.variant, observation.players, observation.options)
    cdef Sample k
    cdef State base
    cdef State work
    cdef uint64_t rng = rng_seed(seed)
    cdef uint32_t codes[256]
    cdef double totals[256]
    cdef int n = len(legal_moves), i, _, rounds, side = observation.side, best
    cdef size_t header = <size_t>(<char*>&base.plies[0] - <char*>&base)
    if n == 1:
        return legal_moves[0], rng
    if n > 256:
        raise ValueError("too many legal moves")
    _fill_sample(&k, &rules.c, observation)
    for i in range(n):
        codes[i] = move_code(legal_moves[i])
        totals[i] = 0
    rounds = max(1, simulations // n)
    with nogil:
        for _ in range(rounds):
            if not deal_sample(&k, &rules.c, &base, &rng):
                break
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


cdef void _fill_sample(Sample* k, const Rules* r, observation) except *:
    """The C view of what the observation says: own hand, unseen tiles, sizes, voids."""
    cdef int seat
    cdef uint32_t table = 0, code
    cdef State pub
    cdef uint32_t no_hands[4]
    cdef int32_t no_scores[4]
    # Passing, or being forced to draw, shows that a seat holds nothing matching the open
    # numbers of that moment; unless drawing or passing are choices (options).
    cdef bint informative = not (r.draw_with_playable or r.voluntary_pass)
    # The C below indexes fixed arrays by these: check them once (an Observation built
    # by hand need not be consistent).
    if not 0 <= observation.seat < r.players or observation.players != r.players:
        raise ValueError(f"observation: seat {observation.seat!r} of {observation.players!r}")
    if len(observation.hand_sizes) != r.players or not all(
            0 <= n <= 28 for n in observation.hand_sizes) \
            or not 0 <= observation.stock_size <= 28 or len(observation.layout) > 28:
        raise ValueError("observation: hand sizes, stock size or layout out of range")
    k.seat = observation.seat
    k.players = observation.players
    k.own = 0
    for tile in observation.hand:
        k.own |= 1u << tile.index
    k.n_layout = 0
    for move in observation.layout:
        code = move_code(move)
        k.layout[k.n_layout] = code
        k.n_layout += 1
        table |= 1u << (code & 31)
        if move.is_double_double:
            table |= 1u << ((code >> 10) & 31)
    k.unseen = 0x0FFFFFFF & ~table & ~k.own
    for seat in range(4):
        k.sizes[seat] = observation.hand_sizes[seat] if seat < k.players else 0
        k.void[seat] = 0
        k.scores[seat] = observation.scores[seat] if seat < len(observation.scores) else 0
        no_hands[seat] = 0
        no_scores[seat] = 0
    k.stock_size = observation.stock_size
    k.last_seat = -1
    k.passes = 0
    state_init(&pub, r, no_hands, NULL, 0, 0, -1, no_scores)
    for event in observation.events:
        seat = event.seat
        if event.kind == "play":
            lay(&pub, move_code(event.move))
            k.last_seat = seat
            k.passes = 0
        elif event.kind == "draw":
            k.void[seat] = open_mask(&pub) if informative else 0
        elif event.kind == "pass":
            k.passes += 1
            if informative:
                k.void[seat] |= open_mask(&pub)
