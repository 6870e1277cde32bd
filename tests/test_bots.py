"""Bots: the registry and its plugins, spec strings, the built-in bots, the round driver,
determinism, and greedy's edge over random."""

from __future__ import annotations

import json
import pickle
import re
import sys
from pathlib import Path

import pytest

import bones
from bones.bot import (
    Bot,
    BotError,
    BotSpec,
    bot_spec,
    make_bot,
    move_weight,
    parse_spec,
    play_round,
)
from bones.cli import main
from bones.errors import OptionError
from bones.plugins import hookimpl
from bones.plugins.builtin_bots import Greedy, Heaviest, RandomBot
from bones.plugins.manager import BUILTIN_PLUGINS, PluginWarning, get_plugin_manager
from bones.variant import Option, at_least

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = "bones.plugins.builtin_bots"
M = bones.Move.parse
BASELINES = ["greedy", "heaviest", "random"]


def builtin_names() -> list[str]:
    """Every bot of the plugins that ship with bones (more may come than the baselines)."""
    return sorted(n for n in bones.bots() if bot_spec(n).plugin in BUILTIN_PLUGINS)


# -- a test plugin with options --------------------------------------------------------------


class Tunable(Bot):
    name = "tunable"

    def __init__(self, seed=0, depth=2, temp=0.5, noisy=False, style="calm"):
        super().__init__(seed, depth=depth, temp=temp, noisy=noisy, style=style)
        self.depth, self.temp, self.noisy, self.style = depth, temp, noisy, style
        self.seen = 0

    def observe(self, event):
        self.seen += 1

    def choose(self, observation, legal_moves):
        return self.rng.choice(legal_moves)


TUNABLE = BotSpec(
    "tunable",
    Tunable,
    "A bot with options of every kind",
    [
        Option("depth", 2, check=at_least(1), doc="search depth"),
        Option("temp", 0.5, (0.5, 1.0, 2.0), doc="temperature"),
        Option("noisy", False, (False, True), doc="noise"),
        Option("style", "calm", ("calm", "wild", "1"), doc="style"),
    ],
    variants=("straight", "draw"),
)


class TunablePlugin:
    @hookimpl
    def register_bots(self, register):
        register(TUNABLE)


@pytest.fixture
def tunable(fresh_registry):
    get_plugin_manager().register(TunablePlugin(), name="tunable-plugin")
    fresh_registry.reset(plugins=False)
    yield bot_spec("tunable")


def by_name(infos, name):
    matches = [i for i in infos if i["name"] == name]
    assert len(matches) == 1, infos
    return matches[0]


# -- the registry -------------------------------------------------------------------------


def test_builtin_bots_are_a_plugin(fresh_registry):
    assert set(BASELINES) <= set(bones.bots()) and bones.bots() == builtin_names()
    for name, cls in (("random", RandomBot), ("heaviest", Heaviest), ("greedy", Greedy)):
        spec = bot_spec(name)
        assert spec.plugin == BUILTIN and spec.factory is cls and cls.name == name
        assert spec.variants is None and spec.supports("kozel")
        assert list(spec.all_options) == ["seed"]
    info = by_name(bones.plugins(), BUILTIN)
    assert info["source"] == "builtin"
    assert info["hooks"] == ["register_bots"]
    assert info["bots"] == ["random", "heaviest", "greedy"]
    assert info["variants"] == [] and info["error"] is None
    assert get_plugin_manager().get_plugin(BUILTIN) is sys.modules[BUILTIN]
    assert by_name(bones.plugins(), "bones.plugins.builtin_variants")["bots"] == []


def test_top_level_exports():
    assert bones.Bot is Bot and bones.BotSpec is BotSpec
    assert bones.make_bot is make_bot and bones.bots is bones.bot.bots
    assert {"Bot", "BotSpec", "bots", "make_bot"} <= set(bones.__all__)


