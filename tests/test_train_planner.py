"""The train games' planner bots (bones.core.trainpolicy on bones.core.trainplan):
``planner`` (also ``expert``'s move in the train games) and the ``chain`` baseline, in
worked positions, through the registry, on bad input and over random rounds."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bones
from bones.bot import make_bot
from bones.core.referee import play_round
from bones.core.trainpolicy import choose, choose_chain
from bones.core.trains import TrainMove, TrainRound

#: the double-six set less the engine 6-6: small full deals
SET6 = [f"{b}-{a}" for b in range(7) for a in range(b + 1) if (a, b) != (6, 6)]


def deal(hand0, hand1, top=(), leader=0, moves=()):
    """A full two-player Mexican Train deal on double-6: the stock is ``top`` then the
    rest of the set; ``moves`` replayed."""
    rest = [t for t in SET6 if t not in [*hand0, *hand1, *top]]
    return TrainRound.from_deal(
        "trains",
        set_max=6,
        hands=[hand0, hand1],
        stock=[*top, *rest],
        leader=leader,
        moves=list(moves),
    )


def picks(r: TrainRound) -> tuple[str, str]:
    obs = r.observation(r.to_move)
    return str(choose(obs, r.legal_moves)), str(choose_chain(obs, r.legal_moves))


def test_a_tile_off_the_chain_goes_elsewhere():
    # chain on P0 (open 6): 6-5 5-3 3-1; 6-2 is off it and fits the Mexican train
    r = deal(["6-5", "5-3", "3-1", "6-2"], ["4-0", "2-0", "1-0", "0-0"])
    assert picks(r) == ("6-2@M", "6-2@M")


def marked(hand0, hand1):
    """Seat 0 lays 6-4 and 4-4 on M, cannot satisfy it (draws 1-1) and passes: a marker
    on P0; seat 1 satisfies it with 4-2 (both hands hold those tiles)."""
    return deal(hand0, hand1, top=["1-1"], moves=["6-4@M", "6-1@P1", "4-4@M", "4-2@M"])


def test_a_stray_goes_elsewhere_before_the_marker_is_lifted():
    # 2-0 is off the chain 6-5 5-3 3-1 1-1, and a stray that fits now may not fit later
    r = marked(
        ["6-4", "4-4", "6-5", "5-3", "3-1", "2-0"], ["6-1", "4-2", "0-0", "1-0", "5-0", "3-0"]
    )
    assert [str(m) for m in r.legal_moves] == ["6-5@P0", "2-0@M"]
    assert picks(r) == ("2-0@M", "2-0@M")


def test_the_planner_lifts_its_marker_rather_than_spend_a_chain_tile_elsewhere():
    # the chain 6-0 0-5 5-2 on P0 under a marker; 5-2 fits M too, and is the
    # heavier tile (the chain 6-0 0-5 stays): lifting the marker comes first
    r = marked(
        ["6-4", "4-4", "6-0", "5-0", "5-2", "3-1"], ["6-1", "4-2", "0-0", "1-0", "3-0", "3-3"]
    )
    assert r.to_move == 0 and r.trains[0] == (6, 0, True)  # P0: empty, with a marker
    assert sorted(str(m) for m in r.legal_moves) == ["5-2@M", "6-0@P0"]
    assert picks(r) == ("6-0@P0", "6-0@P0")


def test_a_stray_goes_where_another_stray_can_follow():
    # chain on P0: 6-5 5-4; strays 6-3, 6-2, 2-0: 6-2 on M leaves 2, where 2-0 fits next
    r = deal(["6-5", "5-4", "6-3", "6-2", "2-0"], ["4-0", "3-1", "1-0", "0-0", "1-1"])
    assert picks(r) == ("6-2@M", "6-3@M")  # the chain heuristic: the heaviest stray


def chicken(hand0, hand1, moves):
    """A full two-player Chicken Foot deal on double-6 (engine 6-6, 4 toes)."""
    rest = [t for t in SET6 if t not in [*hand0, *hand1]]
    return TrainRound.from_deal(
        "chicken_foot", set_max=6, hands=[hand0, hand1], stock=rest, moves=list(moves)
    )


def test_chicken_foot_plays_a_double_the_next_seat_likely_cannot_answer():
    # the toes 6-1 6-5 6-3 6-2 on the engine; seat 0 holds 1-1 and 1-0 1-2 1-3: of the
    # 18 tiles it cannot see only 1-4 and 1-5 show a 1, so seat 1's five tiles likely owe
    # toes they do not have. 5-4 is heavier, but 1-1 blocks.
    r = chicken(
        ["6-1", "6-5", "1-1", "1-0", "2-1", "3-1", "5-4"],
        ["6-3", "6-2", "0-0", "2-2", "3-3", "4-4", "5-5"],
        ["6-1@6-6", "6-3@6-6", "6-5@6-6", "6-2@6-6"],
    )
    assert r.to_move == 0
    obs = r.observation(0)
    assert str(choose(obs, r.legal_moves)) == "1-1@6-1"
    assert str(make_bot("greedy").choose(obs, r.legal_moves)).startswith("5-4")


@pytest.mark.parametrize(
    ("moves", "left", "planner"),
    [
        (["6-3@P1", "6-2@M", "3-3@P1", "3-0@P1"], 1, "6-5@P0"),  # the heaviest shed
        (["6-3@P1", "6-2@M", "3-0@P1"], 2, "2-1@M"),  # not close yet: the plan
    ],
)
def test_the_planner_dumps_heavy_tiles_when_a_seat_is_about_to_go_out(moves, left, planner):
    r = deal(["6-2", "6-5", "5-4", "2-1"], ["6-3", "3-3", "3-0", "2-0"], leader=1, moves=moves)
    assert r.to_move == 0 and len(r.hand(1)) == left
    assert picks(r) == (planner, "2-1@M")


def test_the_bots_are_registered_for_the_train_games():
    planner, chain = bones.registry.bot_spec("planner"), bones.registry.bot_spec("chain")
    assert planner.supports("mexican-train") and planner.supports("chicken-foot")
    assert chain.supports("mexican-train") and not chain.supports("chicken-foot")
    assert not planner.supports("straight") and not chain.supports("straight")
    r = deal(["6-5", "5-3", "3-1", "6-2"], ["4-0", "2-0", "1-0", "0-0"])
    obs = r.observation(0)
    for spec in ("planner", "chain", "expert"):
        assert str(make_bot(spec).choose(obs, r.legal_moves)) == "6-2@M"
    # one node finds no chain: every tile is off it, the heaviest goes elsewhere
    assert str(make_bot("planner:budget=1").choose(obs, r.legal_moves)) == "6-5@M"
    with pytest.raises(ValueError):
        make_bot("planner:budget=0")


def test_bad_input_is_refused():
    r = deal(["6-5", "5-3", "3-1", "6-2"], ["4-0", "2-0", "1-0", "0-0"])
    obs, legal = r.observation(0), r.legal_moves
    for fn in (choose, choose_chain):
        with pytest.raises(ValueError, match="no legal moves"):
            fn(obs, [])
        with pytest.raises(ValueError, match="not the legal moves"):
            fn(obs, legal[:1])
        with pytest.raises(TypeError):
            fn(obs, [str(m) for m in legal])
        with pytest.raises(TypeError):
            fn(r, legal)
        with pytest.raises(ValueError, match="budget"):
            fn(obs, legal, budget=0)


def test_decisions_read_only_the_observation():
    """Two deals that agree on seat 0's hand and differ in every hidden tile."""
    checked = 0
    for seed in range(30):
        a = TrainRound.deal("trains", players=3, seed=seed, leader=0)
        own = [str(t) for t in a.hand(0)]
        hidden = [str(t) for s in (1, 2) for t in a.hand(s)] + [str(t) for t in a.stock]
        random.Random(seed).shuffle(hidden)
        k = len(own)
        b = TrainRound.from_deal(
            "trains", hands=[own, hidden[:k], hidden[k : 2 * k]], stock=hidden[2 * k :]
        )
        if a.log or b.log:
            continue
        assert a.observation(0) == b.observation(0)
        assert picks(a) == picks(b)
        checked += 1
    assert checked >= 10


