"""Serialisation round trip of a mid-game 2-player block position.

bones: ``Round.from_msgpack(r.to_msgpack())``.  OpenSpiel: ``game.deserialize_state(
state.serialize())`` of the same position (same hands, same placements) when bones is built,
else of OpenSpiel's own random mid-game position; ``serialize_game_and_state`` +
``deserialize_game_and_state`` (which also re-parses the game) is reported for information.
Targets (checked by ``bench/compare.py``): bones >= 3x faster than OpenSpiel's state round
trip, and under 3 us.
"""

from __future__ import annotations

import pytest
import workloads


@pytest.fixture(scope="module")
def midgame(bones_api):
    r, deal_seed, moves = workloads.bones_midgame()
    return r, deal_seed, moves


@pytest.fixture(scope="module")
def os_midgame(pyspiel):
    if workloads.core_missing() is None:
        r, deal_seed, moves = workloads.bones_midgame()
        return workloads.openspiel_mirror(deal_seed, moves)
    return workloads.openspiel_midgame()


@pytest.mark.benchmark(group="serial-roundtrip")
def test_bones_roundtrip(benchmark, midgame):
    r = midgame[0]
    back = benchmark(workloads.bones_roundtrip(r))
    assert back.to_msgpack() == r.to_msgpack()
    benchmark.extra_info["bytes"] = len(r.to_msgpack())


@pytest.mark.benchmark(group="serial-roundtrip")
def test_openspiel_roundtrip(benchmark, os_midgame):
    game, state = os_midgame
    back = benchmark(workloads.openspiel_roundtrip(game, state))
    assert back.serialize() == state.serialize()
    benchmark.extra_info["bytes"] = len(state.serialize().encode())


@pytest.mark.benchmark(group="serial-roundtrip")
def test_openspiel_roundtrip_with_game(benchmark, os_midgame):
    game, state = os_midgame
    benchmark(workloads.openspiel_roundtrip_with_game(game, state))


@pytest.mark.benchmark(group="serial-parts")
def test_bones_to_msgpack(benchmark, midgame):
    benchmark(midgame[0].to_msgpack)


@pytest.mark.benchmark(group="serial-parts")
def test_bones_from_msgpack(benchmark, midgame):
    r = midgame[0]
    data = r.to_msgpack()
    benchmark(type(r).from_msgpack, data)
