"""bench/dominoes_bot.py: abw333/dominoes' probabilistic_alphabeta as a bones bot (skipped
without the ``dominoes`` package, the ``bench`` extra)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

import bones
from bones.bot import play_round

pytest.importorskip("dominoes")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import dominoes_bot  # noqa: E402


def test_the_game_replays_the_observation() -> None:
    for seed in range(6):
        rnd = bones.Round.deal("block", players=4, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 14)):
            if rnd.is_over:
                break
            rnd.play(rng.choice(list(rnd.legal_moves)))
        if rnd.is_over:
            continue
        seat = rnd.to_move
        assert seat is not None
        game = dominoes_bot.game_of(rnd.observation(seat), seed)
        assert game.turn == seat
        assert sorted(str(d) for d in game.hands[seat]) == sorted(
            str(dominoes_bot.domino(t)) for t in rnd.hand(seat)
        )
        if rnd.layout:
            assert (game.board.left_end(), game.board.right_end()) == tuple(v for _, v in rnd.ends)
        legal = tuple(rnd.legal_moves)
        for d, left in game.valid_moves:
            assert dominoes_bot.move_of(d, left, legal, lead=not rnd.layout) in legal


def test_plays_legal_rounds_and_refuses_other_variants() -> None:
    rnd = bones.Round.deal("block", players=4, seed=3)
    bots = [dominoes_bot.DominoesPAB(seed=s, start_move=10) for s in range(4)]
    play_round(rnd, bots)  # rejects an illegal move
    assert rnd.is_over
    other = bones.Round.deal("straight", players=2, seed=1)
    seat = other.to_move
    assert seat is not None
    with pytest.raises(bones.OptionError, match="block with 4 players"):
        bots[0].choose(other.observation(seat), tuple(other.legal_moves))
