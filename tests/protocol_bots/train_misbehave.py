"""A protocol bot (msgpack and the standard library only) for the train games that
misbehaves at its first move request, in the way its argument names, and plays a random
legal index otherwise:

    python train_misbehave.py MODE

* ``six``: answers the double-six move ``6-4@W``;
* ``not_held``: answers a placement of a tile already on the table (not in its hand);
* ``private``: answers a tile of its hand on another seat's private train;
* ``index``: answers index 999;
* ``wrong_type``: answers ``"move": 7``;
* ``good``: never misbehaves.
"""

import os
import random
import struct
import sys

import msgpack

MODE = sys.argv[1]
OUT = sys.stdout.fileno()


def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


def send(message):
    body = msgpack.packb(message, use_bin_type=True)
    os.write(OUT, struct.pack(">I", len(body)) + body)


def bad_answer(message):
    """The misbehaving answer to a move request (None: play normally)."""
    obs = msgpack.unpackb(message["observation"], raw=False)
    assert obs[1] == "train_observation", obs[:2]
    seat, hand, trains, pending, placements = obs[2], obs[9], obs[12], obs[13], obs[15]
    if MODE == "six":
        return {"move": "6-4@W"}
    if MODE == "not_held":
        tile = placements[0][1] if placements else None
        target = message["legal"][0].split("@")[1]
        return {"move": f"{tile}@{target}"} if tile else None
    if MODE == "private":
        private = [
            s for s, (_, _, public) in enumerate(trains[:-1])
            if s != seat and not public and pending != f"P{s}"
        ]  # fmt: skip
        return {"move": f"{hand[0]}@P{private[0]}"} if private else None
    if MODE == "index":
        return {"index": 999}
    if MODE == "wrong_type":
        return {"move": 7}
    return None


def main():
    rng = random.Random(1)
    misbehaved = False
    while True:
        (n,) = struct.unpack(">I", read_exactly(4))
        message = msgpack.unpackb(read_exactly(n), raw=False, strict_map_key=False)
        kind = message.get("type")
        if kind == "quit":
            return 0
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": f"train-misbehave-{MODE}"})
        elif kind == "ping":
            send({"type": "pong", "id": message["id"]})
        elif kind == "move_request":
            answer = None if misbehaved else bad_answer(message)
            if answer is None:
                answer = {"index": rng.randrange(len(message["legal"]))}
            else:
                misbehaved = True
            send({"type": "move", "id": message["id"], **answer})


if __name__ == "__main__":
    sys.exit(main())
