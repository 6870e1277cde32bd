"""The train games as text: the board for a terminal (``bones show``, ``bones play``) and
one sentence per placement, draw and pass (``bones replay``, ``bones play``).

Mexican Train: one line per train, its tiles turned so that touching halves match
(``[12|11][11|2]``), ``*`` after a double still to satisfy, then the open number and the
marker.  Chicken Foot: the tree from the engine, a chain of tiles on one line, a branch
(the toes of a double) on lines of its own, ``├─`` and ``└─`` as in a file tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "explain_train_log",
    "layout_of",
    "train_name",
    "train_board_text",
    "train_round_text",
    "train_view_lines",
]


def layout_of(src: Any) -> str:
    """``"trains"`` or ``"chicken_foot"``: ``layout_name`` of a round or an observation."""
    return str(src.layout_name)


def _pips(tile: str) -> tuple[int, int]:
    a, b = tile.split("-")
    return int(a), int(b)


def _trains_text(src: Any, names: Sequence[str]) -> list[str]:
    laid: dict[str, list[str]] = {}
    for _, tile, target in src.placements:
        laid.setdefault(target, []).append(tile)
    lines = [f"engine [{src.engine}|{src.engine}]"]
    targets = [f"P{s}" for s in range(src.players)] + ["M"]
    width = max(len(names[s]) for s in range(src.players)) + 2
    for index, target in enumerate(targets):
        open_v = src.engine
        cells = []
        tiles = laid.get(target, [])
        for tile in tiles:
            a, b = _pips(tile)
            first, second = (a, b) if a == open_v else (b, a)
            cells.append(f"[{first}|{second}]")
            open_v = second
        if src.pending == target and tiles and src.to_move is not None:
            cells[-1] += "*"
        label = "Mexican" if target == "M" else names[index]
        marker = ""
        if target != "M" and src.trains[index][2]:
            marker = "  (marker: open to all)"
        body = "".join(cells) or "(empty)"
        lines.append(f"{target:<3} {label:<{width}} {body} -> {src.trains[index][0]}{marker}")
    if src.pending is not None and src.to_move is not None:
        lines.append(f"* the double on {src.pending} must be satisfied first")
    return lines


def _foot_text(src: Any) -> list[str]:
    engine = f"{src.engine}-{src.engine}"
    children: dict[str, list[str]] = {engine: []}
    free = {engine: src.engine}
    for _, tile, target in src.placements:
        a, b = _pips(tile)
        free[tile] = b if a == free[target] else a
        children.setdefault(target, []).append(tile)
        children[tile] = []
    pending = src.pending if src.to_move is not None else None

    def cell(tile: str) -> str:
        a, b = _pips(tile)
        first = a + b - free[tile] if tile != engine else a
        text = f"[{first}|{free[tile]}]"
        if tile == pending:
            due = (src.engine_toes if tile == engine else 3) - len(children[tile])
            text += f" <- {due} toe{'s' if due != 1 else ''} of {free[tile]} due"
        return text

    lines: list[str] = []

    def chain(tile: str, prefix: str, lead: str) -> None:
        text = cell(tile)
        while len(children[tile]) == 1 and tile != pending:
            tile = children[tile][0]
            text += "─" + cell(tile)
        lines.append(prefix + lead + text)
        kids = children[tile]
        inner = prefix + ("│ " if lead == "├─" else "  " if lead else "")
        for k, child in enumerate(kids):
            chain(child, inner, "└─" if k == len(kids) - 1 else "├─")

    chain(engine, "", "")
    return lines


def train_board_text(src: Any, names: Sequence[str] | None = None) -> str:
    """The layout of a train round or observation ``src`` as text (see the module)."""
    if names is None:
        names = [f"seat {s}" for s in range(src.players)]
    if layout_of(src) == "trains":
        return "\n".join(_trains_text(src, names))
    return "\n".join(_foot_text(src))


def train_name(target: str, names: Sequence[str], players: int) -> str:
    """``P1`` -> ``seat 1 (greedy)'s train``, ``M`` -> ``the Mexican train``; a Chicken Foot
    target (a tile) -> ``the 9-4``."""
    if target == "M":
        return "the Mexican train"
    if target.startswith("P") and target[1:].isdigit() and int(target[1:]) < players:
        return f"{names[int(target[1:])]}'s train"
    return f"the {target}"


def explain_train_log(
    log: Sequence[tuple[str, int, str | None, str | None]],
    names: Sequence[str],
    layout: str,
    players: int,
    stock: int,
    public_before: Sequence[bool] = (),
) -> list[str]:
    """One sentence per entry of a train round's ``log`` (``TrainRound.log`` or
    ``log_of(seat)``): ``stock`` is the boneyard's size before the first entry;
    ``public_before``: per seat, whether its train was public before (a pass makes it
    public, its owner's placement lifts the marker)."""
    public = list(public_before) or [False] * players
    lines = []
    for kind, seat, tile, target in log:
        who = names[seat]
        if kind == "place":
            assert tile is not None and target is not None
            a, b = _pips(tile)
            if layout == "trains":
                where = (
                    "its own train" if target == f"P{seat}" else train_name(target, names, players)
                )
                text = f"{who} plays {tile} on {where}"
                if a == b:
                    text += ": a double, to be satisfied before anything else"
                if target == f"P{seat}" and public[seat]:
                    text += "; the marker is lifted"
                    public[seat] = False
            else:
                text = f"{who} plays {tile} on the {target}"
                if a == b:
                    text += ": a double, which takes 3 toes before anything else"
            lines.append(text)
        elif kind == "draw":
            stock -= 1
            drawn = tile if tile is not None else "a tile"
            lines.append(f"{who} cannot play and draws {drawn} ({stock} left)")
        else:
            text = f"{who} cannot play and passes"
            if stock == 0:
                text += " (the boneyard is empty)"
            if layout == "trains":
                if not public[seat]:
                    text += "; a marker goes on its train: open to all"
                public[seat] = True
            lines.append(text)
    return lines


def train_round_text(rnd: Any, names: Sequence[str]) -> str:
    """The board of a train round with its hands' sizes and the boneyard, for
    ``bones show`` at the end of each round."""
    lines = [train_board_text(rnd, names)]
    sizes = ", ".join(
        f"{names[s]} {n} tile{'s' if n != 1 else ''}" for s, n in enumerate(rnd.hand_sizes)
    )
    lines.append(f"hands: {sizes}; boneyard {rnd.stock_size}")
    return "\n".join(lines)


def train_view_lines(obs: Any, names: Sequence[str]) -> list[str]:
    """What ``bones play`` shows a person before their move in a train game: the board,
    the open ends they may use, the pending double, every hand's size and their own hand
    (an observation: nothing more)."""
    lines = [train_board_text(obs, names)]
    ends = ", ".join(f"{t}={v}" for t, v in obs.open_ends) or "none"
    lines.append(f"open to you: {ends}   boneyard {obs.stock_size}")
    others = ", ".join(
        f"{names[s]} {obs.hand_sizes[s]} tile{'s' if obs.hand_sizes[s] != 1 else ''}"
        for s in range(obs.players)
        if s != obs.seat
    )
    lines.append(f"hands: {others}")
    return lines
