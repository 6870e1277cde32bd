"""Hidden information stays hidden: everything a bot receives, walked as objects and as
msgpack bytes, holds no tile of another seat's hand or of the stock at that moment, and
no way back to the round."""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Mapping
from types import FunctionType, MethodType, ModuleType
from typing import Any

import msgpack
import pytest

import bones
from bones.bot import play_round
from bones.core.moves import Move
from bones.core.round import Round
from bones.core.tiles import Tile
from bones.game import Game
from bones.observation import Observation
from bones.plugins.builtin_bots import RandomBot

TILE_TEXT = re.compile(r"(?<![0-9])([0-6])-([0-6])(?![0-9])")
SEEDS = (1, 2, 3)
ROUNDS_PER_GAME = 3


def _norm(a: str, b: str) -> str:
    return f"{max(a, b)}-{min(a, b)}"


class Walk:
    """Everything reachable from some objects: the tile texts found (as ``"6-4"``), the
    engine objects met (a Round, a Game, any other compiled-core object but Tile/Move)
    and anything that looks like a seed (a key named seed, an int too big to be a score:
    the deal seeds of a game are 63-bit numbers), from which the deal could be rebuilt."""

    def __init__(self) -> None:
        self.tiles: set[str] = set()
        self.engine: list[str] = []
        self.seeds: list[object] = []
        self._seen: set[int] = set()

    def text(self, s: str) -> None:
        self.tiles.update(_norm(a, b) for a, b in TILE_TEXT.findall(s))

    def __call__(self, obj: Any) -> Walk:
        if isinstance(obj, int) and abs(obj) >= 2**31:
            self.seeds.append(obj)
        if obj is None or isinstance(obj, (bool, int, float, complex)):
            return self
        if id(obj) in self._seen:
            return self
        self._seen.add(id(obj))
        if isinstance(obj, (Round, Game)):
            self.engine.append(type(obj).__name__)
            return self
        if isinstance(obj, (Tile, Move)):
            self.text(str(obj))
            return self
        if isinstance(obj, str):
            self.text(obj)
            return self
        if isinstance(obj, (bytes, bytearray, memoryview)):
            data = bytes(obj)
            self.text(data.decode("latin-1"))
            try:
                self(msgpack.unpackb(data, raw=False, strict_map_key=False))
            except Exception:
                pass
            return self
        if isinstance(obj, (type, ModuleType)):
            return self
        module = type(obj).__module__ or ""
        if module.startswith("bones.core"):
            self.engine.append(f"{module}.{type(obj).__name__}")
        if isinstance(obj, (FunctionType, MethodType)):
            self(getattr(obj, "__self__", None))
            for cell in getattr(obj, "__closure__", None) or ():
                self(cell.cell_contents)
            self(getattr(obj, "__defaults__", None))
            return self
        if isinstance(obj, Mapping):
            for key, value in obj.items():
                if isinstance(key, str) and "seed" in key.lower():
                    self.seeds.append(key)
                self(key)
                self(value)
            return self
        if isinstance(obj, (tuple, list, set, frozenset)):
            for item in obj:
                self(item)
            return self
        for klass in type(obj).__mro__:
            for name in getattr(klass, "__slots__", ()):
                self(getattr(obj, name, None))
        self(getattr(obj, "__dict__", None))
        for ref in gc.get_referents(obj):  # whatever else the object holds on to
            self(ref)
        return self


class Recorder(RandomBot):
    """A random bot that walks every argument of every hook it gets and checks it against
    ``probe()``, the tiles hidden from its seat at that moment (asked of the engine by the
    test, never shown to the bot)."""

    name = "recorder"

    def __init__(self, seed: int = 0, **options: Any) -> None:
        super().__init__(seed, **options)
        self.probe: Callable[[], tuple[set[str], set[str]]] = lambda: (set(), set())
        self.calls: list[str] = []
        self.problems: list[str] = []
        self.draws = 0

    def check(self, hook: str, *args: Any) -> None:
        hidden, own = self.probe()
        walk = Walk()
        for arg in args:
            walk(arg)
            if isinstance(arg, Observation):
                walk(arg.to_msgpack())
                if set(map(str, arg.hand)) != own:
                    self.problems.append(f"{hook}: hand {arg.hand} is not the seat's hand")
                if not set(map(str, arg.hand)) >= {
                    str(t) for m in arg.legal_moves for t in (m.tile, m.tile2) if t
                }:
                    self.problems.append(f"{hook}: a legal move uses a tile not in the hand")
        leaked = walk.tiles & hidden
        if leaked:
            self.problems.append(f"{hook}{args!r}: hidden tiles {sorted(leaked)}")
        if walk.engine:
            self.problems.append(f"{hook}: engine objects {walk.engine}")
        if walk.seeds:
            self.problems.append(f"{hook}: seed-like values {walk.seeds}")
        self.calls.append(hook)

    def start_game(self, seat, variant, players, options):
        self.check("start_game", seat, variant, players, options)

    def start_round(self, observation):
        self.check("start_round", observation)

    def observe(self, event):
        self.check("observe", event)
        if event.kind == "draw":
            self.draws += 1
            if event.move is not None:
                self.problems.append(f"a draw event names a move: {event!r}")
        if event.kind == "pass" and event.move is not None:
            self.problems.append(f"a pass event names a move: {event!r}")

    def choose(self, observation, legal_moves):
        self.check("choose", observation, legal_moves)
        return super().choose(observation, legal_moves)

    def end_round(self, result, observation):
        self.check("end_round", result, observation)

    def end_game(self, scores, winners):
        self.check("end_game", scores, winners)


