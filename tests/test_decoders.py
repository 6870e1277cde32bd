"""Hostile input to the decoders and to option resolution (issue 6): every bad message is a
``ValueError`` naming what is wrong, every bad option an ``OptionError`` naming the option,
and a loaded game is one that play could have produced."""

from __future__ import annotations

import math
import random
from typing import Any

import msgpack
import pytest

import bones
from bones import Game, Observation, OptionError, Round
from bones.game import round_seed
from bones.records import check_depth, unpack_message

# -- helpers ---------------------------------------------------------------------------------


def _play(rnd: Round, rng: random.Random, plies: int | None = None) -> None:
    done = 0
    while not rnd.is_over and (plies is None or done < plies):
        rnd.play(rng.choice(list(rnd.legal_moves)))
        done += 1


def _finished_game(variant: str, players: int, seed: int, **options: Any) -> Game:
    game = bones.new_game(variant, players, seed=seed, **options)
    rng = random.Random(seed)
    while True:
        _play(game.round, rng)
        if game.next_round() is None:
            return game


def _game_at(variant: str, players: int, seed: int, rounds: int, **options: Any) -> Game:
    """A game in progress after ``rounds`` recorded rounds (fewer if it ends first)."""
    game = bones.new_game(variant, players, seed=seed, **options)
    rng = random.Random(seed)
    for _ in range(rounds):
        _play(game.round, rng)
        if game.next_round() is None:
            break
    return game


def _doc(game: Game) -> dict[str, Any]:
    doc: dict[str, Any] = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    return doc


def _load(doc: Any) -> Game:
    return Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


# -- Game.from_msgpack -------------------------------------------------------------------


def test_a_kozel_round_inside_a_straight_game_is_rejected():
    doc = _doc(bones.new_game("straight", 2, seed=1))
    doc["round"] = _doc(bones.new_game("kozel", 2, seed=1))["round"]
    with pytest.raises(ValueError, match="round is of variant 'kozel', the game 'straight'"):
        _load(doc)


def test_a_game_over_without_winners_is_rejected():
    doc = _doc(_finished_game("straight", 2, seed=3, target=50))
    assert doc["over"] and doc["winners"]
    doc["winners"], doc["losers"] = [], []
    with pytest.raises(ValueError, match="winners and losers do not follow"):
        _load(doc)


def test_a_finished_game_claiming_to_go_on_is_rejected():
    game = _finished_game("draw", 2, seed=4, target=100)
    assert len(game.results) >= 2
    doc = _doc(game)
    doc["over"], doc["winners"], doc["losers"] = False, [], []
    doc["round_index"] += 1
    with pytest.raises(ValueError, match="Game msgpack"):
        _load(doc)
    doc["round_index"] -= 1  # the counts fit, but the scores have reached the target
    doc["results"].pop()
    doc["history"].pop()
    doc["history"][-1] = doc["scores"]
    with pytest.raises(ValueError, match="Game msgpack"):
        _load(doc)


def test_kozel_game_over_must_follow_from_the_accounts():
    doc = _doc(_finished_game("kozel", 2, seed=5, target=30))
    doc["winners"], doc["losers"] = doc["losers"], doc["winners"]
    with pytest.raises(ValueError, match="do not follow from the Kozel scores"):
        _load(doc)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({1: 2}, "option names must be strings"),
        ({"hand_size": {math.inf: 7}}, "'hand_size' as a dict must map player counts"),
        ({"target": 2**31}, "'target' must be an int from 1 to 1000000"),
        ({"target": _nested(900)}, "nested deeper than"),
        ({"spinner_rule": ["none"]}, "'spinner_rule' must be one of"),
        ({"set": "double-nine"}, "unknown option 'set'"),
    ],
)
def test_bad_game_options_are_value_errors(options, match):
    doc = _doc(bones.new_game("straight", 2, seed=1))
    doc["options"] = options
    with pytest.raises(ValueError, match=match):
        _load(doc)


def test_deep_nesting_is_a_value_error_not_a_recursion_error():
    for depth in (5, 500, 1000, 5000):
        with pytest.raises(ValueError):
            Game.from_msgpack(_pack_deep(depth))


