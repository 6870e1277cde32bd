"""The train games through the whole engine: variants, ``Round.deal`` of a train variant,
the game (one round per engine double, the lowest total wins), msgpack, the referee and
``bones match``.  The rules of a round are tests/test_trains_core.py's and the
differential test's."""

from __future__ import annotations

import json
import random

import pytest

import bones
from bones.bot import Bot, BotError, make_bot, play_round
from bones.cli import main
from bones.core.trains import TrainMove, TrainRound
from bones.game import Game, new_game
from bones.gamerules import TrainGameRules
from bones.records import RoundResult

TRAIN_VARIANTS = ("mexican-train", "chicken-foot")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def finish(rnd, rng):
    while not rnd.is_over:
        rnd.play(rng.choice(rnd.legal_moves))


def play_game(game, seed=0):
    rng = random.Random(seed)
    engines, leaders = [], []
    while True:
        rnd = game.round
        engines.append(rnd.engine)
        leaders.append(rnd.leader)
        finish(rnd, rng)
        if game.next_round() is None:
            return engines, leaders


def test_the_train_variants_are_registered_with_their_options():
    assert set(TRAIN_VARIANTS) <= set(bones.variants())
    mexican = bones.variant("mexican-train")
    assert mexican.base == "trains" and mexican.players == tuple(range(2, 9))
    assert mexican.resolve(4) == {
        "set": "double-12",
        "hand_size": 15,
        "zero_double": 0,
        "first_turn_own_train": False,
        "players": 4,
    }
    assert mexican.resolve(8, set="double-9")["hand_size"] == 6
    chicken = bones.variant("chicken-foot")
    assert chicken.base == "chicken_foot"
    assert chicken.resolve(2)["set"] == "double-9"
    assert chicken.game_rules is TrainGameRules


@pytest.mark.parametrize("variant", TRAIN_VARIANTS)
def test_round_deal_of_a_train_variant_is_a_train_round(variant):
    r = bones.Round.deal(variant, players=5, seed=11)
    assert isinstance(r, TrainRound)
    assert r.variant == variant and r.players == 5 and r.sides == tuple((i,) for i in range(5))
    top = 12 if variant == "mexican-train" else 9
    assert r.engine == top and r.scores == (0,) * 5
    again = bones.Round.deal(variant, players=5, seed=11)
    assert again == r  # the same seed deals the same round
    assert bones.Round.deal(variant, players=5, seed=12) != r
    assert bones.Round.from_msgpack(r.to_msgpack()) == r
    r.play(r.legal_moves[0])
    assert bones.Round.from_msgpack(r.to_msgpack()) == r
    assert r.copy() == r and r.copy().variant == variant


def test_round_from_deal_of_a_train_variant():
    r = bones.Round.from_deal(
        "mexican-train",
        hands=[["6-1", "1-1"], ["6-2", "2-3"]],
        stock=["4-4"],
        partial=True,
        set="double-6",
        engine=6,
    )
    assert isinstance(r, TrainRound) and r.variant == "mexican-train"
    assert {str(m) for m in r.legal_moves} == {"6-1@P0", "6-1@M"}
    assert r.options == {"set": "double-6", "engine": 6}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: bones.Round.deal("mexican-train", players=9), "players must be one of"),
        (lambda: bones.Round.deal("mexican-train", players=4, engine=13), "'engine' must be"),
        (lambda: bones.Round.deal("mexican-train", players=4, engine="12"), "'engine' must be"),
        (
            lambda: bones.Round.deal("mexican-train", players=8, set="double-6", hand_size=4),
            "needs 32 tiles; the set has 27 besides the engine double",
        ),
        (lambda: bones.Round.deal("chicken-foot", engine_toes=5), "engine_toes"),
        (
            lambda: bones.Round.deal("chicken-foot", first_turn_own_train=True),
            "unknown option 'first_turn_own_train'",
        ),
        (lambda: bones.Round.deal("mexican-train", lead_tile="6-6"), "no lead tile"),
        (
            lambda: bones.Round.deal("mexican-train", hand_size={2: 7, 9: 3}),
            "must map player counts \\(2 to 8",
        ),
        (lambda: bones.Round.deal("straight", players=5), "players must be one of"),
    ],
)
def test_bad_train_arguments_are_clear_errors(call, match):
    with pytest.raises(bones.OptionError, match=match):
        call()


