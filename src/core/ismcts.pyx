"""Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley and Whitehouse 2012):
one tree over the moves seen from the seat's information set.  Each iteration draws a
deal from the exact sampler, descends the tree choosing by UCB among the children whose
move is legal in that deal (a child's exploration term counts the iterations in which it
was available, not its parent's visits), adds one node, plays out under a fast policy
and backs the result up, each node's reward for the side that made its move.  The root
move visited most is played.
"""

from libc.math cimport log, sqrt, tanh
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from bones.core.policy cimport Weights
from bones.core.rng cimport rng_below, rng_seed
from bones.core.sampler cimport DealSampler, sample_state
from bones.core.search cimport (
    MAX_CHOICES, now_ms, play_out, position_size, start_search, utility,
)
from bones.core.state cimport MAX_MOVES, PLAYING, State, play


cdef double reward(const State* s, int side) noexcept nogil:
    """The round's result for side in [0, 1]: its utility in pips, squashed (a win by a
    few pips is worth most of a big one, the margin still counts)."""
    return 0.5 + 0.5 * tanh(utility(s, side) * s.r.score_scale / 20.0)


cdef int iterate(Node* nodes, int n_nodes, State* s, double c, int policy,
                 const Weights* w, uint64_t* rng) noexcept nogil:
    """One iteration on the deal s; returns the number of nodes after it."""
    cdef int node = 0, ch, best, i, n, untried, side
    cdef uint32_t legal[MAX_MOVES]
    cdef double score, best_score
    cdef bint known
    while s.status == PLAYING:
        n = s.n_moves
        for i in range(n):
            legal[i] = s.moves[i]
        # The children legal in this deal gain an availability; a legal move with no child
        # is untried.
        untried = 0
        for i in range(n):
            known = False
            ch = nodes[node].child
            while ch >= 0:
                if nodes[ch].move == legal[i]:
                    known = True
                    nodes[ch].avail += 1
                    break
                ch = nodes[ch].sibling
            if not known:
                legal[untried], legal[i] = legal[i], legal[untried]
                untried += 1
        if untried:
            i = rng_below(rng, untried)
            ch = n_nodes
            n_nodes += 1
            nodes[ch].move = legal[i]
            nodes[ch].parent = node
            nodes[ch].child = -1
            nodes[ch].sibling = nodes[node].child
            nodes[ch].side = s.r.side_of[s.to_move]
            nodes[ch].visits = 0
            nodes[ch].avail = 1
            nodes[ch].reward = 0
            nodes[node].child = ch
            play(s, legal[i])
            node = ch
            break
        best = -1
        best_score = -1e300
        ch = nodes[node].child
        while ch >= 0:
            for i in range(n):
                if nodes[ch].move == legal[i]:
                    score = (nodes[ch].reward / nodes[ch].visits
                             + c * sqrt(log(nodes[ch].avail) / nodes[ch].visits))
                    if score > best_score:
                        best_score = score
                        best = ch
                    break
            ch = nodes[ch].sibling
        play(s, nodes[best].move)
        node = best
    play_out(s, policy, w, rng)
    while node > 0:
        side = nodes[node].side
        nodes[node].visits += 1
        nodes[node].reward += reward(s, side)
        node = nodes[node].parent
    nodes[0].visits += 1
    return n_nodes


def choose(observation, legal_moves, int iterations, double time_ms, str policy, double c,
           weights, uint64_t seed):
    """ismcts's move after up to ``iterations`` iterations (and ``time_ms`` ms; 0: no
    clock), playouts under ``policy``; returns ``(move, new_seed, iterations_used)``."""
    cdef DealSampler sampler
    cdef State base
    cdef State work
    cdef Weights w
    cdef Node* nodes
    cdef uint64_t rng = rng_seed(seed)
    cdef uint32_t codes[MAX_CHOICES]
    cdef int n, i, used = 0, n_nodes = 1, pol, ch, best_visits = -1
    cdef double start = now_ms()
    cdef uint32_t best_move = 0
    sampler = start_search(observation, legal_moves, policy, weights, &w, codes, &n, &pol, rng)
    if n == 1:
        return legal_moves[0], rng, 0
    nodes = <Node*>malloc((iterations + 1) * sizeof(Node))  # one node per iteration at most
    if nodes is NULL:
        raise MemoryError()
    nodes[0].move = 0
    nodes[0].parent = -1
    nodes[0].child = -1
    nodes[0].sibling = -1
    nodes[0].visits = 0
    nodes[0].avail = 0
    nodes[0].reward = 0
    with nogil:
        while used < iterations and not (time_ms > 0 and used and now_ms() - start >= time_ms):
            if not sample_state(sampler.d, &base, &rng):
                break  # the rejection limit: keep the iterations made so far
            memcpy(&work, &base, position_size(&base))
            n_nodes = iterate(nodes, n_nodes, &work, c, pol, &w, &rng)
            used += 1
        ch = nodes[0].child
        while ch >= 0:
            if nodes[ch].visits > best_visits:
                best_visits = nodes[ch].visits
                best_move = nodes[ch].move
            ch = nodes[ch].sibling
    free(nodes)
    sampler.check_scorer()
    for i in range(n):
        if codes[i] == best_move:
            return legal_moves[i], rng, used
    # the root's moves are the seat's own legal moves in every deal: always found above
    raise RuntimeError("ismcts: the chosen move is not among the legal moves")
