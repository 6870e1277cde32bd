"""Plain records of the train games (``bones.core.trains``): a round's result, and the
msgpack of what one seat may know of a round (``bones.observation.TrainObservation``)."""

from __future__ import annotations

import re
from typing import Any, Literal

import msgpack

from .records import RoundResult

#: Why a train round ended (:attr:`TrainResult.reason`).
TrainReason = Literal["out", "blocked"]

#: One event of a round: ``(kind, seat, tile, target)``; kind is ``"place"`` (tile and
#: target given), ``"draw"`` (the tile only where the viewer may see it, else None) or
#: ``"pass"`` (tile and target None).
TrainEvent = tuple[str, int, "str | None", "str | None"]


class TrainResult(RoundResult):
    """How a train round ended: a :class:`bones.RoundResult` (every seat is a side of its
    own), so the referee, the game and the journal treat a train round like any other.

    ``reason``: ``"out"`` (a placement emptied the hand of ``out_seat``, the round's only
    winner) or ``"blocked"`` (the stock is empty and no seat can place; the seats
    with the lowest penalty win, ``out_seat`` is None).  ``points`` and ``values``: per
    seat, the penalty, the pips left in its hand (0-0 counts the round's ``zero_double``);
    the lowest total over a game wins.  ``last_seat``: the seat that placed the last tile
    (the leader when nobody placed one).
    """

    __slots__ = ()

    @property
    def out_seat(self) -> int | None:
        """The seat that went out, or None after a block."""
        return self.winners[0] if self.reason == "out" else None

    @property
    def penalties(self) -> tuple[int, ...]:
        """Per seat, the pips left in its hand (``points``)."""
        return self.points


def pack_train_observation(obs: Any) -> bytes:
    """A train observation (``bones.observation.TrainObservation``) as msgpack: the array
    ``[1, "train_observation", seat, ...]`` of :data:`TRAIN_OBSERVATION_FIELDS`
    (docs/protocol.md, "The train observation"); tiles and moves as their text."""
    r = obs.result
    result = None
    if r is not None:
        result = {
            "reason": r.reason,
            "winners": list(r.winners),
            "points": list(r.points),
            "values": list(r.values),
            "last_seat": r.last_seat,
        }
    return _PACKER.pack(
        [
            TRAIN_SCHEMA_VERSION,
            TRAIN_KIND,
            obs.seat,
            obs.layout_name,
            obs.set_max,
            obs.engine,
            obs.players,
            obs.leader,
            obs.to_move,
            [str(t) for t in obs.hand],
            list(obs.hand_sizes),
            obs.stock_size,
            [list(t) for t in obs.trains],
            obs.pending,
            [list(e) for e in obs.open_ends],
            [list(p) for p in obs.placements],
            [list(e) for e in obs.log],
            [str(m) for m in obs.legal_moves],
            obs.zero_double,
            obs.first_turn_own_train,
            obs.engine_toes,
            result,
            obs.variant,
            obs.options,
            list(obs.scores),
        ]
    )


