"""Exact, uniform sampling of the hidden deal behind one seat's view of a round.

A *hidden deal* is a full deal -- every seat's hand at the deal and the boneyard in order
-- that, with the moves of the record, replays to the same public record: the same events
(plays, draws with their counts, passes), so the same hand sizes, layout and scores, and
the seat's own hand.  The sampler draws one such deal uniformly at random among all of
them.  docs/sampler.md gives the model; in short:

* Each seat's tiles are split into *groups* by when they were acquired: the deal (G0), and
  each draw event (a forced chain of k draws gives a group of the k - 1 tiles that did not
  match and a group of the last tile, which did).  The undrawn boneyard is one group, and
  Block's tiles out of play another.  A group's capacity is public.
* A pass, or a forced draw, at a moment when the open numbers were M says that the seat
  then held no tile of M: no tile held at that moment (a tile of a group acquired before it
  and not played before it) may be in M.  A tile played by a seat came from one of its
  groups acquired before the play; an unseen tile goes to another seat's group or the
  boneyard; the seat's own tiles to its own groups.
* So each tile has a set of groups it may go to (a bitmask), and a consistent deal is an
  assignment of the 28 tiles to the groups that fills each group exactly: the number of
  full deals behind one assignment is the product of the factorials of the boneyard
  groups' capacities (any order inside a group is consistent), the same for every
  assignment.
* The assignments are counted exactly (128-bit integers) by a memoised dynamic programme
  over the tiles, whose state is the capacity left in each group (plus one bit for the
  seat to move, which must hold a playable tile); a deal is then drawn tile by tile, each
  tile's group with probability proportional to the number of completions.
* The first-round opening rule (the holder of the highest double leads it) adds: no tile
  ranked above the opener was dealt to anyone, and the leader was dealt the opener.  When
  the opener is not known the cases (one per possible opener) are counted separately and
  one is drawn by its count.

Everything else (Kozel's redeal of bad hands, drawing while holding a playable tile,
muggins claims, finished rounds) is handled by rejection: a sample of the model above is
replayed and kept only when it reproduces the record exactly, which keeps the result
uniform over the consistent deals.
"""

from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

import math

from bones.core.bitops cimport (
    U128, ctz64, popcount64, u128_add, u128_is_max, u128_is_zero, u128_lt, u128_of, u128_sub,
)
from bones.core.moves cimport move_code, move_of
from bones.core.rng cimport rng_below, rng_next, rng_seed
from bones.core.round cimport Round
from bones.core.rules cimport OPEN_DOUBLES, CompiledRules, Rules, compile_rules
from bones.core.state cimport (
    KIND_DOUBLE_DOUBLE, KIND_DRAW, KIND_MUGGINS, KIND_PASS, OVER_BLOCKED, OVER_OUT,
    OVER_TARGET, PLAYING, Ply, State, find_move, kind_of, lay, open_mask, play, state_init,
)
from bones.core.state cimport opening as opening_rule
from bones.core.tiles cimport DOUBLE_OF, DOUBLES_MASK, TILE_HI, TILE_LO
from bones.core.tiles cimport bad_hand, popcount, tile_pips

cdef enum:
    T_DEAL = 0                   # time of the deal
    T_END = 32000                # time "now": unplayed tiles are held until then


# Times: event e happens at 2e + 2.  A forced chain's non-matching tiles are acquired at
# 2e + 1 (before the void it shows), its last tile and a voluntary draw at 2e + 3 (after).
cdef inline int ev_time(int e) noexcept nogil:
    return 2 * e + 2


# ---------------------------------------------------------------------------------------
# Building the constraint set


cdef int new_group(Deals* d, int seat, int time, int cap, int ordered,
                   uint32_t need) noexcept nogil:
    cdef int g = d.n_groups
    if cap <= 0:
        return -1
    if g >= MAX_GROUPS:
        return -2
    d.groups[g].seat = seat
    d.groups[g].time = time
    d.groups[g].cap = cap
    d.groups[g].ordered = ordered
    d.groups[g].need = need
    d.n_groups += 1
    return g


cdef int deals_from_state(Deals* d, const State* s, int seat, int opening) noexcept nogil:
    """Fill d with the public record of s as seat sees it, then build it (deals_build)."""
    cdef int i, k, n = 0, who
    cdef const Rules* r = s.r
    d.r = r
    d.seat = seat
    d.players = r.players
    d.leader = s.leader
    d.own = s.hand[seat]
    d.status = s.status
    d.to_move = s.to_move
    d.lead_tile = s.lead_tile if s.n_placed == 0 and s.leader == seat else -1
    for i in range(4):
        d.score0[i] = s.score0[i]
    for i in range(s.n_plies):
        if n + 2 + r.players > MAX_EVENTS:
            return DEALS_TOO_BIG
        k = kind_of(s.plies[i].move)
        d.events[n].seat = s.plies[i].seat
        d.events[n].count = 0
        d.events[n].chain = 0
        d.events[n].move = 0
        if k == KIND_DRAW:
            d.events[n].kind = EV_DRAW
            d.events[n].count = 1
        elif k == KIND_PASS:
            d.events[n].kind = EV_PASS
        elif k == KIND_MUGGINS:
            d.events[n].kind = EV_MUGGINS
            d.events[n].move = s.plies[i].move
        else:
            d.events[n].kind = EV_PLAY
            d.events[n].move = s.plies[i].move
        n += 1
        if s.plies[i].drawn:
            d.events[n].kind = EV_DRAW
            d.events[n].seat = s.plies[i].chain_seat
            d.events[n].count = s.plies[i].drawn
            d.events[n].chain = 1
            d.events[n].move = 0
            n += 1
        who = s.plies[i].chain_seat
        for _ in range(s.plies[i].passes):
            d.events[n].kind = EV_PASS
            d.events[n].seat = who
            d.events[n].count = 0
            d.events[n].chain = 1
            d.events[n].move = 0
            n += 1
            who = (who + 1) % r.players
    d.n_events = n
    return deals_build(d, opening)


