"""The train games' match path (issue 33): what a round and a game do once per round or
per decision is done once, or only when read, and gives what it gave before."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("bones.core.trains")

import bones  # noqa: E402
from bones.core.trains import TrainRound  # noqa: E402
from bones.game import _SeatValues  # noqa: E402
from bones.gamerules import TrainGameRules  # noqa: E402
from bones.gamerules.base import GameRules  # noqa: E402


def played(layout: str, seed: int, moves: int | None = None) -> TrainRound:
    r = TrainRound.deal(layout, 9, 4, seed=seed)
    rng = random.Random(seed)
    while not r.is_over and (moves is None or len(r.moves) < moves):
        r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
    return r


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
def test_the_result_is_made_once_and_undo_drops_it(layout):
    for seed in range(30):
        r = played(layout, seed)
        first = r.result
        assert first is r.result  # the referee, the game and the journal share it
        last = r.undo()
        assert r.result is None
        others = [m for m in r.legal_moves if m != last]
        r.play(others[0] if others else last)
        fresh = TrainRound.from_msgpack(r.to_msgpack())
        assert r.result == fresh.result  # made again for the round as it now ends
        if r.is_over and fresh.result != first:
            assert r.result != first


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
def test_a_view_reads_its_log_as_it_was_made_after_undo_and_other_moves(layout):
    for seed in range(20):
        r = played(layout, seed, moves=12)
        if r.is_over:
            continue
        views = [r.observation(s) for s in range(4)]  # nothing read from them yet
        logs = [r.log_of(s) for s in range(4)]
        placements = r.placements
        for _ in range(3):
            r.undo()
        rng = random.Random(seed + 1)
        for _ in range(6):
            if r.is_over:
                break
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
        for s, view in enumerate(views):
            assert view.log == logs[s]
            assert view.placements == placements
        for s in range(4):  # and the round's own log is the one it now has
            assert TrainRound.from_msgpack(r.to_msgpack()).log_of(s) == r.log_of(s)
            assert r.observation(s).log == r.log_of(s)


def test_a_view_shows_only_its_own_draws():
    for seed in range(20):
        r = played("trains", seed, moves=30)
        for s in range(4):
            for kind, seat, tile, _target in r.observation(s).log:
                if kind == "draw":
                    assert (tile is not None) == (seat == s)


class Counting(GameRules):
    """A stand-in for rules: counts the seat values asked of it."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def seat_value(self, rnd, seat):
        self.asked.append(seat)
        return 10 * seat + 1


class FakeGame:
    _players = 3

    def __init__(self) -> None:
        self._game_rules = Counting()

    def _ask(self, hook, *args):
        return getattr(self._game_rules, hook)(*args)


def test_seat_values_are_asked_when_first_read_and_act_as_a_sequence():
    game = FakeGame()
    values = _SeatValues(game, None)  # type: ignore[arg-type]
    assert len(values) == 3 and game._game_rules.asked == []
    assert values[1] == 11 and game._game_rules.asked == [0, 1, 2]
    assert list(values) == [1, 11, 21] and values[-1] == 21 and values[:2] == (1, 11)
    assert values == [1, 11, 21] and values == (1, 11, 21) and values != [1, 11]
    assert min(range(3), key=lambda s: values[s]) == 0 and 11 in values
    assert repr(values) == "[1, 11, 21]"
    assert game._game_rules.asked == [0, 1, 2]  # asked once


def test_a_train_game_counts_no_hand_for_its_next_leader(monkeypatch):
    def refuse(self, rnd, seat):
        raise AssertionError("the train games lead without seat values")

    monkeypatch.setattr(TrainGameRules, "seat_value", refuse)
    game = bones.new_game("mexican-train", 4, seed=3)
    rng = random.Random(3)
    while True:
        while not game.round.is_over:
            game.round.play(rng.choice(game.round.legal_moves))
        if game.next_round() is None:
            break
    assert game.is_over and len(game.results) == 13


def test_rules_that_read_seat_values_get_each_seats_hand(monkeypatch):
    asked: list[int] = []
    original = GameRules.seat_value

    def counted(self, rnd, seat):
        asked.append(seat)
        return original(self, rnd, seat)

    monkeypatch.setattr(GameRules, "seat_value", counted)
    blocked = 0
    for seed in range(60):
        game = bones.new_game("draw", 4, seed=seed)
        rnd = game.round
        rng = random.Random(seed)
        while not rnd.is_over:
            rnd.play(rng.choice(rnd.legal_moves))
        result = rnd.result
        pips = [rnd.hand_pips(s) for s in range(4)]
        asked.clear()
        if game.next_round() is None or result.reason != "blocked" or not result.winners:
            continue
        blocked += 1
        assert asked == [0, 1, 2, 3]  # each seat's value, asked once
        seats = [s for side in result.winners for s in game.sides[side]]
        assert game.round.leader == min(seats, key=lambda s: (pips[s], s))
    assert blocked


def test_a_seat_value_that_raises_leaves_the_game_as_it_was(monkeypatch):
    def boom(self, rnd, seat):
        raise RuntimeError("boom")

    monkeypatch.setattr(GameRules, "seat_value", boom)
    for seed in range(60):
        game = bones.new_game("draw", 4, seed=seed)
        rng = random.Random(seed)
        while not game.round.is_over:
            game.round.play(rng.choice(game.round.legal_moves))
        result = game.round.result
        if result.reason != "blocked" or not result.winners:
            continue
        before = game.to_msgpack()
        with pytest.raises(bones.BonesError, match=r"seat_value\(\) raised RuntimeError: boom"):
            game.next_round()
        assert game.to_msgpack() == before and not game.results
        return
    pytest.fail("no blocked round with a winner in 60 deals")


