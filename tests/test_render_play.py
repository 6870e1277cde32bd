"""``bones play`` driven through a pseudo-terminal: bad input, a whole round typed by the
test, Ctrl-C saving the game, ``--resume`` continuing it to the end."""

from __future__ import annotations

import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect", reason="the terminal test needs pexpect (bones[test])")

PROMPT = r"move \[1-(\d+)\], or q to save and quit: "


def spawn(*args: str):
    return pexpect.spawn(
        sys.executable,
        ["-m", "bones", "play", *args],
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 200),
    )


def answer(child, choice: str = "1") -> str:
    """Wait for the prompt; type ``choice``; return what was shown before the prompt."""
    child.expect(PROMPT)
    shown = child.before
    child.sendline(choice)
    return shown


def test_a_round_typed_then_saved_and_resumed(tmp_path):
    save = str(tmp_path / "game.play")
    child = spawn("--variant", "draw", "--players", "2", "--seats", "human,greedy",
                  "--seed", "7", "-o", "target=150", "--save", save)  # fmt: skip
    child.expect(r"bones play: draw, 2 players, seed 7")
    # bad input is answered and asked again
    child.expect(PROMPT)
    legal = int(child.match.group(1))
    first = child.before
    assert "your hand (seat 0 (you)):" in first and "your moves:" in first
    assert re.search(r"scores: seat 0 \(you\): 0, seat 1 \(greedy\): 0", first)
    for bad in ("x", "0", str(legal + 1), ""):
        child.sendline(bad)
        child.expect("is not one of your moves: type a number from 1 to")
        child.expect(PROMPT)
    child.sendline("1")
    # type moves until the first round is over: every prompt shows the board and hand
    moves = 1
    while True:
        i = child.expect([PROMPT, r"round over \((out|blocked)\)"])
        if i == 1:
            break
        assert "open ends:" in child.before and "your hand" in child.before
        child.sendline("1")
        moves += 1
    child.expect(r"game scores: (\d+)-(\d+)")
    scores = child.match.group(1), child.match.group(2)
    # Ctrl-C at the next prompt saves the game
    child.expect(PROMPT)
    hand = re.search(r"your hand \(seat 0 \(you\)\): ([^\r\n]*)", child.before).group(1)
    child.sendintr()
    child.expect(f"game saved to {re.escape(save)}; continue it with: bones play --resume")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert moves >= 3
    # --resume shows the same position and plays the game to its end
    child = spawn("--resume", save)
    child.expect(PROMPT)
    assert f"your hand (seat 0 (you)): {hand}" in child.before
    assert f"seat 0 (you): {scores[0]}, seat 1 (greedy): {scores[1]}" in child.before
    child.sendline("1")
    while child.expect([PROMPT, r"game over: final scores \d+-\d+; won by"]) == 0:
        child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_q_saves_and_automatic_draws_are_explained(tmp_path):
    save = str(tmp_path / "g.play")
    child = spawn("--variant", "draw", "--players", "3", "--seats", "greedy,random,human",
                  "--seed", "3", "-o", "target=1000", "--save", save)  # fmt: skip
    seen = ""
    draw = r"has no tile for the open ends \([^)]*\) and draws (a tile|\d+ tiles)"
    for _ in range(80):  # a 3-player draw game runs its boneyard down: someone draws
        child.expect(PROMPT)
        seen += child.before
        if re.search(draw, seen):
            break
        child.sendline("1")
    child.sendline("q")
    child.expect("game saved to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, seen[-2000:]
    assert re.search(draw, seen), seen[-2000:]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seats", "human,nobot"], "nobot"),
        (["--seats", "human,greedy", "--players", "3"], "--players 3 but 2 seats"),
        (["--seats", "human,,greedy"], "an empty seat"),
        (["--resume", "x.play", "--seed", "3"], "give no other game option"),
        (["--variant", "nope"], "nope"),
    ],
)
def test_bad_command_lines(capsys, argv, message):
    from bones.cli import main

    code = main(["play", *argv])
    err = capsys.readouterr().err
    assert code in (1, 2) and err.startswith("bones: error:") and message in err, err


def test_resume_of_a_bad_file(tmp_path, capsys):
    from bones.cli import main

    path = tmp_path / "bad.play"
    path.write_bytes(b"not msgpack at all")
    assert main(["play", "--resume", str(path)]) == 1
    assert "not a saved bones game" in capsys.readouterr().err
    assert path.read_bytes() == b"not msgpack at all"
