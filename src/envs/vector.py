"""``VectorEnv``: n rounds of one variant stepped together in the core of its family
(the family's ``vector`` part: :func:`line_vector`, :func:`train_vector` for the built-in
families)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..api import Round
from ..registry import family_of
from ..registry import variant as lookup
from ..variant import Variant


class Step(NamedTuple):
    """What ``reset`` and ``step`` return (arrays the next call overwrites)."""

    observations: np.ndarray  # (n, tensor size) float32: the tensor of the seat to move
    action_masks: np.ndarray  # (n, actions) bool: its legal actions
    rewards: np.ndarray  # (n, players) float32: each seat's reward for this step
    dones: np.ndarray  # (n,) bool: the round ended (and a new one was dealt)
    to_play: np.ndarray  # (n,) int8: the seat to move, whose tensor and mask these are


class VectorEnv:
    """``n`` rounds of ``variant`` with ``players`` seats, stepped together in C.

    The actions, tensors and the core that steps them are the variant's family's
    (its ``vector`` part: the line games' ``ActionSpace``, ``TensorSpec`` and
    ``VectorCore``, the train games' ``TrainActionSpace``, ``TrainTensorSpec`` and
    ``TrainVectorCore``; docs/envs.md).

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
        spec = lookup(variant)  # OptionError naming an unknown variant
        parts = family_of(spec).part("vector")(spec, players, n, seed, dict(options))
        self.variant = spec.name
        self.options: dict[str, Any] = parts.options
        self.action_space: Any = parts.action_space
        self.tensor_spec: Any = parts.tensor_spec
        self._core: Any = parts.core
        self._round_of = parts.round_of
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

    def round(self, i: int) -> Round:
        """A copy of round ``i`` as it stands: its deal and moves."""
        return self._round_of(i)

    def __repr__(self) -> str:
        return f"<VectorEnv {self.variant} players={self.players} n={self.num_envs}>"


class VectorParts(NamedTuple):
    """What a family's ``vector`` part gives VectorEnv: the ``core`` that steps the rounds
    (``seed``, ``reset``, ``step``, ``random_actions``), the variant's ``action_space``
    and ``tensor_spec``, the option overrides as the rounds use them (``options``), and
    ``round_of(i)``, a copy of round ``i`` as it stands."""

    core: Any
    action_space: Any
    tensor_spec: Any
    options: dict[str, Any]
    round_of: Any


def line_vector(
    spec: Variant, players: int, n: int, seed: int, options: dict[str, Any]
) -> VectorParts:
    """The line family's ``vector`` part: ``VectorCore`` with ``ActionSpace`` and
    ``TensorSpec``."""
    from ..core.actions import ActionSpace
    from ..core.rules import compile_rules
    from ..core.tensor import TensorSpec
    from ..core.tiles import TILES, tiles_of_mask
    from ..core.vector import _NEW, VectorCore

    rules = compile_rules(spec.name, players, options)  # OptionError: a bad option
    overrides = dict(rules.overrides)
    core = VectorCore(_NEW, spec.name, players, n, seed, dict(options))

    def round_of(i: int) -> Round:
        hands, stock, leader, lead_tile, moves = core.record(i)
        return Round.from_deal(
            spec,
            hands=[tiles_of_mask(h) for h in hands],
            stock=[TILES[t] for t in stock],
            leader=leader,
            lead_tile=None if lead_tile < 0 else TILES[lead_tile],
            moves=moves,
            **overrides,
        )

    return VectorParts(
        core,
        ActionSpace(spec.name, players, **options),
        TensorSpec(spec.name, players, **options),
        overrides,
        round_of,
    )


def train_vector(
    spec: Variant, players: int, n: int, seed: int, options: dict[str, Any]
) -> VectorParts:
    """The train family's ``vector`` part: ``TrainVectorCore`` with ``TrainActionSpace``
    and ``TrainTensorSpec``."""
    from ..core.train_games import core_arguments
    from ..core.traintensor import TrainTensorSpec
    from ..core.trainvector import _NEW, TrainVectorCore
    from ..train_actions import TrainActionSpace

    args = core_arguments(spec, players, options)  # OptionError naming the option
    core = TrainVectorCore(_NEW, args, players, n, seed)

    def round_of(i: int) -> Round:
        deal, pile, first, placed = core.record(i)
        return Round.from_deal(spec, deal, pile, first, moves=placed, **options)

    return VectorParts(
        core,
        TrainActionSpace(spec, players, **options),
        TrainTensorSpec(spec, players, **options),
        dict(options),
        round_of,
    )
