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

from bones.core.rng cimport rng_next, rng_seed
from bones.core.threads cimport run_threads, share, thread_rng
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


cdef class _TrainTree:
    """One thread's tree of an ismcts decision, with its own sampler, position, generator
    and quota."""

    cdef TrainSampler sampler         # this thread's sampler of the observation
    cdef TrainState* s                # a sample played on (NULL: made without choose())
    cdef TNode* nodes                 # the tree, room for cap nodes
    cdef int cap                      # quota + 1: every iteration adds at most one node
    cdef int quota                    # most iterations
    cdef int policy                   # the playout policy
    cdef int used                     # iterations made
    cdef double time_ms               # the clock: this thread's CPU time (0: none)
    cdef double c                     # the UCB exploration constant
    cdef uint64_t rng                 # this thread's generator

    def __dealloc__(self):
        free(self.s)
        free(self.nodes)

    cdef int plant(self, TrainSampler sampler, int quota, double time_ms, int policy,
                   double c, uint64_t rng) except -1:
        """Room for ``quota`` iterations (one node each) and the bare root."""
        self.cap = quota + 1
        self.s = <TrainState*>malloc(sizeof(TrainState))
        self.nodes = <TNode*>malloc(<size_t>self.cap * sizeof(TNode))
        if self.s is NULL or self.nodes is NULL:
            raise MemoryError()
        self.sampler, self.quota, self.time_ms = sampler, quota, time_ms
        self.policy, self.c, self.rng = policy, c, rng
        self.nodes[0].parent = -1
        self.nodes[0].child = -1
        self.nodes[0].sibling = -1
        self.nodes[0].visits = 0
        self.nodes[0].avail = 0
        self.nodes[0].total = 0
        return 0

    def run(self):
        """Grow the tree, the clock (this thread's CPU time) started now."""
        self.grow_from(thread_ms())

    cdef int grow_from(self, double start) except -1:
        cdef TrainSampler sampler = self.sampler
        if self.nodes is NULL:  # made without choose(): nothing to search
            raise ValueError("a train ismcts tree is made by choose()")
        with nogil:
            self.used = grow(sampler, self.s, self.nodes, self.cap, self.quota, start,
                             self.time_ms, self.policy, self.c, &self.rng)
        return 0

    cdef int add_visits(self, dict visits) except -1:
        """Add the root children's visits into visits (move code -> visits)."""
        cdef int k = self.nodes[0].child
        while k >= 0:
            visits[self.nodes[k].move] = visits.get(self.nodes[k].move, 0) + self.nodes[k].visits
            k = self.nodes[k].sibling
        return 0


def choose(observation, legal_moves, *, int iterations=1000, double time_ms=20.0,
           str policy="expert", double c=0.7, uint64_t seed=0, int threads=1, weights=None):
    """ismcts's move in a train game: up to ``iterations`` iterations within ``time_ms`` ms
    of CPU time (0: no clock), playouts under ``policy``, UCB constant ``c``;
    ``(move, new_seed, iterations_used)``.  With ``threads`` > 1 the iterations are shared
    out between that many trees, each grown on its own thread with its own sampler,
    generator (derived from ``seed``) and clock of ``time_ms``, and their root visits are
    summed.  The same signature as ``bones.core.ismcts.choose``, whose ``weights`` (the
    line expert's) do not apply here: ValueError unless they are None."""
    cdef double start = thread_ms()  # building the sampler is part of the decision's time
    cdef TrainSampler sampler
    cdef uint64_t rng = rng_seed(seed)
    cdef int used = 0, pol, i, best, t
    cdef _TrainTree tree
    if weights is not None:
        raise ValueError("weights (the line expert's) do not apply to the train games")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, not {iterations}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, not {threads}")
    sampler = TrainSampler(observation)
    pol = POLICIES[policy]
    codes = check_moves(sampler, legal_moves)
    if len(codes) == 1:
        return legal_moves[0], rng, 0
    trees = []
    for t in range(threads):
        tree = _TrainTree()
        tree.plant(sampler if t == 0 else TrainSampler(observation),
                   share(iterations, threads, t), time_ms, pol, c,
                   rng if threads == 1 else thread_rng(rng, t))
        trees.append(tree)
    tree = trees[0]  # the main thread's clock has run since the decision began
    run_threads(lambda: tree.grow_from(start), [other.run for other in trees[1:]])
    visits = {}
    for tree in trees:
        used += tree.used
        tree.add_visits(visits)
    if threads == 1:
        rng = (<_TrainTree>trees[0]).rng  # one tree draws from the bot's own generator
    else:
        rng_next(&rng)  # the next decision draws other threads' generators
    best = 0
    for i in range(1, len(codes)):
        if visits.get(codes[i], 0) > visits.get(codes[best], 0):
            best = i
    return legal_moves[best], rng, used