def _pack_deep(depth: int) -> bytes:
    """A game-shaped map whose ``results`` nest ``depth`` arrays (msgpack itself stops at
    1024; our own limit is far lower)."""
    doc = _doc(bones.new_game("straight", 2, seed=1))
    doc["results"] = 0
    head = msgpack.packb(doc, use_bin_type=True)
    tail = msgpack.packb(0)
    marker = msgpack.packb("results") + tail
    at = head.index(marker) + len(msgpack.packb("results"))
    return head[:at] + b"\x91" * depth + head[at:]


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("seed", 1.0, "must be an int"),
        ("scores", [2**40, 0], "ints from"),
        ("scores", [0.5, 0], "list of ints"),
        ("scores", [0, 0, 0], "must have 2 entries"),
        ("round_index", -1, "round_index must be from 0"),
        ("round_index", 10**9, "round_index must be from 0"),
        ("over", 1, "must be a bool"),
        ("winners", [5], "ints from 0 to 1"),
        ("losers", [1, 0], "distinct sides in order"),
        ("kozel", {}, "field 'kozel' must be nil for variant 'straight'"),
        ("round", b"\xc0", "current round does not load"),
        ("round", "text", "must be bytes"),
        ("players", 3, "the round has 2 players"),
        ("players", True, "must be an int"),
        ("extra", 1, "unknown field 'extra'"),
        ("version", True, "unsupported version"),
    ],
)
def test_bad_game_fields_are_value_errors(field, value, match):
    doc = _doc(bones.new_game("straight", 2, seed=1))
    doc[field] = value
    with pytest.raises(ValueError, match=match):
        _load(doc)


def test_scores_must_agree_with_history_and_the_current_round():
    game = _game_at("multiplayer", 2, seed=2, rounds=2)
    assert game.round_index == 2 and not game.is_over
    doc = _doc(game)
    doc["scores"] = [s + 1 for s in doc["scores"]]
    with pytest.raises(ValueError, match="scores must equal the last history entry"):
        _load(doc)
    doc = _doc(game)
    doc["history"][0] = [h + 1 for h in doc["history"][0]]
    with pytest.raises(ValueError, match=r"history\[1\] is not history\[0\] plus"):
        _load(doc)
    doc = _doc(game)
    doc["history"][-1] = doc["scores"] = [s + 5 for s in doc["scores"]]
    with pytest.raises(ValueError, match="not dealt with the game's scores"):
        _load(doc)


def test_a_round_the_seed_did_not_deal_is_rejected():
    game = _game_at("straight", 2, seed=7, rounds=1)
    assert game.round_index == 1
    doc = _doc(game)
    other = Round.deal(
        "straight", 2, round_seed(8, 1), game.round.leader, None, list(game.scores)
    ).to_msgpack()
    doc["round"] = other
    with pytest.raises(ValueError, match="is not the one the game's seed deals"):
        _load(doc)


def test_a_round_made_with_other_options_is_rejected():
    doc = _doc(bones.new_game("straight", 2, seed=1, target=100))
    doc["options"] = {"target": 150}
    with pytest.raises(ValueError, match="current round was made with options"):
        _load(doc)


def test_results_are_checked_item_by_item():
    game = _game_at("draw", 3, seed=1, rounds=1)
    for index, value, match in [
        (0, "won", "reason must be one of"),
        (1, [7], "ints from 0 to 2"),
        (2, [1, 2], "must have 3 entries"),
        (3, [-1, 0, 0], "ints from 0 to"),
        (4, 3, "last_seat must be a seat"),
    ]:
        doc = _doc(game)
        doc["results"][0][index] = value
        with pytest.raises(ValueError, match=match):
            _load(doc)


def test_the_history_must_be_one_rounds_could_write():
    game = _game_at("kozel", 2, seed=3, rounds=4)
    assert game.round_index == 4
    doc = _doc(game)
    doc["history"][1] = [h - 1 for h in doc["history"][0]]
    with pytest.raises(ValueError, match="lowers a score"):
        _load(doc)
    doc = _doc(game)
    first = doc["results"][1]
    first[1] = [0] if first[1] != [0] else [1]  # the other side won: it wrote nothing
    changed = [a != b for a, b in zip(doc["history"][0], doc["history"][1], strict=True)]
    if any(changed):
        with pytest.raises(ValueError, match="wrote nothing"):
            _load(doc)
    doc = _doc(game)
    doc["results"][0][3] = [150, 150]
    with pytest.raises(ValueError, match="more than the pips of a set"):
        _load(doc)
    doc = _doc(game)
    doc["results"][0][2] = [0, 1000]
    with pytest.raises(ValueError, match=r"results\[0\].points"):
        _load(doc)