def test_double_six_only_functions_name_the_train_core():
    from bones.core.round import points_after

    with pytest.raises(bones.OptionError, match="train games' core"):
        points_after("mexican-train", 2, {}, [], [])


@pytest.mark.parametrize(("variant", "players"), [("mexican-train", 3), ("chicken-foot", 4)])
def test_a_game_is_one_round_per_double_and_the_lowest_total_wins(variant, players):
    game = new_game(variant, players, seed=5)
    engines, leaders = play_game(game, seed=1)
    top = 12 if variant == "mexican-train" else 9
    assert engines == list(range(top, -1, -1))
    assert all(b == (a + 1) % players for a, b in zip(leaders, leaders[1:], strict=False))
    assert game.is_over and len(game.results) == top + 1
    totals = [0] * players
    for result, history in zip(game.results, game.history, strict=True):
        assert isinstance(result, RoundResult)
        totals = [t + p for t, p in zip(totals, result.points, strict=True)]
        assert tuple(totals) == history
    low = min(totals)
    assert game.winners == tuple(s for s, t in enumerate(totals) if t == low)
    assert set(game.losers) == set(range(players)) - set(game.winners)


def test_the_first_leader_is_drawn_by_lot_from_the_seed():
    leaders = {new_game("mexican-train", 4, seed=s).round.leader for s in range(40)}
    assert leaders == {0, 1, 2, 3}
    assert new_game("mexican-train", 4, seed=3).round.leader == (
        new_game("mexican-train", 4, seed=3).round.leader
    )


@pytest.mark.parametrize("variant", TRAIN_VARIANTS)
def test_a_train_game_saves_and_loads_at_every_round(variant):
    game = new_game(variant, 3, seed=8, set="double-6")
    rng = random.Random(2)
    while True:
        data = game.to_msgpack()
        assert Game.from_msgpack(data).to_msgpack() == data
        finish(game.round, rng)
        data = game.to_msgpack()
        assert Game.from_msgpack(data).to_msgpack() == data
        if game.next_round() is None:
            break
    data = game.to_msgpack()
    assert Game.from_msgpack(data).to_msgpack() == data


def test_a_loaded_train_game_is_checked():
    import msgpack

    game = new_game("mexican-train", 2, seed=8, set="double-6")
    finish(game.round, random.Random(0))
    game.next_round()
    doc = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    doc["results"][0][2] = [-1, 5]  # a negative penalty
    doc["results"][0][3] = [-1, 5]
    with pytest.raises(ValueError):
        Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))
    doc = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    other = bones.Round.deal("mexican-train", 2, seed=99, set="double-6", engine=5)
    doc["round"] = other.to_msgpack()  # not the round the game's seed deals
    with pytest.raises(ValueError):
        Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))


class Liar(Bot):
    """Answers a move that is not among the legal ones (a move on a private train)."""

    def choose(self, observation, legal_moves):
        for seat in range(observation.players):
            for text in (f"12-{v}@P{seat}" for v in range(13)):
                move = TrainMove.parse(text)
                if move not in legal_moves:
                    return move
        raise AssertionError("unreachable")


class Stranger(Bot):
    """Answers a double-six move in a train game."""

    def choose(self, observation, legal_moves):
        return bones.Move.parse("6-4@W")


@pytest.mark.parametrize(("bot", "match"), [(Liar, "not legal"), (Stranger, "not legal")])
def test_the_referee_refuses_a_move_that_is_not_legal(bot, match):
    r = bones.Round.deal("mexican-train", players=2, seed=3, leader=0)
    with pytest.raises(BotError, match=match) as caught:
        play_round(r, [bot(), make_bot("random", seed=1)])
    assert caught.value.seat == 0
    assert r.moves == ()  # nothing was played for the liar


def test_the_referee_refuses_a_round_it_does_not_know():
    class LooksLikeARound:  # the train round's Python face, without its state
        players, is_over, to_move, events = 2, False, 0, ()

    with pytest.raises(TypeError, match="a bones.Round, not"):
        play_round(LooksLikeARound(), [make_bot("random"), make_bot("random")])