def test_unknown_bot_lists_names(fresh_registry):
    names = ", ".join(bones.bots())
    with pytest.raises(OptionError) as info:
        bot_spec("grredy")
    assert str(info.value) == f"unknown bot 'grredy'; known bots: {names}"
    assert "greedy, heaviest" in names
    with pytest.raises(OptionError, match=f"known bots: {names}$"):
        make_bot("grredy:seed=1")


def test_plugin_bot_registered_directly(tunable):
    assert bones.bots() == sorted(builtin_names() + ["tunable"])
    assert tunable.plugin == "tunable-plugin"
    assert tunable.supports("straight") and not tunable.supports("kozel")
    info = by_name(bones.plugins(), "tunable-plugin")
    assert info["hooks"] == ["register_bots"] and info["bots"] == ["tunable"]


class RaisesBots:
    @hookimpl
    def register_bots(self, register):
        register(BotSpec("fine-bot", RandomBot, "would be fine"))
        raise RuntimeError("boom\nmore")


class DuplicateBot:
    @hookimpl
    def register_bots(self, register):
        register(BotSpec("fine-bot", RandomBot, "fine"))
        register(BotSpec("greedy", RandomBot, "a fake greedy"))


class NotABotSpec:
    @hookimpl
    def register_bots(self, register):
        register(RandomBot)


class TwiceBot:
    @hookimpl
    def register_bots(self, register):
        register(BotSpec("twice", RandomBot, "one"))
        register(BotSpec("twice", Heaviest, "two"))


@pytest.mark.parametrize(
    "plugin, error",
    [
        (RaisesBots(), "RuntimeError: boom"),
        (
            DuplicateBot(),
            "OptionError: bot 'greedy' is registered by both 'bones.plugins.builtin_bots' "
            "and 'bad'",
        ),
        (NotABotSpec(), "TypeError: register() takes a bones.BotSpec, not type"),
        (TwiceBot(), "OptionError: bot 'twice' is registered twice by 'bad'"),
    ],
)
def test_broken_bot_plugin_is_reported_and_skipped(fresh_registry, plugin, error):
    get_plugin_manager().register(plugin, name="bad")
    get_plugin_manager().register(TunablePlugin(), name="good")
    fresh_registry.reset(plugins=False)
    with pytest.warns(PluginWarning, match="bones plugin 'bad' skipped"):
        names = bones.bots()
    assert "fine-bot" not in names and "twice" not in names  # the bad plugin, as a whole
    assert names == sorted(builtin_names() + ["tunable"])
    assert bot_spec("greedy").factory is Greedy
    info = by_name(bones.plugins(), "bad")
    assert info["error"] == error and info["bots"] == []
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


def test_both_hooks_in_one_plugin(fresh_registry):
    class Both:
        @hookimpl
        def register_variants(self, register):
            register(bones.variant("straight").with_defaults("straight-short", target=50))

        @hookimpl
        def register_bots(self, register):
            register(
                BotSpec("short-bot", Heaviest, "for short games", variants=("straight-short",))
            )

    get_plugin_manager().register(Both(), name="both")
    fresh_registry.reset(plugins=False)
    info = by_name(bones.plugins(), "both")
    assert info["hooks"] == ["register_bots", "register_variants"]
    assert info["variants"] == ["straight-short"] and info["bots"] == ["short-bot"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"name": "has space"}, "a bot name is letters"),
        ({"name": ""}, "a bot name is letters"),
        ({"name": "a:b"}, "a bot name is letters"),
        ({"factory": 3}, "factory must be callable"),
        ({"options": {"x": Option("y", 1, (1,))}}, "must be an Option named 'x'"),
        ({"options": [Option("seed", 1, (1,))]}, "'seed' is reserved"),
        ({"options": [Option("x", 9, check=at_least(10))]}, "default of option 'x'"),
        ({"variants": "straight"}, "variants must be a tuple"),
    ],
)
def test_botspec_validation(kwargs, message):
    args = {"name": "ok", "factory": RandomBot, "description": "d", **kwargs}
    with pytest.raises(TypeError, match=re.escape(message)):
        BotSpec(**args)


