"""bones as a PettingZoo AEC environment with action masks.

    from bones.envs.pettingzoo import env
    e = env(variant="straight", players=4)
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else policy(obs["observation"],
                                                                obs["action_mask"])
        e.step(action)

One episode is one round.  Agents are ``player_0`` .. ``player_{n-1}`` (the seats).  An
observation is ``{"observation": the seat's tensor (float32, docs/envs.md), "action_mask":
int8 mask of the ActionSpace}`` (a train variant's: ``TrainTensorSpec`` and
``TrainActionSpace``); the mask is all zeros for an agent that is not to move.  Rewards are
the change of the round's returns (zero-sum) over each step.  An illegal action raises
``bones.IllegalMove`` and changes nothing.  Needs ``pip install bones[pettingzoo]``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..api import Round
from ..errors import IllegalMove
from ..registry import family_of
from ..registry import variant as lookup


def env(**kwargs: Any) -> AECEnv:
    """The environment, wrapped to enforce PettingZoo's call order."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # noqa: N801  (PettingZoo's naming)
    """One bones variant (with ``players`` and any ``options``) as an AEC environment."""

    RENDER_MODES = ("human", "ansi")
    metadata = {"name": "bones_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(
        self,
        variant: str = "block",
        players: int = 2,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(self.RENDER_MODES)}")
        spec = lookup(variant)  # OptionError naming an unknown variant
        family = family_of(spec)
        self.variant = spec.name
        self.players = players
        self.options = options
        self.render_mode = render_mode
        self.space: Any = family.part("action_space")(spec.name, players, **options)
        self.spec_: Any = family.part("tensor_spec")(spec.name, players, **options)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.action_spaces = {a: spaces.Discrete(self.space.size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        -np.inf, np.inf, (self.spec_.size,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, (self.space.size,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._rng = random.Random()
        self.round: Round | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.round = Round.deal(
            self.variant, self.players, seed=self._rng.getrandbits(64), **self.options
        )
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._returns = self._round_returns()
        self.agent_selection = self.agents[self.round.to_move or 0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.round is not None
        seat = self.possible_agents.index(agent)
        tensor = np.empty(self.spec_.size, np.float32)
        mask = np.zeros(self.space.size, np.int8)
        self.round.observation_tensor(seat, tensor)
        if self.round.to_move == seat:
            self.round.action_mask(mask)
        return {"observation": tensor, "action_mask": mask}

    def _round_returns(self) -> tuple[float, ...]:
        assert self.round is not None
        return self.round.returns()

    def _play(self, action: Any) -> None:
        """Play ``action`` for the seat to move: IllegalMove, the round unchanged, for
        anything that is not one of its legal actions."""
        assert self.round is not None
        size = self.space.size
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalMove(f"an action is an int from 0 to {size - 1}, not {action!r:.40}")
        if not 0 <= action < size:
            raise IllegalMove(f"no action {action}: {self.variant} has actions 0..{size - 1}")
        self.round.play(int(action))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.round is not None
        self._play(action)
        now = self._round_returns()
        self._cumulative_rewards[agent] = 0
        for seat, a in enumerate(self.agents):
            self.rewards[a] = now[seat] - self._returns[seat]
        self._returns = now
        if self.round.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.agents[self.round.to_move]  # type: ignore[index]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.round is None:
            return None
        if self.render_mode == "ansi":
            return str(self.round)
        print(self.round)
        return None

    def close(self) -> None:
        pass