def test_the_referee_plays_the_moves_the_bots_chose():
    chosen = []

    class Recorder(Bot):
        def choose(self, observation, legal_moves):
            chosen.append(legal_moves[-1])
            return legal_moves[-1]

    r = bones.Round.deal("chicken-foot", players=3, seed=2)
    play_round(r, [Recorder(), Recorder(), Recorder()])
    assert r.moves == tuple(chosen)
    replay = bones.Round.deal("chicken-foot", players=3, seed=2)
    for move in chosen:
        replay.play(move)
    assert replay.moves_text() == r.moves_text() == " ".join(map(str, chosen))
    assert replay.to_msgpack() == r.to_msgpack()


def test_bots_see_only_their_seat():
    seen = []

    class Spy(Bot):
        def start_round(self, observation):
            seen.append(observation)

        def observe(self, event):
            seen.append(event)

        def choose(self, observation, legal_moves):
            seen.append(observation)
            return legal_moves[0]

    r = bones.Round.deal("mexican-train", players=3, seed=4)
    result = play_round(r, [Spy(), make_bot("greedy"), make_bot("heaviest")])
    assert result == r.result
    others = {str(t) for seat in (1, 2) for t in r.hand(seat)} | {str(t) for t in r.stock}
    for item in seen:
        if isinstance(item, bones.records.Event):
            assert item.kind != "draw" or item.move is None
            continue
        assert item.seat == 0
        assert not others & set(item.hand)


def test_every_baseline_bot_plays_the_train_games():
    for variant in TRAIN_VARIANTS:
        for players in (2, 8):
            r = bones.Round.deal(variant, players=players, seed=players)
            bots = [
                make_bot(("random", "heaviest", "greedy")[s % 3], seed=s) for s in range(players)
            ]
            assert play_round(r, bots) == r.result


@pytest.mark.parametrize("variant", TRAIN_VARIANTS)
def test_bones_match_plays_a_train_variant(tmp_path, capsys, variant):
    journal = tmp_path / "m.jsonl"
    code, out, err = run_cli(
        capsys,
        *("match", "--seed", "1", "greedy", "random", "--variant", variant, "--players", "4"),
        *("--games", "8", "--jobs", "1", "--journal", str(journal), "--json"),
    )
    assert code == 0, err
    summary = json.loads(out)
    assert summary["counted"] == 8
    assert all(not bot["forfeits"] for bot in summary["bots"])
    records = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    assert all(r["variant"] == variant and r["rounds"] for r in records if r["type"] == "game")


def test_a_bot_limited_to_other_families_is_refused_before_the_match(capsys, fresh_registry):
    from bones.plugins import hookimpl
    from bones.plugins.builtin_bots import RandomBot
    from bones.plugins.manager import get_plugin_manager
    from bones.variant import DOUBLE_SIX_BASES

    spec = bones.BotSpec("six-only", RandomBot, "double-six only", bases=DOUBLE_SIX_BASES)
    assert spec.supports("straight") and not spec.supports("mexican-train")
    assert spec.plays == "the rule families straight, multiplayer, kozel, block, draw"

    class SixOnly:
        @hookimpl
        def register_bots(self, register):
            register(spec)

    get_plugin_manager().register(SixOnly(), name="six-only-plugin")
    fresh_registry.reset(plugins=False)
    code, _, err = run_cli(capsys, "match", "six-only", "greedy", "--variant", "mexican-train")
    assert code == 2 and "bot 'six-only' does not play mexican-train (rule family trains)" in err


def test_the_dealt_hands_are_those_before_the_rounds_first_draws():
    r = bones.Round.from_deal(
        "mexican-train",
        hands=[["1-0"], ["6-1"]],
        stock=["6-2"],
        partial=True,
        set="double-6",
    )
    assert r.log == (("draw", 0, None, None),)  # seat 0 has no 6: it draws before moving
    assert [str(t) for t in r.hand(0)] == ["1-0", "6-2"] and r.stock == ()
    assert [str(t) for t in r.dealt_hand(0)] == ["1-0"]
    assert [str(t) for t in r.dealt_stock] == ["6-2"]
    straight = bones.Round.deal("straight", players=2, seed=1)
    assert straight.dealt_hand(1) == straight.hand(1)
    straight.play(straight.legal_moves[0])
    assert len(straight.dealt_hand(straight.leader)) == 7
