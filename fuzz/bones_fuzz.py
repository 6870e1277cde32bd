"""The fuzz targets of bones: a seed corpus, the mutators and one check per decoder.

Every target takes one input and returns ``"accepted"`` or ``"rejected"`` (the documented
exception), or raises anything else: an undocumented exception, or a :class:`Broken`
property of an accepted input.  Inputs are made deterministically from ``(seed, index)``
(:func:`make_input`), so a runner can make the same input again to save it.

Decoders and what they may raise (docs/serialization.md, docs/api.md):

* ``round`` / ``observation`` / ``game``: ``X.from_msgpack(bytes)`` -> ``ValueError``.
  Accepted: encodes again to an equal object with the same bytes; a round keeps its
  invariants (legal moves exist iff it is not over, ``play``/``undo`` round-trip, it plays
  to its end); a game plays on through ``next_round``; an observation's legal moves score.
* ``move`` / ``tile``: ``Move.parse`` / ``Tile.parse`` -> ``ValueError`` for a str that is
  not one, ``TypeError`` for anything but a str (a ``Tile`` for ``Tile.parse``).
* ``options``: ``bones.variant(name).resolve(players, **options)``, ``Round.deal`` and
  ``bones.new_game`` with the same options -> ``OptionError``; all three agree.

Used by ``fuzz/run.py`` (long runs, forked) and ``fuzz/hypo.py`` (hypothesis), both run
by ``tests/test_fuzz.py`` in a subprocess so that a crash fails the test, not pytest.
"""

from __future__ import annotations

import copy
import math
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

import bones
from bones import Game, Move, Observation, OptionError, Round, Tile

DECODERS = ("round", "observation", "game", "move", "tile", "options")


class Broken(AssertionError):
    """An accepted input whose decoded object breaks a property."""


# ---------------------------------------------------------------------------------------
# The seed corpus: real encodings of played rounds, games and observations


CASES: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("straight", 2, {}),
    ("straight", 3, {"boneyard_reserve": 2, "spinner_rule": "all_doubles"}),
    ("straight", 4, {"next_leader": "last_bone", "target": 100}),
    ("straight", 2, {"muggins_claim": True, "target": 100}),
    ("straight", 2, {"may_draw_with_playable": True, "hand_size": "pagat", "score_scale": 5}),
    ("straight", 3, {"hand_penalty": True, "exact_target": True, "target": 120}),
    ("multiplayer", 2, {}),
    ("multiplayer", 2, {"voluntary_pass": True, "target": 40}),
    ("kozel", 2, {}),
    ("kozel", 3, {"hand_size": {3: 5}, "sub13_mode": "carry", "target": 60}),
    ("kozel", 4, {"scoring_style": "credit_winner", "hand_size": "classic"}),
    ("kozel", 4, {"teams_with_4": False, "redeal_bad_hand": True, "target": 50}),
    ("block", 2, {}),
    ("block", 4, {}),
    ("draw", 2, {}),
    ("draw", 3, {"stock_reserve": 1, "target": 40}),
    ("draw", 4, {"teams_with_4": False, "blocked_award": "difference"}),
)


@dataclass
class Corpus:
    rounds: list[bytes] = field(default_factory=list)
    observations: list[bytes] = field(default_factory=list)
    games: list[bytes] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    tiles: list[str] = field(default_factory=list)
    options: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)

    def of(self, decoder: str) -> list[Any]:
        return {
            "round": self.rounds,
            "observation": self.observations,
            "game": self.games,
            "move": self.moves,
            "tile": self.tiles,
            "options": self.options,
        }[decoder]


def _random_options(rng: random.Random, variant: str) -> dict[str, Any]:
    """A few option overrides picked from the variant's own choices."""
    spec = bones.variant(variant)
    out: dict[str, Any] = {}
    for name, option in spec.options.items():
        if rng.random() < 0.3:
            if option.choices:
                out[name] = rng.choice(option.choices)
            elif option.presets and rng.random() < 0.5:
                out[name] = rng.choice(list(option.presets))
            elif name == "target":
                out[name] = rng.choice([1, 20, 61, 100, 250, 10**6])
            elif name == "open_threshold":
                out[name] = rng.choice([0, 13, 25])
    return out


