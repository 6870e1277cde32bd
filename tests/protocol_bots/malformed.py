"""A protocol bot (msgpack and the standard library only) that sends one kind of
malformed input on purpose, for tests/test_protocol_malformed.py.

    python malformed.py KIND STATE_DIR

It plays a legal index until the second move request of its process, then sends what
KIND says (``FRAMES`` below: raw bytes, made from the request's id and legal moves) and
hangs, or does what KIND names (exits, closes its stdout, trickles, floods...).  The
``hello_*`` kinds misbehave in the hello of every process but the first (the runner's
handshake check before the match): counted in STATE_DIR.
"""

import os
import signal
import struct
import sys
import time

import msgpack

KIND = sys.argv[1]
STATE = sys.argv[2]
OUT = sys.stdout.fileno()
MIB = 1 << 20


def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


def read():
    (n,) = struct.unpack(">I", read_exactly(4))
    return msgpack.unpackb(read_exactly(n), raw=False, strict_map_key=False)


def raw(data):
    view = memoryview(data)
    while view:
        view = view[os.write(OUT, view) :]


def frame(body):
    return struct.pack(">I", len(body)) + body


def pack(obj):
    return msgpack.packb(obj, use_bin_type=True)


def move(rid, **fields):
    return frame(pack({"type": "move", "id": rid, **fields}))


def forever():
    while True:
        time.sleep(60)


def nested(depth):
    value = 0
    for _ in range(depth):
        value = [value]
    return value


def dup_index(rid, n):
    # a map of 4 entries whose key "index" comes twice: 0 (legal) and n (out of range)
    return frame(
        b"\x84"
        + pack("type")
        + pack("move")
        + pack("id")
        + pack(rid)
        + pack("index")
        + pack(0)
        + pack("index")
        + pack(n)
    )


# KIND -> the bytes sent instead of the second move (rid: its request id, n: the number
# of legal moves)
FRAMES = {
    # frames
    "zero_length": lambda rid, n: b"\0\0\0\0",
    "length_4gib": lambda rid, n: b"\xff\xff\xff\xff",
    "length_over_cap": lambda rid, n: struct.pack(">I", MIB + 1) + b"\x80" * 100,
    "stray_print": lambda rid, n: b"thinking about 6-4...\n",
    "stdout_30mb_line": lambda rid, n: b"x" * (30 * MIB) + b"\n",
    "not_msgpack": lambda rid, n: frame(b"\xc1"),
    "trailing_bytes": lambda rid, n: frame(pack({"type": "move", "id": rid, "index": 0}) + b"\0"),
    "not_a_map": lambda rid, n: frame(pack(["move", rid, 0])),
    "int_keys": lambda rid, n: frame(pack({"type": "move", "id": rid, "index": 0, 1: 2})),
    "ext_type": lambda rid, n: frame(
        pack({"type": "move", "id": rid, "index": 0, "x": msgpack.ExtType(5, b"abc")})
    ),
    "timestamp": lambda rid, n: frame(
        pack({"type": "move", "id": rid, "index": 0, "x": msgpack.Timestamp(1, 0)})
    ),
    "nested_9": lambda rid, n: frame(pack({"type": "move", "id": rid, "index": 0, "x": nested(8)})),
    "nested_100k": lambda rid, n: frame(
        pack({"type": "move", "id": rid, "index": 0})[:-1] + b"\x91" * 100_000 + b"\x00"
    ),
    "long_string": lambda rid, n: frame(
        pack({"type": "move", "id": rid, "index": 0, "x": "y" * 70_000})
    ),
    "long_bin": lambda rid, n: frame(
        pack({"type": "move", "id": rid, "index": 0, "x": b"y" * 300_000})
    ),
    "long_array": lambda rid, n: frame(
        pack({"type": "move", "id": rid, "index": 0, "x": [0] * 5000})
    ),
    "big_map": lambda rid, n: frame(
        pack({"type": "move", "id": rid, "index": 0, "x": {str(i): i for i in range(300)}})
    ),
    "bad_utf8": lambda rid, n: frame(
        b"\x83"
        + pack("type")
        + pack("move")
        + pack("id")
        + pack(rid)
        + pack("index")
        + b"\xa2\xff\xfe"
    ),
    "duplicate_key": dup_index,
    # the message
    "no_type": lambda rid, n: frame(pack({"id": rid, "index": 0})),
    "type_not_str": lambda rid, n: frame(pack({"type": 7, "id": rid, "index": 0})),
    "unknown_type": lambda rid, n: frame(pack({"type": "thinking", "id": rid})),
    "hello_again": lambda rid, n: frame(pack({"type": "hello", "name": "again"})),
    "id_missing": lambda rid, n: frame(pack({"type": "move", "index": 0})),
    "id_wrong": lambda rid, n: move(rid + 1000, index=0),
    "id_old": lambda rid, n: move(rid - 1, index=0),
    "id_negative": lambda rid, n: move(-rid, index=0),
    "id_huge": lambda rid, n: move(2**64 - 1, index=0),
    "id_float": lambda rid, n: move(float(rid), index=0),
    "id_string": lambda rid, n: move(str(rid), index=0),
    "id_bool": lambda rid, n: move(True, index=0),
    "index_and_move": lambda rid, n: move(rid, index=0, move="draw"),
    "neither": lambda rid, n: move(rid),
    "index_negative": lambda rid, n: move(rid, index=-1),
    "index_too_big": lambda rid, n: move(rid, index=n),
    "index_huge": lambda rid, n: move(rid, index=2**64 - 1),
    "index_bool": lambda rid, n: move(rid, index=False),
    "index_float": lambda rid, n: move(rid, index=0.0),
    "index_nan": lambda rid, n: move(rid, index=float("nan")),
    "index_string": lambda rid, n: move(rid, index="0"),
    "index_nil_move_nil": lambda rid, n: move(rid, index=None, move=None),
    "move_bin": lambda rid, n: move(rid, move=b"draw"),
    "move_unparsable": lambda rid, n: move(rid, move="6-4@W@@"),
    "move_not_legal": lambda rid, n: move(rid, move="0-0@N7"),
    "move_empty": lambda rid, n: move(rid, move=""),
    "two_answers": lambda rid, n: move(rid, index=0) + move(rid, index=0),
}

