#!/usr/bin/env python3
"""A bones bot written from docs/protocol.md alone: msgpack and the standard library, no
bones.  Where examples/python/random_bot.py answers with an index, this one reads the
move texts by the grammar of "Move text" and answers with a text:

* it claims a count first (``muggins``), then plays the placement that puts down the
  most pips (a double-double counts both doubles), with its ``!`` when there is one;
* it draws rather than passes when it has no placement;
* in a train game (Mexican Train, Chicken Foot: moves such as ``12-5@M``, ``7-3@P1``,
  ``9-4@9-9``) it plays the tile with the most pips, on its own train first.

    python examples/python/minimal_bot.py [--variants straight,draw] [--name NAME]

``--variants`` is the list its hello sends (default: nil, every variant).
"""

import re
import struct
import sys

import msgpack

# The grammar of docs/protocol.md, "Move text", as a regular expression.
TILE = r"(?:0-0|1-[0-1]|2-[0-2]|3-[0-3]|4-[0-4]|5-[0-5]|6-[0-6])"
END = r"(?:[WENS]|[NS][2-7])"
MOVE = re.compile(
    rf"(?P<first>{TILE})(?:@{END}(?:\+(?P<second>{TILE})@{END})?)?(?P<claim>!)?"
    r"|draw|pass|muggins"
)

# The train games' moves ("Train move text"): a tile of a double-6, -9 or -12 set, the
# higher half first, placed on the Mexican train (M), a seat's train (P0 to P7) or, in
# Chicken Foot, the end hanging from an anchor tile.
NUMBER = r"(?:[0-9]|1[0-2])"
SET_TILE = rf"{NUMBER}-{NUMBER}"
TRAIN_MOVE = re.compile(rf"(?P<tile>{SET_TILE})@(?P<target>M|P[0-7]|{SET_TILE})")


def pips(tile):
    high, low = tile.split("-")
    return int(high) + int(low)


def score(text):
    """How much this bot likes the move ``text`` (a canonical move text)."""
    train = TRAIN_MOVE.fullmatch(text)
    if train is not None:  # the most pips; its own train (P<seat>) breaks ties
        return 10 * pips(train["tile"]) + (1 if train["target"] == f"P{SEAT}" else 0)
    match = MOVE.fullmatch(text)
    if match is None:
        raise ValueError(f"minimal_bot: {text!r} is not a move text")
    if text == "muggins":
        return 1000
    if match["first"] is None:  # draw or pass
        return -2 if text == "pass" else -1
    weight = pips(match["first"]) + (pips(match["second"]) if match["second"] else 0)
    return 10 * weight + (1 if match["claim"] else 0)


SEAT = -1  # this bot's seat in the current game (game_start)


def read_exactly(stream, n):
    data = stream.read(n)
    return data if len(data) == n else None


def main(argv):
    global SEAT
    variants, name = None, "example-minimal"
    args = iter(argv)
    for arg in args:
        if arg == "--variants":
            variants = [v for v in next(args, "").split(",") if v]
        elif arg == "--name":
            name = next(args, name)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer

    def send(message):
        body = msgpack.packb(message, use_bin_type=True)
        stdout.write(struct.pack(">I", len(body)) + body)
        stdout.flush()

    while True:
        head = read_exactly(stdin, 4)
        if head is None:
            return 0
        body = read_exactly(stdin, struct.unpack(">I", head)[0])
        if body is None:
            return 0
        # per-player-count options (hand_size) are maps with int keys
        message = msgpack.unpackb(body, raw=False, strict_map_key=False)
        kind = message.get("type")
        if kind == "quit":
            return 0
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": name, "variants": variants})
        elif kind == "ping":
            send({"type": "pong", "id": message["id"]})
        elif kind == "game_start":
            SEAT = message.get("seat", -1)
        elif kind == "move_request":
            best = max(message["legal"], key=score)
            send({"type": "move", "id": message["id"], "move": best})
        # every other message, known or not: nothing to do


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
