"""Malformed protocol input from a ``cmd:`` bot (issue 25): every kind is the bot's own
clean forfeit, the match finishes with the right table, and the runner's memory stays
bounded.

The bot is tests/protocol_bots/malformed.py, which plays until the second move request of
its process and then sends one kind of bad input.  The tables below are the list of
kinds: each row is a bot of a gauntlet against ``greedy`` (matches of 20 bots for the
kinds found at once, one with a 0.5 s move time for the timeouts), and each kind's
test (``test_malformed_input_is_the_bots_forfeit[KIND]``) checks that bot's two games:
both forfeited by the bot's seat, with the reason and a detail naming the fault, its
forfeits in the summary and in the printed table, greedy's two points.  The kinds that
are no fault (``stderr_30mb``), that fault in the next game (``move_after_game``) or in a
later hello (``hello_*``) have their own rows.  ``test_the_runner_stays_small`` plays the
kinds that could make the runner allocate (4 GiB and 1 MiB + 1 lengths, a 30 MB line on
stdout, 30 MB of stderr, 100,000 levels of nesting, floods) under ``tracemalloc``.

The frame reader and the answer checks are also fuzzed, in tests/test_protocol_faults.py
(random bytes, random maps, random answers of a real process: only ProtocolError or a
fault of a documented kind), which has the misbehave.py modes too.
"""

from __future__ import annotations

import json
import shlex
import struct
import sys
import tracemalloc
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bones
from bones.bot import make_bot, play_round
from bones.match import MatchConfig, format_table, run_match
from bones.protocol import ExternalBot, ExternalBotError

HERE = Path(__file__).resolve().parent
MALFORMED = HERE / "protocol_bots" / "malformed.py"
SECRET = "4d" * 32

# kind -> (forfeit reason, a text of its detail), the kinds found as soon as they arrive
FOUND = {
    # frames
    "zero_length": ("bad_frame", "bad length: a frame of 0 bytes"),
    "length_4gib": ("bad_frame", "the length prefix says 4294967295 bytes, the limit is 1048576"),
    "length_over_cap": ("bad_frame", "the length prefix says 1048577 bytes"),
    "stray_print": ("bad_frame", "oversized frame"),  # "thin" read as a length
    "stdout_30mb_line": ("bad_frame", "oversized frame"),
    "not_msgpack": ("bad_frame", "bad msgpack in a frame of 1 bytes"),
    "trailing_bytes": ("bad_frame", "bad msgpack"),
    "not_a_map": ("bad_frame", "must be a msgpack map; got an array"),
    "int_keys": ("bad_frame", "bad msgpack"),
    "ext_type": ("bad_frame", "bad msgpack"),
    "timestamp": ("bad_frame", "bad msgpack"),
    "nested_9": ("bad_frame", "deeper than 8 levels"),
    "nested_100k": ("bad_frame", "bad msgpack"),
    "long_string": ("bad_frame", "bad msgpack"),
    "long_bin": ("bad_frame", "bad msgpack"),
    "long_array": ("bad_frame", "bad msgpack"),
    "big_map": ("bad_frame", "bad msgpack"),
    "bad_utf8": ("bad_frame", "bad msgpack"),
    "duplicate_key": ("bad_frame", "the key 'index' twice"),
    # the message
    "no_type": ("bad_frame", "a message of type None instead of its move"),
    "type_not_str": ("bad_frame", "a message of type 7 instead of its move"),
    "unknown_type": ("bad_frame", "a message of type 'thinking' instead of its move"),
    "hello_again": ("bad_frame", "a message of type 'hello' instead of its move"),
    "id_missing": ("bad_frame", "answers request id None"),
    "id_wrong": ("bad_frame", "answers request id"),
    "id_old": ("bad_frame", "answers request id"),
    "id_negative": ("bad_frame", "answers request id -"),
    "id_huge": ("bad_frame", "answers request id 18446744073709551615"),
    "id_float": ("bad_frame", ".0, not"),
    "id_string": ("bad_frame", "answers request id '"),
    "id_bool": ("bad_frame", "answers request id True"),
    "index_and_move": ("bad_frame", "exactly one of 'index' and 'move'"),
    "neither": ("bad_frame", "exactly one of 'index' and 'move'"),
    "index_nil_move_nil": ("bad_frame", "exactly one of 'index' and 'move'"),
    "index_bool": ("bad_frame", "'index' must be an int; got False"),
    "index_float": ("bad_frame", "'index' must be an int; got 0.0"),
    "index_nan": ("bad_frame", "'index' must be an int; got nan"),
    "index_string": ("bad_frame", "'index' must be an int; got '0'"),
    "move_bin": ("bad_frame", "'move' must be a string; got b'draw'"),
    "index_negative": ("illegal", "index -1 is out of range"),
    "index_too_big": ("illegal", "is out of range"),
    "index_huge": ("illegal", "index 18446744073709551615 is out of range"),
    "move_unparsable": ("illegal", "the move '6-4@W@@' is not legal"),
    "move_not_legal": ("illegal", "the move '0-0@N7' is not legal"),
    "move_empty": ("illegal", "the move '' is not legal"),
    "two_answers": ("bad_frame", "answers request id"),  # the second, read as the next
    # the process
    "truncated_exit": ("crash", "closed its stdout in the middle of a frame (9 bytes)"),
    "header_exit": ("crash", "closed its stdout in the middle of a frame (2 bytes)"),
    "exit_0": ("crash", "exited with status 0"),
    "exit_3": ("crash", "exited with status 3"),
    "segfault": ("crash", "killed by signal SIGSEGV"),
    "close_stdout": ("crash", "closed its stdout while waiting for its move"),
    "stderr_30mb_exit": ("crash", "malformed: the end of my log"),
    # a later process of the bot fails its hello (the check before the match passed)
    "hello_old_protocol": ("bad_frame", "handshake failed: the bot speaks protocol 2"),
    "hello_no_name": ("bad_frame", "handshake failed: hello: 'name' must be a string"),
    "hello_exit": ("crash", "exited with status 4"),
}