# -- spec strings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("greedy", ("greedy", {})),
        ("  random : seed = 3 ", ("random", {"seed": 3})),
        ("mybot:depth=2,seed=7", ("mybot", {"depth": 2, "seed": 7})),
        ("b:x=-4,y=0.25,z=TRUE,w=false,v=1e-3,u=hello", None),
        ("b:s=nan", ("b", {"s": "nan"})),
        ("b:s=1-2", ("b", {"s": "1-2"})),
    ],
)
def test_parse_spec(spec, expected):
    if expected is None:
        expected = ("b", {"x": -4, "y": 0.25, "z": True, "w": False, "v": 0.001, "u": "hello"})
    name, options = parse_spec(spec)
    assert (name, options) == expected
    for key, value in options.items():
        assert type(value) is type(expected[1][key])


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "has no bot name"),
        (":seed=1", "has no bot name"),
        ("random:seed", "'seed' is not KEY=VALUE; write NAME or NAME:KEY=VALUE,KEY=VALUE"),
        ("random:", "'' is not KEY=VALUE"),
        ("random:seed=", "'seed=' is not KEY=VALUE"),
        ("random:seed=1,", "'' is not KEY=VALUE"),
        ("random:1x=2", "'1x=2' is not KEY=VALUE"),
        ("random:seed=1,seed=2", "option 'seed' is given twice"),
        (None, "a bot spec is a string"),
    ],
)
def test_parse_spec_errors(spec, message):
    with pytest.raises(OptionError, match=re.escape(message)) as info:
        parse_spec(spec)
    assert "\n" not in str(info.value)


def test_make_bot_seed_precedence(fresh_registry):
    assert make_bot("random").seed == 0
    assert make_bot("random", seed=5).seed == 5
    assert make_bot("random:seed=3", seed=5).seed == 3
    bot = make_bot("greedy:seed=-2")
    assert isinstance(bot, Greedy) and bot.seed == -2 and bot.options == {}
    assert repr(bot) == "<Greedy greedy:seed=-2>"


def test_make_bot_options(tunable):
    bot = make_bot("tunable")
    assert (bot.depth, bot.temp, bot.noisy, bot.style) == (2, 0.5, False, "calm")
    bot = make_bot("tunable:depth=5,temp=1,noisy=true,style=1,seed=9")
    assert (bot.depth, bot.temp, bot.noisy, bot.style, bot.seed) == (5, 1.0, True, "1", 9)
    assert type(bot.temp) is float and type(bot.style) is str
    assert bot.options == {"depth": 5, "temp": 1.0, "noisy": True, "style": "1"}


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "tunable:dpeth=3",
            "bot 'tunable': unknown option 'dpeth'; options are depth, temp, noisy, style, seed",
        ),
        ("random:depth=3", "bot 'random': unknown option 'depth'; options are seed"),
        ("tunable:depth=0", "bot 'tunable': option 'depth' must be an int >= 1; got 0"),
        ("tunable:depth=2.5", "option 'depth' must be an int >= 1; got 2.5"),
        ("tunable:temp=3", "option 'temp' must be one of 0.5, 1.0, 2.0; got 3.0"),
        ("tunable:noisy=yes", "option 'noisy' must be one of False, True; got 'yes'"),
        ("tunable:noisy=1", "option 'noisy' must be one of False, True; got 1"),
        ("tunable:style=mild", "option 'style' must be one of 'calm', 'wild', '1'; got 'mild'"),
        ("random:seed=x", "bot 'random': option 'seed' must be an int; got 'x'"),
        ("random:seed=true", "option 'seed' must be an int; got True"),
    ],
)
def test_make_bot_errors(tunable, spec, message):
    with pytest.raises(OptionError) as info:
        make_bot(spec)
    assert str(info.value) == message or str(info.value).endswith(message)
    assert "\n" not in str(info.value)


