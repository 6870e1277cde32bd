"""What a user's machine adds must not change what bones' tests find: the plugins they
installed (``BONES_DISABLE_PLUGIN_AUTOLOAD``, set by tests/conftest.py), and the journal
the README's first command leaves in a checkout (ignored by git)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bones
from bones.cli import main

ROOT = Path(__file__).resolve().parent.parent
BERGEN = ROOT / "examples" / "bergen"


def readme_commands() -> list[str]:
    """The two set-up lines of README.md: its first ```sh block (.ci/run runs them)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block, "README.md has no ```sh block"
    return block.group(1).strip().splitlines()


def entry_point(site: Path, dist: str, name: str, module: str) -> None:
    """Register ``module`` as the ``bones`` entry point ``name`` of ``dist`` in ``site``:
    what ``pip install`` of a plugin writes."""
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[bones]\n{name} = {module}\n")


def docs_bot_plugin(site: Path) -> None:
    """The bot plugin of docs/bots.md ("Writing a bot"), installed in ``site``."""
    doc = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    code = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "register_bots" in b)
    (site / "lightest_bot.py").write_text(code, encoding="utf-8")
    entry_point(site, "lightest-bot", "lightest", "lightest_bot")


def test_the_readme_has_its_two_commands():
    match, tests = readme_commands()
    assert match.startswith("pip install . && bones match ")
    assert tests.startswith("pip install '.[test]' && python -m pytest ")


def test_ci_runs_the_readme_commands_it_reads():
    """.ci/run reads the commands from README.md with awk and runs each as it is."""
    if shutil.which("awk") is None:
        pytest.skip("no awk")
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extract = re.search(r"< <\((awk .*? README\.md)\)", script)
    assert extract, ".ci/run no longer reads README.md's commands"
    lines = subprocess.run(
        ["bash", "-c", extract.group(1)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert lines == readme_commands()
    assert 'bash -c "${README_LINES[0]}"' in script
    assert 'tests_passed bash -c "${README_LINES[1]}"' in script


def test_the_readme_match_leaves_the_checkout_clean(tmp_path, monkeypatch):
    """The default journal of the README's first command is a name .gitignore lists."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (or no git): nothing to keep clean")
    args = shlex.split(readme_commands()[0].partition("&& bones ")[2], comments=True)
    args[args.index("--games") + 1] = "2"  # the name does not depend on the count
    monkeypatch.chdir(tmp_path)
    assert main([*args, "--progress", "never"]) == 0
    (journal,) = os.listdir(tmp_path)
    ignored = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "--no-index", "-q", journal], check=False
    )
    assert ignored.returncode == 0, f"{journal} would show in git status"


def test_installed_plugins_are_not_loaded_while_the_variable_is_set(
    tmp_path, monkeypatch, fresh_registry
):
    docs_bot_plugin(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lightest_bot", raising=False)
    monkeypatch.setenv("BONES_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert "lightest" not in bones.bots()
    fresh_registry.reset()
    monkeypatch.setenv("BONES_DISABLE_PLUGIN_AUTOLOAD", "")  # empty: loaded
    try:
        assert "lightest" in bones.bots()
    finally:
        sys.modules.pop("lightest_bot", None)


def test_the_test_suite_sets_the_variable():
    assert os.environ.get("BONES_DISABLE_PLUGIN_AUTOLOAD") == "1"


@pytest.mark.slow
def test_the_suite_passes_with_the_example_plugins_installed(tmp_path):
    """The variant plugin of examples/bergen and the bot plugin of docs/bots.md, installed
    through their entry points: bones sees them, and its own tests are unchanged."""
    site = tmp_path / "site"
    site.mkdir()
    docs_bot_plugin(site)
    entry_point(site, "bones-bergen", "bergen", "bones_bergen")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(BERGEN)]))
    env.pop("BONES_DISABLE_PLUGIN_AUTOLOAD")
    for listing, name in (("variants", "bergen"), ("bots", "lightest")):
        out = subprocess.run(
            [sys.executable, "-m", "bones", listing],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert re.search(rf"^{name}\b", out, re.M), f"the plugin's {name} is not installed"
    files = ["test_variants.py", "test_bots.py", "test_plugins.py", "test_cli.py"]
    files += ["test_example_bergen.py", "test_variant_plugins.py", "test_match_cli.py"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider"]
        + [str(ROOT / "tests" / f) for f in files],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:]
