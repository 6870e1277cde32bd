# A determinizer for the train games: from what one seat may know (a TrainObservation),
# the public position in a TrainState and, per sample, the unseen tiles dealt at random
# to the other hands and the stock.  docs/bots.md, "Train games".
from libc.stdint cimport uint8_t, uint64_t

from bones.core.trainstate cimport TrainState


cdef class TrainSampler:
    cdef TrainState* base        # the public position and the seat's hand; others empty
    cdef int seat                # the observer (the seat to move)
    cdef int n_unseen            # tiles the seat cannot see (other hands and the stock)
    cdef uint8_t unseen[91]      # those tiles, in index order
    cdef uint8_t sizes[8]        # each seat's hand size
    cdef int stock_size          # tiles left in the stock

    cdef void sample(self, TrainState* dst, uint64_t* rng) noexcept nogil


cdef TrainSampler sampler_of(object observation)  # ValueError/TypeError on bad input
