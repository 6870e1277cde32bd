"""A variant's Python ``move_scorer`` (``Variant.move_scorer``), called from the core.

``Round`` calls it after every placement (``call_scorer``: the result is checked, an
exception becomes a ``BonesError`` naming the variant).  The searches and the sampler
work on bare C states instead; a ``PythonScorer`` is a copy of the rules whose scorer hook
calls the same function with the same arguments, so a state built on ``&scorer.c`` scores
exactly as ``Round`` does.  The hook runs inside loops that hold no Python references
and cannot raise: it takes the GIL, and the first exception is kept (``error``) and
raised by ``check`` once the loop is done; after it every call scores 0.
"""

from cpython.number cimport PyIndex_Check, PyNumber_Index

from bones.core.moves cimport move_of
from bones.core.state cimport KIND_DOUBLE_DOUBLE, State, chip_point, kind_of

from bones.errors import BonesError

MAX_MOVE_POINTS = 32767     # the largest value a move_scorer may return (either sign)
cdef long _MAX_MOVE_POINTS = MAX_MOVE_POINTS


cdef str _scorer_name(CompiledRules rules):
    fn = rules.move_scorer
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', None) or repr(fn)}"


cdef int _check_points(CompiledRules rules, object raw, object move) except? -1:
    """A move_scorer's result as a C int: BonesError for anything but an int in range."""
    if type(raw) is int and -_MAX_MOVE_POINTS <= raw <= _MAX_MOVE_POINTS:
        return raw
    if isinstance(raw, bool) or not PyIndex_Check(raw):
        problem = f"returned {type(raw).__name__} {raw!r:.40}, not an int"
    else:
        raw = PyNumber_Index(raw)
        if -MAX_MOVE_POINTS <= raw <= MAX_MOVE_POINTS:
            return raw
        shown = str(raw) if raw.bit_length() < 64 else f"an int of {raw.bit_length()} bits"
        problem = f"returned {shown}, out of range (at most {MAX_MOVE_POINTS} points a move)"
    raise BonesError(f"variant {rules.variant.name!r}: its move_scorer {_scorer_name(rules)} "
                     f"{problem} for {move}")


cdef int call_scorer(CompiledRules rules, tuple layout, object move, int count) except? -1:
    """What the variant's move_scorer gives move (placed on layout, making count), checked;
    any exception it raises becomes a BonesError naming the variant and the scorer."""
    try:
        raw = rules.move_scorer(layout, move, count)
    except Exception as exc:
        raise BonesError(
            f"variant {rules.variant.name!r}: its move_scorer {_scorer_name(rules)} raised "
            f"{type(exc).__name__}: {exc} (scoring {move}, count {count})") from exc
    return _check_points(rules, raw, move)


cdef int _points(const State* s, int count) noexcept:
    """The hook's work, with the GIL: the layout before the last ply's placement is the
    scorer's prefix and the placements among the earlier plies."""
    cdef PythonScorer scorer = <PythonScorer>s.r.scorer_ctx
    cdef int i, last = s.n_plies - 1
    if scorer.error is not None:
        return 0
    try:
        layout = scorer.prefix + tuple([move_of(s.plies[i].move) for i in range(last)
                                        if kind_of(s.plies[i].move) <= KIND_DOUBLE_DOUBLE])
        return call_scorer(scorer.rules, layout, move_of(s.plies[last].move), count)
    except BaseException as exc:  # kept for check(): the loop calling the hook cannot raise
        scorer.error = exc
        return 0


cdef int _hook(const void* state, int count) noexcept nogil:
    cdef const State* s = <const State*>state
    cdef int points
    with gil:
        points = _points(s, count)
    return points + chip_point(s, s.plies[s.n_plies - 1].seat)


cdef class PythonScorer:
    """The rules of a variant with a Python move_scorer, with the hook that runs it."""

    def __init__(self, CompiledRules rules not None, prefix=()):
        if rules.move_scorer is None:
            raise ValueError(f"variant {rules.name!r} has no Python move_scorer")
        self.rules = rules
        self.prefix = tuple(prefix)
        self.error = None
        self.c = rules.c
        self.c.scorer = _hook
        self.c.scorer_ctx = <void*>self

    cdef void check(self) except *:
        """Raise the first exception the scorer raised since the last check (and forget it)."""
        error, self.error = self.error, None
        if error is not None:
            raise error
