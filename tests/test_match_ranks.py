"""A game ranks every side by its own final standings (issue 42): the scores of the
scoring games, the penalties of the train games, Kozel's goats; a crash loses every seat
of the bot that crashed; intervals stay within what a score can reach; journals of the
previous release read with their old ranks."""

from __future__ import annotations

import json

import pytest

from bones import new_game
from bones.cli import main
from bones.match.journal import check_game, forfeit_result, ranks_of
from bones.match.report import format_table, summarize
from bones.match.runner import play_game
from bones.match.stats import estimate_samples

PLUGIN = ["--plugin", "test_match_runner", "--jobs", "1", "--progress", "never"]


def test_ranks_of_orders_every_side_by_its_standings():
    # 2 for each side beaten, 1 for each tie: two sides are the usual 2-0 and 1-1
    assert ranks_of(2, [0], [1]) == [2, 0]
    assert ranks_of(2, [0, 1], []) == [1, 1]
    # four train seats: penalties 30, 120, 75, 120 (GameRules.standings: lower is better)
    rules = new_game("mexican-train", 4, 0).game_rules
    keys = rules.standings((30, 120, 75, 120), (0,), (1, 2, 3))
    assert ranks_of(4, [0], [1, 2, 3], keys) == [6, 1, 4, 1]
    # points: the higher total finishes ahead, the winners first whatever the scores
    rules = new_game("straight", 3, 0).game_rules
    keys = rules.standings((150, 40, 95), (0,), (1, 2))
    assert ranks_of(3, [0], [1, 2], keys) == [4, 0, 2]
    # Kozel's goats last (penalties: the goat has the highest score)
    rules = new_game("kozel", 3, 0).game_rules
    keys = rules.standings((20, 101, 60), (0,), (1,))
    assert ranks_of(3, [0], [1], keys) == [4, 0, 2]


def test_a_train_game_ranks_every_seat_by_its_penalty_total():
    task = {
        "id": 0, "group": 0, "deal": 0, "encounter": 0, "seating": 0,
        "variant": "mexican-train", "players": 4, "options": {}, "seed": 5,
        "seats": ["greedy", "random", "greedy", "random"], "seat_bots": [0, 1, 0, 1],
        "bot_seeds": [1, 2, 3, 4], "timeout": None,
    }  # fmt: skip
    rec = play_game(task)
    assert check_game(rec) is None
    scores, ranks = rec["scores"], rec["ranks"]
    for i in range(4):
        for j in range(4):
            # a lower penalty total finishes ahead; equal totals tie
            assert (ranks[i] > ranks[j]) == (scores[i] < scores[j])


def _record(gid, side_bots, ranks, forfeit=None):
    return {"id": gid, "group": gid, "deal": gid, "sides": [[s] for s in range(len(ranks))],
            "seat_bots": list(side_bots), "ranks": list(ranks), "forfeit": forfeit}  # fmt: skip


def _config(bots, players):
    return {"bots": list(bots), "variant": "mexican-train", "players": players,
            "format": "head-to-head", "duplicate": False, "seed": 1}  # fmt: skip


def test_two_bots_that_sweep_a_third_differ_by_their_second_places():
    # A and B win every game against C at four seats (ABAB): A's other seat finishes
    # second, B's third
    a_games = [_record(g, [0, 1, 0, 1], [6, 0, 4, 2]) for g in range(8)]
    b_games = [_record(g, [0, 1, 0, 1], [6, 4, 2, 0]) for g in range(8)]
    a = summarize(_config(["A", "C"], 4), a_games)["bots"][0]
    b = summarize(_config(["B", "C"], 4), b_games)["bots"][0]
    assert a["score"] == 1.0 and b["score"] == 0.75
    # bones 0.1's ranks (the winner 2, every other seat 0): both 75%, as they were
    old = [_record(g, [0, 1, 0, 1], [2, 0, 0, 0]) for g in range(8)]
    assert summarize(_config(["A", "C"], 4), old)["bots"][0]["score"] == 0.75
    assert check_game({**_full(), "ranks": [2, 0, 0, 0]}) is None


