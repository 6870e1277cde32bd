"""The bones-bot protocol (docs/protocol.md): frames, the server and ExternalBot playing
the same games as in process, the example bots in Python and C, and the byte dumps of
docs/protocol.md."""

from __future__ import annotations

import io
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

import bones
from bones.bot import BotError, make_bot, play_round
from bones.protocol import (
    ExternalBot,
    ExternalBotError,
    FrameReader,
    ProtocolError,
    decode_body,
    read_frame,
    write_frame,
)
from bones.protocol.client import ObservationEncoder, encode_observation
from bones.protocol.server import decode_observation
from bones.variant import DOUBLE_SIX_BASES

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, "-m", "bones.protocol.server"]
PY_EXAMPLE = [sys.executable, str(ROOT / "examples" / "python" / "random_bot.py")]


def play_game(bots, variant="straight", players=2, seed=0, **options):
    """A whole game with ``bots`` (one per seat), hooks in the runner's order; the
    game's moves, round by round."""
    game = bones.new_game(variant, players, seed, **options)
    for seat, bot in enumerate(bots):
        bot.start_game(seat, game.variant, players, dict(options))
    moves = []
    while True:
        play_round(game.round, bots)
        moves.append([str(m) for m in game.round.moves])
        if game.next_round() is None:
            break
    for bot in bots:
        bot.end_game(tuple(game.scores), tuple(game.winners))
    return moves


def frame(obj) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


# ---------------------------------------------------------------------------------------
# Frames


def test_a_frame_round_trips_through_a_stream_and_a_file_descriptor():
    stream = io.BytesIO()
    write_frame(stream, {"type": "ping", "id": 7})
    write_frame(stream, {"type": "quit"})
    assert stream.getvalue()[:4] == b"\x00\x00\x00\x0f"
    stream.seek(0)
    assert read_frame(stream) == {"type": "ping", "id": 7}
    assert read_frame(stream) == {"type": "quit"}
    assert read_frame(stream) is None  # a clean end of the stream
    r, w = os.pipe()
    try:
        write_frame(w, {"type": "hello", "protocol": 1})
        os.close(w)
        assert read_frame(r) == {"type": "hello", "protocol": 1}
        assert read_frame(r) is None
    finally:
        os.close(r)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x00", "truncated frame"),
        (b"\x00\x00\x00\x05\x81", "truncated frame"),
        (b"\x00\x00\x00\x00", "bad length"),
        (b"\x80\x00\x00\x00", "oversized frame"),
        (b"\xff\xff\xff\xff" + b"x" * 10, "oversized frame"),
        (b"\x00\x00\x00\x01\xc1", "bad msgpack"),
        (b"\x00\x00\x00\x03\x81\xa1a", "bad msgpack"),  # truncated inside the body
        (frame([1, 2]), "must be a msgpack map"),
        (frame("hello"), "must be a msgpack map"),
        (b"\x00\x00\x00\x02\x90\x90", "bad msgpack"),  # two objects in one frame
        (frame({1: 2}), "bad msgpack"),  # keys must be strings
    ],
)
def test_bad_frames_are_protocol_errors_that_say_what_is_wrong(data, message):
    with pytest.raises(ProtocolError, match=message):
        read_frame(io.BytesIO(data))
    reader = FrameReader()
    with pytest.raises(ProtocolError, match=message):
        for i in range(len(data)):  # byte by byte: the same verdict, as early as possible
            reader.feed(data[i : i + 1])
            reader.next()
        if message == "truncated frame":
            raise ProtocolError("truncated frame")  # a reader just waits for the rest


def test_an_oversized_prefix_is_refused_before_any_body_is_read():
    class Stream(io.RawIOBase):
        reads = 0

        def read(self, n=-1):
            self.reads += 1
            return b"\x80\x00\x00\x00" if self.reads == 1 else b"x" * n

    stream = Stream()
    with pytest.raises(ProtocolError, match="2147483648 bytes"):
        read_frame(stream)
    assert stream.reads == 1
    assert issubclass(ProtocolError, ValueError)


