"""What ``bones play`` accepts at its prompt: a move in either tile order and any case,
Enter for the only legal move; and the words of the train games (penalties, the lowest
total wins).  Played through :func:`bones.render.play.play_game` with a scripted person."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bones
from bones.render.play import play_game
from bones.render.trains_text import train_name

NAMES = ["seat 0 (you)", "seat 1 (greedy)", "seat 2 (greedy)"]


def respelled(text: str) -> str:
    """``12-7@M`` -> ``7-12@m``: every tile turned round, the rest in the other case."""
    turned = re.sub(r"(\d+)-(\d+)", lambda m: f"{m.group(2)}-{m.group(1)}", text)
    return turned.swapcase()


def play_typing(variant: str, players: int, seed: int, answer) -> tuple[str, list]:
    """A whole game with the person at seat 0 typing ``answer(legal moves)``; the text
    shown and what was typed at each prompt, with the legal moves then."""
    game = bones.new_game(variant, players, seed)
    typed: list = []

    def ask(prompt: str) -> str:
        legal = list(game.round.legal_moves)
        text = answer(legal, typed)
        again = typed[-2:] == [(text, legal, prompt)] * 2
        assert not again, f"{text!r} refused three times: {legal}"
        typed.append((text, legal, prompt))
        return text

    out = io.StringIO()
    seats = ["human", *["greedy"] * (players - 1)]
    assert play_game(game, seats, save_path="unused", ask=ask, out=out) == 0
    return out.getvalue(), typed


@pytest.mark.parametrize(
    "variant, players, seed", [("mexican-train", 2, 3), ("chicken-foot", 3, 5), ("straight", 2, 1)]
)
def test_a_move_in_either_tile_order_and_any_case(variant, players, seed):
    def answer(legal, typed):
        return respelled(str(legal[-1]))  # never the number, never the exact text

    text, typed = play_typing(variant, players, seed, answer)
    assert typed
    assert "is not one of your moves" not in text
    if variant == "straight":
        assert any(re.fullmatch(r"\d-\d@[wens]", t) for t, _, _ in typed)
        return
    for t, legal, _ in typed:  # each placement as it was explained, the move the last one
        move = legal[-1]
        tile, _, target = str(move).partition("@")
        layout = "trains" if variant == "mexican-train" else "chicken_foot"
        if layout == "trains":
            where = "its own train" if target == "P0" else train_name(target, NAMES, players)
        else:
            where = f"the {target}"
        assert f"seat 0 (you) plays {tile} on {where}" in text, t
        assert t != str(move)  # another case at least
    assert any(t.lower() != str(legal[-1]).lower() for t, legal, _ in typed)  # turned round


def test_enter_plays_the_only_legal_move_and_only_then():
    seen = {"only": 0, "refused": 0}

    def answer(legal, typed):
        if len(legal) == 1:
            seen["only"] += 1
            return ""
        if typed and typed[-1][0] == "" and typed[-1][1] == legal:
            return "1"  # Enter was refused: the number now
        seen["refused"] += 1
        return ""

    text, typed = play_typing("mexican-train", 2, 3, answer)
    assert seen["only"] >= 1 and seen["refused"] >= 1
    assert "your moves (Enter plays the only one):" in text
    assert text.count("'' is not one of your moves") == seen["refused"]


def test_train_games_speak_of_penalties_and_the_lowest_total():
    text, _ = play_typing("mexican-train", 2, 3, lambda legal, typed: "1")
    assert "penalties (pips left):" in text and "points:" not in text
    assert "penalty totals: seat 0 (you): 0, seat 1 (greedy): 0 (lowest total wins)" in text
    assert re.search(r"game penalty totals \(lowest total wins\): \d+-\d+", text)
    over = re.search(r"game over: final penalty totals \(lowest total wins\) (\d+)-(\d+); won by "
                     r"seat (\d)", text)  # fmt: skip
    assert over, text[-500:]
    totals = [int(over.group(1)), int(over.group(2))]
    assert totals[int(over.group(3))] == min(totals)


@settings(max_examples=120, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=20),
        st.from_regex(r"\s*\d{1,3}\s*-\s*\d{1,3}(@[A-Za-z0-9-]{0,6})?\s*", fullmatch=True),
    ),
    variant=st.sampled_from(["mexican-train", "chicken-foot", "straight"]),
)
def test_anything_typed_plays_a_legal_move_or_is_asked_again(tmp_path_factory, text, variant):
    """Typed text, well-formed or not: either one of the legal moves is played or the
    prompt is shown again; nothing else happens (``q`` then saves the game)."""
    game = bones.new_game(variant, 2, 7)
    answers = iter([text, "q"])
    out = io.StringIO()
    seats = ["human", "greedy"]
    path = str(tmp_path_factory.mktemp("fuzz") / "g.play")
    before = None

    def ask(prompt: str) -> str:
        nonlocal before
        if before is None:
            before = (len(game.round.placements), list(game.round.legal_moves))
        return next(answers, "q")

    code = play_game(game, seats, save_path=path, ask=ask, out=out)
    assert code in (0, 130)
    refused = "is not one of your moves" in out.getvalue() or "goes on more than one" in (
        out.getvalue()
    )
    placed = len(game.round.placements) > before[0] or game.round_index > 0
    assert refused != placed or text.strip().lower() in ("q", "quit"), (text, out.getvalue()[-300:])
