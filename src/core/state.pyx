"""The round engine: move generation, make/unmake, the All Fives count, round results and
random playouts.  Everything here is C on a ``State`` struct, without the GIL."""

from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t

from bones.core.geometry cimport (
    NO_ROOM, Anchor, has_room, jump_ahead, lead_spot, pick_way, place_spot, within_reach,
)
from bones.core.rng cimport rng_below
from bones.core.rules cimport (
    COUNT_FIVES, FAMILY_BLOCK, FAMILY_DRAW, FAMILY_KOZEL, FAMILY_MULTIPLAYER, FAMILY_STRAIGHT,
    OPEN_DOUBLES, OPEN_RANDOM, SPINNER_ALL_DOUBLES, SPINNER_FIRST_DOUBLE, Rules,
)
from bones.core.tiles cimport (
    ALL_TILES, DOUBLE_OF, DOUBLES_MASK, PIP_MASK, TILE_HI, TILE_LO, ctz, mask_pips,
    bad_hand, popcount, tile_pips,
)


cdef inline int next_seat(const State* s, int seat) noexcept nogil:
    seat += 1
    return 0 if seat == s.r.players else seat


cdef inline bint can_draw(const State* s) noexcept nogil:
    return s.r.draws and s.stock_len - s.stock_top > s.r.reserve


cdef uint32_t open_mask(const State* s) noexcept nogil:
    """Tiles that match at least one live end."""
    cdef uint32_t m = 0
    cdef int e
    for e in range(s.n_ends):
        if s.ends[e].live:
            m |= PIP_MASK[s.ends[e].v]
    return m


cdef inline bint nobody_can_play(const State* s) noexcept nogil:
    cdef uint32_t m = open_mask(s)
    cdef int seat
    for seat in range(s.r.players):
        if s.hand[seat] & m:
            return False
    return True


