"""Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley and Whitehouse 2012):
one tree over the moves seen from the seat's information set.  Each iteration draws a
deal from the exact sampler, descends the tree choosing by UCB among the children whose
move is legal in that deal (a child's exploration term counts the iterations in which it
was available, not its parent's visits), adds one node, plays out under a fast policy
and backs the result up, each node's reward for the side that made its move.  The root
move visited most is played.  With several threads each grows its own tree on its own
deals (root parallelisation, Chaslot, Winands and van den Herik 2008) and the root visits
are summed.
"""

from libc.math cimport log, sqrt, tanh
from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from bones.core.bitops cimport thread_ms
from bones.core.policy cimport Weights
from bones.core.rng cimport rng_below, rng_next, rng_seed
from bones.core.sampler cimport Deals, DealSampler, sample_state
from bones.core.search cimport (
    MAX_CHOICES, play_out, position_size, sampler_for, line_weights, start_search, utility,
)
from bones.core.state cimport MAX_MOVES, PLAYING, State, play
from bones.core.threads cimport run_threads, share, thread_rng


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


cdef int grow(Deals* d, Node* nodes, int* n_nodes, int quota, double time_ms,
              double start, double c, int policy, const Weights* w,
              uint64_t* rng) noexcept nogil:
    """Up to ``quota`` iterations on the tree ``nodes`` (and until ``time_ms`` of this
    thread's CPU time after ``start``), each on a fresh deal from ``d``; returns the
    iterations made."""
    cdef State base
    cdef State work
    cdef int used = 0
    while used < quota and not (time_ms > 0 and used and thread_ms() - start >= time_ms):
        if not sample_state(d, &base, rng):
            break  # the rejection limit: keep the iterations made so far
        memcpy(&work, &base, position_size(&base))
        n_nodes[0] = iterate(nodes, n_nodes[0], &work, c, policy, w, rng)
        used += 1
    return used


cdef int32_t root_visits(const Node* nodes, uint32_t move) noexcept nogil:
    """The visits of the root's child for ``move`` (0: never expanded)."""
    cdef int ch = nodes[0].child
    while ch >= 0:
        if nodes[ch].move == move:
            return nodes[ch].visits
        ch = nodes[ch].sibling
    return 0


cdef class _Tree:
    """One thread's tree of an ismcts decision, with its own sampler (a sampler fills its
    memo as it draws), generator and quota."""

    cdef DealSampler sampler          # this thread's sampler of the observation
    cdef Node* nodes                  # the tree, room for quota + 1 nodes (NULL: unmade)
    cdef int n_nodes                  # nodes in the tree
    cdef Weights w                    # the playout policy's weights
    cdef uint64_t rng                 # this thread's generator
    cdef double time_ms               # the clock: this thread's CPU time (0: none)
    cdef double c                     # the UCB exploration constant
    cdef int quota                    # most iterations
    cdef int pol                      # the playout policy
    cdef int used                     # iterations made

    def __dealloc__(self):
        free(self.nodes)

    cdef int plant(self, DealSampler sampler, int quota) except -1:
        """Room for ``quota`` iterations (one node each) and the bare root."""
        self.nodes = <Node*>malloc((quota + 1) * sizeof(Node))
        if self.nodes is NULL:
            raise MemoryError()
        self.sampler, self.quota, self.n_nodes = sampler, quota, 1
        self.nodes[0].move = 0
        self.nodes[0].parent = -1
        self.nodes[0].child = -1
        self.nodes[0].sibling = -1
        self.nodes[0].visits = 0
        self.nodes[0].avail = 0
        self.nodes[0].reward = 0
        return 0

    def run(self):
        """Grow the tree, the clock (this thread's CPU time) started now."""
        self.grow_from(thread_ms())

    cdef int grow_from(self, double start) except -1:
        if self.nodes is NULL:  # made without choose(): nothing to search
            raise ValueError("an ismcts tree is made by choose()")
        with nogil:
            self.used = grow(self.sampler.d, self.nodes, &self.n_nodes, self.quota,
                             self.time_ms, start, self.c, self.pol, &self.w, &self.rng)
        return 0


def choose(observation, legal_moves, *, int iterations=1000, double time_ms=20.0,
           str policy="expert", double c=0.7, uint64_t seed=0, int threads=1, weights=None):
    """ismcts's move after up to ``iterations`` iterations (and ``time_ms`` ms of CPU time;
    0: no clock), playouts under ``policy`` (the expert's with ``weights``), UCB constant
    ``c``; returns ``(move, new_seed, iterations_used)``.  With ``threads`` > 1 the
    iterations are shared out between that many trees, each grown on its own thread with
    its own generator (derived from ``seed``) and its own clock of ``time_ms``, and the
    move with the most root visits over all of them is played.  The same signature as
    ``bones.core.trainismcts.choose``."""
    cdef DealSampler sampler
    cdef Weights w
    cdef uint64_t rng = rng_seed(seed)
    cdef uint32_t codes[MAX_CHOICES]
    cdef uint32_t move, best_move = 0
    cdef int n, i, t, used = 0, pol, ch, visits, best_visits = -1
    cdef double start = thread_ms()
    cdef _Tree tree, other
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, not {iterations}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, not {threads}")
    weights = line_weights(weights, policy, 0.0, 0.0)
    sampler = start_search(observation, legal_moves, policy, weights, &w, codes, &n, &pol, rng)
    if n == 1:
        return legal_moves[0], rng, 0
    trees = []
    for t in range(threads):
        tree = _Tree()
        tree.rng = rng if threads == 1 else thread_rng(rng, t)
        tree.plant(sampler if t == 0 else sampler_for(observation, codes, n, tree.rng),
                   share(iterations, threads, t))
        tree.w = w
        tree.time_ms, tree.c, tree.pol = time_ms, c, pol
        trees.append(tree)
    tree = trees[0]  # the main thread's clock has run since the decision began
    run_threads(lambda: tree.grow_from(start), [other.run for other in trees[1:]])
    # Each tree's root children in turn, ties to the first seen: one tree keeps its own
    # order (the most recently expanded child first).
    for tree in trees:
        tree.sampler.check_scorer()
        used += tree.used
        ch = tree.nodes[0].child
        while ch >= 0:
            move = tree.nodes[ch].move
            visits = 0
            for other in trees:
                visits += root_visits(other.nodes, move)
            if visits > best_visits:
                best_visits, best_move = visits, move
            ch = tree.nodes[ch].sibling
    if threads == 1:
        rng = (<_Tree>trees[0]).rng  # one tree draws from the bot's own generator
    else:
        rng_next(&rng)  # the next decision draws other threads' generators
    for i in range(n):
        if codes[i] == best_move:
            return legal_moves[i], rng, used
    # the root's moves are the seat's own legal moves in every deal: always found above
    raise RuntimeError("ismcts: the chosen move is not among the legal moves")