def build_corpus(seed: int = 0, rounds_per_case: int = 3, games_per_case: int = 1) -> Corpus:
    """Real encodings from random play of every case (deterministic for ``seed``)."""
    rng = random.Random(seed)
    corpus = Corpus()
    moves: set[str] = {"draw", "pass", "muggins", "6-4", "6-4@W", "2-2@W+5-5@E", "6-4@W!"}
    for variant, players, options in CASES:
        for k in range(rounds_per_case):
            rnd = Round.deal(variant, players, seed=rng.randrange(1 << 32), **options)
            stops = sorted(rng.sample(range(40), 3))
            ply = 0
            while True:
                if ply in stops or rnd.is_over:
                    corpus.rounds.append(rnd.to_msgpack())
                    seat = rng.randrange(players) if k % 2 else (rnd.to_move or 0)
                    corpus.observations.append(rnd.observation(seat).to_msgpack())
                if rnd.is_over:
                    break
                legal = list(rnd.legal_moves)
                moves.update(str(m) for m in legal)
                rnd.play(rng.choice(legal))
                ply += 1
        for _ in range(games_per_case):
            game = bones.new_game(variant, players, seed=rng.randrange(1 << 32), **options)
            snaps = 0
            while True:
                r = game.round
                for _ in range(rng.randrange(8)):
                    if r.is_over:
                        break
                    r.play(rng.choice(list(r.legal_moves)))
                if snaps < 3 or rng.random() < 0.3:
                    corpus.games.append(game.to_msgpack())
                    snaps += 1
                while not r.is_over:
                    r.play(rng.choice(list(r.legal_moves)))
                if game.next_round() is None:
                    corpus.games.append(game.to_msgpack())
                    break
                if game.round_index > 30:
                    break
        corpus.options.append((variant, players, dict(options)))
        for _ in range(4):
            corpus.options.append((variant, players, _random_options(rng, variant)))
    corpus.moves = sorted(moves)
    corpus.tiles = [str(t) for t in bones.TILES] + ["4-6", " 6-4 ", "0-0"]
    return corpus


# ---------------------------------------------------------------------------------------
# Mutators


