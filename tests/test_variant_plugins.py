"""A plugin variant is checked against its rule family when it is registered (issue 6);
tests/test_python_scorer.py has the compiled bots on a variant with a Python scorer."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings

import pytest

import bones
from bones import Option, OptionError, Variant
from bones.plugins import hookimpl
from bones.plugins.manager import PluginWarning, get_plugin_manager
from bones.variant import BASE_OPTIONS, at_least, check_base

STRAIGHT = bones.variant("straight")


def _register(fresh_registry, name: str, *variants: Variant) -> list[str]:
    """Register a plugin holding ``variants``; return the warnings the registry gave."""

    class Plugin:
        @hookimpl
        def register_variants(self, register):
            for v in variants:
                register(v)

    get_plugin_manager().register(Plugin(), name=name)
    fresh_registry.reset(plugins=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bones.variants()
    return [str(w.message) for w in caught if issubclass(w.category, PluginWarning)]


def _error_of(plugin: str) -> str | None:
    return next(p["error"] for p in bones.plugins() if p["name"] == plugin)


def _straight_with(**changes: Option | None) -> Variant:
    options = dict(STRAIGHT.options)
    for key, option in changes.items():
        if option is None:
            del options[key]
        else:
            options[key] = option
    return Variant("custom", "straight", "a custom straight", (2, 3, 4), options)


def test_an_unknown_option_is_refused_at_registration(fresh_registry):
    custom = _straight_with(set=Option("set", "double-nine", ("double-nine", "double-six")))
    messages = _register(fresh_registry, "nine-plugin", custom)
    assert "custom" not in bones.variants()
    assert any("'nine-plugin' skipped" in m and "unknown option 'set'" in m for m in messages)
    assert "unknown option 'set'" in (_error_of("nine-plugin") or "")


def test_a_missing_option_is_refused_at_registration(fresh_registry):
    custom = _straight_with(hand_size=None)
    messages = _register(fresh_registry, "no-hand-plugin", custom)
    assert "custom" not in bones.variants()
    assert any("missing option 'hand_size'" in m for m in messages)
    # a deal, a game and the CLI listing never see it
    with pytest.raises(OptionError, match="unknown variant 'custom'"):
        bones.Round.deal("custom", 2)
    with pytest.raises(OptionError, match="unknown variant 'custom'"):
        bones.new_game("custom", 2)


def test_a_value_the_family_does_not_understand_is_refused(fresh_registry):
    spin = Option("spinner_rule", "first_double", ("first_double", "sideways"))
    reserve = Option("boneyard_reserve", 0, None, check=at_least(0))
    _register(fresh_registry, "odd-plugin", _straight_with(spinner_rule=spin))
    assert "'sideways'" in (_error_of("odd-plugin") or "")
    fresh_registry.reset(plugins=True)
    custom = dataclasses.replace(_straight_with(boneyard_reserve=reserve), name="custom2")
    _register(fresh_registry, "reserve-plugin", custom)
    assert "custom2" in bones.variants()  # a free check is bounded when it resolves:
    with pytest.raises(OptionError, match="'boneyard_reserve' must be one of 0, 1, 2"):
        bones.Round.deal("custom2", 2, boneyard_reserve=300)


def test_a_bad_variant_skips_its_plugin_but_not_the_others(fresh_registry):
    good = STRAIGHT.with_defaults("good-one", target=100)
    bad = _straight_with(hand_size=None)
    _register(fresh_registry, "mixed-plugin", good, bad)
    assert "good-one" not in bones.variants()  # a broken plugin is skipped whole
    fresh_registry.reset(plugins=True)
    _register(fresh_registry, "fine-plugin", good)
    assert "good-one" in bones.variants()
    assert bones.Round.deal("good-one", 2).rules.options["target"] == 100


def test_the_builtins_and_derived_variants_pass_the_check():
    for name in ("straight", "multiplayer", "kozel", "block", "draw"):
        v = bones.variant(name)
        check_base(v)
        assert set(v.options) == set(BASE_OPTIONS[v.base])
        check_base(v.with_defaults("derived"))


def test_the_cli_lists_variants_despite_a_bad_plugin(tmp_path):
    """``bones variants`` in a process whose plugin registers a broken variant."""
    code = (
        "import warnings, bones\n"
        "from bones import Option, Variant, registry\n"
        "from bones.plugins import hookimpl\n"
        "from bones.plugins.manager import get_plugin_manager\n"
        "from bones.cli import main\n"
        "class P:\n"
        "    @hookimpl\n"
        "    def register_variants(self, register):\n"
        "        o = dict(bones.variant('straight').options)\n"
        "        o['set'] = Option('set', 'double-nine', ('double-nine',))\n"
        "        register(Variant('nine', 'straight', 'd9', (2,), o))\n"
        "get_plugin_manager().register(P(), name='nine-plugin')\n"
        "registry.reset(plugins=False)\n"
        "raise SystemExit(main(['variants']))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert "straight" in out.stdout and "nine" not in out.stdout.split()
    assert "nine-plugin" in out.stderr and "unknown option 'set'" in out.stderr
