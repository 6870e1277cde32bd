"""The compiled core keeps to the layers too (issue 25).

import-linter (``lint-imports``, pyproject.toml ``[tool.importlinter]``) reads the ``.py``
modules only: the ``.pyx``/``.pxd`` files of ``bones.core`` are invisible to it.  This test
reads them line by line and checks every runtime import of a ``bones`` module against the
layer order of the main contract, so that a new upward import in the core fails here as
one in a ``.py`` module fails ``lint-imports``.  ``cimport`` lines are C-level (``.pxd``
declarations of the core itself) and are not imports of a Python module."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli (import-linter's own TOML reader there)
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "src" / "core"

# A runtime import of a bones module, at any indentation (lazy imports inside functions
# count): "from bones.x import ...", "from .x import ...", "import bones.x".  "cimport"
# does not match (the module name is followed by "cimport", not "import").
IMPORT = re.compile(
    r"^\s*(?:from\s+(?P<from>bones[\w.]*|\.[\w.]*)\s+import\s+(?P<names>.*)"
    r"|import\s+(?P<plain>bones[\w.]*))"
)

# The core's upward imports that are allowed, each with its reason: (file, imported module).
EXCEPTIONS: dict[tuple[str, str], str] = {
    # Display hooks, like the .py ones in the contract's ignore_imports: a model object
    # draws itself in a notebook through the drawing layer above it, one lazy import
    # inside _repr_svg_ each.
    ("round.pyx", "bones.render.svg"): "Round._repr_svg_ (display hook)",
    ("trains.pyx", "bones.render.trains_svg"): "TrainRound._repr_svg_ (display hook)",
}


def _layers() -> list[list[str]]:
    """The main contract's layers, top first, each a list of its modules (``bones.x``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (main,) = [c for c in config["contracts"] if c["id"] == "layers"]
    assert main["containers"] == ["bones"]
    return [[f"bones.{m.strip()}" for m in layer.split("|")] for layer in main["layers"]]


def _layer_of(module: str, layers: list[list[str]]) -> int | None:
    """The index of the layer holding ``module`` (by its longest placed prefix)."""
    best: tuple[int, int] | None = None  # (prefix length, layer index)
    for index, layer in enumerate(layers):
        for placed in layer:
            if module == placed or module.startswith(placed + "."):
                if best is None or len(placed) > best[0]:
                    best = (len(placed), index)
    return None if best is None else best[1]


def core_imports() -> list[tuple[str, int, str]]:
    """Every runtime import of a bones module in the core's .pyx/.pxd files:
    (file name, line number, absolute module name)."""
    found = []
    for path in sorted([*CORE.glob("*.pyx"), *CORE.glob("*.pxd")]):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = IMPORT.match(line)
            if match is None:
                continue
            if match["plain"]:
                found.append((path.name, number, match["plain"]))
                continue
            source = match["from"]
            if source.startswith("."):  # relative to bones.core
                dots = len(source) - len(source.lstrip("."))
                base = ["bones", "core"][: 3 - dots]
                rest = source.lstrip(".")
                source = ".".join(base + ([rest] if rest else []))
            if source in ("bones", "bones.core"):
                # "from bones import x": x is a module or a name of the package root;
                # check it as the module bones.x (a name that is no module is refused).
                names = match["names"].strip("() \\")
                for name in names.split(","):
                    name = name.split(" as ")[0].strip()
                    if name:
                        found.append((path.name, number, f"{source}.{name}"))
            else:
                found.append((path.name, number, source))
    return found


def test_the_core_imports_something():
    # The reader works: the core's known imports are seen (a broken regex finding nothing
    # would pass the checks below vacuously).
    modules = {module for _, _, module in core_imports()}
    assert "bones.errors" in modules
    assert "bones.records" in modules
    assert "bones.render.svg" in modules


def test_every_core_module_is_in_the_layers():
    layers = _layers()
    assert _layer_of("bones.core.round", layers) is not None
    assert _layer_of("bones.core", layers) == _layer_of("bones.core.trains", layers)


def test_the_core_imports_only_down_the_layers():
    layers = _layers()
    core = _layer_of("bones.core", layers)
    assert core is not None
    upward = []
    for file, number, module in core_imports():
        layer = _layer_of(module, layers)
        if layer is None:
            upward.append(f"{file}:{number}: {module} is in no layer of pyproject.toml")
        elif layer < core and (file, module) not in EXCEPTIONS:
            upward.append(f"{file}:{number}: {module} is above bones.core")
    assert not upward, "the compiled core imports up the layers:\n" + "\n".join(upward)


@pytest.mark.parametrize("exception", sorted(EXCEPTIONS))
def test_every_exception_is_still_needed(exception):
    # A listed exception whose import is gone is removed from the list (it would let the
    # import come back unseen).
    layers = _layers()
    core = _layer_of("bones.core", layers)
    seen = {(file, module) for file, _, module in core_imports()}
    assert exception in seen
    layer = _layer_of(exception[1], layers)
    assert layer is not None and layer < core


def test_the_reader_sees_an_upward_import(tmp_path, monkeypatch):
    # The check can fail: a core file importing the runner is reported, in every form.
    (tmp_path / "bad.pyx").write_text(
        "from bones.errors import OptionError\n"
        "from bones.core.rules cimport CompiledRules\n"
        "def f():\n"
        "    from bones.match.runner import run\n"
        "    import bones.game\n"
        "    from .. import cli\n"
    )
    monkeypatch.setitem(globals(), "CORE", tmp_path)
    assert core_imports() == [
        ("bad.pyx", 1, "bones.errors"),
        ("bad.pyx", 4, "bones.match.runner"),
        ("bad.pyx", 5, "bones.game"),
        ("bad.pyx", 6, "bones.cli"),
    ]
    with pytest.raises(AssertionError, match="bones.match.runner is above bones.core"):
        test_the_core_imports_only_down_the_layers()
