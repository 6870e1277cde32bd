from collections.abc import Iterable

from .wideset import SetTile

BUDGET: int

def best_chain(
    hand: Iterable[SetTile | str], open_number: int, zero_double: int = 0, budget: int = ...
) -> tuple[tuple[SetTile, ...], int, bool, int]:
    """The best chain ``hand`` can lay on an end showing ``open_number``: the longest, then
    the heaviest, searched within ``budget`` nodes; ``(tiles, pips, exact, nodes)``."""
