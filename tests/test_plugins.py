"""Plugins: hook specs, the built-in plugin, direct registration, entry points, failures."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

import bones
from bones.errors import OptionError
from bones.plugins import hookimpl, hookspecs
from bones.plugins.manager import PluginWarning, get_plugin_manager

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = Path(__file__).resolve().parent / "plugins_example"
BUILTIN = "bones.plugins.builtin_variants"


def hook_names() -> list[str]:
    return [
        name
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, "bones_spec")
    ]


def by_name(infos, name):
    matches = [i for i in infos if i["name"] == name]
    assert len(matches) == 1, infos
    return matches[0]


# -- hook specifications -------------------------------------------------------------------


def test_hookspecs_are_documented():
    names = hook_names()
    assert names == ["register_bots", "register_families", "register_variants"]
    doc = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#{2,4}\s+`?(\w+)", doc, re.M)
    for name in names:
        assert name in headings, f"hook {name!r} has no heading in docs/plugins.md"
        assert inspect.getdoc(getattr(hookspecs, name)), f"hook {name!r} has no docstring"


def test_hookimpl_is_exported():
    assert hookimpl is hookspecs.hookimpl
    assert bones.plugins is not None


# -- the built-in plugin --------------------------------------------------------------------


def test_builtin_plugin_is_a_plugin(fresh_registry):
    info = by_name(bones.plugins(), BUILTIN)
    assert info["source"] == "builtin"
    assert info["hooks"] == ["register_variants"]
    assert info["variants"] == [
        "straight",
        "multiplayer",
        "kozel",
        "block",
        "draw",
        "fives-and-threes",
    ]
    assert info["error"] is None
    assert get_plugin_manager().get_plugin(BUILTIN) is sys.modules[BUILTIN]


def test_manager_is_cached_and_reset(fresh_registry):
    pm = get_plugin_manager()
    assert get_plugin_manager() is pm
    fresh_registry.reset(plugins=False)
    assert get_plugin_manager() is pm
    fresh_registry.reset()
    assert get_plugin_manager() is not pm


# -- a plugin object registered directly -----------------------------------------------------


def fives_and_threes(round, move, count):
    if count <= 0:
        return 0
    return (count // 5 if count % 5 == 0 else 0) + (count // 3 if count % 3 == 0 else 0)


class FivesAndThrees:
    @hookimpl
    def register_variants(self, register):
        register(
            bones.variant("straight").with_defaults(
                "fives-and-threes-py",
                description="Fives and Threes: multiples of 5 and 3 score, to 61",
                move_scorer=fives_and_threes,
                target=61,
                hand_size="pagat",
            )
        )


def test_register_plugin_object(fresh_registry):
    get_plugin_manager().register(FivesAndThrees(), name="fives-and-threes-py-plugin")
    fresh_registry.reset(plugins=False)
    assert "fives-and-threes-py" in bones.variants()
    v = bones.variant("fives-and-threes-py")
    assert v.plugin == "fives-and-threes-py-plugin"
    assert v.base == "straight" and v.move_scorer is fives_and_threes
    assert v.resolve(2)["target"] == 61 and v.resolve(2)["hand_size"] == 9
    info = by_name(bones.plugins(), "fives-and-threes-py-plugin")
    assert info["source"] == "registered"
    assert info["hooks"] == ["register_variants"]
    assert info["variants"] == ["fives-and-threes-py"]
    assert info["module"].endswith("FivesAndThrees")
    # the built-ins are untouched
    assert bones.variant("straight").move_scorer is None
    fresh_registry.reset()
    assert "fives-and-threes-py" not in bones.variants()


# -- broken plugins are reported and skipped -------------------------------------------------


class Raises:
    @hookimpl
    def register_variants(self, register):
        raise RuntimeError("boom\nsecond line")


class Duplicate:
    @hookimpl
    def register_variants(self, register):
        register(bones.variant("straight").with_defaults("fine-one"))
        register(bones.variant("kozel").with_defaults("straight"))


class NotAVariant:
    @hookimpl
    def register_variants(self, register):
        register({"name": "dict"})


class Typo:
    @hookimpl
    def register_variant(self, register):  # not a bones hook
        raise AssertionError("never called")


@pytest.mark.parametrize(
    "plugin, error",
    [
        (Raises(), "RuntimeError: boom"),
        (
            Duplicate(),
            "OptionError: variant 'straight' is registered by both "
            "'bones.plugins.builtin_variants' and 'bad'",
        ),
        (NotAVariant(), "TypeError: register() takes a bones.Variant, not dict"),
    ],
)
def test_bad_registration_is_reported_and_skipped(fresh_registry, plugin, error):
    get_plugin_manager().register(plugin, name="bad")
    fresh_registry.reset(plugins=False)
    with pytest.warns(PluginWarning, match="bones plugin 'bad' skipped"):
        names = bones.variants()
    assert names == [
        "block",
        "chicken-foot",
        "draw",
        "fives-and-threes",
        "kozel",
        "mexican-train",
        "multiplayer",
        "straight",
    ]  # whole plugin skipped
    assert bones.variant("straight").plugin == BUILTIN
    info = by_name(bones.plugins(), "bad")
    assert info["error"] == error
    assert info["variants"] == []


def test_duplicate_between_third_party_plugins(fresh_registry):
    class First:
        @hookimpl
        def register_variants(self, register):
            register(bones.variant("draw").with_defaults("same-name"))

    pm = get_plugin_manager()
    pm.register(First(), name="first")
    pm.register(FivesAndThrees(), name="second")

    class Second:
        @hookimpl
        def register_variants(self, register):
            register(bones.variant("block").with_defaults("same-name"))

    pm.register(Second(), name="third")
    fresh_registry.reset(plugins=False)
    with pytest.warns(PluginWarning):
        assert bones.variant("same-name").plugin == "first"
    assert "fives-and-threes-py" in bones.variants()
    assert by_name(bones.plugins(), "third")["error"] == (
        "OptionError: variant 'same-name' is registered by both 'first' and 'third'"
    )


def test_unknown_hook_is_listed(fresh_registry):
    get_plugin_manager().register(Typo(), name="typo")
    fresh_registry.reset(plugins=False)
    info = by_name(bones.plugins(), "typo")
    assert info["unknown_hooks"] == ["register_variant"]
    assert info["error"] is None
    assert len(bones.variants()) == 8


# -- entry points (the real importlib.metadata path) -----------------------------------------


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
    """A temporary site folder on sys.path plus the example plugin's source folder."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("bones_example_plugin", "bones_example_broken"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    yield tmp_path
    for module in ("bones_example_plugin", "bones_example_broken"):
        sys.modules.pop(module, None)


