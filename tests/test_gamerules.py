"""Game-level rules as part of a variant (bones.GameRules, docs/game.md "Game rules"):
the built-in families' rule sets, the Variant field, and a plugin's own rules with a
carried state, per-round deal options and a fixed number of rounds."""

from __future__ import annotations

import copy
import pickle
import random
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgpack
import pytest

import bones
from bones import GameRules, Variant
from bones.game import round_seed
from bones.gamerules import (
    FAMILY_RULES,
    BlockGameRules,
    DrawGameRules,
    KozelGameRules,
    MultiplayerGameRules,
    Settlement,
    StraightGameRules,
    TrainGameRules,
    bad,
    ints,
    others,
)
from bones.plugins import hookimpl
from bones.plugins.manager import PluginWarning, get_plugin_manager


def test_each_family_has_its_rules():
    expected = {
        "straight": StraightGameRules,
        "multiplayer": MultiplayerGameRules,
        "kozel": KozelGameRules,
        "block": BlockGameRules,
        "draw": DrawGameRules,
    }
    assert dict(FAMILY_RULES) == {
        **expected,
        "trains": TrainGameRules,
        "chicken_foot": TrainGameRules,
    }
    for name, rules in expected.items():
        assert bones.variant(name).game_rules is rules
        assert bones.new_game(name, 2, seed=1).game_rules.__class__ is rules


def test_the_variant_field():
    kozel = bones.variant("kozel")
    assert kozel.with_defaults("kozel-51", target=51).game_rules is KozelGameRules

    class Mine(DrawGameRules):
        pass

    derived = bones.variant("draw").with_defaults("mine", game_rules=Mine)
    assert derived.game_rules is Mine
    assert derived.with_defaults("mine-2").game_rules is Mine  # kept by a further derivation
    assert derived.to_dict()["game_rules"].endswith("Mine")
    assert kozel.to_dict()["game_rules"] == "bones.gamerules.kozel.KozelGameRules"
    for wrong in (object, Mine({}), "draw"):
        with pytest.raises(TypeError, match="game_rules must be a subclass of bones.GameRules"):
            Variant("x", "draw", "x", (2,), dict(bones.variant("draw").options), game_rules=wrong)


def test_the_base_class_needs_settle():
    with pytest.raises(NotImplementedError, match="must define settle"):
        GameRules({}).settle(None, None, (0, 0), None, index=0)


def test_rules_state_is_immutable_and_the_options_read_only():
    game = bones.new_game("kozel", 2, seed=3)
    with pytest.raises(AttributeError):
        game.state.pot = 5
    with pytest.raises(TypeError):
        game.game_rules.options["target"] = 5  # type: ignore[index]


def test_a_game_and_its_rules_pickle_and_copy():
    for base in FAMILY_RULES:
        name = next(v for v in bones.variants() if bones.variant(v).base == base)
        game = bones.new_game(name, 2, seed=4)
        rnd = game.round
        while not rnd.is_over:
            rnd.play(rnd.legal_moves[0])
        game.next_round()
        for other in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
            assert other.to_msgpack() == game.to_msgpack() and other.state == game.state
            assert dict(other.game_rules.options) == dict(game.game_rules.options)


# -- a plugin's own game rules ------------------------------------------------------------


class ThreeRounds(GameRules):
    """Three rounds of Draw; every round's points count; the side that won the most
    rounds wins.  The state: rounds won per side.  Odd rounds pay the difference."""

    def initial_state(self, scores: tuple[int, ...]) -> tuple[int, ...]:
        return (0,) * len(scores)

    def deal_options(self, index: int) -> Mapping[str, Any]:
        return {"blocked_award": "difference"} if index % 2 else {}

    def settle(self, rnd, result, scores, state, *, index):
        new = tuple(s + p for s, p in zip(scores, result.points, strict=True))
        won = tuple(w + (side in result.winners) for side, w in enumerate(state))
        if index < 2:
            return Settlement(new, won)
        winners = tuple(i for i, w in enumerate(won) if w == max(won))
        return Settlement(new, won, winners, others(winners, len(new)))

    def encode_state(self, state: tuple[int, ...]) -> list[int]:
        return list(state)

    def decode_state(self, raw: Any, *, scores: tuple[int, ...], rounds: int) -> tuple[int, ...]:
        if raw is None:
            raise bad("field 'state' is missing: the rounds won")
        won = ints(raw, "state", len(scores), 0, rounds)
        if sum(won) > rounds:
            raise bad("field 'state' counts more rounds won than were played")
        return won


@pytest.fixture
def three_rounds(fresh_registry):
    class Plugin:
        @hookimpl
        def register_variants(self, register):
            register(bones.variant("draw").with_defaults("three-rounds", game_rules=ThreeRounds))

    get_plugin_manager().register(Plugin(), name="three-rounds-plugin")
    fresh_registry.reset(plugins=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginWarning)
        assert "three-rounds" in bones.variants()
    return "three-rounds"


def play_out(rnd, rng):
    while not rnd.is_over:
        legal = rnd.legal_moves
        rnd.play(legal[rng.randrange(len(legal))])


