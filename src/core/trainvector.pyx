"""n train rounds (Mexican Train, Chicken Foot) stepped together in C, for
bones.envs.VectorEnv (docs/envs.md): the counterpart of bones.core.vector for the train
games' core.  Actions are bones.train_actions.TrainActionSpace indices, tensors those of
bones.core.traintensor."""

from cpython.mem cimport PyMem_Free
from libc.stdint cimport int32_t, int64_t

from bones.core.batch cimport batch_calloc, check_batch, seed_streams
from bones.core.rng cimport rng_below
from bones.core.traintensor cimport (
    train_action_of, train_planes_of, write_train_mask, write_train_returns,
    write_train_tensor,
)
from bones.core.trains cimport _move_of
from bones.core.trainstate cimport (
    TR_MAX_PLIES, TR_PLAYING, TrainState, ts_deal_random, ts_play,
)
from bones.core.wideset cimport int_of_mask, wide_tile, wide_tiles_of

from bones.errors import IllegalMove

_NEW = object()  # the token that lets bones.envs construct cores (private)


cdef class TrainVectorCore:
    """Use bones.envs.VectorEnv."""

    def __cinit__(self, *args):
        if len(args) != 5 or args[0] is not _NEW:
            raise TypeError("use bones.envs.VectorEnv(variant, players, n)")

    def __init__(self, token, dict args, int players, int n, seed):
        """args: bones.core.train_games.core_arguments of the variant (checked there)."""
        cdef int i
        check_batch(self.states is not NULL, n, 1 << 16, "TrainVectorCore")
        self.layout = 0 if args["layout"] == "trains" else 1
        self.set_max = args["set_max"]
        self.engine = args["engine"]
        self.players = players
        self.hand_size = args["hand_size"]
        self.zero_double = args["zero_double"]
        self.first_turn_own = bool(args.get("first_turn_own_train", False))
        self.engine_toes = args.get("engine_toes", 0)
        train_planes_of(self.layout, self.set_max, players, &self.t)
        self.states = <TrainState*>batch_calloc(n, sizeof(TrainState))
        self.codes = <uint16_t*>batch_calloc(n, sizeof(uint16_t))
        self.n = n
        for i in range(8):
            self.no_scores[i] = 0
        self.seed(seed)

    def __dealloc__(self):
        PyMem_Free(self.states)
        PyMem_Free(self.codes)

    def seed(self, seed):
        """Restart both random streams (deals and random_actions) from seed."""
        seed_streams(&self.deal_rng, &self.act_rng, seed)

    cdef void _deal(self, int i) noexcept nogil:
        # The leader by lot, as a game's first round.  A deal blocked before its first move
        # (no seat can place after the whole stock is drawn) gives the agents no step:
        # deal again (such deals are vanishingly rare; each try is independent).
        cdef TrainState* s = &self.states[i]
        while True:
            ts_deal_random(s, self.layout, self.set_max, self.engine, self.players,
                           self.hand_size, self.zero_double, self.first_turn_own,
                           self.engine_toes, rng_below(&self.deal_rng, self.players),
                           &self.deal_rng)
            if s.status == TR_PLAYING:
                break

    cdef void _emit(self, int i, float[:, ::1] obs, unsigned char[:, ::1] mask,
                    signed char[::1] to_play) noexcept nogil:
        cdef TrainState* s = &self.states[i]
        to_play[i] = s.to_move
        write_train_tensor(&self.t, s, <const int32_t*>self.no_scores, s.to_move, &obs[i, 0])
        write_train_mask(&self.t, s, &mask[i, 0])

    def _check(self, float[:, ::1] obs, unsigned char[:, ::1] mask, signed char[::1] to_play):
        if self.states is NULL:
            raise TypeError("use bones.envs.VectorEnv(variant, players, n)")
        if obs.shape[0] != self.n or obs.shape[1] != self.t.size or mask.shape[0] != self.n \
                or mask.shape[1] != self.t.n_actions or to_play.shape[0] != self.n:
            raise ValueError("output arrays of the wrong shape")

    def reset(self, float[:, ::1] obs, unsigned char[:, ::1] mask, signed char[::1] to_play):
        """Deal every round anew."""
        cdef int i
        self._check(obs, mask, to_play)
        with nogil:
            for i in range(self.n):
                self._deal(i)
                self._emit(i, obs, mask, to_play)

    cdef int _code_of(self, const TrainState* s, int64_t act) noexcept nogil:
        """The legal move of action act in s, or -1."""
        cdef int k
        if not 0 <= act < self.t.n_actions or s.status != TR_PLAYING \
                or s.n_plies >= TR_MAX_PLIES:
            return -1
        for k in range(s.n_moves):
            if train_action_of(&self.t, s.moves[k]) == act:
                return s.moves[k]
        return -1

    def step(self, const int64_t[::1] actions, float[:, ::1] obs, unsigned char[:, ::1] mask,
             float[:, ::1] rewards, unsigned char[::1] dones, signed char[::1] to_play):
        """Play actions[i] in round i; IllegalMove (nothing played) when one is illegal."""
        cdef int i, x, code, players = self.players
        cdef TrainState* s
        self._check(obs, mask, to_play)
        if actions.shape[0] != self.n or rewards.shape[0] != self.n \
                or rewards.shape[1] != players or dones.shape[0] != self.n:
            raise ValueError("actions, rewards or dones of the wrong shape")
        for i in range(self.n):
            s = &self.states[i]
            code = self._code_of(s, actions[i])
            if code < 0:
                raise IllegalMove(f"round {i}: action {actions[i]} is not legal (seat "
                                  f"{s.to_move}); nothing was played")
            self.codes[i] = code
        with nogil:
            for i in range(self.n):
                s = &self.states[i]
                ts_play(s, self.codes[i])
                dones[i] = s.status != TR_PLAYING
                if dones[i]:  # a train round scores only at its end: the reward is the return
                    write_train_returns(s, &rewards[i, 0])
                    self._deal(i)
                else:
                    for x in range(players):
                        rewards[i, x] = 0
                self._emit(i, obs, mask, to_play)

    def record(self, int i):
        """Round i so far: (hands at the deal as SetTile lists, stock top first, leader,
        moves)."""
        cdef TrainState* s
        cdef int k
        if self.states is NULL or not 0 <= i < self.n:
            raise IndexError(f"no round {i}: rounds are 0..{self.n - 1}")
        s = &self.states[i]
        return ([list(wide_tiles_of(int_of_mask(s.hand0[k]))) for k in range(s.players)],
                [wide_tile(s.stock[k]) for k in range(s.stock_len)], s.leader,
                [_move_of(s.plies[k].move) for k in range(s.n_plies)])

    def random_actions(self, int64_t[::1] out):
        """A uniformly random legal action of every round."""
        cdef int i
        cdef TrainState* s
        if out.shape[0] != self.n or self.states is NULL:
            raise ValueError("out must hold one action per round")
        with nogil:
            for i in range(self.n):
                s = &self.states[i]
                out[i] = train_action_of(&self.t, s.moves[rng_below(&self.act_rng, s.n_moves)])
