"""n rounds stepped together in C, for bones.envs.VectorEnv (docs/envs.md).

The caller owns the output arrays (typed memoryviews of numpy arrays); each step makes one
move in every round, writes rewards and done flags, deals a new round where one ended, and
writes the observation tensor and the legal-action mask of the seat to move next."""

from cpython.mem cimport PyMem_Free
from libc.stdint cimport int64_t, uint32_t
from libc.string cimport memset

from bones.core.actions cimport action_of, actions_of, code_of, write_mask
from bones.core.batch cimport batch_calloc, check_batch, seed_streams
from bones.core.moves cimport move_of
from bones.core.rng cimport rng_below
from bones.core.rules cimport compile_rules
from bones.core.state cimport MAX_PLIES, PLAYING, deal_random, find_move, open_mask, play
from bones.core.tensor cimport (
    planes_of, voids_clear, voids_update, write_returns, write_tensor,
)

from bones.errors import IllegalMove, OptionError

from bones.core.tensor import _game_target

_NEW = object()  # the token that lets bones.envs construct cores (private)


cdef class VectorCore:
    """Use bones.envs.VectorEnv."""

    def __cinit__(self, *args):
        if len(args) != 6 or args[0] is not _NEW:
            raise TypeError("use bones.envs.VectorEnv(variant, players, n)")

    def __init__(self, token, str variant, int players, int n, seed, dict options):
        cdef int i
        check_batch(self.states is not NULL, n, 1 << 20, "VectorCore")
        self.rules = compile_rules(variant, players, options)
        if self.rules.c.python_scorer:
            raise OptionError(f"{variant} scores moves in Python (move_scorer): step it with "
                              "Round instead")
        actions_of(&self.rules.c, &self.a)
        planes_of(&self.rules.c, _game_target(self.rules), &self.t)
        self.states = <State*>batch_calloc(n, sizeof(State))
        self.voids = <Voids*>batch_calloc(n, sizeof(Voids))
        self.gained = <float*>batch_calloc(4 * n, sizeof(float))
        self.codes = <uint32_t*>batch_calloc(n, sizeof(uint32_t))
        self.n = n
        for i in range(4):
            self.no_scores[i] = 0
        self.seed(seed)

    def __dealloc__(self):
        PyMem_Free(self.states)
        PyMem_Free(self.voids)
        PyMem_Free(self.gained)
        PyMem_Free(self.codes)

    def seed(self, seed):
        """Restart both random streams (deals and random_actions) from seed."""
        seed_streams(&self.deal_rng, &self.act_rng, seed)

    cdef void _deal(self, int i) noexcept nogil:
        deal_random(&self.states[i], &self.rules.c, &self.deal_rng, self.no_scores, -1)
        voids_clear(&self.voids[i])
        memset(&self.gained[4 * i], 0, 4 * sizeof(float))

    cdef void _emit(self, int i, float[:, ::1] obs, unsigned char[:, ::1] mask,
                    signed char[::1] to_play) noexcept nogil:
        cdef State* s = &self.states[i]
        to_play[i] = s.to_move
        write_tensor(&self.t, s, &self.voids[i], s.to_move, &obs[i, 0])
        write_mask(&self.a, s, &mask[i, 0])

    def _check(self, float[:, ::1] obs, unsigned char[:, ::1] mask, signed char[::1] to_play):
        if self.states is NULL:
            raise TypeError("use bones.envs.VectorEnv(variant, players, n)")
        if obs.shape[0] != self.n or obs.shape[1] != self.t.size or mask.shape[0] != self.n \
                or mask.shape[1] != self.a.size or to_play.shape[0] != self.n:
            raise ValueError("output arrays of the wrong shape")

    def reset(self, float[:, ::1] obs, unsigned char[:, ::1] mask, signed char[::1] to_play):
        """Deal every round anew."""
        cdef int i
        self._check(obs, mask, to_play)
        with nogil:
            for i in range(self.n):
                self._deal(i)
                self._emit(i, obs, mask, to_play)

    def step(self, const int64_t[::1] actions, float[:, ::1] obs, unsigned char[:, ::1] mask,
             float[:, ::1] rewards, unsigned char[::1] dones, signed char[::1] to_play):
        """Play actions[i] in round i; IllegalMove (nothing played) when one is illegal."""
        cdef int i, k, x, players = self.rules.c.players
        cdef int64_t act
        cdef State* s
        cdef float now[4]
        self._check(obs, mask, to_play)
        if actions.shape[0] != self.n or rewards.shape[0] != self.n \
                or rewards.shape[1] != players or dones.shape[0] != self.n:
            raise ValueError("actions, rewards or dones of the wrong shape")
        for i in range(self.n):
            s = &self.states[i]
            act = actions[i]
            k = -1
            if 0 <= act < self.a.size:
                k = find_move(s, code_of(&self.a, <int>act))
            if k < 0 or s.status != PLAYING or s.n_plies >= MAX_PLIES:
                raise IllegalMove(f"round {i}: action {act} is not legal (seat {s.to_move}); "
                                  "nothing was played")
            self.codes[i] = s.moves[k]
        with nogil:
            for i in range(self.n):
                s = &self.states[i]
                play(s, self.codes[i])
                voids_update(&self.voids[i], s.r, &s.plies[s.n_plies - 1],
                             open_mask(s), s.status != PLAYING)
                dones[i] = s.status != PLAYING
                if dones[i] or s.plies[s.n_plies - 1].points:  # else the returns stand
                    write_returns(s, now)
                    for x in range(players):
                        rewards[i, x] = now[x] - self.gained[4 * i + x]
                        self.gained[4 * i + x] = now[x]
                    if dones[i]:
                        self._deal(i)
                else:
                    for x in range(players):
                        rewards[i, x] = 0
                self._emit(i, obs, mask, to_play)

    def record(self, int i):
        """Round i so far: (hands at the deal as tile masks, stock top first, leader,
        lead tile or -1, moves)."""
        cdef State* s
        cdef int k
        if self.states is NULL or not 0 <= i < self.n:
            raise IndexError(f"no round {i}: rounds are 0..{self.n - 1}")
        s = &self.states[i]
        return ([s.hand0[k] for k in range(self.rules.c.players)],
                [s.stock[k] for k in range(s.stock_len)], s.leader, s.lead_tile,
                [move_of(s.plies[k].move) for k in range(s.n_plies)])

    def random_actions(self, int64_t[::1] out):
        """A uniformly random legal action of every round."""
        cdef int i
        cdef State* s
        if out.shape[0] != self.n or self.states is NULL:
            raise ValueError("out must hold one action per round")
        with nogil:
            for i in range(self.n):
                s = &self.states[i]
                out[i] = action_of(&self.a, s.moves[rng_below(&self.act_rng, s.n_moves)])
