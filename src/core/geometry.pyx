"""The table grid: where the lead lies, where the next tile at an end goes (straight on, or
turned 90 degrees when the table edge or other tiles are in the way), and whether it fits
at all (RULES.md 3.4 G1, G2; docs/geometry.md).

An end's next slot is decided for any tile: a heading fits only when both a double
(crosswise) and another tile (along the line) would fit there, so an end is open or closed
whatever tile comes next."""


cdef inline int dx(int d) noexcept nogil:
    return 1 if d == DIR_E else (-1 if d == DIR_W else 0)


cdef inline int dy(int d) noexcept nogil:
    return 1 if d == DIR_S else (-1 if d == DIR_N else 0)


cdef inline void frame(Anchor at, int u, int w, int al0, int al1, int ac0, int ac1,
                       int* box) noexcept nogil:
    """The box (x0, y0, x1, y1) of the points at + al * u + ac * w, al in [al0, al1] and
    ac in [ac0, ac1] (u along the line, w across it)."""
    cdef int xa = at.x + al0 * dx(u) + ac0 * dx(w), xb = at.x + al1 * dx(u) + ac1 * dx(w)
    cdef int ya = at.y + al0 * dy(u) + ac0 * dy(w), yb = at.y + al1 * dy(u) + ac1 * dy(w)
    box[0] = xa if xa < xb else xb
    box[1] = ya if ya < yb else yb
    box[2] = xb if xa < xb else xa
    box[3] = yb if ya < yb else ya


cdef inline void fill_box(Spot* s) noexcept nogil:
    """Set the box a tile covers from its centre and direction (4 units along, 2 across)."""
    cdef int hx = 2 if s.dir == DIR_E or s.dir == DIR_W else 1
    s.x0 = s.x - hx
    s.y0 = s.y - 3 + hx
    s.x1 = s.x + hx
    s.y1 = s.y + 3 - hx


cdef void spot_box(const Spot* s, int* box) noexcept nogil:
    """The box a placed tile covers."""
    box[0] = s.x0
    box[1] = s.y0
    box[2] = s.x1
    box[3] = s.y1


cdef bint within_reach(const Spot* spot, Anchor at) noexcept nogil:
    """Whether a tile lies where the next tile at ``at`` could go: every way way_fits
    tries stays within 5 units of the anchor, so a tile beyond cannot close that end."""
    cdef int box[4]
    spot_box(spot, box)
    return box[0] < at.x + 5 and at.x - 5 < box[2] and box[1] < at.y + 5 and at.y - 5 < box[3]


cdef bint room_for(const int* box, const Spot* spots, int n, const Table* table) noexcept nogil:
    """Whether box lies on the table and overlaps no placed tile (touching is fine)."""
    cdef int i
    if table.bounded and (box[0] < table.x0 or box[1] < table.y0
                          or box[2] > table.x1 or box[3] > table.y1):
        return False
    for i in range(n):
        if box[0] < spots[i].x1 and spots[i].x0 < box[2] and box[1] < spots[i].y1 \
                and spots[i].y0 < box[3]:
            return False
    return True


cdef int way_fits(const Spot* spots, int n, const Table* table, Anchor at,
                  int heading) noexcept nogil:
    """How any next tile fits at ``at`` going ``heading``, as a way for place_spot, or
    NO_ROOM.  Straight on, a tile along the line and a double across it must both fit.
    A turn lays the tile crosswise with its first half just beyond the end, or, with no
    room beyond, alongside the end tile's last half (ALONGSIDE); its second half reaches
    out toward ``heading``."""
    cdef int box[4]
    cdef int d = at.dir
    if heading == d:
        frame(at, d, (d + 1) & 3, 0, 4, -1, 1, box)
        if not room_for(box, spots, n, table):
            return NO_ROOM
        frame(at, d, (d + 1) & 3, 0, 2, -2, 2, box)
        return d if room_for(box, spots, n, table) else NO_ROOM
    frame(at, d, heading, 0, 2, -1, 3, box)
    if room_for(box, spots, n, table):
        return heading
    frame(at, d, heading, -2, 0, 1, 5, box)
    return heading | ALONGSIDE if room_for(box, spots, n, table) else NO_ROOM


cdef long free_area(const Spot* spots, int n, const Table* table, Anchor at,
                    int heading) noexcept nogil:
    """The free table area on the ``heading`` side of the line through ``at``."""
    cdef int region[4]
    cdef int other[4]
    cdef int i, w, h
    cdef long area
    region[0] = table.x0
    region[1] = table.y0
    region[2] = table.x1
    region[3] = table.y1
    if heading == DIR_E:
        region[0] = at.x
    elif heading == DIR_W:
        region[2] = at.x
    elif heading == DIR_S:
        region[1] = at.y
    else:
        region[3] = at.y
    area = <long>(region[2] - region[0]) * (region[3] - region[1])
    for i in range(n):
        spot_box(&spots[i], other)
        w = (other[2] if other[2] < region[2] else region[2]) \
            - (other[0] if other[0] > region[0] else region[0])
        h = (other[3] if other[3] < region[3] else region[3]) \
            - (other[1] if other[1] > region[1] else region[1])
        if w > 0 and h > 0:
            area -= w * h
    return area


