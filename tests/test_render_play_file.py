"""The file ``bones play`` saves on Ctrl-C: round trip, and bad files refused clearly."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bones import new_game
from bones.render.play import PlayError, load_game, save_game


def played(moves: int):
    game = new_game("straight", 2, seed=11)
    for _ in range(moves):
        game.round.play(game.round.legal_moves[0])
    return game


def test_round_trip_mid_round(tmp_path):
    game = played(5)
    path = str(tmp_path / "g.game")
    save_game(path, game, ["human", "greedy"])
    again, seats = load_game(path)
    assert seats == ["human", "greedy"]
    assert again.round == game.round
    assert again.to_msgpack() == game.to_msgpack()
    assert not (tmp_path / "g.game.tmp").exists()


def _doc(**change):
    doc = {
        "schema": "bones.play",
        "version": 1,
        "seats": ["human", "greedy"],
        "game": played(3).to_msgpack(),
    }
    doc.update(change)
    return msgpack.packb({k: v for k, v in doc.items() if v is not ...}, use_bin_type=True)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "truncated or malformed"),
        (b"\x92\x01", "not a saved bones game"),
        (_doc(schema="bones.game"), "not a saved bones game"),
        (_doc(version=2), "version 2"),
        (_doc(seats=["human"]), "1 seats for a game of 2 players"),
        (_doc(seats=[1, 2]), "list of bot specs"),
        (_doc(game=...), "the game is missing"),
        (_doc(game=b"\x80"), "Game msgpack"),
    ],
)
def test_bad_files(tmp_path, data, message):
    path = tmp_path / "g.game"
    path.write_bytes(data)
    with pytest.raises(PlayError, match=message):
        load_game(str(path))
    assert path.read_bytes() == data  # nothing lost


def test_missing_file(tmp_path):
    with pytest.raises(PlayError, match="cannot read"):
        load_game(str(tmp_path / "none.game"))


GOOD = _doc()


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_fuzzed_files_load_or_fail_cleanly(tmp_path_factory, data):
    blob = bytearray(GOOD)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(1, len(blob)))
    path = tmp_path_factory.mktemp("fuzz") / "g.game"
    path.write_bytes(bytes(blob[:cut]))
    try:
        game, seats = load_game(str(path))
    except PlayError as exc:
        assert str(exc).startswith(str(path))
    else:
        assert len(seats) == game.players
