from .rules import CompiledRules

MAX_MOVE_POINTS: int

class PythonScorer:
    """The rules of a variant with a Python move_scorer, with the hook that runs it."""

    rules: CompiledRules
    def __init__(self, rules: CompiledRules, prefix: tuple[object, ...] = ()) -> None: ...