cdef int tile_rank_list(const Rules* r, uint8_t* out) noexcept nogil:
    """The opening rule's tiles, best first: eligible doubles, then non-doubles by rank."""
    cdef int n = 0, i, j, t
    cdef int rank[28]
    for i in range(r.n_double_order):
        out[n] = DOUBLE_OF[r.double_order[i]]
        n += 1
    i = n
    for t in range(28):
        if DOUBLES_MASK >> t & 1:
            continue
        if r.rank_lexicographic:
            rank[t] = TILE_HI[t] * 8 + TILE_LO[t]
        else:
            rank[t] = tile_pips(t) * 8 + TILE_HI[t]
        # insertion by rank, best first
        j = n
        while j > i and rank[out[j - 1]] < rank[t]:
            out[j] = out[j - 1]
            j -= 1
        out[j] = t
        n += 1
    return n


cdef int deals_build(Deals* d, int opening) noexcept nogil:
    """Groups and per-tile allowed groups from d's record; count every opening case."""
    cdef const Rules* r = d.r
    cdef State pub
    cdef uint32_t no_hands[4]
    cdef int32_t no_scores[4]
    cdef int v_seat[MAX_EVENTS + 4]
    cdef int v_time[MAX_EVENTS + 4]
    cdef uint32_t v_mask[MAX_EVENTS + 4]
    cdef int n_voids = 0
    cdef int play_time[28]
    cdef int8_t player[28]
    cdef int drawn[4]
    cdef int placed[4]
    cdef int e, k, g, t, seat, stock_left, a, held, who, total
    cdef int lead_seat = -1, lead_play = -1
    cdef uint32_t m, code, table = 0
    cdef uint64_t g0_mask = 0, allowed
    cdef bint vp = r.voluntary_pass, dwp = r.draw_with_playable, last_playable
    cdef SEvent* ev
    cdef uint8_t ranked[28]
    cdef uint64_t base[28]
    cdef int n_ranked, c, i
    cdef Case* cs
    d.exact = 1
    d.n_groups = 0
    d.exist_groups = 0
    d.exist_tiles = 0
    d.cases = NULL
    d.n_cases = 0
    d.total = u128_of(0)
    d.tries = 0
    d.accepted = 0
    d.opening = 0
    if r.muggins or r.python_scorer:
        d.exact = 0
    for t in range(28):
        play_time[t] = -1
        player[t] = -1
    for seat in range(4):
        no_hands[seat] = 0
        no_scores[seat] = 0
        drawn[seat] = 0
        placed[seat] = 0
    for seat in range(r.players):
        g = new_group(d, seat, T_DEAL, r.hand_size, 0, 0)
        if g == -2:
            return DEALS_TOO_BIG
        g0_mask |= 1ull << g
    state_init(&pub, r, no_hands, NULL, 0, 0, -1, no_scores)
    for e in range(d.n_events):
        ev = &d.events[e]
        seat = ev.seat
        if seat >= r.players:
            return DEALS_BAD_RECORD
        if ev.kind == EV_PLAY:
            code = ev.move
            if not lay(&pub, code):
                return DEALS_BAD_RECORD
            t = code & 31
            play_time[t] = ev_time(e)
            player[t] = seat
            placed[seat] += 1
            table |= 1u << t
            if lead_play < 0:
                lead_play = t
                lead_seat = seat
            if kind_of(code) == KIND_DOUBLE_DOUBLE:
                t = (code >> 10) & 31
                play_time[t] = ev_time(e)
                player[t] = seat
                placed[seat] += 1
                table |= 1u << t
        elif ev.kind == EV_PASS:
            v_seat[n_voids] = seat
            v_time[n_voids] = ev_time(e)
            v_mask[n_voids] = open_mask(&pub)
            n_voids += 1
        elif ev.kind == EV_DRAW:
            if ev.count == 0:
                return DEALS_BAD_RECORD
            drawn[seat] += ev.count
            m = open_mask(&pub)
            if vp:
                # every draw is a move; without draw_with_playable it is offered only to a
                # seat that cannot place
                if not dwp:
                    v_seat[n_voids] = seat
                    v_time[n_voids] = ev_time(e)
                    v_mask[n_voids] = m
                    n_voids += 1
                if new_group(d, seat, ev_time(e) + 1, ev.count, 1, 0) == -2:
                    return DEALS_TOO_BIG
            elif dwp and ev.count == 1 and ev.chain != 1:
                # maybe a draw by choice: no constraint here, checked by replay
                d.exact = 0
                if new_group(d, seat, ev_time(e) + 1, 1, 1, 0) == -2:
                    return DEALS_TOO_BIG
            else:
                # a forced chain: the tiles drawn before the last did not match; the last
                # did, unless the boneyard ran out (a pass or the end follows)
                last_playable = True
                if e + 1 < d.n_events:
                    if d.events[e + 1].kind == EV_PASS and d.events[e + 1].seat == seat:
                        last_playable = False
                elif d.status != PLAYING:
                    last_playable = False
                v_seat[n_voids] = seat
                v_time[n_voids] = ev_time(e)
                v_mask[n_voids] = m
                n_voids += 1
                if last_playable:
                    if new_group(d, seat, ev_time(e) - 1, ev.count - 1, 1, 0) == -2:
                        return DEALS_TOO_BIG
                    if new_group(d, seat, ev_time(e) + 1, 1, 1, m) == -2:
                        return DEALS_TOO_BIG
                elif new_group(d, seat, ev_time(e) - 1, ev.count, 1, 0) == -2:
                    return DEALS_TOO_BIG
        elif ev.kind != EV_MUGGINS:
            return DEALS_BAD_RECORD
    # hand sizes and the boneyard must be those of a full deal
    total = 0
    for seat in range(r.players):
        if r.hand_size + drawn[seat] < placed[seat]:
            return DEALS_NOT_FULL
        total += r.hand_size + drawn[seat]
    if seat_hand_size(d, d.seat, drawn, placed) != popcount(d.own):
        return DEALS_NOT_FULL
    if d.own & table:
        return DEALS_BAD_RECORD
    d.played = table
    if total > 28:
        return DEALS_NOT_FULL
    stock_left = 28 - total
    if r.draws:
        if new_group(d, GROUP_STOCK, T_END, stock_left, 1, 0) == -2:
            return DEALS_TOO_BIG
    elif stock_left:
        if new_group(d, GROUP_OUT, T_END, stock_left, 0, 0) == -2:
            return DEALS_TOO_BIG
    # a blocked end: nobody held a tile of the open numbers
    if d.status == OVER_BLOCKED:
        for seat in range(r.players):
            v_seat[n_voids] = seat
            v_time[n_voids] = T_END - 1
            v_mask[n_voids] = open_mask(&pub)
            n_voids += 1
    elif d.status != PLAYING:
        d.exact = 0  # out or target: replay checks the end
    # the seat to move has a real choice: a playable tile, unless a draw/pass is offered
    # (muggins: a pending claim is a choice too; the replay checks that case)
    if d.status == PLAYING and d.to_move != d.seat and pub.n_placed > 0 and not r.muggins \
            and not (vp and r.draws and stock_left > r.reserve):
        d.exist_tiles = open_mask(&pub)
        for g in range(d.n_groups):
            if d.groups[g].seat == d.to_move:
                d.exist_groups |= 1ull << g
    d.leader = lead_seat if lead_seat >= 0 else d.to_move
    # per tile: where it may have come from
    cs = <Case*>calloc(MAX_CASES, sizeof(Case))
    if cs is NULL:
        return DEALS_TOO_BIG
    d.cases = cs
    for t in range(28):
        allowed = 0
        if d.own >> t & 1:
            held = T_END
            who = d.seat
        elif player[t] >= 0:
            held = play_time[t]
            who = player[t]
        else:
            held = T_END
            who = -1  # unseen
        for g in range(d.n_groups):
            seat = d.groups[g].seat
            a = d.groups[g].time
            if who >= 0 and seat != who:
                continue
            if who < 0 and seat == d.seat:
                continue
            if seat >= 4:  # the boneyard or out of play: unseen tiles only
                if who < 0:
                    allowed |= 1ull << g
                continue
            if a >= held:
                continue
            if d.groups[g].need and not d.groups[g].need >> t & 1:
                continue
            if not void_ok_seat(t, a, held, seat, n_voids, v_seat, v_time, v_mask):
                continue
            allowed |= 1ull << g
        cs[0].allowed[t] = allowed
    cs[0].opener = -1
    d.n_cases = 1
    # the opening rule
    if opening and r.opening == OPEN_DOUBLES:
        d.opening = 1
        n_ranked = tile_rank_list(r, ranked)
        d.n_cases = 0
        memcpy(base, cs[0].allowed, sizeof(base))
        for i in range(n_ranked):
            t = ranked[i]
            if lead_play >= 0 and r.opening_forced and t != lead_play:
                continue
            c = d.n_cases
            memcpy(cs[c].allowed, base, sizeof(base))
            cs[c].opener = t
            d.n_cases += 1
            cs[c].allowed[t] &= 1ull << d.leader  # G0 of seat s is group s
            for k in range(i):
                cs[c].allowed[ranked[k]] &= ~g0_mask
    d.total = u128_of(0)
    for c in range(d.n_cases):
        case_count(d, &cs[c])
        d.total = u128_add(d.total, cs[c].count)
    if r.opening == OPEN_DOUBLES and opening and d.n_cases == 0:
        return DEALS_NONE
    if u128_is_zero(d.total):
        return DEALS_NONE
    if u128_is_max(d.total):
        return DEALS_OVERFLOW
    if r.redeal_bad_hand:
        d.exact = 0
    return DEALS_OK


