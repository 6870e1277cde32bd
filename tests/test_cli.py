"""The command line: ``bones variants``, ``bones plugins``, ``bones bench``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bones
from bones.cli import UsageError, main, parse_options
from bones.plugins import hookimpl
from bones.plugins.manager import PluginWarning, get_plugin_manager


def error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("bones: error: ")
    return lines[0]


# -- variants ---------------------------------------------------------------------------------


def test_variants_lists_everything(capsys):
    assert main(["variants"]) == 0
    out = capsys.readouterr().out
    for name in bones.variants():
        v = bones.variant(name)
        assert f"{name}  (base {v.base}; players {', '.join(map(str, v.players))}" in out
        assert v.description in out
        for option in v.options:
            assert option in out


def test_variants_one(capsys):
    assert main(["variants", "straight"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("straight  (base straight; players 2, 3, 4;")
    assert "first_double | none | all_doubles" in out
    assert "kozel" not in out
    line = next(x for x in out.splitlines() if x.strip().startswith("target "))
    assert "250" in line and "an int >= 1" in line


def test_variants_json(capsys):
    assert main(["variants", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in data] == bones.variants()
    kozel = next(d for d in data if d["name"] == "kozel")
    assert kozel["players"] == [2, 3, 4]
    assert kozel["options"]["hand_size"]["default"] == {"2": 7, "3": 5, "4": 5}
    assert kozel["options"]["eggs_pot"]["choices"] == ["total", "one_side", "off"]
    assert main(["variants", "block", "--json"]) == 0
    block = json.loads(capsys.readouterr().out)
    assert block["name"] == "block" and block["options"]["teams_with_4"]["choices"] == [True]


def test_variants_unknown(capsys):
    assert main(["variants", "chess"]) == 2
    assert error_line(capsys) == (
        "bones: error: unknown variant 'chess'; known variants: "
        "block, chicken-foot, draw, fives-and-threes, kozel, mexican-train, multiplayer, straight"
    )


# -- plugins ----------------------------------------------------------------------------------


def test_plugins(capsys, fresh_registry):
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "bones.plugins.builtin_variants  [builtin] ok" in out
    assert "hooks:    register_variants" in out
    assert "variants: straight, multiplayer, kozel, block, draw" in out
    assert "families: line, trains" in out
    assert main(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["name"] == "bones.plugins.builtin_families"
    assert data[0]["families"] == ["line", "trains"]


def test_plugins_shows_broken(capsys, fresh_registry):
    class Broken:
        @hookimpl
        def register_variants(self, register):
            raise ValueError("cannot build my variant")

    get_plugin_manager().register(Broken(), name="broken-one")
    fresh_registry.reset(plugins=False)
    with pytest.warns(PluginWarning):
        assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "broken-one  [registered] BROKEN, skipped" in out
    assert "error:    ValueError: cannot build my variant" in out


# -- bench: argument errors (no core needed) --------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["bench", "--variant", "chess"],
            "unknown variant 'chess'; known variants: block, chicken-foot, draw, "
            "fives-and-threes, kozel, mexican-train, multiplayer, straight",
        ),
        (
            ["bench", "--variant", "block", "--players", "3"],
            "--players 3 is allowed by none of the variants (block: 2, 4)",
        ),
        (
            ["bench", "--variant", "straight", "-o", "spinner_rule=x"],
            "straight: option 'spinner_rule' must be one of 'first_double', 'none', "
            "'all_doubles'; got 'x'",
        ),
        (
            ["bench", "--variant", "kozel", "-o", "spinner_rule=none"],
            "kozel: unknown option 'spinner_rule'; options are hand_size,",
        ),
        (["bench", "-o", "target"], "--option takes KEY=VALUE (e.g. target=61); got 'target'"),
        (["bench", "--seconds", "0"], "--seconds must be > 0; got 0.0"),
        (["bench", "--players", "two"], "argument --players: invalid int value: 'two'"),
        (["bench", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["dance"], "argument COMMAND: invalid choice: 'dance'"),
    ],
)
def test_usage_errors(capsys, argv, message):
    assert main(argv) == 2
    assert error_line(capsys).startswith(f"bones: error: {message}")


def test_parse_options():
    assert parse_options(["target=61", "spinner_rule=none", "x=true", 'h={"2": 9}', "s="]) == {
        "target": 61,
        "spinner_rule": "none",
        "x": True,
        "h": {"2": 9},
        "s": "",
    }
    with pytest.raises(UsageError):
        parse_options(["2x=1"])


def test_help_and_version(capsys):
    assert main(["--help"]) == 0
    assert "variants" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("bones ")
    assert main([]) == 2


def test_python_dash_m():
    done = subprocess.run(
        [sys.executable, "-m", "bones", "variants", "block"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("block  (base block; players 2, 4;")


# -- bench: real measurements (need the compiled core) ----------------------------------------


def test_bench_runs(capsys):
    pytest.importorskip("bones.core.playout")
    pytest.importorskip("bones.core.round")
    argv = ["bench", "--variant", "straight", "--variant", "block", "--players", "2"]
    assert main([*argv, "--seconds", "0.05", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["variant"], r["players"]) for r in rows] == [("straight", 2), ("block", 2)]
    for row in rows:
        core, py = row["core"], row["python"]
        assert core["rounds"] >= 1 and core["moves"] >= core["rounds"]
        assert 0 <= core["blocked"] <= core["rounds"]
        assert core["moves_per_s"] > 0 and py["moves_per_s"] > 0
        assert py["rounds"] >= 1 and py["moves"] >= py["rounds"]
    assert main(["bench", "--variant", "kozel", "--players", "3", "--seconds", "0.02"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:2] == ["variant", "players"]
    assert out.splitlines()[1].split()[:2] == ["kozel", "3"]


def test_bench_runs_the_train_games(capsys):
    """The train variants run on their own core: rounds, placements, a Python loop."""
    pytest.importorskip("bones.core.trains")
    argv = ["bench", "--variant", "mexican-train", "--variant", "chicken-foot"]
    assert main([*argv, "--players", "3", "--seconds", "0.05", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["variant"], r["players"]) for r in rows] == [
        ("mexican-train", 3),
        ("chicken-foot", 3),
    ]
    for row in rows:
        core, py = row["core"], row["python"]
        assert core["rounds"] >= 1 and core["moves"] >= core["rounds"]
        assert 0 <= core["blocked"] <= core["rounds"]
        assert py["rounds"] >= 1 and py["moves"] >= py["rounds"]
    from bones.core.trains import random_playouts
    from bones.speed import playouts

    # the variant's standard deal: chicken-foot, 3 players, double-9, 7 tiles, 4 toes
    mine = playouts("chicken-foot", 3, 50, seed=4)
    core = random_playouts("chicken_foot", 9, 3, 7, 50, seed=4, engine_toes=4, zero_double=50)
    assert (mine["rounds"], mine["moves"], mine["blocked"]) == (
        core["rounds"],
        core["plies"],
        core["blocked"],
    )


def test_bench_move_scorer_variant_runs_python_only(capsys, fresh_registry):
    pytest.importorskip("bones.core.playout")

    class Threes:
        @hookimpl
        def register_variants(self, register):
            register(
                bones.variant("straight").with_defaults(
                    "threes", move_scorer=lambda r, m, c: c // 3 if c % 3 == 0 else 0
                )
            )

    get_plugin_manager().register(Threes(), name="threes")
    fresh_registry.reset(plugins=False)
    argv = ["bench", "--variant", "threes", "--players", "2", "--seconds", "0.02"]
    assert main([*argv, "--no-python", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["core"] is None and row["python"]["moves"] > 0
    assert main(argv) == 0
    line = capsys.readouterr().out.splitlines()[1].split()
    assert line[:4] == ["threes", "2", "-", "-"] and line[-1] == "-"


def test_python_loop():
    pytest.importorskip("bones.core.round")
    from bones.speed import python_loop

    result = python_loop("draw", 3, seconds=0.01, seed=1)
    assert result["rounds"] >= 1 and result["moves"] >= result["rounds"]
    assert result["moves_per_s"] > 0


def test_bots_lists_a_plugin_bot_that_is_not_installed():
    """``bones bots --plugin MODULE`` (as ``bones match`` has it), in a fresh process: the
    bot is unknown without the option."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent)}

    def bots(*extra: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "bones", "bots", "t-answer", *extra]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)

    plain = bots()
    assert plain.returncode != 0 and "t-answer" in plain.stderr
    listed = bots("--plugin", "hardening_plugin")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("t-answer  (plugin hardening_plugin")
    bad = bots("--plugin", "no_such_module_here")
    assert bad.returncode == 2 and "no_such_module_here" in bad.stderr and not bad.stdout
