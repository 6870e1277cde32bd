"""``SeatView``: the fields of an observation, stored in C so that ``Round.observation``
fills them without a Python call; ``bones.Observation`` subclasses it with the methods."""


cdef class SeatView:
    """The public fields of :class:`bones.Observation` (its base class)."""