def test_limits_inside_a_frame_nesting_and_lengths():
    deep: list = []
    for _ in range(20):
        deep = [deep]
    with pytest.raises(ProtocolError, match="deeper than 8"):
        decode_body(msgpack.packb({"x": deep}))
    assert decode_body(msgpack.packb({"x": [[[[[[[1]]]]]]]}))  # depth 8: fine
    with pytest.raises(ProtocolError, match="bad msgpack"):
        decode_body(msgpack.packb({"x": list(range(5000))}))
    with pytest.raises(ProtocolError, match="bad msgpack"):
        decode_body(msgpack.packb({"x": msgpack.ExtType(1, b"abc")}))
    with pytest.raises(ProtocolError, match="bad msgpack"):
        decode_body(b"\xdd\xff\xff\xff\xff")  # an array claiming 4 billion items
    assert decode_body(msgpack.packb({"o": {3: 5}}), strict_map_key=False) == {"o": {3: 5}}
    with pytest.raises(ProtocolError, match="keys of a message"):
        decode_body(msgpack.packb({3: 5}), strict_map_key=False)


def test_field_names_the_message_the_field_and_the_type():
    from bones.protocol.frames import field

    message = {"type": "move", "id": 3, "index": True, "move": None}
    assert field(message, "id", int, "move") == 3
    assert field(message, "move", (str, type(None)), "move") is None
    with pytest.raises(ProtocolError, match="move: the field 'x' is missing"):
        field(message, "x", int, "move")
    with pytest.raises(ProtocolError, match="the field 'index' must be an int; got a bool"):
        field(message, "index", int, "move")
    with pytest.raises(ProtocolError, match="must be a string or nil; got an int"):
        field(message, "id", (str, type(None)), "move")


def test_frame_reader_splits_frames_that_arrive_in_pieces():
    data = frame({"type": "a"}) + frame({"type": "b", "x": b"\0" * 300}) + frame({"type": "c"})
    for size in (1, 3, 7, len(data)):
        reader = FrameReader()
        got = []
        for i in range(0, len(data), size):
            reader.feed(data[i : i + size])
            got += [m["type"] for m in reader.messages()]
        assert got == ["a", "b", "c"]
        assert reader.pending == 0


# ---------------------------------------------------------------------------------------
# The server and ExternalBot: the same games as in process


@pytest.mark.parametrize("spec", ["greedy:seed=3", "random:seed=5", "heaviest"])
def test_a_served_builtin_bot_plays_the_same_round_as_in_process(spec):
    rnd_ext = bones.Round.deal("straight", players=2, seed=11)
    rnd_in = rnd_ext.copy()
    with ExternalBot([*SERVER, spec]) as ext:
        ext.start_game(0, "straight", 2, {})
        play_round(rnd_ext, [ext, make_bot("greedy:seed=3")])
    play_round(rnd_in, [make_bot(spec), make_bot("greedy:seed=3")])
    assert rnd_ext.moves == rnd_in.moves
    assert rnd_ext.result == rnd_in.result


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("straight", 2, {}),
        ("kozel", 4, {}),
        ("draw", 3, {"hand_size": {3: 6}}),  # a per-players option: int keys in a map
        ("block", 2, {}),
        ("multiplayer", 2, {}),
    ],
)
def test_whole_games_through_the_protocol_equal_the_games_in_process(variant, players, options):
    specs = ["random:seed=5", "greedy:seed=3", "random:seed=9", "heaviest"][:players]
    external = [ExternalBot([*SERVER, s], seed=i, start=False) for i, s in enumerate(specs)]
    ExternalBot.start_all(external)  # the start-ups overlap
    try:
        got = play_game(external, variant, players, seed=4, **options)
    finally:
        for bot in external:
            bot.close()
    want = play_game([make_bot(s) for s in specs], variant, players, seed=4, **options)
    assert got == want


def test_a_spec_without_seed_takes_the_seed_of_game_start():
    with ExternalBot([*SERVER, "random"], seed=17) as ext:
        got = play_game([ext, make_bot("greedy")], seed=2)
    assert got == play_game([make_bot("random", seed=17), make_bot("greedy")], seed=2)


def test_bones_serve_bot_is_the_server():
    from bones import cli

    if "serve-bot" not in cli.COMMANDS:
        pytest.skip("bones serve-bot is not in the command line yet (see docs/protocol.md)")
    rnd_ext = bones.Round.deal("straight", players=2, seed=8)
    rnd_in = rnd_ext.copy()
    with ExternalBot([sys.executable, "-m", "bones", "serve-bot", "greedy:seed=3"]) as ext:
        assert ext.info is not None and ext.info.name == "greedy"
        ext.start_game(0, "straight", 2, {})
        play_round(rnd_ext, [ext, make_bot("random:seed=2")])
    play_round(rnd_in, [make_bot("greedy:seed=3"), make_bot("random:seed=2")])
    assert rnd_ext.moves == rnd_in.moves


