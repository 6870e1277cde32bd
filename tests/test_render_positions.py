"""Pictures of real rounds, observations and games in every built-in variant."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest
from helpers import CASES

import bones
from bones.render import board_text, svg_of

SVG = "{http://www.w3.org/2000/svg}"


def tiles_drawn(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    (board,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "board"]
    return [
        g.get("data-tile") for g in board.iter(f"{SVG}g") if "tile" in g.get("class", "").split()
    ]


def labels(svg: str) -> set[str]:
    root = ET.fromstring(svg)
    return {g.get("data-tile") for g in root.iter(f"{SVG}g") if g.get("data-tile")}


@pytest.mark.parametrize("variant, players", CASES)
def test_every_position_of_a_round(variant, players):
    rng = random.Random(players)
    rnd = bones.Round.deal(variant, players, seed=5)
    while True:
        svg = svg_of(rnd)
        assert svg == rnd._repr_svg_() == svg_of(rnd.copy())  # deterministic
        placed = [str(p.tile) for p in rnd.placements]
        assert tiles_drawn(svg) == placed
        assert len(placed) == sum(1 + (m.tile2 is not None) for m in rnd.layout)
        hands = {str(t) for s in range(players) for t in rnd.hand(s)}
        assert hands <= labels(svg)  # a round shows every hand
        for seat in range(players):
            obs = rnd.observation(seat)
            seen = obs._repr_svg_()
            assert tiles_drawn(seen) == placed
            # the seat's own hand and the table, nothing of the other hands or the stock
            assert labels(seen) == set(placed) | {str(t) for t in obs.hand}
        text = board_text(rnd.placements, rnd.closed_ends)
        assert text.count("[") == sum(1 if p.angle in (0, 180) else 2 for p in rnd.placements)
        if rnd.is_over:
            break
        rnd.play(rng.choice(list(rnd.legal_moves)))


def test_game_picture_shows_the_game_scores():
    game = bones.new_game("straight", 2, seed=3)
    while not game.round.is_over:
        game.round.play(game.round.legal_moves[0])
    game.next_round()
    svg = game._repr_svg_()
    ET.fromstring(svg)
    scores = "-".join(map(str, game.scores))
    assert f"round 2, game scores {scores}" in svg
