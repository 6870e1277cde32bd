# bones.core.trainstate has no Python-level names: it is C on the TrainState struct, used
# through `cimport bones.core.trainstate` (see trainstate.pxd and docs/trains.md).
