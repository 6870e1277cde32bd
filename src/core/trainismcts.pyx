"""Single-observer information-set MCTS for the train games (Mexican Train, Chicken Foot).

One tree over the seat's information set: each iteration deals the unseen tiles afresh
(``bones.core.trainsample``, exact), descends from the root choosing by UCB among the
children whose moves are legal in that deal (a child's count of availability grows each
time it could have been chosen), expands one untried legal move, plays the rest out under
a fast policy (``bones.core.trainpolicy``) and adds the result to every node on the path,
each for the seat that made its move.  The root move visited most wins (the first of
equals).  A result for a seat is the other seats' mean penalty less its own, in pips,
squashed to [0, 1] as the double-six ``ismcts`` does: 0.5 + 0.5 * tanh(u / 20).
"""

from libc.math cimport log, sqrt, tanh
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc

from bones.core.rng cimport rng_seed
from bones.core.trainpolicy cimport tp_playout
from bones.core.trainsample cimport TrainSampler
from bones.core.trainstate cimport (
    TR_MAX_MOVES, TR_PLAYING, TrainState, ts_penalty, ts_play,
)

from bones.core.trainpolicy import POLICIES, check_moves

from bones.core.bitops cimport thread_ms


ctypedef struct TNode:
    uint16_t move                # the move that led here (the root: unused)
    uint8_t mover                # the seat that made it
    int32_t parent               # the parent's index; -1 at the root
    int32_t child                # the first child's index; -1: none yet
    int32_t sibling              # the next sibling's index; -1: the last
    int32_t visits               # iterations through this node
    int32_t avail                # iterations in which its move was legal here
    double total                 # the sum of the results for mover


cdef double result(const TrainState* s, int seat) noexcept nogil:
    cdef int i
    cdef double others = 0
    for i in range(s.players):
        if i != seat:
            others += ts_penalty(s, i)
    return 0.5 + 0.5 * tanh((others / (s.players - 1) - ts_penalty(s, seat)) / 20.0)


cdef int grow(TrainSampler sampler, TrainState* s, TNode* nodes, int cap, int iterations,
              double start, double time_ms, int policy, double c,
              uint64_t* rng) noexcept nogil:
    """Run up to iterations iterations (within time_ms of CPU time from ``start``, before
    the sampler was built) on the tree rooted at nodes[0]; the iterations made."""
    cdef double value, best_value
    cdef int n_nodes = 1, done = 0, node, k, i, best, untried, child
    cdef int seen[TR_MAX_MOVES]  # per legal move of the position: its child, or -1
    while done < iterations and n_nodes < cap:
        if time_ms > 0 and done > 0 and thread_ms() - start >= time_ms:
            break
        sampler.sample(s, rng)
        node = 0
        while s.status == TR_PLAYING:
            for i in range(s.n_moves):
                seen[i] = -1
            k = nodes[node].child
            while k >= 0:
                for i in range(s.n_moves):
                    if s.moves[i] == nodes[k].move:
                        seen[i] = k
                        break
                k = nodes[k].sibling
            untried = -1
            for i in range(s.n_moves):
                if seen[i] < 0:
                    untried = i
                    break
            if untried >= 0:  # expand the first untried legal move
                child = n_nodes
                n_nodes += 1
                nodes[child].move = s.moves[untried]
                nodes[child].mover = s.to_move
                nodes[child].parent = node
                nodes[child].child = -1
                nodes[child].sibling = nodes[node].child
                nodes[child].visits = 0
                nodes[child].avail = 1
                nodes[child].total = 0
                nodes[node].child = child
                ts_play(s, s.moves[untried])
                node = child
                break
            best = -1
            best_value = -1e300
            for i in range(s.n_moves):
                k = seen[i]
                nodes[k].avail += 1
                value = nodes[k].total / nodes[k].visits + c * sqrt(
                    log(nodes[k].avail) / nodes[k].visits)
                if value > best_value:
                    best_value = value
                    best = k
            ts_play(s, nodes[best].move)
            node = best
        tp_playout(s, policy, rng)
        while node > 0:
            nodes[node].visits += 1
            nodes[node].total += result(s, nodes[node].mover)
            node = nodes[node].parent
        nodes[0].visits += 1
        done += 1
    return done


def choose(observation, legal_moves, int iterations, double time_ms, str policy, double c,
           uint64_t seed):
    """ismcts's move in a train game: up to ``iterations`` iterations within ``time_ms`` ms
    of CPU time (0: no clock), playouts under ``policy``, UCB constant ``c``;
    ``(move, new_seed, iterations_used)``."""
    cdef double start = thread_ms()  # building the sampler is part of the decision's time
    cdef TrainSampler sampler = TrainSampler(observation)
    cdef uint64_t rng = rng_seed(seed)
    cdef TrainState* s = NULL
    cdef TNode* nodes = NULL
    cdef int cap, used = 0, pol, k, i, best
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, not {iterations}")
    pol = POLICIES[policy]
    codes = check_moves(sampler, legal_moves)
    if len(codes) == 1:
        return legal_moves[0], rng, 0
    cap = iterations + 1  # every iteration adds at most one node
    s = <TrainState*>malloc(sizeof(TrainState))
    nodes = <TNode*>malloc(<size_t>cap * sizeof(TNode))
    try:
        if s is NULL or nodes is NULL:
            raise MemoryError()
        nodes[0].parent = -1
        nodes[0].child = -1
        nodes[0].sibling = -1
        nodes[0].visits = 0
        nodes[0].avail = 0
        nodes[0].total = 0
        with nogil:
            used = grow(sampler, s, nodes, cap, iterations, start, time_ms, pol, c, &rng)
        visits = {}
        k = nodes[0].child
        while k >= 0:
            visits[nodes[k].move] = nodes[k].visits
            k = nodes[k].sibling
    finally:
        free(s)
        free(nodes)
    best = 0
    for i in range(1, len(codes)):
        if visits.get(codes[i], 0) > visits.get(codes[best], 0):
            best = i
    return legal_moves[best], rng, used
