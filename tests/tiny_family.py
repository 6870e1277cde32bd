"""A third game family, registered by a plugin the way a third party would: "tiny", one
line of tiles on a double-3 set (10 tiles), pure Python.

Each seat is dealt ``hand_size`` tiles (the rest are never drawn); the leader leads any
tile, then each seat places a tile matching the left (``L``) or right (``R``) open end or
passes when it has none.  The round ends when a seat goes out, or when every seat has
passed in a row (blocked: the lightest hands win).  The winners score the pips of the
other hands; the game is one round (``BlockGameRules``).  It exists to show that the
family interface is complete: tests/test_families.py plays a match, an observation and a
replay with it through the same code that plays the built-in families.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import msgpack

from bones.errors import IllegalMove, OptionError
from bones.family import Family
from bones.gamerules import BlockGameRules
from bones.plugins import hookimpl
from bones.records import Event, RoundResult, msgpack_head
from bones.variant import Option, Variant

TOP = 3
TILES = tuple((high, low) for high in range(TOP + 1) for low in range(high + 1))
SCHEMA_ROUND = "tiny.round"
SCHEMA_OBS = "tiny.observation"


class TinyTile(NamedTuple):
    high: int
    low: int

    @property
    def pips(self) -> int:
        return self.high + self.low

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    @property
    def index(self) -> int:
        return TILES.index((self.high, self.low))

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    @classmethod
    def parse(cls, text: str) -> TinyTile:
        try:
            a, b = (int(x) for x in text.split("-"))
        except (ValueError, AttributeError):
            raise ValueError(f"not a tiny tile: {text!r}") from None
        if not (0 <= a <= TOP and 0 <= b <= TOP):
            raise ValueError(f"not a tile of the double-{TOP} set: {text!r}")
        return cls(max(a, b), min(a, b))


class TinyMove(NamedTuple):
    tile: TinyTile | None  # None: pass
    end: str | None  # "L", "R" or None (the lead, a pass)

    @property
    def tile2(self) -> None:
        return None  # one tile a move

    def __str__(self) -> str:
        if self.tile is None:
            return "pass"
        return str(self.tile) if self.end is None else f"{self.tile}@{self.end}"

    @classmethod
    def parse(cls, text: str) -> TinyMove:
        if text == "pass":
            return cls(None, None)
        tile, _, end = text.partition("@")
        if end not in ("", "L", "R"):
            raise ValueError(f"not a tiny move: {text!r}")
        return cls(TinyTile.parse(tile), end or None)


PASS = TinyMove(None, None)
MOVES = (PASS,) + tuple(TinyMove(TinyTile(*t), e) for t in TILES for e in (None, "L", "R"))


class TinyActions:
    """The fixed action space: every move of the set."""

    def __init__(self, variant: str, players: int = 2, **options: Any) -> None:
        self.size = len(MOVES)

    def move(self, index: int) -> TinyMove:
        if not 0 <= index < self.size:
            raise ValueError(f"no action {index}")
        return MOVES[index]

    def index(self, move: TinyMove) -> int:
        return MOVES.index(move)


class TinyRules(NamedTuple):
    variant: Variant
    name: str
    players: int
    overrides: dict[str, Any]
    options: dict[str, Any]


def _check_options(spec: Variant, players: int, options: dict[str, Any]) -> dict[str, Any]:
    resolved = spec.resolve_options(players, options)
    if players * resolved["hand_size"] > len(TILES):
        raise OptionError(f"{spec.name}: {players} hands of {resolved['hand_size']} tiles")
    return resolved


class TinyRound:
    """A round of the tiny family, with make/unmake."""

    def __init__(
        self,
        variant: str,
        hands: Sequence[Sequence[TinyTile]],
        leader: int,
        scores: Sequence[int] | None,
        options: dict[str, Any],
    ) -> None:
        from bones.registry import variant as lookup

        spec = lookup(variant)
        self.variant = spec.name
        self.players = len(hands)
        self.options = dict(options)
        self._resolved = _check_options(spec, self.players, self.options)
        self.leader = leader
        self._dealt = [tuple(h) for h in hands]
        self._hands = [list(h) for h in hands]
        self._scores0 = tuple(scores) if scores is not None else (0,) * self.players
        self.moves: tuple[TinyMove, ...] = ()
        self.events: tuple[Event, ...] = ()
        self._ends: tuple[int, int] | None = None
        self._history: list[Any] = []

    # the interface every family answers -----------------------------------------------
    sides = property(lambda self: tuple((s,) for s in range(self.players)))
    is_partial = False
    stock_size = 0
    dealt_stock: tuple[TinyTile, ...] = ()

    def side_of(self, seat: int) -> int:
        return seat

    @property
    def rules(self) -> TinyRules:
        from bones.registry import variant as lookup

        return TinyRules(
            lookup(self.variant), self.variant, self.players, self.options, self._resolved
        )

    @property
    def dealt_scores(self) -> tuple[int, ...]:
        return self._scores0

    @property
    def scores(self) -> tuple[int, ...]:
        result = self.result
        if result is None:
            return self._scores0
        return tuple(s + p for s, p in zip(self._scores0, result.points, strict=True))

    def hand(self, seat: int) -> tuple[TinyTile, ...]:
        return tuple(self._hands[seat])

    def dealt_hand(self, seat: int) -> tuple[TinyTile, ...]:
        return self._dealt[seat]

    def hand_pips(self, seat: int) -> int:
        return sum(t.pips for t in self._hands[seat])

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._hands)

    @property
    def layout(self) -> tuple[TinyMove, ...]:
        return tuple(m for m in self.moves if m.tile is not None)

    def _passes(self) -> int:
        run = 0
        for move in reversed(self.moves):
            if move is not PASS and move != PASS:
                break
            run += 1
        return run

    @property
    def is_over(self) -> bool:
        return any(not h for h in self._hands) or self._passes() >= self.players

    @property
    def to_move(self) -> int | None:
        return None if self.is_over else (self.leader + len(self.moves)) % self.players

    @property
    def legal_moves(self) -> tuple[TinyMove, ...]:
        seat = self.to_move
        if seat is None:
            return ()
        return _legal(sorted(self._hands[seat]), self._ends)

    @property
    def action_space(self) -> TinyActions:
        return TinyActions(self.variant, self.players)

    @property
    def legal_actions(self) -> list[int]:
        return sorted(MOVES.index(m) for m in self.legal_moves)

    def action_mask(self, out: Any = None) -> Any:
        out = bytearray(len(MOVES)) if out is None else out
        for i in range(len(MOVES)):
            out[i] = 0
        for i in self.legal_actions:
            out[i] = 1
        return out

    def observation_tensor(self, seat: int, out: Any = None) -> list[float]:
        return [1.0 if TinyTile(*t) in self._hands[seat] else 0.0 for t in TILES]

    def returns(self) -> tuple[float, ...]:
        result = self.result
        if result is None:
            return (0.0,) * self.players
        mean = sum(result.points) / self.players
        return tuple(p - mean for p in result.points)

    @property
    def result(self) -> RoundResult | None:
        if not self.is_over:
            return None
        values = tuple(self.hand_pips(s) for s in range(self.players))
        out = [s for s in range(self.players) if not self._hands[s]]
        winners = tuple(out) or tuple(s for s in range(self.players) if values[s] == min(values))
        award = sum(values[s] for s in range(self.players) if s not in winners)
        points = tuple(award if s in winners else 0 for s in range(self.players))
        placed = [i for i, m in enumerate(self.moves) if m.tile is not None]
        last = (self.leader + placed[-1]) % self.players if placed else self.leader
        return RoundResult("out" if out else "blocked", winners, points, values, last)

    def play(self, move: Any) -> None:
        if isinstance(move, int) and not isinstance(move, bool):
            if not 0 <= move < len(MOVES):
                raise IllegalMove(f"action {move}: out of range")
            move = MOVES[move]
        elif isinstance(move, str):
            try:
                move = TinyMove.parse(move)
            except ValueError as exc:
                raise IllegalMove(str(exc)) from None
        legal = self.legal_moves
        if move not in legal:
            raise IllegalMove(f"{move} is not legal; legal: {', '.join(map(str, legal))}")
        seat = self.to_move
        assert seat is not None
        self._history.append(self._ends)
        self._ends = _ends_after((move,), self._ends)
        if move.tile is None:
            self.events += (Event("pass", seat),)
        else:
            self._hands[seat].remove(move.tile)
            self.events += (Event("play", seat, move),)
        self.moves += (move,)

    def undo(self) -> TinyMove:
        if not self.moves:
            raise IndexError("nothing to undo")
        move = self.moves[-1]
        self.moves = self.moves[:-1]
        self.events = self.events[:-1]
        self._ends = self._history.pop()
        if move.tile is not None:
            seat = (self.leader + len(self.moves)) % self.players
            self._hands[seat].append(move.tile)
        return move

    def copy(self) -> TinyRound:
        return TinyRound.from_msgpack(self.to_msgpack())

    def observation(self, seat: int) -> TinyObservation:
        return TinyObservation(
            variant=self.variant,
            options=dict(self.options),
            players=self.players,
            seat=seat,
            leader=self.leader,
            hand=tuple(sorted(self._hands[seat])),
            hand_sizes=self.hand_sizes,
            scores=self.scores,
            moves=self.moves,
        )

    def moves_text(self) -> str:
        return " ".join(str(m) for m in self.moves)

    def to_msgpack(self) -> bytes:
        return msgpack.packb(
            [
                SCHEMA_ROUND,
                1,
                self.variant,
                self.options,
                self.leader,
                [[str(t) for t in h] for h in self._dealt],
                list(self._scores0),
                [str(m) for m in self.moves],
            ]
        )

    @classmethod
    def from_msgpack(cls, data: bytes) -> TinyRound:
        try:
            tag, version, variant, options, leader, hands, scores, moves = msgpack.unpackb(data)
            if (tag, version) != (SCHEMA_ROUND, 1):
                raise ValueError("wrong header")
            dealt = [[TinyTile.parse(t) for t in h] for h in hands]
            rnd = cls(variant, dealt, leader, scores, options)
            for move in moves:
                rnd.play(move)
        except Exception as exc:
            raise ValueError(f"not a tiny round: {exc}") from None
        return rnd

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TinyRound) and self.to_msgpack() == other.to_msgpack()

    def __repr__(self) -> str:
        return f"<TinyRound {self.variant} moves={self.moves_text()}>"


class TinyObservation:
    """What one seat may know: its hand, the public moves, the hand sizes."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)
        self.moves = tuple(fields["moves"])

    def _standin(self) -> list[list[TinyTile]]:
        hands: list[list[TinyTile]] = [[] for _ in range(self.players)]
        hands[self.seat] = list(self.hand)
        for i, move in enumerate(self.moves):
            if move.tile is not None:
                hands[(self.leader + i) % self.players].append(move.tile)
        return hands

    @property
    def side(self) -> int:
        return self.seat

    @property
    def stock_size(self) -> int:
        return 0

    @property
    def events(self) -> tuple[Event, ...]:
        seats = ((self.leader + i) % self.players for i in range(len(self.moves)))
        return tuple(
            Event("pass", s) if m.tile is None else Event("play", s, m)
            for s, m in zip(seats, self.moves, strict=True)
        )

    @property
    def layout(self) -> tuple[TinyMove, ...]:
        return tuple(m for m in self.moves if m.tile is not None)

    @property
    def to_move(self) -> int | None:
        return None if self.is_over else (self.leader + len(self.moves)) % self.players

    @property
    def is_over(self) -> bool:
        passes = 0
        for move in reversed(self.moves):
            if move.tile is not None:
                break
            passes += 1
        return 0 in self.hand_sizes or passes >= self.players

    @property
    def legal_moves(self) -> tuple[TinyMove, ...]:
        if self.to_move != self.seat:
            return ()
        return _legal(sorted(self.hand), _ends_after(self.moves))

    @property
    def legal_actions(self) -> list[int]:
        return sorted(MOVES.index(m) for m in self.legal_moves)

    @property
    def result(self) -> RoundResult | None:
        return None  # as a line observation: end_round gets it

    def points_after(self, move: Any) -> int:
        return 0

    def sample(self, seed: int | random.Random = 0) -> TinyRound:
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        hands = self._standin()
        placed = {m.tile for m in self.moves if m.tile is not None}
        unseen = [TinyTile(*t) for t in TILES if TinyTile(*t) not in placed | set(self.hand)]
        rng.shuffle(unseen)
        for s in range(self.players):
            if s != self.seat:
                held = self.hand_sizes[s]
                hands[s] += unseen[:held]
                unseen = unseen[held:]
        return _replay(self, hands)

    def to_msgpack(self) -> bytes:
        return msgpack.packb(
            [
                1,
                SCHEMA_OBS,
                self.variant,
                self.options,
                self.players,
                self.seat,
                self.leader,
                [str(t) for t in self.hand],
                list(self.hand_sizes),
                list(self.scores),
                [str(m) for m in self.moves],
            ]
        )

    @classmethod
    def from_msgpack(cls, data: bytes) -> TinyObservation:
        try:
            _, tag, variant, options, players, seat, leader, hand, sizes, scores, moves = (
                msgpack.unpackb(data)
            )
            if tag != SCHEMA_OBS:
                raise ValueError("wrong header")
            return cls(
                variant=variant,
                options=options,
                players=players,
                seat=seat,
                leader=leader,
                hand=tuple(TinyTile.parse(t) for t in hand),
                hand_sizes=tuple(sizes),
                scores=tuple(scores),
                moves=tuple(TinyMove.parse(m) for m in moves),
            )
        except Exception as exc:
            raise ValueError(f"not a tiny observation: {exc}") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TinyObservation) and self.to_msgpack() == other.to_msgpack()


