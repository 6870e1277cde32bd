"""A bot that forfeits says why: the match table and ``--json`` give, per bot and reason,
the first line of the first forfeit's message (a crash's exception), not only a count."""

from __future__ import annotations

import json
import os

from bones.cli import main
from bones.match.report import format_table, summarize

PLUGIN = ["--plugin", "test_match_runner", "--jobs", "1", "--progress", "never"]
CONFIG = {"bots": ["a", "b"], "variant": "straight", "players": 2, "format": "head-to-head",
          "duplicate": False, "seed": 1}  # fmt: skip


def record(gid: int, forfeit: dict | None) -> dict:
    return {"id": gid, "group": gid, "sides": [[0], [1]], "seat_bots": [0, 1], "ranks": [0, 1],
            "forfeit": forfeit}  # fmt: skip


def test_each_reason_keeps_the_first_line_of_its_first_message():
    records = [
        record(
            0,
            {
                "seat": 0,
                "reason": "crash",
                "detail": "\n a.choose() raised KeyError: 3\n"
                "Traceback (most recent call last):\n  ...",
            },
        ),  # fmt: skip
        record(1, {"seat": 0, "reason": "crash", "detail": "a.choose() raised ValueError: x"}),
        record(2, {"seat": 0, "reason": "timeout", "detail": "choose took 10.2 s (limit 10 s)"}),
        record(3, None),
        record(4, {"seat": 0, "reason": "illegal", "detail": ""}),
    ]
    summary = summarize(CONFIG, records)
    a, b = summary["bots"]
    assert a["forfeits"] == {"crash": 2, "timeout": 1, "illegal": 1}
    assert a["forfeit_details"] == {
        "crash": "a.choose() raised KeyError: 3",
        "timeout": "choose took 10.2 s (limit 10 s)",
        "illegal": "",
    }
    assert b["forfeits"] == {} and b["forfeit_details"] == {}
    table = format_table(summary)
    assert "Forfeits: a: crash 2, illegal 1, timeout 1\n" in table
    assert "  a, crash, first: a.choose() raised KeyError: 3\n" in table
    assert "  a, timeout, first: choose took 10.2 s (limit 10 s)" in table
    assert "illegal, first" not in table  # nothing to say
    assert "Traceback" not in table


def test_a_crashing_bot_names_its_exception_in_the_table_and_the_json(tmp_path, capsys):
    journal = tmp_path / "crash.jsonl"
    plugin = PLUGIN
    argv = ["match", "t-crash:after=2", "random", "--games", "4", "--seed", "1"]
    assert main([*argv, "--journal", str(journal), *plugin]) == 0
    table = capsys.readouterr().out
    assert "Forfeits: t-crash:after=2: crash 4\n" in table
    # the error and where it was raised: the deepest frame of the bot's traceback
    first = "  t-crash:after=2, crash, first: t-crash.choose() raised RuntimeError: boom (File "
    assert first in table and 'test_match_runner.py", line ' in table
    assert main(["match", "--resume", "--journal", str(journal), "--json", *plugin]) == 0
    bot = json.loads(capsys.readouterr().out)["bots"][0]
    assert bot["forfeit_details"]["crash"].startswith("t-crash.choose() raised RuntimeError: boom")
    # the traceback: the bot's frame (file, line, code) and the error
    trace = bot["forfeit_tracebacks"]["crash"]
    assert 'test_match_runner.py", line ' in trace and ", in choose\n" in trace
    assert 'raise RuntimeError("boom")' in trace and trace.endswith("RuntimeError: boom\n")


def test_an_isolated_crash_with_bot_logs_shows_its_error_line(tmp_path, capsys, monkeypatch):
    """Under --isolate --bot-logs the table's line ended at "its stderr ends with:": it
    ends with the error line of the bot's stderr now, and the traceback (the bot's stderr
    tail, where Python printed it) is in the journal and --json."""
    from pathlib import Path

    here = str(Path(__file__).resolve().parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    journal = tmp_path / "iso.jsonl"
    argv = ["match", "t-crash:after=1", "random", "--games", "2", "--seed", "1", "--isolate",
            "--bot-logs", str(tmp_path / "logs"), "--journal", str(journal)]  # fmt: skip
    assert main([*argv, *PLUGIN]) == 0
    table = capsys.readouterr().out
    line = next(x for x in table.splitlines() if x.startswith("  t-crash:after=1, crash, first:"))
    assert line.endswith("its stderr ends with: RuntimeError: boom"), line
    assert main(["games", str(journal), "--forfeits", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 2
    for row in rows:
        trace = row["forfeit"]["traceback"]
        assert 'test_match_runner.py", line ' in trace and trace.endswith("RuntimeError: boom")
