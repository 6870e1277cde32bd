"""Train games over the bones-bot protocol (docs/protocol.md, "The train observation",
"Train move text"): the strict decoder of ``TrainObservation.from_msgpack`` under fuzzing,
and bots that misbehave in a train game — each its own forfeit with a clear message, the
match going on with its table right."""

from __future__ import annotations

import json
import os
import random
import shlex
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

import bones
from bones.bot import make_bot, play_round
from bones.match.runner import MatchConfig, run_match
from bones.observation import TrainObservation
from bones.protocol import ExternalBot, ExternalBotError, ProtocolError
from bones.protocol.server import decode_observation
from bones.trains_records import TRAIN_OBSERVATION_FIELDS

HERE = Path(__file__).parent
ROOT = HERE.parent
TRAIN_BOT = HERE / "protocol_bots" / "train_misbehave.py"
RANDOM = [sys.executable, str(ROOT / "examples" / "python" / "random_bot.py")]
MINIMAL = [sys.executable, str(ROOT / "examples" / "python" / "minimal_bot.py")]
SECRET = "5e" * 32


def observations(variant: str, players: int, seed: int, **options) -> list[TrainObservation]:
    """Every seat's observation at every step of a round played by its first legal moves."""
    rnd = bones.Round.deal(variant, players=players, seed=seed, **options)
    out = []
    while True:
        out += [rnd.observation(s) for s in range(players)]
        if rnd.is_over:
            return out
        rnd.play(rnd.legal_moves[len(rnd.legal_moves) // 2])


@pytest.fixture(scope="module")
def sample() -> list[TrainObservation]:
    return (
        observations("mexican-train", 4, 1)
        + observations("chicken-foot", 3, 2)
        + observations("mexican-train", 8, 3, first_turn_own_train=True)
        + observations("chicken-foot", 2, 4, set="double-6", engine_toes=4)
    )


# -- the decoder ------------------------------------------------------------------------


def test_every_observation_round_trips(sample):
    assert len(sample) > 500
    kinds = set()
    for obs in sample:
        data = obs.to_msgpack()
        back = TrainObservation.from_msgpack(data)
        assert back == obs and back.to_msgpack() == data
        assert decode_observation(data) == obs  # what a served bot gets
        kinds.update(e[0] for e in obs.log)
    assert kinds == {"place", "draw", "pass"}
    assert any(o.result is not None for o in sample) and any(o.pending for o in sample)


def _decodes_or_refuses(data: bytes) -> TrainObservation | None:
    """from_msgpack's answer: a ValueError (None here) or an observation that re-encodes
    to exactly ``data``'s meaning; never another exception."""
    try:
        obs = TrainObservation.from_msgpack(data)
    except ValueError as exc:
        assert str(exc), "an empty message"
        return None
    again = TrainObservation.from_msgpack(obs.to_msgpack())
    assert again == obs
    return obs


def test_random_bytes_are_refused_cleanly():
    rng = random.Random(7)
    for _ in range(3000):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
        _decodes_or_refuses(data)
        # behind a train observation's header, a served bot's decoder refuses it too
        head = b"\xdc\x00\x16\x01" + msgpack.packb("train_observation")
        with pytest.raises(ProtocolError, match="train observation"):
            decode_observation(head + data)


def test_truncated_and_flipped_real_observations(sample):
    rng = random.Random(11)
    refused = 0
    for obs in rng.sample(sample, 40):
        data = obs.to_msgpack()
        for cut in range(len(data)):  # every prefix is truncated
            with pytest.raises(ValueError):
                TrainObservation.from_msgpack(data[:cut])
        for _ in range(50):
            flipped = bytearray(data)
            flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            refused += _decodes_or_refuses(bytes(flipped)) is None
    assert refused > 1000  # most flips break a type, a range or a consistency rule


BAD_VALUES = [None, True, False, -1, 13, 2**64 - 1, -(2**63), 1.5, "x" * 60, "", b"x", [], {}]


def test_every_field_with_a_wrong_value_is_refused_or_consistent(sample):
    names = ["version", "kind", *TRAIN_OBSERVATION_FIELDS]
    refused = {name: 0 for name in names}
    for obs in sample[::37]:
        items = msgpack.unpackb(obs.to_msgpack())
        for i, name in enumerate(names):
            for bad in BAD_VALUES + [[bad] for bad in BAD_VALUES] + [[[bad]] for bad in BAD_VALUES]:
                changed = [*items[:i], bad, *items[i + 1 :]]
                if _decodes_or_refuses(msgpack.packb(changed)) is None:
                    refused[name] += 1
    assert all(refused.values()), [n for n, c in refused.items() if not c]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("hand", ["1-0"] * 2, "hand holds a tile twice"),
        ("hand", ["13-1"], "not a tile of the double"),
        ("hand", ["1-2"], "not a tile of the double"),  # the higher half first
        ("hand", ["1-0"] * 200, "items: at most"),
        ("log", [["pass", 0, None, None]] * 5000, "exceeds max_array_len"),
        ("players", 9, "players must be 2 to 8"),
        ("set_max", 7, "set_max must be 6, 9 or 12"),
        ("engine", 13, "engine must be 0 to"),
        ("layout", "snake", "layout must be"),
        ("pending", "P9", "is not M or P0"),
        ("trains", [[0, 0, 1]] * 5, "public flag must be a bool"),
        ("zero_double", 7, "zero_double must be 0 or 50"),
        ("engine_toes", 6, "engine_toes must be 4 or 6"),  # 6 only in chicken_foot
        ("first_turn_own_train", 1, "first_turn_own_train must be a bool"),
        ("legal_moves", ["6-4@W"], "'W' is not M or P0"),
        ("legal_moves", ["13-5@M"], "not a tile of the double-12 set"),
        ("legal_moves", ["12-5@M!"], "is not M or P"),
        ("stock_size", 91, "more than the set"),
    ],
)
def test_named_corruptions_say_what_is_wrong(field, value, message):
    rnd = bones.Round.deal("mexican-train", players=4, seed=5)
    data = rnd.observation(rnd.to_move).to_msgpack()
    items = msgpack.unpackb(data)
    items[2 + TRAIN_OBSERVATION_FIELDS.index(field)] = value
    with pytest.raises(ValueError, match=message):
        TrainObservation.from_msgpack(msgpack.packb(items))


