#!/usr/bin/env python3
"""A complete bones bot in plain Python: the bones-bot protocol 1 (docs/protocol.md) with
nothing but ``msgpack`` and the standard library -- it does not import bones.

It plays a uniformly random legal move from its own seeded generator, by its index in
``legal``, so it plays every variant, the train games (Mexican Train, Chicken Foot)
too, without reading an observation:

    python examples/python/random_bot.py [SEED]

The seed is the first argument if given, else the ``seed`` of each ``game_start``.  It
reads frames (a 4-byte big-endian length, then one msgpack map) from stdin, answers
``hello``, ``ping`` and ``move_request``, ignores every other message type (and every
field it does not know), and exits at ``quit`` or at the end of its input.  It logs to
stderr only: stdout carries the frames.
"""

import os
import random
import struct
import sys

import msgpack

MAX_FRAME = 1 << 20  # the runner's messages are a few KiB at most


class Frames:
    """Frames from a file descriptor.  It reads large chunks (one read for the events and
    the move request that the runner writes together) and keeps an offset into them, so
    that taking a frame copies only that frame."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""
        self.pos = 0

    def read(self, n):
        """``n`` bytes, or None at the end of the input."""
        end = self.pos + n
        if end > len(self.buf):
            parts = [self.buf[self.pos :]]
            have = len(parts[0])
            while have < n:
                chunk = os.read(self.fd, max(65536, n - have))
                if not chunk:
                    return None
                parts.append(chunk)
                have += len(chunk)
            self.buf, self.pos, end = b"".join(parts), 0, n
        data = self.buf[self.pos : end]
        self.pos = end
        return data

    def next(self):
        """The next message (a dict), or None at the end of the input."""
        head = self.read(4)
        if head is None:
            return None
        (length,) = struct.unpack(">I", head)
        if length > MAX_FRAME:
            raise SystemExit(f"random_bot: a frame of {length} bytes is too large")
        body = self.read(length)
        if body is None:
            return None
        return msgpack.unpackb(body, raw=False, strict_map_key=False)


def send(fd, message):
    body = msgpack.packb(message, use_bin_type=True)
    data = struct.pack(">I", len(body)) + body  # one write: the runner wakes up once
    while data:
        data = data[os.write(fd, data) :]


def main():
    fixed_seed = int(sys.argv[1]) if len(sys.argv) > 1 else None
    rng = random.Random(fixed_seed or 0)
    frames = Frames(sys.stdin.fileno())
    out = sys.stdout.fileno()
    while True:
        message = frames.next()
        if message is None or message.get("type") == "quit":
            return 0
        kind = message.get("type")
        if kind == "hello":
            send(
                out,
                {
                    "type": "hello",
                    "protocol": 1,
                    "name": "example-random",
                    "author": "the bones examples",
                    "version": "1.0",
                    "variants": None,  # plays every variant
                    "options": {},
                },
            )
        elif kind == "ping":
            send(out, {"type": "pong", "id": message.get("id")})
        elif kind == "game_start":
            seed = message.get("seed")
            if fixed_seed is None and isinstance(seed, int):
                rng = random.Random(seed)
            print(
                f"random_bot: seat {message.get('seat')} of {message.get('variant')}",
                file=sys.stderr,
            )
        elif kind == "move_request":
            legal = message["legal"]
            send(out, {"type": "move", "id": message["id"], "index": rng.randrange(len(legal))})
        # round_start, event, round_end, game_end and unknown types: nothing to do


if __name__ == "__main__":
    sys.exit(main())
