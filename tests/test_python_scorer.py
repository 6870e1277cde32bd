"""The compiled bots on a variant whose moves are scored by a Python ``move_scorer``: the
core calls the scorer in every sample, playout and endgame search (``bones.core.scorer``),
so they play it exactly as ``Round`` scores it (issue 9)."""

from __future__ import annotations

import random
import re

import pytest

import bones
from bones import BonesError
from bones.bot import play_round
from bones.core.sampler import DealSampler
from bones.plugins import hookimpl
from bones.plugins.manager import get_plugin_manager

STRAIGHT = bones.variant("straight")
SPECS = (
    "expert",
    "montecarlo:simulations=40",
    "pimc:samples=12,time_ms=0",
    "pimc:samples=12,time_ms=0,policy=greedy,exact=12",
    "pimc:samples=12,time_ms=0,threads=2",
    "ismcts:iterations=40,time_ms=0",
    "ismcts:iterations=40,time_ms=0,threads=2",
)
GOLDEN: dict[str, object] = {}  # the move that _golden scores; set by a test


def _fives(layout, move, count):
    """All Fives as the core counts it, written in Python."""
    return count if count > 0 and count % 5 == 0 else 0


def _golden(layout, move, count):
    """Nothing, except 400 points for the move in GOLDEN at the layout in GOLDEN."""
    return 400 if (layout, move) == (GOLDEN.get("layout"), GOLDEN.get("move")) else 0


def _boom(layout, move, count):
    if count == 10:
        raise RuntimeError("boom at 10")
    return _fives(layout, move, count)


def _liar(layout, move, count):
    return "five" if count == 10 else _fives(layout, move, count)


@pytest.fixture
def scored(fresh_registry):
    class Plugin:
        @hookimpl
        def register_variants(self, register):
            register(STRAIGHT.with_defaults("py-fives", move_scorer=_fives))
            register(STRAIGHT.with_defaults("py-fives-30", move_scorer=_fives, target=30))
            register(STRAIGHT.with_defaults("py-golden", move_scorer=_golden))
            register(STRAIGHT.with_defaults("py-boom", move_scorer=_boom))
            register(STRAIGHT.with_defaults("py-liar", move_scorer=_liar))

    get_plugin_manager().register(Plugin(), name="py-scorers")
    fresh_registry.reset(plugins=False)
    bones.variants()
    yield
    get_plugin_manager().unregister(name="py-scorers")


def _played(variant: str, players: int, seed: int, spec: str) -> tuple[str, tuple[int, ...]]:
    rnd = bones.Round.deal(variant, players, seed=seed)
    play_round(rnd, [bones.make_bot(spec, seed=i) for i in range(players)])
    return " ".join(map(str, rnd.layout)), tuple(rnd.scores)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players", [2, 4])
def test_all_fives_in_python_plays_move_for_move_as_the_core(scored, spec, players):
    """Same seeds, same bots: a Python re-implementation of the count rule gives the very
    rounds the core's own count rule gives (every score each search read was the same)."""
    for seed in range(2):
        assert _played("py-fives", players, seed, spec) == _played("straight", players, seed, spec)


def _position(seed: int) -> bones.Round:
    rnd = bones.Round.deal("py-golden", 2, seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(2, 8)):
        rnd.play(rng.choice(list(rnd.legal_moves)))
    return rnd


@pytest.mark.parametrize("spec", SPECS)
def test_the_searches_read_the_variants_scorer(scored, spec):
    """A move worth 400 to the Python scorer only (no count scores in py-golden) is the one
    every compiled bot takes, where the same bot on the same deal chooses another move
    when the scorer does not single it out."""
    checked = 0
    for seed in range(40):
        rnd = _position(seed)
        if rnd.is_over or len(rnd.legal_moves) < 2:
            continue
        seat = rnd.to_move
        legal = tuple(rnd.legal_moves)
        GOLDEN.clear()
        plain = bones.make_bot(spec, seed=3).choose(rnd.observation(seat), legal)
        GOLDEN.update(layout=tuple(rnd.layout), move=next(m for m in legal if m != plain))
        assert rnd.observation(seat).points_after(GOLDEN["move"]) == 400
        assert bones.make_bot(spec, seed=3).choose(rnd.observation(seat), legal) == GOLDEN["move"]
        checked += 1
        if checked == 3:
            return
    pytest.fail("no position with a choice")


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    ("variant", "message"),
    [
        ("py-boom", r"its move_scorer .*_boom raised RuntimeError: boom at 10"),
        ("py-liar", r"its move_scorer .*_liar returned str 'five', not an int"),
    ],
)
def test_a_failing_scorer_inside_a_search_raises_a_clear_error(scored, spec, variant, message):
    """The scorer fails inside the core's loops: the first error comes out of choose as
    the BonesError Round.play gives, and the bot plays on in a position where it is not
    reached."""
    raised = 0
    for seed in range(30):
        rnd = bones.Round.deal(variant, 2, seed=seed)
        bot = bones.make_bot(spec, seed=seed)
        while not rnd.is_over:
            seat = rnd.to_move
            legal = tuple(rnd.legal_moves)
            try:
                move = bot.choose(rnd.observation(seat), legal)
            except BonesError as exc:
                assert f"variant {variant!r}" in str(exc)
                assert re.search(message, str(exc))
                raised += 1
                break
            assert move in legal
            try:
                rnd.play(move)
            except BonesError:
                break  # the engine's own call of the scorer failed: that round is done
        if raised >= 2:
            return
    pytest.fail(f"{spec} never reached the failing score")


def test_the_sampler_replays_a_round_ended_by_a_python_score(scored):
    """A round that ended at the target by the scorer's points replays only if the C
    replay scores as Round does: every sample reproduces the seat's observation."""
    found = 0
    for seed in range(200):
        rnd = bones.Round.deal("py-fives-30", 2, seed=seed)
        play_round(rnd, [bones.make_bot("greedy"), bones.make_bot("greedy")])
        if rnd.result.reason != "target":
            continue
        obs = rnd.observation(0)
        sampler = DealSampler(obs)
        for sample in sampler.samples(5, rng=seed):
            assert sample.observation(0) == obs
            assert sample.result.reason == "target"
        found += 1
        if found == 3:
            return
    pytest.fail("no round ended at the target")


@pytest.mark.parametrize(
    "spec",
    [
        "expert",
        "montecarlo:simulations=20",
        "pimc:samples=10,time_ms=0",
        "pimc:samples=10,time_ms=0,threads=2",
        "ismcts:iterations=20,time_ms=0,threads=2",
    ],
)
def test_a_search_bots_failing_scorer_voids_the_match_game(scored, tmp_path, spec):
    """In a match the scorer's error inside a search is the variant's fault: the game is
    void (as when the engine's own play raises), nobody forfeits."""
    from bones.match import MatchConfig, run_match

    config = MatchConfig(bots=(spec, "random"), variant="py-boom", games=6, seed=1)
    summary = run_match(config, tmp_path / "boom.jsonl", jobs=1, progress=False)
    assert summary["void"] > 0
    assert all(not b["forfeits"] for b in summary["bots"])
    assert "its move_scorer" in summary["errors"][0]


def test_a_python_scorer_object_is_safe_without_its_constructor(scored):
    from bones.core.rules import compile_rules
    from bones.core.scorer import PythonScorer

    bare = PythonScorer.__new__(PythonScorer)
    assert bare.rules is None
    with pytest.raises(ValueError, match="has no Python move_scorer"):
        PythonScorer(compile_rules("straight", 2, {}))
    assert PythonScorer(compile_rules("py-fives", 2, {})).rules.name == "py-fives"
