#!/usr/bin/env python3
"""Property-based fuzzing of the bones decoders with hypothesis.

    python fuzz/hypo.py --max-examples 200            # every decoder
    python fuzz/hypo.py --decoder game --max-examples 5000

Inputs: random bytes, seed encodings (fuzz/bones_fuzz.py's corpus) with a value that
hypothesis picks put at a path that hypothesis picks, byte splices, and the long runner's
mutators; random and regex-shaped texts and non-str values for ``Move.parse`` /
``Tile.parse``; variant, player count and option dicts for option resolution.  The
property is the one fuzz/run.py checks (bones_fuzz.TARGETS).  A failure prints the
falsifying example and exits 1.  Run it in a subprocess (tests/test_fuzz.py does): a
crash of the compiled core then fails the caller instead of killing it.
"""

from __future__ import annotations

import argparse
import random
import sys
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bones_fuzz  # noqa: E402
import msgpack  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from known_issues import known  # noqa: E402

import bones  # noqa: E402

CORPUS = bones_fuzz.build_corpus(rounds_per_case=2, games_per_case=1)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.sampled_from(bones_fuzz.INTERESTING_INTS)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(bones_fuzz.INTERESTING_STRS)
    | st.binary(max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.integers(-3, 5), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def encodings(draw: Any, decoder: str) -> bytes:
    pool: list[bytes] = CORPUS.of(decoder)
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return bytes(draw(st.binary(max_size=300)))
    seed = draw(st.sampled_from(pool))
    if kind == 1:  # a value at a path, both picked by hypothesis
        obj = msgpack.unpackb(seed, raw=False, strict_map_key=False)
        paths = bones_fuzz._paths(obj)[1:]
        path = draw(st.sampled_from(paths))
        parent = bones_fuzz._at(obj, path[:-1])
        parent[path[-1]] = draw(values)
        try:
            return bytes(msgpack.packb(obj, use_bin_type=True))
        except Exception:
            return seed
    if kind == 2:  # a byte splice
        pos = draw(st.integers(0, len(seed)))
        cut = draw(st.integers(0, 8))
        return seed[:pos] + draw(st.binary(max_size=8)) + seed[pos + cut :]
    rng = random.Random(draw(st.integers(0, 2**32)))
    return bones_fuzz.mutate(rng, seed, pool)


def texts(decoder: str) -> Any:
    pool = CORPUS.of(decoder)
    shaped = st.from_regex(
        r"\s*[0-9]-[0-9](@[WENSwensx][0-9]?)?(\+[0-9]-[0-9]@[WENS][0-9]?)?!?\s*", fullmatch=True
    )
    spliced = st.builds(
        lambda seed, pos, text: seed[:pos] + text + seed[pos:],
        st.sampled_from(pool),
        st.integers(0, 14),
        st.text(max_size=4),
    )
    others = st.none() | st.integers() | st.floats() | st.binary(max_size=8) | st.lists(st.text())
    return st.text(max_size=40) | shaped | spliced | st.sampled_from(pool) | others


_NAMES = sorted({n for v in bones.variants() for n in bones.variant(v).options})
_CHOICES = sorted(
    {
        c
        for v in bones.variants()
        for o in bones.variant(v).options.values()
        for c in (o.choices or ())
    },
    key=repr,
)


def option_sets() -> Any:
    option_values = (
        st.sampled_from(_CHOICES)
        | values
        | st.integers(-5, 2**33)
        | st.dictionaries(st.integers(0, 5) | st.text(max_size=2), st.integers(-2, 30))
    )
    return st.tuples(
        st.sampled_from(bones.variants()) | st.text(max_size=6) | st.none(),
        st.integers(-1, 6) | st.sampled_from((2.0, True, None, "2", 2**64)),
        st.dictionaries(st.sampled_from([*_NAMES, "x", "set"]), option_values, max_size=4),
    )


STRATEGIES = {
    "round": encodings("round"),
    "observation": encodings("observation"),
    "game": encodings("game"),
    "move": texts("move"),
    "tile": texts("tile"),
    "options": option_sets(),
}

seen_known: dict[str, int] = {}


def check(decoder: str, value: Any) -> None:
    try:
        bones_fuzz.run_one(decoder, value)
    except Exception as exc:
        issue = known(decoder, exc, traceback.format_exc())
        if issue is None:
            raise
        seen_known[decoder] = seen_known.get(decoder, 0) + 1


def fuzz(decoder: str, max_examples: int, derandomize: bool) -> None:
    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=list(HealthCheck),
    )
    @given(STRATEGIES[decoder])
    def property_holds(value: Any) -> None:
        check(decoder, value)

    property_holds()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decoder", default="all")
    parser.add_argument("--max-examples", type=int, default=200)
    parser.add_argument("--derandomize", action="store_true", help="the same inputs every run")
    args = parser.parse_args(argv)
    decoders = bones_fuzz.DECODERS if args.decoder == "all" else args.decoder.split(",")
    failed = False
    for decoder in decoders:
        try:
            fuzz(decoder, args.max_examples, args.derandomize)
            status = "ok"
        except Exception as exc:  # hypothesis re-raises the falsifying example's error
            traceback.print_exc()
            status = f"FAILED: {type(exc).__name__}: {str(exc)[:200]}"
            failed = True
        print(
            f"{decoder:12} {args.max_examples} examples  known {seen_known.get(decoder, 0)}  "
            f"{status}",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
