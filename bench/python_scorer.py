"""What a Python ``move_scorer`` costs the compiled bots: All Fives written in Python
(``py-fives``) against the built-in Straight, same positions, same bots, one after the
other in one process.

    python bench/python_scorer.py --positions 30

For each bot and player count: the mean CPU milliseconds per decision and, for the
searches with a time budget, the mean samples (``pimc``) or iterations (``ismcts``) a
decision used.  The two variants score every move alike (tests/test_python_scorer.py),
so the difference is the price of a Python call per placement.
"""

from __future__ import annotations

import argparse
import statistics
import time

from strength import positions  # bench/strength.py: the same mid-round positions

import bones
from bones import registry
from bones.plugins import hookimpl
from bones.plugins.manager import get_plugin_manager

BOTS = ("expert", "montecarlo", "pimc", "ismcts")


def fives(layout: object, move: object, count: int) -> int:
    """All Fives, as the core counts it."""
    return count if count > 0 and count % 5 == 0 else 0


class _Plugin:
    @hookimpl
    def register_variants(self, register):  # type: ignore[no-untyped-def]
        register(bones.variant("straight").with_defaults("py-fives", move_scorer=fives))


def measure(spec: str, rounds: list[bones.Round]) -> tuple[float, float]:
    """Mean CPU ms per decision and mean samples (or iterations) per decision."""
    bot = bones.make_bot(spec, seed=1)
    cpu, used = [], []
    for rnd in rounds:
        obs = rnd.observation(rnd.to_move or 0)
        legal = tuple(rnd.legal_moves)
        start = time.process_time()
        bot.choose(obs, legal)
        cpu.append(time.process_time() - start)
        used.append(getattr(bot, "last_samples", getattr(bot, "last_iterations", 0)))
    return 1000 * statistics.mean(cpu), statistics.mean(used)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--players", default="2,4")
    args = parser.parse_args(argv)
    get_plugin_manager().register(_Plugin(), name="bench-python-scorer")
    registry.reset(plugins=False)
    print(
        "| players | bot | CPU ms/decision: built-in, Python scorer | samples/decision: "
        "built-in, Python scorer |"
    )
    print("|---|---|---|---|")
    for players in map(int, args.players.split(",")):
        builtin = positions("straight", players, args.positions)
        python = positions("py-fives", players, args.positions)
        for spec in BOTS:
            (ms_b, n_b), (ms_p, n_p) = measure(spec, builtin), measure(spec, python)
            samples = f"{n_b:.0f}, {n_p:.0f}" if spec in ("pimc", "ismcts") else "—"
            print(f"| {players} | `{spec}` | {ms_b:.3f}, {ms_p:.3f} | {samples} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
