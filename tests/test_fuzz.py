"""The fuzz suite in CI: a few seconds of every decoder (issue 6).

Each run is a subprocess, so a crash of the compiled core fails the test instead of
killing pytest: fuzz/run.py forks a child per stretch of inputs and counts a child killed
by a signal as a crash; fuzz/hypo.py runs hypothesis over the same properties.  Long runs
and what the counts mean: docs/serialization.md, "Fuzzing".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
DECODERS = ("round", "observation", "game", "move", "tile", "options")

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork"), reason="the crash-safe runner forks (POSIX only)"
)


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=FUZZ.parent,
    )


def test_mutated_inputs_never_crash_or_raise_the_undocumented(tmp_path):
    out = _run(
        str(FUZZ / "run.py"), "--count", "400", "--seed", "6", "--json", "--out", str(tmp_path)
    )
    assert out.returncode in (0, 1), out.stderr
    results = {r["decoder"]: r for r in json.loads(out.stdout)}
    assert set(results) == set(DECODERS)
    problems = []
    for decoder, r in results.items():
        assert r["inputs"] == 400
        assert (
            r["accepted"] + r["rejected"] + r["other"] + r["known"] + r["crashes"] + r["hangs"]
            == 400
        )
        assert r["accepted"] > 0 and r["rejected"] > 0, f"{decoder}: the mutations are too tame"
        if r["other"] or r["crashes"] or r["hangs"]:
            problems.append(r)
    findings = "".join(p.read_text() for p in tmp_path.glob("findings-*.jsonl"))
    assert not problems, f"{problems}\n{findings[:5000]}"
    assert out.returncode == 0


def test_hypothesis_properties_hold_for_every_decoder():
    out = _run(str(FUZZ / "hypo.py"), "--max-examples", "60", "--derandomize")
    assert out.returncode == 0, out.stdout + out.stderr[-5000:]
    for decoder in DECODERS:
        assert f"{decoder} " in out.stdout


def test_the_runner_survives_a_segfault_and_a_hang(tmp_path):
    """The self-test target segfaults on every 97th input and hangs on input 500."""
    out = _run(
        str(FUZZ / "run.py"),
        "--decoder",
        "selftest",
        "--count",
        "520",
        "--timeout",
        "1",
        "--json",
        "--out",
        str(tmp_path),
    )
    assert out.returncode == 1, out.stderr
    (result,) = json.loads(out.stdout)
    assert result["inputs"] == 520
    assert result["crashes"] == 5 and result["hangs"] == 1  # 97, 194, 291, 388, 485; 500
    assert (
        (tmp_path / "crash-selftest-97.txt")
        .read_text()
        .startswith("crash of decoder 'selftest' at input 97: killed by signal 11")
    )
    assert (tmp_path / "hang-selftest-500.txt").exists()
    assert result["other"] == len([i for i in range(520) if i % 11 == 0 and (i % 97 or not i)])
    first = json.loads((tmp_path / "findings-selftest.jsonl").read_text().splitlines()[0])
    assert first["exception"] == "KeyError: 'an undocumented exception'"


def test_inputs_are_made_again_exactly():
    """A saved index is enough to replay an input, whatever came before it."""
    code = (
        "import sys; sys.path.insert(0, 'fuzz'); import bones_fuzz as bf\n"
        "c = bf.build_corpus()\n"
        "for d in bf.DECODERS:\n"
        "    first = [bf.describe(bf.make_input(d, c, 3, i)) for i in range(200)]\n"
        "    again = [bf.describe(bf.make_input(d, c, 3, i)) for i in range(199, -1, -1)]\n"
        "    assert first == again[::-1], d\n"
        "    assert bf.build_corpus().of(d) == c.of(d), d\n"
        "print('same')\n"
    )
    out = _run("-c", code)
    assert out.stdout.strip() == "same", out.stderr
