"""bench/pool_games.py: a bot's game score over the deals of several journals, as `bones
match` computes it for each."""

from __future__ import annotations

import json
import statistics
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
    assert pool_games.journal_deals(str(journal), "greedy").mean == pytest.approx(score)


def test_journals_pool_their_deals(tmp_path, capsys):
    a, _ = _match(tmp_path, 1, 4)
    b, _ = _match(tmp_path, 2, 4)
    n = pool_games.journal_deals(str(a), "greedy").n + pool_games.journal_deals(str(b), "greedy").n
    assert pool_games.main(["greedy", str(a), str(b)]) == 0
    assert f"pooled: {n} deals, greedy" in capsys.readouterr().out


def test_pooled_parts_give_the_whole_samples_mean_and_variance():
    samples = [0.25, 0.75, 0.5, 0.625, 0.375, 0.75, 0.25]
    parts = [samples[:3], samples[3:4], samples[4:]]
    pooled = pool_games.pool(
        [
            pool_games.Deals(
                len(p), statistics.fmean(p), statistics.variance(p) if len(p) > 1 else 0.0
            )
            for p in parts
        ]
    )
    assert pooled.n == len(samples)
    assert pooled.mean == pytest.approx(statistics.fmean(samples))
    assert pooled.variance == pytest.approx(statistics.variance(samples))


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
