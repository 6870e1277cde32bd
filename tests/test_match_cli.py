"""``bones match`` and ``bones show`` from the command line."""

from __future__ import annotations

import json

import pytest

from bones.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_match_table_and_json(tmp_path, capsys):
    journal = str(tmp_path / "m.jsonl")
    code, out, err = run(
        capsys, "match", "greedy", "random", "--games", "6", "--journal", journal, "--jobs", "1",
        "--seed", "0",
    )  # fmt: skip
    assert code == 0, err
    head = "Match greedy vs random: straight, 2 players, duplicate deals, seed "
    assert out.startswith(head)
    seed = int(out.splitlines()[0][len(head) :])  # drawn at random, shown, kept
    assert 0 <= seed < 2**63
    assert "Games: 6 of 6" in out and "Pentanomial greedy vs random:" in out
    assert err == ""  # no progress bar: stderr is not a terminal
    code, out, _ = run(capsys, "match", "--resume", "--journal", journal, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["counted"] == 6 and [b["bot"] for b in data["bots"]] == ["greedy", "random"]
    assert data["pairs"][0]["pentanomial"] is not None


def test_match_options_formats_and_sprt(tmp_path, capsys):
    journal = str(tmp_path / "rr.jsonl")
    code, out, err = run(
        capsys, "match", "greedy", "random", "heaviest", "--format", "round-robin",
        "--variant", "kozel", "--players", "3", "-o", "target=31", "--games", "6",
        "--journal", journal, "--jobs", "2", "--seed", "9",
    )  # fmt: skip
    assert code == 0, err
    assert "round-robin of 3 bots: kozel, 3 players (target=31)" in out
    assert "greedy vs heaviest" in out and "Games: 18 of 18" in out
    code, out, err = run(
        capsys, "match", "greedy", "random", "--games", "2000", "--sprt", "elo0=0", "elo1=20",
        "--journal", str(tmp_path / "s.jsonl"), "--jobs", "1", "--progress", "always",
        "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "H1 accepted (elo >= 20)" in out
    assert "games/s" in err and "ETA" in err  # the forced progress bar


@pytest.mark.parametrize(
    "argv, message",
    [
        (["greedy", "nosuch"], "unknown bot 'nosuch'; known bots: chain, expert, greedy, heaviest"),
        (["greedy", "random:seed=x,"], "bot spec"),
        (["greedy", "random", "--variant", "chess"], "unknown variant 'chess'; known variants:"),
        (["greedy", "random", "-o", "nope=1"], "nope"),
        (["greedy", "random", "heaviest"], "takes 2 to 2 bots, not 3; use --format round-robin"),
        (["a", "b", "c", "--players", "4", "--variant", "draw"], "unknown bot 'a'"),
        (["greedy", "random", "heaviest", "--players", "4"], "a bot and its copy form a team"),
        (["greedy", "random", "--players", "3", "--variant", "block"], "block is played by 2, 4"),
        (["greedy", "random", "--sprt", "elo0=5", "elo1=1"], "elo0 must be below elo1"),
        (["greedy", "random", "--format", "swiss"], "invalid choice: 'swiss'"),
        (["greedy"], "at least 2 bots"),
        ([], "give at least 2 bots"),
        (["--resume"], "needs --journal"),
    ],
)
def test_match_bad_input(tmp_path, capsys, argv, message):
    journal = [] if "--resume" in argv else ["--journal", str(tmp_path / "x.jsonl")]
    code, out, err = run(capsys, "match", *argv, *journal)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bones: error: "), err
    assert message in lines[0], lines[0]
    assert not (tmp_path / "x.jsonl").exists()


def test_existing_journal_continues_the_same_match_only(tmp_path, capsys):
    journal = str(tmp_path / "m.jsonl")
    args = ["match", "greedy", "random", "--games", "2", "--journal", journal, "--jobs", "1"]
    code, first, _ = run(capsys, *args, "--seed", "0")
    assert code == 0
    code, again, err = run(capsys, *args)  # the same match again: its result at once
    assert code == 0 and again == first
    assert err == (
        f"bones: {journal}: 2 games played; the match is complete: nothing to play, "
        "the result is the journal's\n"
    )
    code, _, err = run(capsys, *args[:-4], "--seed", "3", "--journal", journal)
    assert code == 2 and "exists and holds another match (seed 0 (not 3))" in err
    assert "--overwrite starts it again" in err
    # --overwrite starts a new match: a new seed, not the old journal's
    code, again, _ = run(capsys, *args, "--overwrite")
    assert code == 0 and "seed 0\n" not in again
    seed = again.splitlines()[0].rpartition("seed ")[2]
    code, _, err = run(capsys, *args[:-4], "--seed", "3", "--journal", journal, "--resume")
    assert code == 2 and f"holds another match: seed {seed} (not 3)" in err


def test_show(tmp_path, capsys):
    journal = str(tmp_path / "m.jsonl")
    run(capsys, "match", "greedy", "random", "--variant", "draw", "--players", "3",
        "--games", "6", "--journal", journal, "--jobs", "1", "--seed", "1")  # fmt: skip
    code, out, err = run(capsys, "show", journal, "--game", "4")
    assert code == 0, err
    assert out.startswith("Game 4: draw, 3 players; seed ")
    assert "Round 1:" in out and "   1. seat " in out and "Final scores: " in out
    assert "round over (" in out and "game scores:" in out
    # a record file, as --json writes it
    code, rec_text, _ = run(capsys, "show", journal, "--game", "4", "--json")
    record = json.loads(rec_text)
    path = tmp_path / "g4.json"
    path.write_text(rec_text)
    code, out2, _ = run(capsys, "show", str(path))
    assert code == 0 and out2 == out
    # errors: no such game, several games, a record that does not replay
    code, _, err = run(capsys, "show", journal, "--game", "99")
    assert code == 2 and "has no game 99; its games: 0-5" in err
    code, _, err = run(capsys, "show", journal)
    assert code == 2 and "holds 6 games (ids 0-5); choose one with --game N" in err
    moves = record["rounds"][0]["moves"].split()
    record["rounds"][0]["moves"] = " ".join([moves[1], moves[0], *moves[2:]])
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "show", str(path))
    assert code == 1 and "game 4 does not replay: round 1" in err
    record = json.loads(rec_text)
    record["seed"] += 1
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "show", str(path))
    assert code == 1 and "the recorded deal is not the one the seed deals" in err
    code, _, err = run(capsys, "show", str(tmp_path / "none.jsonl"))
    assert code == 2 and "none.jsonl: no such file" in err
