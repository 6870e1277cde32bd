"""One seat's view of a round as a flat float32 tensor (docs/envs.md), and the returns.

Everything in the tensor is public or the seat's own: its hand, the table, the ends, hand
sizes, the boneyard's size, scores, whose turn, and the numbers another seat is known not
to hold.  Those *voids* are read from the public record as the exact sampler reads it
(docs/sampler.md): a pass, or a forced draw, with open numbers M says the seat then held no
tile of M; a tile drawn later may be anything unseen, so it clears what was known.  The
sampler rebuilds the whole record per call; the tensor needs the same facts per step, so
``voids_update`` keeps them incrementally, one ply at a time (tests/test_tensor.py checks
them against the sampler's deals).
"""

from libc.stdint cimport int32_t, uint32_t
from libc.string cimport memcpy, memset

from bones.core.rules cimport FAMILY_BLOCK, FAMILY_KOZEL, compile_rules
from bones.core.state cimport (
    KIND_DOUBLE_DOUBLE, KIND_DRAW, KIND_PASS, MAX_ENDS, PLAYING, Outcome, kind_of, lay,
    layout_count, open_mask, outcome, state_init,
)
from bones.core.rules cimport SPINNER_ALL_DOUBLES, SPINNER_NONE
from bones.core.tiles cimport ALL_TILES, PIP_MASK, TILE_HI, TILE_LO, popcount

from bones.core.rules import OtherCore
from bones.errors import OptionError

cdef dict _specs = {}  # CompiledRules -> its TensorSpec


cdef void planes_of(const Rules* r, float target, Planes* t) noexcept nogil:
    cdef int32_t n = 0
    t.players = r.players
    t.n_sides = r.n_sides
    if r.spinner == SPINNER_NONE:
        t.n_ends = 2
    elif r.spinner == SPINNER_ALL_DOUBLES:
        t.n_ends = MAX_ENDS
    else:
        t.n_ends = 4
    t.target = target
    t.hand = n
    n += 28
    t.table = n
    n += 28
    t.ends = n
    n += t.n_ends * END_FEATURES
    t.numbers = n
    n += 7
    t.voids = n
    n += (r.players - 1) * 7
    t.sizes = n
    n += r.players
    t.stock = n
    t.count = n + 1
    t.pending = n + 2
    n += 3
    t.scores = n
    n += r.n_sides
    t.target_at = n
    n += 1
    t.turn = n
    n += r.players
    t.size = n


cdef void voids_clear(Voids* v) noexcept nogil:
    memset(v, 0, sizeof(Voids))


cdef void voids_update(Voids* v, const Rules* r, const Ply* p, uint32_t open_after,
                       bint ended) noexcept nogil:
    """What ply p and its forced events tell about the hands; open_after: the tiles that
    match a live end after the ply (forced draws and passes see that layout); ended: the
    round ended with this ply's forced events."""
    cdef int kind = kind_of(p.move), seat = p.seat, _
    cdef uint32_t m = open_after
    if kind <= KIND_DOUBLE_DOUBLE:
        # after a forced draw the seat held one open tile, the one it places now
        v.cannot[seat] |= v.chain[seat]
        v.chain[seat] = 0
    elif kind == KIND_DRAW:
        v.cannot[seat] = 0  # an unseen tile joins the hand
        v.chain[seat] = 0
    elif kind == KIND_PASS:
        v.cannot[seat] |= m  # a pass is offered only to a seat that cannot place
    seat = p.chain_seat
    if p.drawn:
        if r.draw_with_playable and p.drawn == 1:
            # the record cannot tell this from a draw by choice: nothing is known
            v.cannot[seat] = 0
            v.chain[seat] = 0
        elif p.passes or ended:
            # the boneyard ran out: every tile drawn missed M, as did the hand
            v.cannot[seat] = m
            v.chain[seat] = 0
        else:
            # the last tile drawn matched M, the others did not, nor did the hand
            v.cannot[seat] = v.cannot[seat] & ~m if p.drawn == 1 else 0
            v.chain[seat] = m
    for _ in range(p.passes):
        v.cannot[seat] |= m
        seat = seat + 1 if seat + 1 < r.players else 0


