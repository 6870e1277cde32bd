"""Issue 41, "Bots written once": every option of every built-in bot either works in every
family the bot plays (the line games on the double-six set; the train games, Mexican Train
and Chicken Foot) or is refused with an OptionError naming the option and the family --
by ``bones match`` and ``bones play`` before a game, and by the bot itself at
``start_game`` or its first decision -- never silently ignored.  The search kernels of
both families take the same keyword arguments."""

from __future__ import annotations

import functools
import inspect
import random
from collections.abc import Callable

import pytest

import bones
from bones.bot import bot_spec, bots, check_spec, make_bot
from bones.cli import main
from bones.plugins.search_bots import (
    FAMILY_NAMES,
    LINE,
    NOT_IN,
    NOT_IN_CHICKEN_FOOT,
    TRAINS,
    _family,
)

FAMILIES = ("line", "mexican-train", "chicken-foot")
#: the line variant an option is tried in: Kozel's own features need Kozel
KOZEL_ONLY = ("lone_zero", "closed", "goat")
WEIGHTS = (
    "points",
    "reply",
    "heavy",
    "heavy_near",
    "variety",
    "follow",
    "block",
    "partner",
    "double",
    "out",
    "lone_zero",
    "closed",
    "goat",
)


def variant_of(family: str, option: str) -> str:
    if family == "line":
        if option == "exact":  # nothing to draw: the endgame is solved
            return "block"
        return "kozel" if option in KOZEL_ONLY else "straight"
    return family


@functools.cache
def positions(variant: str) -> tuple[tuple[object, tuple], ...]:
    """Decisions with a choice, at every stage of the round (random play from the deal)."""
    out = []
    rng = random.Random(5)
    seed = 0
    while len(out) < 36:
        players = 4 if variant == "kozel" else 3 if variant == "mexican-train" else 2
        extra = {"set": "double-6", "hand_size": 5} if variant in ("mexican-train",) else {}
        if variant == "chicken-foot":
            extra = {"set": "double-6", "hand_size": 6}
        rnd = bones.Round.deal(variant, players=players, seed=seed, **extra)
        seed += 1
        depth = rng.randrange(0, 24)
        while not rnd.is_over and depth:
            rnd.play(rng.choice(list(rnd.legal_moves)))
            depth -= 1
        if not rnd.is_over and len(rnd.legal_moves) > 1:
            out.append((rnd.observation(rnd.to_move), tuple(rnd.legal_moves)))
    return tuple(out)


def decisions(spec: str, variant: str) -> list[object]:
    return [make_bot(spec, seed=7).choose(obs, legal) for obs, legal in positions(variant)]


def differs(base: str) -> Callable[[str, str], bool]:
    """The option changes some decision of ``base`` (same seed, no clock)."""

    def probe(spec: str, variant: str) -> bool:
        return decisions(spec, variant) != decisions(base, variant)

    return probe


def counted(attr: str, ok: Callable[[int], bool]) -> Callable[[str, str], bool]:
    """The bot's count of samples or iterations shows the option at work."""

    def probe(spec: str, variant: str) -> bool:
        obs, legal = positions(variant)[0]
        bot = make_bot(spec, seed=7)
        bot.choose(obs, legal)
        return ok(getattr(bot, attr))

    return probe


def threaded(base: str, attr: str, budget: int) -> Callable[[str, str], bool]:
    """Threads share out the budget exactly, without a clock the moves depend only on the
    seed, and they are not those of one thread (other generators)."""

    def probe(spec: str, variant: str) -> bool:
        for obs, legal in positions(variant)[:8]:
            bot = make_bot(spec, seed=7)
            move = bot.choose(obs, legal)
            assert move in legal and getattr(bot, attr) == budget
            assert make_bot(spec, seed=7).choose(obs, legal) == move
        return differs(base)(spec, variant)

    return probe