def test_a_log_that_shows_another_seats_draw_is_refused():
    rnd = bones.Round.deal("mexican-train", players=3, seed=4, set="double-6", hand_size={3: 5})
    for _ in range(4):
        rnd.play(rnd.legal_moves[0])
    items = msgpack.unpackb(rnd.observation(0).to_msgpack(), strict_map_key=False)
    log = items[2 + TRAIN_OBSERVATION_FIELDS.index("log")]
    assert log[1] == ["draw", 2, None, None]
    log[1] = ["draw", 2, "5-5", None]  # seat 2's draw, which seat 0 never sees
    with pytest.raises(ValueError, match="never sees"):
        TrainObservation.from_msgpack(msgpack.packb(items))


def test_oversized_and_nested_inputs_are_refused():
    for data in (
        b"\x91" * 100_000 + b"\xc0",  # nesting far beyond any msgpack limit
        msgpack.packb([1, "train_observation", "x" * 200_000]),
        msgpack.packb([1, "train_observation", *range(20), {"a": 1}]),
        b"\xdd\xff\xff\xff\xff",  # an array of 4 billion items, announced
        b"",
        msgpack.packb({"kind": "train_observation"}),
    ):
        with pytest.raises(ValueError):
            TrainObservation.from_msgpack(data)
    with pytest.raises(ValueError, match="bytes"):
        TrainObservation.from_msgpack("not bytes")  # type: ignore[arg-type]


def test_a_double_six_decoder_refuses_a_train_observation_and_back():
    rnd = bones.Round.deal("mexican-train", players=2, seed=1)
    train = rnd.observation(0).to_msgpack()
    with pytest.raises(ValueError, match="a train game's observation"):
        bones.observation.Observation.from_msgpack(train)  # the line family's own class
    six = bones.Round.deal("straight", players=2, seed=1).observation(0).to_msgpack()
    with pytest.raises(ValueError, match="train_observation"):
        TrainObservation.from_msgpack(six)


# -- bots in train games ------------------------------------------------------------------


def _play_game(bots, variant="mexican-train", seed=3, **options):
    players = len(bots)
    game = bones.new_game(variant, players, seed, **options)
    for seat, bot in enumerate(bots):
        bot.start_game(seat, variant, players, dict(options))
    while True:
        play_round(game.round, bots)
        if game.next_round() is None:
            break
    for bot in bots:
        bot.end_game(tuple(game.scores), tuple(game.winners))
    return game


