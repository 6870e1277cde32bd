# bones.core.geometry has no Python-level names: it is C on small structs, used through
# `cimport bones.core.geometry` (see geometry.pxd and docs/geometry.md); the placements it
# computes reach Python as Round.placements and Observation.placements.
