"""The rough edges a new user hits (issue 42, items 5 to 9): every command tells a missing
file, an empty one, a file that is not a journal and a journal with no finished game
apart; ``bones ratings`` says why its intervals are unbounded; every table says how many
deals its intervals rest on; and the small ones."""

from __future__ import annotations

import json
import math

import pytest
from test_ratings import two_bot_games, write_journal

from bones.cli import main
from bones.match.report import format_table, summarize
from bones.match.stats import estimate_samples

QUICK = ["--jobs", "1", "--progress", "never"]


@pytest.fixture
def files(tmp_path):
    header = tmp_path / "header.jsonl"
    assert main(["match", "greedy", "random", "--games", "2", "--seed", "1", *QUICK,
                 "--journal", str(header)]) == 0  # fmt: skip
    header.write_bytes(header.read_bytes().splitlines(keepends=True)[0])
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "garbage.jsonl").write_bytes(b"garbage, not JSON\nmore\n")
    return {
        "missing": (tmp_path / "missing.jsonl", "missing.jsonl: no such file"),
        "empty": (tmp_path / "empty.jsonl", "empty.jsonl is empty: not a match journal yet"),
        "garbage": (
            tmp_path / "garbage.jsonl",
            "garbage.jsonl is not a bones match journal (its first line is not a match header",
        ),
        "header": (header, "header.jsonl is a match journal with no finished game yet"),
    }


COMMANDS = {
    "ratings": ["ratings", "{}"],
    "show": ["show", "{}"],
    "games": ["games", "{}"],
    "report": ["report", "{}"],
    "journal check": ["journal", "check", "{}"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", ["missing", "empty", "garbage", "header"])
def test_every_command_tells_the_files_apart(files, capsys, command, kind):
    path, message = files[kind]
    if command == "journal check" and kind == "header":
        message = "no bad line (0 games)"  # a sound journal, of no game yet
        assert main([x.format(path) for x in COMMANDS[command]]) == 0
        assert message in capsys.readouterr().out
        return
    assert main([x.format(path) for x in COMMANDS[command]]) == 2
    err = capsys.readouterr().err
    assert message in err, err


@pytest.mark.parametrize("kind", ["missing", "empty", "garbage"])
def test_resume_tells_the_files_apart(files, capsys, kind):
    path, message = files[kind]
    assert main(["match", "--resume", "--journal", str(path), *QUICK]) == 2
    err = capsys.readouterr().err
    assert message.split(": ", 1)[-1] in err.replace(str(path.parent) + "/", ""), err
    if kind != "garbage":
        assert "give the bots to start a new match there" in err


def test_ratings_say_why_their_intervals_are_unbounded(tmp_path, capsys):
    path = write_journal(tmp_path / "t.jsonl", ["a", "b"], two_bot_games([1, 1, 1, 0, 1, 1]))
    assert main(["ratings", path, "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    assert "[-inf, +inf]" in out
    assert "The intervals are unbounded: " in out and "give --prior 1" in out
    assert main(["ratings", path, "--bootstrap", "200", "--prior", "1"]) == 0
    out = capsys.readouterr().out
    assert "[-inf, +inf]" not in out and "unbounded" not in out


def test_a_three_bot_table_says_how_many_deals_its_intervals_rest_on():
    """``bones match expert greedy random --variant chicken-foot --players 5 --games 30``:
    two deals of 15 seatings (made-up results: seat 0 first in deal 0, last in deal 1)."""
    config = {"bots": ["expert", "greedy", "random"], "variant": "chicken-foot",
              "players": 5, "format": "head-to-head", "duplicate": True, "seed": 3}  # fmt: skip
    records = []
    for gid in range(30):
        bots = [(gid + s) % 3 for s in range(5)]
        ranks = [2 * (4 - s) for s in range(5)]
        if gid >= 15:
            ranks.reverse()
        records.append({"id": gid, "group": gid // 15, "deal": gid // 15, "sides":
                        [[s] for s in range(5)], "seat_bots": bots, "ranks": ranks})  # fmt: skip
    table = format_table(summarize(config, records))
    assert "95% intervals over 2 deals of 15 games (the unit: a deal's games share its luck)" in (
        table
    )
    assert "too few deals of 15 games to narrow the interval" in table


def test_one_deal_pair_says_so_without_counts_that_mean_nothing(tmp_path, capsys):
    journal = tmp_path / "one.jsonl"
    assert main(["match", "greedy", "random", "--games", "2", "--seed", "1", *QUICK,
                 "--journal", str(journal)]) == 0  # fmt: skip
    table = capsys.readouterr().out
    assert "(1 deal pair: they need 2 or more)" in table and "1 deal pairs" not in table
    assert "Pentanomial" not in table and "Fairness" not in table


def test_los_is_never_certain_from_a_few_deals():
    config = {"bots": ["a", "b"], "variant": "straight", "players": 2,
              "format": "head-to-head", "duplicate": True, "seed": 1}  # fmt: skip
    results = [1] * 10 + [1, 0.5]  # 6 deal pairs, one of 3/4
    records = [
        {
            "id": g,
            "group": g // 2,
            "deal": g // 2,
            "sides": [[0], [1]],
            "seat_bots": list(sides),
            "ranks": ranks,
        }  # fmt: skip
        for g, (_, sides, ranks) in enumerate(two_bot_games(results))
    ]
    table = format_table(summarize(config, records))
    assert "LOS >99.9%" in table and "LOS 100.0%" not in table
    assert estimate_samples([1.0] * 5 + [0.75]).los > 0.999  # what was "100.0%"


def test_report_without_html_prints_the_table(tmp_path, capsys):
    journal = tmp_path / "m.jsonl"
    assert main(["match", "greedy", "random", "--games", "4", "--seed", "1", *QUICK,
                 "--journal", str(journal)]) == 0  # fmt: skip
    table = capsys.readouterr().out
    assert main(["report", str(journal)]) == 0
    out = capsys.readouterr().out
    # the same table, less the progress of the run
    assert out.splitlines()[2:6] == table.splitlines()[2:6]


@pytest.mark.parametrize("command", ["report", "ratings", "match"])
def test_help_says_95_percent_once(capsys, command):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "%%" not in out


def test_timeout_and_jobs_say_what_they_take(capsys):
    assert main(["match", "greedy", "random", "--timeout", "-1"]) == 2
    err = capsys.readouterr().err
    assert "--timeout takes seconds per move > 0, or 0 for no limit; got -1" in err
    assert "null" not in err
    assert main(["match", "greedy", "random", "--jobs", "0"]) == 2
    assert "--jobs takes a number of workers >= 1; got 0" in capsys.readouterr().err


def test_overwrite_starts_a_new_match_with_a_new_seed(tmp_path, capsys):
    journal = tmp_path / "m.jsonl"
    argv = ["match", "greedy", "random", "--games", "2", *QUICK, "--journal", str(journal)]
    seeds = set()
    for extra in ([], ["--overwrite"], ["--overwrite"]):
        assert main([*argv, *extra, "--json"]) == 0
        seeds.add(json.loads(capsys.readouterr().out)["config"]["seed"])
    assert len(seeds) == 3
    assert all(isinstance(s, int) and not math.isnan(s) for s in seeds)
