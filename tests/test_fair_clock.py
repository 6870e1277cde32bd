"""Fair clocks by default (issue 43): under ``--sandbox`` a ``--tc`` clock counts each
bot's own CPU time unless ``:wall`` is asked for, with the wall-time backstop (4 × the
CPU time left + 1 s) that stops a bot that sleeps instead of computing; without the
sandbox the wall clock stays the default."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_sandbox import HOSTILE, SECRET, needs_bwrap

from bones.match.runner import MatchConfig, _watch_limit, run_match
from bones.match.schedule import plan, tc_cpu


def _spec(mode: str, arg: float | int | None = None) -> str:
    return f"cmd:{sys.executable} {HOSTILE} {mode}" + ("" if arg is None else f" {arg}")


def _play(tmp_path: Path, bots: tuple[str, str], tc: str, games: int, **config) -> dict:
    config.setdefault("timeout", None)
    config.setdefault("options", {"target": 25})
    path = tmp_path / f"m-{len(list(tmp_path.glob('*.jsonl')))}.jsonl"
    return run_match(
        MatchConfig(bots=bots, games=games, seed=5, secret=SECRET, tc=tc, **config),
        path,
        jobs=1,
        progress=False,
    )


def _forfeits(summary: dict) -> list[dict[str, int]]:
    return [row["forfeits"] for row in summary["bots"]]


def test_the_sandbox_clock_is_cpu_time_unless_wall_is_asked_for():
    assert tc_cpu("5+0.1", sandbox=True) and tc_cpu("5+0.1:cpu", sandbox=True)
    assert not tc_cpu("5+0.1:wall", sandbox=True)
    assert not tc_cpu("5+0.1") and tc_cpu("5+0.1:cpu")
    bots = ("greedy", "random")
    sandboxed = plan(MatchConfig(bots=bots, games=2, sandbox=True, tc="5+0.1", secret=SECRET))
    assert sandboxed.task(0)["tc_cpu"] is True
    walled = plan(MatchConfig(bots=bots, games=2, sandbox=True, tc="5+0.1:wall", secret=SECRET))
    assert "tc_cpu" not in walled.task(0)
    assert "tc_cpu" not in plan(MatchConfig(bots=bots, games=2, tc="5+0.1")).task(0)
    # the watchdog leaves the default CPU clock its wall backstop
    default = _watch_limit(MatchConfig(bots=bots, sandbox=True, tc="10+0", timeout=None))
    wall = _watch_limit(MatchConfig(bots=bots, sandbox=True, tc="10+0:wall", timeout=None))
    assert default is not None and wall is not None and default > 4 * 10 + 1 > wall


@needs_bwrap
def test_a_sleeping_bot_is_stopped_by_the_wall_ceiling_of_the_default_clock(tmp_path):
    """A bot that sleeps 5 s a move uses no CPU time; the ceiling (4 × 0.2 + 1 s of wall
    time) ends its move: it loses on time, it does not hold the match."""
    summary = _play(tmp_path, (_spec("sleep", 5), "random"), "0.2+0", games=2, sandbox=True)
    assert _forfeits(summary)[0] == {"timeout": 2}


@needs_bwrap
@pytest.mark.slow
def test_a_hog_costs_its_opponent_no_game_on_time_under_the_default_clock(tmp_path):
    """docs/contest.md's worked example: ``--sandbox --tc 1+0.1`` with no suffix.  A
    bot spinning four processes through both bots' moves takes no game on time from an
    opponent that computes 0.08 s a move (with the wall clock it took 3 of 12 and 1 of
    8 in issue 43's trial)."""
    summary = _play(
        tmp_path, (_spec("work", 0.08), _spec("spinners", 4)), "1+0.1", games=8, sandbox=True
    )
    assert summary["counted"] == 8
    assert "timeout" not in _forfeits(summary)[0]
