"""The train planner: the best chain a hand can lay on one open end (docs/bots.md, "The
train planner").

A chain is the order in which a seat would lay tiles on its own train, one after the
other, each showing the number the last one left free.  The rules of Mexican Train make
every such order playable on the seat's own turns: a double shows its number again and
the next tile of the chain satisfies it (a double at the end of a chain is laid last and
ends the plan unsatisfied).  The best chain is the longest, then the heaviest (pips, 0-0
counting ``zero_double``); the first found of equals.

The search: the hand's non-doubles are the edges of a graph on the numbers, a chain is a
trail from the open number, and a double is laid on the first arrival at its number (it
only lengthens a chain, and the next tile satisfies it).  Depth first, heaviest edge
first, with a bound: from a number v, the trail can add at most the edges of v's
component, less one per pair of the component's odd-degree numbers other than v and the
trail's end (a trail passes through every other number an even number of times), plus
the doubles of the component's numbers not yet reached.  A branch that cannot beat the
best found is cut.  The search stops after ``budget`` nodes; the best chain found is then
returned with ``exact`` false.
"""

from libc.stdint cimport int64_t, uint16_t
from libc.string cimport memcpy

from bones.core.wideset cimport (
    WIDE_DOUBLE, WIDE_DOUBLES, WIDE_HI, WIDE_LO, WIDE_NUM, W128, to_wide_index,
    w_and, w_andnot, w_any, w_clear, w_count, w_first, w_has, w_rest, w_set, w_zero,
    wide_tile,
)

BUDGET = PLAN_BUDGET


ctypedef struct Search:
    W128 doubles                 # the hand's doubles
    int zero_double              # what 0-0 counts
    int64_t budget               # most nodes
    int64_t nodes                # nodes visited
    bint cut                     # the budget ran out
    int best_len                 # the best chain found: its length,
    int best_pips                # its pips
    unsigned char cur[PLAN_MAX_TILES]   # the chain being built
    unsigned char best[PLAN_MAX_TILES]  # the best chain found


cdef inline int pips_of(int t, int zero_double) noexcept nogil:
    return zero_double if t == 0 else WIDE_LO[t] + WIDE_HI[t]


cdef inline int other_half(int t, int v) noexcept nogil:
    return WIDE_LO[t] + WIDE_HI[t] - v


cdef void bound(const Search* s, int v, W128 rem, uint16_t seen, int* max_len,
                int* max_pips) noexcept nogil:
    """The most tiles and pips a trail from v over rem (and the doubles it reaches) adds."""
    cdef uint16_t comp = <uint16_t>(1 << v), todo = comp
    cdef int u, w, t, edges = 0, pips = 0, odd = 0, deg
    cdef W128 m, taken = w_zero()
    while todo:
        u = 0
        while not (todo >> u & 1):
            u += 1
        todo &= <uint16_t>~(1 << u)
        m = w_and(rem, WIDE_NUM[u])
        deg = w_count(m)
        if u != v and deg & 1:
            odd += 1
        if not (seen >> u & 1) and w_has(s.doubles, WIDE_DOUBLE[u]):
            edges += 1
            pips += pips_of(WIDE_DOUBLE[u], s.zero_double)
        while w_any(m):
            t = w_first(m)
            m = w_rest(m)
            if not w_has(taken, t):
                w_set(&taken, t)
                edges += 1
                pips += WIDE_LO[t] + WIDE_HI[t]
                w = other_half(t, u)
                if not (comp >> w & 1):
                    comp |= <uint16_t>(1 << w)
                    todo |= <uint16_t>(1 << w)
    max_len[0] = edges - odd // 2
    max_pips[0] = pips


