"""Faults of external bots, with real misbehaving processes (tests/protocol_bots/): each
is an ExternalBotError of the right kind, the process is gone afterwards, and the next
game works after restart().  And the frame reader and the answer checks under fuzzing:
only ProtocolError (or a fault of the right kind)."""

from __future__ import annotations

import io
import os
import struct
import sys
import time
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bones
from bones.bot import make_bot, play_round
from bones.protocol import ExternalBot, ExternalBotError, FrameReader, ProtocolError, read_frame
from bones.protocol.client import Fault, _parse_hello, answer_move

HERE = Path(__file__).resolve().parent
MISBEHAVE = HERE / "protocol_bots" / "misbehave.py"


def play_game(bots, seed=0):
    game = bones.new_game("straight", len(bots), seed)
    for seat, bot in enumerate(bots):
        bot.start_game(seat, "straight", len(bots), {})
    while True:
        play_round(game.round, bots)
        if game.next_round() is None:
            break
    for bot in bots:
        bot.end_game(tuple(game.scores), tuple(game.winners))
    return game


def gone(pid: int | None) -> bool:
    """Whether process ``pid`` is gone (a zombie left to init counts as gone)."""
    assert pid is not None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def mode(tmp_path):
    """Set the misbehaviour of the next process started: ``mode("hang")``."""
    path = tmp_path / "mode"

    def set_mode(name: str) -> list[str]:
        path.write_text(name)
        return [sys.executable, str(MISBEHAVE), str(path)]

    return set_mode


MID_GAME = [
    ("crash", "crash", "closed its stdout while waiting for its move (request 3)"),
    ("exit_early", "crash", "closed its stdout"),
    ("hang", "timeout", "no answer: waiting for its move (request 3): nothing within 0.5 s"),
    ("garbage", "bad_frame", "oversized frame"),
    ("bad_msgpack", "bad_frame", "bad msgpack"),
    ("not_a_map", "bad_frame", "must be a msgpack map; got an array"),
    ("zero_length", "bad_frame", "bad length"),
    ("truncated", "crash", "in the middle of a frame"),
    ("wrong_type", "bad_frame", "'index' must be an int; got 'x'"),
    ("wrong_id", "bad_frame", "answers request id"),
    ("no_move", "bad_frame", "exactly one of 'index' and 'move'"),
    ("unknown_type", "bad_frame", "type 'thinking'"),
    ("oversized", "bad_frame", "2147483648 bytes, the limit is"),
    ("illegal_index", "illegal", "out of range"),
    ("half_stall", "timeout", "no answer: waiting for its move (request 3): nothing within 0.5 s"),
    ("trickle", "timeout", "no answer: waiting for its move (request 3): nothing within 0.5 s"),
    ("pong_flood", "timeout", "no answer: waiting for its move (request 3): nothing within 0.5 s"),
    ("illegal_move", "illegal", "'6-6@Q' is not legal"),
]


@pytest.mark.parametrize(("name", "kind", "text"), MID_GAME, ids=[m[0] for m in MID_GAME])
def test_a_fault_in_a_game_is_the_right_bot_error_and_the_next_game_works(mode, name, kind, text):
    # only the timeouts wait for their deadline
    quick = 0.5 if name in ("hang", "half_stall", "trickle", "pong_flood") else 30.0
    bot = ExternalBot(mode(name), move_time=quick)
    try:
        pid = bot.pid
        with pytest.raises(ExternalBotError) as info:
            play_game([bot, make_bot("greedy")], seed=1)
        error = info.value
        assert error.kind == kind
        assert text in error.message
        assert error.seat == 0 and f"misbehave-{name}" in error.message
        assert bot.fault is error and not bot.alive
        assert gone(pid)
        if name == "crash":  # the traceback's end is in the message
            assert "RuntimeError: misbehave: boom in choose" in error.message
            assert "status 1" in error.message
        mode("good")
        bot.move_time = 30.0
        bot.restart()
        play_game([bot, make_bot("greedy")], seed=1)
        assert bot.alive and bot.fault is None
    finally:
        pid = bot.pid
        bot.close()
        if pid is not None:
            assert gone(pid)


def test_a_bot_that_does_not_read_its_input_times_out_on_writes(mode):
    from bones.records import Event

    bot = ExternalBot(mode("deaf"), move_time=0.5, hook_time=0.5)
    pid = bot.pid
    bot.start_game(0, "straight", 2, {})
    event = Event("play", 1, bones.Move.parse("6-4@W"), 10, 10)
    with pytest.raises(ExternalBotError) as info:
        for _ in range(100_000):  # about 5 MB of frames: far more than a pipe holds
            bot.observe(event)
    assert info.value.kind == "timeout"
    assert "did not read its input" in info.value.message
    assert gone(pid)
    mode("good")
    bot.move_time = bot.hook_time = 30.0
    bot.restart()
    try:
        play_game([bot, make_bot("greedy")])
    finally:
        bot.close()