def test_a_plugin_defines_a_whole_game(three_rounds):
    for seed in range(5):
        rng = random.Random(seed)
        game = bones.new_game(three_rounds, 3, seed=seed)
        won = [0, 0, 0]
        awards = []
        while not game.is_over:
            rnd = game.round
            awards.append(rnd.options.get("blocked_award", "opponents_total"))
            play_out(rnd, rng)
            for side in rnd.result.winners:
                won[side] += 1
            saved = game.to_msgpack()
            assert bones.Game.from_msgpack(saved).to_msgpack() == saved
            game.next_round()
        assert len(game.results) == 3  # a fixed number of rounds, whatever the scores
        assert awards == ["opponents_total", "difference", "opponents_total"]
        assert game.state == tuple(won)
        assert game.winners == tuple(i for i, w in enumerate(won) if w == max(won))
        doc = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
        assert doc["state"] == won and doc["kozel"] is None
        again = bones.Game.from_msgpack(game.to_msgpack())
        assert again.state == game.state and again.winners == game.winners


def test_a_plugin_state_is_decoded_strictly(three_rounds):
    rng = random.Random(1)
    game = bones.new_game(three_rounds, 2, seed=1)
    play_out(game.round, rng)
    game.next_round()
    good = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    for state, match in [
        (None, "field 'state' is missing"),
        ([1], "must have 2 entries"),
        ([2, 0], "ints from 0 to 1"),
        ([1, 1], "more rounds won than were played"),
        ("1", "must be a list of ints"),
    ]:
        doc = dict(good)
        if state is None:
            del doc["state"]
        else:
            doc["state"] = state
        with pytest.raises(ValueError, match=match):
            bones.Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))
    doc = dict(good, kozel={"opened": [], "hanging": [], "pot": 0})
    with pytest.raises(ValueError, match="field 'kozel' must be nil for variant 'three-rounds'"):
        bones.Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))


def test_a_round_dealt_with_other_round_options_is_refused(three_rounds):
    rng = random.Random(2)
    game = bones.new_game(three_rounds, 2, seed=2)
    play_out(game.round, rng)
    game.next_round()  # round 1 pays the difference
    doc = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    doc["round"] = bones.Round.deal(
        three_rounds, 2, round_seed(2, 1), game.round.leader, None, list(game.scores)
    ).to_msgpack()
    with pytest.raises(ValueError, match="current round was made with options"):
        bones.Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))


# -- rules that answer nonsense --------------------------------------------------------------


class Broken(DrawGameRules):
    """Draw's rules, with one answer spoilt (``mode``)."""

    mode = ""

    def settle(self, rnd, result, scores, state, *, index):
        good = super().settle(rnd, result, scores, state, index=index)
        spoilt = {
            "list": [1, 2],
            "short": Settlement(good.scores[:1]),
            "bool": Settlement((True,) * len(good.scores)),
            "drift": Settlement(tuple(s + 10_000 for s in good.scores)),
            "winners": Settlement(good.scores, None, (1, 0), ()),
            "losers": Settlement(good.scores, None, None, (0,)),
            "raises": None,
        }
        if self.mode == "raises":
            raise RuntimeError("boom")
        return spoilt.get(self.mode, good)

    def next_leader(self, result, **kw):
        if self.mode == "leader":
            return 7, {}
        if self.mode == "extra":
            return None, ["first_leader"]
        return super().next_leader(result, **kw)

    def decode_state(self, raw, *, scores, rounds):
        if self.mode == "decode":
            return {}["missing"]  # a KeyError on hostile input
        return super().decode_state(raw, scores=scores, rounds=rounds)


@pytest.fixture
def broken(fresh_registry, monkeypatch):
    class Plugin:
        @hookimpl
        def register_variants(self, register):
            register(bones.variant("draw").with_defaults("broken-rules", game_rules=Broken))

    get_plugin_manager().register(Plugin(), name="broken-rules-plugin")
    fresh_registry.reset(plugins=False)
    return lambda mode: monkeypatch.setattr(Broken, "mode", mode)


@pytest.mark.parametrize(
    ("mode", "error", "match"),
    [
        ("list", bones.BonesError, r"settle returned \[1, 2\], not a Settlement"),
        ("short", bones.BonesError, "settle gave scores"),
        ("bool", bones.BonesError, "not 2 ints"),
        ("drift", bones.BonesError, "more than 6000 in one round"),
        ("winners", bones.BonesError, r"winners \(1, 0\), not sides in order"),
        ("losers", bones.BonesError, "losers of a game that goes on"),
        ("leader", bones.BonesError, "next_leader gave 7, not a seat"),
        ("extra", bones.BonesError, "not a mapping"),
        (
            "raises",
            bones.BonesError,
            r"'broken-rules': its game rules Broken settle\(\) raised "
            "RuntimeError: boom",
        ),
    ],
)
def test_nonsense_from_the_rules_leaves_the_game_as_it_was(broken, mode, error, match):
    broken(mode)
    game = bones.new_game("broken-rules", 2, seed=6)
    play_out(game.round, random.Random(6))
    before = game.to_msgpack()
    with pytest.raises(error, match=match):
        game.next_round()
    assert game.to_msgpack() == before and not game.results and game.round_index == 0


def test_rules_that_fail_on_a_saved_game_make_a_value_error(broken):
    game = bones.new_game("broken-rules", 2, seed=6)
    saved = game.to_msgpack()
    broken("decode")
    with pytest.raises(ValueError, match="the game rules Broken cannot read this game: KeyError"):
        bones.Game.from_msgpack(saved)


def test_setup_py_ships_every_package():
    """A package missing from setup.py's list is missing from every wheel (bones.gamerules
    is imported by ``import bones``)."""
    root = Path(__file__).resolve().parent.parent
    listed = set(re.findall(r'"(bones(?:\.\w+)*)"', (root / "setup.py").read_text("utf-8")))
    packages = {
        "bones" + "".join("." + part for part in init.parent.relative_to(root / "src").parts)
        for init in (root / "src").rglob("__init__.py")
    }
    assert packages <= listed, sorted(packages - listed)