def test_the_server_keeps_its_frames_clean_from_a_bot_that_prints():
    bot_path = ROOT / "tests" / "protocol_bots" / "printing_bot.py"
    with ExternalBot([sys.executable, str(bot_path), "4"]) as ext:
        got = play_game([ext, make_bot("random:seed=1")], seed=6)
        ext.ping()
    log = ext.stderr_text()  # all of it once the process is gone
    assert got == play_game([make_bot("greedy", seed=4), make_bot("random:seed=1")], seed=6)
    for text in ("printing bot: made", "start_game 0 straight", "choose from", "end_game"):
        assert text in log
    assert "hello from fd 1" in log


def test_the_server_answers_hello_ping_and_ignores_unknown_messages():
    stdin = io.BytesIO(
        frame({"type": "hello", "protocol": 1})
        + frame({"type": "from_the_future", "x": [1, {"y": 2}]})
        + frame({"type": "ping", "id": 5, "extra": "ignored"})
        + frame({"type": "quit"})
        + frame({"type": "ping", "id": 6})  # after quit: never read
    )
    stdout = io.BytesIO()
    assert bones.protocol.serve("greedy", stdin, stdout) == 0
    stdout.seek(0)
    hello = read_frame(stdout)
    assert hello is not None
    assert hello["type"] == "hello" and hello["name"] == "greedy" and hello["protocol"] == 1
    assert read_frame(stdout) == {"type": "pong", "id": 5}
    assert read_frame(stdout) is None


def test_the_server_exits_on_a_bad_spec_with_a_clear_message():
    with pytest.raises(ExternalBotError, match="unknown bot 'nosuchbot'") as info:
        ExternalBot([*SERVER, "nosuchbot"])
    assert info.value.kind == "crash"
    assert "status 2" in info.value.message


def test_the_encoder_notices_another_move_in_place_and_a_new_round():
    encoders = [ObservationEncoder(), ObservationEncoder()]
    rnd = bones.Round.deal("draw", players=2, seed=4)
    replaced = 0
    while not rnd.is_over:
        moves = tuple(rnd.legal_moves)
        before = rnd.copy()
        rnd.play(moves[0])
        assert decode_observation(rnd.observation(0).to_msgpack()).layout[-1] == moves[0]
        for seat in (0, 1):  # each encoder keeps the log with moves[0] in it
            assert encoders[seat].encode(rnd.observation(seat))[0] == (
                rnd.observation(seat).to_msgpack()
            )
        if len(moves) > 1 and not rnd.is_over:  # the same length, another last move
            rnd = before
            rnd.play(moves[1])
            replaced += 1
            for seat in (0, 1):
                assert encoders[seat].encode(rnd.observation(seat))[0] == (
                    rnd.observation(seat).to_msgpack()
                )
        # the bot's side decodes incrementally too
        data = rnd.observation(0).to_msgpack()
        assert decode_observation(data) == bones.Observation.from_msgpack(data)
    assert replaced > 2
    fresh = bones.Round.deal("draw", players=2, seed=5)
    assert encoders[0].encode(fresh.observation(0))[0] == fresh.observation(0).to_msgpack()


def test_fast_observations_equal_from_msgpack_in_every_variant(fresh_registry):
    from bones.observation import SCHEMA_VERSION
    from bones.protocol.client import _SCHEMA_VERSION

    assert _SCHEMA_VERSION == SCHEMA_VERSION
    packer = msgpack.Packer(use_bin_type=True, autoreset=True)
    # one encoder per seat across every round: it reuses the bytes of the layout and the
    # log already encoded, and must notice a new round (or another variant)
    encoders = [ObservationEncoder() for _ in range(8)]
    checked = 0
    for variant in bones.variants():
        if bones.variant(variant).base not in DOUBLE_SIX_BASES:
            continue  # the train games have their own observations
        for players in bones.variant(variant).players:
            rnd = bones.Round.deal(variant, players=players, seed=players)
            rng = __import__("random").Random(players)
            while True:
                for seat in range(players):
                    observation = rnd.observation(seat)
                    data = observation.to_msgpack()
                    encoded, legal = encode_observation(observation, packer)
                    assert encoded == data  # the runner's fast encoding: the same bytes
                    assert encoders[seat].encode(observation) == (data, legal)
                    assert legal == [str(m) for m in observation.legal_moves]
                    fast = decode_observation(data)
                    assert (
                        fast
                        == bones.Observation.from_msgpack(data)
                        == decode_observation(data, strict=True)
                    )
                    assert fast.to_msgpack() == data
                    checked += 1
                if rnd.is_over:
                    break
                moves = rnd.legal_moves
                rnd.play(moves[rng.randrange(len(moves))])
    assert checked > 100
    with pytest.raises(ProtocolError, match="not a bones observation"):
        decode_observation(b"\x93\x01\x02\x03")


