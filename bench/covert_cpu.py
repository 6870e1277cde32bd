"""The CPU-contention covert channel between two sandboxed bots (issue 32, item 8): how
many bits one sandbox passes to another running at the same time, with the sandbox's
CPU quota (1 CPU per bot by default) in force.

    python bench/covert_cpu.py                   # 400 bits in 50 ms slots, 2 sender processes
    python bench/covert_cpu.py --bits 400 --slot 0.05 --spinners 2 --cpus 1

Both run inside ``bones.protocol.sandbox.wrap`` (as ``bones match --sandbox`` runs a
bot, cgroup and CPU quota included where the machine has them) and start together at a
wall-clock time given on their command lines. In each slot the sender spins
``--spinners`` processes for a 1 bit and sleeps for a 0; the receiver counts the turns
of a loop of its own in each slot and reads a 1 where the count is below the median.
The script prints the bits received right, their share with a 95% Wilson interval, and
the bandwidth (right bits per second) — a lower bound of what a cleverer code would get
on this machine at this load. Run with ``nice -n 5`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)


def _wait(until: float) -> None:
    while time.time() < until:
        time.sleep(min(0.01, max(0.0, until - time.time())))


def send(start: float, slot: float, bits: str, spinners: int) -> None:
    """Spin ``spinners`` processes in the slots of the 1 bits."""
    children = []
    for _ in range(spinners):
        pid = os.fork()
        if pid == 0:
            _wait(start)
            for i, bit in enumerate(bits):
                end = start + (i + 1) * slot
                if bit == "1":
                    while time.time() < end:
                        pass
                else:
                    _wait(end)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)


def receive(start: float, slot: float, count: int) -> None:
    """Print the loop turns of each slot (JSON)."""
    _wait(start)
    turns = []
    for i in range(count):
        end = start + (i + 1) * slot
        n = 0
        while time.time() < end:
            n += 1
        turns.append(n)
    print(json.dumps(turns))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", type=int, default=400)
    parser.add_argument("--slot", type=float, default=0.05, help="seconds per bit (0.05)")
    parser.add_argument("--spinners", type=int, default=2, help="sender processes (2)")
    parser.add_argument("--cpus", type=float, default=1.0, help="each bot's CPU quota (1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--role", choices=("send", "receive"), help=argparse.SUPPRESS)
    parser.add_argument("--start", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--message", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "send":
        send(args.start, args.slot, args.message, args.spinners)
        return 0
    if args.role == "receive":
        receive(args.start, args.slot, args.bits)
        return 0

    from bones.protocol.sandbox import Launch, SandboxPolicy, limits, wrap

    policy = SandboxPolicy(cpus=args.cpus, processes=16)
    rng = random.Random(args.seed)
    message = "".join(rng.choice("01") for _ in range(args.bits))
    start = time.time() + 2.0
    common = [sys.executable, HERE, "--start", repr(start), "--slot", str(args.slot)]
    common += ["--bits", str(args.bits), "--spinners", str(args.spinners)]
    sender = Launch(wrap([*common, "--role", "send", "--message", message], policy, cwd="/"))
    receiver = Launch(wrap([*common, "--role", "receive"], policy, cwd="/"))
    try:
        procs = [
            subprocess.Popen(job.argv, pass_fds=job.fds, stdout=subprocess.PIPE, text=True)
            for job in (sender, receiver)
        ]
        for job in (sender, receiver):
            job.started()
        out = procs[1].communicate(timeout=args.bits * args.slot + 60)[0]
        procs[0].wait(timeout=60)
    finally:
        sender.close()
        receiver.close()
    turns = json.loads(out)
    middle = sorted(turns)[len(turns) // 2]
    got = "".join("1" if n < middle else "0" for n in turns)
    right = sum(a == b for a, b in zip(got, message, strict=True))
    low, high = wilson(right, args.bits)
    print(f"bones: {limits(policy)}")
    print(
        f"{right} of {args.bits} bits right ({right / args.bits:.1%}, 95% interval "
        f"[{low:.1%}, {high:.1%}]) in {args.slot * 1000:.0f} ms slots, {args.spinners} "
        f"sender processes, quota {args.cpus:g} CPU per bot; load "
        f"{os.getloadavg()[0]:.1f}"
    )
    # the capacity of a binary symmetric channel with that error rate, per second
    error = min(max(1 - right / args.bits, 1e-9), 1 - 1e-9)
    entropy = -error * math.log2(error) - (1 - error) * math.log2(1 - error)
    print(f"about {(1 - entropy) / args.slot:.1f} bits/s (the capacity at that error rate)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
