"""Msgpack round trips of Round and Observation (docs/serialization.md): exact round trips
at random points of random rounds, and bad bytes — truncated, corrupted, of another schema
or version, an impossible deal, an illegal move — raise ValueError, never anything else."""

from __future__ import annotations

import msgpack
import pytest
from helpers import CASES, random_round, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bones
from bones import Observation, Round


def unpack(data: bytes) -> list:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


# --------------------------------------------------------------------------------------
# Round trips


@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("steps", [0, 1, 5, 1000])
def test_round_round_trip(variant, players, steps):
    r = random_round(variant, players, seed=steps + 7 * players, steps=steps)
    data = r.to_msgpack()
    header = unpack(data)
    assert header[0] == 5 and header[1] == "round" and header[2] == variant
    assert len(header) == 12 and header[11] is r.opening
    assert header[3] == players
    loaded = Round.from_msgpack(data)
    assert loaded == r
    assert loaded.to_msgpack() == data
    assert snapshot(loaded) == snapshot(r)
    again = eval(repr(r), {"Round": Round})
    assert again == r and again.to_msgpack() == data
    if r.moves:  # loading replays the moves: undo works on a loaded round
        assert loaded.undo() == r.undo()
        assert snapshot(loaded) == snapshot(r)


@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("steps", [0, 3, 1000])
def test_observation_round_trip(variant, players, steps):
    r = random_round(variant, players, seed=steps + 11 * players, steps=steps)
    for seat in range(players):
        obs = r.observation(seat)
        data = obs.to_msgpack()
        fields = unpack(data)
        assert fields[:3] == [3, "observation", seat]
        assert len(fields) == 19 and fields[18] is r.opening is obs.opening
        loaded = Observation.from_msgpack(data)
        assert loaded == obs
        assert loaded.to_msgpack() == data
        for name in ("seat", "variant", "players", "hand", "hand_sizes", "stock_size", "ends"):
            assert getattr(loaded, name) == getattr(obs, name), name
        for name in ("layout", "count", "events", "scores", "to_move", "legal_moves"):
            assert getattr(loaded, name) == getattr(obs, name), name


def test_round_with_options_and_scores_round_trips():
    r = Round.deal("straight", players=2, seed=5, scores=[100, 35], spinner_rule="none", target=200)
    r.play(r.legal_moves[0])
    loaded = Round.from_msgpack(r.to_msgpack())
    assert loaded == r
    assert loaded.scores == r.scores
    assert unpack(r.to_msgpack())[4] == {"spinner_rule": "none", "target": 200}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(CASES),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 40),
)
def test_round_and_observation_round_trip_property(case, seed, steps):
    variant, players = case
    r = random_round(variant, players, seed, steps)
    data = r.to_msgpack()
    loaded = Round.from_msgpack(data)
    assert loaded.to_msgpack() == data and loaded == r
    assert list(loaded.legal_moves) == list(r.legal_moves)
    for seat in range(players):
        obs = r.observation(seat)
        assert Observation.from_msgpack(obs.to_msgpack()) == obs
        assert loaded.observation(seat).to_msgpack() == obs.to_msgpack()


# --------------------------------------------------------------------------------------
# Bad bytes

BASE = random_round("kozel", 2, seed=3, steps=6)
BASE_BYTES = BASE.to_msgpack()
BASE_OBS_BYTES = BASE.observation(0).to_msgpack()


@pytest.mark.parametrize("cut", range(len(BASE_BYTES)))
def test_truncated_round_raises_value_error(cut):
    with pytest.raises(ValueError):
        Round.from_msgpack(BASE_BYTES[:cut])


@pytest.mark.parametrize("cut", range(0, len(BASE_OBS_BYTES), 3))
def test_truncated_observation_raises_value_error(cut):
    with pytest.raises(ValueError):
        Observation.from_msgpack(BASE_OBS_BYTES[:cut])


def mutate_round(index: int, value: object) -> bytes:
    fields = unpack(BASE_BYTES)
    fields[index] = value
    return msgpack.packb(fields, use_bin_type=True)


ROUND_FIELDS = unpack(BASE_BYTES)
HAND0 = ROUND_FIELDS[5][0]
FIRST_OF_HAND0 = (HAND0 & -HAND0).bit_length() - 1