def test_make_bot_checks_the_factory(fresh_registry):
    class Plugin:
        @hookimpl
        def register_bots(self, register):
            register(BotSpec("nothing", lambda seed: object(), "returns no bot"))

    get_plugin_manager().register(Plugin(), name="nothing-plugin")
    fresh_registry.reset(plugins=False)
    with pytest.raises(OptionError, match="its factory returned object, not a Bot"):
        make_bot("nothing")


# -- the built-in bots ---------------------------------------------------------------------


def test_move_weight():
    assert move_weight(M("6-4@W")) == 10
    assert move_weight(M("0-0")) == 0
    assert move_weight(M("2-2@W+5-5@E")) == 14
    assert move_weight(M("draw")) == -1 and move_weight(M("pass")) == -1


def test_heaviest_rules():
    bot = Heaviest()
    assert bot.choose(None, (M("draw"), M("0-0@W"))) == M("0-0@W")
    assert bot.choose(None, (M("5-5@E"), M("6-4@W"), M("2-2@W+5-5@E"))) == M("2-2@W+5-5@E")
    assert bot.choose(None, (M("6-4@W"), M("5-5@E"))) == M("6-4@W")  # ties: first legal
    assert bot.choose(None, (M("5-5@E"), M("6-4@W"))) == M("5-5@E")
    assert bot.choose(None, (M("pass"),)) == M("pass")
    assert bot.choose(None, (M("draw"), M("pass"))) == M("draw")


def _positions(variant, players, seeds, **options):
    """(observation, legal moves) at every choice of some random rounds."""
    for seed in seeds:
        rnd = bones.Round.deal(variant, players=players, seed=seed, **options)
        rng = RandomBot(seed)
        while not rnd.is_over:
            obs = rnd.observation(rnd.to_move)
            yield rnd, obs, obs.legal_moves
            rnd.play(rng.choose(obs, obs.legal_moves))


CONFIGS = [
    ("straight", 2, {}),
    ("straight", 3, {"may_draw_with_playable": True}),
    ("straight", 2, {"muggins_claim": True}),
    ("multiplayer", 2, {"voluntary_pass": True}),
    ("kozel", 4, {}),
    ("block", 2, {}),
    ("draw", 3, {}),
]


@pytest.mark.parametrize("variant, players, options", CONFIGS)
def test_builtin_bots_follow_their_rules(variant, players, options):
    heaviest, greedy, random_bot = Heaviest(), Greedy(), RandomBot(1)
    scored = 0
    for rnd, obs, legal in _positions(variant, players, range(6), **options):
        weights = [move_weight(m) for m in legal]
        points = [obs.points_after(m) for m in legal]
        h = heaviest.choose(obs, legal)
        assert h == legal[weights.index(max(weights))]
        keys = list(zip(points, weights, strict=True))
        g = greedy.choose(obs, legal)
        assert g == legal[keys.index(max(keys))]
        if any(w >= 0 for w in weights):  # a placement is legal: no draw, no pass
            assert move_weight(h) >= 0
            assert not (g.is_draw or g.is_pass)  # a scoring "muggins" claim may win
        assert random_bot.choose(obs, legal) in legal
        scored += max(points) > 0
        # points_after agrees with what the engine scores for the move
        for move, expected in zip(legal, points, strict=True):
            if move_weight(move) < 0:
                continue
            copy = rnd.copy()
            before = len(copy.events)
            copy.play(move)
            play = copy.events[before]
            assert play.kind == "play" and play.move == move
            assert play.points == expected, (move, rnd)
    if variant == "straight":
        assert scored  # greedy really had points to chase


def test_random_is_uniform_enough():
    rnd = bones.Round.deal("straight", players=2, seed=11)
    obs = rnd.observation(rnd.to_move)
    legal = obs.legal_moves
    assert len(legal) >= 3
    bot = RandomBot(4)
    counts = {m: 0 for m in legal}
    for _ in range(300 * len(legal)):
        counts[bot.choose(obs, legal)] += 1
    assert min(counts.values()) > 200 and max(counts.values()) < 400


# -- the round driver ------------------------------------------------------------------------


