"""``bones report``: the match page, its plots and its errors."""

from __future__ import annotations

import re
import sys

import pytest

from bones.cli import main

pytest.importorskip("matplotlib", reason="the report's plots need the bones[plot] extra")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    """Two small matches: one with an SPRT, one round-robin of three bots without."""
    root = tmp_path_factory.mktemp("journals")
    sprt = root / "sprt.jsonl"
    plain = root / "rr.jsonl"
    base = ["--jobs", "1", "--progress", "never", "--seed", "1", "--secret", "5e" * 32]
    argv = ["match", "greedy", "random", "--games", "8", "--sprt", "elo0=0", "elo1=50"]
    assert main([*argv, "--journal", str(sprt), *base]) == 0
    argv = ["match", "greedy", "random", "heaviest", "--format", "round-robin", "--games", "4"]
    assert main([*argv, "--journal", str(plain), *base]) == 0
    return sprt, plain


def svgs(page: str) -> list[str]:
    return re.findall(r"<svg[^>]*>.*?</svg>", page, flags=re.S)


def test_report_with_sprt(journals, tmp_path, capsys):
    capsys.readouterr()
    out = tmp_path / "report.html"
    code, text, err = run(capsys, "report", journals[0], "--html", out)
    assert code == 0, err
    page = out.read_text()
    assert "<section class='the-match'>" in page and "greedy" in page and "random" in page
    assert len(svgs(page)) == 3  # the scores, the scores over the games, the LLR
    assert "H1 bound 2.94" in page and "H0 bound -2.94" in page
    # the config line says what an SPRT plays: until it decides, --games as its cap
    assert "None" not in page
    assert "SPRT elo0=0 elo1=50 alpha=0.05 beta=0.05: until it decides, at most 8 games" in page
    # self-contained: nothing to load (the only URLs are the SVG and XLink namespaces)
    assert not re.search(r"\bsrc=|href=['\"]?(https?:|//)|url\((?!#)", page)
    assert set(re.findall(r"https?://[^\s'\"]+", page)) <= {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xlink",
    }
    again = tmp_path / "again.html"
    run(capsys, "report", journals[0], "--html", again)
    assert again.read_text() == page  # deterministic


def test_report_without_sprt_has_no_llr_plot(journals, tmp_path, capsys):
    out = tmp_path / "report.html"
    code, _, err = run(capsys, "report", journals[1], "--html", out)
    assert code == 0, err
    page = out.read_text()
    assert len(svgs(page)) == 2
    assert "SPRT" not in page
    for bot in ("greedy", "random", "heaviest"):
        assert bot in page


def test_series_counts_every_game(journals):
    from bones.match.report import summarize_journal
    from bones.render.report import match_series

    summary = summarize_journal(journals[1])
    series = match_series(journals[1], summary)
    assert series["games"] == list(range(1, summary["counted"] + 1))
    for bot, running in zip(summary["bots"], series["running"], strict=True):
        assert running[-1] == pytest.approx(bot["score"])
    summary = summarize_journal(journals[0])
    series = match_series(journals[0], summary)
    assert series["llr"][-1] == (summary["sprt"]["units"], pytest.approx(summary["sprt"]["llr"]))


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        (b"", "is empty: not a match journal yet"),
        (b"\x00\xff garbage\n", "is not a bones match journal"),
        (b'{"type": "match", "version": 1, "config": {"bots": ["a", "b"]}}\n', "no 'variant'"),
        ("header", "is a match journal with no finished game yet"),
        ("cut", "line 2"),
    ],
)
def test_report_bad_journal(journals, tmp_path, capsys, content, message):
    path = tmp_path / "j.jsonl"
    lines = journals[0].read_bytes().splitlines(keepends=True)
    if content == "header":
        content = lines[0]
    elif content == "cut":  # a damaged line before the end is not silently skipped
        content = lines[0] + lines[1][:40] + b"\n" + lines[2]
    if content is not None:
        path.write_bytes(content)
    out = tmp_path / "out.html"
    code, _, err = run(capsys, "report", path, "--html", out)
    assert code == 2
    assert err.startswith("bones: error: ") and message in err, err
    assert not out.exists()


def test_report_without_matplotlib(journals, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run(capsys, "report", journals[0], "--html", tmp_path / "x.html")
    assert code == 1 and "pip install 'bones[plot]'" in err


def test_report_unwritable_output(journals, tmp_path, capsys):
    code, _, err = run(capsys, "report", journals[0], "--html", tmp_path / "no" / "x.html")
    assert code == 1 and "cannot write" in err


def test_half_written_last_line_is_a_warning(journals, tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    path.write_bytes(journals[0].read_bytes() + b'{"type": "game", "id": 99, "se')
    out = tmp_path / "out.html"
    code, _, err = run(capsys, "report", path, "--html", out)
    assert code == 0, err
    page = out.read_text()
    assert "<section class='warnings'>" in page and "line" in page


def test_an_elo_interval_open_on_one_side_shows_its_ends(journals):
    """A score interval that reaches 100% has no finite Elo width: the Elo line gives the
    interval's two ends, not "+/- inf" (the report's table showed that to a newcomer)."""
    from bones.match.report import format_table, summarize_journal

    summary = summarize_journal(journals[0])
    pair = summary["pairs"][0]["estimate"]
    pair.update(score=0.958, score_lo=0.88, score_hi=1.04, elo_error=None)
    elo = next(line for line in format_table(summary).splitlines() if line.startswith("Elo "))
    assert "+/- inf" not in elo
    assert ": +543.2 in [+346.1, +inf] (95%," in elo, elo
    pair.update(score_hi=0.99, elo_error=250.0)
    elo = next(line for line in format_table(summary).splitlines() if line.startswith("Elo "))
    assert "+/- 250.0 (95%," in elo, elo


def test_a_score_without_interval_is_marked_in_the_plot(tmp_path, capsys):
    """Two identical bots replay every deal pair 1-1: every unit scores 1/2, so the
    score has no interval; the plot says so rather than drawing a point that reads as
    a zero-width interval."""
    journal = tmp_path / "same.jsonl"
    argv = ["match", "random", "random", "--games", "4", "--seed", "1", "--jobs", "1"]
    assert main([*argv, "--journal", str(journal), "--progress", "never"]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "report", journal, "--html", tmp_path / "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "50.0% (interval n/a)" in page
    assert "every deal pair scored 50.0%: no spread to measure" in page
