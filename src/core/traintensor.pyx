"""One seat's view of a train round as a flat float32 tensor (docs/envs.md, "The train
games' tensor"), the legal-action mask of ``bones.train_actions.TrainActionSpace`` and the
round's returns, written by the core from the round's TrainState.

Everything in the tensor is public or the seat's own: its hand, the tiles on the table,
each train's open number, length and marker (Mexican Train) or the free ends and the double
whose toes are due (Chicken Foot), the hand sizes, the stock's size, the game scores and
whose turn.  Other hands, the stock's order and another seat's forced tile never enter it.
"""

from libc.stdint cimport int32_t, uint8_t
from libc.string cimport memset

from bones.core.tensor cimport tensor_buffer
from bones.core.trains cimport TrainRound
from bones.core.trainstate cimport (
    LAYOUT_TRAINS, TR_CF_BIT, TR_MEXICAN, TR_PLAYING, TrainState, move_target, move_tile,
    ts_penalty,
)
from bones.core.wideset cimport (
    W128, WIDE_HI, WIDE_NUM, w_and, w_any, w_count, w_first, w_rest,
)

from bones.errors import OptionError


cdef void train_planes_of(int layout, int set_max, int players,
                          TrainPlanes* t) noexcept nogil:
    cdef int32_t n = 0, k = 0, i
    cdef int numbers = set_max + 1
    t.layout = layout
    t.set_max = set_max
    t.players = players
    for i in range(91):
        if WIDE_HI[i] <= set_max:
            t.pos[i] = k
            k += 1
        else:
            t.pos[i] = -1
    t.n_tiles = k
    t.n_targets = players + 1 if layout == LAYOUT_TRAINS else k
    t.n_actions = t.n_tiles * t.n_targets
    t.hand = n
    n += k
    t.table = n
    n += k
    t.numbers = n
    n += numbers
    t.trains = t.ends = t.end_numbers = t.pending = t.toes = -1
    if layout == LAYOUT_TRAINS:
        t.trains = n
        n += (players + 1) * (numbers + 3)
    else:
        t.ends = n
        n += k
        t.end_numbers = n
        n += numbers
        t.pending = n
        n += k
        t.toes = n
        n += 1
    t.sizes = n
    n += players
    t.stock = n
    n += 1
    t.scores = n
    n += players
    t.seat = n
    n += players
    t.turn = n
    n += players
    t.size = n


cdef inline void tile_plane(const TrainPlanes* t, float* out, W128 m) noexcept nogil:
    while w_any(m):
        out[t.pos[w_first(m)]] = 1
        m = w_rest(m)


cdef void write_train_tensor(const TrainPlanes* t, const TrainState* s,
                             const int32_t* scores, int seat, float* out) noexcept nogil:
    cdef int n, k, o, row, players = t.players, numbers = t.set_max + 1
    cdef float* f
    cdef W128 ends
    memset(out, 0, t.size * sizeof(float))
    tile_plane(t, out + t.hand, s.hand[seat])
    tile_plane(t, out + t.table, s.table)
    for n in range(numbers):
        out[t.numbers + n] = w_count(w_and(s.table, WIDE_NUM[n]))
    if t.layout == LAYOUT_TRAINS:
        for row in range(players + 1):
            k = row if row < players else TR_MEXICAN
            f = out + t.trains + row * (numbers + 3)
            f[s.train_open[k]] = 1
            f[numbers] = s.train_len[k]
            f[numbers + 1] = 1 if k == TR_MEXICAN else (s.public >> k) & 1
            f[numbers + 2] = s.pending == k
    else:
        for n in range(numbers):
            ends = s.ends_by[n]
            out[t.end_numbers + n] = w_count(ends)
            tile_plane(t, out + t.ends, ends)
        if s.pending >= 0:
            out[t.pending + t.pos[s.pending]] = 1
            out[t.toes] = s.toes
    o = seat  # seats in turn from this one: no division
    for k in range(players):
        out[t.sizes + k] = w_count(s.hand[o])
        out[t.scores + k] = scores[o]
        o = o + 1 if o + 1 < players else 0
    out[t.stock] = s.stock_len - s.stock_top
    out[t.seat + seat] = 1
    if s.status == TR_PLAYING:
        k = s.to_move - seat
        out[t.turn + (k + players if k < 0 else k)] = 1


cdef int train_action_of(const TrainPlanes* t, int move) noexcept nogil:
    """The action index of a move code (TrainActionSpace's numbering)."""
    cdef int target = move_target(move)
    if move & TR_CF_BIT:
        target = t.pos[target]
    elif target == TR_MEXICAN:
        target = t.players
    return t.pos[move_tile(move)] * t.n_targets + target


cdef void write_train_mask(const TrainPlanes* t, const TrainState* s,
                           uint8_t* out) noexcept nogil:
    cdef int i
    memset(out, 0, t.n_actions)
    for i in range(s.n_moves):  # 0 once the round is over
        out[train_action_of(t, s.moves[i])] = 1


cdef void write_train_returns(const TrainState* s, float* out) noexcept nogil:
    """Per seat: the mean penalty of the other seats less its own once the round is over
    (zero-sum; the lowest total wins), 0 before."""
    cdef int x, n = s.players
    cdef float total = 0
    if s.status == TR_PLAYING:
        for x in range(n):
            out[x] = 0
        return
    for x in range(n):
        out[x] = ts_penalty(s, x)
        total += out[x]
    for x in range(n):
        out[x] = (total - out[x]) / (n - 1) - out[x]