cdef void voids_of(const State* s, Voids* v) noexcept nogil:
    """The voids of s's record, replayed ply by ply on the public layout."""
    cdef State pub
    cdef uint32_t no_hands[4]
    cdef int32_t no_scores[4]
    cdef int i
    for i in range(4):
        no_hands[i] = 0
        no_scores[i] = 0
    state_init(&pub, s.r, no_hands, NULL, 0, 0, -1, no_scores)
    voids_clear(v)
    for i in range(s.n_plies):
        if kind_of(s.plies[i].move) <= KIND_DOUBLE_DOUBLE:
            lay(&pub, s.plies[i].move)
        voids_update(v, s.r, &s.plies[i], open_mask(&pub) if pub.n_placed else 0,
                     i == s.n_plies - 1 and s.status != PLAYING)


cdef float BYTE_BITS[256][8]  # BYTE_BITS[b][i]: bit i of b, as a float


cdef void _fill_byte_bits() noexcept:
    cdef int b, i
    for b in range(256):
        for i in range(8):
            BYTE_BITS[b][i] = (b >> i) & 1


_fill_byte_bits()


cdef inline void tile_plane(float* out, uint32_t m) noexcept nogil:
    """out[0:28]: 1 for each tile in m, eight floats at a time."""
    memcpy(out, BYTE_BITS[m & 255], 8 * sizeof(float))
    memcpy(out + 8, BYTE_BITS[(m >> 8) & 255], 8 * sizeof(float))
    memcpy(out + 16, BYTE_BITS[(m >> 16) & 255], 8 * sizeof(float))
    memcpy(out + 24, BYTE_BITS[(m >> 24) & 15], 4 * sizeof(float))


cdef void write_tensor(const Planes* t, const State* s, const Voids* v, int seat,
                       float* out) noexcept nogil:
    cdef uint32_t unknown, known = s.table | s.hand[seat]
    cdef int e, n, k, o, side = s.r.side_of[seat], players = t.players
    cdef float* f
    memset(out, 0, t.size * sizeof(float))
    tile_plane(out + t.hand, s.hand[seat])
    tile_plane(out + t.table, s.table)
    for n in range(7):
        out[t.numbers + n] = popcount(s.table & PIP_MASK[n])
    for e in range(s.n_ends if s.n_ends < t.n_ends else t.n_ends):
        f = out + t.ends + e * END_FEATURES
        f[s.ends[e].v] = 1
        f[7] = s.ends[e].live
        if s.ends[e].tile < 0:
            f[8] = 1
        elif TILE_LO[s.ends[e].tile] == TILE_HI[s.ends[e].tile]:
            f[9] = 1
    o = seat  # seats in turn from this one: no division
    for k in range(players):
        out[t.sizes + k] = popcount(s.hand[o])
        if k:
            unknown = ALL_TILES & ~(known | v.cannot[o])
            f = out + t.voids + (k - 1) * 7
            for n in range(7):
                if not PIP_MASK[n] & unknown:
                    f[n] = 1
        o = o + 1 if o + 1 < players else 0
    out[t.stock] = s.stock_len - s.stock_top
    out[t.count] = layout_count(s) if s.n_placed else 0
    if s.pending and s.pending_side != side:
        out[t.pending] = s.pending
    o = side
    for k in range(t.n_sides):
        out[t.scores + k] = s.score[o]
        o = o + 1 if o + 1 < t.n_sides else 0
    out[t.target_at] = t.target
    if s.status == PLAYING:
        k = s.to_move - seat
        out[t.turn + (k + players if k < 0 else k)] = 1


cdef void write_returns(const State* s, float* out) noexcept nogil:
    """Per seat: what its side gained this round (the count scored, plus the round-end
    award; Kozel's award is a penalty, so its negative) less the mean gain of the other
    sides.  Zero-sum; during the round, the gains so far."""
    cdef const Rules* r = s.r
    cdef Outcome res
    cdef float gain[4]
    cdef float total = 0
    cdef int x, n = r.n_sides
    for x in range(4):
        gain[x] = 0
    if s.status != PLAYING:
        outcome(s, &res)
    for x in range(n):
        gain[x] = s.score[x] - s.score0[x]
        if s.status != PLAYING:
            if r.family == FAMILY_KOZEL:
                gain[x] -= res.points[x]
            elif r.family == FAMILY_BLOCK:
                gain[x] += res.points[x] if res.points[x] > 0 else 0
            else:
                gain[x] += res.points[x]
        total += gain[x]
    for x in range(r.players):
        out[x] = gain[r.side_of[x]] - (total - gain[r.side_of[x]]) / (n - 1)


