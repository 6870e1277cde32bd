"""The board as text for a terminal, drawn from the same placements as the SVG.

A grid unit is 1.5 columns and half a row, so a tile along a row reads ``[6|4]`` and a
tile across rows reads ``[6]`` over ``[4]``, in the positions the layout gave them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["board_text"]

_STEP = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}


def _col(x: int) -> int:
    return (3 * x) // 2


def _row(y: int) -> int:
    return y // 2


def board_text(
    placements: Sequence[Any], closed_ends: Sequence[str] = (), *, empty: str = "(empty table)"
) -> str:
    """The tiles of ``placements`` on a character grid, one line per row, trailing blanks
    trimmed; closed ends are listed under the board."""
    if not placements:
        return empty
    cells: dict[tuple[int, int], str] = {}
    for p in placements:
        dx, dy = _STEP[p.angle]
        if dx:  # along a row: [a|b] with the bar on the centre's column
            left, right = (p.first, p.second) if dx > 0 else (p.second, p.first)
            c = _col(p.x)
            r = _row(p.y)
            for k, ch in enumerate(f"[{left}|{right}]"):
                cells[(r, c - 2 + k)] = ch
        else:  # across rows: [a] above [b]
            top, bottom = (p.first, p.second) if dy > 0 else (p.second, p.first)
            c = _col(p.x)
            for r, value in ((_row(p.y - 1), top), (_row(p.y + 1), bottom)):
                for k, ch in enumerate(f"[{value}]"):
                    cells[(r, c - 1 + k)] = ch
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    lines = []
    for r in range(r0, r1 + 1):
        line = "".join(cells.get((r, c), " ") for c in range(c0, c1 + 1))
        lines.append(line.rstrip())
    if closed_ends:
        lines.append("closed ends: " + ", ".join(closed_ends))
    return "\n".join(lines)