def test_example_plugin_found_through_entry_point(site):
    fake_dist(site, "bones-example-plugin", {"example": "bones_example_plugin"})
    assert "muggins" in bones.variants() and "fives-and-threes-py" in bones.variants()
    muggins = bones.variant("muggins")
    assert muggins.plugin == "example"
    assert muggins.resolve(2)["spinner_rule"] == "none"
    assert bones.variant("fives-and-threes-py").move_scorer(None, None, 15) == 8
    info = by_name(bones.plugins(), "example")
    assert info["source"] == "entry point"
    assert (info["dist"], info["version"]) == ("bones-example-plugin", "0.1.0")
    assert info["variants"] == ["muggins", "fives-and-threes-py"]
    assert info["module"] == "bones_example_plugin"


def test_broken_entry_point_is_reported_and_skipped(site):
    fake_dist(site, "bones-example-broken", {"broken": "bones_example_broken"}, "2.0")
    fake_dist(site, "bones-example-plugin", {"example": "bones_example_plugin"})
    fake_dist(site, "bones-example-missing", {"missing": "no_such_module_for_bones"})
    with pytest.warns(PluginWarning) as record:
        names = bones.variants()
    assert "muggins" in names  # the good plugin still loads
    messages = " ".join(str(w.message) for w in record)
    assert "'broken' skipped: ImportError: bones_example_broken needs a package" in messages
    assert "'missing' skipped: ModuleNotFoundError" in messages
    infos = bones.plugins()
    broken = by_name(infos, "broken")
    assert broken["error"].startswith("ImportError: bones_example_broken needs")
    assert (broken["dist"], broken["version"]) == ("bones-example-broken", "2.0")
    assert broken["hooks"] == [] and broken["variants"] == []
    assert get_plugin_manager().get_plugin("broken") is None


def test_entry_point_with_bad_hook_signature(site):
    (site / "bones_bad_signature.py").write_text(
        "from bones.plugins import hookimpl\n\n"
        "@hookimpl\n"
        "def register_variants(register, extra):\n"
        "    pass\n",
        encoding="utf-8",
    )
    fake_dist(site, "bones-bad-signature", {"badsig": "bones_bad_signature"})
    with pytest.warns(PluginWarning, match="'badsig' skipped: PluginValidationError"):
        assert len(bones.variants()) == 8
    assert get_plugin_manager().get_plugin("badsig") is None
    sys.modules.pop("bones_bad_signature", None)


def test_plugin_deriving_at_import_time(site):
    (site / "bones_import_time.py").write_text(
        "import bones\nfrom bones.plugins import hookimpl\n\n"
        "SHORT = bones.variant('kozel').with_defaults('kozel-short', target=51)\n\n"
        "@hookimpl\n"
        "def register_variants(register):\n"
        "    register(SHORT)\n",
        encoding="utf-8",
    )
    fake_dist(site, "bones-import-time", {"importtime": "bones_import_time"})
    assert bones.variant("kozel-short").resolve(3)["target"] == 51
    sys.modules.pop("bones_import_time", None)


def test_unknown_variant_error_after_plugins(site):
    fake_dist(site, "bones-example-plugin", {"example": "bones_example_plugin"})
    with pytest.raises(
        OptionError, match="known variants: block, chicken-foot, draw, fives-and-threes"
    ):
        bones.variant("nope")
