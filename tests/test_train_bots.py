"""The built-in bots in the train games (Mexican Train, Chicken Foot): every bot finishes
games, the search bots see only their TrainObservation, the determinizer
(bones.core.trainsample) deals only what the seat cannot see and rebuilds the public
position exactly, and a seeded search without a clock is deterministic."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bones
from bones.bot import Bot, make_bot
from bones.core.referee import play_round
from bones.core.trainismcts import choose as train_ismcts
from bones.core.trains import TrainMove, TrainRound
from bones.core.trainsample import TrainSampler, public_of
from bones.core.trainsearch import pimc
from bones.game import Game
from bones.observation import TrainObservation

VARIANTS = ("mexican-train", "chicken-foot")
LAYOUTS = ("trains", "chicken_foot")
#: every built-in bot that plays the train games, small budgets and no clock
BOTS = (
    "random",
    "heaviest",
    "greedy",
    "expert",
    "montecarlo:simulations=24",
    "pimc:samples=6,time_ms=0",
    "pimc:samples=4,time_ms=0,policy=greedy",
    "pimc:samples=4,time_ms=0,policy=random",
    "ismcts:iterations=30,time_ms=0",
    "ismcts:iterations=20,time_ms=0,policy=random",
)


def play_game(variant: str, specs: list[str], seed: int = 1, **options: object) -> Game:
    game = Game(variant, players=len(specs), seed=seed, **options)
    bots = [make_bot(spec, seed=seed + i) for i, spec in enumerate(specs)]
    while not game.is_over:
        play_round(game.round, bots)
        game.next_round()
    return game


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", [2, 4, 8])
def test_every_bot_finishes_games(variant, players):
    for start in range(0, len(BOTS), players):
        specs = [BOTS[(start + i) % len(BOTS)] for i in range(players)]
        game = play_game(variant, specs, seed=start, set="double-6", hand_size=3)
        assert game.is_over and game.winners


@pytest.mark.parametrize("variant", VARIANTS)
def test_search_bots_finish_a_standard_game(variant):
    specs = ["pimc:samples=3,time_ms=0", "expert", "montecarlo:simulations=8"]
    game = play_game(variant, specs + ["ismcts:iterations=20,time_ms=0"])
    assert game.is_over and len(game.results) == (13 if variant == "mexican-train" else 10)


def test_the_specs_list_the_train_families():
    for name in ("expert", "montecarlo", "pimc", "ismcts"):
        spec = bones.registry.bot_spec(name)
        assert spec.supports("mexican-train") and spec.supports("chicken-foot")
        assert spec.supports("straight")


class Spy(Bot):
    """Records what the referee hands it, then plays as the wrapped bot."""

    name = "spy"

    def __init__(self, inner: Bot) -> None:
        super().__init__(seed=0)
        self.inner = inner
        self.seen: list[object] = []

    def choose(self, observation, legal_moves):
        self.seen.append(observation)
        self.seen.extend(legal_moves)
        return self.inner.choose(observation, legal_moves)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bots_get_only_the_observation(layout):
    r = TrainRound.deal(layout, players=4, seed=5)
    spies = [Spy(make_bot(s, seed=1)) for s in ("expert", "pimc:samples=3,time_ms=0")]
    spies.append(Spy(make_bot("montecarlo:simulations=6", seed=2)))
    spies.append(Spy(make_bot("ismcts:iterations=20,time_ms=0", seed=2)))
    play_round(r, spies)
    for spy in spies:
        assert spy.seen
        for item in spy.seen:
            assert isinstance(item, (TrainObservation, TrainMove)), type(item)
    with pytest.raises(TypeError, match="TrainObservation"):
        TrainSampler(TrainRound.deal(layout, players=2, seed=1))


def hidden_permuted(layout: str, seed: int) -> tuple[TrainRound, TrainRound]:
    """Two deals that agree on seat 0's hand and differ in every other hand and the stock."""
    r = TrainRound.deal(layout, players=3, seed=seed, leader=0)
    own = [str(t) for t in r.hand(0)]
    hidden = [str(t) for s in (1, 2) for t in r.hand(s)] + [str(t) for t in r.stock]
    random.Random(seed).shuffle(hidden)
    k = len(own)
    other = TrainRound.from_deal(
        layout,
        set_max=r.set_max,
        engine=r.engine,
        hands=[own, hidden[:k], hidden[k : 2 * k]],
        stock=hidden[2 * k :],
    )
    return r, other


@pytest.mark.parametrize("layout", LAYOUTS)
def test_decisions_do_not_depend_on_hidden_tiles(layout):
    checked = 0
    for seed in range(40):
        a, b = hidden_permuted(layout, seed)
        if a.to_move != 0 or b.to_move != 0 or a.log or b.log:
            continue  # the leader drew: the two observations differ
        oa, ob = a.observation(0), b.observation(0)
        assert oa == ob
        for spec in (
            "expert",
            "montecarlo:simulations=40",
            "pimc:samples=8,time_ms=0",
            "ismcts:iterations=60,time_ms=0",
        ):
            ma = make_bot(spec, seed=3).choose(oa, a.legal_moves)
            mb = make_bot(spec, seed=3).choose(ob, b.legal_moves)
            assert ma == mb
        checked += 1
    assert checked >= 10


def positions(layout: str, players: int, seed: int):
    """Every position of a random round where someone is to move."""
    r = TrainRound.deal(layout, players=players, seed=seed)
    rng = random.Random(seed)
    while not r.is_over:
        yield r
        r.play(rng.choice(r.legal_moves))


