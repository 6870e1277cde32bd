"""Speed measurements shared by ``bones bench`` and the bench/ folder.

``python_loop`` drives rounds through the public Python API (one ``play`` call per move);
``core_playouts`` runs the core's random playouts with a round count calibrated to take
about the requested time: the ``playouts`` part of the variant's family
(``bones.core.playout.random_playouts`` for the line games,
``bones.core.trains.random_playouts`` for the train games).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

__all__ = ["core_playouts", "playouts", "python_loop"]


def playouts(variant: str, players: int, rounds: int, seed: int = 0, **options: Any) -> dict:
    """``rounds`` random playouts of ``variant`` in the core of its family (the family's
    ``playouts`` part).

    Returns ``{"rounds", "moves", "blocked", "seconds"}`` (``moves``: placements)."""
    from .registry import family_of
    from .registry import variant as lookup

    spec = lookup(variant)
    result: dict[str, Any] = family_of(spec).part("playouts")(spec, players, rounds, seed, options)
    return result


def python_loop(
    variant: str, players: int, seconds: float = 1.0, seed: int = 0, **options: Any
) -> dict[str, Any]:
    """Play seeded random rounds through ``bones.Round`` for about ``seconds``.

    Each round: ``Round.deal(variant, players=, seed=s, **options)``, then a uniformly
    random legal move until the round is over (``rng = random.Random(seed)``).  Moves are
    counted as placements (``len(r.layout)`` at the end).
    At least one round is played.
    Returns ``{"rounds", "moves", "seconds", "moves_per_s", "rounds_per_s"}``.
    """
    from .registry import family_of
    from .registry import variant as lookup

    spec = lookup(variant)
    deal = family_of(spec).part("deal")  # found once: the loop pays no dispatch per round
    randrange = random.Random(seed).randrange
    clock = time.perf_counter
    rounds = moves = 0
    s = seed
    start = clock()
    elapsed = 0.0
    while rounds == 0 or elapsed < seconds:
        r = deal(spec.name, players, s, None, None, None, **options)
        while not r.is_over:
            legal = r.legal_moves
            r.play(legal[randrange(len(legal))])
        moves += len(r.layout)
        rounds += 1
        s += 1
        elapsed = clock() - start
    return _rates({"rounds": rounds, "moves": moves, "seconds": elapsed})


def core_playouts(
    variant: str,
    players: int,
    seconds: float = 1.0,
    seed: int = 0,
    trial_rounds: int = 200,
    **options: Any,
) -> dict[str, Any]:
    """``playouts`` calibrated to take about ``seconds``.

    A trial of ``trial_rounds`` rounds (grown tenfold while it takes under 20 ms) gives the
    rate; the measured run then uses ``rounds = rate * seconds``.  Returns the core's dict
    (``rounds``, ``moves``, ``blocked``, ``seconds``) plus ``moves_per_s``, ``rounds_per_s``.
    """
    n = max(1, trial_rounds)
    while True:
        trial = playouts(variant, players, n, seed=seed, **options)
        if trial["seconds"] >= 0.02 or n >= 10**8:
            break
        n *= 10
    rate = n / max(trial["seconds"], 1e-9)
    rounds = max(1, math.ceil(rate * seconds))
    result = playouts(variant, players, rounds, seed=seed, **options)
    return _rates(result)


def _rates(result: dict[str, Any]) -> dict[str, Any]:
    secs = max(float(result["seconds"]), 1e-12)
    result["rounds_per_s"] = result["rounds"] / secs
    result["moves_per_s"] = result["moves"] / secs
    return result
