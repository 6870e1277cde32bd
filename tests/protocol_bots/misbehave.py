"""A protocol bot (msgpack and the standard library only) that misbehaves on purpose.

    python misbehave.py MODEFILE

The mode is read from MODEFILE when the process starts (so a test can make the next
process behave: ``good``).  Until its misbehaviour it plays a random legal index; the
mid-game modes misbehave at the third move request.
"""

import json
import os
import struct
import sys
import time

import msgpack

MODE = open(sys.argv[1]).read().strip()
OUT = sys.stdout.fileno()


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
    os.write(OUT, data)


def send(obj):
    body = msgpack.packb(obj, use_bin_type=True)
    raw(struct.pack(">I", len(body)) + body)


def forever():
    while True:
        time.sleep(60)


requests = 0
while True:
    msg = read()
    kind = msg.get("type")
    if kind == "quit":
        sys.exit(0)
    if kind == "hello":
        if MODE == "hang_handshake":
            forever()
        if MODE == "exit_in_handshake":
            sys.exit(3)
        if MODE == "bad_hello":
            send({"type": "hello", "name": 42})
            continue
        if MODE == "old_protocol":
            send({"type": "hello", "protocol": 99, "name": "old"})
            continue
        send({"type": "hello", "name": "misbehave-" + MODE, "extra": [1, 2]})
        if MODE == "deaf":  # never reads again
            forever()
    elif kind == "ping":
        send({"type": "pong", "id": msg["id"]})
    elif kind == "game_start":
        if MODE == "log_clock":  # one line a game: what the runner said of the clock
            print("clock", json.dumps(msg["time_control"]), file=sys.stderr, flush=True)
        if MODE == "log_affinity":  # the CPUs this process may run on
            cpus = sorted(os.sched_getaffinity(0))
            print("cpus", json.dumps(cpus, separators=(",", ":")), file=sys.stderr, flush=True)
        if MODE == "exit_early":
            print("misbehave: leaving before the game", file=sys.stderr, flush=True)
            sys.exit(0)
    elif kind == "move_request":
        requests += 1
        legal, rid = msg["legal"], msg["id"]
        if MODE == "not_reading":
            forever()
        if MODE == "flood_stderr":  # 256 KiB of log per move: must never block
            os.write(2, b"x" * 4096 * 64)
        if requests >= 3 or MODE in ("flood_stderr",):
            if MODE == "crash":
                raise RuntimeError("misbehave: boom in choose")
            if MODE == "hang":
                forever()
            if MODE == "garbage":
                raw(b"GARBAGE!" * 4)
                forever()
            if MODE == "bad_msgpack":
                raw(struct.pack(">I", 3) + b"\xc1\xc1\xc1")
                forever()
            if MODE == "not_a_map":
                send([1, 2, 3])
                forever()
            if MODE == "zero_length":
                raw(b"\0\0\0\0")
                forever()
            if MODE == "truncated":
                raw(struct.pack(">I", 100) + b"\x83")
                sys.exit(0)
            if MODE == "wrong_type":
                send({"type": "move", "id": rid, "index": "x"})
                forever()
            if MODE == "wrong_id":
                send({"type": "move", "id": rid + 1000, "index": 0})
                forever()
            if MODE == "no_move":
                send({"type": "move", "id": rid})
                forever()
            if MODE == "unknown_type":
                send({"type": "thinking", "id": rid})
                forever()
            if MODE == "oversized":
                raw(struct.pack(">I", 0x80000000))  # 2 GiB: must not be allocated
                forever()
            if MODE == "illegal_index":
                send({"type": "move", "id": rid, "index": len(legal)})
                forever()
            if MODE == "half_stall":  # half of a good frame, then nothing
                body = msgpack.packb({"type": "move", "id": rid, "index": 0})
                raw((struct.pack(">I", len(body)) + body)[: (len(body) + 4) // 2])
                forever()
            if MODE == "trickle":  # a frame that never ends, a byte every 2 ms
                raw(struct.pack(">I", 1 << 16) + b"\x83")
                while True:
                    raw(b"\xc0")
                    time.sleep(0.002)
            if MODE == "pong_flood":  # pongs without end, never the move
                pong = msgpack.packb({"type": "pong", "id": 0})
                while True:
                    raw((struct.pack(">I", len(pong)) + pong) * 64)
            if MODE == "illegal_move":
                send({"type": "move", "id": rid, "move": "6-6@Q"})
                forever()
        if MODE == "split":  # every answer a byte per write, with pauses
            body = msgpack.packb({"type": "move", "id": rid, "index": 0}, use_bin_type=True)
            for byte in struct.pack(">I", len(body)) + body:
                raw(bytes([byte]))
                time.sleep(0.0002)
            continue
        if MODE == "two_frames":  # a pong and the move in one write
            pong = msgpack.packb({"type": "pong", "id": 0})
            move = msgpack.packb({"type": "move", "id": rid, "index": 0})
            raw(b"".join(struct.pack(">I", len(b)) + b for b in (pong, move)))
            continue
        if MODE == "by_text":
            send({"type": "move", "id": rid, "move": legal[-1], "comment": "by text"})
        else:
            send({"type": "move", "id": rid, "index": (requests * 7) % len(legal)})
    # anything else: ignored