cdef tuple returns_of(const State* s):
    cdef float out[4]
    cdef int x
    write_returns(s, out)
    return tuple([out[x] for x in range(s.r.players)])


cdef object tensor_buffer(object out, int size):
    """``out`` checked to be a writable C-contiguous float32 buffer of ``size`` floats
    (TypeError, ValueError), or a new ``array.array("f")`` of ``size`` zeros for None."""
    cdef float[::1] view
    if out is None:
        from array import array

        return array("f", bytes(4 * size))
    try:
        view = out
    except (BufferError, ValueError, TypeError) as exc:
        raise TypeError(f"the tensor needs a writable C-contiguous float32 buffer: "
                        f"{exc}") from None
    if view.shape[0] != size:
        raise ValueError(f"the tensor needs {size} floats, got {view.shape[0]}")
    return out


cdef TensorSpec spec_of(CompiledRules rules):
    cdef TensorSpec spec = _specs.get(rules)
    if spec is None:
        spec = TensorSpec.__new__(TensorSpec)
        spec._set(rules)
        _specs[rules] = spec
    return spec


def _game_target(CompiledRules rules):
    """The target the game is played to (the variant's ``target`` option), else 0."""
    target = rules.options.get("target", 0)
    return float(target) if isinstance(target, int) and not isinstance(target, bool) else 0.0


cdef class TensorSpec:
    """The observation tensor of a variant with its options: ``TensorSpec("straight", 2)``.

    ``size`` float32 values per seat, in the planes ``planes`` lists (docs/envs.md)."""

    def __init__(self, variant, players=2, **options):
        cdef CompiledRules rules
        if not isinstance(variant, str) or isinstance(players, bool) \
                or not isinstance(players, int):
            raise OptionError("TensorSpec(variant name, players, **options)")
        try:
            rules = compile_rules(str.__str__(variant), int(players), options)
        except OtherCore as other:
            raise OtherCore(other.variant, "TensorSpec") from None
        self._set(rules)

    cdef void _set(self, CompiledRules rules) except *:
        self.rules = rules
        planes_of(&rules.c, _game_target(rules), &self.c)

    def _check(self):
        if self.rules is None:
            raise TypeError("use TensorSpec(variant, players, **options)")

    @property
    def size(self):
        """Floats in one seat's tensor."""
        return self.c.size

    @property
    def planes(self):
        """(name, offset, shape) of each plane, in order."""
        cdef Planes* t = &self.c
        self._check()
        return (
            ("hand", t.hand, (28,)),
            ("table", t.table, (28,)),
            ("ends", t.ends, (t.n_ends, END_FEATURES)),
            ("numbers", t.numbers, (7,)),
            ("voids", t.voids, (t.players - 1, 7)),
            ("hand_sizes", t.sizes, (t.players,)),
            ("stock", t.stock, (1,)),
            ("count", t.count, (1,)),
            ("pending", t.pending, (1,)),
            ("scores", t.scores, (t.n_sides,)),
            ("target", t.target_at, (1,)),
            ("to_move", t.turn, (t.players,)),
        )

    cdef object write(self, const State* s, int seat, object out):
        """seat's tensor of s into out (a writable float32 buffer of ``size``), or a new
        array.array("f")."""
        cdef Voids v
        cdef float[::1] view
        self._check()
        out = tensor_buffer(out, self.c.size)
        view = out
        voids_of(s, &v)
        write_tensor(&self.c, s, &v, seat, &view[0])
        return out

    def __repr__(self):
        if self.rules is None:
            return "<TensorSpec (empty)>"
        return f"<TensorSpec {self.rules.variant.name} size={self.c.size}>"