HANDSHAKE = [
    ("hang_handshake", "timeout", "its hello (the handshake)"),
    ("exit_in_handshake", "crash", "status 3"),
    ("bad_hello", "bad_frame", "handshake failed: hello: 'name' must be a string"),
    ("old_protocol", "bad_frame", "speaks protocol 99"),
]


@pytest.mark.parametrize(("name", "kind", "text"), HANDSHAKE, ids=[m[0] for m in HANDSHAKE])
def test_a_failed_handshake_raises_before_any_game(mode, name, kind, text):
    bot = ExternalBot(
        mode(name), handshake_time=0.5 if name == "hang_handshake" else 30.0, start=False
    )
    with pytest.raises(ExternalBotError) as info:
        bot.start()
    assert info.value.kind == kind and text in info.value.message
    assert "handshake" in info.value.message or kind == "crash"
    assert not bot.alive and bot.pid is None
    mode("good")
    bot.handshake_time = 30.0
    bot.restart()
    try:
        play_game([bot, make_bot("random")])
    finally:
        bot.close()


def test_a_bot_that_floods_stderr_never_blocks_and_its_log_is_bounded(mode, tmp_path):
    log = tmp_path / "flood.log"
    bot = ExternalBot(mode("flood_stderr"), stderr_limit=10_000, log=log, log_limit=100_000)
    try:
        game = play_game([bot, make_bot("greedy")], seed=2)
        assert game.is_over
        assert len(bot.stderr_text()) <= 10_000
    finally:
        bot.close()
    text = log.read_bytes()
    assert 100_000 <= len(text) < 100_200 and text.endswith(b"is not logged]\n")


def test_the_children_of_a_bot_die_with_it(tmp_path):
    pidfile = tmp_path / "child.pid"
    example = HERE.parent / "examples" / "python" / "random_bot.py"
    script = f'sleep 60 & echo $! > "{pidfile}"; exec "{sys.executable}" "{example}"'
    for fault in (False, True):
        bot = ExternalBot(["sh", "-c", script], move_time=0.5)
        child = int(pidfile.read_text())
        assert not gone(child)
        if fault:  # a fault kills the process group too
            with pytest.raises(ExternalBotError):
                bot._fail("timeout", "a test")
        else:
            bot.close()
        deadline = time.monotonic() + 5
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gone(child)


RAISING_BOT = """
import bones
from bones.protocol.server import private_stdout, serve


class Raising(bones.Bot):
    name = "raising"

    def choose(self, observation, legal_moves):
        raise ValueError("raising: no idea")


raise SystemExit(serve(Raising(), 0, private_stdout()))
"""


def test_a_served_bot_whose_hook_raises_is_a_crash_with_its_traceback():
    bot = ExternalBot([sys.executable, "-c", RAISING_BOT])
    assert bot.info is not None and bot.info.name == "raising"
    pid = bot.pid
    with pytest.raises(ExternalBotError) as info:
        play_game([bot, make_bot("greedy")])
    assert info.value.kind == "crash"
    assert "ValueError: raising: no idea" in info.value.message
    assert "status 1" in info.value.message
    assert gone(pid)


def test_a_bot_answering_by_move_text_with_unknown_fields_is_fine(mode):
    with ExternalBot(mode("by_text")) as bot:
        assert bot.info is not None and bot.info.name == "misbehave-by_text"
        play_game([bot, make_bot("greedy")], seed=3)
        assert bot.ping() >= 0


@pytest.mark.parametrize("name", ["split", "two_frames"])
def test_answers_split_in_many_writes_or_sharing_a_write_are_read_whole(mode, name):
    class First(bones.Bot):  # what these modes play: the first legal move
        def choose(self, observation, legal_moves):
            return legal_moves[0]

    with ExternalBot(mode(name), move_time=30.0) as bot:
        game = play_game([bot, make_bot("greedy")], seed=2)
        assert bot.alive and bot.fault is None
        assert bot._request > 10
    reference = play_game([First(), make_bot("greedy")], seed=2)
    assert game.round.to_msgpack() == reference.round.to_msgpack()
    assert game.scores == reference.scores