PIMC = "pimc:samples=16,time_ms=0"
ISMCTS = "ismcts:iterations=60,time_ms=0"
#: (bot, option, the spec that sets it, the probe that shows it honoured)
CASES: list[tuple[str, str, str, Callable[[str, str], bool]]] = [
    ("montecarlo", "simulations", "montecarlo:simulations=2", differs("montecarlo:simulations=60")),
    ("planner", "budget", "planner:budget=1", differs("planner")),
    ("pimc", "samples", "pimc:samples=3,time_ms=0", counted("last_samples", lambda n: n == 3)),
    (
        "pimc",
        "time_ms",
        "pimc:samples=100000000,time_ms=2",
        counted("last_samples", lambda n: n < 10**8),
    ),
    ("pimc", "policy", f"{PIMC},policy=random", differs(PIMC)),
    ("pimc", "exact", f"{PIMC},exact=28", differs(f"{PIMC},exact=0")),
    ("pimc", "threads", f"{PIMC},threads=2", threaded(PIMC, "last_samples", 16)),
    ("pimc", "infer", f"{PIMC},infer=3", differs(PIMC)),
    ("pimc", "gate", f"{PIMC},gate=5", differs(f"{PIMC},gate=0")),
    (
        "ismcts",
        "iterations",
        "ismcts:iterations=5,time_ms=0",
        counted("last_iterations", lambda n: n == 5),
    ),
    (
        "ismcts",
        "time_ms",
        "ismcts:iterations=100000000,time_ms=2",
        counted("last_iterations", lambda n: n < 10**8),
    ),
    ("ismcts", "policy", f"{ISMCTS},policy=random", differs(ISMCTS)),
    ("ismcts", "c", f"{ISMCTS},c=8", differs(ISMCTS)),
    ("ismcts", "threads", f"{ISMCTS},threads=2", threaded(ISMCTS, "last_iterations", 60)),
]


def weighted(name: str, value: float) -> Callable[[str, str], bool]:
    """The weight reaches the core: it is in the weights the bot passes to the kernel
    (whether it changes a decision depends on the position: ``partner`` needs partners,
    ``out`` a move that places two tiles, ``goat`` a score near Kozel's goat line;
    test_the_weights_change_decisions shows the others doing so)."""
    from bones.core.policy import FIELDS

    def probe(spec: str, variant: str) -> bool:
        bot = make_bot(spec)
        return bot.weights(variant)[FIELDS.index(name)] == value

    return probe


for _name in WEIGHTS:
    _value = -40 if _name in ("out", "closed", "goat") else 40
    for _bot, _base in (("expert", "expert"), ("pimc", PIMC), ("ismcts", ISMCTS)):
        _spec = f"{_bot}:{_name}={_value}" if _bot == "expert" else f"{_base},{_name}={_value}"
        CASES.append((_bot, _name, _spec, weighted(_name, _value)))

#: the weights that change some decision of the positions tried (the others need
#: positions those do not have: weighted() says which)
CHANGING = ("points", "reply", "heavy", "variety", "follow", "block", "double", "lone_zero")


def refused(bot: str, option: str, family: str) -> bool:
    if family == "chicken-foot" and option in NOT_IN_CHICKEN_FOOT:
        return True  # the planner's budget: Chicken Foot has no own train to plan
    return option in NOT_IN[TRAINS if family != "line" else LINE]