def _ends_after(
    moves: Sequence[TinyMove], ends: tuple[int, int] | None = None
) -> tuple[int, int] | None:
    """The open ends after ``moves`` from ``ends`` (None: an empty table)."""
    for move in moves:
        tile = move.tile
        if tile is None:
            continue
        if ends is None:
            ends = (tile.high, tile.low)
            continue
        left, right = ends
        if move.end == "L":
            left = tile.low if tile.high == left else tile.high
        else:
            right = tile.low if tile.high == right else tile.high
        ends = (left, right)
    return ends


def _legal(hand: Sequence[TinyTile], ends: tuple[int, int] | None) -> tuple[TinyMove, ...]:
    if ends is None:
        return tuple(TinyMove(t, None) for t in hand)
    left, right = ends
    out = [TinyMove(t, "L") for t in hand if left in t]
    out += [TinyMove(t, "R") for t in hand if right in t]
    return tuple(out) or (PASS,)


def _replay(obs: TinyObservation, hands: list[list[TinyTile]]) -> TinyRound:
    dealt = [list(h) for h in hands]
    rnd = TinyRound(obs.variant, dealt, obs.leader, obs.scores, obs.options)
    for move in obs.moves:
        rnd.play(move)
    return rnd


def deal(
    variant: str,
    players: int = 2,
    seed: int = 0,
    leader: int | None = None,
    lead_tile: Any = None,
    scores: Sequence[int] | None = None,
    **options: Any,
) -> TinyRound:
    from bones.registry import variant as lookup

    if lead_tile is not None:
        raise OptionError(f"{variant}: a tiny round has no forced lead tile")
    size = _check_options(lookup(variant), players, options)["hand_size"]
    rng = random.Random(seed)
    tiles = [TinyTile(*t) for t in TILES]
    rng.shuffle(tiles)
    hands = [tiles[i * size : (i + 1) * size] for i in range(players)]
    first = rng.randrange(players) if leader is None else leader
    return TinyRound(variant, hands, first, scores, options)


