"""``VectorEnv``: n rounds of one variant stepped together in the core (the double-six
core's ``VectorCore``, or the train games' ``TrainVectorCore``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.actions import ActionSpace
from ..core.round import Round
from ..core.rules import compile_rules
from ..core.tensor import TensorSpec
from ..core.tiles import TILES, tiles_of_mask
from ..core.train_games import core_arguments
from ..core.train_games import from_deal as train_from_deal
from ..core.trains import TrainRound
from ..core.traintensor import TrainTensorSpec
from ..core.trainvector import _NEW as _TRAIN_NEW
from ..core.trainvector import TrainVectorCore
from ..core.vector import _NEW, VectorCore
from ..train_actions import TrainActionSpace
from ._families import train_variant


class Step(NamedTuple):
    """What ``reset`` and ``step`` return (arrays the next call overwrites)."""

    observations: np.ndarray  # (n, tensor size) float32: the tensor of the seat to move
    action_masks: np.ndarray  # (n, actions) bool: its legal actions
    rewards: np.ndarray  # (n, players) float32: each seat's reward for this step
    dones: np.ndarray  # (n,) bool: the round ended (and a new one was dealt)
    to_play: np.ndarray  # (n,) int8: the seat to move, whose tensor and mask these are


class VectorEnv:
    """``n`` rounds of ``variant`` with ``players`` seats, stepped together in C.

    A double-six variant's actions and tensors are ``ActionSpace`` and ``TensorSpec``'s; a
    train variant's (Mexican Train, Chicken Foot) ``TrainActionSpace`` and
    ``TrainTensorSpec``'s (docs/envs.md).

    ``reset()`` deals every round; ``step(actions)`` plays ``actions[i]`` (an index of
    ``action_space``) for the seat to move in round ``i``.  A round that ends is dealt
    anew at once (its ``dones[i]`` is True and its rewards are the last of the old round);
    observations and masks are then those of the new round.  Rewards are per seat: the
    change of ``Round.returns()`` over the step (zero-sum).  The returned arrays are
    buffers that the next ``reset``/``step`` overwrites: copy what you keep.
    """

    def __init__(
        self, variant: str, players: int = 2, n: int = 1, *, seed: int = 0, **options: Any
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an int, not {type(n).__name__}")
        if isinstance(players, bool) or not isinstance(players, int):
            raise TypeError(f"players must be an int, not {type(players).__name__}")
        self.variant: str = variant
        self.players = players
        self.num_envs = n
        self.action_space: ActionSpace | TrainActionSpace
        self.tensor_spec: TensorSpec | TrainTensorSpec
        self._core: VectorCore | TrainVectorCore
        train = self._train = train_variant(variant)
        if train is not None:
            args = core_arguments(train, players, options)  # OptionError naming the option
            self.variant = train.name
            self.options = dict(options)
            self.action_space = TrainActionSpace(train, players, **options)
            self.tensor_spec = TrainTensorSpec(train, players, **options)
            self._core = TrainVectorCore(_TRAIN_NEW, args, players, n, seed)
        else:
            rules = compile_rules(variant, players, options)  # OptionError: a bad variant
            self.options = dict(rules.overrides)
            self.action_space = ActionSpace(variant, players, **options)
            self.tensor_spec = TensorSpec(variant, players, **options)
            self._core = VectorCore(_NEW, variant, players, n, seed, dict(options))
        size = self.tensor_spec.size
        self._obs = np.zeros((n, size), np.float32)
        self._mask = np.zeros((n, self.action_space.size), np.uint8)
        self._rewards = np.zeros((n, players), np.float32)
        self._dones = np.zeros(n, np.uint8)
        self._to_play = np.zeros(n, np.int8)
        self._random = np.zeros(n, np.int64)
        self._step = Step(
            self._obs,
            self._mask.view(bool),
            self._rewards,
            self._dones.view(bool),
            self._to_play,
        )
        self._ready = False

    def reset(self, seed: int | None = None) -> Step:
        """Deal every round anew (from ``seed`` when given); rewards and dones are 0."""
        if seed is not None:
            self._core.seed(seed)
        self._core.reset(self._obs, self._mask, self._to_play)
        self._rewards[:] = 0
        self._dones[:] = 0
        self._ready = True
        return self._step

    def step(self, actions: Any) -> Step:
        """Play one action in every round: an integer array of shape ``(n,)``.  An illegal
        action raises IllegalMove naming the round, and nothing is played."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, not {acts.dtype}")
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {acts.shape}")
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        self._core.step(acts, self._obs, self._mask, self._rewards, self._dones, self._to_play)
        return self._step

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for every round (a new array)."""
        if not self._ready:
            raise RuntimeError("call reset() before random_actions()")
        self._core.random_actions(self._random)
        return self._random.copy()

    def round(self, i: int) -> Round | TrainRound:
        """A copy of round ``i`` as it stands (a ``Round``, or a ``TrainRound`` for a train
        variant: its deal and moves)."""
        if isinstance(self._core, TrainVectorCore):
            assert self._train is not None
            deal, pile, first, placed = self._core.record(i)
            return train_from_deal(
                self._train, deal, pile, first, None, None, placed, False, self.options
            )
        hands, stock, leader, lead_tile, moves = self._core.record(i)
        return Round.from_deal(
            self.variant,
            hands=[tiles_of_mask(h) for h in hands],
            stock=[TILES[t] for t in stock],
            leader=leader,
            lead_tile=None if lead_tile < 0 else TILES[lead_tile],
            moves=moves,
            **self.options,
        )

    def __repr__(self) -> str:
        return f"<VectorEnv {self.variant} players={self.players} n={self.num_envs}>"