class Log(Bot):
    """Records the hooks it gets; plays the first legal move."""

    name = "log"

    def __init__(self, seed=0):
        super().__init__(seed)
        self.hooks = []
        self.events = []

    def start_round(self, observation):
        self.hooks.append(("start_round", observation.seat))

    def observe(self, event):
        self.events.append(event)

    def choose(self, observation, legal_moves):
        self.hooks.append(("choose", observation.seat))
        assert observation.legal_moves == legal_moves and observation.to_move == observation.seat
        return legal_moves[0]

    def end_round(self, result, observation):
        self.hooks.append(("end_round", result))


@pytest.mark.parametrize("variant, players", [("straight", 4), ("kozel", 3), ("draw", 2)])
def test_play_round_delivers_every_event_to_every_seat(variant, players):
    rnd = bones.Round.deal(variant, players=players, seed=3)
    bots = [Log() for _ in range(players)]
    result = play_round(rnd, bots)
    assert result == rnd.result and rnd.is_over
    for seat, bot in enumerate(bots):
        assert bot.events == list(rnd.events)
        assert bot.hooks[0] == ("start_round", seat)
        assert bot.hooks[-1] == ("end_round", result)
        assert all(h == ("choose", seat) for h in bot.hooks[1:-1])
    assert sum(len(b.hooks) - 2 for b in bots) == len(rnd.moves)


def test_play_round_events_already_in_the_round():
    rnd = bones.Round.deal("straight", players=2, seed=3)
    rnd.play(rnd.legal_moves[0])
    rnd.play(rnd.legal_moves[0])
    bots = [Log(), Log()]
    play_round(rnd, bots)
    assert bots[0].events == bots[1].events == list(rnd.events)


class Answers(Bot):
    name = "answers"

    def __init__(self, answer):
        super().__init__(0)
        self.answer = answer

    def choose(self, observation, legal_moves):
        return self.answer(legal_moves)


@pytest.mark.parametrize(
    "answer, message",
    [
        (lambda legal: str(legal[0]), "choose() returned str '"),
        (lambda legal: None, "choose() returned NoneType None, not a bones.Move"),
        (lambda legal: M("6-6@N"), "choose() returned 6-6@N, which is not legal; legal: "),
        (lambda legal: 1 / 0, "answers.choose() raised ZeroDivisionError: division by zero"),
    ],
)
def test_play_round_bad_bot(answer, message):
    rnd = bones.Round.deal("straight", players=2, seed=3)
    bots = [Log(), Log()]
    bots[rnd.to_move] = Answers(answer)
    with pytest.raises(BotError) as info:
        play_round(rnd, bots)
    assert info.value.seat == rnd.to_move
    assert message in str(info.value) and str(info.value).startswith(f"bot at seat {rnd.to_move}: ")
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.seat, copy.message, str(copy)) == (
        info.value.seat,
        info.value.message,
        str(info.value),
    )


def test_play_round_hook_errors_name_the_seat():
    class BadObserver(Log):
        def observe(self, event):
            raise KeyError("nope")

    rnd = bones.Round.deal("straight", players=2, seed=3)
    with pytest.raises(BotError, match=r"^bot at seat 1: log.observe\(\) raised KeyError"):
        play_round(rnd, [Log(), BadObserver()])
    with pytest.raises(ValueError, match="2 seats but 3 bots"):
        play_round(bones.Round.deal("straight", players=2, seed=3), [Log(), Log(), Log()])


def test_base_bot_must_choose():
    with pytest.raises(NotImplementedError):
        Bot().choose(None, (M("draw"),))


# -- determinism ------------------------------------------------------------------------------


def _choices(bot, positions):
    return [bot.choose(obs, legal) for obs, legal in positions]


