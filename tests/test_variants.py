"""Rules as data: the built-in variants, option validation and resolution."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bones
from bones.errors import OptionError
from bones.variant import Option, Variant, at_least, show

DOCS = Path(__file__).resolve().parent.parent / "docs"

# The contract with the core: every option name, its choices (default first) or, for free
# values, (default, "free").  The core reads exactly these names and values.
FREE = "free"
EXPECTED = {
    "straight": {
        "base": "straight",
        "players": (2, 3, 4),
        "description": "Straight Dominoes: All Fives with a spinner, to 250",
        "options": {
            "hand_size": (7, FREE),
            "spinner_rule": ("first_double", "none", "all_doubles"),
            "spinner_sides_first": (True, False),
            "boneyard_reserve": (0, 1, 2),
            "may_draw_with_playable": (False, True),
            "first_leader": ("random", "highest_double"),
            "next_leader": ("dominoer", "last_bone", "rotate"),
            "blocked_award": ("opponents_total", "difference"),
            "partner_pips_on_domino": ("ignore", "subtract"),
            "score_scale": (1, 5),
            "target": (250, FREE),
            "exact_target": (False, True),
            "target_check": ("immediate", "end_of_hand"),
            "hand_penalty": (False, True),
            "muggins_claim": (False, True),
            "teams_with_4": (True, False),
            "count_rule": ("fives", "fives_and_threes"),
            "hand_award": ("pips", "one_point"),
            "partnership_out": ("first_partner", "both_partners"),
        },
    },
    "multiplayer": {
        "base": "multiplayer",
        "players": (2,),
        "description": "Multiplayer Dominoes: the two-player draw game to 100",
        "options": {
            "tile_ranking": ("pip_sum", "lexicographic"),
            "opening_tile_forced": (True, False),
            "next_leader": ("previous_winner", "opening_rule"),
            "stock_reserve": (2, 0, 1),
            "voluntary_pass": (False, True),
            "stock_pips_to_winner": (False, True),
            "blocked_tie": ("lightest_tile", "no_winner"),
            "geometry": ("bounded", "unbounded"),
            "table_width": (8, FREE),
            "table_height": (5, FREE),
            "end_when_closed": (False, True),
            "target": (100, FREE),
            "hand_size": (7,),
        },
    },
    "kozel": {
        "base": "kozel",
        "players": (2, 3, 4),
        "description": "Kozel (Goat): Russian penalty game to 101",
        "options": {
            "hand_size": ({2: 7, 3: 5, 4: 5}, FREE),
            "teams_with_4": (True, False),
            "opening_order": ("highest_double", "one_one_first", "lowest_double_first"),
            "nondouble_ranking": ("pip_sum", "lexicographic"),
            "opening_tile_forced": (True, False),
            "no_zero_double_lead": (False, True),
            "redeal_bad_hand": (False, True),
            "next_leader": ("out_player", "fish_winner", "opening_rule"),
            "double_double": (True, False),
            "lone_zero_double": (25, 0, 10),
            "scoring_style": ("penalty", "credit_winner"),
            "open_threshold": (13, FREE),
            "sub13_mode": ("discard", "carry"),
            "threshold_scope": ("first_entry", "every_entry"),
            "fish_winner": ("lowest_value", "blocker"),
            "eggs_pot": ("total", "one_side", "off"),
            "structural_fish_early": (False, True),
            "target": (101, FREE),
        },
    },
    "block": {
        "base": "block",
        "players": (2, 4),
        "description": "Block: the plain block game of OpenSpiel's python_block_dominoes / "
        "python_team_dominoes; one round",
        "options": {"hand_size": (7,), "teams_with_4": (True,)},
    },
    "draw": {
        "base": "draw",
        "players": (2, 3, 4),
        "description": "Draw: the generic draw game, block plus a boneyard, to 100",
        "options": {
            "hand_size": ({2: 7, 3: 5, 4: 5}, FREE),
            "stock_reserve": (0, 1, 2),
            "teams_with_4": (True, False),
            "blocked_award": ("opponents_total", "difference"),
            "target": (100, FREE),
        },
    },
    "fives-and-threes": {
        "base": "straight",
        "players": (2, 3, 4),
        "description": (
            "Fives and Threes: the British pub game, multiples of 5 and 3 at the ends, to 61"
        ),
        "options": {
            "hand_size": ({2: 7, 3: 5, 4: 5}, FREE),
            "count_rule": ("fives_and_threes",),
            "spinner_rule": ("none",),
            "boneyard_reserve": ("all",),
            "first_leader": ("random", "highest_double"),
            "next_leader": ("rotate",),
            "hand_award": ("one_point",),
            "partnership_out": ("both_partners", "first_partner"),
            "target": (61, FREE),
            "exact_target": (True, False),
            "teams_with_4": (True, False),
        },
    },
}


def test_builtin_names():
    assert bones.variants() == [
        "block",
        "chicken-foot",
        "draw",
        "fives-and-threes",
        "kozel",
        "mexican-train",
        "multiplayer",
        "straight",
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_builtin_option_tables(name):
    v = bones.variant(name)
    spec = EXPECTED[name]
    assert (v.name, v.base, v.players, v.description) == (
        name,
        spec["base"],
        spec["players"],
        spec["description"],
    )
    assert v.plugin == "bones.plugins.builtin_variants"
    assert v.move_scorer is None
    assert list(v.options) == list(spec["options"])
    for key, values in spec["options"].items():
        option = v.options[key]
        assert option.name == key
        assert option.doc and "\n" not in option.doc, key
        assert option.source, key
        if values[-1] == FREE:
            assert option.choices is None, key
            assert option.default == values[0], key
        else:
            assert option.choices == values, key
            assert option.default == values[0], key
            for got, want in zip(option.choices, values, strict=True):
                assert type(got) is type(want), key


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_defaults_resolve_for_every_player_count(name):
    v = bones.variant(name)
    for n in v.players:
        resolved = v.resolve(n)
        assert set(resolved) == set(v.options) | {"players"}
        assert resolved["players"] == n
        assert isinstance(resolved["hand_size"], int)
        assert n * resolved["hand_size"] <= 28


def test_hand_size_defaults_and_presets():
    straight, kozel, draw = (bones.variant(n) for n in ("straight", "kozel", "draw"))
    assert [straight.resolve(n)["hand_size"] for n in (2, 3, 4)] == [7, 7, 7]
    assert [kozel.resolve(n)["hand_size"] for n in (2, 3, 4)] == [7, 5, 5]
    assert [draw.resolve(n)["hand_size"] for n in (2, 3, 4)] == [7, 5, 5]
    presets = {
        (straight, "seed"): [7, 7, 7],
        (straight, "pagat"): [9, 7, 5],
        (straight, "short"): [7, 5, 5],
        (kozel, "seed"): [7, 5, 5],
        (kozel, "classic"): [7, 5, 7],
        (kozel, "seven"): [7, 7, 7],
    }
    for (v, preset), sizes in presets.items():
        assert [v.resolve(n, hand_size=preset)["hand_size"] for n in (2, 3, 4)] == sizes
    # an int, a dict, and a dict with string keys (as JSON gives it) are accepted
    assert straight.resolve(3, hand_size=5)["hand_size"] == 5
    assert draw.resolve(2, hand_size={2: 6, 3: 4})["hand_size"] == 6
    assert kozel.resolve(4, hand_size={"4": 7})["hand_size"] == 7


def test_hand_size_errors():
    straight = bones.variant("straight")
    with pytest.raises(OptionError, match=r"straight: option 'hand_size' 8 with 4 players"):
        straight.resolve(4, hand_size=8)
    with pytest.raises(OptionError, match="no value for 4 players"):
        straight.resolve(4, hand_size={2: 9})
    with pytest.raises(OptionError, match="'pagat', 'short'"):
        straight.resolve(2, hand_size="huge")
    with pytest.raises(OptionError, match="an int >= 1"):
        straight.resolve(2, hand_size=0)
    with pytest.raises(OptionError, match="must be 7; got 5"):
        bones.variant("multiplayer").resolve(2, hand_size=5)
    with pytest.raises(OptionError):
        bones.variant("draw").resolve(2, hand_size="seed")  # draw has no presets


def test_error_message_names_variant_option_and_choices():
    with pytest.raises(OptionError) as info:
        bones.variant("straight").resolve(2, spinner_rule="x")
    assert str(info.value) == (
        "straight: option 'spinner_rule' must be one of 'first_double', 'none', "
        "'all_doubles'; got 'x'"
    )
    assert isinstance(info.value, ValueError)


def test_unknown_option_and_player_count():
    with pytest.raises(OptionError, match=r"kozel: unknown option 'spinner_rule'; options are"):
        bones.variant("kozel").resolve(2, spinner_rule="none")
    with pytest.raises(OptionError, match=r"block: players must be one of 2, 4; got 3"):
        bones.variant("block").resolve(3)
    with pytest.raises(OptionError, match="players must be one of 2; got 4"):
        bones.variant("multiplayer").resolve(4)


def test_values_are_type_strict():
    straight = bones.variant("straight")
    with pytest.raises(OptionError, match="got True"):
        straight.resolve(2, score_scale=True)  # True == 1, but it is not an int option
    with pytest.raises(OptionError, match="got 1"):
        straight.resolve(2, spinner_sides_first=1)
    with pytest.raises(OptionError, match=r"'target' must be an int >= 1; got True"):
        straight.resolve(2, target=True)
    with pytest.raises(OptionError, match=r"must be an int >= 1; got 0"):
        straight.resolve(2, target=0)
    with pytest.raises(OptionError, match=r"got '61'"):
        straight.resolve(2, target="61")
    assert bones.variant("kozel").resolve(2, open_threshold=0)["open_threshold"] == 0
    with pytest.raises(OptionError, match="an int >= 0"):
        bones.variant("kozel").resolve(2, open_threshold=-1)


def test_overrides_pass_through():
    resolved = bones.variant("straight").resolve(
        3, spinner_rule="all_doubles", target=61, score_scale=5, hand_size="short"
    )
    assert resolved["spinner_rule"] == "all_doubles"
    assert (resolved["target"], resolved["score_scale"], resolved["hand_size"]) == (61, 5, 5)


def test_unknown_variant_lists_known_names():
    with pytest.raises(OptionError) as info:
        bones.variant("fives")
    assert str(info.value) == (
        "unknown variant 'fives'; known variants: block, chicken-foot, draw, "
        "fives-and-threes, kozel, mexican-train, multiplayer, straight"
    )


def test_with_defaults_derives_a_variant():
    straight = bones.variant("straight")
    muggins = straight.with_defaults("muggins", spinner_rule="none", target=200)
    assert muggins.name == "muggins" and muggins.base == "straight"
    assert muggins.plugin is None and muggins.description == straight.description
    assert muggins.options["spinner_rule"].default == "none"
    assert muggins.options["spinner_rule"].choices == ("none", "first_double", "all_doubles")
    assert muggins.resolve(2)["target"] == 200
    assert muggins.resolve(2, spinner_rule="first_double")["spinner_rule"] == "first_double"
    # the original is untouched
    assert straight.options["spinner_rule"].default == "first_double"
    assert straight.resolve(2)["target"] == 250

    def scorer(round, move, count):
        return count // 3

    two = straight.with_defaults(
        "threes", description="x", players=[2], move_scorer=scorer, hand_size="pagat"
    )
    assert two.players == (2,) and two.move_scorer is scorer and two.description == "x"
    assert two.resolve(2)["hand_size"] == 9
    with pytest.raises(OptionError, match="players must be one of 2; got 3"):
        two.resolve(3)


def test_with_defaults_checks_its_values():
    straight = bones.variant("straight")
    with pytest.raises(OptionError, match="'spinner_rule' must be one of"):
        straight.with_defaults("bad", spinner_rule="sometimes")
    with pytest.raises(OptionError, match="unknown option 'colour'"):
        straight.with_defaults("bad", colour="red")
    with pytest.raises(OptionError, match="8 with 4 players"):
        straight.with_defaults("bad", hand_size=8)  # checked for every allowed count
    assert straight.with_defaults("two", players=(2,), hand_size=8).resolve(2)["hand_size"] == 8
    with pytest.raises(OptionError, match="players must be counts from 2 to 4"):
        straight.with_defaults("bad", players=(5,))


def test_variant_and_option_are_immutable():
    v = bones.variant("straight")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.name = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        v.options["target"] = None  # type: ignore[index]
    with pytest.raises(TypeError):
        bones.variant("kozel").options["hand_size"].default[2] = 9
    hash(v)
    hash(v.options["hand_size"])


def test_building_a_variant_from_scratch():
    v = Variant(
        name="tiny",
        base="block",
        description="Block with five tiles",
        players=(2,),
        options=[
            Option("hand_size", 5, (5, 6), "Tiles dealt", "test"),
            Option("target", 10, None, "Target", "test", check=at_least(1)),
        ],
    )
    assert v.resolve(2) == {"hand_size": 5, "target": 10, "players": 2}
    assert v.options["target"].expects == "an int >= 1"
    with pytest.raises(OptionError, match="base must be one of"):
        Variant("x", "Chess!", "", (2,), {})
    # a lowercase name may be a plugin family's base: the registry refuses it unless a
    # registered family runs it (tests/test_families.py)
    assert Variant("x", "chess", "", (2,), {}).base == "chess"
    with pytest.raises(OptionError, match="'hand_size' must be one of 5, 6; got 9"):
        Variant("x", "block", "", (2,), [Option("hand_size", 9, (5, 6), "", "")])
    with pytest.raises(TypeError, match="choices or a check"):
        Option("free", 1)


def test_show():
    assert show("none") == "none"
    assert show(True) == "True"
    assert show(250) == "250"
    assert show({2: 7, 3: 5}) == "{2: 7, 3: 5}"


def test_registry_does_not_import_the_core():
    code = (
        "import sys, bones; bones.variants(); bones.variant('kozel').resolve(3); "
        "bones.plugins(); "
        "loaded = [m for m in sys.modules if m.startswith('bones.core')]; "
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _doc_section(text: str, name: str) -> str:
    match = re.search(rf"^## `{re.escape(name)}`.*?(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/variants.md has no '## `{name}`' section"
    return match.group(0)


@pytest.mark.parametrize("name", [*sorted(EXPECTED), "mexican-train", "chicken-foot"])
def test_docs_list_every_option_with_its_default(name):
    """docs/variants.md cannot drift from the data: every option, default and choice."""
    section = _doc_section((DOCS / "variants.md").read_text(encoding="utf-8"), name)
    v = bones.variant(name)
    for key, option in v.options.items():
        row = re.search(rf"^\| `{re.escape(key)}` \| `([^`]*)` \|(.*)$", section, re.M)
        assert row, f"{name}: option {key!r} missing from docs/variants.md"
        assert row.group(1) == show(option.default), f"{name}.{key}: default"
        for choice in option.choices or ():
            assert f"`{show(choice)}`" in row.group(2), f"{name}.{key}: choice {choice!r}"
        for preset in option.presets:
            assert f"`{preset}`" in row.group(2), f"{name}.{key}: preset {preset!r}"


def test_top_level_exports():
    pytest.importorskip("bones.core.round")
    namespace: dict[str, object] = {}
    exec("from bones import *", namespace)
    assert set(bones.__all__) <= set(namespace)
    assert bones.Round.__name__ == "Round" and len(bones.TILES) == 28
    assert bones.Variant is Variant and bones.OptionError is OptionError
    assert isinstance(bones.__version__, str)
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        bones.Nope  # noqa: B018
