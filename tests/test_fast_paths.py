"""The caches and shortcuts that make the runner fast keep the engine's answers exact."""

from __future__ import annotations

import signal

import pytest

from bones.core.round import Round  # the line family's classes, not the faces
from bones.match.schedule import MatchConfig, plan
from bones.observation import Observation


def test_result_is_forgotten_on_undo():
    r = Round.deal("block", players=2, seed=3)
    while not r.is_over:
        r.play(r.legal_moves[0])
    first = r.result
    assert r.result is first  # cached while the round stays over
    last = r.undo()
    assert r.result is None
    other = next((m for m in r.legal_moves if m != last), last)
    r.play(other)
    assert r.result is not None
    assert r.result == Round.from_msgpack(r.to_msgpack()).result


def test_layout_and_events_follow_undo_and_replay():
    r = Round.deal("straight", players=3, seed=11)
    seen = []
    while not r.is_over:
        seen.append((r.layout, r.events))
        r.play(r.legal_moves[-1])
    while r.moves:
        r.undo()
        layout, events = seen.pop()
        assert r.layout == layout and r.events == events
        copy = Round.from_msgpack(r.to_msgpack())
        assert copy.layout == r.layout and copy.events == r.events


def test_move_text_is_stable():
    r = Round.deal("kozel", players=4, seed=5)
    while not r.is_over:
        for m in r.legal_moves:
            assert str(m) == str(m) and type(m).parse(str(m)) == m
        r.play(r.legal_moves[0])


def test_observation_made_without_init_is_safe():
    obs = Observation.__new__(Observation)
    assert obs.seat is None and obs.legal_moves is None
    with pytest.raises(TypeError):
        obs.points_after("6-6")
    assert not hasattr(obs, "__dict__")


def test_observation_fields_match_the_round():
    r = Round.deal("straight", players=4, seed=2)
    while not r.is_over:
        for seat in range(4):
            o = r.observation(seat)
            assert o.hand == r.hand(seat) and o.ends == r.ends and o.layout == r.layout
            assert o.events == r.events and o.scores == r.scores
            assert o.hand_sizes == r.hand_sizes and o.options == {}
            assert o.legal_moves == (tuple(r.legal_moves) if seat == r.to_move else ())
            assert Observation.from_msgpack(o.to_msgpack()) == o
        r.play(r.legal_moves[-1])


def test_no_timer_is_left_running_after_a_game():
    from bones.core import referee
    from bones.match import driver

    config = MatchConfig(seed=1, bots=("random", "greedy"), variant="straight", players=2, games=2)
    the_plan = plan(config)
    rec = driver.play_game(the_plan.task(0))
    assert rec["forfeit"] is None
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert referee.alarm_state() == (0.0, 0.0)


def test_observation_pickles_and_copies():
    import copy
    import pickle

    r = Round.deal("straight", players=2, seed=3)
    obs = r.observation(r.to_move)
    obs.points_after(obs.legal_moves[0])  # its cache set, then copied with it
    for other in (pickle.loads(pickle.dumps(obs)), copy.deepcopy(obs), copy.copy(obs)):
        assert type(other) is Observation and other == obs
        assert other.points_after(obs.legal_moves[0]) == obs.points_after(obs.legal_moves[0])


# -- the compiled referee and the game's shortcuts ------------------------------------


def test_derive_seed_is_three_splitmix64_steps():
    import random

    from bones.core.round import derive_seed
    from bones.game import splitmix64

    mask = (1 << 64) - 1
    rng = random.Random(4)
    for _ in range(3000):
        seed, stream, index = (
            rng.randrange(-(1 << 63), 1 << 64),
            rng.randrange(5),
            rng.getrandbits(40),
        )
        x = splitmix64(splitmix64(splitmix64(seed & mask) ^ stream) ^ (index & mask))
        assert derive_seed(seed, stream, index) == x >> 1


@pytest.mark.parametrize("variant", ["straight", "kozel", "multiplayer", "block"])
def test_hand_pips_and_moves_text(variant):
    import random

    rng = random.Random(variant)
    r = Round.deal(variant, players=2, seed=5)
    while not r.is_over:
        for seat in range(r.players):
            assert r.hand_pips(seat) == sum(t.pips for t in r.hand(seat))
        assert r.moves_text() == " ".join(map(str, r.moves))
        r.play(rng.choice(r.legal_moves))
    assert r.moves_text() == " ".join(map(str, r.moves))
    with pytest.raises(ValueError):
        r.hand_pips(2)


def test_guard_made_without_its_constructor_is_safe():
    from bones.bot import BotError
    from bones.core.referee import Guard

    guard = Guard.__new__(Guard)
    with pytest.raises(BotError):
        guard.choose(None, ())
    with pytest.raises(BotError):  # no bot: a BotError, never a crash
        guard.end_game((0, 0), (0,))
    assert guard.timeout is None


def test_guard_checks_its_watch_slot_and_limit():
    import array

    from bones.core.referee import Guard

    with pytest.raises(TypeError):
        Guard(None, 0, "x", None, False, [0.0] * 10, 0)  # not a buffer of doubles
    with pytest.raises(ValueError, match="no watch slot"):
        Guard(None, 0, "x", None, False, array.array("d", [0.0] * 10), 2)
    with pytest.raises(ValueError, match="NaN"):
        Guard(None, 0, "x", float("nan"), False)
    assert Guard(None, 0, "x", -1, False).timeout == 0.0


def test_guard_writes_the_watch_slot_and_clears_the_seat():
    import array

    from bones.core.referee import Guard

    watch = array.array("d", [0.0] * 10)
    seen = []

    class Peek:
        def choose(self, observation, legal):
            seen.append(list(watch[5:10]))
            return legal[0]

    guard = Guard(Peek(), 3, "peek", None, False, watch, 1)
    assert guard.choose(None, ("m",)) == "m"
    assert seen[0][2] == 3 and seen[0][4] == 4  # seat 3 in choose (hook 4) while it ran
    assert watch[7] == -1.0  # the engine's part again
