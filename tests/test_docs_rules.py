"""docs/rules.md is checked against the engine.

* Every fenced ```python block of docs/rules.md is a doctest session; the blocks run in
  order in one namespace (the first block defines the helpers the others use), and any
  answer that differs from the engine's fails the test.
* Every option of every built-in variant, as ``bones variants --json`` lists it, has a
  bullet ``* `name` — default `value`; ...`` in that variant's section naming its default
  and every allowed value and preset.
* README.md points users at docs/rules.md.
"""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
BUILTIN = ("bones.plugins.builtin_variants", "bones.plugins.train_variants")
NAMES = [
    "straight",
    "multiplayer",
    "kozel",
    "block",
    "draw",
    "fives-and-threes",
    "mexican-train",
    "chicken-foot",
]

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def rules_text() -> str:
    return RULES.read_text(encoding="utf-8")


def code_blocks(text: str) -> list[tuple[str, str, int]]:
    """(language, body, line number of the body's first line) of every fenced block."""
    return [
        (m.group(1), m.group(2), text.count("\n", 0, m.start(2)) + 1) for m in FENCE.finditer(text)
    ]


def test_every_python_block_is_a_doctest():
    blocks = [b for b in code_blocks(rules_text()) if b[0] == "python"]
    assert len(blocks) >= 20
    for _, body, line in blocks:
        first = body.lstrip().splitlines()[0]
        assert first.startswith(">>> "), f"docs/rules.md:{line}: a python block that is not run"
        assert body.endswith("\n\n"), f"docs/rules.md:{line}: end the block with a blank line"


def test_examples_agree_with_the_engine():
    pytest.importorskip("bones.core.round")
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.REPORT_NDIFF, verbose=False)
    globs: dict[str, Any] = {"__name__": "docs_rules"}
    report: list[str] = []
    examples = 0
    for language, body, line in code_blocks(rules_text()):
        if language != "python":
            continue
        test = parser.get_doctest(body, globs, f"docs/rules.md:{line}", str(RULES), line - 1)
        examples += len(test.examples)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs  # a DocTest runs in a copy: carry the names to the next block
    summary = runner.summarize(verbose=False)
    assert examples > 100
    assert summary.attempted == examples
    assert summary.failed == 0, "docs/rules.md disagrees with the engine:\n" + "".join(report)


# --------------------------------------------------------------------------------------
# Every option, with its default, choices and presets


def variants_json() -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "bones", "variants", "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [v for v in json.loads(out) if v["plugin"] in BUILTIN]


def show(value: object) -> str:
    """A value as docs/rules.md writes it: `7`, `True`, `first_double`, `{2: 7, 3: 5}`."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return str(value)


def section(text: str, name: str) -> str:
    """The `## ...: `name`` section of docs/rules.md, up to the next `## ` heading."""
    match = re.search(rf"^## [^\n]*`{re.escape(name)}`\n.*?(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/rules.md has no section headed '## ...: `{name}`'"
    return match.group(0)


def bullet(text: str, key: str) -> str:
    """The option bullet ``* `key` — ...`` with its continuation lines."""
    match = re.search(rf"^\* `{re.escape(key)}` — (.*?)(?=^\* |^\S|\Z)", text, re.M | re.S)
    assert match, f"no bullet '* `{key}` — ...'"
    return " ".join(match.group(1).split())


def test_every_builtin_variant_is_described():
    names = {v["name"] for v in variants_json()}
    assert names == set(NAMES)
    for name in names:
        section(rules_text(), name)


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_described_with_its_default_and_choices(name):
    info = {v["name"]: v for v in variants_json()}[name]
    text = section(rules_text(), name)
    assert info["options"], name
    for key, option in info["options"].items():
        assert f"`{key}`" in text, f"{name}: option {key!r} is not in docs/rules.md"
        line = bullet(text, key)
        default = show(option["default"])
        assert line.startswith(f"default `{default}`"), f"{name}.{key}: default {default}"
        for choice in option["choices"] or ():
            assert f"`{show(choice)}`" in line, f"{name}.{key}: choice {choice!r}"
        for preset in option["presets"]:
            assert f"`{preset}`" in line, f"{name}.{key}: preset {preset!r}"


def test_a_change_in_the_doc_is_caught():
    """The doctest run really compares: a wrong expected value fails."""
    pytest.importorskip("bones.core.round")
    body = '>>> import bones\n>>> bones.Round.from_deal("straight", hands=[["5-5"], ["1-1"]],'
    body += " stock=[], leader=0).count\n11\n"
    test = doctest.DocTestParser().get_doctest(body, {}, "wrong", None, 0)
    runner = doctest.DocTestRunner(verbose=False)
    runner.run(test, out=lambda _: None)
    assert runner.summarize(verbose=False).failed == 1


def test_readme_points_at_the_rules():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/rules.md)" in readme
    assert "](../shared" not in readme and "`../shared/rules/RULES.md`" not in readme
