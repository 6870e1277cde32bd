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


# -- bones play: the save never written over, a bare tile, the seats checked first --------


def test_a_save_never_writes_over_another_game(tmp_path, monkeypatch, capsys):
    import io

    from bones.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bones-play.game").write_bytes(b"an older saved game")
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "--seats", "human,greedy", "--seed", "3"]) == 130
    out = capsys.readouterr().out
    assert "bones-play.game holds another saved game: it is kept" in out
    assert "game saved to bones-play-2.game; continue it with: bones play --resume " in out
    assert (tmp_path / "bones-play.game").read_bytes() == b"an older saved game"
    game, seats = load_game("bones-play-2.game")
    assert seats == ["human", "greedy"]
    # resumed from its file, the game saves back to it
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "--resume", "bones-play-2.game"]) == 130
    assert "game saved to bones-play-2.game;" in capsys.readouterr().out
    assert not (tmp_path / "bones-play-3.game").exists()


def test_a_bare_tile_is_its_only_placement(tmp_path):
    import io

    from bones.render.play import _by_tile, _tiles, play_game

    game = new_game("straight", 2, seed=1)
    typed: list[str] = []
    expected: list = []  # (round, the move a bare tile names)

    def ask(prompt: str) -> str:
        for rnd, move in expected:  # each bare tile played its one placement
            assert rnd is not game.round or move in rnd.moves
        legal = game.round.legal_moves
        tiles = [str(m.tile) for m in legal if m.tile is not None and m.tile2 is None]
        once = [m for m in legal if m.tile is not None and tiles.count(str(m.tile)) == 1]
        if len(typed) >= 4 or not once:
            return "q"
        a, b = str(once[0].tile).split("-")
        typed.append(f"{b}-{a}")  # either way round
        expected.append((game.round, once[0]))
        return typed[-1]

    human = game.round.to_move
    seats = ["greedy", "greedy"]
    seats[human] = "human"
    out = io.StringIO()
    assert play_game(game, seats, save_path=str(tmp_path / "g"), ask=ask, out=out) == 130
    assert typed and "is not one of your moves" not in out.getvalue()
    for rnd, move in expected:
        assert rnd is not game.round or move in rnd.moves
    legal = list(new_game("straight", 2, seed=1).round.legal_moves)
    assert _by_tile(legal, "x") == [] and _tiles(1) == "1 tile" and _tiles(2) == "2 tiles"


def test_a_bad_seat_is_a_usage_error_before_the_banner(capsys):
    from bones.cli import main

    assert main(["play", "--seats", "human,gredy"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("bones: error: --seats: seat 1: unknown bot 'gredy'; known bots:")


def test_a_bare_tile_with_several_placements_is_asked_again(tmp_path):
    import io

    from bones.render.play import play_game

    # find a position where the seat to move has a tile that goes on two ends
    def search():
        for seed in range(100):
            game = new_game("straight", 2, seed=seed)
            rnd = game.round
            for _ in range(8):
                tiles = [str(m.tile) for m in rnd.legal_moves if m.tile is not None]
                twice = [t for t in tiles if tiles.count(t) > 1]
                if twice:
                    return game, rnd, twice
                if rnd.is_over:
                    break
                doubles = [m for m in rnd.legal_moves if m.tile is not None and m.tile.is_double]
                rnd.play((doubles or list(rnd.legal_moves))[0])
        raise AssertionError("no position with a tile on two ends")

    game, rnd, twice = search()
    answers = iter([twice[0], "q"])
    seats = ["greedy", "greedy"]
    seats[rnd.to_move] = "human"
    out = io.StringIO()
    code = play_game(
        game, seats, save_path=str(tmp_path / "g"), ask=lambda _: next(answers), out=out
    )
    assert code == 130
    assert f"{twice[0]} goes on more than one end: type one of {twice[0]}@" in out.getvalue()