# the kinds that are timeouts: a 0.5 s move time
LATE = {
    "silent": ("timeout", "no answer: waiting for its move"),
    "half_frame": ("timeout", "no answer: waiting for its move"),
    "slowloris": ("timeout", "nothing within 0.5 s"),  # a byte every 0.2 s
    "pong_flood": ("timeout", "nothing within 0.5 s"),
}

# no fault: 30 MB of stderr is the bot's log (the runner keeps its last 64 KiB)
HARMLESS = ("stderr_30mb",)


def spec_of(kind: str, state: Path) -> str:
    folder = state / kind
    folder.mkdir(parents=True, exist_ok=True)
    return "cmd:" + shlex.join([sys.executable, str(MALFORMED), kind, str(folder)])


def gauntlet(tmp: Path, kinds, timeout: float) -> tuple[dict, list[dict], dict[str, str]]:
    specs = {kind: spec_of(kind, tmp / "state") for kind in kinds}
    config = MatchConfig(
        seed=1,
        bots=("greedy", *specs.values()),
        format="gauntlet",
        games=2,
        timeout=timeout,
        secret=SECRET,
    )
    summary = run_match(config, tmp / "m.jsonl", jobs=2, progress=False)
    with open(tmp / "m.jsonl") as f:
        records = [r for r in map(json.loads, f) if r.get("type") == "game"]
    return summary, records, specs


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    """The kinds of FOUND and HARMLESS, in gauntlets of 20 bots (the check before a
    match starts them all at once, each with 10 s for its hello): ``kind -> result``."""
    kinds = [*FOUND, *HARMLESS]
    out = {}
    for start in range(0, len(kinds), 20):
        part = kinds[start : start + 20]
        result = gauntlet(tmp_path_factory.mktemp("found"), part, 10.0)
        out.update(dict.fromkeys(part, result))
    return out


@pytest.fixture(scope="module")
def late(tmp_path_factory):
    return gauntlet(tmp_path_factory.mktemp("late"), LATE, 0.5)