# --- the observation of a decision, made again in place when nobody kept it ------------


class Checking(bones.Bot):
    """Reads every field of each observation it gets (so each is cached in it) and checks
    them against a view made afresh by the round (a test's bot may see the round), then
    keeps it or not."""

    def __init__(self, rnd, keep: bool, seed: int = 0) -> None:
        super().__init__(seed)
        self.rnd, self.keep, self.kept, self.checked = rnd, keep, [], 0

    def choose(self, observation, legal_moves):
        fields = observation._fields()
        assert fields == self.rnd.observation(observation.seat)._fields()
        assert legal_moves is observation.legal_moves
        self.checked += 1
        if self.keep:
            self.kept.append((observation, fields))
        return self.rng.choice(legal_moves)


@pytest.mark.parametrize("variant", ["mexican-train", "chicken-foot"])
@pytest.mark.parametrize("keep", [False, True, "some"])
def test_a_decision_sees_its_own_view_whether_or_not_the_last_one_was_kept(variant, keep):
    from bones.core.referee import Guard, play_round

    for seed in range(8):
        game = bones.new_game(variant, 4, seed)
        rnd = game.round
        bots = [Checking(rnd, keep is True or (keep == "some" and s % 2 == 0), s) for s in range(4)]
        guarded = [Guard(b, s, "checking", None, False) for s, b in enumerate(bots)]
        play_round(rnd, guarded if seed % 2 else bots)
        assert sum(b.checked for b in bots) == len(rnd.moves) > 0
        for bot in bots:  # a view a bot kept is the one it was given, whatever came after
            assert all(obs._fields() == fields for obs, fields in bot.kept)


# --- a round's journal entry, written by the round ---------------------------------------


def entries(layout: str, players: int, seed: int):
    """Every state of a random round, from the deal to its end."""
    r = TrainRound.deal(layout, 9 if layout == "chicken_foot" else 12, players, seed=seed)
    rng = random.Random(seed)
    while True:
        yield r
        if r.is_over:
            return
        r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
def test_a_train_rounds_journal_entry_is_the_encoders_text(layout):
    from bones.match.journal import encode_record, round_entry

    for players in (2, 4, 8):
        for seed in range(6):
            for r in entries(layout, players, seed):
                assert r.journal_entry() == encode_record(round_entry(r))
    for seed in range(4):  # a game's rounds: a variant, scores and options bound
        game = bones.new_game("mexican-train", 3, seed, hand_size=5)
        rng = random.Random(seed)
        while True:
            rnd = game.round
            while not rnd.is_over:
                rnd.play(rng.choice(rnd.legal_moves))
            assert rnd.journal_entry() == encode_record(round_entry(rnd))
            if game.next_round() is None:
                break


def test_a_train_rounds_moves_pack_as_two_bytes_each():
    import msgpack

    for layout in ("trains", "chicken_foot"):
        r = played(layout, 3)
        packed = msgpack.unpackb(r.to_msgpack())[12]
        assert packed == b"".join(m.code.to_bytes(2, "little") for m in r.moves)
        assert TrainRound.from_msgpack(r.to_msgpack()).moves == r.moves


def test_a_journal_entry_of_a_round_made_without_its_constructor_is_refused():
    with pytest.raises(TypeError):
        TrainRound.__new__(TrainRound).journal_entry()


def test_round_json_is_the_encoders_text_for_every_kind_of_round():
    from bones.match.journal import encode_record, round_entry, round_json

    for variant in ("draw", "block", "mexican-train", "chicken-foot"):
        for seed in range(5):
            r = bones.Round.deal(variant, players=4, seed=seed)
            rng = random.Random(seed)
            assert round_json(r) == encode_record(round_entry(r))  # no result yet
            while not r.is_over:
                r.play(rng.choice(r.legal_moves))
            assert round_json(r) == encode_record(round_entry(r))


def test_a_games_line_with_its_rounds_as_text_is_the_encoders_line():
    from bones.match.journal import encode_game, encode_record, round_entry

    rec = {"type": "game", "id": 3, "options": {"rounds": [], "x": '"rounds":[]'}}
    rec |= {"rounds": [], "scores": [1, 2], "winners": [0]}
    r = played("trains", 1)
    texts = [r.journal_entry(), played("chicken_foot", 2, moves=5).journal_entry()]
    full = dict(rec, rounds=[round_entry(r), round_entry(played("chicken_foot", 2, moves=5))])
    assert encode_game(rec, texts) == encode_record(full)
    assert encode_game(rec, []) == encode_record(rec)
    assert encode_game({"rounds": []}, texts[:1]) == encode_record({"rounds": [round_entry(r)]})


def test_a_bot_that_changes_its_views_class_hands_it_to_no_other_decision():
    from bones.core.observation import TrainObservation
    from bones.core.referee import play_round

    class Tampered(TrainObservation):
        __slots__ = ()

    seen = []

    class Swapper(bones.Bot):
        def choose(self, observation, legal_moves):
            seen.append(type(observation))
            observation.__class__ = Tampered  # then dropped: the referee's is the only one
            return self.rng.choice(legal_moves)

    for variant in ("mexican-train", "chicken-foot"):
        game = bones.new_game(variant, 4, 1)
        play_round(game.round, [Swapper(seed=s) for s in range(4)])
    assert seen and set(seen) == {TrainObservation}