def unpack_train_observation(data: object) -> dict[str, Any]:
    """The fields of the train observation in ``data`` (:func:`pack_train_observation`'s
    bytes) by name, checked field by field: sizes bounded by the set, types exact, numbers
    in range, tiles and targets of the set and the layout, the log consistent with what
    this seat may see.  ``hand`` and ``legal_moves`` are texts here (the core makes them
    tiles and moves).  Anything else raises ValueError naming the field (never another
    exception)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"a train observation is bytes, not {type(data).__name__}")
    if len(data) > MAX_TRAIN_OBSERVATION_BYTES:
        raise ValueError(
            f"{len(data)} bytes is too long for a train observation "
            f"(at most {MAX_TRAIN_OBSERVATION_BYTES})"
        )
    try:
        obj = msgpack.unpackb(
            bytes(data),
            raw=False,
            max_str_len=64,
            max_bin_len=0,
            max_array_len=4096,
            max_map_len=_MAX_OPTIONS,
            max_ext_len=0,
            strict_map_key=False,  # a per-player option's map; _decode checks every key
        )
    except Exception as exc:  # msgpack raises several unrelated types
        raise ValueError(f"not a bones train observation: {exc}") from None
    try:
        return _decode(obj)
    except _Bad as exc:
        raise ValueError(f"corrupt bones train observation: {exc}") from None


#: The msgpack schema of a train observation: its version and kind (items 0 and 1).
#: Version 2 added ``variant``, ``options`` and ``scores``; version 1 is still read (its
#: variant is the layout's built-in one, no options, every score 0).
TRAIN_SCHEMA_VERSION = 2
TRAIN_KIND = "train_observation"
#: The fields of a train observation (``bones.observation.TrainObservation``), in msgpack
#: order after the version and the kind.
TRAIN_OBSERVATION_FIELDS = (
    "seat",
    "layout",
    "set_max",
    "engine",
    "players",
    "leader",
    "to_move",
    "hand",
    "hand_sizes",
    "stock_size",
    "trains",
    "pending",
    "open_ends",
    "placements",
    "log",
    "legal_moves",
    "zero_double",
    "first_turn_own_train",
    "engine_toes",
    "result",
    "variant",
    "options",
    "scores",
)
#: The fields version 1 had (the first of TRAIN_OBSERVATION_FIELDS).
_V1_FIELDS = 20
#: Bounds of the fields version 2 added: a variant's name, its overrides, the scores.
_MAX_NAME = 64
_MAX_OPTIONS = 32
_MAX_SCORE = 1_000_000
#: No train observation comes near this (a double-12 round's log is a few KiB).
MAX_TRAIN_OBSERVATION_BYTES = 1 << 17

_PACKER = msgpack.Packer(use_bin_type=True, autoreset=True)
_TILE = re.compile(r"(0|[1-9][0-9]?)-(0|[1-9][0-9]?)")
_SEAT_TARGET = re.compile(r"P([0-7])")
_LAYOUTS = ("trains", "chicken_foot")
_SET_SIZES = {6: 28, 9: 55, 12: 91}


class _Bad(Exception):
    """A field of a train observation that is wrong (its message names it)."""


def _int(value: Any, what: str, low: int, high: int) -> int:
    if type(value) is not int:
        raise _Bad(f"{what} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise _Bad(f"{what} must be {low} to {high}, not {value}")
    return value


def _list(value: Any, what: str, limit: int, length: int | None = None) -> list[Any]:
    if type(value) is not list:
        raise _Bad(f"{what} must be an array, not {type(value).__name__}")
    if len(value) > limit:
        raise _Bad(f"{what} has {len(value)} items: at most {limit}")
    if length is not None and len(value) != length:
        raise _Bad(f"{what} must have {length} items, not {len(value)}")
    return value


def _tile(value: Any, what: str, set_max: int) -> str:
    """A tile of the double-``set_max`` set, written canonically (higher half first)."""
    if type(value) is not str:
        raise _Bad(f"{what} must be a tile's text, not {type(value).__name__}")
    m = _TILE.fullmatch(value)
    if m is None or not set_max >= int(m[1]) >= int(m[2]):
        raise _Bad(f"{what}: {value[:20]!r} is not a tile of the double-{set_max} set")
    return value


def _target(value: Any, what: str, layout: str, set_max: int, players: int) -> str:
    """A placement target: ``M`` or ``P<seat>`` (trains), an anchor tile (chicken_foot)."""
    if type(value) is not str:
        raise _Bad(f"{what} must be a target's text, not {type(value).__name__}")
    if layout == "chicken_foot":
        return _tile(value, what, set_max)
    m = _SEAT_TARGET.fullmatch(value)
    if value != "M" and (m is None or int(m[1]) >= players):
        raise _Bad(f"{what}: {value[:20]!r} is not M or P0 to P{players - 1}")
    return value


def _decode(obj: Any) -> dict[str, Any]:
    if type(obj) is not list or len(obj) < 2:
        raise _Bad(f"not an array of {len(TRAIN_OBSERVATION_FIELDS) + 2} items")
    if type(obj[0]) is not int or obj[0] not in (1, TRAIN_SCHEMA_VERSION) or obj[1] != TRAIN_KIND:
        raise _Bad(
            f"the header is {str(obj[0])[:20]!r}, {str(obj[1])[:30]!r}, not "
            f"1 or {TRAIN_SCHEMA_VERSION}, {TRAIN_KIND!r}"
        )
    n_fields = _V1_FIELDS if obj[0] == 1 else len(TRAIN_OBSERVATION_FIELDS)
    if len(obj) != n_fields + 2:
        raise _Bad(f"not an array of {n_fields + 2} items")
    (seat, layout, set_max, engine, players, leader, to_move, hand, hand_sizes, stock_size,
     trains, pending, open_ends, placements, log, legal, zero_double, first_turn, toes,
     result) = obj[2 : 2 + _V1_FIELDS]  # fmt: skip
    variant, options, scores = obj[2 + _V1_FIELDS :] or (None, {}, None)
    if type(layout) is not str or layout not in _LAYOUTS:
        raise _Bad(f"layout must be 'trains' or 'chicken_foot', not {str(layout)[:20]!r}")
    chicken = layout == "chicken_foot"
    if type(set_max) is not int or set_max not in _SET_SIZES:
        raise _Bad(f"set_max must be 6, 9 or 12, not {str(set_max)[:20]!r}")
    tiles = _SET_SIZES[set_max]
    engine = _int(engine, "engine", 0, set_max)
    players = _int(players, "players", 2, 8)
    seat = _int(seat, "seat", 0, players - 1)
    leader = _int(leader, "leader", 0, players - 1)
    if to_move is not None:
        to_move = _int(to_move, "to_move", 0, players - 1)
    hand = tuple(_tile(t, "hand", set_max) for t in _list(hand, "hand", tiles))
    if len(set(hand)) != len(hand):
        raise _Bad("hand holds a tile twice")
    sizes = tuple(
        _int(n, "hand_sizes", 0, tiles) for n in _list(hand_sizes, "hand_sizes", 8, players)
    )
    if sizes[seat] != len(hand):
        raise _Bad(f"hand_sizes[{seat}] is {sizes[seat]} but the hand has {len(hand)} tiles")
    stock_size = _int(stock_size, "stock_size", 0, tiles)
    if sum(sizes) + stock_size > tiles - 1:
        raise _Bad(f"the hands and the stock hold more than the set's {tiles - 1} tiles")
    got_trains = []
    for t in _list(trains, "trains", 9, 0 if chicken else players + 1):
        item = _list(t, "a train", 3, 3)
        if type(item[2]) is not bool:
            raise _Bad("a train's public flag must be a bool")
        got_trains.append(
            (
                _int(item[0], "a train's open number", 0, set_max),
                _int(item[1], "a train's length", 0, tiles),
                item[2],
            )  # fmt: skip
        )
    if pending is not None:
        pending = _target(pending, "pending", layout, set_max, players)
    ends = []
    for e in _list(open_ends, "open_ends", tiles + 9):
        item = _list(e, "an open end", 2, 2)
        ends.append(
            (
                _target(item[0], "an open end", layout, set_max, players),
                _int(item[1], "an open end's number", 0, set_max),
            )  # fmt: skip
        )
    placed = []
    for p in _list(placements, "placements", tiles):
        item = _list(p, "a placement", 3, 3)
        placed.append(
            (
                _int(item[0], "a placement's seat", 0, players - 1),
                _tile(item[1], "a placement's tile", set_max),
                _target(item[2], "a placement's target", layout, set_max, players),
            )  # fmt: skip
        )
    events: list[TrainEvent] = []
    for e in _list(log, "log", 4096):
        item = _list(e, "a log event", 4, 4)
        kind, who, tile, target = item
        who = _int(who, "a log event's seat", 0, players - 1)
        event: TrainEvent
        if kind == "place":
            event = (
                kind,
                who,
                _tile(tile, "a placed tile", set_max),
                _target(target, "a placement's target", layout, set_max, players),
            )
        elif kind == "draw" and target is None:
            if tile is not None and who != seat:
                raise _Bad(
                    f"the log shows a tile drawn by seat {who}, which seat {seat} never sees"
                )
            event = (
                kind,
                who,
                None if tile is None else _tile(tile, "a drawn tile", set_max),
                None,
            )
        elif kind == "pass" and tile is None and target is None:
            event = (kind, who, None, None)
        else:
            raise _Bad(f"a log event [{str(kind)[:10]!r}, ...] is not a place, draw or pass")
        events.append(event)
    if [e[1:] for e in events if e[0] == "place"] != placed:
        raise _Bad("placements differ from the log's place events")
    moves = []
    for text in _list(legal, "legal_moves", tiles * 9):
        if type(text) is not str or text.count("@") != 1:
            raise _Bad(f"a legal move {str(text)[:30]!r} is not TILE@TARGET")
        tile, _, target = text.partition("@")
        _tile(tile, "a legal move's tile", set_max)
        _target(target, "a legal move's target", layout, set_max, players)
        if tile not in hand:
            raise _Bad(f"the legal move {text!r} places a tile the hand does not hold")
        moves.append(text)
    if moves and to_move != seat:
        raise _Bad("legal_moves are given to a seat that is not to move")
    if len(set(moves)) != len(moves):
        raise _Bad("a legal move is given twice")
    if type(zero_double) is not int or zero_double not in (0, 50):
        raise _Bad(f"zero_double must be 0 or 50, not {str(zero_double)[:20]!r}")
    if type(first_turn) is not bool or (first_turn and chicken):
        raise _Bad("first_turn_own_train must be a bool, and false in chicken_foot")
    if type(toes) is not int or toes not in (4, 6) or (toes != 4 and not chicken):
        raise _Bad("engine_toes must be 4 or 6 (4, the default, in the trains layout)")
    return dict(
        seat=seat,
        layout=layout,
        set_max=set_max,
        engine=engine,
        players=players,
        leader=leader,
        to_move=to_move,
        hand=hand,
        hand_sizes=sizes,
        stock_size=stock_size,
        trains=tuple(got_trains),
        pending=pending,
        open_ends=tuple(ends),
        placements=tuple(placed),
        log=tuple(events),
        legal_moves=tuple(moves),
        zero_double=zero_double,
        first_turn_own_train=first_turn,
        engine_toes=toes,
        result=_result(result, players, to_move),
        variant=_variant_name(variant),
        options=_options(options),
        scores=(0,) * players if scores is None else _scores(scores, players),
    )


def _variant_name(value: Any) -> str | None:
    if value is None:
        return None
    if type(value) is not str or not 0 < len(value) <= _MAX_NAME:
        raise _Bad(f"variant must be a name of 1 to {_MAX_NAME} characters")
    return value


def _options(value: Any) -> dict[str, Any]:
    if type(value) is not dict or len(value) > _MAX_OPTIONS:
        raise _Bad(f"options must be a map of at most {_MAX_OPTIONS} options by name")
    for key, item in value.items():
        if type(key) is not str:
            raise _Bad("options must be named by strings")
        per_players = item.items() if type(item) is dict else ((2, item),)
        for count, one in per_players:  # a value, or a value per player count
            if type(count) is not int or (type(one) not in _SCALARS and one is not None):
                raise _Bad(
                    f"option {key[:20]!r} must be a string, a number, a bool, nil or a map "
                    "of player counts to those"
                )
    return dict(value)


_SCALARS = (str, int, bool, float)


def _scores(value: Any, players: int) -> tuple[int, ...]:
    return tuple(
        _int(x, "scores", -_MAX_SCORE, _MAX_SCORE) for x in _list(value, "scores", players, players)
    )


def _result(value: Any, players: int, to_move: int | None) -> TrainResult | None:
    if (value is None) == (to_move is None):
        raise _Bad("a round has a result exactly when no seat is to move (to_move nil)")
    if value is None:
        return None
    if type(value) is not dict or set(value) != {
        "reason",
        "winners",
        "points",
        "values",
        "last_seat",
    }:
        raise _Bad("result must be a map of reason, winners, points, values and last_seat")
    reason = value["reason"]
    if reason not in ("out", "blocked") or type(reason) is not str:
        raise _Bad(f"result.reason must be 'out' or 'blocked', not {str(reason)[:20]!r}")
    winners = tuple(
        _int(w, "result.winners", 0, players - 1)
        for w in _list(value["winners"], "result.winners", players)
    )
    if (
        not winners
        or list(winners) != sorted(set(winners))
        or (reason == "out" and len(winners) > 1)
    ):
        raise _Bad("result.winners must be distinct seats, ascending (one when a seat went out)")
    points = tuple(
        _int(p, "result.points", 0, 1 << 20)
        for p in _list(value["points"], "result.points", 8, players)
    )
    values = tuple(
        _int(p, "result.values", 0, 1 << 20)
        for p in _list(value["values"], "result.values", 8, players)
    )
    last = _int(value["last_seat"], "result.last_seat", 0, players - 1)
    return TrainResult("out" if reason == "out" else "blocked", winners, points, values, last)