def check(result, kind: str, reason: str, text: str) -> None:
    summary, records, specs = result
    spec = specs[kind]
    mine = sorted((r for r in records if spec in r["seats"]), key=lambda r: r["id"])
    assert len(mine) == 2
    for rec in mine:
        forfeit = rec["forfeit"]
        assert forfeit is not None, rec
        assert forfeit["reason"] == reason, forfeit
        assert forfeit["seat"] == rec["seats"].index(spec)
        assert text in forfeit["detail"], forfeit["detail"]
        assert rec.get("error") is None
    bots = {b["spec"]: b for b in summary["bots"]}
    assert bots[spec]["forfeits"] == {reason: 2}
    assert (bots[spec]["games"], bots[spec]["points"]) == (2, 0.0)
    name = bots[spec]["bot"]
    assert name == f"malformed-{kind}"
    table = format_table(summary)
    forfeits = next(line for line in table.splitlines() if line.startswith("Forfeits:"))
    assert f"{name}: {reason} 2" in forfeits


def test_the_matches_finish_with_every_game(found, late):
    results = {id(r): r for r in [*found.values(), late]}.values()
    assert len(results) == 4
    for summary, records, specs in results:
        assert summary["played"] == summary["scheduled"] == 2 * len(specs) == len(records)
        assert summary["void"] == 0 and not summary["errors"]
        greedy = next(b for b in summary["bots"] if b["spec"] == "greedy")
        harmless = 2 * sum(kind in HARMLESS for kind in specs)
        assert greedy["forfeits"] == {}
        assert greedy["games"] == 2 * len(specs)
        assert greedy["points"] >= 2 * len(specs) - harmless


@pytest.mark.parametrize("kind", [*FOUND, *LATE])
def test_malformed_input_is_the_bots_forfeit(found, late, kind):
    if kind in FOUND:
        check(found[kind], kind, *FOUND[kind])
    else:
        check(late, kind, *LATE[kind])


def test_30_mb_of_stderr_is_no_fault(found):
    summary, records, specs = found["stderr_30mb"]
    spec = specs["stderr_30mb"]
    mine = [r for r in records if spec in r["seats"]]
    assert len(mine) == 2 and all(r["forfeit"] is None and r["rounds"] for r in mine)
    bots = {b["spec"]: b for b in summary["bots"]}
    assert bots[spec]["forfeits"] == {} and bots[spec]["games"] == 2


def test_a_move_after_the_game_is_the_next_games_forfeit(tmp_path):
    """The answer nobody asked for, sent after ``game_end``, waits in the pipe of the
    process kept for the next game: that game's first request reads it, a wrong id."""
    spec = spec_of("move_after_game", tmp_path)
    config = MatchConfig(seed=1, bots=(spec, "greedy"), games=2, timeout=10.0, secret=SECRET)
    summary = run_match(config, tmp_path / "a.jsonl", jobs=1, progress=False)
    with open(tmp_path / "a.jsonl") as f:
        records = sorted(
            (r for r in map(json.loads, f) if r.get("type") == "game"), key=lambda r: r["id"]
        )
    assert summary["played"] == 2 and len(records) == 2
    assert records[0]["forfeit"] is None and records[0]["rounds"]
    forfeit = records[1]["forfeit"]
    assert forfeit["reason"] == "bad_frame" and forfeit["seat"] == records[1]["seats"].index(spec)
    assert "answers request id" in forfeit["detail"]
    bots = {b["spec"]: b for b in summary["bots"]}
    assert bots[spec]["forfeits"] == {"bad_frame": 1}
    assert "malformed-move_after_game: bad_frame 1" in format_table(summary)


# ---------------------------------------------------------------------------------------
# The runner's memory


