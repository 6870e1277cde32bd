"""What one seat may know of a round (a double-six game's or a train game's), as one object
that also travels as msgpack.

Defined in ``bones.core.observation`` (issue 25: the core builds one, and imports only
down the layers); this is its public name."""

from .core.observation import SCHEMA_VERSION, Observation, TrainObservation

__all__ = ["SCHEMA_VERSION", "Observation", "TrainObservation"]
