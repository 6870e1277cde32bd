"""What one seat may know of a round, as one object that also travels as msgpack."""

from __future__ import annotations

from typing import Any

import msgpack

from .core.moves import Move
from .core.round import points_after
from .core.tiles import Tile
from .records import Event

SCHEMA_VERSION = 1


class Observation:
    """Everything seat ``seat`` may know, and nothing more: its own hand, the table, the
    public events, hand sizes, the boneyard's size and the scores.  Other hands and the
    boneyard's order are never in it."""

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
    )
    __slots__ = (*FIELDS, "_points")

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
        self._points: dict[Move, int] | None = None  # points_after of each legal move

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

    def points_after(self, move: Move | str) -> int:
        """The points ``move`` would score for this seat's side now (the All Fives count
        rule, or the variant's move_scorer; 0 where moves do not score).  Computed from
        the public layout alone, once for all the legal moves."""
        if self._points is None:
            scores = points_after(
                self.variant,
                self.players,
                self.options,
                self.layout,
                self.legal_moves,
                self.scores[self.side],
            )
            self._points = dict(zip(self.legal_moves, scores, strict=True))
        if isinstance(move, str):
            move = Move.parse(move)
        if move in self._points:
            return self._points[move]
        return points_after(
            self.variant, self.players, self.options, self.layout, [move], self.scores[self.side]
        )[0]

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
            ],
            use_bin_type=True,
        )

    @classmethod
    def from_msgpack(cls, data: bytes) -> Observation:
        """The observation encoded by ``to_msgpack``; bad bytes raise ValueError."""
        try:
            obj: Any = msgpack.unpackb(data, raw=False)
        except Exception as exc:  # msgpack raises several unrelated types
            raise ValueError(f"not a bones observation: {exc}") from None
        if (
            not isinstance(obj, list)
            or len(obj) != 17
            or obj[:2] != [SCHEMA_VERSION, "observation"]
        ):
            raise ValueError("not a bones observation (schema 1): wrong header or length")
        try:
            (_, _, seat, side, variant, options, players, hand, sizes, stock, ends, layout,
             count, events, scores, to_move, legal) = obj  # fmt: skip
            return cls(
                seat=int(seat),
                side=int(side),
                variant=str(variant),
                options=dict(options),
                players=int(players),
                hand=tuple(Tile.parse(t) for t in hand),
                hand_sizes=tuple(int(n) for n in sizes),
                stock_size=int(stock),
                ends=tuple((str(name), int(v)) for name, v in ends),
                layout=tuple(Move.parse(m) for m in layout),
                count=int(count),
                events=tuple(
                    Event(str(k), int(s), None if m is None else Move.parse(m), int(c), int(p))
                    for k, s, m, c, p in events
                ),
                scores=tuple(int(x) for x in scores),
                to_move=None if to_move is None else int(to_move),
                legal_moves=tuple(Move.parse(m) for m in legal),
            )
        except (TypeError, ValueError) as exc:
            raise ValueError(f"corrupt bones observation: {exc}") from None