def assert_refused(spec: str, option: str, variant: str) -> None:
    words = FAMILY_NAMES[_family(variant).name]
    if variant == "chicken-foot" and option in NOT_IN_CHICKEN_FOOT:
        words = "does not apply to Chicken Foot"
    name = spec.partition(":")[0]
    with pytest.raises(bones.OptionError) as info:
        check_spec(spec, variant)  # bones match and bones play, before a game
    assert f"{name}: option {option!r}" in str(info.value) or f"option {option}=" in str(info.value)
    assert words in str(info.value)
    bot = make_bot(spec)  # made anywhere: the family is known at start_game
    with pytest.raises(bones.OptionError, match=option):
        bot.start_game(0, variant, 2, {})
    obs, legal = positions(variant)[0]
    with pytest.raises(bones.OptionError, match=option) as info:
        make_bot(spec).choose(obs, legal)  # an API user who never calls start_game
    assert words in str(info.value)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(
    ("bot", "option", "spec", "probe"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_an_option_works_or_is_refused(family, bot, option, spec, probe):
    variant = variant_of(family, option)
    if not bot_spec(bot).supports(variant):
        pytest.skip(f"{bot} does not play {variant}")
    if refused(bot, option, family):
        assert_refused(spec, option, variant)
    else:
        check_spec(spec, variant)
        assert probe(spec, variant), f"{spec} changes nothing in {variant}"


def test_every_option_of_every_built_in_bot_is_tried():
    tried = {(bot, option) for bot, option, _, _ in CASES}
    for name in bots():
        for option in bot_spec(name).options:
            assert (name, option) in tried, (name, option)


@pytest.mark.parametrize("name", CHANGING)
@pytest.mark.parametrize("base", ["expert", PIMC, ISMCTS])
def test_the_weights_change_decisions(base, name):
    variant = variant_of("line", name)
    spec = f"expert:{name}=40" if base == "expert" else f"{base},{name}=40"
    assert differs(base)(spec, variant), f"{spec} changes nothing in {variant}"


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("spec", ["pimc:policy=chain", "ismcts:policy=chain"])
def test_the_chain_policy_is_the_train_games_only(family, spec):
    variant = variant_of(family, "policy")
    if family == "line":
        assert_refused(spec, "policy", variant)
    else:
        check_spec(spec, variant)
        base = spec.replace(
            "policy=chain", "samples=8,time_ms=0" if "pimc" in spec else "iterations=40,time_ms=0"
        )
        if family == "mexican-train":  # chicken foot's chain is the planner's
            assert differs(base)(f"{base},policy=chain", variant)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_a_gate_needs_a_policy_with_a_move_of_its_own(family, policy):
    variant = variant_of(family, "gate")
    spec = f"pimc:policy={policy},gate=1"
    with pytest.raises(bones.OptionError, match="option 'gate' does not apply to policy") as info:
        check_spec(spec, variant)
    assert FAMILY_NAMES[_family(variant).name] in str(info.value)
    obs, legal = positions(variant)[0]
    with pytest.raises(bones.OptionError, match="gate"):
        make_bot(spec).choose(obs, legal)


def test_only_options_set_are_refused():
    """The defaults of the family-specific options are None: a bot made from the bare
    name, or through make_bot with every default filled in, plays every family."""
    for name in ("expert", "pimc", "ismcts", "planner"):
        for variant in ("straight", "mexican-train", "chicken-foot"):
            if bot_spec(name).supports(variant):
                check_spec(name, variant)
                bot = make_bot(name)
                bot.start_game(0, variant, 2, {})
    assert bones.make_bot("pimc").exact is None and bones.make_bot("pimc").gate is None


def test_a_bot_checks_again_when_the_family_changes():
    """One bot object may play a line game, then a train game: the check is per family."""
    line_obs, line_legal = positions("straight")[0]
    train_obs, train_legal = positions("mexican-train")[0]
    bot = make_bot("pimc:samples=4,time_ms=0,exact=3")
    assert bot.choose(line_obs, line_legal) in line_legal
    with pytest.raises(bones.OptionError, match="exact"):
        bot.choose(train_obs, train_legal)


@pytest.mark.parametrize(
    ("spec", "variant", "message"),
    [
        ("pimc:exact=4", "mexican-train", "pimc: option 'exact' does not apply to the train games"),
        (
            "expert:heavy=2",
            "chicken-foot",
            "expert: option 'heavy' does not apply to the train games",
        ),
        (
            "ismcts:policy=chain",
            "straight",
            "ismcts: option policy=chain does not apply to the line games",
        ),
    ],
)
def test_bones_match_refuses_before_the_match(tmp_path, capsys, spec, variant, message):
    journal = tmp_path / "m.jsonl"
    code = main(
        ["match", spec, "random", "--variant", variant, "--games", "1", "--journal", str(journal)]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert message in err, err
    assert not journal.exists()


def test_bones_play_refuses_a_seat_before_the_game(capsys):
    code = main(["play", "--variant", "mexican-train", "--seats", "human,pimc:exact=2"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "seat 1: pimc: option 'exact' does not apply to the train games" in err, err


@pytest.mark.parametrize(
    ("line", "train"),
    [
        ("bones.core.search.pimc", "bones.core.trainsearch.pimc"),
        ("bones.core.search.choose", "bones.core.trainsearch.choose"),
        ("bones.core.ismcts.choose", "bones.core.trainismcts.choose"),
        ("bones.core.policy.choose", "bones.core.trainpolicy.choose"),
    ],
)
def test_the_kernels_of_both_families_take_the_same_arguments(line, train):
    """Same names, order, kinds and defaults; the .pyi stubs say the same."""
    import importlib

    def params(path: str) -> list[tuple[str, object, object]]:
        module, _, name = path.rpartition(".")
        fn = getattr(importlib.import_module(module), name)
        sig = inspect.signature(fn)
        return [(p.name, p.kind, p.default) for p in sig.parameters.values()]

    assert params(line) == params(train)
    first = params(line)[:2]
    assert [p[0] for p in first] == ["observation", "legal_moves"]
    assert all(p[1] is inspect.Parameter.KEYWORD_ONLY for p in params(line)[2:])


def test_the_kernels_refuse_what_does_not_apply():
    from bones.core import policy, search, trainismcts, trainpolicy, trainsearch

    obs, legal = positions("mexican-train")[0]
    with pytest.raises(ValueError, match="exact"):
        trainsearch.pimc(obs, legal, samples=2, time_ms=0, exact=4)
    with pytest.raises(ValueError, match="weights"):
        trainsearch.pimc(obs, legal, samples=2, time_ms=0, weights=(1.0,) * 13)
    with pytest.raises(ValueError, match="weights"):
        trainismcts.choose(obs, legal, iterations=2, time_ms=0, weights=(1.0,) * 13)
    with pytest.raises(ValueError, match="weights"):
        trainpolicy.choose(obs, legal, weights=(1.0,) * 13)
    obs, legal = positions("straight")[0]
    with pytest.raises(ValueError, match="budget"):
        policy.choose(obs, legal, weights=(1.0,) * 13, budget=5)
    with pytest.raises(ValueError, match="weights"):
        search.pimc(obs, legal, samples=2, time_ms=0)  # the expert policy needs them
    move, _, used = search.pimc(obs, legal, samples=2, time_ms=0, policy="greedy")
    assert move in legal and used == 2


def test_pimc_threads_in_mexican_train_are_deterministic_and_legal():
    """``pimc:threads=2`` runs two threads in Mexican Train as in the line games: the
    samples shared out exactly, the moves legal and, with time_ms=0, fixed by the seed."""
    from bones.core.trainsearch import pimc

    for obs, legal in positions("mexican-train")[:10]:
        a = pimc(obs, legal, samples=9, time_ms=0, seed=3, threads=2)
        b = pimc(obs, legal, samples=9, time_ms=0, seed=3, threads=2)
        assert a == b and a[0] in legal and a[2] == 9
        one = pimc(obs, legal, samples=9, time_ms=0, seed=3, threads=1)
        assert one[1] != a[1]  # the next decision draws other threads' generators


def test_a_served_bots_hello_leaves_out_the_variants_that_refuse_its_options():
    """``bones serve-bot pimc:exact=4`` plays the line games only: its hello says so, so
    that ``bones match`` refuses a train game before it starts (runner.check_external)."""
    from bones.protocol.server import _hello

    assert _hello("pimc")["variants"] is None  # every variant, as before
    listed = _hello("pimc:exact=4")["variants"]
    assert "straight" in listed and "kozel" in listed
    assert "mexican-train" not in listed and "chicken-foot" not in listed
    assert "chicken-foot" not in _hello("planner:budget=5")["variants"]
    assert "chicken-foot" in _hello("planner")["variants"]


def test_start_game_leaves_a_variant_it_does_not_know_to_the_first_decision():
    """A served bot may be told a variant registered only in the runner's process."""
    bot = make_bot("pimc:exact=3")
    bot.start_game(0, "no-such-variant", 2, {})
    obs, legal = positions("mexican-train")[0]
    with pytest.raises(bones.OptionError, match="exact"):
        bot.choose(obs, legal)


@pytest.mark.parametrize(
    ("spec", "refused_"),
    [
        ("ismcts:policy=greedy,heavy=2", True),
        ("ismcts:policy=random,points=2", True),
        ("ismcts:policy=expert,heavy=2", False),
        ("pimc:policy=greedy,infer=0,heavy=2", True),
        ("pimc:policy=greedy,heavy=2", False),  # the default belief model reads them
        ("pimc:policy=random,infer=0.5,heavy=2", False),
        ("expert:heavy=2", False),
    ],
)
def test_weights_are_refused_where_nothing_reads_them(spec, refused_):
    """In the line games the weights are read by the expert policy and pimc's belief
    model: under another policy and infer=0 they would do nothing."""
    if refused_:
        with pytest.raises(bones.OptionError, match="does not apply to policy"):
            check_spec(spec, "straight")
    else:
        check_spec(spec, "straight")
        name = spec.rpartition(",")[2].partition("=")[0].rpartition(":")[2]
        assert weighted(name, 2)(spec, "straight")