@pytest.mark.parametrize(
    ("what", "data"),
    [
        ("version 2", mutate_round(0, 2)),
        ("version 3 with the opening field", mutate_round(0, 3)),
        ("opening not a bool", mutate_round(11, 1)),
        ("opening nil", mutate_round(11, None)),
        ("version 0", mutate_round(0, 0)),
        ("kind observation", mutate_round(1, "observation")),
        ("kind game", mutate_round(1, "game")),
        ("unknown variant", mutate_round(2, "no-such-variant")),
        ("players 5", mutate_round(3, 5)),
        ("players 1", mutate_round(3, 1)),
        ("unknown option", mutate_round(4, {"no_such_option": 1})),
        ("bad option value", mutate_round(4, {"double_double": "maybe"})),
        ("options not a map", mutate_round(4, [1, 2])),
        ("tile in two hands", mutate_round(5, [HAND0, HAND0 | ROUND_FIELDS[5][1]])),
        ("mask beyond 28 tiles", mutate_round(5, [HAND0 | 1 << 30, ROUND_FIELDS[5][1]])),
        ("one hand for two players", mutate_round(5, [HAND0])),
        ("hands not masks", mutate_round(5, ["6-6", "5-5"])),
        ("stock repeats a hand tile", mutate_round(6, bytes([FIRST_OF_HAND0]) + ROUND_FIELDS[6])),
        ("stock tile index 28", mutate_round(6, bytes([28]) + ROUND_FIELDS[6][1:])),
        ("stock tile twice", mutate_round(6, ROUND_FIELDS[6][:1] * 2 + ROUND_FIELDS[6][2:])),
        ("stock not bytes", mutate_round(6, 12)),
        ("leader 9", mutate_round(7, 9)),
        ("leader -1", mutate_round(7, -1)),
        ("lead tile 40", mutate_round(8, 40)),
        ("scores too short", mutate_round(9, [0])),
        ("scores not ints", mutate_round(9, ["a", "b"])),
        ("moves not 4-byte codes", mutate_round(10, ROUND_FIELDS[10][:-1])),
        ("illegal move code", mutate_round(10, ROUND_FIELDS[10] + (27).to_bytes(4, "little"))),
        ("moves garbage", mutate_round(10, b"\xff\xff\xff\xff")),
        ("extra field", msgpack.packb([*ROUND_FIELDS, 1], use_bin_type=True)),
        ("missing field", msgpack.packb(ROUND_FIELDS[:-1], use_bin_type=True)),
        ("not an array", msgpack.packb({"version": 1}, use_bin_type=True)),
        ("empty", b""),
        ("not msgpack", b"\xc1\xc1\xc1"),
        ("nil", msgpack.packb(None)),
        ("observation bytes", BASE_OBS_BYTES),
    ],
)
def test_malformed_round_raises_value_error(what, data):
    with pytest.raises(ValueError):
        Round.from_msgpack(data)


OBS_FIELDS = unpack(BASE_OBS_BYTES)


def mutate_obs(index: int, value: object) -> bytes:
    fields = list(OBS_FIELDS)
    fields[index] = value
    return msgpack.packb(fields, use_bin_type=True)


@pytest.mark.parametrize(
    ("what", "data"),
    [
        ("version 4", mutate_obs(0, 4)),
        ("version 2 with opening", mutate_obs(0, 2)),
        ("opening not a bool", mutate_obs(18, 1)),
        ("version 1 with closed_ends", mutate_obs(0, 1)),
        ("kind round", mutate_obs(1, "round")),
        ("closed_ends not a list", mutate_obs(17, "E")),
        ("closed_ends not an end", mutate_obs(17, ["X"])),
        ("closed_ends repeated", mutate_obs(17, ["E", "E"])),
        ("bad tile text in hand", mutate_obs(7, ["7-7"])),
        ("hand not a list", mutate_obs(7, 5)),
        ("bad move text in layout", mutate_obs(11, ["6-4@X"])),
        ("bad event", mutate_obs(13, [["play"]])),
        ("bad legal move", mutate_obs(16, ["nonsense"])),
        ("extra field", msgpack.packb([*OBS_FIELDS, 0], use_bin_type=True)),
        ("missing field", msgpack.packb(OBS_FIELDS[:-1], use_bin_type=True)),
        ("round bytes", BASE_BYTES),
        ("empty", b""),
    ],
)
def test_malformed_observation_raises_value_error(what, data):
    with pytest.raises(ValueError):
        Observation.from_msgpack(data)


def test_an_opening_the_rule_did_not_make_is_refused() -> None:
    """Field 11 of a round says the opening rule chose its leader and lead: bytes that
    claim it for a leader the rule would not choose are corrupt, and so is an observation
    that claims it in a variant without the rule."""
    given = Round.deal("kozel", players=2, seed=3, leader=1)
    assert BASE.opening and not given.opening
    fields = unpack(given.to_msgpack())
    assert fields[11] is False
    fields[11] = True
    with pytest.raises(ValueError, match="opening rule did not choose"):
        Round.from_msgpack(msgpack.packb(fields, use_bin_type=True))
    obs = unpack(Round.deal("block", players=2, seed=3).observation(0).to_msgpack())
    assert obs[18] is False
    obs[18] = True
    with pytest.raises(ValueError, match="no opening rule"):
        Observation.from_msgpack(msgpack.packb(obs, use_bin_type=True))


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=200))
def test_random_bytes_never_crash(data):
    for cls in (Round, Observation):
        try:
            obj = cls.from_msgpack(data)
        except ValueError:
            continue
        assert cls.from_msgpack(obj.to_msgpack()) == obj


@settings(max_examples=300, deadline=None)
@given(
    position=st.integers(0, len(BASE_BYTES) - 1),
    byte=st.integers(0, 255),
)
def test_corrupted_round_bytes_raise_value_error_or_load_whole(position, byte):
    data = bytearray(BASE_BYTES)
    data[position] = byte
    try:
        r = Round.from_msgpack(bytes(data))
    except ValueError:
        return
    # a corruption that still describes a legal round loads as a whole, consistent round
    assert Round.from_msgpack(r.to_msgpack()) == r
    assert r.hand_sizes == tuple(len(r.hand(s)) for s in range(r.players))
    assert sum(r.hand_sizes) + r.stock_size + len(r.layout) <= 28 + sum(
        1 for m in r.layout if getattr(m, "is_double_double", False)
    )


@settings(max_examples=200, deadline=None)
@given(
    position=st.integers(0, len(BASE_OBS_BYTES) - 1),
    byte=st.integers(0, 255),
)
def test_corrupted_observation_bytes_raise_value_error_or_load_whole(position, byte):
    data = bytearray(BASE_OBS_BYTES)
    data[position] = byte
    try:
        obs = Observation.from_msgpack(bytes(data))
    except ValueError:
        return
    assert Observation.from_msgpack(obs.to_msgpack()) == obs


def test_bones_error_is_value_error():
    assert issubclass(bones.IllegalMove, ValueError)
    assert issubclass(bones.OptionError, ValueError)