cdef inline int seat_hand_size(const Deals* d, int seat, const int* drawn,
                               const int* placed) noexcept nogil:
    return d.r.hand_size + drawn[seat] - placed[seat]


cdef inline bint void_ok_seat(int t, int a, int held, int seat, int n, const int* v_seat,
                              const int* v_time, const uint32_t* v_mask) noexcept nogil:
    cdef int j
    for j in range(n):
        if v_seat[j] == seat and a < v_time[j] < held and v_mask[j] >> t & 1:
            return False
    return True


cdef void deals_free(Deals* d) noexcept nogil:
    cdef int c
    if d.cases is not NULL:
        for c in range(MAX_CASES):
            free(d.cases[c].memo.keys)
            free(d.cases[c].memo.vals)
        free(d.cases)
        d.cases = NULL


# ---------------------------------------------------------------------------------------
# Counting: a memoised DP over the tiles; the state is the capacity left in every group


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    x ^= x >> 31
    x *= 0x7FB5D329728EA185ULL
    x ^= x >> 27
    x *= 0x81DADEF4BC2DD44DULL
    return x ^ (x >> 33)


cdef inline void make_key(uint64_t* key, int n_groups, const uint8_t* caps, int i,
                          int flag) noexcept nogil:
    cdef int g
    key[0] = key[1] = key[2] = key[3] = 0
    for g in range(n_groups):
        key[g // 12] |= <uint64_t>caps[g] << (5 * (g % 12))
    key[0] |= <uint64_t>(i & 15) << 60
    key[1] |= <uint64_t>((i >> 4) & 1) << 60
    key[1] |= <uint64_t>flag << 61
    key[3] |= 1ull << 63


cdef bint memo_grow(Memo* m) noexcept nogil:
    cdef size_t old = 0 if m.keys is NULL else m.mask + 1, size = 1024 if old == 0 else 2 * old
    cdef uint64_t* keys = <uint64_t*>calloc(4 * size, sizeof(uint64_t))
    cdef U128* vals = <U128*>malloc(size * sizeof(U128))
    cdef size_t i, h
    if keys is NULL or vals is NULL:
        free(keys)
        free(vals)
        return False
    for i in range(old):
        if m.keys[4 * i + 3] >> 63:
            h = mix64(m.keys[4 * i] ^ mix64(m.keys[4 * i + 1] ^ mix64(
                m.keys[4 * i + 2] ^ mix64(m.keys[4 * i + 3])))) & (size - 1)
            while keys[4 * h + 3] >> 63:
                h = (h + 1) & (size - 1)
            memcpy(&keys[4 * h], &m.keys[4 * i], 4 * sizeof(uint64_t))
            vals[h] = m.vals[i]
    free(m.keys)
    free(m.vals)
    m.keys = keys
    m.vals = vals
    m.mask = size - 1
    return True


cdef inline size_t memo_slot(const Memo* m, const uint64_t* key) noexcept nogil:
    cdef size_t h = mix64(key[0] ^ mix64(key[1] ^ mix64(key[2] ^ mix64(key[3])))) & m.mask
    while m.keys[4 * h + 3] >> 63:
        if (m.keys[4 * h] == key[0] and m.keys[4 * h + 1] == key[1]
                and m.keys[4 * h + 2] == key[2] and m.keys[4 * h + 3] == key[3]):
            return h
        h = (h + 1) & m.mask
    return h


cdef U128 count_from(const Deals* d, Case* cs, int i, uint8_t* caps,
                     int flag) noexcept nogil:
    """Assignments of cs.order[i:] that fill caps exactly (and set flag if needed)."""
    cdef int g, t, n = d.n_groups, nf
    cdef uint64_t key[4]
    cdef uint64_t m
    cdef size_t h
    cdef U128 total = u128_of(0)
    if i == 28:
        return u128_of(1 if flag or d.exist_groups == 0 else 0)
    for g in range(n):
        if caps[g] > cs.suffix[i][g]:
            return u128_of(0)
    make_key(key, n, caps, i, flag)
    h = memo_slot(&cs.memo, key)
    if cs.memo.keys[4 * h + 3] >> 63:
        return cs.memo.vals[h]
    t = cs.order[i]
    m = cs.allowed[t]
    while m:
        g = ctz64(m)
        m &= m - 1
        if caps[g] == 0:
            continue
        caps[g] -= 1
        nf = flag
        if (d.exist_groups >> g & 1) and (d.exist_tiles >> t & 1) and not flag:
            nf = 1 if unseen(d, t) else flag
        total = u128_add(total, count_from(d, cs, i + 1, caps, nf))
        caps[g] += 1
    if (cs.memo.used + 1) * 2 > cs.memo.mask + 1:
        if not memo_grow(&cs.memo):
            return total
        h = memo_slot(&cs.memo, key)
    memcpy(&cs.memo.keys[4 * h], key, 4 * sizeof(uint64_t))
    cs.memo.vals[h] = total
    cs.memo.used += 1
    return total


cdef inline bint unseen(const Deals* d, int t) noexcept nogil:
    """Tile t is held by another seat now only if it is not the seat's nor played: the
    exist flag counts the tiles the seat to move still holds."""
    return not (d.own >> t & 1) and not (d.played >> t & 1)


cdef void case_count(Deals* d, Case* cs) noexcept nogil:
    """Order the tiles (fewest choices first), fill the suffix table, count."""
    cdef int i, j, t, g, x
    cdef uint8_t caps[MAX_GROUPS]
    cs.memo.keys = NULL
    cs.memo.vals = NULL
    cs.memo.used = 0
    cs.memo.mask = 0
    for t in range(28):
        cs.order[t] = t
    for i in range(1, 28):  # insertion sort by (choices, mask)
        x = cs.order[i]
        j = i
        while j > 0 and order_before(cs, x, cs.order[j - 1]):
            cs.order[j] = cs.order[j - 1]
            j -= 1
        cs.order[j] = x
    for g in range(MAX_GROUPS):
        cs.suffix[28][g] = 0
    for i in range(27, -1, -1):
        for g in range(MAX_GROUPS):
            cs.suffix[i][g] = cs.suffix[i + 1][g] + (
                1 if cs.allowed[cs.order[i]] >> g & 1 else 0)
    cs.count = u128_of(0)
    for t in range(28):
        if cs.allowed[t] == 0:
            return
    if not memo_grow(&cs.memo):
        return
    for g in range(d.n_groups):
        caps[g] = d.groups[g].cap
    cs.count = count_from(d, cs, 0, caps, 0)


cdef inline bint order_before(const Case* cs, int a, int b) noexcept nogil:
    cdef int pa = popcount64(cs.allowed[a]), pb = popcount64(cs.allowed[b])
    if pa != pb:
        return pa < pb
    return cs.allowed[a] < cs.allowed[b]


# ---------------------------------------------------------------------------------------
# Sampling


cdef U128 below128(uint64_t* rng, U128 n) noexcept nogil:
    """A uniform number in [0, n), n > 0, exactly (rejection on the top bits)."""
    cdef U128 top = u128_sub(n, u128_of(1)), x
    cdef uint64_t mask_hi = smear(top.hi)
    cdef uint64_t mask_lo = 0xFFFFFFFFFFFFFFFFULL if top.hi else smear(top.lo)
    while True:
        x.hi = rng_next(rng) & mask_hi
        x.lo = rng_next(rng) & mask_lo
        if u128_lt(x, n):
            return x


cdef inline uint64_t smear(uint64_t m) noexcept nogil:
    """m with every bit below its highest set bit set."""
    m |= m >> 1
    m |= m >> 2
    m |= m >> 4
    m |= m >> 8
    m |= m >> 16
    return m | (m >> 32)


cdef bint draw_assignment(Deals* d, uint8_t* where, uint64_t* rng) noexcept nogil:
    """where[t] = the group of tile t, uniformly over the consistent assignments: the case
    by its count, then each tile's group by the completions it leaves."""
    cdef int c, i, t, g, flag = 0, nf
    cdef uint8_t caps[MAX_GROUPS]
    cdef U128 x, w, cur
    cdef uint64_t m
    cdef Case* cs = NULL
    if u128_is_zero(d.total):
        return False
    x = below128(rng, d.total)
    for c in range(d.n_cases):
        if u128_lt(x, d.cases[c].count):
            cs = &d.cases[c]
            break
        x = u128_sub(x, d.cases[c].count)
    if cs is NULL:
        return False
    for g in range(d.n_groups):
        caps[g] = d.groups[g].cap
    cur = cs.count  # completions of the assignment so far
    for i in range(28):
        t = cs.order[i]
        m = cs.allowed[t]
        if m & (m - 1) == 0:  # one group: forced, the completions do not change
            g = ctz64(m)
            caps[g] -= 1
            if (d.exist_groups >> g & 1) and (d.exist_tiles >> t & 1) and unseen(d, t):
                flag = 1
            where[t] = g
            continue
        x = below128(rng, cur)
        g = -1
        while m:
            g = ctz64(m)
            m &= m - 1
            if caps[g] == 0:
                g = -1
                continue
            caps[g] -= 1
            nf = flag
            if (d.exist_groups >> g & 1) and (d.exist_tiles >> t & 1) and unseen(d, t):
                nf = 1
            w = count_from(d, cs, i + 1, caps, nf)
            if u128_lt(x, w):
                flag = nf
                cur = w
                break
            x = u128_sub(x, w)
            caps[g] += 1
            g = -1
        if g < 0:
            return False
        where[t] = g
    return True


cdef bint sample_state(Deals* d, State* out, uint64_t* rng) noexcept nogil:
    """Fill out with a uniformly drawn consistent deal, the record's moves replayed."""
    cdef uint8_t where[28]
    cdef uint8_t members[MAX_GROUPS][28]
    cdef int size[MAX_GROUPS]
    cdef uint8_t stock[28]
    cdef uint32_t hands[4]
    cdef int n_stock, g, t, i, j, x, best, leader, lead_tile
    cdef bint used[MAX_GROUPS]
    for _ in range(SAMPLE_TRIES):
        d.tries += 1
        if not draw_assignment(d, where, rng):
            return False
        for g in range(d.n_groups):
            size[g] = 0
            used[g] = False
        for t in range(28):
            g = where[t]
            members[g][size[g]] = t
            size[g] += 1
        for i in range(4):
            hands[i] = 0
        for g in range(d.n_groups):
            for i in range(size[g] - 1, 0, -1):  # a uniform order inside every group
                j = rng_below(rng, i + 1)
                x = members[g][i]
                members[g][i] = members[g][j]
                members[g][j] = x
            if d.groups[g].seat < 4 and d.groups[g].time == T_DEAL:
                for i in range(size[g]):
                    hands[d.groups[g].seat] |= 1u << members[g][i]
        # the boneyard: the drawn groups in the order they were drawn, then the rest
        n_stock = 0
        while True:
            best = -1
            for g in range(d.n_groups):
                if (not used[g] and d.groups[g].ordered
                        and (best < 0 or d.groups[g].time < d.groups[best].time)):
                    best = g
            if best < 0:
                break
            used[best] = True
            for i in range(size[best]):
                stock[n_stock] = members[best][i]
                n_stock += 1
        if d.r.redeal_bad_hand:
            x = 0
            for i in range(d.players):
                if bad_hand(hands[i]):
                    x = 1
            if x:
                continue
        leader = d.leader
        lead_tile = d.lead_tile
        if d.opening:
            opening_rule(d.r, hands, &leader, &lead_tile)
        state_init(out, d.r, hands, stock, n_stock if d.r.draws else 0, leader, lead_tile,
                   d.score0)
        out.by_rule = d.opening
        if replay_events(out, d):
            d.accepted += 1
            return True
        if d.exact:
            return False  # cannot happen: the model is exact here
    return False


cdef int sample_states(Deals* d, State* out, int n, uint64_t* rng) noexcept nogil:
    """Fill out[0:n] with independent samples; returns how many succeeded (n, unless the
    rejection limit was reached)."""
    cdef int i
    for i in range(n):
        if not sample_state(d, &out[i], rng):
            return i
    return n


cdef bint replay_events(State* s, const Deals* d) noexcept nogil:
    """Replay the record's events on s (freshly dealt): the moves are read from the
    events, the forced draws and passes after each must be the engine's; then the end
    state and the seat's hand must match."""
    cdef int j = 0, i, n = d.n_events, who
    cdef const SEvent* ev
    cdef uint32_t code
    cdef const Ply* p
    while j < n:
        ev = &d.events[j]
        if s.status != PLAYING or ev.seat != s.to_move:
            return False
        if ev.kind == EV_PLAY:
            code = ev.move
        elif ev.kind == EV_DRAW:
            if ev.count != 1:
                return False
            code = <uint32_t>KIND_DRAW << 20
        elif ev.kind == EV_PASS:
            code = <uint32_t>KIND_PASS << 20
        else:
            code = ev.move
        i = find_move(s, code)
        if i < 0:
            return False
        play(s, s.moves[i])
        j += 1
        p = &s.plies[s.n_plies - 1]
        if p.drawn:
            if (j >= n or d.events[j].kind != EV_DRAW or d.events[j].seat != p.chain_seat
                    or d.events[j].count != p.drawn):
                return False
            j += 1
        who = p.chain_seat
        for _ in range(p.passes):
            if j >= n or d.events[j].kind != EV_PASS or d.events[j].seat != who:
                return False
            j += 1
            who = (who + 1) % s.r.players
    if s.hand[d.seat] != d.own or s.status != d.status:
        return False
    if s.status == PLAYING and s.to_move != d.to_move:
        return False
    return True


# ---------------------------------------------------------------------------------------
# Python API

_ERRORS = {
    DEALS_TOO_BIG: "the record is too long for the sampler's fixed arrays",
    DEALS_NOT_FULL: "the hand sizes and the boneyard are not those of a full deal",
    DEALS_BAD_RECORD: "the events do not replay on the layout",
    DEALS_NONE: "no hidden deal is consistent with the record",
    DEALS_OVERFLOW: "the count of consistent deals does not fit 128 bits",
}
_KINDS = {"play": EV_PLAY, "draw": EV_DRAW, "pass": EV_PASS, "muggins": EV_MUGGINS}


cdef uint64_t _rng_arg(object rng) except? 0:
    if isinstance(rng, bool) or not isinstance(rng, int):
        if hasattr(rng, "getrandbits"):
            return rng_seed(rng.getrandbits(64))
        raise TypeError(f"rng must be an int seed or a random.Random, not {type(rng).__name__}")
    return rng_seed(rng & 0xFFFFFFFFFFFFFFFF)


cdef object _pyint(U128 x):
    return (<object>x.hi << 64) | <object>x.lo


cdef class DealSampler:
    """Uniform sampler of the hidden deals behind one seat's view of a round.

    ``DealSampler(observation)`` or ``DealSampler(round, seat)``; ``opening`` says whether
    the round's leader was chosen by the variant's first-round opening rule from the dealt
    hands (``None``: as the round or the observation says, ``Round.opening``; an
    observation of an older schema does not say, and then the rule is assumed when the
    variant opens by doubles and every score at the deal is 0, or
    ``next_leader="opening_rule"``, and dropped if that leaves no consistent deal)."""

    def __cinit__(self):
        self.d = <Deals*>calloc(1, sizeof(Deals))
        if self.d is NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.d is not NULL:
            deals_free(self.d)
            free(self.d)

    def __init__(self, source, seat=None, *, opening=None):
        from bones.core.observation import Observation

        cdef int rc, op
        deals_free(self.d)
        if isinstance(source, Round):
            rnd = <Round>source
            if seat is None:
                raise TypeError("DealSampler(round, seat): the seat is required")
            self.rules = rnd.rules
            self.seat = rnd._check_seat(seat)
            self.variant_name = rnd.variant
            self.options = dict(self.rules.overrides)
            op = self._opening_arg(opening, rnd.st.by_rule)
            rc = deals_from_state(self.d, rnd.st, self.seat, op)
            self._score_in_python()
        elif isinstance(source, Observation):
            if seat is not None and seat != source.seat:
                raise ValueError(f"the observation is seat {source.seat}'s, not {seat}'s")
            self.rules = compile_rules(source.variant, source.players, dict(source.options))
            self.seat = source.seat
            self.variant_name = source.variant
            self.options = dict(source.options)
            scores0 = self._load_observation(source)
            self._score_in_python()
            guess = opening is None and source.opening is None
            op = self._auto_opening(scores0) if guess else \
                self._opening_arg(opening, source.opening)
            rc = deals_build(self.d, op)
            if op and guess and (rc == DEALS_NONE or not self._explains(source.legal_moves)):
                deals_free(self.d)
                rc = deals_build(self.d, 0)
        else:
            raise TypeError(f"DealSampler takes an Observation or a Round, not "
                            f"{type(source).__name__}")
        if rc != DEALS_OK:
            raise ValueError(f"cannot sample: {_ERRORS.get(rc, rc)}")
        self.opening = self.d.opening

    cdef void _score_in_python(self) except *:
        """Point the record at rules that run the variant's Python move_scorer, if it has
        one: the replays and the searches on the samples then score as ``Round`` does."""
        if self.rules.c.python_scorer:
            if self.scorer is None:
                self.scorer = PythonScorer(self.rules)
            self.d.r = &self.scorer.c

    cdef void check_scorer(self) except *:
        """Raise what the move_scorer raised in the C loops since the last check."""
        if self.scorer is not None:
            self.scorer.check()

    def _explains(self, legal_moves):
        """Whether the seat's legal moves are all legal on a deal drawn by this sampler.

        With every score at 0 the sampler assumes that the first round's opening rule
        chose the leader, which the observation cannot say; a later round may also start
        at 0 (Kozel's 13 rule, a blocked round with no points), and its leader may then
        lead what the rule would forbid: such a move shows that the rule did not apply."""
        cdef State s
        cdef uint64_t rng = rng_seed(0)
        if not legal_moves or u128_is_zero(self.d.total):
            return True
        if not sample_state(self.d, &s, &rng):
            return True  # the rejection limit: nothing shows the model wrong
        return all(find_move(&s, move_code(m)) >= 0 for m in legal_moves)

    def _opening_arg(self, opening, known):
        """The opening case: the argument if given, else what the source says (either is
        ignored where the variant has no opening rule: deals_build checks)."""
        if opening is None:
            return 1 if known else 0
        if type(opening) is not bool:
            raise TypeError("opening must be True, False or None")
        return 1 if opening else 0

    def _auto_opening(self, scores0):
        """The guess for an observation that does not say (an older schema)."""
        if self.rules.c.opening != OPEN_DOUBLES:
            return 0
        every_round = self.rules.options.get("next_leader") == "opening_rule"
        return 1 if every_round or not any(scores0) else 0

    def _load_observation(self, obs):
        cdef Deals* d = self.d
        cdef CompiledRules rules = self.rules
        cdef int n = 0, players = rules.c.players, side
        cdef int drawn[4]
        cdef int placed[4]
        if not 0 <= obs.seat < players or len(obs.hand_sizes) != players \
                or len(obs.scores) != rules.c.n_sides:
            raise ValueError("observation: seat, hand sizes or scores out of range")
        if len(obs.events) > MAX_EVENTS:
            raise ValueError(f"cannot sample: {_ERRORS[DEALS_TOO_BIG]}")
        d.r = &rules.c
        d.seat = obs.seat
        d.players = players
        d.own = 0
        for tile in obs.hand:
            d.own |= 1u << tile.index
        for i in range(4):
            drawn[i] = 0
            placed[i] = 0
        points = [0] * rules.c.n_sides
        for event in obs.events:
            if event.kind not in _KINDS or not 0 <= event.seat < players:
                raise ValueError(f"observation: bad event {event!r}")
            d.events[n].kind = _KINDS[event.kind]
            d.events[n].seat = event.seat
            if (event.move is None) != (event.kind in ("draw", "pass")):
                raise ValueError(f"observation: bad event {event!r}")
            d.events[n].move = 0 if event.move is None else move_code(event.move)
            d.events[n].count = event.count if event.kind == "draw" else 0
            d.events[n].chain = 1 if event.kind == "draw" and event.count > 1 else 2
            if event.kind == "draw":
                if not 1 <= event.count <= 28:
                    raise ValueError(f"observation: bad event {event!r}")
                drawn[event.seat] += event.count
            elif event.kind == "play":
                placed[event.seat] += 2 if event.move.is_double_double else 1
            side = rules.c.side_of[event.seat]
            points[side] += event.points
            n += 1
        d.n_events = n
        for i in range(players):
            if obs.hand_sizes[i] != rules.c.hand_size + drawn[i] - placed[i]:
                raise ValueError(f"cannot sample: {_ERRORS[DEALS_NOT_FULL]}")
        if rules.c.draws and obs.stock_size != 28 - players * rules.c.hand_size - sum(
                drawn[i] for i in range(players)):
            raise ValueError(f"cannot sample: {_ERRORS[DEALS_NOT_FULL]}")
        scores0 = [obs.scores[i] - points[i] for i in range(rules.c.n_sides)]
        for i in range(rules.c.n_sides):
            d.score0[i] = scores0[i]
        d.to_move = 0 if obs.to_move is None else obs.to_move
        if obs.to_move is not None:
            d.status = PLAYING
        elif any(obs.hand_sizes[i] == 0 and not (rules.c.both_out and any(
                obs.hand_sizes[j] for j in range(players)
                if rules.c.side_of[j] == rules.c.side_of[i])) for i in range(players)):
            d.status = OVER_OUT  # partnership_out both_partners: a whole side is out
        elif rules.c.target > 0 and rules.c.target_immediate and any(
                x >= rules.c.target for x in obs.scores):
            d.status = OVER_TARGET
        else:
            d.status = OVER_BLOCKED
        d.lead_tile = -1
        if not obs.layout and obs.to_move == obs.seat and obs.legal_moves:
            tiles = {m.tile for m in obs.legal_moves}
            if tiles != set(obs.hand):
                d.lead_tile = next(iter(tiles)).index
        return scores0

    @property
    def count(self):
        """The number of full deals (hands at the deal, boneyard order) consistent with
        the record under the model (before any rejection step; exact when ``exact``)."""
        cdef int g
        f = 1  # the boneyard's orders: every one is consistent
        for g in range(self.d.n_groups):
            if self.d.groups[g].ordered:
                f *= math.factorial(self.d.groups[g].cap)
        return _pyint(self.d.total) * f

    @property
    def exact(self):
        """True when every sample of the model is consistent (no rejection step)."""
        return bool(self.d.exact)

    @property
    def acceptance(self):
        """Samples kept / samples drawn so far (1.0 when exact or before any sample)."""
        return 1.0 if self.d.tries == 0 else <double>self.d.accepted / self.d.tries

    @property
    def groups(self):
        """The hidden groups: (holder, time, capacity); holder 4 is the boneyard, 5 the
        tiles out of play."""
        return [(self.d.groups[g].seat, self.d.groups[g].time, self.d.groups[g].cap)
                for g in range(self.d.n_groups)]

    cdef void _check(self) except *:
        if self.d.r is NULL or u128_is_zero(self.d.total):
            raise ValueError("this DealSampler was not built (use DealSampler(source))")

    def sample(self, rng=0):
        """One consistent round, drawn uniformly: a full deal with the record's moves
        replayed.  ``rng``: an int seed or a ``random.Random``."""
        return self.samples(1, rng)[0]

    def samples(self, int n, rng=0):
        """``n`` independent samples (list of Rounds), drawn in batches by
        ``sample_states`` without the GIL."""
        self._check()
        cdef uint64_t state = _rng_arg(rng)
        cdef int batch = min(max(n, 1), 64), k, done, i
        cdef State* buf = <State*>malloc(batch * sizeof(State))
        out = []
        if buf is NULL:
            raise MemoryError()
        try:
            while len(out) < n:
                k = min(batch, n - len(out))
                with nogil:
                    done = sample_states(self.d, buf, k, &state)
                self.check_scorer()
                for i in range(done):
                    out.append(self._round_of(&buf[i]))
                if done < k:
                    raise RuntimeError("the sampler found no consistent deal "
                                       f"(acceptance {self.acceptance:.3g})")
        finally:
            free(buf)
        return out

    def run(self, int n, rng=0):
        """Draw ``n`` samples in C (no Round is built; for timing); returns how many."""
        self._check()
        cdef uint64_t state = _rng_arg(rng)
        cdef State* buf = <State*>malloc(sizeof(State))
        cdef int done = 0
        if buf is NULL:
            raise MemoryError()
        with nogil:
            for _ in range(n):
                if not sample_state(self.d, buf, &state):
                    break
                done += 1
        free(buf)
        self.check_scorer()
        return done

    cdef object _round_of(self, const State* s):
        cdef int i
        cdef object lead_tile = None
        hands = [[TILE_NAMES[t] for t in range(28) if s.hand0[i] >> t & 1]
                 for i in range(self.rules.c.players)]
        stock = [TILE_NAMES[s.stock[i]] for i in range(s.stock_len)]
        moves = [move_of(s.plies[i].move) for i in range(s.n_plies)]
        scores = [s.score0[i] for i in range(self.rules.c.n_sides)]
        if self.d.opening:
            leader = None
        else:
            leader = s.leader
            if s.lead_tile >= 0:
                lead_tile = TILE_NAMES[s.lead_tile]
        return Round.from_deal(self.variant_name, hands, stock=stock, leader=leader,
                               lead_tile=lead_tile, scores=scores, moves=moves,
                               **self.options)


TILE_NAMES = tuple(f"{TILE_HI[t]}-{TILE_LO[t]}" for t in range(28))


def sample_round(source, rng=0, *, seat=None, opening=None):
    """A round drawn uniformly among the full deals consistent with what ``seat`` sees
    (``source``: an Observation, or a Round and ``seat``), with the same moves played:
    ``sample_round(obs, seed).observation(obs.seat) == obs``."""
    return DealSampler(source, seat, opening=opening).sample(rng)


def count_deals(source, *, seat=None, opening=None):
    """How many full deals are consistent with what ``seat`` sees (see DealSampler)."""
    return DealSampler(source, seat, opening=opening).count
