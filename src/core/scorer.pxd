# A variant's Python move_scorer, called from the core: checked results, and a copy of the
# rules through which C states (samples, playouts, searches) score every placement.
from bones.core.rules cimport CompiledRules, Rules


cdef class PythonScorer:
    cdef Rules c                 # the rules with the scorer hook: states on &c score in Python
    cdef readonly CompiledRules rules  # the rules copied (keeps the variant and scorer alive)
    cdef tuple prefix            # layout moves laid without plies (``lay``) before a state's plies
    cdef object error            # the first exception a call raised, or None

    cdef void check(self) except *


cdef int call_scorer(CompiledRules rules, tuple layout, object move, int count) except? -1