def test_a_late_pong_before_a_move_is_ignored(mode):
    with ExternalBot(mode("good")) as bot:
        bot._send({"type": "ping", "id": 99})  # answered while the runner waits for a move
        play_game([bot, make_bot("greedy")], seed=3)


# ---------------------------------------------------------------------------------------
# Fuzzing: only ProtocolError (or a Fault of a documented kind)


FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=6,
)
fields = (
    scalars
    | st.lists(scalars, max_size=3)
    | st.dictionaries(st.text(max_size=4), scalars, max_size=3)
)
messages = st.dictionaries(
    st.sampled_from(["type", "id", "index", "move", "name", "protocol", "variants", "options",
                     "author", "version", "x"]),
    fields,
    max_size=6,
)  # fmt: skip


@FUZZ
@given(st.binary(max_size=64))
def test_random_bytes_give_messages_or_protocol_errors_only(data):
    try:
        message = read_frame(io.BytesIO(data), max_size=1000)
    except ProtocolError:
        return
    assert message is None or isinstance(message, dict)
    reader = FrameReader(max_size=1000)
    reader.feed(data)
    try:
        list(reader.messages())
    except ProtocolError:
        pass


@FUZZ
@given(values, st.binary(max_size=8))
def test_well_formed_frames_of_any_value_give_maps_or_protocol_errors(value, tail):
    try:
        body = msgpack.packb(value, use_bin_type=True)
    except (ValueError, OverflowError):
        return
    for data in (struct.pack(">I", len(body)) + body, struct.pack(">I", len(body)) + body + tail):
        try:
            message = read_frame(io.BytesIO(data))
        except ProtocolError:
            continue
        assert isinstance(message, dict)
        assert all(isinstance(k, str) for k in message)


LEGAL = tuple(bones.Move.parse(m) for m in ("6-4@W", "6-4@E", "3-3@W", "draw"))


@FUZZ
@given(messages)
def test_wrong_messages_are_faults_of_a_documented_kind(message):
    message = {**message, "type": "move"}
    try:
        move = answer_move(message, 1, LEGAL)
    except Fault as exc:
        assert exc.kind in ("bad_frame", "illegal")
    else:
        assert type(move) is bones.Move and move in LEGAL
    try:
        info = _parse_hello({**message, "type": "hello"})
    except ProtocolError:
        pass
    else:
        assert isinstance(info.name, str)


_HELLO_BODY = msgpack.packb({"type": "hello", "name": "fuzz"})
HELLO = struct.pack(">I", len(_HELLO_BODY)) + _HELLO_BODY


def _printf_bot(data: bytes) -> list[str]:
    """A bot process that says hello, then writes ``data`` and sleeps (sh and printf:
    starts in a millisecond or two)."""
    octal = "".join(f"\\{b:03o}" for b in HELLO + data)
    return ["sh", "-c", 'printf "$1"; exec sleep 2', "sh", octal]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.binary(max_size=40)
    | messages.map(lambda m: {**m, "type": "move"}).map(
        lambda m: struct.pack(">I", len(b := msgpack.packb(m))) + b
    )
)
def test_whatever_a_bot_answers_is_a_legal_move_or_a_documented_fault(data):
    bot = ExternalBot(_printf_bot(data), move_time=0.1)
    rnd = bones.Round.deal("straight", players=2, seed=0)
    observation = rnd.observation(rnd.to_move)
    try:
        move = bot.choose(observation, observation.legal_moves)
    except ExternalBotError as exc:
        assert exc.kind in ("crash", "timeout", "bad_frame", "illegal")
        assert bot.pid is None
    else:
        assert type(move) is bones.Move and move in observation.legal_moves
    finally:
        bot.close(grace=0.0)


def test_answer_move_examples():
    assert answer_move({"id": 4, "index": 2}, 4, LEGAL) is LEGAL[2]
    assert answer_move({"id": 4, "move": "4-6@E"}, 4, LEGAL) is LEGAL[1]  # any spelling
    for message, kind in (
        ({"id": 4, "index": True}, "bad_frame"),
        ({"id": 4, "index": 1.0}, "bad_frame"),
        ({"id": True, "index": 1}, "bad_frame"),
        ({"id": 4, "index": 1, "move": "draw"}, "bad_frame"),
        ({"id": 4, "move": b"draw"}, "bad_frame"),
        ({"id": 4, "index": -1}, "illegal"),
        ({"id": 4, "move": "pass"}, "illegal"),
        ({"id": 4, "move": "nonsense"}, "illegal"),
    ):
        with pytest.raises(Fault) as info:
            answer_move(message, 4, LEGAL)
        assert info.value.kind == kind, message
