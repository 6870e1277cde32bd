"""How likely a full deal makes what the seats did: a model of the other players.

The exact sampler (``bones.core.sampler``) draws every deal consistent with the public
record alike.  Real players are not indifferent to their tiles: a seat that passed up
fifteen points probably could not score them.  This module scores a deal by the
probability that the other seats, holding its tiles, chose the placements they chose,
each by a softmax over the placements open to them then::

    P(move) = exp(beta * value(move)) / sum over placements m of exp(beta * value(m))

where ``value`` is the expert's weighted value of a move (``bones.core.policy``, in pips,
from what the mover may know without its opponents' voids) and ``beta`` how sharply the
model prefers the better move (0: a player who picks any placement at random).  The seat's
own plays, draws, passes and forced placements do not depend on the hidden tiles' layout
beyond what the sampler already enforces, so they are left out.  Weighting the sampler's
deals by ``exp(log_likelihood)`` gives deals in proportion to this model's posterior.
"""

from libc.math cimport exp, log
from libc.stdint cimport uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from bones.core.policy cimport Known, known_of, load_weights, move_value
from bones.core.round cimport Round
from bones.core.scorer cimport PythonScorer
from bones.core.state cimport KIND_DOUBLE_DOUBLE, MAX_MOVES, kind_of, played_size, undo

#: The sharpest model: beta times a move's value (at most about 1e4 pips) stays finite.
MAX_BETA = 1e6


cdef double log_likelihood(const State* s, State* scratch, int seat, double beta,
                           const Weights* w) noexcept nogil:
    """The log-probability, under the softmax model, of the other seats' placements in s's
    record, given s's deal.  scratch (a State) receives s with its plies and is taken back
    ply by ply; s is left as it was."""
    cdef uint32_t local[MAX_MOVES]
    cdef double v[MAX_MOVES]
    cdef double top, total, ll = 0
    cdef int k, i, n, chosen
    cdef uint32_t move
    cdef Known known
    memcpy(scratch, s, played_size(s))
    for k in range(s.n_plies - 1, -1, -1):
        undo(scratch)
        move = s.plies[k].move
        if s.plies[k].seat == seat or kind_of(move) > KIND_DOUBLE_DOUBLE:
            continue
        n = 0
        chosen = -1
        for i in range(scratch.n_moves):
            if kind_of(scratch.moves[i]) <= KIND_DOUBLE_DOUBLE:
                if scratch.moves[i] == move:
                    chosen = n
                local[n] = scratch.moves[i]
                n += 1
        if n < 2 or chosen < 0:
            continue  # forced (or spelt otherwise): no information
        known_of(scratch, &known)
        top = -1e300
        for i in range(n):
            v[i] = beta * move_value(scratch, local[i], w, &known)
            if v[i] > top:
                top = v[i]
        total = 0
        for i in range(n):
            total += exp(v[i] - top)
        ll += v[chosen] - top - log(total)
    return ll


def round_log_likelihood(Round rnd not None, int seat, double beta, weights):
    """The log-probability that the seats other than ``seat`` chose their placements in
    ``rnd`` (a full deal, e.g. from ``observation.sample``) under the softmax model with
    sharpness ``beta`` and the expert ``weights`` (``bones.core.policy.FIELDS`` order).
    0.0 when no other seat had a choice."""
    cdef Weights w
    cdef PythonScorer scorer = None
    cdef State* copy
    cdef State* scratch
    cdef double ll
    if not 0 <= seat < rnd.rules.c.players:
        raise ValueError(f"seat must be from 0 to {rnd.rules.c.players - 1}, not {seat}")
    if not 0 <= beta <= MAX_BETA:
        raise ValueError(f"beta must be from 0 to {MAX_BETA:g}, not {beta}")
    load_weights(weights, &w)
    if rnd.rules.c.python_scorer:
        scorer = PythonScorer(rnd.rules)
    copy = <State*>malloc(2 * sizeof(State))
    if copy == NULL:
        raise MemoryError()
    scratch = copy + 1
    try:
        memcpy(copy, rnd.st, sizeof(State))
        if scorer is not None:
            copy.r = &scorer.c  # the move values score as the Round does
        ll = log_likelihood(copy, scratch, seat, beta, &w)
    finally:
        free(copy)
    if scorer is not None:
        scorer.check()
    return ll
