"""What one seat may know of a round, as one object that also travels as msgpack: the
double-six games' :class:`Observation` and the train games' :class:`TrainObservation`.

In the core (issue 25), since ``Round.observation`` and the sampler build one; the public
names are ``bones.observation.Observation`` and ``bones.observation.TrainObservation``
(re-exported there)."""

from __future__ import annotations

import random
from typing import Any

import msgpack

from ..records import Event, Placement, unpack_message
from ..registry import variant as lookup_variant
from ..trains_records import (
    TRAIN_OBSERVATION_FIELDS,
    pack_train_observation,
    unpack_train_observation,
)
from .moves import END_NAMES, Move
from .round import Round, layout_geometry, points_after, pre_geometry_options
from .rules import compile_rules
from .seatview import SeatView
from .tiles import Tile
from .trains import TrainLayout, TrainMove, TrainRound, TrainSeatView
from .wideset import SetTile

SCHEMA_VERSION = 3  # 2: without opening, 1: without closed_ends either (both still read)


class Observation(SeatView):
    """Everything seat ``seat`` may know, and nothing more: its own hand, the table, the
    public events, hand sizes, the boneyard's size and the scores.  Other hands and the
    boneyard's order are never in it.  ``closed_ends`` names the ends the bounded table
    has closed; ``placements`` and ``table`` (docs/geometry.md) follow from the layout.
    ``opening`` says whether the variant's first-round opening rule chose the round's
    leader and lead, as everyone at the table knows (None: not known, in a message of an
    older schema).
    (The fields live in the compiled base class, so that ``Round.observation`` builds one
    without calling Python code.)"""

    seat: int
    side: int
    variant: str
    options: dict[str, Any]
    players: int
    hand: tuple[Tile, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    ends: tuple[tuple[str, int], ...]
    layout: tuple[Move, ...]
    count: int
    events: tuple[Event, ...]
    scores: tuple[int, ...]
    to_move: int | None
    legal_moves: tuple[Move, ...]
    closed_ends: tuple[str, ...]
    opening: bool | None

    #: The public fields, in msgpack order.
    FIELDS = (
        "seat",
        "side",
        "variant",
        "options",
        "players",
        "hand",
        "hand_sizes",
        "stock_size",
        "ends",
        "layout",
        "count",
        "events",
        "scores",
        "to_move",
        "legal_moves",
        "closed_ends",
        "opening",
    )
    #: Computed on first use, and unset until then (``Round.observation`` does not call
    #: ``__init__``): ``_points``, points_after of each legal move; ``_geometry``,
    #: layout_geometry of the layout.
    __slots__ = ("_points", "_geometry")
    _points: dict[Move, int]
    _geometry: tuple[Any, Any, Any]

    def __init__(
        self,
        *,
        seat: int,
        side: int,
        variant: str,
        options: dict[str, Any],
        players: int,
        hand: tuple[Tile, ...],
        hand_sizes: tuple[int, ...],
        stock_size: int,
        ends: tuple[tuple[str, int], ...],
        layout: tuple[Move, ...],
        count: int,
        events: tuple[Event, ...],
        scores: tuple[int, ...],
        to_move: int | None,
        legal_moves: tuple[Move, ...],
        closed_ends: tuple[str, ...] = (),
        opening: bool | None = None,
    ) -> None:
        self.seat = seat
        self.side = side
        self.variant = variant
        self.options = options
        self.players = players
        self.hand = hand
        self.hand_sizes = hand_sizes
        self.stock_size = stock_size
        self.ends = ends
        self.layout = layout
        self.count = count
        self.events = events
        self.scores = scores
        self.to_move = to_move
        self.legal_moves = legal_moves
        self.closed_ends = closed_ends
        self.opening = opening

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        hand = " ".join(map(str, self.hand))
        return (
            f"<Observation seat={self.seat} {self.variant} hand=[{hand}] "
            f"ends={dict(self.ends)} to_move={self.to_move}>"
        )

    @property
    def placements(self) -> tuple[Placement, ...]:
        """Where each tile of the layout lies, in play order (computed from the public
        layout, the variant and its options)."""
        return self._layout_geometry()[0]  # type: ignore[no-any-return]

    @property
    def table(self) -> tuple[int, int, int, int] | None:
        """The bounded table ``(x_min, y_min, x_max, y_max)`` in grid units, or None."""
        return self._layout_geometry()[1]  # type: ignore[no-any-return]

    def _layout_geometry(self) -> tuple[Any, Any, Any]:
        try:
            return self._geometry
        except AttributeError:
            geometry = layout_geometry(self.variant, self.players, self.options, self.layout)
            self._geometry = geometry
            return geometry

    def _repr_svg_(self) -> str:
        """The position as this seat sees it, as SVG (for notebooks; bones.render)."""
        from ..render.svg import svg_of

        return svg_of(self)

    def points_after(self, move: Move | str) -> int:
        """The points ``move`` would score for this seat's side now (the count rule — All
        Fives or Fives and Threes — or the variant's move_scorer, plus Fives and Threes'
        point for going out; 0 where moves do not score).  Computed from public
        information alone (the layout and the hand sizes), once for all the legal moves."""
        try:
            known = self._points
        except AttributeError:
            scores = points_after(
                self.variant,
                self.players,
                self.options,
                self.layout,
                self.legal_moves,
                self.scores[self.side],
                self.hand_sizes,
                self.seat,
            )
            known = self._points = dict(zip(self.legal_moves, scores, strict=True))
        if isinstance(move, str):
            move = Move.parse(move)
        if move in known:
            return known[move]
        return points_after(
            self.variant,
            self.players,
            self.options,
            self.layout,
            [move],
            self.scores[self.side],
            self.hand_sizes,
            self.seat,
        )[0]

    @property
    def is_over(self) -> bool:
        """Whether the round has ended (nobody is to move)."""
        return self.to_move is None

    @property
    def result(self) -> None:
        """None: a line game's observation does not carry the round's result (its
        schema predates it); ``Bot.end_round`` gets the result beside the final
        observation (docs/api.md)."""
        return None

    @property
    def legal_actions(self) -> list[int]:
        """The legal moves as indices of the variant's fixed action space (docs/envs.md),
        ascending: the same indices in every seat's view and in ``Round.legal_actions``."""
        from .actions import ActionSpace

        space = ActionSpace(self.variant, self.players, **self.options)
        return sorted(space.index(move) for move in self.legal_moves)

    def sample(self, rng: int | random.Random = 0, *, opening: bool | None = None) -> Round:
        """A full round drawn uniformly among the deals consistent with this observation,
        with the same moves played: ``obs.sample(seed).observation(obs.seat) == obs``.
        ``opening``: whether the round's leader came from the variant's first-round
        opening rule (None: the observation's own ``opening``, guessed only when that is
        not known; docs/sampler.md).  ``ValueError`` if no full deal explains the
        observation."""
        from .sampler import sample_round

        return sample_round(self, rng, opening=opening)

    def to_msgpack(self) -> bytes:
        """Bytes in the versioned schema of docs/serialization.md."""
        events = [
            [e.kind, e.seat, None if e.move is None else str(e.move), e.count, e.points]
            for e in self.events
        ]
        return msgpack.packb(
            [
                SCHEMA_VERSION,
                "observation",
                self.seat,
                self.side,
                self.variant,
                self.options,
                self.players,
                [str(t) for t in self.hand],
                list(self.hand_sizes),
                self.stock_size,
                [list(end) for end in self.ends],
                [str(m) for m in self.layout],
                self.count,
                events,
                list(self.scores),
                self.to_move,
                [str(m) for m in self.legal_moves],
                list(self.closed_ends),
                None if self.opening is None else bool(self.opening),
            ],
            use_bin_type=True,
        )

    @classmethod
    def from_msgpack(cls, data: bytes) -> Observation:
        """The observation encoded by ``to_msgpack``; bad bytes raise ValueError.

        Every field is type-checked and bounded before it is used: a seat, a side or a
        count outside the round's range, a tile or move that is not text, a variant or
        options that do not resolve, hand sizes that disagree with the hand, legal moves
        for a seat that is not to move, ... are all a ``ValueError`` naming the field."""
        obj = unpack_message(
            data,
            "not a bones observation",
            max_depth=_MAX_DEPTH,
            max_array_len=_MAX_ITEMS,
            max_map_len=64,
            max_str_len=256,
            max_bin_len=0,
            strict_map_key=False,  # hand_size={3: 5} has int keys
        )
        if isinstance(obj, list) and obj[1:2] == ["train_observation"]:
            raise ValueError(
                "a train game's observation (kind 'train_observation'), not a double-six "
                "one: read it with bones.observation.TrainObservation.from_msgpack"
            )
        if (
            not isinstance(obj, list)
            or type(obj[0] if obj else None) is not int
            or obj[1:2] != ["observation"]
            or obj[0] not in (1, 2, SCHEMA_VERSION)
            or len(obj) != 16 + obj[0]
        ):
            raise ValueError(
                f"not a bones observation (schema 1 to {SCHEMA_VERSION}): wrong header or length"
            )
        try:
            return _decode(cls, obj)
        except _Corrupt as exc:
            raise ValueError(f"corrupt bones observation: {exc}") from None


Observation.__module__ = "bones.observation"  # its public name (re-exported there)


# ---------------------------------------------------------------------------------------
# Decoding


_MAX_DEPTH = 3  # the message, the events, one event (options: the map, hand_size's map)
_MAX_ITEMS = 1024  # events of a round: at most a few hundred
_INT32 = (1 << 31) - 1
_MAX_SCORE = 1_000_000_000  # the largest game score a round accepts (either sign)
_EVENT_KINDS = ("play", "draw", "pass", "muggins")


class _Corrupt(Exception):
    """A field that is not what the schema says (turned into ValueError)."""


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Corrupt(f"{what} must be an int; got {type(value).__name__}")
    if not low <= value <= high:
        raise _Corrupt(f"{what} must be from {low} to {high}; got {value}")
    return value


def _list(value: Any, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _Corrupt(f"{what} must be a list; got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise _Corrupt(f"{what} must have {length} entries; got {len(value)}")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _Corrupt(f"{what} must be text; got {type(value).__name__}")
    return value


def _move(value: Any, what: str) -> Move:
    try:
        return Move.parse(_text(value, what))
    except ValueError as exc:
        raise _Corrupt(f"{what}: {exc}") from None


def _tile(value: Any, what: str) -> Tile:
    try:
        return Tile.parse(_text(value, what))
    except ValueError as exc:
        raise _Corrupt(f"{what}: {exc}") from None


def _decode(cls: type[Observation], obj: list[Any]) -> Observation:
    (_, _, seat, side, variant, options, players, hand, sizes, stock, ends, layout,
     count, events, scores, to_move, legal) = obj[:17]  # fmt: skip
    closed = _list(obj[17], "closed_ends") if len(obj) > 17 else []
    opening = obj[18] if len(obj) > 18 else None
    if opening is not None and not isinstance(opening, bool):
        raise _Corrupt("opening must be true, false or nil")
    if any(not isinstance(name, str) or name not in END_NAMES for name in closed) or len(
        set(closed)
    ) != len(closed):
        raise _Corrupt("closed_ends must be distinct end names")
    variant = _text(variant, "variant")
    if not isinstance(options, dict) or any(not isinstance(k, str) for k in options):
        raise _Corrupt("options must be a map with text keys")
    if len(obj) == 17:  # version 1, before the bounded table: played unbounded
        try:
            options = pre_geometry_options(variant, options)
        except ValueError as exc:  # an unknown variant
            raise _Corrupt(str(exc)) from None
    players = _int(players, "players", 2, 4)
    try:
        lookup_variant(variant).resolve_options(players, options)  # before the core does
        rules = compile_rules(variant, players, options)
        sides = rules.sides
    except ValueError as exc:  # OptionError: unknown variant, option or value
        raise _Corrupt(str(exc)) from None
    seat = _int(seat, "seat", 0, players - 1)
    side = _int(side, "side", 0, len(sides) - 1)
    if seat not in sides[side]:
        raise _Corrupt(f"seat {seat} is not on side {side}")
    hand_tiles = tuple(_tile(t, f"hand[{i}]") for i, t in enumerate(_list(hand, "hand")))
    hand_sizes = tuple(
        _int(n, f"hand_sizes[{i}]", 0, 28)
        for i, n in enumerate(_list(sizes, "hand_sizes", players))
    )
    if hand_sizes[seat] != len(hand_tiles) or len(set(hand_tiles)) != len(hand_tiles):
        raise _Corrupt(f"the hand ({len(hand_tiles)} distinct tiles) disagrees with hand_sizes")
    stock_size = _int(stock, "stock_size", 0, 28)
    layout_moves = tuple(_move(m, f"layout[{i}]") for i, m in enumerate(_list(layout, "layout")))
    placed = [t for m in layout_moves for t in (m.tile, m.tile2) if t is not None]
    if len(placed) != len(layout_moves) + sum(m.tile2 is not None for m in layout_moves) or len(
        set(placed) | set(hand_tiles)
    ) != len(placed) + len(hand_tiles):
        raise _Corrupt("the layout must hold placements of distinct tiles not in the hand")
    if sum(hand_sizes) + stock_size + len(placed) > 28:
        raise _Corrupt("hands, boneyard and layout hold more than the 28 tiles")
    end_list: list[tuple[str, int]] = []
    for i, end in enumerate(_list(ends, "ends")):
        name, value = _list(end, f"ends[{i}]", 2)
        if len(_text(name, f"ends[{i}] name")) > 3:
            raise _Corrupt(f"ends[{i}] name is too long")
        end_list.append((name, _int(value, f"ends[{i}] number", 0, 6)))
    count = _int(count, "count", 0, 255)
    event_list: list[Event] = []
    for i, event in enumerate(_list(events, "events")):
        kind, who, move, n, points = _list(event, f"events[{i}]", 5)
        if kind not in _EVENT_KINDS or not isinstance(kind, str):
            raise _Corrupt(f"events[{i}] kind must be one of {', '.join(_EVENT_KINDS)}")
        event_list.append(
            Event(
                kind,
                _int(who, f"events[{i}] seat", 0, players - 1),
                None if move is None else _move(move, f"events[{i}] move"),
                _int(n, f"events[{i}] count", 0, 255),
                _int(points, f"events[{i}] points", -_INT32, _INT32),
            )
        )
    score_list = tuple(
        _int(x, f"scores[{i}]", -_MAX_SCORE, _MAX_SCORE)
        for i, x in enumerate(_list(scores, "scores", len(sides)))
    )
    mover = None if to_move is None else _int(to_move, "to_move", 0, players - 1)
    legal_moves = tuple(
        _move(m, f"legal_moves[{i}]") for i, m in enumerate(_list(legal, "legal_moves"))
    )
    if bool(legal_moves) != (mover == seat):
        raise _Corrupt("legal_moves are given exactly when this seat is to move")
    if len(set(legal_moves)) != len(legal_moves):
        raise _Corrupt("legal_moves repeat a move")
    for move in legal_moves:
        if any(t is not None and t not in hand_tiles for t in (move.tile, move.tile2)):
            raise _Corrupt(f"legal move {move} places a tile that is not in the hand")
    obs = cls(
        seat=seat,
        side=side,
        variant=variant,
        options=dict(options),
        players=players,
        hand=hand_tiles,
        hand_sizes=hand_sizes,
        stock_size=stock_size,
        ends=tuple(end_list),
        layout=layout_moves,
        count=count,
        events=tuple(event_list),
        scores=score_list,
        to_move=mover,
        legal_moves=legal_moves,
        closed_ends=tuple(closed),
        opening=opening,
    )
    if opening and not rules.opening_rule:
        raise _Corrupt(f"opening is true, but {variant} has no opening rule here")
    try:  # the closed ends are those the layout closes
        if layout_geometry(variant, players, options, layout_moves)[2] != obs.closed_ends:
            raise _Corrupt("closed_ends disagree with the ends the layout closes")
    except ValueError as exc:  # a layout the rules cannot build
        raise _Corrupt(str(exc)) from None
    try:  # the layout must be one the rules can build, and the legal moves must fit it
        if legal_moves and lookup_variant(variant).move_scorer is None:
            obs.points_after(legal_moves[0])  # scores them all, once
        else:  # a plugin's Python scorer is not run on untrusted bytes: the layout only
            points_after(variant, players, options, layout_moves, (), score_list[side])
    except ValueError as exc:
        raise _Corrupt(str(exc)) from None
    return obs


class TrainObservation(TrainSeatView):
    """What ``seat`` may know of a train round (Mexican Train, Chicken Foot): its own hand,
    everyone's hand sizes, the stock's size (not its order), the public layout and the
    round's log, in which only this seat's own draws show the tile drawn.  Made by
    ``TrainRound.observation(seat)`` in O(1) (the fields live in the compiled base class
    and are made when first read), or from its fields (``TrainObservation(seat=...,
    ...)``, every field of :data:`bones.trains_records.TRAIN_OBSERVATION_FIELDS` by name).

    As in :class:`Observation`, ``hand`` holds tiles (:class:`bones.core.wideset.SetTile`,
    the type of ``legal_moves[i].tile``) and ``legal_moves`` the moves (``TrainMove``) that
    ``choose`` gets; ``str()`` of either is its text.  docs/bots.md lists the fields.
    """

    __slots__ = ()

    #: The fields, in msgpack order (``layout`` is the table's name there: ``layout_name``).
    FIELDS = TRAIN_OBSERVATION_FIELDS
    #: The fields a message of the first schema lacked: optional by name.
    OPTIONAL = ("variant", "options", "scores")

    def __init__(self, **fields: Any) -> None:
        required = set(TRAIN_OBSERVATION_FIELDS) - set(self.OPTIONAL)
        if not required <= set(fields) <= set(TRAIN_OBSERVATION_FIELDS):
            missing = sorted(required - set(fields))
            extra = sorted(set(fields) - set(TRAIN_OBSERVATION_FIELDS))
            raise TypeError(
                f"TrainObservation: give every field by name (missing {missing}, unknown {extra})"
            )
        layout = fields["layout"]
        if isinstance(layout, TrainLayout):  # the attribute as read: its table's name
            fields["layout"] = layout.name
        self._give(**fields)

    def _field(self, name: str) -> Any:
        return self.layout_name if name == "layout" else getattr(self, name)

    def _fields(self) -> tuple[Any, ...]:
        return tuple(self._field(name) for name in TRAIN_OBSERVATION_FIELDS if name != "options")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrainObservation):
            return NotImplemented
        return self._fields() == other._fields() and self.options == other.options

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={self._field(n)!r}" for n in TRAIN_OBSERVATION_FIELDS)
        return f"TrainObservation({inner})"

    @property
    def legal_actions(self) -> list[int]:
        """The legal moves as indices of the variant's fixed action space (docs/envs.md),
        ascending: the same indices as the round's ``legal_actions``."""
        from ..registry import family_of

        space = family_of(self.variant).part("action_space")(
            self.variant, self.players, **self.options
        )
        return sorted(space.index(move) for move in self.legal_moves)

    def sample(self, rng: int | random.Random = 0) -> TrainRound:
        """A full round drawn uniformly among the deals consistent with this observation
        (``bones.core.trainsample.TrainSampler``), with the same moves played:
        ``obs.sample(seed).observation(obs.seat) == obs``.  The observing seat must be
        the seat to move (the sampler rebuilds its position); ``ValueError`` otherwise, or
        when the position is beyond the exact sampler's table (docs/sampler.md)."""
        from .trainsample import TrainSampler

        seed = rng.getrandbits(64) if isinstance(rng, random.Random) else rng
        hands, stock = TrainSampler(self).full_deal(seed)
        return TrainRound.from_deal(
            self.layout_name,
            set_max=self.set_max,
            hands=hands,
            stock=stock,
            engine=self.engine,
            leader=self.leader,
            zero_double=self.zero_double,
            first_turn_own_train=self.first_turn_own_train,
            engine_toes=self.engine_toes,
            moves=[str(m) for m in self.layout],
            variant=self.variant,
            scores=self.scores,
            options=self.options,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (TrainObservation.from_msgpack, (self.to_msgpack(),))

    def _repr_svg_(self) -> str:
        """The position as this seat sees it, as SVG (for notebooks; bones.render)."""
        from ..render.trains_svg import train_svg_of

        return train_svg_of(self)

    def points_after(self, move: object) -> int:
        """What ``move`` scores now: nothing, in a train game (its penalties come at the
        end of the round); as :meth:`Observation.points_after` for the bots that rank
        moves by it."""
        return 0

    def to_msgpack(self) -> bytes:
        """This observation as msgpack: the array ``[1, "train_observation", seat, ...]``
        of :data:`bones.trains_records.TRAIN_OBSERVATION_FIELDS` (docs/protocol.md, "The
        train observation"), tiles and moves as their text.  What the protocol sends a bot
        of a train game; :meth:`from_msgpack` reads it."""
        return pack_train_observation(self)

    @classmethod
    def from_msgpack(cls, data: bytes) -> TrainObservation:
        """The observation in ``data`` (:meth:`to_msgpack`'s bytes), checked field by field
        (:func:`bones.trains_records.unpack_train_observation`); anything else raises
        ValueError naming the field (never another exception)."""
        fields = unpack_train_observation(data)
        fields["hand"] = tuple(SetTile.parse(t) for t in fields["hand"])
        fields["legal_moves"] = tuple(TrainMove.parse(m) for m in fields["legal_moves"])
        return cls(**fields)
