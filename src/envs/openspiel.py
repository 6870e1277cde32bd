"""bones as OpenSpiel games: ``bones_<variant>`` for every registered double-six variant
(not the train games yet: a ``BonesGame`` of one raises OptionError saying why,
docs/envs.md "Which games").

    import pyspiel
    import bones.envs.openspiel  # registers the games
    game = pyspiel.load_game("bones_straight", {"players": 4})

Chance is the deal: one chance node per tile dealt (each seat's hand, then the boneyard
top first, every order equally likely), plus one for the leader where the variant draws it
at random.  Player actions are the indices of the variant's ``ActionSpace``; forced draws
and passes are part of the action before them.  Returns are ``Round.returns()`` (zero-sum),
rewards their change over the last action.  ``resample_from_infostate`` draws a full deal
uniformly among those consistent with the player's view, with the engine's exact sampler
(docs/sampler.md), so ISMCTS and the other determinizing algorithms run on every variant.
The game parameters are ``players`` and the variant's options (those with a plain default;
Kozel's ``redeal_bad_hand`` stays off: the chance deal is uniform).  Needs
``pip install bones[openspiel]``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from ..core.actions import ActionSpace
from ..core.moves import Move
from ..core.round import Round
from ..core.tensor import TensorSpec
from ..core.tiles import TILES
from ..errors import OptionError
from ..registry import family_of, variants
from ..registry import variant as lookup_variant

_MAX_UTILITY = {"straight": 2000.0}  # the count scores during the round
_DEFAULT_MAX_UTILITY = 400.0  # an award of at most the 168 pips of the set, twice
_MAX_PLIES = 256  # moves in one round, at most (the core's bound)


@dataclass(frozen=True)
class _Setup:
    """What a game of one variant and player count needs, computed once."""

    variant: str
    players: int
    options: tuple[tuple[str, Any], ...]  # the option overrides, sorted
    hand_size: int
    n_deal: int  # tiles dealt by chance: the hands, then the boneyard
    random_leader: bool  # one more chance node: the leader
    space: ActionSpace
    spec: TensorSpec

    def __deepcopy__(self, memo: dict[int, Any]) -> _Setup:
        return self  # immutable: shared by every state (OpenSpiel clones by deepcopy)


_SETUPS: dict[tuple[str, int, tuple[tuple[str, Any], ...]], _Setup] = {}


def _setup(variant: str, players: int, options: dict[str, Any]) -> _Setup:
    key = (variant, players, tuple(sorted(options.items())))
    if key not in _SETUPS:
        family = family_of(variant)
        if not family.has("openspiel"):
            name = lookup_variant(variant).name
            raise OptionError(
                f"{name}: bones.envs.openspiel plays the families with an OpenSpiel "
                f"adapter, not the {family.name} family ({family.description}); "
                "VectorEnv and bones.envs.pettingzoo play every family (docs/envs.md)"
            )
        sample = Round.deal(variant, players, **options)
        hand_size = len(sample.hand(0))
        _SETUPS[key] = _Setup(
            variant,
            players,
            key[2],
            hand_size,
            players * hand_size + sample.stock_size,
            sample.options.get("first_leader") == "random",
            sample.action_space,
            sample.tensor_spec,
        )
    return _SETUPS[key]


# Options the chance deal cannot honour: Kozel's redeal of bad hands changes the deal's law.
_FIXED_OPTIONS = ("redeal_bad_hand",)


def _parameters(name: str) -> dict[str, Any]:
    """The game's parameters: ``players`` and every option with a plain default."""
    spec = lookup_variant(name)
    out: dict[str, Any] = {"players": min(spec.players)}
    for option, opt in spec.options.items():
        if type(opt.default) in (bool, int, str) and option not in _FIXED_OPTIONS:
            out[option] = opt.default
    return out


def _game_type(name: str) -> pyspiel.GameType:
    allowed = lookup_variant(name).players
    return pyspiel.GameType(
        short_name=f"bones_{name}",
        long_name=f"bones {name} dominoes",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=max(allowed),
        min_num_players=min(allowed),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(name),
    )


class BonesGame(pyspiel.Game):
    """One bones variant as an OpenSpiel game (parameter ``players``); registered as one
    subclass per variant, which sets ``variant``."""

    variant = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        variant = self.variant
        game_type = _game_type(variant)
        defaults = _parameters(variant)
        given = {**defaults, **(params or {})}
        players = int(given.pop("players"))
        options = {k: v for k, v in given.items() if v != defaults.get(k)}
        setup = _setup(variant, players, options)
        bound = _MAX_UTILITY.get(lookup_variant(variant).base, _DEFAULT_MAX_UTILITY)
        info = pyspiel.GameInfo(
            num_distinct_actions=setup.space.size,
            max_chance_outcomes=28,
            num_players=players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=setup.n_deal + 1 + _MAX_PLIES,
        )
        super().__init__(game_type, info, {"players": players, **options})
        self.setup = setup

    def new_initial_state(self) -> BonesState:
        return BonesState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> BonesObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return BonesObserver(self.setup, perfect_recall)


