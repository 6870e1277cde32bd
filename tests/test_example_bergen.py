"""The example third-party variant package examples/bergen: found through its entry point
like an installed plugin (as tests/plugins_example is), and its own tests pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import bones
from bones.cli import main

ROOT = Path(__file__).resolve().parent.parent
BERGEN = ROOT / "examples" / "bergen"


def fake_dist(site: Path, name: str, entry_points: dict[str, str], version: str = "0.1.0"):
    """Write ``NAME-VERSION.dist-info`` with a ``bones`` entry-point group into ``site``."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[bones]\n{lines}", encoding="utf-8")


@pytest.fixture
def site(tmp_path, monkeypatch, fresh_registry, plugin_autoload):
    """A temporary site folder on sys.path plus the example package's source folder."""
    monkeypatch.syspath_prepend(str(BERGEN))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "bones_bergen", raising=False)
    yield tmp_path
    sys.modules.pop("bones_bergen", None)


def test_bergen_found_through_its_entry_point(site, capsys):
    fake_dist(site, "bones-bergen", {"bergen": "bones_bergen"})
    assert main(["variants", "bergen"]) == 0
    listing = capsys.readouterr().out
    assert "plugin bergen" in listing and "game rules: bones_bergen.BergenRules" in listing
    assert main(["variants", "draw"]) == 0
    assert "game rules" not in capsys.readouterr().out  # a family's own rules: not listed
    assert "bergen" in bones.variants()
    variant = bones.variant("bergen")
    assert variant.plugin == "bergen" and variant.base == "draw"
    assert variant.game_rules.__name__ == "BergenRules"
    assert variant.game_rules.__module__ == "bones_bergen"
    info = next(p for p in bones.plugins() if p["name"] == "bergen")
    assert info["source"] == "entry point" and info["error"] is None
    assert (info["dist"], info["version"]) == ("bones-bergen", "0.1.0")
    assert info["variants"] == ["bergen"]
    # a whole game through bones.Game: the winner is at or above 15
    game = bones.new_game("bergen", 2, seed=5)
    while not game.is_over:
        rnd = game.round
        while not rnd.is_over:
            rnd.play(rnd.legal_moves[0])
        game.next_round()
    assert max(game.scores) >= 15 and game.winners
    assert bones.Game.from_msgpack(game.to_msgpack()).to_msgpack() == game.to_msgpack()


def test_bergen_uses_only_the_public_api():
    source = (BERGEN / "bones_bergen" / "__init__.py").read_text(encoding="utf-8")
    imports = [
        line.split()[1] for line in source.splitlines() if line.startswith(("from ", "import "))
    ]
    assert {i for i in imports if i.startswith("bones")} <= {
        "bones",
        "bones.gamerules",
        "bones.plugins",
    }


def test_bergen_own_tests_pass():
    """examples/bergen/tests, as its author runs them (the plugin registered by its
    conftest from the source folder)."""
    env = dict(os.environ)
    # the folder this bones was imported from, so that the subprocess tests the same one
    bones_home = str(Path(bones.__file__).parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([str(BERGEN), bones_home])
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=BERGEN,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
