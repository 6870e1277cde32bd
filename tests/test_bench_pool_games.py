"""bench/pool_games.py: a bot's game score over the deals of several journals, as `bones
match` computes it for each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import pool_games  # noqa: E402


def _match(tmp_path: Path, seed: int, players: int) -> tuple[Path, float]:
    journal = tmp_path / f"m{seed}.jsonl"
    out = subprocess.run(
        [sys.executable, "-m", "bones", "match", "greedy", "random", "--variant",
         "mexican-train", "--players", str(players), "--games", "12", "--seed", str(seed),
         "--jobs", "1", "--json", "--journal", str(journal)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    summary = json.loads(out.stdout)
    (row,) = [r for r in summary["bots"] if r["bot"] == "greedy"]
    return journal, row["score"]


@pytest.mark.parametrize("players", [2, 4])
def test_one_journal_gives_the_matchs_own_score(tmp_path, players):
    journal, score = _match(tmp_path, 3, players)
    scores = pool_games.deal_scores(str(journal), "greedy")
    assert sum(scores) / len(scores) == pytest.approx(score)


def test_journals_pool_their_deals(tmp_path, capsys):
    a, _ = _match(tmp_path, 1, 4)
    b, _ = _match(tmp_path, 2, 4)
    n = len(pool_games.deal_scores(str(a), "greedy")) + len(
        pool_games.deal_scores(str(b), "greedy")
    )
    assert pool_games.main(["greedy", str(a), str(b)]) == 0
    assert f"pooled: {n} deals, greedy" in capsys.readouterr().out


def test_a_bad_journal_or_bot_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="cannot read"):
        pool_games.main(["greedy", str(tmp_path / "none.jsonl")])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n{}\n")
    with pytest.raises(SystemExit):
        pool_games.main(["greedy", str(bad)])
    journal, _ = _match(tmp_path, 4, 2)
    with pytest.raises(SystemExit, match="no seat of 'pimc'"):
        pool_games.main(["pimc", str(journal)])
