"""A protocol bot (msgpack and the standard library only) for the CPU-time clock
(``bones match --tc GAME+INC:cpu``): it plays a random legal index after doing, at each
move request, what its mode says.

    python cpu_bot.py MODE [ARG]

* ``sleep``: sleep ARG seconds (no CPU time: a bot slowed by a busy machine);
* ``work``: compute for ARG seconds of its own CPU time;
* ``spin``: compute forever at its first move (never answers);
* ``hog``: ARG threads compute without end from its first ``game_start`` on, in its
  moves and its opponent's (each a process: Python's threads share one CPU), and the
  bot answers at once.
"""

import os
import random
import struct
import sys
import time

import msgpack

MODE = sys.argv[1]
ARG = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


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


def send(obj):
    body = msgpack.packb(obj, use_bin_type=True)
    os.write(1, struct.pack(">I", len(body)) + body)


def work(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


rng = random.Random(11)
hogging = False
while True:
    msg = read()
    kind = msg.get("type")
    if kind == "quit":
        sys.exit(0)
    if kind == "hello":
        send({"type": "hello", "name": "cpu-" + MODE})
    elif kind == "ping":
        send({"type": "pong", "id": msg["id"]})
    elif kind == "game_start" and MODE == "hog" and not hogging:
        hogging = True
        for _ in range(int(ARG)):
            if os.fork() == 0:
                while True:
                    pass
    elif kind == "move_request":
        if MODE == "sleep":
            time.sleep(ARG)
        elif MODE == "work":
            work(ARG)
        elif MODE == "spin":
            while True:
                pass
        send({"type": "move", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))})