@pytest.mark.parametrize("command", [RANDOM, MINIMAL, [sys.executable, str(TRAIN_BOT), "good"]])
@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [("mexican-train", 4, {"set": "double-6"}), ("chicken-foot", 3, {"set": "double-6"})],
)
def test_example_bots_play_whole_train_games(command, variant, players, options):
    with ExternalBot(command, seed=9) as ext:
        bots = [ext] + [make_bot("greedy") for _ in range(players - 1)]
        game = _play_game(bots, variant, **options)
        assert game.is_over and len(game.scores) == players and ext.fault is None


RECORDER = """
import sys
from bones.bot import Bot
from bones.core.trains import TrainMove
from bones.protocol.server import private_stdout, serve


class Recorder(Bot):
    name = "recorder"

    def __init__(self, out):
        super().__init__(0)
        self.out = out

    def start_round(self, observation):
        print(repr(("start", observation)), file=self.out, flush=True)

    def observe(self, event):
        print(repr(("event", event)), file=self.out, flush=True)

    def choose(self, observation, legal_moves):
        assert all(type(m) is TrainMove for m in legal_moves)
        assert legal_moves is observation.legal_moves
        assert all(type(t) is type(legal_moves[0].tile) for t in observation.hand)
        print(repr(("choose", observation, legal_moves)), file=self.out, flush=True)
        return legal_moves[-1]

    def end_round(self, result, observation):
        print(repr(("end", result, observation)), file=self.out, flush=True)


if __name__ == "__main__":
    frames = private_stdout()
    with open(sys.argv[1], "w") as out:
        sys.exit(serve(Recorder(out), 0, frames))
"""


def test_a_served_bot_sees_what_it_sees_in_process(tmp_path):
    """Over the protocol a bot gets the observations, TrainMoves, events and results it
    gets in process: a recorder served by bones.protocol.serve in a child process and the
    same recorder in process write the same lines."""
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    namespace: dict = {"__name__": "recorder"}
    exec(compile(RECORDER, "recorder.py", "exec"), namespace)
    here = tmp_path / "here.txt"
    with open(here, "w") as out:
        _play_game([namespace["Recorder"](out), make_bot("greedy")], "chicken-foot", set="double-6")
    there = tmp_path / "there.txt"
    with ExternalBot([sys.executable, str(script), str(there)]) as ext:
        _play_game([ext, make_bot("greedy")], "chicken-foot", set="double-6")
        ext.ping()
    lines = here.read_text().splitlines()
    assert there.read_text().splitlines() == lines
    kinds = [line.split("'")[1] for line in lines]
    assert kinds.count("choose") > 5 and kinds.count("end") == 7 and "event" in kinds
    assert "TrainResult(" in here.read_text() and "TrainMove.parse(" in here.read_text()


@pytest.mark.parametrize(
    ("mode", "kind", "text"),
    [
        ("six", "illegal", "the move '6-4@W' is not legal; legal: "),
        ("not_held", "illegal", "is not legal; legal: "),
        ("private", "illegal", "is not legal; legal: "),
        ("index", "illegal", "index 999 is out of range"),
        ("wrong_type", "bad_frame", "'move' must be a string; got 7"),
    ],
)
def test_a_misbehaving_bot_forfeits_with_a_clear_message(mode, kind, text):
    with ExternalBot([sys.executable, str(TRAIN_BOT), mode], move_time=5) as ext:
        bots = [ext, make_bot("greedy"), make_bot("greedy")]
        with pytest.raises(ExternalBotError) as info:
            _play_game(bots, "mexican-train", set="double-6")
    assert info.value.kind == kind and info.value.seat == 0
    assert text in info.value.message and f"train-misbehave-{mode}" in info.value.message


@pytest.mark.parametrize(("mode", "reason"), [("six", "illegal"), ("private", "illegal")])
def test_in_a_match_the_fault_is_the_bots_forfeit_and_the_table_is_right(tmp_path, mode, reason):
    spec = "cmd:" + shlex.join([sys.executable, str(TRAIN_BOT), mode])
    path = tmp_path / "m.jsonl"
    config = MatchConfig(
        seed=1,
        bots=(spec, "greedy"),
        variant="mexican-train",
        players=2,
        games=2,
        secret=SECRET,
        options={"set": "double-6"},
    )
    summary = run_match(config, path, jobs=1, progress=False)
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    games = [r for r in recs if r.get("type") == "game"]
    assert summary["played"] == 2 and len(games) == 2
    for rec in games:
        forfeit = rec["forfeit"]
        assert forfeit["reason"] == reason and forfeit["seat"] == rec["seats"].index(spec)
        assert (
            "is not legal" in forfeit["detail"] and f"train-misbehave-{mode}" in forfeit["detail"]
        )
        assert rec["losers"] == [forfeit["side"]]
    bots = {b["spec"]: b for b in summary["bots"]}
    assert bots[spec]["forfeits"] == {reason: 2}
    assert bots["greedy"]["points"] == 2 and bots[spec]["points"] == 0