def test_a_loaded_game_leaves_room_to_play_on():
    """Scores and the eggs pot are bounded by the rounds played, so a game that loads
    plays on to a game that loads again (the fuzz found a pot of 2**24 before round 1)."""
    doc = _doc(bones.new_game("kozel", 3, seed=1))
    doc["kozel"]["pot"] = 2**24
    with pytest.raises(ValueError, match="kozel.pot"):
        _load(doc)
    doc = _doc(bones.new_game("block", 4, seed=1))
    doc["scores"] = [2**24, 0]
    with pytest.raises(ValueError, match="field 'scores' must hold ints from -1000000"):
        _load(doc)
    doc["scores"] = [10**6, -(10**6)]  # the most Game.from_round may start from
    game = _load(doc)
    _play(game.round, random.Random(1))
    game.next_round()
    assert Game.from_msgpack(game.to_msgpack()).scores == game.scores


def test_kozel_accounts_are_checked():
    game = _game_at("kozel", 2, seed=11, rounds=3)
    doc = _doc(game)
    doc["kozel"]["pot"] = -1
    with pytest.raises(ValueError, match="kozel.pot"):
        _load(doc)
    doc = _doc(game)
    doc["kozel"]["hanging"] = [13, 0]
    with pytest.raises(ValueError, match="hanging"):
        _load(doc)
    doc = _doc(game)
    doc["kozel"]["extra"] = 1
    with pytest.raises(ValueError, match="map of opened, hanging and pot"):
        _load(doc)


CASES = [
    ("straight", 2, {}),
    ("straight", 4, {"next_leader": "last_bone", "target": 100}),
    ("straight", 3, {"hand_penalty": True, "target": 120}),
    ("kozel", 3, {}),
    ("kozel", 4, {"scoring_style": "credit_winner", "sub13_mode": "carry", "target": 60}),
    ("multiplayer", 2, {"target": 50}),
    ("draw", 4, {}),
    ("block", 2, {}),
]


@pytest.mark.parametrize(("variant", "players", "options"), CASES)
def test_every_played_game_loads_at_every_step(variant, players, options):
    """The checks never reject a real game: mid-round, between rounds and at the end."""
    for seed in range(3):
        game = bones.new_game(variant, players, seed=seed, **options)
        rng = random.Random(seed)
        while True:
            _play(game.round, rng, plies=rng.randrange(5))
            for _ in range(2):  # mid-round, then at its end
                data = game.to_msgpack()
                assert Game.from_msgpack(data).to_msgpack() == data
                _play(game.round, rng)
            if game.next_round() is None:
                break
        data = game.to_msgpack()
        loaded = Game.from_msgpack(data)
        assert loaded.is_over and loaded.winners == game.winners
        assert loaded.to_msgpack() == data


def test_a_loaded_game_plays_on_like_the_original():
    game = _game_at("kozel", 3, seed=9, rounds=2)
    twin = Game.from_msgpack(game.to_msgpack())
    rng1, rng2 = random.Random(1), random.Random(1)
    while True:
        _play(game.round, rng1)
        _play(twin.round, rng2)
        a, b = game.next_round(), twin.next_round()
        assert game.to_msgpack() == twin.to_msgpack()
        if a is None:
            assert b is None
            break


def test_oversized_input_is_refused():
    with pytest.raises(ValueError, match="more than"):
        Game.from_msgpack(b"\x90" * ((16 << 20) + 1))
    with pytest.raises(ValueError, match="more than"):
        Observation.from_msgpack(b"\x90" * ((1 << 20) + 1))
    with pytest.raises(ValueError, match="takes bytes"):
        Game.from_msgpack("text")  # type: ignore[arg-type]


def test_unpack_message_bounds():
    with pytest.raises(ValueError, match="malformed"):
        unpack_message(msgpack.packb(list(range(20))), "X", max_depth=3, max_array_len=10)
    with pytest.raises(ValueError, match="malformed"):
        unpack_message(b"\xc7\x01\x05a", "X", max_depth=3)  # an extension type
    with pytest.raises(ValueError, match="nested deeper than 2"):
        check_depth({"a": [[1]]}, 2, "X")
    check_depth({"a": [1]}, 2, "X")


# -- Observation.from_msgpack --------------------------------------------------------------


def _obs_fields(seat: int = 0, **deal: Any) -> list[Any]:
    rnd = Round.deal(deal.pop("variant", "straight"), deal.pop("players", 2), seed=3, **deal)
    _play(rnd, random.Random(3), plies=3)
    fields: list[Any] = msgpack.unpackb(rnd.observation(seat).to_msgpack(), raw=False)
    return fields


def _obs(fields: list[Any]) -> Observation:
    return Observation.from_msgpack(msgpack.packb(fields, use_bin_type=True))


