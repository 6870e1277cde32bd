"""An observation holds nothing of the other hands or of the stock order (docs/api.md
"Observations", docs/serialization.md): checked on the object, on its msgpack bytes, and
by changing what the seat cannot see, which must leave the observation's bytes unchanged."""

from __future__ import annotations

import random
import re

import msgpack
import pytest
from helpers import ALL_TILES, CASES, canon, layout_tiles

import bones
from bones import Round

TILE_TEXT = re.compile(rb"(?<![0-9])([0-6])-([0-6])(?![0-9])")


def tile_texts_in(data: bytes) -> set[str]:
    return {canon(f"{a.decode()}-{b.decode()}") for a, b in TILE_TEXT.findall(data)}


def visible(r: Round, seat: int) -> set[str]:
    """What ``seat`` may see: its own hand and the tiles on the table."""
    return {canon(t) for t in r.hand(seat)} | set(layout_tiles(r.layout))


def walk(obj, found: dict[str, list]) -> None:
    """Collect every str, bytes and int of a decoded msgpack structure."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            walk(k, found)
            walk(v, found)
    elif isinstance(obj, list | tuple):
        for v in obj:
            walk(v, found)
    elif isinstance(obj, bytes | bytearray):
        found["bytes"].append(obj)
    elif isinstance(obj, str):
        found["str"].append(obj)
    elif isinstance(obj, int):
        found["int"].append(obj)


def rounds_along(variant: str, players: int, seed: int):
    """A random round, yielded before every move and at the end."""
    r = Round.deal(variant, players=players, seed=seed)
    rng = random.Random(seed)
    yield r
    while not r.is_over:
        r.play(rng.choice(list(r.legal_moves)))
        yield r


@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_observation_shows_only_own_hand_and_table(variant, players, seed):
    for r in rounds_along(variant, players, seed):
        for seat in range(players):
            obs = r.observation(seat)
            mine = {canon(t) for t in r.hand(seat)}
            assert {canon(t) for t in obs.hand} == mine
            assert obs.hand_sizes == r.hand_sizes and obs.stock_size == r.stock_size
            assert tuple(obs.layout) == tuple(r.layout)
            assert tuple(obs.events) == tuple(r.events)
            # draws are public as a count only
            assert all(e.move is None for e in obs.events if e.kind == "draw")
            if r.to_move == seat and not r.is_over:
                assert list(obs.legal_moves) == list(r.legal_moves)
            else:
                assert len(obs.legal_moves) == 0
            for m in obs.legal_moves:
                assert canon(m.tile) in mine
            # the object's text, and the bytes: no tile but own and table tiles
            assert tile_texts_in(repr(obs).encode()) <= visible(r, seat)
            data = obs.to_msgpack()
            assert tile_texts_in(data) <= visible(r, seat)
            found: dict[str, list] = {"bytes": [], "str": [], "int": []}
            walk(msgpack.unpackb(data, raw=False, strict_map_key=False), found)
            assert found["bytes"] == []  # no binary field that could carry codes or masks
            assert all(abs(i) < 2**16 for i in found["int"])  # no masks, no seeds


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_hidden_tiles_do_not_change_the_observation(variant, players):
    """Permute the tiles a seat cannot see (other hands, stock) in the deal; whenever the
    public history stays the same, the seat's observation bytes stay the same."""
    rng = random.Random(players * 31 + len(variant))
    checked = 0
    for seed in range(20):
        r = Round.deal(variant, players=players, seed=seed, leader=0)
        fields = msgpack.unpackb(r.to_msgpack(), raw=False, strict_map_key=False)
        masks, stock = fields[5], list(fields[6])
        play = random.Random(seed)
        steps = play.randrange(0, 12)
        moves = []
        for _ in range(steps):
            if r.is_over:
                break
            m = play.choice(list(r.legal_moves))
            moves.append(str(m))
            r.play(m)
        seat = r.to_move if not r.is_over else 0
        seen = visible(r, seat)
        hidden = [ALL_TILES.index(t) for t in ALL_TILES if t not in seen]
        hidden = [t for t in hidden if any(m >> t & 1 for m in masks) or t in stock]
        if len(hidden) < 2:
            continue
        perm = dict(zip(hidden, rng.sample(hidden, len(hidden)), strict=True))
        hands = [[ALL_TILES[perm.get(t, t)] for t in range(28) if mask >> t & 1] for mask in masks]
        new_stock = [ALL_TILES[perm.get(t, t)] for t in stock]
        try:
            other = Round.from_deal(variant, hands=hands, stock=new_stock, leader=0, moves=moves)
        except bones.IllegalMove:
            continue  # a hidden tile changed what was legal: not the same public game
        if tuple(other.events) != tuple(r.events) or other.to_move != r.to_move:
            continue
        assert other.observation(seat).to_msgpack() == r.observation(seat).to_msgpack()
        checked += 1
    assert checked >= 3


def test_fresh_deal_observation_ignores_other_hands_and_stock_order():
    hands = [
        ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
        ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
    ]
    rest = [t for t in ALL_TILES if t not in hands[0] + hands[1]]
    a = Round.from_deal("straight", hands=hands, stock=rest, leader=0)
    swapped = [hands[0], [*rest[:3], *hands[1][3:]]]
    b = Round.from_deal("straight", hands=swapped, stock=[*hands[1][:3], *rest[3:]][::-1], leader=0)
    assert a.observation(0).to_msgpack() == b.observation(0).to_msgpack()
    assert a.observation(1).to_msgpack() != b.observation(1).to_msgpack()
