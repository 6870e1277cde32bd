"""The text picture of a round, for ``str(round)``."""

from __future__ import annotations

from typing import Any


def _face(tile: Any, inner: int) -> str:
    """A tile read outward from the end it joins: the matching half first."""
    if tile.is_double:
        return f"[{tile.high}={tile.low}]"
    outer = tile.low if tile.high == inner else tile.high
    return f"[{inner}|{outer}]"


def draw_round(rnd: Any) -> str:
    """Lines of text: the header, each arm of the layout, the hands and the boneyard."""
    lines = [
        f"{rnd.variant}, {rnd.players} players, "
        + ("over: " + rnd.result.reason if rnd.is_over else f"seat {rnd.to_move} to move")
        + f", boneyard {rnd.stock_size}, count {rnd.count}, scores {list(rnd.scores)}"
    ]
    arms: dict[str, list[str]] = {}
    lead = ""
    open_numbers: dict[str, int] = {}
    doubles: list[int] = []  # numbers of the doubles played, in order: spinners start arms
    for move in rnd.layout:
        if move.is_lead:
            t = move.tile
            lead = f"[{t.high}={t.low}]" if t.is_double else f"[{t.high}|{t.low}]"
            if t.is_double:
                doubles.append(t.high)
            open_numbers = {"W": t.high, "E": t.low}
            continue
        placed = [(move.tile, move.end)]
        if move.is_double_double:
            placed.append((move.tile2, move.end2))
        for tile, end in placed:
            inner = open_numbers.get(end)
            if inner is None:  # an arm starts at its spinner's number
                k = int(end[1:] or 1) - 1
                inner = doubles[k] if k < len(doubles) else tile.high
            if tile.is_double:
                doubles.append(tile.high)
            arms.setdefault(end, []).append(_face(tile, inner))
            open_numbers[end] = tile.low if tile.high == inner else tile.high
    if lead:
        west = "".join(_mirror(f) for f in reversed(arms.pop("W", [])))
        east = "".join(arms.pop("E", []))
        lines.append(f"  W {west}{lead}{east} E")
        for end, faces in arms.items():
            lines.append(f"  {end}: {''.join(faces)}")
    else:
        lines.append("  (no tile on the table)")
    lines.append("  ends: " + ", ".join(f"{name}={v}" for name, v in rnd.ends))
    for seat in range(rnd.players):
        lines.append(f"  seat {seat}: " + " ".join(str(t) for t in rnd.hand(seat)))
    return "\n".join(lines)


def _mirror(face: str) -> str:
    """A face read the other way, for tiles drawn to the left of the lead."""
    if "=" in face:
        return face
    a, b = face[1:-1].split("|")
    return f"[{b}|{a}]"