cdef int pick_way(const Spot* spots, int n, const Table* table, Anchor at) noexcept nogil:
    """How the next tile at ``at`` goes (G2): straight on when it fits, else the turn
    that fits; when both do, the one toward the larger free area (a tie, and every turn
    without a table: clockwise first); NO_ROOM when none fits (the end is closed)."""
    cdef int d = at.dir, cw, ccw
    cdef int way = way_fits(spots, n, table, at, d)
    if way != NO_ROOM:
        return way
    cw = way_fits(spots, n, table, at, (d + 1) & 3)
    ccw = way_fits(spots, n, table, at, (d + 3) & 3)
    if cw == NO_ROOM or ccw == NO_ROOM:
        return ccw if cw == NO_ROOM else cw
    if table.bounded and free_area(spots, n, table, at, (d + 3) & 3) \
            > free_area(spots, n, table, at, (d + 1) & 3):
        return ccw
    return cw


cdef bint has_room(const Spot* spots, int n, const Table* table, Anchor at) noexcept nogil:
    """Whether any way fits at ``at`` (pick_way is not NO_ROOM), without choosing one."""
    return way_fits(spots, n, table, at, at.dir) != NO_ROOM \
        or way_fits(spots, n, table, at, (at.dir + 1) & 3) != NO_ROOM \
        or way_fits(spots, n, table, at, (at.dir + 3) & 3) != NO_ROOM


cdef void jump_ahead(const Spot* spots, int n, const Table* table, Anchor* at) noexcept nogil:
    """Unbounded table, no way fits (only when every double spins can arms wall an end
    in): move the anchor on, 2 units at a time, to the first place where the next tile
    fits straight on; that tile then lies apart from the line, with a gap."""
    while at.x * dx(at.dir) < 100 and at.y * dy(at.dir) < 100 \
            and way_fits(spots, n, table, at[0], at.dir) == NO_ROOM:
        at.x += 2 * dx(at.dir)
        at.y += 2 * dy(at.dir)


cdef inline void set_anchor(Anchor* a, int x, int y, int d) noexcept nogil:
    a.x = x
    a.y = y
    a.dir = d


cdef void lead_spot(int hi, int lo, bint spinner, Spot* out, Anchor* ends) noexcept nogil:
    """The lead at (0, 0): a double crosswise (north-south), another tile east-west with
    its high half west.  ends[0] is W, ends[1] E and, for a spinner, ends[2] N, ends[3] S."""
    cdef int half = 1 if hi == lo else 2
    out.x = 0
    out.y = 0
    out.dir = DIR_S if hi == lo else DIR_E
    out.first = hi
    out.second = lo
    fill_box(out)
    set_anchor(&ends[0], -half, 0, DIR_W)
    set_anchor(&ends[1], half, 0, DIR_E)
    if spinner:
        set_anchor(&ends[2], 0, -2, DIR_N)
        set_anchor(&ends[3], 0, 2, DIR_S)


cdef void place_spot(Anchor* at, int way, int v, int other, bint spinner,
                     Spot* out, Anchor* arms) noexcept nogil:
    """Lay a tile showing v toward the line (other outward) at ``at`` the ``way``
    pick_way chose; ``at`` becomes the new end.  A spinner writes its two arms to arms[0]
    and arms[1]."""
    cdef int d = at.dir, x = at.x, y = at.y, right = (d + 1) & 3
    cdef int heading = way & 3
    # a spinner's first arm (N, N2, ...) goes north, or west from a north-south line
    cdef int first_arm = (d + 3) & 3 if (d + 3) & 3 >= DIR_W else right
    out.first = v
    out.second = other
    if way & ALONGSIDE:  # the turn beside the end tile's last half
        out.x = x - dx(d) + 3 * dx(heading)
        out.y = y - dy(d) + 3 * dy(heading)
        out.dir = heading
        if spinner:  # its two long sides
            set_anchor(&arms[0], x + 3 * dx(heading), y + 3 * dy(heading), d)
            set_anchor(&arms[1], x - 2 * dx(d) + 3 * dx(heading),
                       y - 2 * dy(d) + 3 * dy(heading), (d + 2) & 3)
        set_anchor(at, x - dx(d) + 5 * dx(heading), y - dy(d) + 5 * dy(heading), heading)
    elif heading != d:  # the turn: the first half just beyond the end
        out.x = x + dx(d) + dx(heading)
        out.y = y + dy(d) + dy(heading)
        out.dir = heading
        if spinner:  # its other long side, and its short end away from heading
            set_anchor(&arms[0], x + 2 * dx(d) + dx(heading), y + 2 * dy(d) + dy(heading), d)
            set_anchor(&arms[1], x + dx(d) - dx(heading), y + dy(d) - dy(heading),
                       (heading + 2) & 3)
        set_anchor(at, x + dx(d) + 3 * dx(heading), y + dy(d) + 3 * dy(heading), heading)
    elif v == other:  # a double, crosswise
        out.x = x + dx(d)
        out.y = y + dy(d)
        out.dir = right
        if spinner:  # its two short ends
            set_anchor(&arms[0], out.x + 2 * dx(first_arm), out.y + 2 * dy(first_arm),
                       first_arm)
            set_anchor(&arms[1], out.x - 2 * dx(first_arm), out.y - 2 * dy(first_arm),
                       (first_arm + 2) & 3)
        set_anchor(at, x + 2 * dx(d), y + 2 * dy(d), d)
    else:
        out.x = x + 2 * dx(d)
        out.y = y + 2 * dy(d)
        out.dir = d
        set_anchor(at, x + 4 * dx(d), y + 4 * dy(d), d)
    fill_box(out)
