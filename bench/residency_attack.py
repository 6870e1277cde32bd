"""How much a sandboxed bot carries from one game to the next through the page cache of a
shared read-only file (issue 43): the attack, and the rate that remains.

    nice -n 5 python bench/residency_attack.py --games 40            # warmed (default)
    BONES_SANDBOX_WARM=0 nice -n 5 python bench/residency_attack.py --games 40 --cold

The attacking bot (written to an entry folder of its own, run by ``bones match
--sandbox`` against ``greedy``, one game at a time) maps the largest static library of
its Python installation (``libpython3.11.a``: bound read-only and shared by every bot,
read by no one) with ``MADV_RANDOM`` (no read-ahead) and uses it as a write-once memory
of 65-page regions: it times the first touch of each region's marker page (a page not
in memory takes a disk read, hundreds of µs; one in memory, a few) to find the first
region no game has claimed, reads the 64 data pages of the region before it by timing
(the word the game before left there), then touches the data pages of the 1 bits of a
random 64-bit word of its own (bringing them into memory) and plays on at random.  The
driver matches each game's reading with the word the game before wrote: the bits right
(50% is chance), the words whose first 28 bits came through exactly (a hand of 7 of 28
tiles is 28 bits as a mask) and the bits per game that come through (``64 · (1 −
H(error rate))``, the capacity of a binary symmetric channel).

``--cold`` first drops the file's pages (``posix_fadvise(DONTNEED)`` by this process,
outside the sandbox) so the memory starts empty, as on a machine where nobody read it:
with ``BONES_SANDBOX_WARM=0`` that is the channel of bones before issue 43.  Without it
(the runner warms every shared file before the match) every probe reads "in memory".
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
from pathlib import Path

BOT = r"""
import mmap, os, random, runpy, sys, sysconfig, time

def target():
    folder = sysconfig.get_config_var("LIBPL") or ""
    best = None
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        path = os.path.join(folder, name)
        if name.endswith(".a") and (best is None or os.path.getsize(path) > os.path.getsize(best)):
            best = path
    return best

PAGE, REGION, SLOW_NS = 4096, 65, 40_000
path = target()
word = random.SystemRandom().getrandbits(64)
claimed, read, times = -1, None, []
if path:
    f = open(path, "rb")
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    m.madvise(mmap.MADV_RANDOM)
    pages = len(m) // PAGE

    def touch(page):
        t = time.perf_counter_ns()
        m[page * PAGE]
        return time.perf_counter_ns() - t

    regions = pages // REGION
    for r in range(regions):
        spent = touch(r * REGION)
        times.append(spent)
        if spent > SLOW_NS:  # not in memory: nobody claimed it (now this game has)
            claimed = r
            break
    if claimed > 0:
        base = (claimed - 1) * REGION + 1
        read = sum((touch(base + i) < SLOW_NS) << i for i in range(64))
    if claimed >= 0:
        base = claimed * REGION + 1
        for i in range(64):
            if word >> i & 1:
                touch(base + i)
fast = sorted(times)[: len(times) // 2 or 1]
print(f"RESIDENCY claimed={claimed} wrote={word} read={read} probes={len(times)} "
      f"marker_ns={times[-1] if times else -1} fast_ns={fast[-1] if fast else -1}",
      file=sys.stderr, flush=True)
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _drop(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _target() -> str:
    import sysconfig

    folder = sysconfig.get_config_var("LIBPL")
    files = [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".a")]
    return max(files, key=os.path.getsize)


def _entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def run(games: int, cold: bool) -> dict[str, float]:
    from bones.match.runner import MatchConfig, run_match

    here = Path(__file__).resolve().parent.parent
    target = _target()
    if cold:
        _drop(target)
    with tempfile.TemporaryDirectory() as tmp:
        entry = Path(tmp) / "entry"
        entry.mkdir()
        bot = entry / "bot.py"
        bot.write_text(BOT)
        player = entry / "random_bot.py"
        player.write_text((here / "examples" / "python" / "random_bot.py").read_text())
        for p in (entry, bot, player):
            p.chmod(0o755 if p.is_dir() else 0o644)
        run_dir = Path(tmp) / "run"
        run_dir.mkdir()
        logs = run_dir / "logs"
        old = os.getcwd()
        os.chdir(run_dir)
        try:
            config = MatchConfig(
                bots=(f"cmd:{sys.executable} {bot} {player}", "greedy"), variant="block",
                games=games, sandbox=True, bot_logs=str(logs), timeout=30.0,
            )  # fmt: skip
            run_match(config, run_dir / "m.jsonl", jobs=1, progress=False)
        finally:
            os.chdir(old)
        found = []
        for log in sorted(logs.glob("*.log")):
            for line in log.read_text(errors="replace").splitlines():
                m = re.match(r"RESIDENCY claimed=(-?\d+) wrote=(\d+) read=(\w+)", line)
                if m:
                    read = None if m.group(3) == "None" else int(m.group(3))
                    found.append((int(m.group(1)), int(m.group(2)), read))
    by_region = {c: w for c, w, _ in found if c >= 0}
    right = total = exact = pairs = 0
    for claimed, _, read in found:
        if claimed > 0 and read is not None and claimed - 1 in by_region:
            wrote = by_region[claimed - 1]
            pairs += 1
            right += 64 - bin(wrote ^ read).count("1")
            total += 64
            exact += (wrote ^ read) & ((1 << 28) - 1) == 0
    claims = sum(c >= 0 for c, _, _ in found)
    rate = right / total if total else float("nan")
    error = 1 - rate if total else float("nan")
    capacity = 64 * (1 - _entropy(min(max(error, 0.0), 1.0))) if total else 0.0
    if total and rate < 0.5:  # a channel that inverts bits still carries them
        capacity = 64 * (1 - _entropy(error))
    return {
        "games": len(found),
        "claims": claims,
        "pairs": pairs,
        "bits_right": rate,
        "hands_exact": exact,
        "bits_per_game": capacity,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--cold", action="store_true", help="drop the file's pages first")
    args = parser.parse_args()
    out = run(args.games, args.cold)
    warm = os.environ.get("BONES_SANDBOX_WARM") != "0"
    print(
        f"games {out['games']} (warmed: {warm}, cold start: {args.cold}): regions claimed "
        f"{out['claims']}, readings of the game before {out['pairs']}, bits right "
        f"{100 * out['bits_right']:.1f}%, first 28 bits exact {out['hands_exact']} of "
        f"{out['pairs']}, about {out['bits_per_game']:.1f} bits per game"
    )


if __name__ == "__main__":
    main()
