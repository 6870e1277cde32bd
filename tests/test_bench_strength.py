"""bench/strength.py: a long run done in parts.  ``--report`` writes the page from the
journals without playing, each cell with the deal pairs it holds when they are fewer than
asked; the same command without it resumes the run.  bench/paired.py: two of its journals
compared deal pair by deal pair."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import paired  # noqa: E402
import strength  # noqa: E402


def run(tmp_path: Path, pairs: int, *extra: str, bots: str = "expert") -> str:
    out = tmp_path / "strength.md"
    argv = [
        "--out", str(out), "--pairs", str(pairs), "--goal-pairs", "0,0", "--sprt-pairs", "0",
        "--pimc-pairs", "0", "--dominoes-pairs", "0", "--configs", "block:2",
        "--bots", bots, "--opponents", "greedy", "--positions", "2", "--jobs", "1",
        "--journals", str(tmp_path / "journals"), *extra,
    ]  # fmt: skip
    assert strength.main(argv) == 0
    return out.read_text()


def row(page: str) -> str:
    return next(line for line in page.splitlines() if line.startswith("| `expert`"))


def test_report_plays_nothing_and_shows_the_pairs_held(tmp_path: Path) -> None:
    page = run(tmp_path, 2, "--report")
    assert "not played yet" in row(page)
    assert "The run is not finished" in page
    assert "--report" not in page.split("```console")[1].split("```")[0]  # the command to run
    assert not (tmp_path / "journals" / "expert-vs-greedy-block2-seed0.jsonl").exists()

    played = run(tmp_path, 1)
    assert "pair)" not in row(played) and "%" in row(played)
    assert "The run is not finished" not in played and "Wall time" in played

    page = run(tmp_path, 2, "--report")
    cell = row(page).split(" | ")[-1]
    assert cell.endswith("(1 pair) |"), cell
    assert cell.split(" (")[0] == row(played).split(" | ")[-1].rstrip(" |")  # the same games


def test_paired_compares_the_same_deals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = run(tmp_path, 3, bots="expert,expert:points=0")
    rows = [line for line in page.splitlines() if line.startswith("| `expert")]
    cells = [r.split(" | ")[-1].rstrip(" |") for r in rows]
    journals = tmp_path / "journals"
    a = journals / "expert-vs-greedy-block2-seed0.jsonl"
    b = journals / "expert_points0-vs-greedy-block2-seed0.jsonl"
    capsys.readouterr()
    assert paired.main([str(a), str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"A expert: {cells[0]}" and out[1] == f"B expert:points=0: {cells[1]}"
    assert out[2].startswith("B - A over 3 deal pairs: ")
    assert paired.main([str(a), str(a)]) == 0
    assert (
        capsys.readouterr().out.splitlines()[2]
        == "B - A over 3 deal pairs: +0.0 [+0.0, +0.0] points"
    )

    other = run(tmp_path / "k", 1, "--configs", "kozel:2")  # another variant
    assert "%" in other
    with pytest.raises(SystemExit):
        paired.main(
            [str(a), str(tmp_path / "k" / "journals" / "expert-vs-greedy-kozel2-seed0.jsonl")]
        )
    assert "differ in variant" in capsys.readouterr().err
