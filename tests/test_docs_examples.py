"""The worked examples of docs/contest.md and docs/sampler.md run as written (issue 42):
the contest's install line has what its C entry needs, its step 5 goes on with step 2's
seed, and the sampler's train example prints what the page says."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_sandbox import needs_bwrap

ROOT = Path(__file__).resolve().parent.parent
CONTEST = (ROOT / "docs" / "contest.md").read_text(encoding="utf-8")
SAMPLER = (ROOT / "docs" / "sampler.md").read_text(encoding="utf-8")


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_the_sampler_example_prints_what_the_page_says():
    at = SAMPLER.index("**A worked example: drawing a train sample and replaying it.**")
    code = _blocks(SAMPLER[at:], "python")[0]
    printed = _blocks(SAMPLER[at + SAMPLER[at:].index("prints") :], "")[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/sampler.md", "exec"), {})  # noqa: S102  (our own docs)
    assert out.getvalue() == printed
    assert "gives three values, `(hands,\nstock, log_likelihood)`" in SAMPLER


def test_the_contest_install_line_builds_the_c_entry():
    install = _blocks(CONTEST, "console")[0]
    assert "libmsgpack-dev" in install.splitlines()[0]


def _seed(line: str) -> str:
    return re.search(r"seed (\d+)", line).group(1)  # type: ignore[union-attr]


def test_the_contest_resumes_with_the_seed_it_drew():
    step2, step5 = (
        next(x for x in block.splitlines() if x.startswith("Match round-robin"))
        for block in _blocks(CONTEST, "console")
        if "Match round-robin" in block
    )
    assert _seed(step2) == _seed(step5)


@pytest.mark.slow
@needs_bwrap
@pytest.mark.skipif(not os.path.exists("/usr/include/msgpack.h"), reason="no libmsgpack-dev")
def test_the_contest_runs_as_written(tmp_path):
    """Steps 1, 2 and 5 of the worked example, in a temporary folder."""
    entries, run = tmp_path / "entries", tmp_path / "run"
    entries.mkdir()
    run.mkdir()
    shutil.copy(ROOT / "examples" / "python" / "random_bot.py", entries / "alice.py")
    build = tmp_path / "c"
    shutil.copytree(ROOT / "examples" / "c", build)
    subprocess.run(["make", "-s", "-C", str(build)], check=True)
    shutil.copy(build / "random_bot", entries / "bob")
    bones = [sys.executable, "-m", "bones"]
    step2 = subprocess.run(
        [*bones, "match", "--sandbox", "--format", "round-robin", "--games", "10", "--tc",
         "5+0.1", "cmd:python ../entries/alice.py 1", "cmd:../entries/bob 2", "greedy",
         "--journal", "contest.jsonl", "--bot-logs", "logs", "--progress", "never"],
        cwd=run, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    assert "Games: 30 of 30" in step2.stdout
    step5 = subprocess.run(
        [*bones, "match", "--resume", "--journal", "contest.jsonl", "--games", "20",
         "--progress", "never"],
        cwd=run, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    first = step2.stdout.splitlines()[0]
    assert step5.stdout.splitlines()[0] == first and _seed(first) != "0"
    assert "Games: 60 of 60" in step5.stdout