starts_file = os.path.join(STATE, "starts")
with open(starts_file, "a") as f:
    f.write("x")
with open(starts_file) as f:
    STARTS = len(f.read())

requests = 0
last_rid = 0
while True:
    msg = read()
    kind = msg.get("type")
    if kind == "quit":
        sys.exit(0)
    if kind == "hello":
        if STARTS > 1 and KIND == "hello_old_protocol":
            raw(frame(pack({"type": "hello", "protocol": 2, "name": "old"})))
            forever()
        if STARTS > 1 and KIND == "hello_no_name":
            raw(frame(pack({"type": "hello", "name": ""})))
            forever()
        if STARTS > 1 and KIND == "hello_exit":
            sys.exit(4)
        raw(frame(pack({"type": "hello", "name": "malformed-" + KIND})))
    elif kind == "ping":
        raw(frame(pack({"type": "pong", "id": msg["id"]})))
    elif kind == "game_end":
        if KIND == "move_after_game":  # an answer nobody asked for
            raw(move(last_rid, index=0))
    elif kind == "move_request":
        requests += 1
        rid, legal = msg["id"], msg["legal"]
        last_rid = rid
        n = len(legal)
        if requests == 2:
            if KIND in FRAMES:
                raw(FRAMES[KIND](rid, n))
                if KIND == "two_answers":
                    continue
                forever()
            if KIND == "silent":
                forever()
            if KIND == "half_frame":
                raw(move(rid, index=0)[:6])
                forever()
            if KIND == "slowloris":  # a good answer, a byte every 0.2 s
                for byte in move(rid, index=0):
                    raw(bytes([byte]))
                    time.sleep(0.2)
                continue
            if KIND == "pong_flood":
                pong = frame(pack({"type": "pong", "id": 0}))
                while True:
                    raw(pong * 64)
            if KIND == "truncated_exit":
                raw(move(rid, index=0)[:9])
                sys.exit(0)
            if KIND == "header_exit":
                raw(b"\0\0")
                sys.exit(0)
            if KIND == "exit_0":
                sys.exit(0)
            if KIND == "exit_3":
                sys.exit(3)
            if KIND == "segfault":
                os.kill(os.getpid(), signal.SIGSEGV)
            if KIND == "close_stdout":
                os.close(OUT)
                forever()
            if KIND == "stderr_30mb":  # 30 MB of log, then the move: not a fault
                block = b"e" * MIB
                for _ in range(30):
                    os.write(2, block)
            if KIND == "stderr_30mb_exit":  # 30 MB of log, then it exits
                block = b"e" * MIB
                for _ in range(30):
                    os.write(2, block)
                os.write(2, b"\nmalformed: the end of my log\n")
                sys.exit(5)
        raw(move(rid, index=(requests * 7) % n))
    # anything else: ignored