def test_isolated_builtin_bots_play_the_same_train_games(tmp_path):
    def run(name, isolate):
        path = tmp_path / name
        config = MatchConfig(
            seed=1,
            bots=("greedy", "random"),
            variant="chicken-foot",
            players=3,
            games=2,
            secret=SECRET,
            isolate=isolate,
            options={"set": "double-6"},
        )
        run_match(config, path, jobs=1, progress=False)
        recs = [json.loads(line) for line in path.read_text().splitlines()]
        return [
            (r["id"], r["rounds"], r["scores"], r["forfeit"])
            for r in recs
            if r.get("type") == "game"
        ]

    plain, isolated = run("plain.jsonl", False), run("isolated.jsonl", True)
    assert plain == isolated and all(r[3] is None and r[1] for r in plain)


def test_a_served_bot_lists_the_variants_of_its_families(tmp_path):
    """A bot whose BotSpec leaves out the train families says so in its hello; one that
    plays every family (every built-in bot) says nil."""
    plugin = tmp_path / "six_only_bot.py"
    plugin.write_text(
        "import bones\n"
        "from bones.plugins import hookimpl\n"
        "from bones.plugins.builtin_bots import RandomBot\n"
        "from bones.variant import DOUBLE_SIX_BASES\n"
        "@hookimpl\n"
        "def register_bots(register):\n"
        "    register(bones.BotSpec('six-only', RandomBot, 'x', bases=DOUBLE_SIX_BASES))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    hellos = {}
    for spec, extra in (("expert", []), ("six-only", ["--plugin", "six_only_bot"])):
        proc = subprocess.run(
            [sys.executable, "-m", "bones.protocol.server", *extra, spec],
            input=_frame({"type": "hello", "protocol": 1}) + _frame({"type": "quit"}),
            capture_output=True,
            timeout=60,
            env=env,
        )
        hellos[spec] = msgpack.unpackb(proc.stdout[4:], raw=False)
    assert hellos["expert"]["variants"] is None
    six = hellos["six-only"]["variants"]
    assert "straight" in six and "mexican-train" not in six and "chicken-foot" not in six


def test_the_cli_match_of_the_example_bot_on_mexican_train(tmp_path, capsys):
    from bones.cli import main

    spec = "cmd:" + shlex.join(RANDOM)
    path = tmp_path / "cli.jsonl"
    args = ["match", "--seed", "1", spec, "greedy", "--variant", "mexican-train", "--players", "4"]
    assert main([*args, "--games", "2", "--journal", str(path), "-o", "set=double-6"]) == 0
    out = capsys.readouterr().out
    assert "Forfeits" not in out and "example-random" in out


def test_a_served_bot_refuses_a_corrupt_train_observation_with_status_3():
    rnd = bones.Round.deal("mexican-train", players=2, seed=1)
    items = msgpack.unpackb(rnd.observation(rnd.to_move).to_msgpack())
    items[2 + TRAIN_OBSERVATION_FIELDS.index("hand")] = ["99-1"]
    request = {"type": "move_request", "id": 1, "observation": msgpack.packb(items),
               "legal": items[2 + TRAIN_OBSERVATION_FIELDS.index("legal_moves")]}  # fmt: skip
    start = {"type": "game_start", "variant": "mexican-train", "options": {}, "players": 2,
             "seat": rnd.to_move, "side": rnd.to_move, "sides": [[0], [1]], "seed": 1}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "bones.protocol.server", "greedy"],
        input=_frame({"type": "hello", "protocol": 1}) + _frame(start) + _frame(request),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 3
    assert "corrupt bones train observation: hand: '99-1' is not a tile" in proc.stderr.decode()


def _frame(message) -> bytes:
    body = msgpack.packb(message, use_bin_type=True)
    return len(body).to_bytes(4, "big") + body


def test_the_c_example_says_every_variant_and_plays_a_train_game(tmp_path):
    """The C example's hello says nil (every variant): it plays by index, so it plays
    the train games too, without reading their observation."""
    from test_protocol import _build_c_bot

    binary = _build_c_bot(tmp_path)
    with ExternalBot([str(binary), "3"]) as ext:
        assert ext.info is not None and ext.info.variants is None
        bots = [ext, make_bot("greedy"), make_bot("random")]
        game = _play_game(bots, "chicken-foot", set="double-6")
        assert game.is_over and ext.fault is None
