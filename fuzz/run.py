#!/usr/bin/env python3
"""Long fuzz runs of the bones decoders, crash-safe.

    python fuzz/run.py --decoder round --count 1000000
    python fuzz/run.py --decoder all --count 1000000 --out fuzz/crashes --json

Feeds ``--count`` mutated inputs (fuzz/bones_fuzz.py: mutated real encodings, random
bytes, mutated texts and option sets) to each decoder, in a forked child process, one
decoder at a time and on one core.  The parent watches the child: a child killed by a
signal (a segfault in the compiled core) is a *crash*, an input that takes longer than
``--timeout`` seconds is a *hang*; either way the input is saved to ``--out`` and the run
goes on with the next input in a new child.  An exception other than the documented one
is an *other*: the first few of each kind are written, with the input and the traceback,
to ``--out/findings-DECODER.jsonl``.

Counts per decoder: inputs, accepted, rejected (the documented exception), other,
known (an *other* matching a known, reported core issue: fuzz/known_issues.py), crashes,
hangs.  Exit status 1 if any decoder has an other, a crash or a hang.
Inputs are made from ``(--seed, index)``, so ``--replay DECODER:INDEX`` makes one again.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import signal
import struct
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bones_fuzz  # noqa: E402
from known_issues import known  # noqa: E402

# shared counters: current index, inputs done, accepted, rejected, other, known
_SLOTS = ("current", "inputs", "accepted", "rejected", "other", "known")
_FMT = "<" + "q" * len(_SLOTS)
_MAX_FINDINGS_PER_KIND = 5


def _selftest(value: Any, rng: Any) -> str:
    """A target that segfaults on inputs divisible by 97 and hangs on 500 (tests)."""
    index = value
    if index % 97 == 0 and index:
        import ctypes

        ctypes.string_at(0)  # SIGSEGV
    if index == 500:
        time.sleep(3600)
    if index % 11 == 0:
        raise KeyError("an undocumented exception")
    return "accepted" if index % 2 else "rejected"


def _make(decoder: str, corpus: bones_fuzz.Corpus, seed: int, index: int) -> Any:
    if decoder == "selftest":
        return index
    return bones_fuzz.make_input(decoder, corpus, seed, index)


def _run(decoder: str, value: Any, index: int) -> str:
    if decoder == "selftest":
        return _selftest(value, None)
    return bones_fuzz.run_one(decoder, value, index)


def _child(
    decoder: str, corpus: bones_fuzz.Corpus, seed: int, start: int, count: int, shm: mmap.mmap,
    findings: Path,
) -> None:  # fmt: skip
    counts = dict(zip(_SLOTS, struct.unpack(_FMT, shm[: struct.calcsize(_FMT)]), strict=True))
    kinds: dict[str, int] = {}
    for index in range(start, count):
        counts["current"] = index
        shm[: struct.calcsize(_FMT)] = struct.pack(_FMT, *counts.values())
        value = _make(decoder, corpus, seed, index)
        try:
            counts[_run(decoder, value, index)] += 1
        except Exception as exc:
            tb = traceback.format_exc()
            issue = known(decoder, exc, tb)
            slot = "known" if issue else "other"
            counts[slot] += 1
            kind = f"{slot}:{type(exc).__name__}:{str(exc)[:80]}"
            kinds[kind] = kinds.get(kind, 0) + 1
            if kinds[kind] <= _MAX_FINDINGS_PER_KIND:
                with findings.open("a", encoding="utf-8") as out:
                    record = {
                        "decoder": decoder,
                        "index": index,
                        "seed": seed,
                        "slot": slot,
                        "known_issue": issue,
                        "exception": f"{type(exc).__name__}: {exc}"[:2000],
                        "input": bones_fuzz.describe(value)[:20000],
                        "traceback": tb[-4000:],
                    }
                    out.write(json.dumps(record) + "\n")
        counts["inputs"] += 1
    counts["current"] = count
    shm[: struct.calcsize(_FMT)] = struct.pack(_FMT, *counts.values())


def _save(out: Path, what: str, decoder: str, index: int, value: Any, detail: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{what}-{decoder}-{index}.txt"
    path.write_text(
        f"{what} of decoder {decoder!r} at input {index}: {detail}\n"
        f"replay: python fuzz/run.py --replay {decoder}:{index}\n"
        f"input: {bones_fuzz.describe(value)}\n",
        encoding="utf-8",
    )
    return path


def fuzz_decoder(
    decoder: str,
    corpus: bones_fuzz.Corpus,
    *,
    count: int,
    seed: int,
    timeout: float,
    out: Path,
    progress: bool = False,
) -> dict[str, Any]:
    """Run ``count`` inputs through ``decoder`` in forked children; return the counts."""
    out.mkdir(parents=True, exist_ok=True)
    findings = out / f"findings-{decoder}.jsonl"
    size = struct.calcsize(_FMT)
    shm = mmap.mmap(-1, size)
    shm[:size] = struct.pack(_FMT, *([0] * len(_SLOTS)))
    crashes = hangs = 0
    saved: list[str] = []
    start = 0
    t0 = time.monotonic()
    last_report = t0
    while start < count:
        pid = os.fork()
        if pid == 0:  # the child: run, then leave without cleanup handlers
            status = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _child(decoder, corpus, seed, start, count, shm, findings)
            except BaseException:
                traceback.print_exc()
                status = 3
            finally:
                os._exit(status)
        seen = -1
        seen_at = time.monotonic()
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            counts = dict(zip(_SLOTS, struct.unpack(_FMT, shm[:size]), strict=True))
            now = time.monotonic()
            if done:
                break
            marker = counts["current"] * 2 + counts["inputs"]
            if marker != seen:
                seen, seen_at = marker, now
            elif now - seen_at > timeout:  # no progress: the current input hangs
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                status = -1
                break
            if progress and now - last_report > 30:
                last_report = now
                done_n = counts["inputs"] + crashes + hangs
                print(
                    f"  {decoder}: {done_n}/{count} inputs, {now - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
            time.sleep(0.02)
        counts = dict(zip(_SLOTS, struct.unpack(_FMT, shm[:size]), strict=True))
        current = counts["current"]
        if status == 0 and current >= count:
            break
        try:
            value = _make(decoder, corpus, seed, current)
        except Exception as exc:  # a bug of the fuzzer itself: say so, keep the index
            value = f"<input {current} could not be made: {type(exc).__name__}: {exc}>"
        if status == -1:
            hangs += 1
            saved.append(str(_save(out, "hang", decoder, current, value, f"over {timeout} s")))
        else:
            crashes += 1
            how = (
                f"killed by signal {os.WTERMSIG(status)}"
                if os.WIFSIGNALED(status)
                else f"exit status {os.WEXITSTATUS(status)}"
            )
            saved.append(str(_save(out, "crash", decoder, current, value, how)))
        start = current + 1
        # the input that crashed or hung is counted as an input, not by the child
        counts["current"] = start
        shm[:size] = struct.pack(_FMT, *counts.values())
    counts = dict(zip(_SLOTS, struct.unpack(_FMT, shm[:size]), strict=True))
    shm.close()
    return {
        "decoder": decoder,
        "inputs": counts["inputs"] + crashes + hangs,
        "accepted": counts["accepted"],
        "rejected": counts["rejected"],
        "other": counts["other"],
        "known": counts["known"],
        "crashes": crashes,
        "hangs": hangs,
        "seconds": round(time.monotonic() - t0, 1),
        "saved": saved,
        "findings": str(findings) if findings.exists() else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--decoder",
        default="all",
        help=f"one of {', '.join(bones_fuzz.DECODERS)}, or 'all' (default)",
    )
    parser.add_argument("--count", type=int, default=10000, help="inputs per decoder")
    parser.add_argument("--seed", type=int, default=0, help="seed of the inputs")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per input")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "crashes",
        help="where crashing and hanging inputs and the findings go (default fuzz/crashes)",
    )
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--progress", action="store_true", help="report every 30 s on stderr")
    parser.add_argument("--replay", metavar="DECODER:INDEX", help="run one input in-process")
    args = parser.parse_args(argv)
    corpus = bones_fuzz.build_corpus()
    if args.replay:
        decoder, _, index = args.replay.partition(":")
        value = _make(decoder, corpus, args.seed, int(index))
        print(f"input: {bones_fuzz.describe(value)}")
        print(f"result: {_run(decoder, value, int(index))}")
        return 0
    if args.decoder == "all":
        decoders = list(bones_fuzz.DECODERS)
    else:
        decoders = args.decoder.split(",")
    for decoder in decoders:
        if decoder not in bones_fuzz.DECODERS and decoder != "selftest":
            parser.error(f"unknown decoder {decoder!r}")
    results = []
    bad = False
    for decoder in decoders:
        result = fuzz_decoder(
            decoder,
            corpus,
            count=args.count,
            seed=args.seed,
            timeout=args.timeout,
            out=args.out,
            progress=args.progress,
        )
        results.append(result)
        bad |= bool(result["other"] or result["crashes"] or result["hangs"])
        if not args.json:
            print(
                f"{decoder:12} inputs {result['inputs']:>9}  accepted {result['accepted']:>8}  "
                f"rejected {result['rejected']:>9}  other {result['other']:>5}  "
                f"known {result['known']:>6}  crashes {result['crashes']:>3}  "
                f"hangs {result['hangs']:>3}  {result['seconds']:>8.1f} s",
                flush=True,
            )
    if args.json:
        print(json.dumps(results, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