def _mover_fields() -> list[Any]:
    rnd = Round.deal("straight", 2, seed=3)
    _play(rnd, random.Random(3), plies=3)
    assert rnd.to_move is not None
    fields: list[Any] = msgpack.unpackb(rnd.observation(rnd.to_move).to_msgpack(), raw=False)
    return fields


@pytest.mark.parametrize(
    ("index", "value", "match"),
    [
        (2, math.inf, "seat must be an int"),
        (2, 2**64 - 1, "seat must be from 0 to 1"),
        (2, True, "seat must be an int"),
        (3, 5, "side must be from"),
        (4, "nine", "unknown variant"),
        (5, {"target": 2**31}, "'target' must be an int from 1"),
        (5, {"spinner_rule": ["none"]}, "'spinner_rule' must be one of"),
        (5, {1: 2}, "options must be a map with text keys"),
        (6, 9, "players must be from 2 to 4"),
        (7, [None], r"hand\[0\] must be text"),
        (7, ["9-9"], r"hand\[0\]"),
        (8, [1, 2, 3], "hand_sizes must have 2 entries"),
        (9, -1, "stock_size must be from 0"),
        (10, [["W", 9]], r"ends\[0\] number must be from 0 to 6"),
        (10, [[None, 1]], r"ends\[0\] name must be text"),
        (11, [None], r"layout\[0\] must be text"),
        (11, [1.5], r"layout\[0\] must be text"),
        (12, math.nan, "count must be an int"),
        (13, [["play", 0, None]], r"events\[0\] must have 5 entries"),
        (13, [["boom", 0, None, 0, 0]], r"events\[0\] kind must be one of"),
        (13, [["play", 0, 7, 0, 0]], r"events\[0\] move must be text"),
        (14, [2**40, 0], r"scores\[0\] must be from"),
        (15, 7, "to_move must be from 0 to 1"),
        (16, [None], r"legal_moves\[0\] must be text"),
    ],
)
def test_bad_observation_fields_are_value_errors(index, value, match):
    fields = _mover_fields() if index == 16 else _obs_fields()
    fields[index] = value
    with pytest.raises(ValueError, match=match):
        _obs(fields)


def test_observation_consistency():
    fields = _obs_fields()
    fields[8] = [fields[8][0] + 1, fields[8][1]]
    with pytest.raises(ValueError, match="disagrees with hand_sizes"):
        _obs(fields)
    fields = _obs_fields()
    fields[7] = fields[7] + fields[7][:1]  # a tile twice
    with pytest.raises(ValueError, match="hand"):
        _obs(fields)
    fields = _mover_fields()
    fields[15] = 1 - fields[15]  # legal moves but not to move
    with pytest.raises(ValueError, match="exactly when this seat is to move"):
        _obs(fields)
    fields = _obs_fields()
    fields[16] = ["6-6"] if fields[15] != fields[2] else []
    with pytest.raises(ValueError):
        _obs(fields)
    with pytest.raises(ValueError, match="takes bytes"):
        Observation.from_msgpack(None)  # type: ignore[arg-type]


def test_observation_with_per_player_hand_size_round_trips():
    """Options with int keys (``hand_size={3: 5}``) used to fail to decode."""
    rnd = Round.deal("kozel", 3, seed=1, hand_size={3: 5})
    obs = rnd.observation(0)
    assert Observation.from_msgpack(obs.to_msgpack()) == obs


# -- options -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"target": 2**31}, "target"),
        ({"target": 10**6 + 1}, "target"),
        ({"target": math.inf}, "target"),
        ({"hand_size": {math.inf: 7}}, "hand_size"),
        ({"hand_size": {"2.5": 7}}, "hand_size"),
        ({"hand_size": {True: 7}}, "hand_size"),
        ({"hand_size": {2: [7]}}, "hand_size"),
        ({"hand_size": _nested(900)}, "hand_size"),
        ({"spinner_rule": ["none"]}, "spinner_rule"),
        ({"spinner_rule": {"none": 1}}, "spinner_rule"),
        ({"score_scale": 5.0}, "score_scale"),
    ],
)
def test_bad_option_values_are_option_errors_naming_the_option(options, name):
    with pytest.raises(OptionError, match=f"'{name}'"):
        bones.variant("straight").resolve(2, **options)
    with pytest.raises(OptionError, match=f"'{name}'"):
        bones.new_game("straight", 2, **options)