# ---------------------------------------------------------------------------------------
# ExternalBot itself


def test_handshake_info_ping_restart_and_no_process_left():
    ext = ExternalBot(PY_EXAMPLE)
    assert ext.info is not None and ext.info.name == "example-random" == ext.name
    assert ext.info.version == "1.0" and ext.info.supports("kozel")
    assert ext.ping() >= 0
    pid = ext.pid
    assert pid is not None and ext.alive
    ext.restart()
    assert ext.pid != pid and ext.alive
    assert not _running(pid)
    pid = ext.pid
    ext.reset()  # a fresh process, as Bot.reset promises the state after __init__
    assert not _running(pid)
    pid = ext.pid
    ext.close()
    ext.close()  # idempotent
    assert not ext.alive and not _running(pid)
    with pytest.raises(ExternalBotError, match="not running"):
        ext.ping()


def test_the_context_manager_and_garbage_collection_leave_no_process():
    with ExternalBot(PY_EXAMPLE) as ext:
        pid = ext.pid
    assert not _running(pid)
    ext = ExternalBot(PY_EXAMPLE)
    pid = ext.pid
    del ext
    import gc

    gc.collect()
    assert not _running(pid)


def test_bot_errors_pickle_with_their_kind():
    error = ExternalBotError(1, "external bot 'x': no answer", "timeout")
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, BotError)
    assert (again.seat, again.message, again.kind) == (1, error.message, "timeout")
    assert str(again) == "bot at seat 1: external bot 'x': no answer"


def test_a_command_that_cannot_start_is_a_crash_and_arguments_are_checked(tmp_path):
    with pytest.raises(ExternalBotError, match="could not start") as info:
        ExternalBot([str(tmp_path / "no-such-bot")])
    assert info.value.kind == "crash"
    with pytest.raises(TypeError, match="list of arguments"):
        ExternalBot("python bot.py")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="move_time"):
        ExternalBot(PY_EXAMPLE, move_time=0)


def test_trace_sees_every_frame_both_ways():
    seen = []
    with ExternalBot(PY_EXAMPLE, trace=lambda d, f: seen.append((d, f))) as ext:
        play_game([ext, make_bot("greedy")], seed=1)
    kinds = [(d, msgpack.unpackb(f[4:])["type"]) for d, f in seen]
    assert kinds[:2] == [("send", "hello"), ("recv", "hello")]
    assert kinds[2] == ("send", "game_start")
    assert kinds[-2:] == [("send", "game_end"), ("send", "quit")]
    assert {k for _, k in kinds} >= {"round_start", "event", "move_request", "move", "round_end"}
    assert all(struct.unpack(">I", f[:4])[0] == len(f) - 4 for _, f in seen)


def test_stderr_is_logged_to_a_file_per_game(tmp_path):
    first, second = tmp_path / "game1.log", tmp_path / "game2.log"
    with ExternalBot(PY_EXAMPLE, log=first) as ext:
        play_game([ext, make_bot("greedy")], seed=1)
        ext.restart(log=second)  # a fresh process, its stderr in a new file
        play_game([make_bot("greedy"), ext], seed=1)
    assert first.read_text() == "random_bot: seat 0 of straight\n"
    assert second.read_text() == "random_bot: seat 1 of straight\n"


def _running(pid: int | None) -> bool:
    assert pid is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# ---------------------------------------------------------------------------------------
# The examples


