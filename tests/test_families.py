"""One engine, one API (issue 41): every game family behind bones.Round, bones.Observation
and bones.Move, registered as a bones.family.Family, and nothing outside the registry
asking which family it holds."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import msgpack
import pytest

import bones
from bones import registry
from bones.api import family_of_bytes
from bones.family import PARTS, REQUIRED_PARTS, Family, FamilyError
from bones.plugins import hookimpl
from bones.plugins.manager import PluginWarning, get_plugin_manager

ROOT = Path(__file__).resolve().parent.parent


def _cases() -> list[tuple[str, int]]:
    """Every built-in variant at every player count it allows."""
    registry.reset()
    return [(name, n) for name in bones.variants() for n in bones.variant(name).players]


CASES = _cases()


def _played(variant: str, players: int, seed: int = 1, plies: int = 6) -> bones.Round:
    """A round a few moves in (so its events, layout and undo have something in them)."""
    rnd = bones.Round.deal(variant, players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if rnd.is_over:
            break
        rnd.play(rng.choice(rnd.legal_moves))
    return rnd


# -- one public type per concept, for every family ---------------------------------------


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_every_family_answers_the_one_api(variant, players):
    rnd = _played(variant, players)
    assert isinstance(rnd, bones.Round)
    assert rnd.variant == variant and rnd.players == players
    assert len(rnd.scores) == len(rnd.sides) == len(rnd.dealt_scores)
    assert all(isinstance(e, bones.Event) for e in rnd.events)
    assert all(isinstance(m, bones.Move) for m in rnd.layout)
    assert len(rnd.layout) == sum(1 for e in rnd.events if e.kind == "play")
    assert rnd.rules is not None and isinstance(rnd.rules.overrides, dict)
    seat = rnd.to_move
    assert seat is not None and not rnd.is_over and rnd.result is None
    legal = rnd.legal_moves
    assert legal and all(isinstance(m, bones.Move) for m in legal)
    space = rnd.action_space
    assert rnd.legal_actions == sorted(space.index(m) for m in legal)
    mask = rnd.action_mask()
    assert sorted(i for i, bit in enumerate(mask) if bit) == rnd.legal_actions
    assert len(rnd.observation_tensor(seat)) == rnd.tensor_spec.size
    assert len(rnd.returns()) == players
    assert len(rnd.hand(seat)) == rnd.hand_sizes[seat]

    obs = rnd.observation(seat)
    assert isinstance(obs, bones.Observation)
    assert (obs.variant, obs.players, obs.seat) == (variant, players, seat)
    assert obs.side == rnd.side_of(seat) and obs.scores == rnd.scores
    assert obs.events == rnd.events or _own_draws_hidden(obs.events, rnd.events)
    assert tuple(obs.layout) == tuple(rnd.layout)
    assert obs.hand == rnd.hand(seat) and obs.legal_moves == legal
    assert obs.legal_actions == rnd.legal_actions
    assert obs.to_move == seat and obs.result is None
    again = bones.Observation.from_msgpack(obs.to_msgpack())
    assert again == obs and isinstance(again, bones.Observation)
    sample = obs.sample(7)
    assert isinstance(sample, bones.Round) and sample.observation(seat) == obs

    # make/unmake and the round's own bytes, the same in every family
    before = rnd.to_msgpack()
    move = legal[-1]
    rnd.play(space.index(move))  # an action index plays the same move as the move
    assert rnd.moves[-1] == move
    rnd.undo()
    assert rnd.to_msgpack() == before
    assert bones.Round.from_msgpack(before) == rnd
    assert bones.Move.parse(str(move), variant) == move
    assert bones.Move.from_action(space.index(move), variant, players) == move
    with pytest.raises(bones.IllegalMove):
        rnd.play("no such move")
    assert rnd.to_msgpack() == before


def _own_draws_hidden(seen, events) -> bool:
    """Whether ``seen`` is ``events`` as a seat sees them: the same kinds, seats, moves."""
    return [(e.kind, e.seat, e.move) for e in seen] == [(e.kind, e.seat, e.move) for e in events]


@pytest.mark.parametrize(("variant", "players"), CASES[::3])
def test_a_finished_round_answers_too(variant, players):
    rnd = _played(variant, players, plies=10_000)
    assert rnd.is_over and rnd.to_move is None and rnd.legal_moves == ()
    assert rnd.legal_actions == [] and not any(rnd.action_mask())
    assert isinstance(rnd.result, bones.RoundResult)
    assert sum(rnd.returns()) == pytest.approx(0, abs=1e-3)
    obs = rnd.observation(0)
    assert obs.is_over and obs.legal_moves == () and obs.legal_actions == []
    assert obs.result in (None, rnd.result)  # a line observation carries none (docs/api.md)


def test_public_names_are_the_faces():
    from bones.core.round import Round as LineRound
    from bones.core.trains import TrainMove, TrainRound

    assert bones.Round is bones.api.Round and bones.Move is bones.api.Move
    assert issubclass(LineRound, bones.Round) and issubclass(TrainRound, bones.Round)
    assert issubclass(TrainMove, bones.Move) and not issubclass(TrainRound, bones.Move)
    assert not isinstance(object(), bones.Round) and not isinstance("6-4@W", bones.Move)
    with pytest.raises(TypeError):
        bones.Round()  # abstract: made by deal, from_deal or from_msgpack


def test_a_subclass_of_a_familys_class_is_still_of_the_face():
    from bones.core.observation import TrainObservation

    class Mine(TrainObservation):
        __slots__ = ()

    assert issubclass(Mine, bones.Observation)


# -- the bytes of any family --------------------------------------------------------------


def test_from_msgpack_reads_every_family_and_refuses_the_rest():
    line = bones.Round.deal("straight", players=2, seed=1)
    train = bones.Round.deal("chicken-foot", players=3, seed=1)
    assert family_of_bytes(line.to_msgpack(), "round") == "line"
    assert family_of_bytes(train.to_msgpack(), "round") == "trains"
    assert family_of_bytes(train.observation(0).to_msgpack(), "observation") == "trains"
    for bad in (b"", b"\xc1", msgpack.packb([1, "round?"]), msgpack.packb({"a": 1}), b"\x91" * 99):
        with pytest.raises(ValueError, match="no registered game family"):
            bones.Round.from_msgpack(bad)
        with pytest.raises(ValueError, match="no registered game family"):
            bones.Observation.from_msgpack(bad)
    with pytest.raises(ValueError, match="takes bytes"):
        bones.Round.from_msgpack("text")  # type: ignore[arg-type]


def test_from_msgpack_fuzz_never_raises_anything_but_valueerror():
    rng = random.Random(41)
    seeds = [
        bones.Round.deal("mexican-train", players=4, seed=2).to_msgpack(),
        bones.Round.deal("kozel", players=4, seed=2).to_msgpack(),
        bones.Round.deal("mexican-train", players=4, seed=2).observation(1).to_msgpack(),
        bones.Round.deal("straight", players=2, seed=2).observation(1).to_msgpack(),
    ]
    for _ in range(600):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(data))
            data[i] = rng.randrange(256)
        data = data[: rng.randrange(1, len(data) + 1)]
        for face in (bones.Round, bones.Observation):
            try:
                face.from_msgpack(bytes(data))
            except ValueError:
                pass


# -- the family registry ------------------------------------------------------------------


def test_the_builtin_families_are_registered_like_a_plugin():
    assert registry.families() == ["line", "trains"]
    info = next(p for p in bones.plugins() if p["name"] == "bones.plugins.builtin_families")
    assert info["hooks"] == ["register_families"] and info["families"] == ["line", "trains"]
    for name in bones.variants():
        family = registry.family_of(name)
        assert bones.variant(name).base in family.bases
    for family in map(registry.family, registry.families()):
        for part in family.parts:  # every part named is there to import
            try:
                assert family.part(part) is not None, part
            except FamilyError as exc:  # only an optional extra missing (pyspiel, ...)
                cause = exc.__cause__
                assert isinstance(cause, ModuleNotFoundError), exc
                assert not (cause.name or "bones").startswith("bones"), exc
        assert set(REQUIRED_PARTS) <= set(family.parts) <= set(PARTS)


def test_family_records_refuse_what_they_cannot_hold():
    good = dict.fromkeys(REQUIRED_PARTS, "bones.records:RoundResult")
    with pytest.raises(TypeError, match="family name"):
        Family("Bad Name", "", ("x",), good)
    with pytest.raises(TypeError, match="bases"):
        Family("x", "", "x", good)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unknown part"):
        Family("x", "", ("x",), {**good, "teleport": "a:b"})
    with pytest.raises(TypeError, match="module:attribute"):
        Family("x", "", ("x",), {**good, "round": "no colon"})
    with pytest.raises(TypeError, match="missing part"):
        Family("x", "", ("x",), {"round": "a:b"})
    broken = Family("x", "", ("x",), {**good, "round": "bones.no_such_module:Round"})
    with pytest.raises(FamilyError, match="the x family's 'round'.*cannot be loaded"):
        broken.part("round")
    with pytest.raises(FamilyError, match="has no 'svg'"):
        broken.part("svg")
    with pytest.raises(bones.OptionError, match="unknown game family"):
        registry.family("nope")


class _Claims:
    """A careless plugin: a family that claims a base another family runs already."""

    @hookimpl
    def register_families(self, register):
        register(Family("thief", "", ("trains",), dict.fromkeys(REQUIRED_PARTS, "a:b")))


class _Raises:
    @hookimpl
    def register_families(self, register):
        raise RuntimeError("boom")


class _Garbage:
    @hookimpl
    def register_families(self, register):
        register("a family, honest")


@pytest.mark.parametrize(
    ("plugin", "error"),
    [(_Claims(), "runs already"), (_Raises(), "boom"), (_Garbage(), "bones.Family")],
)
def test_a_broken_family_plugin_is_skipped_and_the_rest_play(fresh_registry, plugin, error):
    get_plugin_manager().register(plugin, name="careless")
    with pytest.warns(PluginWarning, match=error):
        registry.reset(plugins=False)
        assert registry.families() == ["line", "trains"]
    info = next(p for p in bones.plugins() if p["name"] == "careless")
    assert error in info["error"]
    assert registry.family_of("mexican-train").name == "trains"
    assert isinstance(bones.Round.deal("mexican-train", players=2, seed=1), bones.Round)


# -- nothing outside the registry asks which family it holds ------------------------------

#: The modules of one family, which may name their own classes, and the registry and the
#: built-in families' plugin, which name every family's.
FAMILY_MODULES = {
    "core/line_games.py",
    "core/train_games.py",
    "core/observation.py",
    "train_actions.py",
    "train_games.py",
    "trains_records.py",
    "render/trains_svg.py",
    "render/trains_text.py",
    "render/trains_replay.py",
    "plugins/builtin_families.py",
    "plugins/train_variants.py",
}
#: How the two stacks used to ask: the old predicates, and type tests against one
#: family's classes.
FAMILY_TESTS = re.compile(
    r"_is_train|is_train_round|is_train_record|train_variant\(|_is_train_variant"
    r"|except OtherCore|double_six_only"
    r"|(isinstance|issubclass)\([^)]*\b(Train\w*|SeatView|LineRound)\b"
    r"|type\([^)]*\) is (not )?Train\w*"
    r"|\bin TRAIN_BASES|\bin DOUBLE_SIX_BASES"
)


def test_no_module_outside_the_registry_asks_which_family_it_holds():
    src = ROOT / "src"
    found = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        if rel in FAMILY_MODULES or rel == "variant.py":  # variant.py: the bases' own data
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if FAMILY_TESTS.search(line):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


def test_the_grep_sees_the_old_predicates():
    """The test above would catch the old ways of asking (it is not vacuous)."""
    for line in (
        "if _is_train(observation):",
        "train = train_variant(variant)",
        "    except OtherCore:",
        "if isinstance(rnd, TrainRound):",
        "if type(round) is TrainRound:",
        "return lookup(name).base in TRAIN_BASES",
    ):
        assert FAMILY_TESTS.search(line), line


# -- a bot written once plays every family ------------------------------------------------


def _rollout_cases() -> list[tuple[str, int]]:
    out = []
    for name in bones.variants():
        v = bones.variant(name)
        out += [(name, n) for n in (2, 4, 8) if n in v.players]
    return out


@pytest.mark.parametrize(("variant", "players"), _rollout_cases())
def test_docs_sampling_bot_plays_every_variant(tmp_path, monkeypatch, variant, players):
    """docs/bots.md's rollout bot, which reads ``observation.scores``, ``.events`` and
    draws ``observation.sample()``, plays every variant through the runner, no forfeit."""
    from bones.match.runner import MatchConfig, run_match

    doc = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    example = next(b for b in blocks if "class Rollout" in b)
    (tmp_path / "rollout_bot.py").write_text(example, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "rollout_bot", raising=False)
    options = {"set": "double-6"} if "set" in bones.variant(variant).options else {}
    config = MatchConfig(
        bots=("rollout:width=2,samples=1", "random"),
        variant=variant,
        players=players,
        games=2,
        options=options,
        plugins=("rollout_bot",),
    )
    path = tmp_path / "m.jsonl"
    try:
        run_match(config, path, jobs=1, progress=False)
    finally:
        sys.modules.pop("rollout_bot", None)
        registry.reset()
    games = [json.loads(line) for line in path.read_text().splitlines()]
    games = [g for g in games if g.get("type") == "game"]
    assert games and [g["forfeit"] for g in games] == [None] * len(games)
    assert all(g.get("error") is None for g in games)


def test_docs_examples_name_real_files():
    assert (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8").count("register_families")
    assert Path(bones.family.__file__).name == "family.py"


def test_docs_core_md_lists_every_module_of_the_core():
    doc = (ROOT / "docs" / "core.md").read_text(encoding="utf-8")
    core = ROOT / "src" / "core"
    sources = [p.name for p in core.iterdir() if p.suffix in (".pyx", ".pxd", ".py", ".h")]
    missing = [name for name in sorted(sources) if f"`{name}`" not in doc]
    assert missing == []


# -- a third family, from a plugin --------------------------------------------------------


@pytest.fixture
def tiny(fresh_registry):
    """tests/tiny_family.py registered as a plugin: the family and its variant."""
    import tiny_family

    get_plugin_manager().register(tiny_family, name="tiny_family")
    registry.reset(plugins=False)
    yield tiny_family
    sys.modules.pop("tiny_family", None)


def test_a_third_family_plays_through_the_one_api(tiny):
    assert registry.families() == ["line", "tiny", "trains"]
    assert registry.family_of("tiny-block").name == "tiny"
    rnd = bones.Round.deal("tiny-block", players=3, seed=5)
    assert isinstance(rnd, bones.Round) and type(rnd) is tiny.TinyRound
    obs = rnd.observation(rnd.to_move)
    assert isinstance(obs, bones.Observation) and obs.legal_moves == rnd.legal_moves
    assert bones.Observation.from_msgpack(obs.to_msgpack()) == obs
    assert bones.Round.from_msgpack(rnd.to_msgpack()) == rnd
    assert obs.sample(3).observation(obs.seat) == obs
    assert isinstance(bones.Move.parse("3-1@L", "tiny-block"), bones.Move)
    result = bones.bot.play_round(rnd, [bones.make_bot("random", seed=s) for s in range(3)])
    assert result == rnd.result and rnd.is_over
    from bones.render.svg import svg_of

    assert "<svg" in svg_of(rnd)


def test_a_third_family_plays_a_match_and_a_replay(tiny, tmp_path):
    from bones.match.runner import MatchConfig, run_match
    from bones.render.replay import replay_html, replay_steps

    config = MatchConfig(
        bots=("greedy", "random"), variant="tiny-block", players=2, games=8, plugins=()
    )
    path = tmp_path / "tiny.jsonl"
    summary = run_match(config, path, jobs=1, progress=False)
    games = [json.loads(line) for line in path.read_text().splitlines()]
    games = [g for g in games if g.get("type") == "game"]
    assert summary["played"] == len(games) == 8
    assert [g["forfeit"] for g in games] == [None] * 8
    assert all(g.get("error") is None for g in games)
    steps = replay_steps(games[0])
    assert steps[0].ply == 0 and len(steps) == 1 + len(games[0]["rounds"][0]["moves"].split())
    assert "tiny" in replay_html(games[0]) or "<svg" in replay_html(games[0])


def test_a_variant_whose_base_no_family_runs_is_refused(fresh_registry):
    class Orphan:
        @hookimpl
        def register_variants(self, register):
            register(bones.Variant("orphan", "chess", "no family runs it", (2,), {}))

    get_plugin_manager().register(Orphan(), name="orphan")
    with pytest.warns(PluginWarning, match="no registered game family runs the rule base"):
        registry.reset(plugins=False)
        assert "orphan" not in bones.variants()


def test_the_old_names_warn_for_one_release():
    from bones.render import trains_replay, trains_svg

    train = bones.Round.deal("mexican-train", players=2, seed=1)
    line = bones.Round.deal("straight", players=2, seed=1)
    with pytest.warns(DeprecationWarning, match="family"):
        assert trains_svg.is_train_round(train) and not trains_svg.is_train_round(line)
    with pytest.warns(DeprecationWarning, match="family"):
        assert trains_replay.is_train_record({"variant": "chicken-foot"})
    with pytest.warns(DeprecationWarning, match="layout_name"):
        assert train.observation(0).layout == "trains"
    assert train.observation(0).layout_name == "trains"
