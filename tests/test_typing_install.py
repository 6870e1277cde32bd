"""A user's type checker sees bones' types (py.typed, the core's .pyi stubs).

pip's default editable install (``pip install -e .``) maps the package ``bones`` to
``src/`` with an import hook that type checkers cannot follow: mypy then reports
``Cannot find implementation or library stub for module named "bones"`` (or nothing at
all with ``ignore_missing_imports``) and a user's type errors go unnoticed.  A regular
install (``pip install .``, README's first command) or a strict editable install
(``pip install -e . --config-settings editable_mode=strict``, README's development
section) puts a real ``bones`` folder on the path.

* ``test_mypy_sees_the_installed_types`` checks the environment running the tests.
* ``test_the_documented_install_exposes_the_types`` installs the project the way README
  says into a scratch virtual environment (it compiles the core: minutes) and checks it.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

# A user's file with two type errors in calls to bones' API.
USER_CODE = """\
import bones

r: int = bones.Round.deal("straight", players="2")
"""
ERRORS = (
    'Incompatible types in assignment (expression has type "Round", variable has type "int")',
    'Argument "players" to "deal" of "Round" has incompatible type "str"; expected "int"',
)


def readme_example() -> str:
    """README's Python API example (its first ```python block): it must type-check
    cleanly, in strict mode."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", readme, re.M | re.S)
    assert blocks and "bones.Round.deal(" in blocks[0], "README's first python block"
    return blocks[0]


HOOK_HINT = (
    "mypy cannot see the installed package bones. If it is an editable install made by "
    "'pip install -e .' (an import hook, invisible to type checkers), reinstall it with "
    "'pip install -e .[dev] --config-settings editable_mode=strict', or use 'pip install .'"
)


def mypy(tmp_path: Path, code: str, *args: str, python: str | None = None) -> str:
    """Run mypy, as a user would, on ``code`` in a folder of its own (no project config;
    ``python``: the interpreter whose installed packages mypy uses)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    work = tmp_path / "user"
    work.mkdir(exist_ok=True)
    (work / "app.py").write_text(code, encoding="utf-8")
    (work / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental"]
    command += ["--python-executable", python or sys.executable, *args, "app.py"]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=600)
    return done.stdout + done.stderr


def check_types_visible(tmp_path: Path, python: str | None = None) -> None:
    out = mypy(tmp_path, USER_CODE, python=python)
    assert "Cannot find implementation or library stub" not in out, HOOK_HINT + "\n" + out
    for error in ERRORS:
        assert error in out, out
    assert "Found 2 errors in 1 file" in out, out
    out = mypy(tmp_path, readme_example(), "--strict", python=python)
    assert "Success: no issues found" in out, out


def test_mypy_sees_the_installed_types(tmp_path):
    pytest.importorskip("bones.core.round")
    check_types_visible(tmp_path)


def test_the_documented_install_exposes_the_types(tmp_path):
    """README's first command is a regular install: ``pip install .`` (copy of the
    project, so that the build leaves the work tree alone)."""
    source = tmp_path / "bones-src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "src",
        source / "src",
        ignore=shutil.ignore_patterns("*.so", "*.c", "*.html", "__pycache__"),
    )
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = str(env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python"))
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(source)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    check_types_visible(tmp_path, python=python)