def from_deal(
    variant: str,
    hands: Sequence[Sequence[Any]],
    stock: Any = (),
    leader: int | None = None,
    lead_tile: Any = None,
    scores: Sequence[int] | None = None,
    moves: Any = None,
    seed: int = 0,
    partial: bool = False,
    **options: Any,
) -> TinyRound:
    tiles = [[t if isinstance(t, TinyTile) else TinyTile.parse(str(t)) for t in h] for h in hands]
    rnd = TinyRound(variant, tiles, 0 if leader is None else leader, scores, options)
    for move in moves or ():
        rnd.play(move)
    return rnd


def is_round_bytes(data: object) -> bool:
    head = msgpack_head(data)
    return head is not None and head[0] == SCHEMA_ROUND


def is_observation_bytes(data: object) -> bool:
    head = msgpack_head(data)
    return head is not None and head[1] == SCHEMA_OBS


class TinyFrame(NamedTuple):
    """A picture of a tiny position: the line as text in an SVG."""

    title: str
    line: str
    placements: tuple[Any, ...] = ()

    def bounds(self) -> None:
        return None

    def page_parts(self, bounds: Any, size: Any) -> tuple[list[str], float, float]:
        return [self.svg()], 400.0, 60.0

    def svg(self, defs: bool = True, bounds: Any = None, size: Any = None) -> str:
        return (
            "<svg xmlns='http://www.w3.org/2000/svg' width='400' height='60'>"
            f"<text x='8' y='20'>{self.title}</text><text x='8' y='44'>{self.line}</text></svg>"
        )


