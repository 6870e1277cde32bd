# Single-observer information-set Monte Carlo tree search over deals from the exact sampler.
from libc.stdint cimport int32_t, uint8_t, uint32_t

ctypedef struct Node:
    uint32_t move                # the move that leads here (the root: 0)
    int32_t parent               # index of the parent node, -1 for the root
    int32_t child                # first child, -1: none
    int32_t sibling              # next child of the same parent, -1: none
    uint8_t side                 # side of the seat that made the move
    int32_t visits               # playouts through this node
    int32_t avail                # iterations in which the move was legal (availability)
    double reward                # sum of rewards in [0, 1] for side
