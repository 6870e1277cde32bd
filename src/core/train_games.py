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
from typing import Any

from ..errors import OptionError
from ..variant import SET_MAX, Variant, brief
from .round import derive_seed
from .trains import TrainRound

__all__ = ["core_arguments", "deal", "from_deal"]

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
    variant: Variant,
    players: int,
    seed: int,
    leader: int | None,
    lead_tile: object,
    scores: Sequence[int] | None,
    options: Mapping[Any, Any],
) -> TrainRound:
    """``Round.deal`` of a train variant: a random deal from ``seed``.  ``leader=None``
    draws the leader by lot from ``seed`` (the rule of a game's first round)."""
    _no_lead_tile(variant, lead_tile)
    args = core_arguments(variant, players, options)
    if leader is None:
        leader = (derive_seed(seed, _STREAM_LEADER, 0) * players) >> 63
    return TrainRound.deal(
        players=players, leader=leader, seed=seed, scores=scores, options=dict(options), **args
    )


def from_deal(
    variant: Variant,
    hands: Sequence[Iterable[Any]],
    stock: Iterable[Any],
    leader: int | None,
    lead_tile: object,
    scores: Sequence[int] | None,
    moves: Iterable[Any] | None,
    partial: bool,
    options: Mapping[Any, Any],
) -> TrainRound:
    """``Round.from_deal`` of a train variant: the explicit deal, ``leader`` seat 0 unless
    given, ``moves`` replayed."""
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