def configurations() -> list[tuple[str, int, dict[str, Any]]]:
    out = [
        (name, n, {})
        for name in bones.variants()
        if bones.variant(name).plugin == "bones.plugins.builtin_variants"
        for n in bones.variant(name).players
    ]
    # draws and passes by choice
    out.append(("straight", 2, {"may_draw_with_playable": True}))
    out.append(("straight", 3, {"may_draw_with_playable": True, "boneyard_reserve": 2}))
    out.append(("multiplayer", 2, {"voluntary_pass": True, "stock_reserve": 0}))
    out.append(("straight", 2, {"muggins_claim": True}))  # claims and "muggins" moves
    return out


CONFIGS = configurations()


def _hidden_for(game: Game, seat: int) -> tuple[set[str], set[str]]:
    rnd = game.round
    hidden = {str(t) for t in rnd.stock}
    for other in range(rnd.players):
        if other != seat:
            hidden.update(str(t) for t in rnd.hand(other))
    return hidden, {str(t) for t in rnd.hand(seat)}


@pytest.mark.parametrize(
    "variant, players, options",
    CONFIGS,
    ids=[f"{v}-{n}{'-' + '-'.join(o) if o else ''}" for v, n, o in CONFIGS],
)
def test_bots_receive_nothing_hidden(variant, players, options):
    hooks: set[str] = set()
    draws = 0
    for seed in SEEDS:
        game = bones.new_game(variant, players=players, seed=seed, **options)
        bots = [Recorder(seed=seed * 10 + seat) for seat in range(players)]
        for seat, bot in enumerate(bots):
            bot.probe = lambda seat=seat, game=game: _hidden_for(game, seat)
            bot.start_game(seat, variant, players, dict(options))
        for _ in range(ROUNDS_PER_GAME):
            rnd = game.round
            play_round(rnd, bots)
            # the round's whole public log reached every seat through observe()
            assert all(b.calls.count("observe") >= len(rnd.events) for b in bots)
            if game.next_round() is None:
                break
        if game.is_over:
            for bot in bots:
                bot.end_game(game.scores, game.winners)
        for bot in bots:
            assert bot.problems == [], bot.problems[:5]
            hooks.update(bot.calls)
            draws += bot.draws
    assert {"start_game", "start_round", "observe", "choose", "end_round"} <= hooks
    if variant in ("straight", "multiplayer", "draw", "kozel") and players == 2:
        assert draws > 0 or variant == "kozel"  # the draw events were really checked


def test_walk_finds_hidden_tiles():
    """The walker itself: it sees tiles in objects, texts and msgpack bytes, and engine
    objects wherever they hide."""
    rnd = Round.deal("straight", players=2, seed=5)
    tile = rnd.hand(1)[0]
    assert str(tile) in Walk()(("x", [tile])).tiles
    assert str(tile) in Walk()(msgpack.packb({"a": [str(tile)]})).tiles
    assert str(tile) in Walk()(Move.parse(f"{tile}")).tiles
    flipped = f"{tile.low}-{tile.high}"
    assert str(tile) in Walk()(f"played {flipped}@W").tiles
    assert Walk()({"k": (1, rnd)}).engine == ["Round"]
    assert Walk()(rnd.legal_moves).engine  # the live view holds the round

    class Sneaky:
        __slots__ = ("_r",)

        def __init__(self) -> None:
            self._r = rnd

    assert Walk()(Sneaky()).engine == ["Round"]
    assert Walk()(lambda: rnd).engine == ["Round"]


@pytest.mark.parametrize("variant", ["straight", "kozel", "draw"])
def test_observation_has_no_way_back_to_the_round(variant):
    rnd = Round.deal(variant, players=3, seed=7)
    for _ in range(4):
        obs = rnd.observation(rnd.to_move)
        assert not hasattr(obs, "__dict__")  # only the declared slots
        for name in (*Observation.FIELDS, *Observation.__slots__):
            assert "round" not in name.lower() and "state" not in name.lower()
            value = getattr(obs, name, None)
            assert value is not rnd
            assert Walk()(value).engine == [], name
        assert Walk()(obs).engine == []
        assert Observation.from_msgpack(obs.to_msgpack()) == obs
        # nothing reachable through the garbage collector's view either
        stack, seen = [obs], set()
        while stack:
            obj = stack.pop()
            if id(obj) in seen or isinstance(obj, (type, ModuleType)):
                continue
            seen.add(id(obj))
            assert not isinstance(obj, (Round, Game))
            stack.extend(gc.get_referents(obj))
        rnd.play(rnd.legal_moves[0])


def test_recorder_catches_a_leak():
    """The check is not vacuous: a driver that leaked would be caught."""
    game = bones.new_game("draw", players=2, seed=3)
    rnd = game.round
    bot = Recorder(seed=1)
    bot.probe = lambda: _hidden_for(game, 0)
    other, stock = rnd.hand(1)[0], rnd.stock[0]
    bot.observe(bones.Event("draw", 1, Move.parse(str(stock)), 1, 0))  # a draw naming its tile
    assert any(str(stock) in p for p in bot.problems)
    assert any("draw event names a move" in p for p in bot.problems)
    bot.problems.clear()
    bot.start_round(rnd.observation(1))  # another seat's view
    assert any(str(other) in p for p in bot.problems)
    bot.problems.clear()
    bot.end_round(rnd.result, {"hands": [str(t) for t in rnd.hand(1)]})
    assert bot.problems and str(other) in bot.problems[0]
    bot.problems.clear()
    bot.start_game(0, "draw", 2, {"round": rnd})
    assert any("engine objects" in p for p in bot.problems)
    bot.problems.clear()
    bot.start_game(0, "draw", 2, {"seed": 3})  # the game seed would give away every deal
    bot.observe(bones.Event("play", 1, None, 2**40, 0))
    assert len(bot.problems) == 2 and all("seed-like" in p for p in bot.problems)