cdef void dfs(Search* s, int v, W128 rem, uint16_t seen, int n, int pips) noexcept nogil:
    cdef int tiles[13]
    cdef int k = 0, i, j, t, u, n2, pips2, add_len, add_pips
    cdef uint16_t seen2
    cdef W128 m
    s.nodes += 1
    if n > s.best_len or (n == s.best_len and pips > s.best_pips):
        s.best_len = n
        s.best_pips = pips
        memcpy(s.best, s.cur, <size_t>n)
    if s.nodes >= s.budget:
        s.cut = True
        return
    bound(s, v, rem, seen, &add_len, &add_pips)
    if n + add_len < s.best_len or (n + add_len == s.best_len
                                    and pips + add_pips <= s.best_pips):
        return
    m = w_and(rem, WIDE_NUM[v])
    while w_any(m):  # heaviest first (insertion sort: at most 12 tiles)
        t = w_first(m)
        m = w_rest(m)
        j = k
        while j > 0 and WIDE_LO[tiles[j - 1]] + WIDE_HI[tiles[j - 1]] < WIDE_LO[t] + WIDE_HI[t]:
            tiles[j] = tiles[j - 1]
            j -= 1
        tiles[j] = t
        k += 1
    for i in range(k):
        t = tiles[i]
        u = other_half(t, v)
        s.cur[n] = <unsigned char>t
        n2 = n + 1
        pips2 = pips + WIDE_LO[t] + WIDE_HI[t]
        seen2 = seen
        if not (seen >> u & 1):
            seen2 |= <uint16_t>(1 << u)
            if w_has(s.doubles, WIDE_DOUBLE[u]):
                s.cur[n2] = WIDE_DOUBLE[u]
                n2 += 1
                pips2 += pips_of(WIDE_DOUBLE[u], s.zero_double)
        w_clear(&rem, t)
        dfs(s, u, rem, seen2, n2, pips2)
        w_set(&rem, t)
        if s.cut:
            return


cdef void plan_chain(W128 hand, int open_num, int zero_double, int64_t budget,
                     ChainPlan* out) noexcept nogil:
    """The best chain of hand on an end showing open_num (0..12), in out (the module
    docstring); budget >= 1 nodes."""
    cdef Search s
    cdef int n = 0, pips = 0, d = WIDE_DOUBLE[open_num]
    s.doubles = w_and(hand, WIDE_DOUBLES)
    s.zero_double = zero_double
    s.budget = budget if budget > 0 else 1
    s.nodes = 0
    s.cut = False
    s.best_len = 0
    s.best_pips = 0
    if w_has(s.doubles, d):  # the open number's double goes first
        s.cur[0] = <unsigned char>d
        n = 1
        pips = pips_of(d, zero_double)
    dfs(&s, open_num, w_andnot(hand, WIDE_DOUBLES), <uint16_t>(1 << open_num), n, pips)
    out.length = s.best_len
    out.pips = s.best_pips
    out.nodes = s.nodes
    out.exact = not s.cut
    memcpy(out.tiles, s.best, <size_t>s.best_len)


def best_chain(hand, int open_number, int zero_double=0, long budget=PLAN_BUDGET):
    """The best chain ``hand`` (tiles of a set up to double-12: ``SetTile`` or text such as
    ``"12-5"``) can lay on an end showing ``open_number``: the longest, then the heaviest
    (0-0 counting ``zero_double``), searched within ``budget`` nodes.

    Returns ``(tiles, pips, exact, nodes)``: the chain's ``SetTile``s in the order they are
    laid, their pips, whether the search finished (``False``: the best found within the
    budget) and the nodes it visited."""
    cdef ChainPlan plan
    cdef W128 mask = w_zero()
    cdef int t
    if not 0 <= open_number <= 12:
        raise ValueError(f"open_number must be 0 to 12, not {open_number}")
    if not 0 <= zero_double <= 1000:
        raise ValueError(f"zero_double must be 0 to 1000, not {zero_double}")
    if budget < 1:
        raise ValueError(f"budget must be >= 1, not {budget}")
    for tile in hand:
        t = to_wide_index(tile)
        if w_has(mask, t):
            raise ValueError(f"tile {wide_tile(t)} is in the hand twice")
        w_set(&mask, t)
    with nogil:
        plan_chain(mask, open_number, zero_double, budget, &plan)
    return (tuple(wide_tile(plan.tiles[t]) for t in range(plan.length)), plan.pips,
            bool(plan.exact), plan.nodes)