@pytest.mark.parametrize(
    "options",
    [{"target": 2**31}, {"hand_size": {math.inf: 7}}, {"target": 10**6 + 1}],
)
def test_round_deal_refuses_what_resolve_refuses(options):
    with pytest.raises(OptionError):
        Round.deal("straight", 2, **options)


def test_round_deal_with_an_unhashable_option_is_an_option_error():
    with pytest.raises(OptionError, match="'spinner_rule'"):
        Round.deal("straight", 2, spinner_rule=["none"])


# Core issues the fuzz suite found, fixed in src/core/rules.pyx and src/core/round.pyx.


def test_round_deal_is_type_strict_even_after_the_cache_is_warm():
    Round.deal("straight", 2, teams_with_4=True)
    with pytest.raises(OptionError, match="'teams_with_4'"):
        Round.deal("straight", 2, teams_with_4=1)
    Round.deal("block", 2, hand_size=7)
    with pytest.raises(OptionError, match="'hand_size'"):
        Round.deal("block", 2, hand_size=7.0)


@pytest.mark.parametrize("second", [{2: 7.0}, {2.0: 7}, {2: True}])
def test_round_deal_is_type_strict_inside_a_per_player_dict(second):
    Round.deal("straight", 2, hand_size={2: 7 if second != {2: True} else 1})
    with pytest.raises(OptionError, match="'hand_size'"):
        Round.deal("straight", 2, hand_size=second)


@pytest.mark.parametrize(
    ("variant", "players"), [(None, 2), (3, 2), ("straight", 2.0), ("straight", 2**64)]
)
def test_round_deal_refuses_odd_variants_and_counts_like_resolve(variant, players):
    with pytest.raises(OptionError):
        bones.variant(variant).resolve(players)
    with pytest.raises(OptionError):
        Round.deal(variant, players)


def test_free_int_options_are_bounded_for_every_family():
    for name in ("straight", "multiplayer", "kozel", "draw"):
        v = bones.variant(name)
        players = v.players[0]
        assert v.resolve(players, target=10**6)["target"] == 10**6
        with pytest.raises(OptionError, match="'target' must be an int from 1 to 1000000"):
            v.resolve(players, target=10**6 + 1)
    with pytest.raises(OptionError, match="'open_threshold'"):
        bones.variant("kozel").resolve(2, open_threshold=2**40)


def test_hand_size_keys_may_be_digit_strings_only():
    v = bones.variant("kozel")
    assert v.resolve(3, hand_size={"3": 5})["hand_size"] == 5
    for bad in ({"3.0": 5}, {" 3": 5}, {3.0: 5}, {None: 5}, {"٣": 5}):
        with pytest.raises(OptionError, match="must map player counts"):
            v.resolve(3, hand_size=bad)


@pytest.mark.parametrize(
    ("hand_size", "match"),
    [
        ({2: 5, 3: [[[0]]]}, "got \\[\\[\\[0\\]\\]\\] for 3 players"),
        ({2: 7, "2": 7}, "must map player counts"),
        ({2: 7, 5: 3}, "must map player counts"),
        ({2: 7, 4: 9}, "9 with 4 players needs 36 tiles"),
    ],
)
def test_a_per_player_dict_is_checked_whole(hand_size, match):
    """What a round or a game stores must load again: a dict whose value for another
    player count is junk was accepted, then its observations and games did not load."""
    with pytest.raises(OptionError, match=match):
        bones.variant("straight").resolve(2, hand_size=hand_size)
    with pytest.raises(OptionError):
        Round.deal("straight", 2, hand_size=hand_size)
    game = bones.new_game("straight", 2, seed=1, hand_size={"2": 6, 3: 5, 4: 5})
    assert Game.from_msgpack(game.to_msgpack()).to_msgpack() == game.to_msgpack()
    obs = game.round.observation(0)
    assert Observation.from_msgpack(obs.to_msgpack()) == obs


def test_error_messages_stay_short_for_huge_values():
    with pytest.raises(OptionError) as info:
        bones.variant("straight").resolve(2, spinner_rule=list(range(10**5)))
    assert len(str(info.value)) < 300


# -- type hints ------------------------------------------------------------------------------


def test_game_round_and_result_reason_have_real_types():
    import typing

    from bones import records
    from bones.game import Game as GameClass

    assert typing.get_args(records.Reason) == ("out", "blocked", "target")
    hints = typing.get_type_hints(bones.RoundResult)
    assert hints["reason"] == records.Reason
    ret = typing.get_type_hints(GameClass.round.fget, {"Round": Round})["return"]
    assert ret is Round
    assert GameClass.round.fget.__annotations__["return"] == "Round"