def svg(obj: Any, names: Sequence[str] | None = None) -> str:
    rnd = getattr(obj, "round", obj)
    return TinyFrame(rnd.variant, " ".join(str(m) for m in rnd.layout)).svg()


def replay_steps(record: Any, seat: int | None = None) -> list[Any]:
    """The positions of a recorded tiny game, each a Step of bones.render.steps."""
    from bones.api import Round
    from bones.render.steps import Step, replayed

    game, seats, names, rounds = replayed(record, seat)
    steps = []
    for index, entry in enumerate(rounds):
        import base64

        moves = Round.from_msgpack(base64.b64decode(entry["round"])).moves
        rnd = game.round
        steps.append(Step(index + 1, 0, ("the deal",), TinyFrame("deal", "")))
        for ply, move in enumerate(moves, 1):
            rnd.play(move)
            line = " ".join(map(str, rnd.layout))
            frame = TinyFrame(str(move), line, tuple(rnd.layout))
            steps.append(Step(index + 1, ply, (str(move),), frame, str(move)))
        game.next_round()
    return steps


TINY = Family(
    name="tiny",
    description="one line of tiles on a double-3 set (a test plugin's family)",
    bases=("tiny",),
    parts={
        "round": "tiny_family:TinyRound",
        "observation": "tiny_family:TinyObservation",
        "move": "tiny_family:TinyMove",
        "tile": "tiny_family:TinyTile",
        "result": "bones.records:RoundResult",
        "deal": "tiny_family:deal",
        "from_deal": "tiny_family:from_deal",
        "is_round_bytes": "tiny_family:is_round_bytes",
        "is_observation_bytes": "tiny_family:is_observation_bytes",
        "action_space": "tiny_family:TinyActions",
        "svg": "tiny_family:svg",
        "replay_steps": "tiny_family:replay_steps",
    },
)

TINY_BLOCK = Variant(
    name="tiny-block",
    base="tiny",
    description="Tiny block: three tiles each of a double-3 set, no drawing",
    players=(2, 3),
    options={"hand_size": Option("hand_size", 3, (2, 3), "tiles dealt to each seat")},
    game_rules=type("TinyGameRules", (BlockGameRules,), {}),
)


@hookimpl
def register_families(register: Callable[[Family], None]) -> None:
    register(TINY)


@hookimpl
def register_variants(register: Callable[[Variant], None]) -> None:
    register(TINY_BLOCK)