@pytest.mark.parametrize("spec", ["random", "heaviest", "greedy"])
def test_same_seed_same_choices_and_reset(spec):
    positions = [(obs, legal) for _, obs, legal in _positions("straight", 3, range(3))]
    positions += [(obs, legal) for _, obs, legal in _positions("kozel", 2, range(3))]
    first = _choices(make_bot(spec, seed=42), positions)
    assert _choices(make_bot(f"{spec}:seed=42"), positions) == first
    bot = make_bot(spec, seed=42)
    for _ in range(3):
        assert _choices(bot, positions) == first
        if spec == "random":  # the second pass continues the stream
            assert _choices(bot, positions) != first
        bot.reset()
    if spec == "random":
        assert _choices(make_bot(spec, seed=43), positions) != first


def test_reset_restores_the_state_just_after_init(tunable):
    bot = make_bot("tunable:depth=4,seed=8")
    fresh = [bot.rng.random() for _ in range(3)]
    bot.seen = 17
    bot.depth = 1
    bot.seat = 2  # set by a hook, not by __init__
    bot.reset()
    assert (bot.seen, bot.depth, bot.temp, bot.seed) == (0, 4, 0.5, 8)
    assert not hasattr(bot, "seat")
    assert [bot.rng.random() for _ in range(3)] == fresh
    positional = Tunable(3, 6)
    positional.depth = 0
    positional.reset()
    assert (positional.seed, positional.depth) == (3, 6)
    clone = pickle.loads(pickle.dumps(bot))  # bots travel to worker processes
    clone.reset()
    assert (clone.depth, clone.seed) == (4, 8)


def test_greedy_beats_random_on_duplicate_deals():
    """200 deals of 2-player Straight, each played twice with the seats swapped; the
    points each bot scores in the round (counts plus the round-end bonus).  Everything is
    seeded, so the numbers are the same on every run; the margins are wide."""
    totals = {"greedy": 0, "random": 0}
    pair_wins = {"greedy": 0, "random": 0}
    for deal in range(200):
        pair = {"greedy": 0, "random": 0}
        for seating in (("greedy", "random"), ("random", "greedy")):
            rnd = bones.Round.deal("straight", players=2, seed=deal)
            result = play_round(rnd, [make_bot(s, seed=deal) for s in seating])
            for seat, name in enumerate(seating):
                side = rnd.side_of(seat)
                pair[name] += rnd.scores[side] + result.points[side]
        for name in pair:
            totals[name] += pair[name]
        if pair["greedy"] != pair["random"]:
            pair_wins[max(pair, key=pair.__getitem__)] += 1
    assert totals["greedy"] > 1.4 * totals["random"], totals
    assert pair_wins["greedy"] > 3 * pair_wins["random"], pair_wins


# -- the command line -----------------------------------------------------------------------


