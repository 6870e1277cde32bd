"""Shared helpers for the worked-example and property tests.

Deals are written as text: a hand is ``"6-6 6-4 2-0"`` or a list of tile texts; a move
list is ``"6-4 4-1@E draw ..."``.  Everything here talks to the public API only
(docs/api.md), never to the core's internals.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import bones

# The 28 double-six tiles in index order (docs/api.md: 0-0, 1-0, ..., 6-0, 1-1, 2-1, ...).
ALL_TILES: tuple[str, ...] = tuple(f"{high}-{low}" for low in range(7) for high in range(low, 7))


_CANON = {f"{a}-{b}": f"{max(a, b)}-{min(a, b)}" for a in range(7) for b in range(7)}


def canon(tile: object) -> str:
    """Canonical text ``"high-low"`` of a tile given as text or as a ``bones.Tile``."""
    text = tile if isinstance(tile, str) else str(tile)
    try:
        return _CANON[text]
    except KeyError:
        text = text.strip()
        assert text in _CANON, f"not a double-six tile: {text!r}"
        return _CANON[text]


_HALVES = {t: (int(t[0]), int(t[2])) for t in _CANON.values()}


def pips(tile: object) -> int:
    a, b = _HALVES[canon(tile)]
    return a + b


def halves(tile: object) -> tuple[int, int]:
    return _HALVES[canon(tile)]


def split(tiles: str | Iterable[object]) -> list[str]:
    """``"6-6 6-4"`` or an iterable of tiles -> list of canonical tile texts."""
    if isinstance(tiles, str):
        tiles = tiles.split()
    return [canon(t) for t in tiles]


def check_distinct(*groups: str | Iterable[object]) -> None:
    """Assert that no tile occurs twice across all groups (hands, stock)."""
    seen: dict[str, int] = {}
    for index, group in enumerate(groups):
        for tile in split(group):
            assert tile not in seen, f"tile {tile} dealt twice (groups {seen[tile]} and {index})"
            seen[tile] = index


def rest(*groups: str | Iterable[object]) -> list[str]:
    """Every tile not in ``groups``, in index order (a filler for the stock)."""
    used = {t for g in groups for t in split(g)}
    return [t for t in ALL_TILES if t not in used]


def deal(
    variant: str,
    hands: Sequence[str | Iterable[object]],
    stock: str | Iterable[object] = (),
    leader: int | None = 0,
    **opts: object,
) -> bones.Round:
    """``Round.from_deal`` with text hands; asserts that every tile is dealt at most once."""
    hand_lists = [split(h) for h in hands]
    stock_list = split(stock)
    check_distinct(*hand_lists, stock_list)
    moves = opts.pop("moves", None)
    if isinstance(moves, str):
        moves = moves.split()
    return bones.Round.from_deal(
        variant, hands=hand_lists, stock=stock_list, leader=leader, moves=moves, **opts
    )


def full_deal(
    variant: str,
    hands: Sequence[str | Iterable[object]],
    top: str | Iterable[object] = (),
    leader: int | None = 0,
    **opts: object,
) -> bones.Round:
    """A deal whose stock is ``top`` (drawn first) followed by every other tile."""
    stock = split(top) + rest(*hands, top)
    return deal(variant, hands, stock, leader, **opts)


class Scenario(NamedTuple):
    """A full deal and the moves that lead to a position of a worked example.

    The deals of the end-of-round examples were found by a search over random games; each
    test says which facts of the final position the example fixes, and checks them.
    """

    hands: tuple[str, ...]
    stock: str
    leader: int
    moves: str


def replay(
    variant: str, scenario: Scenario, upto: int | None = None, **opts: object
) -> bones.Round:
    """Deal ``scenario`` and play its moves (the first ``upto`` of them, if given)."""
    r = deal(variant, scenario.hands, scenario.stock, scenario.leader, **opts)
    moves = scenario.moves.split()
    return play_all(r, moves if upto is None else moves[:upto])


def play_all(r: bones.Round, moves: str | Iterable[object]) -> bones.Round:
    """Play a whitespace-separated list of moves (or an iterable of moves); returns ``r``."""
    if isinstance(moves, str):
        moves = moves.split()
    for move in moves:
        r.play(move)
    return r


def texts(items: Iterable[object]) -> list[str]:
    return [str(x) for x in items]


def legal(r: bones.Round) -> set[str]:
    """The legal moves as a set of canonical move texts."""
    return {str(m) for m in r.legal_moves}


def hand(r: bones.Round, seat: int) -> set[str]:
    return {canon(t) for t in r.hand(seat)}


def hand_pips(r: bones.Round, seat: int) -> int:
    return sum(pips(t) for t in r.hand(seat))


def ends(r: bones.Round) -> dict[str, int]:
    return dict(r.ends)


def plays(events: Iterable[bones.Event]) -> list[bones.Event]:
    return [e for e in events if e.kind == "play"]


def last_play(r: bones.Round) -> bones.Event:
    return plays(r.events)[-1]


def drawn(events: Iterable[bones.Event], seat: int) -> int:
    """How many tiles ``seat`` drew in ``events`` (draw events may be split or merged)."""
    return sum(e.count for e in events if e.kind == "draw" and e.seat == seat)


def passes(events: Iterable[bones.Event], seat: int | None = None) -> int:
    return sum(1 for e in events if e.kind == "pass" and (seat is None or e.seat == seat))


def move_parts(move: object) -> list[tuple[str, str | None]]:
    """(tile, end) of each placement a move makes: two for a Kozel double-double."""
    m = move if isinstance(move, bones.Move) else bones.Move.parse(str(move))
    if m.is_draw or m.is_pass:
        return []
    parts = [(canon(m.tile), m.end)]
    if m.is_double_double:
        parts.append((canon(m.tile2), m.end2))
    return parts


def playable(tiles: Iterable[object], open_numbers: Iterable[int]) -> list[str]:
    """The tiles that match at least one of the open numbers."""
    numbers = set(open_numbers)
    return [canon(t) for t in tiles if numbers & set(halves(t))]


def layout_tiles(layout: Iterable[object]) -> list[str]:
    """The tiles on the table, whatever a placement record looks like (Move, tuple, Tile)."""
    out: list[str] = []
    for p in layout:
        if hasattr(p, "tile"):
            out.append(canon(p.tile))
            if getattr(p, "tile2", None) is not None:
                out.append(canon(p.tile2))
        elif isinstance(p, tuple | list):
            out.append(canon(p[0]))
        else:
            out.append(canon(p))
    return out


def snapshot(r: bones.Round) -> dict[str, object]:
    """Everything public about a round, for equality checks (undo, serial round trips)."""
    return {
        "msgpack": r.to_msgpack(),
        "to_move": r.to_move,
        "legal": texts(r.legal_moves),
        "hands": [texts(r.hand(s)) for s in range(r.players)],
        "hand_sizes": tuple(r.hand_sizes),
        "stock_size": r.stock_size,
        "ends": tuple(r.ends),
        "layout": tuple(r.layout),
        "count": r.count,
        "scores": tuple(r.scores),
        "moves": texts(r.moves),
        "events": tuple(r.events),
        "is_over": r.is_over,
        "result": r.result,
    }


def lead_of(variant: str, hands: Sequence[str], **opts: object) -> tuple[int, set[str]]:
    """(leader seat, legal lead moves) of a round-1 deal (``leader=None``)."""
    r = full_deal(variant, hands, leader=None, **opts)
    assert r.leader == r.to_move
    return r.to_move, legal(r)


#: Every built-in variant with every player count it allows.
CASES = [
    (name, players)
    for name in ("straight", "multiplayer", "kozel", "block", "draw", "fives-and-threes")
    for players in bones.variant(name).players
]


def random_round(variant: str, players: int, seed: int, steps: int, **opts: Any) -> bones.Round:
    """A round dealt from seed and played ``steps`` random moves (fewer if it ends)."""
    r = bones.Round.deal(variant, players=players, seed=seed, **opts)
    rng = random.Random(seed)
    for _ in range(steps):
        if r.is_over:
            break
        r.play(rng.choice(list(r.legal_moves)))
    return r


def register_plugin_variants(fresh_registry: Any, plugin: str, *variants: bones.Variant) -> None:
    """Register a plugin named ``plugin`` holding ``variants`` (a third party's), in the
    registry that the ``fresh_registry`` fixture rebuilds after the test."""
    from bones.plugins import hookimpl
    from bones.plugins.manager import get_plugin_manager

    class Plugin:
        @hookimpl
        def register_variants(self, register: Any) -> None:
            for v in variants:
                register(v)

    get_plugin_manager().register(Plugin(), name=plugin)
    fresh_registry.reset(plugins=False)