def _nested(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


INTERESTING_INTS = (
    0, 1, -1, 2, 3, 4, 5, 6, 7, 8, 13, 27, 28, 29, 31, 32, 63, 64, 127, 128, 255, 256,
    1023, 1024, 2**15 - 1, 2**15, 2**16, 2**24, 2**31 - 1, 2**31, -(2**31), 2**32,
    2**53, 2**63 - 1, -(2**63), 2**64 - 1, 10**6, 10**6 + 1,
)  # fmt: skip
INTERESTING_STRS = (
    "", "x", " ", "straight", "kozel", "block", "multiplayer", "draw", "nine", "round",
    "observation", "bones.game", "6-4", "4-6", "6-6", "7-7", "6-4@W", "6-4@Z", "6-4@N7",
    "2-2@W+5-5@E", "6-4@W!", "draw", "pass", "muggins", "W", "E", "N", "S", "N2", "play",
    "out", "blocked", "target", "hand_size", "target", "seed", "pagat", "classic", "\x00",
    "\u0663", "\u202e6-4", "\ud7ff", "x" * 40, "x" * 300, "6-4@W" * 50,
)  # fmt: skip
INTERESTING_OTHER: tuple[Any, ...] = (
    None, True, False, 0.0, -0.0, 0.5, 1.5, 7.0, math.inf, -math.inf, math.nan, b"",
    b"\x00", b"\xc0", b"\x92\x01", [], [None], [0] * 30, [[]], {}, {"a": 1}, {1: 2},
    {"hand_size": {"2": 7}}, {None: None}, _nested(3), _nested(8), _nested(60),
    [None] * 5, list(range(300)),
)  # fmt: skip


def interesting(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.35:
        return rng.choice(INTERESTING_INTS)
    if pick < 0.65:
        return rng.choice(INTERESTING_STRS)
    if pick < 0.8:
        return rng.randrange(-(2**63), 2**64)
    # a copy: the edits that follow must not change the shared constants (nor the next input)
    return copy.deepcopy(rng.choice(INTERESTING_OTHER))


def mutate_bytes(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    """1 to 4 byte-level edits: flips, overwrites, inserts, deletes, duplicates, splices,
    msgpack markers and deep-nesting runs."""
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        op = rng.randrange(11)
        pos = rng.randrange(len(b) + 1)
        if op == 0 and b:  # flip a bit
            i = min(pos, len(b) - 1)
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1 and b:  # overwrite a byte
            b[min(pos, len(b) - 1)] = rng.randrange(256)
        elif op == 2:  # insert random bytes
            b[pos:pos] = rng.randbytes(rng.randint(1, 8))
        elif op == 3 and b:  # delete a range
            del b[pos : pos + rng.randint(1, 16)]
        elif op == 4:  # truncate
            del b[pos:]
        elif op == 5 and b:  # duplicate a range
            end = min(len(b), pos + rng.randint(1, 32))
            b[pos:pos] = b[pos:end]
        elif op == 6 and pool:  # splice with another seed
            other = rng.choice(pool)
            cut = rng.randrange(len(other) + 1)
            b = b[:pos] + bytearray(other[cut:])
        elif op == 7:  # a msgpack marker
            marker = rng.choice(
                b"\xc0\xc2\xc3\xc4\xc5\xc6\xc7\xca\xcb\xcc\xcd\xce\xcf\xd0\xd3\xd9\xdc\xdd"
                b"\xde\xdf\x90\x9f\x80\x8f\xa0\xbf\x7f\x00\xff\xe0"
            )
            if b and rng.random() < 0.5:
                b[min(pos, len(b) - 1)] = marker
            else:
                b[pos:pos] = bytes([marker])
        elif op == 8:  # deep nesting
            b[pos:pos] = bytes([rng.choice((0x91, 0x81, 0xDC))]) * rng.choice((4, 64, 600, 2000))
        elif op == 9 and len(b) >= 4:  # an interesting 32-bit or 64-bit value in place
            i = min(pos, len(b) - 4)
            value = rng.choice(INTERESTING_INTS) & 0xFFFFFFFF
            b[i : i + 4] = struct.pack(rng.choice(("<I", ">I")), value)
        elif op == 10 and b:  # a length byte off by a little
            i = min(pos, len(b) - 1)
            b[i] = (b[i] + rng.choice((-2, -1, 1, 2))) & 0xFF
    return bytes(b)


def _paths(obj: Any, prefix: tuple[Any, ...] = (), out: list[Any] | None = None) -> list[Any]:
    """Every path (tuple of keys) into lists and maps, the root included."""
    if out is None:
        out = []
    out.append(prefix)
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            _paths(item, (*prefix, i), out)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            _paths(item, (*prefix, key), out)
    return out


def _at(obj: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        obj = obj[key]
    return obj


def mutate_structure(rng: random.Random, obj: Any, pool: list[bytes]) -> Any:
    """1 to 3 edits of the decoded object: a value replaced by another type or value, an
    item deleted, duplicated, appended or swapped, a map key renamed; embedded msgpack
    (a game's round) mutated in turn."""
    for _ in range(rng.choice((1, 1, 2, 3))):
        paths = _paths(obj)
        path = rng.choice(paths)
        target = _at(obj, path)
        op = rng.randrange(8)
        parent = _at(obj, path[:-1]) if path else None
        if op <= 2 and path:  # replace the value
            parent[path[-1]] = interesting(rng)
        elif op == 3 and path and isinstance(parent, list) and parent:  # delete
            del parent[path[-1]]
        elif op == 3 and path and isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif op == 4 and isinstance(target, list):  # append or duplicate
            target.append(rng.choice(target) if target and rng.random() < 0.5 else interesting(rng))
        elif op == 4 and isinstance(target, dict):
            target[rng.choice(INTERESTING_STRS)] = interesting(rng)
        elif op == 5 and path:  # another part of the same message in its place
            other = _at(obj, rng.choice(paths))
            parent[path[-1]] = msgpack.unpackb(
                msgpack.packb(other, use_bin_type=True), raw=False, strict_map_key=False
            )
        elif op == 6 and isinstance(target, bytes):  # embedded msgpack
            parent_ok = path and parent is not None
            new = mutate(rng, target, pool) if rng.random() < 0.7 else rng.randbytes(8)
            if parent_ok:
                parent[path[-1]] = new
            else:
                obj = new
        elif op == 7 and path and isinstance(target, int) and not isinstance(target, bool):
            parent[path[-1]] = target + rng.choice((-1, 1, -7, 7, 28, 1 << 20))
        elif op == 7 and isinstance(target, dict) and target:
            key = rng.choice(list(target))
            new_key = interesting(rng) if rng.random() < 0.3 else f"{key}_"
            if isinstance(new_key, (list, dict)):
                new_key = repr(new_key)[:20]
            target[new_key] = target.pop(key)
    return obj


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    """A mutated encoding: byte-level (45%), structure-aware (45%) or both."""
    pick = rng.random()
    if pick < 0.45:
        return mutate_bytes(rng, data, pool)
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        return mutate_bytes(rng, data, pool)
    obj = mutate_structure(rng, obj, pool)
    try:
        out: bytes = msgpack.packb(obj, use_bin_type=True)
    except Exception:  # an int beyond 64 bits, a key msgpack cannot write
        return mutate_bytes(rng, data, pool)
    if pick > 0.9:
        out = mutate_bytes(rng, out, pool)
    return out


_CHARS = "0123456789-@+!WENSwens27 \t\n:,.xX/|\x00\u0663\u202e\u00b9\u2076\ud7ffé"


def mutate_text(rng: random.Random, text: str, pool: list[str]) -> Any:
    """A mutated move or tile text, or now and then a value that is not a str at all."""
    if rng.random() < 0.05:
        return rng.choice(
            (None, 0, 7, 1.5, b"6-4", ["6-4"], ("6-4",), {"6-4": 1}, Ellipsis, math.nan, True)
        )
    s = list(text)
    for _ in range(rng.choice((1, 1, 2, 3))):
        op = rng.randrange(7)
        pos = rng.randrange(len(s) + 1)
        if op == 0:
            s[pos:pos] = rng.choice(_CHARS)
        elif op == 1 and s:
            del s[min(pos, len(s) - 1)]
        elif op == 2 and s:
            s[min(pos, len(s) - 1)] = rng.choice(_CHARS)
        elif op == 3 and pool:
            s[pos:pos] = list(rng.choice(pool))
        elif op == 4:
            s = list("".join(s).upper() if rng.random() < 0.5 else "".join(s).swapcase())
        elif op == 5:
            s = (s * rng.choice((2, 3, 20, 1000)))[:4000]
        elif op == 6:
            s[pos:pos] = list(rng.choice(INTERESTING_STRS))
    return "".join(s)


#: Keyword arguments of ``Round.deal`` / ``new_game`` that are not options.
RESERVED = frozenset({"variant", "players", "seed", "leader", "lead_tile", "scores", "partial"})


def mutate_options(
    rng: random.Random, seed: tuple[str, int, dict[str, Any]]
) -> tuple[Any, Any, dict[str, Any]]:
    """``(variant, players, options)`` with a few values, keys or the counts made odd."""
    variant: Any
    variant, players, options = seed[0], seed[1], dict(seed[2])
    names = list(bones.variant(variant).options)
    for _ in range(rng.choice((1, 1, 2, 3))):
        op = rng.randrange(9)
        if op <= 3:
            options[rng.choice(names)] = interesting(rng)
        elif op == 4:
            options[rng.choice(names)] = {
                rng.choice((2, 3, 4, "2", "3", "4", 2.0, math.inf, None, "x", True)): interesting(
                    rng
                )
                for _ in range(rng.randint(0, 3))
            }
        elif op == 5:
            options[rng.choice(INTERESTING_STRS) or "x"] = interesting(rng)
        elif op == 6:
            players = rng.choice((-1, 0, 1, 2, 3, 4, 5, True, 2.0, None, "2", 2**64))
        elif op == 7:
            variant = rng.choice(("nine", "", None, 3, "Straight", "kozel", "block"))
        elif op == 8 and options:
            options.pop(rng.choice(list(options)))
    return variant, players, {k: v for k, v in options.items() if k not in RESERVED}


def make_input(decoder: str, corpus: Corpus, seed: int, index: int) -> Any:
    """Input ``index`` of a run seeded ``seed``: deterministic, so it can be made again."""
    rng = random.Random(f"{decoder}:{seed}:{index}")
    pool = corpus.of(decoder)
    if decoder in ("move", "tile"):
        return mutate_text(rng, rng.choice(pool), pool)
    if decoder == "options":
        return mutate_options(rng, rng.choice(pool))
    if rng.random() < 0.03:  # plain random bytes
        return rng.randbytes(rng.randrange(64))
    return mutate(rng, rng.choice(pool), pool)


# ---------------------------------------------------------------------------------------
# The targets


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise Broken(what)


def check_round(rnd: Round, rng: random.Random, *, deep: bool = True) -> None:
    """The invariants of any round the engine hands out."""
    data = rnd.to_msgpack()
    again = Round.from_msgpack(data)
    _check(again == rnd and again.to_msgpack() == data, "round does not round-trip")
    over = rnd.is_over
    legal = list(rnd.legal_moves)
    _check(over == (rnd.to_move is None), "is_over disagrees with to_move")
    _check(over == (not legal), "legal moves exist iff the round is not over")
    _check(over == (rnd.result is not None), "result exists iff the round is over")
    tiles = [t for seat in range(rnd.players) for t in rnd.hand(seat)]
    tiles += list(rnd.stock)
    _check(len(set(tiles)) == len(tiles), "a tile is in two places")
    _check(
        tuple(len(rnd.hand(s)) for s in range(rnd.players)) == rnd.hand_sizes,
        "hand_sizes disagree with the hands",
    )
    for seat in range(rnd.players):
        obs = rnd.observation(seat)
        _check(Observation.from_msgpack(obs.to_msgpack()) == obs, "observation round-trip")
    if over or not deep:
        return
    copy = rnd.copy()
    move = rng.choice(legal)
    copy.play(move)
    _check(copy.undo() == move and copy == rnd, "play then undo is not the identity")
    plies = 0
    while not copy.is_over:
        copy.play(rng.choice(list(copy.legal_moves)))
        plies += 1
        _check(plies < 400, "a round that does not end")
    check_round(copy, rng, deep=False)


def target_round(data: Any, rng: random.Random) -> str:
    try:
        rnd = Round.from_msgpack(data)
    except ValueError:
        return "rejected"
    check_round(rnd, rng)
    return "accepted"


def target_observation(data: Any, rng: random.Random) -> str:
    try:
        obs = Observation.from_msgpack(data)
    except ValueError:
        return "rejected"
    again = obs.to_msgpack()
    _check(Observation.from_msgpack(again) == obs, "observation does not round-trip")
    _check(Observation.from_msgpack(again).to_msgpack() == again, "observation bytes unstable")
    for move in obs.legal_moves:
        try:
            points = obs.points_after(move)
        except ValueError:
            continue  # a layout the decoder cannot replay: refused only when scored
        _check(isinstance(points, int), "points_after is not an int")
    return "accepted"


def target_game(data: Any, rng: random.Random) -> str:
    try:
        game = Game.from_msgpack(data)
    except ValueError:
        return "rejected"
    again = game.to_msgpack()
    _check(Game.from_msgpack(again).to_msgpack() == again, "game does not round-trip")
    for _ in range(2):  # a loaded game plays on like any other
        if game.is_over:
            break
        rnd = game.round
        plies = 0
        while not rnd.is_over:
            rnd.play(rng.choice(list(rnd.legal_moves)))
            plies += 1
            _check(plies < 400, "a round that does not end")
        game.next_round()
        data2 = game.to_msgpack()
        _check(Game.from_msgpack(data2).to_msgpack() == data2, "played-on game round-trip")
    return "accepted"


def target_move(text: Any, rng: random.Random) -> str:
    try:
        move = Move.parse(text)
    except ValueError:
        _check(isinstance(text, str), "Move.parse: ValueError for a non-str (want TypeError)")
        return "rejected"
    except TypeError:
        _check(not isinstance(text, str), "Move.parse: TypeError for a str (want ValueError)")
        return "rejected"
    _check(isinstance(text, str), "Move.parse accepted a non-str")
    _check(Move.parse(str(move)) == move, "a move's text does not parse back to it")
    _check(str(Move.parse(str(move))) == str(move), "a move's text is not canonical")
    hash(move)
    return "accepted"


def target_tile(text: Any, rng: random.Random) -> str:
    try:
        tile = Tile.parse(text)
    except ValueError:
        _check(isinstance(text, str), "Tile.parse: ValueError for a non-str (want TypeError)")
        return "rejected"
    except TypeError:
        _check(not isinstance(text, str), "Tile.parse: TypeError for a str (want ValueError)")
        return "rejected"
    _check(isinstance(text, (str, Tile)), "Tile.parse accepted a non-str")
    _check(Tile.parse(str(tile)) == tile and tile in bones.TILES, "tile text round-trip")
    return "accepted"


def target_options(value: Any, rng: random.Random) -> str:
    variant, players, options = value
    outcomes = []
    for make in (
        lambda: bones.variant(variant).resolve(players, **options),
        lambda: Round.deal(variant, players, seed=1, **options),
        lambda: bones.new_game(variant, players, seed=1, **options),
    ):
        try:
            outcomes.append(make())
        except OptionError:
            outcomes.append(None)
    kinds = [o is None for o in outcomes]
    _check(
        len(set(kinds)) == 1,
        f"resolve, Round.deal and new_game disagree (refused: {kinds}); "
        f"players is a {type(players).__name__}",
    )
    if outcomes[0] is None:
        return "rejected"
    rnd = outcomes[1]
    _check(rnd.options == outcomes[0], "the round's options are not the resolved ones")
    check_round(rnd, rng, deep=rng.random() < 0.2)
    return "accepted"


TARGETS: dict[str, Callable[[Any, random.Random], str]] = {
    "round": target_round,
    "observation": target_observation,
    "game": target_game,
    "move": target_move,
    "tile": target_tile,
    "options": target_options,
}


def run_one(decoder: str, value: Any, index: int = 0) -> str:
    """Feed one input to a target with its own generator for the property checks."""
    return TARGETS[decoder](value, random.Random(index))


def describe(value: Any) -> str:
    """The input as text for a finding: hex for bytes, repr otherwise."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return repr(value)
