"""The built-in compiled bots, registered like a third-party plugin: ``expert`` (weighted
heuristics), and the searches over deals drawn by the exact sampler: ``montecarlo``
(random playouts), ``pimc`` (playouts under a fast policy, exact endgames) and ``ismcts``
(information-set Monte Carlo tree search).

Each bot plays every family through the family's own kernel of the same name (its
``expert``, ``montecarlo``, ``pimc`` and ``ismcts`` parts, which take the same keyword
arguments in every family): the line games' ``bones.core.policy``, ``search`` and
``ismcts``, the train games' ``bones.core.trainpolicy``, ``trainsearch`` and
``trainismcts`` on deals from ``bones.core.trainsample`` (docs/bots.md, "Train games").

Every option either works in every family a bot plays or is refused with
:class:`bones.OptionError` naming it and the family (:func:`check_options`: by ``bones
match`` and ``bones play`` through ``BotSpec.check``, and by the bot at ``start_game``
and its first decision); docs/bots.md, "Which option works in which family".

They run in the compiled core.  A variant whose moves are scored by a Python
``move_scorer`` is played with that scorer: the core calls it for every placement of every
sample and playout (``bones.core.scorer``), so these bots play it as exactly as a built-in
variant, only slower (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..api import family_of_type
from ..bot import Bot, BotSpec
from ..errors import OptionError
from ..family import Family
from ..registry import family_of
from ..registry import variant as lookup_variant
from ..variant import Option
from . import hookimpl

if TYPE_CHECKING:
    from ..api import Move, Observation

__all__ = [
    "EXPERT_WEIGHTS",
    "ChainBot",
    "Expert",
    "ISMCTS",
    "MonteCarlo",
    "PIMC",
    "Planner",
    "register_bots",
]


LINE = "line"  #: the line games on the double-six set (``Family.name``)
TRAINS = "trains"  #: the train games
#: each family in words, for error messages
FAMILY_NAMES = {
    LINE: "the line games (straight, multiplayer, kozel, block, draw, fives-and-threes)",
    TRAINS: "the train games (Mexican Train, Chicken Foot)",
}


def _family(game: object) -> Family:
    """The family of ``game``, a variant's name or an observation: the registry's answer,
    by the observation's class (a served bot's process may not know its variant)."""
    if isinstance(game, str):
        return family_of(game)
    return family_of_type(type(game), "observation")


def _kernel(bot: str, observation: object, part: str) -> Any:
    """The family's search kernel ``part`` (the same keyword arguments in every family);
    OptionError for a family without one."""
    family = _family(observation)
    if not family.has(part):
        raise OptionError(f"{bot}: the {family.name} family has no {part} kernel to play")
    return family.part(part)


#: The expert's weights by variant family (``Variant.base``), in the order of
#: ``bones.core.policy.FIELDS``; docs/bots.md says what each feature is.  Points are in
#: pips (a score_scale of 5 is undone).
EXPERT_WEIGHTS: dict[str, dict[str, float]] = {
    "straight": {
        "points": 1.0,
        "reply": 0.6,
        "heavy": 0.15,
        "heavy_near": 0.3,
        "variety": 0.5,
        "follow": 0.3,
        "block": 0.5,
        "partner": 0.3,
        "double": 1.0,
        "out": 100.0,
        "lone_zero": 0.0,
        "closed": 1.0,
        "goat": 0.0,
    },
    "block": {
        "points": 0.0,
        "reply": 0.0,
        "heavy": 0.5,
        "heavy_near": 0.5,
        "variety": 1.0,
        "follow": 1.0,
        "block": 2.0,
        "partner": 1.0,
        "double": 2.0,
        "out": 100.0,
        "lone_zero": 0.0,
        "closed": 1.0,
        "goat": 0.0,
    },
    "kozel": {
        "points": 0.0,
        "reply": 0.0,
        "heavy": 0.5,
        "heavy_near": 0.5,
        "variety": 1.0,
        "follow": 1.0,
        "block": 2.0,
        "partner": 1.0,
        "double": 2.0,
        "out": 100.0,
        "lone_zero": -30.0,
        "closed": 0.5,
        "goat": 1.0,
    },
}
EXPERT_WEIGHTS["multiplayer"] = EXPERT_WEIGHTS["block"]
EXPERT_WEIGHTS["draw"] = EXPERT_WEIGHTS["block"]

_FEATURE_DOCS = {
    "points": "points scored now (in pips)",
    "reply": "subtracted per point the next opponent could score in reply (its voids known)",
    "heavy": "per pip shed",
    "heavy_near": "per pip shed, again, when a block or the round's end is near",
    "variety": "per distinct number left in the hand",
    "follow": "per tile left that matches an end after the move",
    "block": "per live end whose number the next opponent lacks",
    "partner": "per live end whose number the partner may hold",
    "double": "for shedding a double",
    "out": "for emptying the hand",
    "lone_zero": "Kozel: for leaving the lone 0-0 (worth 25) as the last tile",
    "closed": "Kozel 13 rule: factor of the pip weights while the side has recorded nothing",
    "goat": "Kozel: extra factor of the pip weights once the goat line is within reach",
}


_WEIGHTS_NOT_IN_TRAINS = (
    "the expert's weights score the line games' features; in the train games the expert "
    "and the expert playout policy are the train planner (bones.core.trainpolicy)"
)

#: per family, the options of the built-in bots that do not apply there, and why; an
#: option is refused only when it is set (not None: these options default to None)
NOT_IN: dict[str, dict[str, str]] = {
    TRAINS: {
        "exact": "the train games have no exact endgame solver (bones.core.trainsearch)",
        **{name: _WEIGHTS_NOT_IN_TRAINS for name in _FEATURE_DOCS},
    },
    LINE: {},
}
#: per family, option values that do not apply there, and why
VALUES_NOT_IN: dict[str, dict[tuple[str, object], str]] = {
    TRAINS: {},
    LINE: {("policy", "chain"): "the chain heuristic plays a train game's own train"},
}
#: the playout policies with a move of their own for pimc's ``gate`` to keep, per family
GATED = {LINE: ("expert",), TRAINS: ("expert", "chain")}
#: the options that do not apply to Chicken Foot, a train game without own trains
NOT_IN_CHICKEN_FOOT = {
    "budget": "it has no own trains, so the planner plans no chain there (budget bounds "
    "that chain's search)",
}


def _chicken_foot(game: object) -> bool:
    """Whether a train game (a variant's name or an observation) is laid out as Chicken
    Foot (no own trains)."""
    if isinstance(game, str):
        return lookup_variant(game).base == "chicken_foot"
    return getattr(game, "layout_name", None) == "chicken_foot"


def check_options(bot: str, game: object, options: Mapping[str, Any]) -> None:
    """:class:`bones.OptionError` naming the option and the family if an option in
    ``options`` (a bot's, as set) does not apply to ``game``'s family (a variant's name or
    an observation, ``_family``): the built-in bots never ignore an option silently."""
    family = _family(game).name
    where = FAMILY_NAMES.get(family, f"the {family} family")
    if family == TRAINS and _chicken_foot(game):
        for name, why in NOT_IN_CHICKEN_FOOT.items():
            if options.get(name) is not None:
                raise OptionError(f"{bot}: option {name!r} does not apply to Chicken Foot: {why}")
    for name, why in NOT_IN.get(family, {}).items():
        if options.get(name) is not None:
            raise OptionError(f"{bot}: option {name!r} does not apply to {where}: {why}")
    for (name, value), why in VALUES_NOT_IN.get(family, {}).items():
        if options.get(name) == value:
            raise OptionError(f"{bot}: option {name}={value} does not apply to {where}: {why}")
    if family == LINE and "policy" in options and options["policy"] != "expert":
        # the weights are the expert policy's, and pimc's belief model's and gate's
        infer, gate = options.get("infer", 0), options.get("gate")
        if not (infer is None or infer > 0 or gate is not None):
            for name in _FEATURE_DOCS:
                if options.get(name) is not None:
                    raise OptionError(
                        f"{bot}: option {name!r} does not apply to policy "
                        f"{options['policy']!r} in {where}: the weights are the expert "
                        "policy's"
                        + (" and the belief model's (infer)" if "infer" in options else "")
                    )
    gated = GATED.get(family, ())
    if options.get("gate") is not None and options.get("policy") not in gated:
        raise OptionError(
            f"{bot}: option 'gate' does not apply to policy {options.get('policy')!r} in "
            f"{where}: it keeps the policy's own move, and only "
            f"{' and '.join(gated)} {'has' if len(gated) == 1 else 'have'} "
            "one"
        )


def expert_weights(variant: str, overrides: dict[str, Any]) -> tuple[float, ...]:
    """The expert's weights for ``variant``: its family's defaults, then ``overrides``
    (``None`` values keep the default)."""
    from ..core.policy import FIELDS

    family = lookup_variant(variant).base
    weights = dict(EXPERT_WEIGHTS.get(family, EXPERT_WEIGHTS["block"]))
    weights.update({k: float(v) for k, v in overrides.items() if v is not None})
    return tuple(weights[name] for name in FIELDS)


class _Checked(Bot):
    """A bot that refuses an option that does not apply to the game's family
    (:func:`check_options`), at the start of a game and at its first decision in a
    family (for a bot driven without ``start_game``)."""

    #: the variant its options were last checked for
    _checked: object = None

    def start_game(self, seat: int, variant: str, players: int, options: dict[str, Any]) -> None:
        try:
            lookup_variant(variant)
        except OptionError:  # not registered in this process (a served bot): the first
            return  # decision checks, from the observation
        self.check(variant)

    def check(self, game: object) -> None:
        """:class:`bones.OptionError` if one of the bot's options does not apply to
        ``game`` (a variant's name or an observation); a decision is checked again only
        when its variant changes: the check costs a decision one comparison."""
        variant = game if isinstance(game, str) else getattr(game, "variant", None)
        if variant is not None and variant == self._checked:
            return
        check_options(self.name, game, self.options)
        self._checked = variant


class _CompiledBot(_Checked):
    """A bot whose moves are chosen in the core, with the expert's weights per variant."""

    def __init__(self, seed: int = 0, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        self._overrides = {k: options.get(k) for k in _FEATURE_DOCS}
        self._weights: dict[str, tuple[float, ...]] = {}
        self._state = seed & 0xFFFFFFFFFFFFFFFF  # the core's generator, carried between calls

    def weights(self, variant: str) -> tuple[float, ...]:
        found = self._weights.get(variant)
        if found is None:
            found = self._weights[variant] = expert_weights(variant, self._overrides)
        return found

    def _weights_for(self, observation: Observation) -> tuple[float, ...] | None:
        """The expert's weights where the family's kernels read them (the line games);
        None elsewhere (the train games' expert is the planner)."""
        if _family(observation).name != LINE:
            return None
        return self.weights(observation.variant)


class Expert(_CompiledBot):
    """Weighted heuristics (:data:`EXPERT_WEIGHTS`): every legal move is scored by
    features of the position after it, seen from what the seat may know."""

    name = "expert"

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        self.check(observation)
        kernel = _kernel(self.name, observation, "expert")
        move: Move = kernel(observation, legal_moves, weights=self._weights_for(observation))
        return move


class Planner(_Checked):
    """The train planner (``bones.core.trainpolicy``): the best chain for the own train
    (``bones.core.trainplan``, searched within ``budget`` nodes), the tiles off it laid
    elsewhere first, doubles played when they can be satisfied, the marker lifted, the
    heaviest shed when another seat is close to going out; in Chicken Foot, doubles the
    next seat likely cannot answer.  The train games only."""

    name = "planner"

    def __init__(self, seed: int = 0, budget: int | None = None, **options: Any) -> None:
        super().__init__(seed=seed, budget=budget, **options)
        self.budget = budget

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        self.check(observation)
        from ..core.trainpolicy import choose as train_choose

        return train_choose(observation, legal_moves, budget=self.budget)


class ChainBot(Bot):
    """The chain heuristic of issue 33, a baseline for Mexican Train: the heaviest tile
    that is not in the own train's best chain on another train, else the chain's first
    tile, else the heaviest legal tile."""

    name = "chain"

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        from ..core.trainpolicy import choose_chain

        return choose_chain(observation, legal_moves)


class MonteCarlo(Bot):
    """Determinised Monte Carlo: for each of ``simulations`` deals of the unseen tiles
    drawn by the exact sampler, every legal move is played out at random to the end of
    the round; the move with the best mean result for its side is chosen."""

    name = "montecarlo"

    def __init__(self, seed: int = 0, simulations: int = 400, **options: Any) -> None:
        super().__init__(seed=seed, simulations=simulations, **options)
        self.simulations = simulations
        self._state = seed & 0xFFFFFFFFFFFFFFFF  # the core's generator, carried between calls

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        kernel = _kernel(self.name, observation, "montecarlo")
        move: Move
        move, self._state = kernel(
            observation, legal_moves, simulations=self.simulations, seed=self._state
        )
        return move


INFER = 0.3  # pimc's belief sharpness with one other seat; measured in docs/bots.md
#: pimc's default belief sharpness in the train games (per pip): none, as no sharpness
#: measured made it stronger there (docs/strength.md, "What did not make pimc stronger")
TRAIN_INFER = 0.0
#: pimc's default ``gate`` in the train games: the planner's move is left only for one a
#: standard error ahead; in the line games there is no gate unless one is set
TRAIN_GATE = 1.0


def default_infer(players: int) -> float:
    """``pimc``'s default ``infer`` for a round of ``players``: :data:`INFER` shared among
    the other seats.  The log-likelihood of a deal sums the choices of every other seat,
    so with three of them the same sharpness leaves far fewer deals with weight
    (docs/sampler.md); divided among them, the spread stays about that of two players."""
    return INFER / (players - 1)


class PIMC(_CompiledBot):
    """Perfect-information Monte Carlo: on each of up to ``samples`` deals drawn by the
    exact sampler (and within ``time_ms``), every legal move is played out under a fast
    ``policy``, or solved by alpha-beta once at most ``exact`` tiles are left in the hands
    and nothing can be drawn; the best mean for its side wins, each deal weighted by how
    likely it makes the other seats' placements (``infer``: the belief model's sharpness,
    ``bones.core.belief``; 0 weighs every deal alike; ``None``: :func:`default_infer` of
    the player count, and :data:`TRAIN_INFER` in the train games, where the model is
    ``TrainSampler.weighed_deal``'s).  ``threads`` share the deals out, each with its own
    clock of ``time_ms``.  ``gate``: the expert's (or the chain heuristic's) own move is
    left only for a move that leads it by more than this many standard errors (``None``:
    :data:`TRAIN_GATE` in the train games, no gate in the line games).  ``exact``
    (``None``: 8) and the weights are the line games' only: set in a train game, they are
    refused with :class:`bones.OptionError` (:func:`check_options`)."""

    name = "pimc"

    def __init__(
        self,
        seed: int = 0,
        samples: int = 1000,
        time_ms: float = 20.0,
        policy: str = "expert",
        exact: int | None = None,
        threads: int = 1,
        infer: float | None = None,
        gate: float | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            seed=seed,
            samples=samples,
            time_ms=time_ms,
            policy=policy,
            exact=exact,
            threads=threads,
            infer=infer,
            gate=gate,
            **options,
        )
        self.samples, self.time_ms, self.policy, self.exact = samples, time_ms, policy, exact
        self.threads, self.infer = threads, infer
        self.gate = None if gate is None else float(gate)
        self.last_samples = 0  # samples the last decision used

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        self.check(observation)
        kernel = _kernel(self.name, observation, "pimc")
        train = _family(observation).name == TRAINS  # the families' own defaults
        infer = self.infer
        if infer is None:
            infer = TRAIN_INFER if train else default_infer(observation.players)
        gate = self.gate
        if gate is None:
            gate = TRAIN_GATE if train else 0.0
        move: Move
        move, self._state, self.last_samples = kernel(
            observation,
            legal_moves,
            samples=self.samples,
            time_ms=float(self.time_ms),
            policy=self.policy,
            seed=self._state,
            threads=self.threads,
            exact=self.exact,
            weights=self._weights_for(observation),
            infer=float(infer),
            gate=gate,
        )
        return move


class ISMCTS(_CompiledBot):
    """Single-observer information-set MCTS: one tree over the seat's information set,
    each of up to ``iterations`` iterations (within ``time_ms``) on a fresh deal from the
    exact sampler, UCB selection among the moves available in that deal, a playout under
    ``policy``; the root move visited most wins.  ``threads`` grow a tree each, with its
    own clock of ``time_ms``, and their root visits are summed."""

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        iterations: int = 1000,
        time_ms: float = 20.0,
        policy: str = "expert",
        c: float = 0.7,
        threads: int = 1,
        **options: Any,
    ) -> None:
        super().__init__(
            seed=seed,
            iterations=iterations,
            time_ms=time_ms,
            policy=policy,
            c=c,
            threads=threads,
            **options,
        )
        self.iterations, self.time_ms, self.policy, self.c = iterations, time_ms, policy, c
        self.threads = threads
        self.last_iterations = 0  # iterations the last decision used

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        self.check(observation)
        kernel = _kernel(self.name, observation, "ismcts")
        move: Move
        move, self._state, self.last_iterations = kernel(
            observation,
            legal_moves,
            iterations=self.iterations,
            time_ms=float(self.time_ms),
            policy=self.policy,
            c=float(self.c),
            seed=self._state,
            threads=self.threads,
            weights=self._weights_for(observation),
        )
        return move


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _exact(value: object) -> bool:
    return value is None or (
        isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 28
    )


def _budget(value: object) -> bool:
    return value is None or (_positive(value) and value <= 10_000_000)  # type: ignore[operator]


def _threads(value: object) -> bool:
    return _positive(value) and value <= 64  # type: ignore[operator]


def _number(value: object) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _beta(value: object) -> bool:
    return value is None or (_number(value) and 0 <= value <= 100)  # type: ignore[operator]


def _gate(value: object) -> bool:
    return value is None or (_number(value) and 0 <= value <= 10)  # type: ignore[operator]


def _time(value: object) -> bool:
    return _number(value) and value is not None and 0 <= value <= 600_000  # type: ignore[operator]


_WEIGHT_OPTIONS = {
    name: Option(
        name,
        None,
        doc=f"expert weight: {doc} (default: by variant; the line games only)",
        check=_number,
        expects="a number",
    )
    for name, doc in _FEATURE_DOCS.items()
}
_POLICY = Option(
    "policy",
    "expert",
    ("expert", "greedy", "random", "chain"),
    doc="the playout policy (expert uses the weight options; in the train games it is the "
    "planner; chain: the train games only, refused in the line games)",
)


def _threads_option(doc: str) -> Option:
    return Option("threads", 1, doc=doc, check=_threads, expects="an int from 1 to 64")


_TIME = Option(
    "time_ms",
    20.0,
    doc="milliseconds of CPU time per decision (0: no clock; then deterministic)",
    check=_time,
    expects="a number of ms, 0 to 600000",
)


def _check_spec(bot: str) -> Callable[[str, Mapping[str, Any]], None]:
    """A BotSpec's ``check`` (``bones match`` and ``bones play`` call it with the
    variant before a game): :func:`check_options` for ``bot``."""

    def check(variant: str, options: Mapping[str, Any]) -> None:
        check_options(bot, variant, options)

    return check


SPECS = (
    BotSpec(
        "planner",
        Planner,
        "Train games: plans the longest, heaviest chain for its own train, lays the rest "
        "elsewhere, lifts its marker, dumps heavy tiles when a seat is close to going out",
        options={
            "budget": Option(
                "budget",
                None,
                doc="most search nodes of the chain planner per decision (default 20000; "
                "Mexican Train only: Chicken Foot has no own trains, refused there)",
                check=_budget,
                expects="an int from 1 to 10000000",
            )
        },
        bases=("trains", "chicken_foot"),
        check=_check_spec("planner"),
    ),
    BotSpec(
        "chain",
        ChainBot,
        "Mexican Train baseline: the heaviest tile off its best chain on another train, "
        "else the chain's first tile",
        bases=("trains",),
    ),
    BotSpec(
        "expert",
        Expert,
        "Weighted heuristics per variant, compiled: points, replies, voids, blocking, Kozel",
        options=dict(_WEIGHT_OPTIONS),
        check=_check_spec("expert"),
    ),
    BotSpec(
        "montecarlo",
        MonteCarlo,
        "Samples the hidden tiles exactly and plays every legal move out at random",
        options={
            "simulations": Option(
                "simulations",
                400,
                doc="samples per decision, shared by every legal move",
                check=_positive,
                expects="an int >= 1",
            )
        },
    ),
    BotSpec(
        "pimc",
        PIMC,
        "Exact samples; every legal move played out by a fast policy, exact endgames",
        options={
            "samples": Option(
                "samples",
                1000,
                doc="most samples per decision",
                check=_positive,
                expects="an int >= 1",
            ),
            "time_ms": _TIME,
            "policy": _POLICY,
            "exact": Option(
                "exact",
                None,
                doc="solve exactly when at most this many tiles are left in the hands "
                "(default 8; the line games only, refused in the train games)",
                check=_exact,
                expects="an int from 0 to 28",
            ),
            "threads": _threads_option(
                "threads sharing the samples, each with its own time_ms of CPU time"
            ),
            "infer": Option(
                "infer",
                None,
                doc="belief sharpness: each deal weighted by how likely the others' "
                "placements are in it (bones.core.belief; the train games: heavy tiles "
                "laid off their own trains first, bones.core.trainsample; 0: unweighted; "
                f"default: {INFER} / (players - 1), the train games {TRAIN_INFER})",
                check=_beta,
                expects="a number from 0 to 100",
            ),
            "gate": Option(
                "gate",
                None,
                doc="leave the playout policy's own move (policy expert, or chain) only for "
                "one ahead by more than this many standard errors over the samples (0: any "
                f"lead; default: the train games {TRAIN_GATE}, the line games no gate)",
                check=_gate,
                expects="a number from 0 to 10",
            ),
            **_WEIGHT_OPTIONS,
        },
        check=_check_spec("pimc"),
    ),
    BotSpec(
        "ismcts",
        ISMCTS,
        "Information-set MCTS on exact samples, playouts by a fast policy",
        options={
            "iterations": Option(
                "iterations",
                1000,
                doc="most iterations per decision",
                check=_positive,
                expects="an int >= 1",
            ),
            "time_ms": _TIME,
            "policy": _POLICY,
            "c": Option(
                "c", 0.7, doc="UCB exploration constant", check=_number, expects="a number"
            ),
            "threads": _threads_option(
                "threads growing a tree each, each with its own time_ms of CPU time"
            ),
            **_WEIGHT_OPTIONS,
        },
        check=_check_spec("ismcts"),
    ),
)


@hookimpl
def register_bots(register: Callable[[BotSpec], None]) -> None:
    """Register the compiled bots."""
    for spec in SPECS:
        register(spec)