@settings(max_examples=15, deadline=None)
@given(
    variant=st.sampled_from(["mexican-train", "chicken-foot"]),
    players=st.sampled_from([2, 3, 4, 8]),
    seed=st.integers(0, 2**32),
    budget=st.sampled_from([1, 7, 20000]),
)
def test_random_rounds_play_to_the_end(variant, players, seed, budget):
    layout = "trains" if variant == "mexican-train" else "chicken_foot"
    r = TrainRound.deal(layout, players=players, seed=seed)
    # Chicken Foot has no own trains, so no chain to plan: a budget is refused there
    planner = f"planner:budget={budget}" if layout == "trains" else "planner"
    specs = [planner, "chain" if layout == "trains" else "greedy"]
    bots = [make_bot(specs[seat % 2], seed=seat) for seat in range(players)]
    play_round(r, bots)
    assert r.is_over
    assert all(isinstance(m, TrainMove) for m in r.legal_moves) and not r.legal_moves


@pytest.mark.parametrize("policy", ["expert", "chain"])
def test_searches_play_out_under_the_plan(policy):
    r = TrainRound.deal("trains", players=4, seed=3)
    bots = [
        make_bot(f"pimc:samples=3,time_ms=0,policy={policy}", seed=1),
        make_bot(f"ismcts:iterations=20,time_ms=0,policy={policy}", seed=2),
        make_bot("planner"),
        make_bot("chain"),
    ]
    play_round(r, bots)
    assert r.is_over
