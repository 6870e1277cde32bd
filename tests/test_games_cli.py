"""``bones games JOURNAL``: the listing of a journal's games and its filters."""

from __future__ import annotations

import json

import pytest

from bones.cli import main
from bones.match.journal import read_journal


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("games")
    plain = tmp / "gr.jsonl"
    forfeit = tmp / "ff.jsonl"
    assert main(["match", "greedy", "random", "--games", "12", "--journal", str(plain),
                 "--jobs", "1", "--seed", "5", "--secret", "5e" * 32]) == 0  # fmt: skip
    assert main(["match", "t-answer:kind=int", "random", "--plugin", "hardening_plugin",
                 "--games", "2", "--journal", str(forfeit), "--jobs", "1",
                 "--seed", "5", "--secret", "5e" * 32]) == 0  # fmt: skip
    return plain, forfeit


def test_listing_and_json(journals, capsys):
    plain, _ = journals
    code, out, err = run(capsys, "games", plain)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["id", "variant", "seats", "result", "scores", "rounds", "moves",
                                "forfeit"]  # fmt: skip
    assert lines[-1] == "(12 games)" and len(lines) == 14
    records = read_journal(plain).records
    code, out, _ = run(capsys, "games", plain, "--json")
    rows = json.loads(out)
    assert [r["id"] for r in rows] == list(range(12))
    for row, rec in zip(rows, records, strict=True):
        assert row["seats"] == rec["seats"] and row["scores"] == rec["scores"]
        assert row["rounds"] == len(rec["rounds"])
        assert row["moves"] == sum(len(r["moves"].split()) for r in rec["rounds"]) > 0
        winner = rec["sides"][rec["winners"][0]][0]
        assert row["winners"] == [winner]
        assert row["result"] == f"won by {rec['seats'][winner]} (seat {winner})"
        assert row["forfeit"] is None
        cells = lines[1 + rec["id"]].split()
        assert cells[0] == str(rec["id"]) and cells[-2] == str(row["moves"])


def test_filters(journals, capsys):
    plain, forfeit = journals
    rows = json.loads(run(capsys, "games", plain, "--json")[1])
    lost = [r["id"] for r in rows if any(r["seats"][x] == "greedy" for x in r["losers"])]
    code, out, _ = run(capsys, "games", plain, "--lost-by", "greedy", "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == lost
    code, out, _ = run(capsys, "games", plain, "--lost-by", "random", "--json")
    assert {r["id"] for r in json.loads(out)} == {r["id"] for r in rows} - set(lost)
    code, out, _ = run(capsys, "games", plain, "--limit", "3", "--json")
    assert [r["id"] for r in json.loads(out)] == [0, 1, 2]
    code, out, _ = run(capsys, "games", plain, "--limit", "3")
    assert out.splitlines()[-1] == "(3 of 12 games; --limit 3)" and len(out.splitlines()) == 5
    code, out, _ = run(capsys, "games", plain, "--variant", "block")
    assert code == 0 and out == "No game matches.\n"
    code, out, _ = run(capsys, "games", plain, "--forfeits", "--json")
    assert json.loads(out) == []
    code, out, _ = run(capsys, "games", forfeit, "--forfeits")
    assert code == 0
    assert "seat 0: illegal" in out and "seat 1: illegal" in out and "(2 games)" in out
    code, out, _ = run(capsys, "games", forfeit, "--forfeits", "--json")
    rows = json.loads(out)
    assert [r["forfeit"]["bot"] for r in rows] == ["t-answer:kind=int"] * 2
    assert all(r["forfeit"]["reason"] == "illegal" for r in rows)
    assert [r["result"] for r in rows] == ["won by random (seat 1)", "won by random (seat 0)"]
    # --lost-by takes a spec or a bot's name
    code, out, _ = run(capsys, "games", forfeit, "--lost-by", "t-answer", "--json")
    assert len(json.loads(out)) == 2


def test_lost_by_in_multi_seat_games_means_did_not_win(tmp_path, capsys):
    """Two bots at three seats: one of them holds two, and one of its seats finishing
    behind its other seat is no loss; --lost-by lists the games the bot did not win."""
    journal = tmp_path / "three.jsonl"
    assert main(["match", "greedy", "random", "--variant", "mexican-train", "--players", "3",
                 "--games", "6", "--seed", "3", "--secret", "ab" * 32, "--journal",
                 str(journal), "--jobs", "1", "--progress", "never"]) == 0  # fmt: skip
    capsys.readouterr()
    rows = json.loads(run(capsys, "games", journal, "--json")[1])
    assert all(r["result"].startswith("won by") for r in rows)
    beaten_seat = 0  # games a bot won with another of its seats among the losers
    for bot in ("greedy", "random"):
        held = [{x for x, spec in enumerate(r["seats"]) if spec == bot} for r in rows]
        won = {r["id"] for r, seats in zip(rows, held, strict=True) if seats & set(r["winners"])}
        code, out, _ = run(capsys, "games", journal, "--lost-by", bot, "--json")
        assert code == 0 and [r["id"] for r in json.loads(out)] == [
            r["id"] for r in rows if r["id"] not in won
        ]
        beaten_seat += sum(
            r["id"] in won and bool(seats & set(r["losers"]))
            for r, seats in zip(rows, held, strict=True)
        )
    assert beaten_seat  # such games are there, and not listed


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--lost-by", "nosuch"], "--lost-by nosuch: no such bot in"),
        (["--limit", "-1"], "--limit must be >= 0"),
        (["--game", "3"], "--game N goes with --record"),
        (["--record", "--game", "1", "--json"], "--record prints one game"),
        (["--record", "--game", "99"], "has no game 99"),
    ],
)
def test_usage_errors(journals, capsys, argv, message):
    code, _, err = run(capsys, "games", journals[0], *argv)
    assert code == 2 and message in err, err


def test_not_a_journal(tmp_path, capsys):
    bad = tmp_path / "x.jsonl"
    bad.write_text("hello\nworld\n")
    code, _, err = run(capsys, "games", bad)
    assert code == 2 and "x.jsonl" in err


def test_record_of_a_journal_without_moves(journals, tmp_path, capsys):
    from bones.match.journal import without_moves

    plain, _ = journals
    light = tmp_path / "light.jsonl"
    light.write_bytes(without_moves(plain.read_bytes()))
    code, _, err = run(capsys, "games", light, "--game", "2", "--record")
    assert code == 2 and "its moves are not in this journal" in err
    code, out, _ = run(capsys, "games", light, "--json", "--limit", "1")
    row = json.loads(out)[0]
    assert code == 0 and row["moves"] is None and row["rounds"] is None
    code, out, _ = run(capsys, "games", light, "--limit", "1")
    assert out.splitlines()[1].split()[-3:] == ["-", "-", "-"]