cdef void planes_of_round(TrainRound round, TrainPlanes* t) noexcept:
    train_planes_of(round.st.layout, round.st.set_max, round.st.players, t)


cdef uint8_t[::1] _byte_buffer(object out, int size):
    cdef uint8_t[::1] view
    try:
        view = memoryview(out).cast("B")
    except (BufferError, ValueError, TypeError) as exc:
        raise ValueError(f"the mask must be a writable buffer of {size} bytes: {exc}") \
            from None
    if view.shape[0] != size:
        raise ValueError(f"the mask must be a writable buffer of {size} bytes, "
                         f"got {view.shape[0]}")
    return view


def action_mask(TrainRound round not None, object out):
    """Write ``round``'s legal actions (TrainActionSpace numbering) into ``out``, a writable
    buffer of the space's ``size`` bytes: 1 where legal, else 0."""
    cdef TrainPlanes t
    round._check()
    planes_of_round(round, &t)
    cdef uint8_t[::1] view = _byte_buffer(out, t.n_actions)
    write_train_mask(&t, round.st, &view[0])


def returns(TrainRound round not None):
    """Per seat, the round's return: the mean penalty of the other seats less its own once
    the round is over (zero-sum), 0.0 while it is played."""
    cdef float out[8]
    cdef int x
    round._check()
    write_train_returns(round.st, out)
    return tuple([out[x] for x in range(round.st.players)])


cdef class TrainTensorSpec:
    """The observation tensor of a train variant: ``TrainTensorSpec("mexican-train", 4)``
    (with its options: ``set="double-9"``, ...).

    ``size`` float32 values per seat, in the planes ``planes`` lists (docs/envs.md)."""

    def __init__(self, variant, players=4, **options):
        from bones.core.train_games import core_arguments
        from bones.registry import variant as lookup
        from bones.variant import TRAIN_BASES, Variant

        spec = variant if isinstance(variant, Variant) else lookup(variant)
        if spec.base not in TRAIN_BASES:
            raise OptionError(f"{spec.name}: a {spec.base} variant is played on the "
                              "double-six core; its tensor is bones.TensorSpec")
        args = core_arguments(spec, players, options)  # OptionError naming what is wrong
        train_planes_of(0 if args["layout"] == "trains" else 1, args["set_max"],
                        int(players), &self.c)
        self.variant = spec.name

    def _check(self):
        if self.variant is None:
            raise TypeError("use TrainTensorSpec(variant, players, **options)")

    @property
    def size(self):
        """Floats in one seat's tensor."""
        self._check()
        return self.c.size

    @property
    def planes(self):
        """(name, offset, shape) of each plane, in order."""
        cdef TrainPlanes* t = &self.c
        cdef int numbers = t.set_max + 1
        self._check()
        head = (
            ("hand", t.hand, (t.n_tiles,)),
            ("table", t.table, (t.n_tiles,)),
            ("numbers", t.numbers, (numbers,)),
        )
        if t.layout == LAYOUT_TRAINS:
            middle = (("trains", t.trains, (t.players + 1, numbers + 3)),)
        else:
            middle = (
                ("ends", t.ends, (t.n_tiles,)),
                ("end_numbers", t.end_numbers, (numbers,)),
                ("pending", t.pending, (t.n_tiles,)),
                ("toes", t.toes, (1,)),
            )
        return head + middle + (
            ("hand_sizes", t.sizes, (t.players,)),
            ("stock", t.stock, (1,)),
            ("scores", t.scores, (t.players,)),
            ("seat", t.seat, (t.players,)),
            ("to_move", t.turn, (t.players,)),
        )

    def write(self, TrainRound round not None, seat, out=None):
        """``seat``'s tensor of ``round`` into ``out`` (a writable C-contiguous float32
        buffer of ``size``), or a new ``array.array("f")``; returns it."""
        cdef float[::1] view
        cdef int32_t scores[8]
        cdef int x, s
        self._check()
        round._check()
        if (round.st.layout, round.st.set_max, round.st.players) != \
                (self.c.layout, self.c.set_max, self.c.players):
            raise ValueError(f"this tensor is for {self.variant} (double-{self.c.set_max}, "
                             f"{self.c.players} players), not {round.variant} "
                             f"(double-{round.st.set_max}, {round.st.players} players)")
        if isinstance(seat, bool) or not isinstance(seat, int) \
                or not 0 <= seat < self.c.players:
            raise ValueError(f"seat must be an int from 0 to {self.c.players - 1}, "
                             f"not {seat!r:.40}")
        s = seat
        out = tensor_buffer(out, self.c.size)
        view = out
        for x in range(self.c.players):
            scores[x] = round.scores[x]
        write_train_tensor(&self.c, round.st, scores, s, &view[0])
        return out

    def __eq__(self, other):
        if not isinstance(other, TrainTensorSpec):
            return NotImplemented
        return self.size == other.size and self.planes == other.planes

    def __hash__(self):
        return hash(self.planes)

    def __repr__(self):
        if self.variant is None:
            return "<TrainTensorSpec (empty)>"
        return f"<TrainTensorSpec {self.variant} size={self.c.size}>"
