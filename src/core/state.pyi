# bones.core.state has no Python-level names: it is C on the State struct, used through
# `cimport bones.core.state` (see state.pxd and docs/core.md).