def test_the_python_example_plays_whole_games_and_is_deterministic():
    runs = []
    for _ in range(2):
        with ExternalBot([*PY_EXAMPLE, "7"]) as ext:
            runs.append(play_game([make_bot("greedy"), ext], "kozel", 2, seed=3))
    assert runs[0] == runs[1]
    source = (ROOT / "examples" / "python" / "random_bot.py").read_text()
    assert not re.search(r"^\s*(import|from)\s+bones", source, re.MULTILINE)


def _build_c_bot(tmp_path: Path) -> Path:
    cc = shutil.which(os.environ.get("CC", "cc"))
    works = (
        cc is not None and subprocess.run([cc, "--version"], capture_output=True).returncode == 0
    )
    if shutil.which("make") is None or not works:  # CC=false: no compiler on purpose
        pytest.skip("the C example needs make and a C compiler (CC, default cc)")
    out = tmp_path / "random_bot"
    build = subprocess.run(
        ["make", "-s", "-C", str(ROOT / "examples" / "c"), f"OUT={out}"],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        if "msgpack.h" in build.stderr or "msgpackc" in build.stderr:
            pytest.skip("the C example needs msgpack-c: apt-get install libmsgpack-dev")
        pytest.fail(f"the C example does not build:\n{build.stderr}")
    return out


def test_the_c_example_plays_whole_games_against_builtin_bots(tmp_path):
    binary = _build_c_bot(tmp_path)
    for variant, players in (("straight", 2), ("kozel", 4), ("block", 2)):
        bots = [ExternalBot([str(binary), str(seat)]) if seat % 2 == 0 else make_bot("greedy")
                for seat in range(players)]  # fmt: skip
        try:
            first = play_game(bots, variant, players, seed=5)
            for bot in bots:
                if isinstance(bot, ExternalBot):
                    assert bot.ping() >= 0
                    assert bot.info is not None and bot.info.name == "example-random-c"
                    bot.restart()
            assert play_game(bots, variant, players, seed=5) == first  # seeded
        finally:
            for bot in bots:
                if isinstance(bot, ExternalBot):
                    pid = bot.pid
                    bot.close()
                    assert not _running(pid)


def _frame(message) -> bytes:
    body = msgpack.packb(message, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


@pytest.mark.parametrize("example", ["python", "c"])
def test_the_examples_read_frames_batched_in_one_write_or_split_in_many(example, tmp_path):
    import time

    command = PY_EXAMPLE if example == "python" else [str(_build_c_bot(tmp_path))]
    proc = subprocess.Popen([*command, "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        # a hello and 300 pings in one write (the runner batches events so)
        pings = b"".join(_frame({"type": "ping", "id": i}) for i in range(300))
        proc.stdin.write(_frame({"type": "hello", "protocol": 1}) + pings)
        proc.stdin.flush()
        assert read_frame(proc.stdout)["type"] == "hello"
        assert [read_frame(proc.stdout)["id"] for _ in range(300)] == list(range(300))
        # a move request a byte per write
        request = _frame({"type": "move_request", "id": 9, "legal": ["a", "b"], "x": [0] * 99})
        for byte in request:
            proc.stdin.write(bytes([byte]))
            proc.stdin.flush()
            time.sleep(0.0005)
        answer = read_frame(proc.stdout)
        assert answer["type"] == "move" and answer["id"] == 9 and answer["index"] in (0, 1)
        # a frame of the largest size the examples take, then one cut in the middle
        big = _frame({"type": "unknown", "pad": b"x" * ((1 << 20) - 64)})
        proc.stdin.write(big + _frame({"type": "ping", "id": 10}) + request[:7])
        proc.stdin.close()
        assert read_frame(proc.stdout) == {"type": "pong", "id": 10}
        assert read_frame(proc.stdout) is None  # it stops at the cut frame, silently
        assert proc.wait(10) in (0, 1)
    finally:
        proc.kill()
        proc.wait()


# ---------------------------------------------------------------------------------------
# docs/protocol.md


def test_the_python_example_of_docs_protocol_md_runs(tmp_path, capsys):
    binary = _build_c_bot(tmp_path)
    doc = (ROOT / "docs" / "protocol.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)
    [code] = [b for b in blocks if "ExternalBotError as exc" in b]
    assert '"./examples/c/random_bot"' in code
    exec(compile(code.replace("./examples/c/random_bot", str(binary)), "protocol.md", "exec"), {})
    assert "example-random-c" in capsys.readouterr().out


def test_the_frames_in_docs_protocol_md_are_the_frames_of_a_real_game():
    check = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "protocol_frames.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
