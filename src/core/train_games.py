"""The train games as variants: what ``bones.Round.deal`` and ``Round.from_deal`` of a
variant of the ``trains`` or ``chicken_foot`` family do.

A train variant's resolved options become the arguments of the wide-set core
(:class:`bones.core.trains.TrainRound`).  Besides the variant's options a round takes one
argument of its own, ``engine``: the number of its engine double (the set's highest by
default; a game gives round ``i`` the engine ``highest - i``, docs/game.md).

In the core (issue 25), since ``Round.deal`` hands a train variant over to it; its public
name is ``bones.train_games`` (re-exported there).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ..errors import OptionError
from ..records import msgpack_head
from ..registry import variant as lookup
from ..trains_records import TRAIN_KIND
from ..variant import SET_MAX, Variant, brief
from .round import derive_seed
from .trains import SCHEMA, TrainRound, random_playouts

__all__ = [
    "TrainRules",
    "core_arguments",
    "deal",
    "from_deal",
    "is_observation_bytes",
    "is_round_bytes",
    "playouts",
    "rules_of",
]


class TrainRules(NamedTuple):
    """A train round's rules (``TrainRound.rules``), as a line round's compiled rules:
    the ``variant``, its ``name``, the ``players``, the options as given (``overrides``)
    and every option resolved (``options``)."""

    variant: Variant
    name: str
    players: int
    overrides: dict[str, Any]
    options: dict[str, Any]


def rules_of(name: str, players: int, overrides: Mapping[str, Any]) -> TrainRules:
    """The :class:`TrainRules` of variant ``name`` with ``players`` and ``overrides``."""
    spec = lookup(name)
    given = {k: v for k, v in overrides.items() if k != "engine"}
    resolved = spec.resolve_options(players, given)
    return TrainRules(spec, spec.name, players, dict(overrides), resolved)


_STREAM_LEADER = 3  # the seed stream of a round's leader drawn by lot


def core_arguments(variant: Variant, players: object, options: Mapping[Any, Any]) -> dict[str, Any]:
    """The keyword arguments of ``TrainRound.deal``/``from_deal`` for ``variant`` with
    ``players`` and ``options`` (the variant's options plus ``engine``); OptionError
    naming the variant and the option for anything not allowed."""
    options = dict(options)
    engine = options.pop("engine", None)
    resolved = variant.resolve_options(players, options)
    top = SET_MAX[resolved["set"]]
    if engine is None:
        engine = top
    elif type(engine) is not int or not 0 <= engine <= top:
        raise OptionError(
            f"{variant.name}: 'engine' must be an int from 0 to {top} (the {resolved['set']} "
            f"set's doubles); got {brief(engine)}"
        )
    args: dict[str, Any] = {
        "layout": variant.base,
        "set_max": top,
        "engine": engine,
        "zero_double": resolved["zero_double"],
        "variant": variant.name,
    }
    if variant.base == "trains":
        args["first_turn_own_train"] = resolved["first_turn_own_train"]
    else:
        args["engine_toes"] = resolved["engine_toes"]
    args["hand_size"] = resolved["hand_size"]
    return args


def _no_lead_tile(variant: Variant, lead_tile: object) -> None:
    if lead_tile is not None:
        raise OptionError(
            f"{variant.name}: a train round has no lead tile (its engine double is on the "
            f"table from the start: give 'engine'); got lead_tile={brief(lead_tile)}"
        )


def deal(
    variant: str | Variant,
    players: int = 4,
    seed: int = 0,
    leader: int | None = None,
    lead_tile: object = None,
    scores: Sequence[int] | None = None,
    **options: Any,
) -> TrainRound:
    """``Round.deal`` of a train variant (a name or a Variant): a random deal from
    ``seed``.  ``leader=None`` draws the leader by lot from ``seed`` (the rule of a game's
    first round)."""
    variant = lookup(variant)
    _no_lead_tile(variant, lead_tile)
    args = core_arguments(variant, players, options)
    if leader is None:
        leader = (derive_seed(seed, _STREAM_LEADER, 0) * players) >> 63
    return TrainRound.deal(
        players=players, leader=leader, seed=seed, scores=scores, options=dict(options), **args
    )


def from_deal(
    variant: str | Variant,
    hands: Sequence[Iterable[Any]],
    stock: Iterable[Any] = (),
    leader: int | None = None,
    lead_tile: object = None,
    scores: Sequence[int] | None = None,
    moves: Iterable[Any] | None = None,
    seed: int = 0,
    partial: bool = False,
    **options: Any,
) -> TrainRound:
    """``Round.from_deal`` of a train variant (a name or a Variant): the explicit deal,
    ``leader`` seat 0 unless given, ``moves`` replayed.  ``seed`` draws nothing here: a
    train round's leader is given, never drawn from an explicit deal."""
    variant = lookup(variant)
    _no_lead_tile(variant, lead_tile)
    args = core_arguments(variant, len(hands), options)
    del args["hand_size"]  # the hands say it
    try:
        return TrainRound.from_deal(
            hands=hands,
            stock=stock,
            leader=0 if leader is None else leader,
            scores=scores,
            moves=moves,
            partial=partial,
            options=dict(options),
            **args,
        )
    except (ValueError, TypeError) as exc:
        if type(exc) not in (ValueError, TypeError):
            raise  # an OptionError or IllegalMove says what it says
        # the core's message names the argument (hands[0][1], stock, moves[3]); the
        # variant and its set make it say which game: "tile 12-0 is not in the double-6 set"
        raise type(exc)(f"{variant.name} (set double-{args['set_max']}): {exc}") from None


def is_round_bytes(data: object) -> bool:
    """Whether ``data`` starts like ``TrainRound.to_msgpack``'s bytes: ``["bones.trainround",
    version, ...]``."""
    head = msgpack_head(data)
    return head is not None and head[0] == SCHEMA


def is_observation_bytes(data: object) -> bool:
    """Whether ``data`` starts like ``TrainObservation.to_msgpack``'s bytes: ``[version,
    "train_observation", ...]``."""
    head = msgpack_head(data)
    return head is not None and type(head[0]) is int and head[1] == TRAIN_KIND


def playouts(
    variant: Variant, players: int, rounds: int, seed: int, options: Mapping[Any, Any]
) -> dict[str, Any]:
    """``rounds`` random playouts in the wide-set core, the GIL released: ``{"rounds",
    "moves", "blocked", "seconds"}`` (``moves``: placements)."""
    args = core_arguments(variant, players, options)
    del args["variant"]
    res = random_playouts(n_rounds=rounds, players=players, seed=seed, **args)
    return {
        "rounds": res["rounds"],
        "moves": res["plies"],
        "blocked": res["blocked"],
        "seconds": res["seconds"],
    }