class BonesState(pyspiel.State):
    """A round: its deal by chance, then the seats' actions."""

    def __init__(self, game: BonesGame) -> None:
        super().__init__(game)
        self._setup = game.setup
        self._dealt: list[int] = []  # tile indices in deal order
        self._left = list(range(28))  # tiles not dealt yet, ascending
        self._round: Round | None = None
        self._rewards = [0.0] * game.setup.players

    # --- OpenSpiel's API ---------------------------------------------------------------

    def current_player(self) -> int:
        if self._round is None:
            return pyspiel.PlayerId.CHANCE
        if self._round.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self._round.to_move  # type: ignore[return-value]

    def _legal_actions(self, player: int) -> list[int]:
        assert self._round is not None and player == self._round.to_move
        return self._round.legal_actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._round is None
        if len(self._dealt) < self._setup.n_deal:
            p = 1.0 / len(self._left)
            return [(t, p) for t in self._left]
        return [(seat, 1.0 / self._setup.players) for seat in range(self._setup.players)]

    def _apply_action(self, action: int) -> None:
        if self._round is None:
            if len(self._dealt) < self._setup.n_deal:
                self._left.remove(action)
                self._dealt.append(action)
                if len(self._dealt) == self._setup.n_deal and not self._setup.random_leader:
                    self._start(None)
            else:
                self._start(action)
            return
        before = self._round.returns()
        self._round.play(action)
        self._rewards = [a - b for a, b in zip(self._round.returns(), before, strict=True)]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if len(self._dealt) < self._setup.n_deal:
                return f"deal {TILES[action]}"
            return f"leader {action}"
        return str(self._setup.space.move(action))

    def is_terminal(self) -> bool:
        return self._round is not None and self._round.is_over

    def returns(self) -> list[float]:
        if self._round is None:
            return [0.0] * self._setup.players
        return list(self._round.returns())

    def rewards(self) -> list[float]:
        return list(self._rewards)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BonesState:
        """A state drawn uniformly among those ``player_id`` cannot tell from this one (the
        engine's exact sampler, seeded from ``probability_sampler``)."""
        seed = random.Random(probability_sampler()).getrandbits(64)
        clone = self.clone()
        if self._round is None:
            # the other seats' tiles so far: any of the tiles this player has not seen
            hs = self._setup.hand_size
            mine = set(self._dealt[player_id * hs : (player_id + 1) * hs])
            unseen = [t for t in range(28) if t not in mine]
            random.Random(seed).shuffle(unseen)
            it = iter(unseen)
            clone._dealt = [t if t in mine else next(it) for t in self._dealt]
            clone._left = sorted(it)
            return clone
        sampled = self._round.observation(player_id).sample(seed)
        clone._round = sampled
        clone._dealt = []  # the sampled deal replaces the chance record
        return clone

    def __str__(self) -> str:
        if self._round is None:
            return "dealt: " + " ".join(str(TILES[t]) for t in self._dealt)
        return repr(self._round)

    # --- helpers -------------------------------------------------------------------------

    def _start(self, leader: int | None) -> None:
        s = self._setup
        hands = [
            [TILES[t] for t in self._dealt[k * s.hand_size : (k + 1) * s.hand_size]]
            for k in range(s.players)
        ]
        stock = [TILES[t] for t in self._dealt[s.players * s.hand_size :]]
        self._round = Round.from_deal(
            s.variant, hands=hands, stock=stock, leader=leader, **dict(s.options)
        )

    @property
    def round(self) -> Round | None:
        """The bones Round once dealt (the engine's view, every hand included)."""
        return self._round


class BonesObserver:
    """The seat's observation tensor (docs/envs.md) and a text form of its view."""

    def __init__(self, setup: _Setup, perfect_recall: bool) -> None:
        self.setup = setup
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(setup.spec.size, np.float32)
        self.dict = {
            name: self.tensor[k : k + int(np.prod(shape))].reshape(shape)
            for name, k, shape in setup.spec.planes
        }

    def set_from(self, state: BonesState, player: int) -> None:
        if state.round is not None:
            state.round.observation_tensor(player, self.tensor)
            return
        self.tensor.fill(0)
        for t in _own_deal(state, player):
            self.dict["hand"][t] = 1

    def string_from(self, state: BonesState, player: int) -> str:
        if state.round is None:
            return f"p{player} dealt " + " ".join(str(TILES[t]) for t in _own_deal(state, player))
        obs = state.round.observation(player)
        hand = " ".join(map(str, obs.hand))
        if not self.perfect_recall:
            return (
                f"p{player} hand {hand} ends {obs.ends} sizes {obs.hand_sizes} "
                f"stock {obs.stock_size} scores {obs.scores} to_move {obs.to_move}"
            )
        events = " ".join(f"{e.kind}:{e.seat}:{e.move or e.count}" for e in obs.events)
        return f"p{player} hand {hand} | {events}"


def _own_deal(state: BonesState, player: int) -> list[int]:
    hs = state._setup.hand_size
    return state._dealt[player * hs : (player + 1) * hs]


def _register() -> None:
    # One class per variant: OpenSpiel's registry keeps what it is given until the
    # interpreter exits, and a class (as OpenSpiel's own Python games register) is safe
    # there where a closure is not.
    registered = set(pyspiel.registered_names())
    for name in variants():
        spec = lookup_variant(name)
        if spec.move_scorer is not None or f"bones_{name}" in registered:
            continue
        if not family_of(spec).has("openspiel"):  # _setup says so to a BonesGame made anyway
            continue
        game = type(f"Bones_{name}_Game", (BonesGame,), {"variant": name})
        pyspiel.register_game(_game_type(name), game)


_register()

__all__ = ["BonesGame", "BonesObserver", "BonesState", "Move"]
