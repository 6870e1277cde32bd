"""Corrupt, truncated or padded msgpack never crashes the interpreter: it raises
ValueError, for rounds, observations and games alike (a seeded mutation fuzz)."""

from __future__ import annotations

import random

import pytest

import bones
from bones import Game, Observation, Round

CASES = [("straight", 2), ("straight", 4), ("kozel", 4), ("multiplayer", 2), ("block", 4)]


def _samples() -> list[tuple[type, bytes]]:
    out: list[tuple[type, bytes]] = []
    for variant, players in CASES:
        rnd = Round.deal(variant, players=players, seed=3)
        for _ in range(6):
            if rnd.is_over:
                break
            rnd.play(rnd.legal_moves[0])
        out.append((Round, rnd.to_msgpack()))
        out.append((Observation, rnd.observation(0).to_msgpack()))
        out.append((Game, bones.new_game(variant, players=players, seed=1).to_msgpack()))
    return out


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    op = rng.random()
    if op < 0.4:
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif op < 0.7:
        del b[rng.randrange(len(b)) :]
    else:
        pos = rng.randrange(len(b))
        b[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))
    return bytes(b)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_bytes_raise_value_error_only(seed: int) -> None:
    rng = random.Random(seed)
    samples = _samples()
    for _ in range(1500):
        cls, data = rng.choice(samples)
        try:
            cls.from_msgpack(_mutate(rng, data))  # type: ignore[attr-defined]
        except ValueError:
            pass


def test_move_codes_out_of_range_are_rejected() -> None:
    rnd = Round.deal("block", players=2, seed=1)
    data = bytearray(rnd.to_msgpack())
    # append a move code naming end 24 (there are 16 ends) to the moves field
    bad = Round.from_deal(
        "block", hands=[rnd.hand(0), rnd.hand(1)], leader=0, moves=[rnd.legal_moves[0]]
    ).to_msgpack()
    bad = bad[:-4] + (0x9F10).to_bytes(4, "little")
    with pytest.raises(ValueError, match="corrupt bones round"):
        Round.from_msgpack(bad)
    assert Round.from_msgpack(bytes(data)) == rnd