def _play(bot: ExternalBot) -> None:
    game = bones.new_game("straight", 2, 1)
    bots = [bot, make_bot("greedy")]
    for seat, b in enumerate(bots):
        b.start_game(seat, "straight", 2, {})
    while True:
        play_round(game.round, bots)
        if game.next_round() is None:
            break
    for b in bots:
        b.end_game(tuple(game.scores), tuple(game.winners))


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("length_4gib", "bad_frame"),
        ("length_over_cap", "bad_frame"),
        ("stdout_30mb_line", "bad_frame"),
        ("nested_100k", "bad_frame"),
        ("long_bin", "bad_frame"),
        ("stderr_30mb", None),
        ("stderr_30mb_exit", "crash"),
        ("pong_flood", "timeout"),
        ("slowloris", "timeout"),
    ],
)
def test_the_runner_stays_small(tmp_path, kind, reason):
    """What the runner allocates while it reads the bad input stays within a few MiB:
    a length prefix is checked before its body is buffered, stderr is kept to its last
    64 KiB, a flood of frames is read as it comes."""
    spec = spec_of(kind, tmp_path)
    bot = ExternalBot(shlex.split(spec[4:]), move_time=0.5 if reason == "timeout" else 10.0)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        if reason is None:
            _play(bot)
            assert bot.alive and bot.fault is None
            assert 0 < len(bot.stderr_text()) <= 1 << 16
        else:
            with pytest.raises(ExternalBotError) as info:
                _play(bot)
            assert info.value.kind == reason
            assert not bot.alive
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        bot.close(grace=0.0)
    assert peak < 4 << 20, f"{kind}: the runner allocated {peak / (1 << 20):.1f} MiB"


# ---------------------------------------------------------------------------------------
# The decoder: repeated keys, and frames near a good one under fuzzing


def test_a_repeated_key_is_refused_in_every_map_header():
    from bones.protocol import ProtocolError, decode_body
    from bones.protocol.frames import FrameReader

    pairs = [b"\xa4type\xa4move", b"\xa2id\x03", b"\xa5index\x00", b"\xa5index\x05"]
    body = b"".join(pairs)
    for header in (b"\x84", b"\xde\x00\x04", b"\xdf\x00\x00\x00\x04"):
        with pytest.raises(ProtocolError, match="the key 'index' twice"):
            decode_body(header + body)
        good = header[:-1] + bytes([header[-1] - 1]) + b"".join(pairs[:3])
        assert decode_body(good) == {"type": "move", "id": 3, "index": 0}
    reader = FrameReader()
    reader.feed(struct.pack(">I", len(body) + 1) + b"\x84" + body)
    with pytest.raises(ProtocolError, match="twice"):
        reader.next()


_GOOD = [
    msgpack.packb({"type": "move", "id": 2, "index": 1}),
    msgpack.packb({"type": "move", "id": 2, "move": "6-4@W"}),
    msgpack.packb({"type": "hello", "name": "x", "variants": ["straight"], "options": {}}),
    msgpack.packb({"type": "pong", "id": 7}),
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(_GOOD),
    st.lists(
        st.tuples(st.sampled_from(["set", "insert", "delete"]), st.integers(0, 80),
                  st.integers(0, 255)),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)  # fmt: skip
def test_frames_near_a_good_one_give_a_message_or_a_protocol_error(body, edits, fix_length):
    """Bytes of a good frame set, inserted or deleted (with the length prefix kept or
    made to fit): the reader gives a message map or raises ProtocolError, nothing else,
    and whatever map comes out, the answer checks give a legal move or a Fault."""
    from bones.protocol import ProtocolError
    from bones.protocol.client import Fault, _parse_hello, answer_move
    from bones.protocol.frames import FrameReader

    data = bytearray(body)
    for op, at, byte in edits:
        at = min(at, len(data))
        if op == "set" and at < len(data):
            data[at] = byte
        elif op == "insert":
            data.insert(at, byte)
        elif op == "delete" and at < len(data):
            del data[at]
    length = len(data) if fix_length else len(body)
    reader = FrameReader(max_size=1000)
    reader.feed(struct.pack(">I", length) + bytes(data))
    try:
        message = reader.next()
    except ProtocolError:
        return
    if message is None:  # a prefix longer than the bytes: waits for more
        assert length > len(data)
        return
    assert type(message) is dict and all(type(k) is str for k in message)
    legal = tuple(bones.Move.parse(m) for m in ("6-4@W", "6-4@E", "draw"))
    try:
        move = answer_move(message, 2, legal)
    except Fault as exc:
        assert exc.kind in ("bad_frame", "illegal")
    else:
        assert move in legal
    try:
        _parse_hello(message)
    except ProtocolError:
        pass
