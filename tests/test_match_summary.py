"""The summary the runner folds as games come is the one summarize_journal reads back
from its journal: for a new match, a resumed one, and one with forfeits."""

from __future__ import annotations

from bones.match import MatchConfig, run_match
from bones.match.report import summarize_journal


def _same(config: MatchConfig, path, **kw) -> dict:
    summary = run_match(config, path, jobs=1, progress=False, **kw)
    summary.pop("journal")
    again = summarize_journal(path, total=config.games)
    again.pop("warnings")
    assert summary == again
    return summary


def test_folded_summary_is_the_journals(tmp_path):
    config = MatchConfig(seed=1, bots=("greedy", "random"), variant="straight", players=2, games=12)
    summary = _same(config, tmp_path / "j.jsonl")
    assert summary["played"] == 12 and summary["bots"][0]["games"] == 12


def test_folded_summary_after_resume(tmp_path):
    path = tmp_path / "j.jsonl"
    small = MatchConfig(seed=1, bots=("greedy", "random"), variant="block", players=4, games=8)
    run_match(small, path, jobs=1, progress=False)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:5]))  # the header and four games
    summary = _same(small, path, resume=True)
    assert summary["played"] == 8


def test_folded_summary_with_forfeits(tmp_path):
    config = MatchConfig(
        seed=1,
        bots=("greedy", "t-crash"),
        variant="straight",
        players=2,
        games=4,
        plugins=("test_match_runner",),
    )
    summary = _same(config, tmp_path / "j.jsonl")
    assert sum(summary["bots"][1]["forfeits"].values()) > 0