def _full():
    return {
        "type": "game", "id": 0, "group": 0, "deal": 0, "encounter": 0, "seating": 0,
        "variant": "mexican-train", "players": 4, "options": {}, "seed": 1,
        "seats": ["a", "b", "a", "b"], "seat_bots": [0, 1, 0, 1], "bot_seeds": [],
        "sides": [[0], [1], [2], [3]], "rounds": [], "scores": [1, 2, 3, 4],
        "winners": [0], "losers": [1, 2, 3], "forfeit": None, "ranks": [6, 4, 2, 0],
    }  # fmt: skip


def test_ranks_are_checked_against_the_number_of_sides():
    assert check_game(_full()) is None
    assert "ranks" in check_game({**_full(), "ranks": [7, 4, 2, 0]})
    assert "ranks" in check_game({**_full(), "ranks": [6, 4, 2]})


def test_a_crash_loses_every_seat_of_the_bot_that_crashed():
    sides = [[0], [1], [2], [3]]
    assert forfeit_result(sides, [0, 1, 0, 2], 2) == ([1, 3], [0, 2])
    assert forfeit_result(sides, [0, 1, 0, 2], -1) == ([], [])
    # partnerships: the side of the seat is the bot's
    assert forfeit_result([[0, 2], [1, 3]], [0, 1, 0, 1], 3) == ([0], [1])


def test_a_bot_that_crashes_every_game_scores_nothing(tmp_path, capsys):
    journal = tmp_path / "crash.jsonl"
    argv = ["match", "t-crash:after=1", "greedy", "--variant", "mexican-train", "--players",
            "4", "--games", "4", "--seed", "1", "--json", "--journal", str(journal)]  # fmt: skip
    assert main([*argv, *PLUGIN]) == 0
    crash, greedy = json.loads(capsys.readouterr().out)["bots"]
    assert crash["score"] == 0.0 and greedy["score"] == 1.0
    assert crash["forfeits"] == {"crash": 4}
    trace = crash["forfeit_tracebacks"]["crash"]
    assert 'test_match_runner.py", line ' in trace and trace.endswith("RuntimeError: boom\n")
    for line in journal.read_text().splitlines()[1:]:
        rec = json.loads(line)
        held = [s for s, b in enumerate(rec["seat_bots"]) if b == 0]
        assert sorted(rec["losers"]) == held  # none of its seats is among the winners
        assert rec["forfeit"]["traceback"] == trace
    # the table says who forfeited, why and where
    assert main(["report", str(journal)]) == 0
    table = capsys.readouterr().out
    assert "Forfeits: t-crash:after=1: crash 4" in table
    assert "raised RuntimeError: boom (File " in table


def test_an_interval_never_passes_what_a_score_can_reach():
    e = estimate_samples([1.0, 1.0, 1.0, 0.9, 1.0])
    assert e.score_hi == 1.0 and e.score_lo < 1.0
    e = estimate_samples([0.0, 0.1, 0.0])
    assert e.score_lo == 0.0


def test_each_bot_has_its_mean_margin_with_an_interval():
    games = [
        {**_record(g, [0, 1, 0, 1], [6, 0, 4, 2]), "scores": [10, 90, 30, 50 + g]} for g in range(6)
    ]
    summary = summarize(_config(["A", "C"], 4), games)
    a, c = (b["margin"] for b in summary["bots"])
    # C's mean penalty less A's: (90 + 50 + g) / 2 - 20
    assert a["unit"] == "pips" and a["n"] == 6
    assert a["mean"] == pytest.approx(sum((140 + g) / 2 - 20 for g in range(6)) / 6)
    assert c["mean"] == pytest.approx(-a["mean"])
    assert a["lo"] < a["mean"] < a["hi"]
    assert "Margin per game in pips (its sides' mean final score" in format_table(summary)
