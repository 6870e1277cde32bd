"""bench/train_strength.py: one round per duplicate deal, the interval over deals."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import train_strength  # noqa: E402


@pytest.mark.parametrize("variant", ["mexican-train", "chicken-foot"])
def test_a_bot_against_itself_scores_one_half_on_every_deal(variant):
    """Both seatings of a deal are the same game with the names swapped: every deal
    scores 1/2, so the score's interval is not available (never a zero-width one)."""
    result = train_strength.run("greedy", "greedy", variant, 4, 6, 0)
    score, lo, hi = result["score"]
    assert score == 0.5 and math.isnan(lo) and math.isnan(hi)
    assert result["margin"] == (0.0, 0.0, 0.0)
    assert "score 50.0% [n/a: every deal the same]" in train_strength.line(result)


def test_a_stronger_bot_scores_more(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    argv = ["planner", "random", "--players", "2", "--deals", "30", "--json", str(out)]
    assert train_strength.main(argv) == 0
    result = json.loads(out.read_text())
    score, lo, hi = result["score"]
    assert lo <= score <= hi and score > 0.6 and result["margin"][0] > 0
    assert "planner vs random: score" in capsys.readouterr().out


def test_too_few_deals_and_unknown_bots_are_refused():
    with pytest.raises(SystemExit):
        train_strength.main(["greedy", "random", "--deals", "1"])
    with pytest.raises(Exception, match="no-such-bot"):
        train_strength.main(["no-such-bot", "random", "--deals", "2"])


def test_a_search_bot_plays_a_deal_whose_record_passes_63_groups():
    """Deal 27 at 2 players: the other seat draws so often that the exact sampler's
    groups pass bit 63 (a shift in C int once made that mask negative: OverflowError)."""
    from bones.bot import make_bot

    bots = (
        train_strength.Timed(make_bot("montecarlo", seed=1)),
        train_strength.Timed(make_bot("greedy", seed=2)),
    )
    score, margin = train_strength.play_deal("mexican-train", 2, 27, 0, bots)
    assert 0.0 <= score <= 1.0


def test_paired_runs_compare_deal_by_deal(tmp_path, capsys):
    """A bot paired with itself (both deterministic against the same seeded opponent) leads
    by exactly nothing on every deal; a stronger one by a positive margin."""
    out = tmp_path / "p.jsonl"
    argv = ["greedy", "random", "--players", "2", "--deals", "8", "--paired", "greedy"]
    assert train_strength.main([*argv, "--json", str(out)]) == 0
    diff = json.loads(out.read_text())["paired"]
    assert diff["score"] == [0.0, 0.0, 0.0] and diff["margin"] == [0.0, 0.0, 0.0]
    assert "greedy less greedy, deal by deal: score +0.0 points" in capsys.readouterr().out
    a = train_strength.run("planner", "random", "mexican-train", 2, 12, 3)
    b = train_strength.run("random", "random", "mexican-train", 2, 12, 3)
    lead = train_strength.paired(a, b)
    assert lead["margin"][0] > 0 and lead["margin"][1] <= lead["margin"][0] <= lead["margin"][2]
    with pytest.raises(ValueError):  # not the same deals
        train_strength.paired(a, train_strength.run("random", "random", "mexican-train", 2, 5, 3))