cdef inline int round5(int n) noexcept nogil:
    """Nearest multiple of five (RULES.md 1.4): remainders 1, 2 down, 3, 4 up."""
    return 5 * ((n + 2) // 5)


cdef inline bint same_position(const State* s, int i, int j) noexcept nogil:
    """Whether placing on end j is the same move as placing on the earlier end i."""
    if s.ends[i].v != s.ends[j].v or not s.ends[i].live:
        return False
    if s.r.merge_equal_ends:
        return True
    # Scoring games: only the lone lead, seen from W and from E, is one position.
    return s.ends[i].tile >= 0 and s.ends[i].tile == s.ends[j].tile


cdef inline int gen_placements(State* s, uint32_t h) noexcept nogil:
    """Placements on every live end, skipping ends that are the same position as an
    earlier one."""
    cdef int n = 0, e, j
    cdef uint32_t m
    cdef bint dup
    for e in range(s.n_ends):
        if not s.ends[e].live:
            continue
        dup = False
        for j in range(e):
            if same_position(s, j, e):
                dup = True
                break
        if dup:
            continue
        m = h & PIP_MASK[s.ends[e].v]
        while m:
            s.moves[n] = <uint32_t>ctz(m) | (<uint32_t>e << 5)
            n += 1
            m &= m - 1
    return n


cdef int peek_count(State* s, uint32_t move) noexcept nogil:
    """The count the layout would have after a single placement, leaving s unchanged."""
    cdef Ply scratch
    cdef int t = move & 31, e = (move >> 5) & 31, c, k
    cdef End saved
    cdef uint8_t n_ends = s.n_ends, n_spinners = s.n_spinners
    if e == END_LEAD:
        place_lead(s, t)
        c = tile_pips(t)
        s.n_ends = n_ends
        s.n_spinners = n_spinners
        return c
    saved = s.ends[e]
    scratch.opened = -1
    place(s, &scratch, 0, t, e)
    c = layout_count(s)
    s.ends[e] = saved
    if saved.side_of >= 0:
        s.sp_open[saved.side_of] += 1
    if scratch.opened >= 0:
        k = s.sp_arm[scratch.opened]
        s.ends[k].live = 0
        s.ends[k + 1].live = 0
    s.n_ends = n_ends
    s.n_spinners = n_spinners
    return c


cdef int add_claims(State* s, int n) noexcept nogil:
    """muggins_claim: next to each placement whose count scores, the same placement with
    the claim (only a claimed count scores)."""
    cdef int i, c, total = n
    for i in range(n):
        c = peek_count(s, s.moves[i])
        if count_points(s.r, c) > 0:
            s.moves[total] = s.moves[i] | CLAIM_BIT
            total += 1
    return total


cdef int gen_moves(State* s) noexcept nogil:
    """Fill s.moves with the legal moves of s.to_move; 0 means a forced draw or pass."""
    # Rules are read into locals once: every uint8_t store below may alias them for the C
    # compiler, which would otherwise reload them after each store.
    cdef const Rules* r = s.r
    cdef uint32_t h = s.hand[s.to_move], m
    cdef uint32_t* out = s.moves
    cdef int n = 0, a, b, t
    cdef bint muggins = r.muggins, line = r.fast_line and s.n_ends == 2
    if s.n_placed == 0:
        if s.lead_tile >= 0:
            if h >> s.lead_tile & 1:
                out[0] = <uint32_t>s.lead_tile | (END_LEAD << 5)
                n = 1
        else:
            m = h
            while m:
                out[n] = <uint32_t>ctz(m) | (END_LEAD << 5)
                n += 1
                m &= m - 1
        if muggins:
            n = add_claims(s, n)
        s.n_moves = n
        return n
    if line:
        # The line games' fast path: two live ends; equal numbers give one position.
        a = s.ends[0].v
        b = s.ends[1].v
        m = h & PIP_MASK[a]
        while m:
            out[n] = <uint32_t>ctz(m)
            n += 1
            m &= m - 1
        if b != a:
            m = h & PIP_MASK[b]
            while m:
                out[n] = <uint32_t>ctz(m) | (1u << 5)
                n += 1
                m &= m - 1
            if r.double_double:
                t = DOUBLE_OF[a]
                b = DOUBLE_OF[b]
                if h >> t & 1 and h >> b & 1:
                    out[n] = (<uint32_t>t | (<uint32_t>b << 10) | (1u << 15)
                              | (<uint32_t>KIND_DOUBLE_DOUBLE << 20))
                    n += 1
    else:
        n = gen_placements(s, h)
        if muggins:
            n = add_claims(s, n)
            if s.pending and r.side_of[s.to_move] != s.pending_side:
                out[n] = KIND_MUGGINS << 20
                n += 1
    if r.draws and s.stock_len - s.stock_top > r.reserve:
        if n > 0:
            if r.draw_with_playable:
                out[n] = KIND_DRAW << 20
                n += 1
        elif r.voluntary_pass:
            out[n] = KIND_DRAW << 20
            out[n + 1] = KIND_PASS << 20
            n += 2
    s.n_moves = n
    return n


cdef int find_move(const State* s, uint32_t move) noexcept nogil:
    """Index of move among the legal moves, also accepting a placement on an end that is the
    same position as the listed one (W for E on a lone lead); -1 when illegal."""
    cdef int i, e, j
    for i in range(s.n_moves):
        if s.moves[i] == move:
            return i
    if (move & ~(<uint32_t>CLAIM_BIT)) >> 10 != 0:
        return -1
    e = (move >> 5) & 31
    if e >= s.n_ends:
        return -1
    for j in range(e):
        if same_position(s, j, e):
            return find_move(s, (move & (31 | CLAIM_BIT)) | (<uint32_t>j << 5))
    return -1


cdef inline void new_spinner(State* s, int tile, int v, int open_sides) noexcept nogil:
    cdef int k = s.n_spinners, a = s.n_ends
    s.n_spinners += 1
    s.sp_open[k] = open_sides
    s.sp_arm[k] = a
    for e in range(a, a + 2):
        s.ends[e].v = v
        s.ends[e].tile = -1
        s.ends[e].pts = 0
        s.ends[e].live = not s.r.sides_first
        s.ends[e].side_of = -1
    s.n_ends += 2


cdef inline bint spins(const State* s, int lo, int hi) noexcept nogil:
    if lo != hi:
        return False
    return s.r.spinner == SPINNER_ALL_DOUBLES or (
        s.r.spinner == SPINNER_FIRST_DOUBLE and s.n_spinners == 0)


cdef void place_lead(State* s, int t) noexcept nogil:
    cdef int lo = TILE_LO[t], hi = TILE_HI[t]
    cdef bint spinner = spins(s, lo, hi)
    s.n_ends = 2
    s.ends[0].tile = t
    s.ends[1].tile = t
    s.ends[0].live = 1
    s.ends[1].live = 1
    s.ends[0].v = hi
    s.ends[1].v = lo
    if spinner:
        s.ends[0].pts = s.ends[1].pts = 2 * hi
        s.ends[0].side_of = s.ends[1].side_of = 0
        new_spinner(s, t, hi, 2)
    else:
        s.ends[0].pts = 2 * hi if lo == hi else hi
        s.ends[1].pts = 2 * lo if lo == hi else lo
        s.ends[0].side_of = s.ends[1].side_of = -1
    if s.geo:
        lead_spot(hi, lo, spinner, &s.spots[0], s.at)


cdef void place(State* s, Ply* p, int slot, int t, int e) noexcept nogil:
    """Put tile t on end e (s.n_placed is its index in s.spots)."""
    cdef End* end = &s.ends[e]
    cdef int v = end.v, lo = TILE_LO[t], hi = TILE_HI[t], k, a
    cdef int out = hi if lo == v else lo
    p.end_idx[slot] = e
    p.saved[slot] = end[0]
    if end.side_of >= 0:
        k = end.side_of
        s.sp_open[k] -= 1
        if s.sp_open[k] == 0 and s.r.sides_first:
            a = s.sp_arm[k]
            s.ends[a].live = 1
            s.ends[a + 1].live = 1
            p.opened = k
    end.tile = t
    end.live = 1
    if spins(s, lo, hi):
        end.v = v
        end.pts = 2 * v
        end.side_of = s.n_spinners
        new_spinner(s, t, v, 1)
    else:
        end.v = out
        end.pts = 2 * out if lo == hi else out
        end.side_of = -1


cdef void place_on_grid(State* s, Ply* p, int slot, int t, int e) noexcept nogil:
    """With s.geo, right after place(s, p, slot, t, e): where the tile lies, the end's new
    anchor, a spinner's arms; then, on a bounded table, the ends it leaves without room
    are closed."""
    cdef Anchor arms[2]
    cdef int v = p.saved[slot].v, out = TILE_LO[t] + TILE_HI[t] - v
    cdef bint spinner = s.ends[e].side_of >= 0  # place() sets it only for a new spinner
    cdef int way = pick_way(s.spots, s.n_placed, &s.r.table, s.at[e])
    p.saved_at[slot] = s.at[e]
    if way == NO_ROOM:  # only without a table: a closed end takes no tile
        jump_ahead(s.spots, s.n_placed, &s.r.table, &s.at[e])
        way = s.at[e].dir
    place_spot(&s.at[e], way, v, out, spinner, &s.spots[s.n_placed], arms)
    if spinner:
        s.at[s.n_ends - 2] = arms[0]
        s.at[s.n_ends - 1] = arms[1]
    if s.r.table.bounded:
        close_ends(s, p, s.n_placed + 1, e)


cdef void close_ends(State* s, Ply* p, int n_spots, int placed) noexcept nogil:
    """Bounded table (G1-G3): after a tile went to end ``placed``, close every live end
    where no next tile fits any more (only ends the new tile is near can have changed)."""
    cdef int e
    for e in range(s.n_ends):
        if s.ends[e].live and (e == placed or within_reach(&s.spots[n_spots - 1], s.at[e])) \
                and not has_room(s.spots, n_spots, &s.r.table, s.at[e]):
            s.ends[e].live = 0
            s.closed |= 1 << e
            p.closed |= 1 << e


cdef int layout_count(const State* s) noexcept nogil:
    """The All Fives count (RULES.md 2.6): each end's outward number, a double at an end
    both halves, an empty arm nothing; the lone lead double seen from W and E once."""
    cdef int c = 0, e
    for e in range(s.n_ends):
        c += s.ends[e].pts
    if s.n_ends >= 2 and s.ends[0].tile >= 0 and s.ends[0].tile == s.ends[1].tile \
            and TILE_LO[s.ends[0].tile] == TILE_HI[s.ends[0].tile]:
        c -= s.ends[1].pts
    return c


cdef int count_points(const Rules* r, int count) noexcept nogil:
    """What a layout count scores before score_scale: All Fives the count itself when it
    is a multiple of five; Fives and Threes count/5 for a multiple of five plus count/3
    for a multiple of three (15 scores 3 + 5 = 8)."""
    cdef int points = 0
    if count <= 0:
        return 0
    if count % 5 == 0:
        points = count // 5 if r.threes else count
    if r.threes and count % 3 == 0:
        points += count // 3
    return points


cdef bint side_empty(const State* s, int seat) noexcept nogil:
    """Whether every seat of seat's side has placed its last tile."""
    cdef int i, side = s.r.side_of[seat]
    for i in range(s.r.players):
        if s.r.side_of[i] == side and s.hand[i]:
            return False
    return True


cdef int chip_point(const State* s, int seat) noexcept nogil:
    """hand_award one_point: 1 when seat's last placement took its side out (seat's hand
    is empty and, with partnership_out both_partners, its partners' hands too), else 0."""
    if not s.r.out_point or s.hand[seat]:
        return 0
    return not s.r.both_out or side_empty(s, seat)


cdef void score_count(State* s, int seat, int count, uint32_t move) noexcept nogil:
    """apply_move's scoring when count_rule or hand_award is not All Fives': the count's
    points and the point for going out are one scoring event (exact_target voids both
    together, as when a player pegs them at once)."""
    cdef int points = count_points(s.r, count)
    if points and s.r.muggins and not move & CLAIM_BIT:
        s.pending = points  # scaled once, by add_points when claimed
        s.pending_side = s.r.side_of[seat]
        points = 0
    points += chip_point(s, seat)
    if points:
        add_points(s, seat, points)


cdef void add_points(State* s, int seat, int points) noexcept nogil:
    """Score points for seat's side on the last ply, applying score_scale, exact_target and
    the immediate target check."""
    cdef int side = s.r.side_of[seat]
    cdef Ply* p = &s.plies[s.n_plies - 1]
    if s.r.score_scale > 1:
        points //= s.r.score_scale
    if s.r.target > 0 and s.r.exact_target and s.score[side] + points > s.r.target:
        points = 0
    s.score[side] += points
    p.points += points
    if s.r.target > 0 and s.r.target_immediate and s.score[side] >= s.r.target:
        s.status = OVER_TARGET


cdef inline void draw_one(State* s, int seat) noexcept nogil:
    s.hand[seat] |= 1u << s.stock[s.stock_top]
    s.stock_top += 1


cdef void apply_move(State* s, uint32_t move) noexcept nogil:
    """Make a legal move (checked by the caller); finish_move then runs the forced events."""
    cdef Ply* p = &s.plies[s.n_plies]
    cdef int seat = s.to_move, kind = kind_of(move), t, e, c
    cdef uint32_t bits
    s.n_plies += 1
    p.move = move
    p.seat = seat
    p.n_ends = s.n_ends
    p.n_spinners = s.n_spinners
    p.end_idx[0] = -1
    p.end_idx[1] = -1
    p.opened = -1
    p.count = 0
    p.points = 0
    p.prev_passes = s.passes
    p.prev_last = s.last_seat
    p.prev_pending = s.pending
    p.prev_pending_side = s.pending_side
    p.drawn = 0
    p.passes = 0
    p.closed = 0
    s.pending = 0
    if kind == KIND_MUGGINS:
        add_points(s, seat, p.prev_pending)
        p.chain_seat = seat
        return
    if kind == KIND_DRAW:
        draw_one(s, seat)
        s.passes = 0
        p.chain_seat = seat
        return
    if kind == KIND_PASS:
        s.passes += 1
        if s.passes >= s.r.players:
            s.status = OVER_BLOCKED
        s.to_move = next_seat(s, seat)
        p.chain_seat = s.to_move
        return
    t = move & 31
    e = (move >> 5) & 31
    bits = 1u << t
    if e == END_LEAD:
        place_lead(s, t)
    else:
        place(s, p, 0, t, e)
        if s.geo:
            place_on_grid(s, p, 0, t, e)
    s.n_placed += 1
    if kind == KIND_DOUBLE_DOUBLE:
        t = (move >> 10) & 31
        e = (move >> 15) & 31
        place(s, p, 1, t, e)
        if s.geo:
            place_on_grid(s, p, 1, t, e)
        bits |= 1u << t
        s.n_placed += 1
    s.hand[seat] &= ~bits
    s.table |= bits
    s.passes = 0
    s.last_seat = seat
    c = layout_count(s)
    p.count = c
    if s.r.count_scoring == COUNT_FIVES:
        if c > 0 and c % 5 == 0:
            if not s.r.muggins or move & CLAIM_BIT:
                add_points(s, seat, c)
            else:
                s.pending = c  # scaled once, by add_points when claimed
                s.pending_side = s.r.side_of[seat]
    elif s.r.count_scoring:  # COUNT_GENERAL: Fives and Threes, the point for going out
        score_count(s, seat, c, move)
    elif s.r.scorer != NULL:  # a search's copy of rules whose variant scores in Python
        c = s.r.scorer(s, c)  # the point for going out too (scorer.pyx's _hook)
        if c:
            add_points(s, seat, c)
    s.to_move = next_seat(s, seat)
    p.chain_seat = s.to_move


cdef void finish_move(State* s) noexcept nogil:
    """After a move: end the round if it is over, else apply the forced draws and passes
    until a seat has a real choice."""
    cdef Ply* p = &s.plies[s.n_plies - 1]
    cdef int seat
    if s.status == PLAYING and kind_of(p.move) <= KIND_DOUBLE_DOUBLE:
        if s.hand[p.seat] == 0:
            if not s.r.both_out or side_empty(s, p.seat):
                s.status = OVER_OUT
        elif s.r.early_end:
            if s.r.structural_fish and (ALL_TILES & ~s.table & open_mask(s)) == 0:
                s.status = OVER_BLOCKED
            elif s.r.end_when_closed and open_mask(s) == 0:
                s.status = OVER_BLOCKED  # B2: every end is closed
    while s.status == PLAYING:
        if gen_moves(s) > 0:
            return
        seat = s.to_move
        if can_draw(s):
            draw_one(s, seat)
            p.drawn += 1
            continue
        if nobody_can_play(s):
            s.status = OVER_BLOCKED
            break
        p.passes += 1
        s.passes += 1
        s.to_move = next_seat(s, seat)
    s.n_moves = 0


cdef void play(State* s, uint32_t move) noexcept nogil:
    apply_move(s, move)
    finish_move(s)


cdef bint lay(State* s, uint32_t move) noexcept nogil:
    """Put a placement's tiles on the table with no hand and no undo record, for a layout
    rebuilt from public information; False when the tile does not fit the end."""
    cdef Ply scratch
    cdef int kind = kind_of(move), t = move & 31, e = (move >> 5) & 31, slot
    if kind > KIND_DOUBLE_DOUBLE or t >= 28 or s.table >> t & 1:
        return False
    scratch.opened = -1
    scratch.closed = 0
    if e == END_LEAD:
        if s.n_placed or kind != KIND_PLACE:
            return False
        place_lead(s, t)
        s.table |= 1u << t
        s.n_placed = 1
    else:
        for slot in range(2 if kind == KIND_DOUBLE_DOUBLE else 1):
            if slot:
                t = (move >> 10) & 31
                e = (move >> 15) & 31
            if (not s.n_placed or e >= s.n_ends or not s.ends[e].live or t >= 28
                    or s.table >> t & 1 or not PIP_MASK[s.ends[e].v] >> t & 1):
                return False
            place(s, &scratch, slot, t, e)
            if s.geo:
                place_on_grid(s, &scratch, slot, t, e)
            s.table |= 1u << t
            s.n_placed += 1
    return True


cdef void undo(State* s) noexcept nogil:
    """Unmake the last move and the forced events after it."""
    cdef Ply* p
    cdef int i, kind, t, side
    cdef uint32_t bits
    if s.n_plies == 0:
        return
    s.n_plies -= 1
    p = &s.plies[s.n_plies]
    for _ in range(p.drawn):
        s.stock_top -= 1
        s.hand[p.chain_seat] &= ~(1u << s.stock[s.stock_top])
    kind = kind_of(p.move)
    side = s.r.side_of[p.seat]
    s.score[side] -= p.points
    if kind == KIND_DRAW:
        s.stock_top -= 1
        s.hand[p.seat] &= ~(1u << s.stock[s.stock_top])
    elif kind <= KIND_DOUBLE_DOUBLE:
        bits = 1u << (p.move & 31)
        if kind == KIND_DOUBLE_DOUBLE:
            bits |= 1u << ((p.move >> 10) & 31)
        for i in range(1, -1, -1):
            if p.end_idx[i] >= 0:
                s.ends[p.end_idx[i]] = p.saved[i]
                if p.saved[i].side_of >= 0:
                    s.sp_open[p.saved[i].side_of] += 1
        if p.opened >= 0:
            t = s.sp_arm[p.opened]
            s.ends[t].live = 0
            s.ends[t + 1].live = 0
        if p.closed:
            s.closed &= ~p.closed
            for i in range(s.n_ends):
                if p.closed >> i & 1:
                    s.ends[i].live = 1
        if s.geo:
            for i in range(2):
                if p.end_idx[i] >= 0:
                    s.at[p.end_idx[i]] = p.saved_at[i]
        s.n_ends = p.n_ends
        s.n_spinners = p.n_spinners
        s.hand[p.seat] |= bits
        s.table &= ~bits
        s.n_placed -= popcount(bits)
    s.passes = p.prev_passes
    s.last_seat = p.prev_last
    s.pending = p.prev_pending
    s.pending_side = p.prev_pending_side
    s.to_move = p.seat
    s.status = PLAYING
    gen_moves(s)


cdef void opening(const Rules* r, const uint32_t* hands, int* leader,
                  int* lead_tile) noexcept nogil:
    """The first-round opener by the doubles rule: the first double of r.double_order that
    is held, else the best non-double (pip sum then high half, or lexicographic)."""
    cdef int i, seat, t, rank, best = -1, best_seat = 0, best_tile = -1
    cdef uint32_t m
    for i in range(r.n_double_order):
        t = DOUBLE_OF[r.double_order[i]]
        for seat in range(r.players):
            if hands[seat] >> t & 1:
                leader[0] = seat
                lead_tile[0] = t if r.opening_forced else -1
                return
    for seat in range(r.players):
        m = hands[seat] & ~DOUBLES_MASK
        while m:
            t = ctz(m)
            m &= m - 1
            if r.rank_lexicographic:
                rank = TILE_HI[t] * 8 + TILE_LO[t]
            else:
                rank = tile_pips(t) * 8 + TILE_HI[t]
            if rank > best:
                best = rank
                best_seat = seat
                best_tile = t
    leader[0] = best_seat
    lead_tile[0] = best_tile if r.opening_forced else -1


cdef void state_init(State* s, const Rules* r, const uint32_t* hands, const uint8_t* stock,
                     int stock_len, int leader, int lead_tile,
                     const int32_t* scores) noexcept nogil:
    cdef int i
    s.r = r
    for i in range(4):
        s.hand[i] = hands[i] if i < r.players else 0
        s.hand0[i] = s.hand[i]
        s.score[i] = scores[i] if i < r.n_sides else 0
        s.score0[i] = s.score[i]
    for i in range(stock_len):
        s.stock[i] = stock[i]
    s.stock_top = 0
    s.stock_len = stock_len
    s.table = 0
    s.n_ends = 0
    s.n_spinners = 0
    s.to_move = leader
    s.leader = leader
    s.lead_tile = lead_tile
    s.by_rule = 0  # the callers that apply the opening rule set it
    s.n_placed = 0
    s.passes = 0
    s.last_seat = -1
    s.pending = 0
    s.pending_side = -1
    s.status = PLAYING
    s.n_plies = 0
    s.geo = r.table.bounded
    s.closed = 0
    gen_moves(s)


cdef void deal_random(State* s, const Rules* r, uint64_t* rng, const int32_t* scores,
                      int leader) noexcept nogil:
    """Shuffle and deal from rng; leader < 0 applies the first-round opening rule."""
    cdef uint8_t deck[28]
    cdef uint32_t hands[4]
    cdef int i, j, seat, used = r.players * r.hand_size, lead_tile = -1
    cdef int needed = 28 if r.draws else used
    cdef uint8_t x
    cdef bint bad = True, by_rule = leader < 0 and r.opening == OPEN_DOUBLES
    while bad:
        for i in range(28):
            deck[i] = i
        for i in range(needed):
            j = i + <int>rng_below(rng, 28 - i)
            x = deck[i]
            deck[i] = deck[j]
            deck[j] = x
        bad = False
        for seat in range(4):
            hands[seat] = 0
        for seat in range(r.players):
            for i in range(seat * r.hand_size, (seat + 1) * r.hand_size):
                hands[seat] |= 1u << deck[i]
            if r.redeal_bad_hand and bad_hand(hands[seat]):
                bad = True
    if leader < 0:
        if r.opening == OPEN_DOUBLES:
            opening(r, hands, &leader, &lead_tile)
        elif r.opening == OPEN_RANDOM:
            leader = rng_below(rng, r.players)
        else:
            leader = 0
    state_init(s, r, hands, &deck[used], needed - used if r.draws else 0, leader, lead_tile,
               scores)
    s.by_rule = by_rule


cdef int hand_value(const State* s, int seat) noexcept nogil:
    """Pips in a hand; in Kozel a hand of exactly 0-0 is worth lone_zero."""
    if s.r.family == FAMILY_KOZEL and s.hand[seat] == 1u:
        return s.r.lone_zero
    return mask_pips(s.hand[seat])


cdef int lightest_tie_break(const State* s) noexcept nogil:
    """Multiplayer blocked tie: the seat whose ascending tile pips are lexicographically
    smaller, or -1 when the lists are identical."""
    cdef uint32_t a = s.hand[0], b = s.hand[1], m
    cdef int t, ta = 0, tb = 0, best_a, best_b
    while a and b:
        best_a = 99
        best_b = 99
        m = a
        while m:
            t = ctz(m)
            m &= m - 1
            if tile_pips(t) < best_a:
                best_a = tile_pips(t)
                ta = t
        m = b
        while m:
            t = ctz(m)
            m &= m - 1
            if tile_pips(t) < best_b:
                best_b = tile_pips(t)
                tb = t
        if best_a != best_b:
            return 0 if best_a < best_b else 1
        a &= ~(1u << ta)
        b &= ~(1u << tb)
    if a == b:
        return -1
    return 1 if a else 0


cdef void outcome(const State* s, Outcome* out) noexcept nogil:
    """The round-end award of a finished round (RULES.md 2.8, 3.6, 4.8, 4b)."""
    cdef const Rules* r = s.r
    cdef int pips[4]
    cdef int i, x, w, n = r.n_sides, least, n_least, total, other, scale = r.score_scale
    for x in range(4):
        pips[x] = 0
        out.points[x] = 0
        out.values[x] = 0
    for i in range(r.players):
        pips[r.side_of[i]] += mask_pips(s.hand[i])
        out.values[r.side_of[i]] += hand_value(s, i)
    out.reason = s.status
    out.winners = 0
    if s.status == PLAYING:
        return
    if s.status == OVER_TARGET:
        for x in range(n):
            if s.score[x] >= r.target:
                out.winners |= 1 << x
        return
    least = 1 << 30
    n_least = 0
    for x in range(n):
        if out.values[x] < least:
            least = out.values[x]
            n_least = 1
            w = x
        elif out.values[x] == least:
            n_least += 1
    total = 0
    for x in range(n):
        total += pips[x]
    if r.family == FAMILY_BLOCK:
        if n_least == 1:
            other = total - least
            out.winners = 1 << w
            for x in range(n):
                out.points[x] = other if x == w else -other
        return
    if r.family == FAMILY_KOZEL:
        if s.status == OVER_OUT or r.fish_blocker:
            w = r.side_of[s.last_seat]
            out.winners = 1 << w
        elif n_least < n:
            for x in range(n):
                if out.values[x] == least:
                    out.winners |= 1 << x
        for x in range(n):
            if out.winners and not (out.winners >> x & 1):
                out.points[x] = out.values[x]
        return
    if r.out_point:
        # hand_award one_point: the point for going out was scored with the last tile;
        # a blocked hand scores nothing and has no winner.
        if s.status == OVER_OUT:
            out.winners = 1 << r.side_of[s.last_seat]
        return
    if s.status == OVER_OUT:
        w = r.side_of[s.last_seat]
        out.winners = 1 << w
        other = total - pips[w]
        if r.family == FAMILY_MULTIPLAYER:
            if r.stock_to_winner:
                for i in range(s.stock_top, s.stock_len):
                    other += tile_pips(s.stock[i])
            out.points[w] = other
        elif r.family == FAMILY_DRAW:
            out.points[w] = other
        else:
            if r.partner_subtract:
                other = other - pips[w] if other > pips[w] else 0
            out.points[w] = round5(other) // scale
    elif n_least == 1:
        out.winners = 1 << w
        other = total - least
        if r.blocked_difference or r.family == FAMILY_MULTIPLAYER:
            other -= least * (n - 1)
        out.points[w] = round5(other) // scale if r.family == FAMILY_STRAIGHT else other
    elif r.family == FAMILY_MULTIPLAYER:
        if r.tie_lightest_tile:
            w = lightest_tie_break(s)
            if w >= 0:
                out.winners = 1 << w
    elif r.family == FAMILY_STRAIGHT and n_least < n:
        # k of three or four individual players tie for least: each scores the others'
        # rounded pips over k, rounded down to a multiple of five (RULES.md 2.8, engine
        # decision); two sides tied, or every side tied, score nothing (n_least == n).
        other = total - n_least * least
        if r.blocked_difference:
            other -= least * (n - n_least)
        for x in range(n):
            if pips[x] == least:
                out.winners |= 1 << x
                out.points[x] = 5 * (round5(other) // n_least // 5) // scale


cdef long playout(const Rules* r, uint64_t* rng, long rounds, long* blocked,
                  long* points) noexcept nogil:
    """Play rounds random rounds (every choice uniform over the legal moves); returns the
    number of tiles placed."""
    cdef State s
    cdef Outcome out
    cdef int32_t zero[4]
    cdef long moves = 0, _
    zero[0] = zero[1] = zero[2] = zero[3] = 0
    for _ in range(rounds):
        deal_random(&s, r, rng, zero, -1)
        while s.status == PLAYING:
            play(&s, s.moves[rng_below(rng, s.n_moves)])
        moves += s.n_placed
        if s.status == OVER_BLOCKED:
            blocked[0] += 1
        outcome(&s, &out)
        points[0] += out.points[0]
    return moves
