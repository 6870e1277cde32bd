"""bench/strength.py: a long run done in parts.  ``--report`` writes the page from the
journals without playing, each cell with the deal pairs it holds when they are fewer than
asked; the same command without it resumes the run.  bench/paired.py: two of its journals
compared deal pair by deal pair."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bones.match.journal import (
    encode_record,
    load_record,
    record_key,
    show,
    sign_record,
    without_moves,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import paired  # noqa: E402
import strength  # noqa: E402

PIECES = [b"\n", b'{"type":"game"', b',"rounds":[', b'],"scores":', b'{"round":"AAA"}']


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


def score(page: str) -> str:
    return row(page).split(" | ")[-1]


def test_report_plays_nothing_and_shows_the_pairs_held(tmp_path: Path) -> None:
    page = run(tmp_path, 2, "--report")
    assert "not played yet" in row(page)
    assert "The run is not finished" in page
    assert "--report" not in page.split("```console")[1].split("```")[0]  # the command to run
    assert not (tmp_path / "journals" / "expert-vs-greedy-block2-seed0.jsonl").exists()

    played = run(tmp_path, 1)
    assert "pair)" not in row(played) and "%" in row(played)
    assert "The run is not finished" not in played and "Wall time" in played
    journal = tmp_path / "journals" / "expert-vs-greedy-block2-seed0.jsonl"
    assert strength.PLAYED == {journal.name: strength.seconds(journal)}
    assert strength.seconds(journal) > 0
    assert f"took {strength.seconds(journal) / 3600:.1f} hours of play" in played

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


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_archive_carries_a_run_to_a_new_machine(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    name = "expert-vs-greedy-block2-seed0.jsonl"
    played = run(tmp_path, 3, "--archive", str(archive))
    copy = archive / f"{name}.gz"
    journal = tmp_path / "journals" / name
    data = gzip.decompress(copy.read_bytes())
    assert data == without_moves(journal.read_bytes()) and b'"rounds":[]' in data
    assert len(data) < len(journal.read_bytes())
    assert _mode(copy) == _mode(journal) == 0o600  # each holds the secret
    before = copy.read_bytes()
    run(tmp_path, 3, "--report", "--archive", str(archive))
    assert copy.read_bytes() == before  # no new game: the same bytes

    journal.unlink()  # a new machine: only the archive is left
    page = run(tmp_path, 3, "--report", "--archive", str(archive))
    assert score(page) == score(played)
    assert _mode(journal) == 0o600  # brought back from the archive
    journal.unlink()
    run(tmp_path, 4, "--archive", str(archive))  # resumes: the archived pairs are kept
    lines = journal.read_bytes().splitlines(keepends=True)
    assert b"".join(lines[:7]) == data
    assert len([x for x in lines if x.startswith(b'{"type":"game"')]) == 8
    assert gzip.decompress(copy.read_bytes()).count(b'{"type":"game"') == 8

    journal.write_bytes(data)  # a copy with more games than the journal stays
    run(tmp_path, 3, "--report", "--archive", str(archive))
    assert gzip.decompress(copy.read_bytes()).count(b'{"type":"game"') == 8


@pytest.mark.parametrize(
    "garbage",
    [b"", b"not gzip", gzip.compress(b"x" * 100)[:20], b"\x1f\x8b\x08\x00junk", gzip.compress(b"")],
)
def test_a_corrupt_archive_stops_the_run_and_is_left_as_it_is(
    tmp_path: Path, garbage: bytes
) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    copy = archive / "expert-vs-greedy-block2-seed0.jsonl.gz"
    copy.write_bytes(garbage)
    with pytest.raises(SystemExit, match="cannot be read"):
        run(tmp_path, 1, "--archive", str(archive))
    assert copy.read_bytes() == garbage


@given(st.lists(st.binary(max_size=40) | st.sampled_from(PIECES), max_size=12))
def test_without_moves_keeps_whole_lines_only(parts: list[bytes]) -> None:
    data = b"".join(parts)
    out = without_moves(data)
    assert out == without_moves(out)
    assert out.count(b"\n") == data[: data.rfind(b"\n") + 1].count(b"\n")
    assert not out or out.endswith(b"\n")


def test_paired_reads_the_archive_copies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    run(tmp_path, 3, "--archive", str(archive), bots="expert,expert:points=0")
    names = ("expert-vs-greedy-block2-seed0.jsonl", "expert_points0-vs-greedy-block2-seed0.jsonl")
    capsys.readouterr()
    assert paired.main([str(tmp_path / "journals" / n) for n in names]) == 0
    plain = capsys.readouterr().out
    assert paired.main([str(archive / f"{n}.gz") for n in names]) == 0
    assert capsys.readouterr().out == plain

    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(b"x" * 200)[:30])
    with pytest.raises(SystemExit):
        paired.main([str(bad), str(archive / f"{names[0]}.gz")])
    assert "cannot read a journal" in capsys.readouterr().err


def test_show_says_a_copy_has_no_moves(tmp_path: Path) -> None:
    run(tmp_path, 1)
    journal = tmp_path / "journals" / "expert-vs-greedy-block2-seed0.jsonl"
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(without_moves(journal.read_bytes()))
    full, slim = io.StringIO(), io.StringIO()
    show(load_record(journal, 1), full)
    show(load_record(copy, 1), slim)
    assert "its moves are not in this journal" in slim.getvalue()
    assert "Round 1" in full.getvalue() and "Round 1" not in slim.getvalue()
    assert slim.getvalue().splitlines()[-2:] == full.getvalue().splitlines()[-2:]  # result


def test_seconds_sums_the_games_and_skips_a_line_cut_short(tmp_path: Path) -> None:
    run(tmp_path, 1)
    played = tmp_path / "journals" / "expert-vs-greedy-block2-seed0.jsonl"
    header, *games = played.read_bytes().splitlines(keepends=True)
    timed = []
    for line, value in zip(games, (1.5, 2.25), strict=True):
        rec = json.loads(line)
        rec["seconds"] = value
        del rec["mac"]  # signed again, as its runner would have
        key = record_key(json.loads(header)["config"]["secret"])
        timed.append(sign_record(encode_record(rec), key).encode() + b"\n")
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(header + b"".join(timed) + timed[0][: len(timed[0]) // 2])
    assert strength.seconds(journal) == 3.75


def test_the_page_keeps_what_other_benches_wrote(tmp_path: Path) -> None:
    """The train games' section (bench/train_strength.py) after ``strength.KEPT`` survives
    a new run; a page without the marker is written whole."""
    out = tmp_path / "strength.md"
    tail = f"{strength.KEPT}\n\n## The train games\n\nkept | as it is\n"
    out.write_text("# an older page\n\nold table\n\n" + tail)
    page = run(tmp_path, 2, "--report")
    assert page.endswith("\n" + tail) and "old table" not in page
    assert page.count(strength.KEPT) == 1
    out.write_text("# an older page without the marker\n")
    assert strength.KEPT not in run(tmp_path, 2, "--report")