def test_cli_bots(capsys, tunable):
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    assert "greedy  (plugin bones.plugins.builtin_bots; all variants)" in out
    assert "tunable  (plugin tunable-plugin; variants straight, draw)" in out
    assert re.search(r"^  temp +0\.5 +0\.5 \| 1\.0 \| 2\.0$", out, re.M)
    assert re.search(r"^  depth +2 +an int >= 1$", out, re.M)
    assert re.search(r"^  seed +0 +an int$", out, re.M)
    assert main(["bots", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in data] == bones.bots() and "tunable" in bones.bots()
    tun = next(d for d in data if d["name"] == "tunable")
    assert tun["plugin"] == "tunable-plugin" and tun["variants"] == ["straight", "draw"]
    assert tun["options"]["temp"]["choices"] == [0.5, 1.0, 2.0]
    assert tun["options"]["seed"]["expects"] == "an int"
    assert main(["bots", "random", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["description"].startswith("Uniform")


def test_cli_bots_unknown(capsys, fresh_registry):
    assert main(["bots", "nope"]) == 2
    err = capsys.readouterr().err
    assert err == f"bones: error: unknown bot 'nope'; known bots: {', '.join(bones.bots())}\n"


# -- the example of docs/bots.md, loaded through a real entry point ---------------------------


def test_docs_example_plugin(tmp_path, monkeypatch, fresh_registry, plugin_autoload):
    doc = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    example = next(b for b in blocks if "def register_bots" in b)
    (tmp_path / "lightest_bot.py").write_text(example, encoding="utf-8")
    toml = re.search(r"```toml\n(.*?)```", doc, re.S).group(1)
    assert 'lightest = "lightest_bot"' in toml
    info = tmp_path / "lightest_bot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lightest-bot\nVersion: 1.0\n")
    entry = toml.split("]\n", 1)[1].replace('"', "")  # TOML string -> entry_points.txt
    (info / "entry_points.txt").write_text("[bones]\n" + entry)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lightest_bot", raising=False)
    try:
        assert "lightest" in bones.bots()
        spec = bot_spec("lightest")
        assert spec.plugin == "lightest" and list(spec.all_options) == ["scoring_first", "seed"]
        bot = make_bot("lightest:scoring_first=true,seed=5")
        assert bot.scoring_first is True and bot.seed == 5
        for seed in range(5):
            rnd = bones.Round.deal("straight", players=2, seed=seed)
            play_round(rnd, [bot, make_bot("lightest")])
            bot.reset()
        with pytest.raises(OptionError, match="must be one of False, True; got 'yes'"):
            make_bot("lightest:scoring_first=yes")
    finally:
        sys.modules.pop("lightest_bot", None)


def _follower_cases():
    """(variant, players): every variant of the registry with 2 and 4 seats where it
    allows them, and 8 in the train games."""
    bones.registry.reset()
    out = []
    for name in bones.variants():
        v = bones.variant(name)
        wanted = (2, 4, 8) if v.base in ("trains", "chicken_foot") else (2, 4)
        out += [(name, n) for n in wanted if n in v.players]
    return out


@pytest.mark.parametrize(("variant", "players"), _follower_cases())
def test_docs_bot_for_every_game_plays_every_variant(tmp_path, monkeypatch, variant, players):
    """docs/bots.md's one bot for every game, which reads ``observation.hand`` and the
    legal moves' tiles, plays every built-in variant through the match runner without a
    forfeit (issue 30)."""
    from bones.match.runner import MatchConfig, run_match

    doc = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    example = next(b for b in blocks if "class Follower" in b)
    (tmp_path / "follower_bot.py").write_text(example, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "follower_bot", raising=False)
    path = tmp_path / "m.jsonl"
    config = MatchConfig(
        bots=("follower", "random"),
        variant=variant,
        players=players,
        games=2,
        plugins=("follower_bot",),
    )
    try:
        summary = run_match(config, path, jobs=1, progress=False)
    finally:
        sys.modules.pop("follower_bot", None)
        bones.registry.reset()
    games = [json.loads(line) for line in path.read_text().splitlines()]
    games = [g for g in games if g.get("type") == "game"]
    assert games and summary["played"] == len(games)
    assert [g["forfeit"] for g in games] == [None] * len(games)
    assert all(g.get("error") is None for g in games)
    assert "follower" in {b["spec"] for b in summary["bots"]}


def _fake_dist(site: Path, name: str, module: str, text: str) -> None:
    (site / f"{module}.py").write_text(text, encoding="utf-8")
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[bones]\n{module} = {module}\n")


def test_bot_plugin_using_the_registry_at_import_time(
    tmp_path, monkeypatch, fresh_registry, plugin_autoload
):
    """A plugin that asks for a built-in bot while it is imported, with bones.plugins()
    (not bones.bots()) the first call: its bots are still registered."""
    _fake_dist(
        tmp_path,
        "bones-import-bot",
        "bones_import_bot",
        "import bones\nfrom bones.plugins import hookimpl\n\n"
        "BASE = bones.bot.bot_spec('heaviest')\n\n"
        "@hookimpl\n"
        "def register_bots(register):\n"
        "    assert 'random' in bones.bots()\n"
        "    register(bones.BotSpec('heavy2', BASE.factory, 'a second heaviest'))\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        info = by_name(bones.plugins(), "bones_import_bot")
        assert info["bots"] == ["heavy2"] and info["error"] is None
        assert isinstance(make_bot("heavy2"), Heaviest)
    finally:
        sys.modules.pop("bones_import_bot", None)
