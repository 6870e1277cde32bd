"""bench/strength-archive, the committed copies of the strength run's journals: each is a
journal of the pairing its name says, which the page and ``--resume`` can read."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from bones.match.journal import JOURNAL_VERSION

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import strength  # noqa: E402

COPIES = sorted((BENCH / "strength-archive").glob("*.jsonl.gz"))
OPPONENTS = (*strength.OPPONENTS, "montecarlo:simulations=6400", "pimc", "dominoes-pab")


def pairings() -> dict[str, tuple[str, str, str]]:
    """Every pairing bench/strength.py plays, by journal name."""
    out = {}
    for config in strength.CONFIGS:
        for bot in strength.BOTS:
            for opponent in OPPONENTS:
                out[strength.journal_name(bot, opponent, config, 0)] = (bot, opponent, config)
    return out


def test_the_archive_is_there() -> None:
    assert COPIES, "bench/strength-archive holds no copy"


@pytest.mark.parametrize("copy", COPIES, ids=[c.name for c in COPIES])
def test_each_copy_is_the_journal_of_its_pairing(copy: Path) -> None:
    bot, opponent, config = pairings()[copy.name.removesuffix(".gz")]
    with gzip.open(copy, "rb") as f:
        header = json.loads(f.readline())
        first = f.readline()
    assert header["type"] == "match" and header["version"] == JOURNAL_VERSION
    variant, players = config.split(":")
    match = header["config"]
    assert match["bots"] == [bot, opponent]
    assert (match["variant"], match["players"], match["seed"]) == (variant, int(players), 0)
    assert match["duplicate"] and match["secret"]
    if first:
        game = json.loads(first)
        assert game["type"] in ("game", "resume") and game.get("rounds", []) == []
