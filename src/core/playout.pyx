"""Random playouts entirely in C: the engine's speed measure and a building block for
search bots."""

from libc.stdint cimport uint64_t
from bones.core.bitops cimport monotonic

from bones.core.rng cimport rng_seed
from bones.core.rules cimport CompiledRules, compile_rules
from bones.core.state cimport playout

from bones.errors import OptionError


def random_playouts(str variant, int players, long rounds, seed=0, **options):
    """Play ``rounds`` random rounds (each choice uniform over the legal moves) with the GIL
    released.  Returns ``{"rounds", "moves", "blocked", "points", "seconds"}``; ``moves``
    counts tiles placed and ``points`` sums side 0's round-end awards."""
    cdef CompiledRules rules = compile_rules(variant, players, options)
    cdef uint64_t rng = rng_seed(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
    cdef long moves, blocked = 0, points = 0
    cdef double t0, t1
    if rules.c.python_scorer:
        raise OptionError(f"{variant} scores moves in Python (move_scorer); "
                          "measure it with the Python loop instead")
    if rounds < 0:
        raise ValueError("rounds must be >= 0")
    with nogil:
        t0 = monotonic()
        moves = playout(&rules.c, &rng, rounds, &blocked, &points)
        t1 = monotonic()
    return {"rounds": rounds, "moves": moves, "blocked": blocked, "points": points,
            "seconds": t1 - t0}