@settings(max_examples=12, deadline=None)
@given(
    layout=st.sampled_from(LAYOUTS),
    players=st.sampled_from([2, 3, 4, 8]),
    seed=st.integers(0, 2**32),
)
def test_determinizations_deal_only_the_unseen_tiles(layout, players, seed):
    for r in positions(layout, players, seed):
        seat = r.to_move
        sampler = TrainSampler(r.observation(seat))
        assert sampler.public() == public_of(r)  # the public position, rebuilt exactly
        own = [str(t) for t in r.hand(seat)]
        table = {tile for _, tile, _ in r.placements} | {f"{r.engine}-{r.engine}"}
        unseen = set(sampler.unseen_tiles)
        assert not unseen & set(own) and not unseen & table
        real_hidden = {str(t) for s in range(players) if s != seat for t in r.hand(s)}
        assert unseen == real_hidden | {str(t) for t in r.stock}
        hands, stock = sampler.deal(seed ^ len(r.moves))
        assert list(hands[seat]) == own
        assert [len(h) for h in hands] == list(r.hand_sizes) and len(stock) == r.stock_size
        dealt = [t for s, h in enumerate(hands) if s != seat for t in h] + list(stock)
        assert len(dealt) == len(set(dealt)) and set(dealt) == unseen


def test_sampler_refuses_bad_input():
    r = TrainRound.deal("trains", players=2, seed=3)
    other = 1 - r.to_move
    with pytest.raises(ValueError, match="not to move"):
        TrainSampler(r.observation(other))
    with pytest.raises(ValueError, match="made from an observation"):
        TrainSampler.__new__(TrainSampler).deal(1)
    obs = r.observation(r.to_move)
    wrong = TrainRound.deal("trains", players=2, seed=4)
    wrong_moves = tuple(m for m in wrong.legal_moves if m not in r.legal_moves)
    with pytest.raises(ValueError, match="not the legal moves"):
        pimc(
            obs,
            wrong_moves or (TrainMove.parse("0-0@M"),),
            samples=2,
            time_ms=0.0,
            policy="greedy",
            seed=1,
        )
    with pytest.raises(ValueError, match="policy"):
        pimc(obs, r.legal_moves, samples=2, time_ms=0.0, policy="clever", seed=1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_seeded_search_without_a_clock_is_deterministic(variant):
    specs = [
        "pimc:samples=5,time_ms=0",
        "montecarlo:simulations=20",
        "ismcts:iterations=40,time_ms=0",
    ]

    def moves():
        game = Game(variant, players=3, seed=9, set="double-6", hand_size=4)
        bots = [make_bot(spec, seed=11) for spec in specs]
        out = []
        while not game.is_over:
            play_round(game.round, bots)
            out.append(game.round.moves_text())
            game.next_round()
        return out, game.scores

    assert moves() == moves()


def test_pimc_reports_its_samples_and_honours_the_clock():
    r = TrainRound.deal("trains", players=4, seed=2)
    while len(r.legal_moves) < 2:
        r.play(r.legal_moves[0])
    obs = r.observation(r.to_move)
    _, _, used = pimc(obs, r.legal_moves, samples=7, time_ms=0.0, seed=1)
    assert used == 7
    _, _, used = pimc(obs, r.legal_moves, samples=10**6, time_ms=5.0, seed=1)
    assert 1 <= used < 10**6


def test_ismcts_reports_its_iterations_and_honours_the_clock():
    r = TrainRound.deal("chicken_foot", players=3, seed=4)
    while len(r.legal_moves) < 2:
        r.play(r.legal_moves[0])
    obs = r.observation(r.to_move)
    move, _, used = train_ismcts(obs, r.legal_moves, iterations=50, time_ms=0.0, seed=1)
    assert used == 50 and move in r.legal_moves
    _, _, used = train_ismcts(
        obs, r.legal_moves, iterations=10**6, time_ms=5.0, policy="greedy", seed=1
    )
    assert 1 <= used < 10**6
    with pytest.raises(ValueError, match="iterations"):
        train_ismcts(obs, r.legal_moves, iterations=0, time_ms=0.0, seed=1)


def _decisions(layout: str, players: int, seed: int, rounds: int = 2):
    """The observations and legal moves of every decision with a choice in `rounds`
    rounds played by the planner in every seat."""
    out = []
    for k in range(rounds):
        r = TrainRound.deal(layout, players=players, seed=seed + k)
        planner = make_bot("expert", seed=0)
        while not r.is_over:
            legal = r.legal_moves
            obs = r.observation(r.to_move)
            if len(legal) > 1:
                out.append((obs, legal))
            r.play(planner.choose(obs, legal))
    return out


def test_the_gate_only_ever_keeps_the_planners_move():
    """With the same seed and no clock the samples are the same, so a gated pimc makes
    the ungated move or, where that lead is within the noise, the planner's own."""
    planner = make_bot("expert", seed=0)
    kept = departed = 0
    for obs, legal in _decisions("trains", 4, 3):
        free, _, _ = pimc(obs, legal, samples=24, time_ms=0.0, seed=5)
        gated, _, _ = pimc(obs, legal, samples=24, time_ms=0.0, seed=5, gate=2.0)
        own = planner.choose(obs, legal)
        assert gated in (free, own)
        kept += gated == own != free
        departed += gated == free != own
    assert kept and departed  # the gate holds back some departures and lets others through


def test_pimc_refuses_a_bad_gate():
    r = TrainRound.deal("trains", players=4, seed=2)
    obs = r.observation(r.to_move)
    for gate in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="gate"):
            pimc(obs, r.legal_moves, samples=2, time_ms=0.0, seed=1, gate=gate)
    for spec in ("pimc:gate=-1", "pimc:gate=11", "pimc:gate=x"):
        with pytest.raises(bones.OptionError):
            make_bot(spec)
