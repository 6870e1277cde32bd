"""Pictures of the train games (Mexican Train, Chicken Foot) as SVG.

Drawn from the public face of :class:`bones.core.trains.TrainRound` and of
:class:`bones.observation.TrainObservation` (``placements``, ``trains``, ``pending``,
``open_ends``, the hands the viewer may see), never from the core's internals.

* **Mexican Train**: the engine double in a hub on the left; one band per train, joined
  to the hub, the personal trains in their owner's colour with a locomotive and the
  owner's name, a red flag when the train is public (its owner's marker is on it), the
  Mexican train on a gold band; each train's open number in a circle at its end (green
  when the seat to move may play there); the double to satisfy ringed in orange.  A train
  longer than a line wraps onto the next line of its band.
* **Chicken Foot**: a tree laid out from the engine on the left: a line of play reads
  left to right, its tiles touching; each subtree has a band of rows of its own, so no
  two tiles overlap; a double stands crosswise with its toes fanned out to its right (a chicken
  foot); the double (or engine) whose toes are due is ringed in orange, with a dashed
  slot for each toe still missing.

Halves show **numerals**, each number in a colour of its own: counting 7 to 12 pips in a
half a couple of dozen pixels wide is slow and error-prone, while a numeral reads at a
glance at any size, and the colours (like the coloured pips of real double-12 sets) let
the eye match an open end with a hand's tiles.  Tiles are ``<g class="tile"
data-tile="8-3">`` with an absolute ``<rect>`` (no transform), so tests and scripts can
query them and their boxes.  The output is deterministic and valid XML.  A replay page
draws the same pictures from shared pieces (:func:`train_frame_parts` with ``relative``):
there each tile, band, hand and line of the tree is drawn from its own origin and moved
into place by a ``<g transform>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from .trains_text import layout_of, train_name

__all__ = [
    "TrainFrame",
    "frame_of_train_game",
    "frame_of_train_observation",
    "frame_of_train_round",
    "render_train_frame",
    "train_svg_of",
]

_MARGIN = 12
_LINE = 18
_HALF = 22  # side of a half on the board, pixels
_HAND_HALF = 17  # side of a half in the hands
_GAP = 3  # between tiles of a train
_ROW_TILES = 14  # tiles on one line of a train before it wraps
_HAND_ROW = 30  # tiles on one line of a hand
_HUB = 78  # width of the hub column (Mexican Train)
_BRANCH = 26  # Chicken Foot: the gap before the branches of a tile (its toes, or a fork)
_PENDING = "#ff6f00"
_PLAYABLE = "#2e7d32"
#: One colour per number, 0 to 12: dark enough on the tiles' cream, told apart by hue.
NUMBER_COLOURS = (
    "#9e9e9e",
    "#1565c0",
    "#2e7d32",
    "#c62828",
    "#795548",
    "#283593",
    "#ef6c00",
    "#6a1b9a",
    "#00838f",
    "#827717",
    "#ad1457",
    "#37474f",
    "#000000",
)
#: The seats' colours (trains and their locomotives).
SEAT_COLOURS = (
    "#1e88e5",
    "#e53935",
    "#43a047",
    "#8e24aa",
    "#fb8c00",
    "#00897b",
    "#6d4c41",
    "#3949ab",
)


class TrainFrame(NamedTuple):
    """Everything one picture of a train round shows.  ``hands``: per seat, its tiles as
    text, or ``None`` when the viewer may not see them (``hand_sizes`` of them, face
    down)."""

    title: str
    lines: tuple[str, ...]
    layout: str  # "trains" or "chicken_foot"
    engine: int
    players: int
    placements: tuple[tuple[int, str, str], ...]  # (seat, tile, target) in play order
    trains: tuple[tuple[int, int, bool], ...]  # (open, tiles, public) per train, M last
    pending: str | None
    open_ends: tuple[tuple[str, int], ...]
    engine_toes: int
    hands: tuple[tuple[str, ...] | None, ...]
    hand_sizes: tuple[int, ...]
    seat_names: tuple[str, ...]
    to_move: int | None
    stock_size: int

    # As bones.render.svg.Frame: what a page of pictures asks of any family's frame.

    def bounds(self) -> None:
        """None: a train picture is drawn at its own size."""
        return None

    def page_parts(self, bounds: Any, size: Any) -> tuple[list[str], float, float]:
        """The picture in pieces for a replay page, with its width and height (positioned
        relative to its own box; ``bounds`` and ``size`` are the line games')."""
        return train_frame_parts(self, relative=True)

    def svg(self, defs: bool = True, bounds: Any = None, size: Any = None) -> str:
        """The whole picture as one SVG (:func:`render_train_frame`)."""
        return render_train_frame(self)


def _names(players: int, names: Sequence[str] | None) -> tuple[str, ...]:
    if names is None:
        return tuple(f"seat {s}" for s in range(players))
    if len(names) != players:
        raise ValueError(f"seat names: {players} expected, got {len(names)}")
    return tuple(f"seat {s} ({n})" for s, n in enumerate(names))


def _game_name(layout: str) -> str:
    return "Mexican Train" if layout == "trains" else "Chicken Foot"


def _status(src: Any, names: Sequence[str]) -> list[str]:
    lines = []
    turn = "round over" if src.to_move is None else f"{names[src.to_move]} to move"
    lines.append(f"{turn}; boneyard {src.stock_size}")
    if src.pending is not None and src.to_move is not None:
        if layout_of(src) == "trains":
            laid = [t for _, t, target in src.placements if target == src.pending]
            what = laid[-1] if laid else "?"
            where = train_name(src.pending, names, src.players)
            lines.append(f"the double {what} on {where} must be satisfied first")
        else:
            lines.append(f"the {src.pending} must get its toes first")
    if src.open_ends:
        ends = ", ".join(f"{t}={v}" for t, v in src.open_ends)
        lines.append(f"open to {names[src.to_move]}: {ends}")
    result = src.result
    if result is not None:
        if result.reason == "out":
            how = f"{names[result.winners[0]]} went out"
        else:
            low = ", ".join(names[w] for w in result.winners)
            how = f"blocked; lowest: {low}"
        lines.append(f"round over ({how}); penalties {list(result.points)}")
    return lines


def frame_of_train_round(
    rnd: Any, names: Sequence[str] | None = None, title: str = ""
) -> TrainFrame:
    """The picture of a :class:`bones.core.trains.TrainRound`: every hand face up."""
    seat_names = _names(rnd.players, names)
    lines = _status(rnd, seat_names)
    scores = getattr(rnd, "scores", None)
    if scores and any(scores):
        lines.append("game totals before this round: " + ", ".join(map(str, scores)))
    hands = tuple(tuple(str(t) for t in rnd.hand(s)) for s in range(rnd.players))
    return TrainFrame(
        title
        or f"{_game_name(rnd.layout_name)}, engine {rnd.engine}-{rnd.engine}, "
        f"{rnd.players} players",
        tuple(lines),
        rnd.layout_name,
        rnd.engine,
        rnd.players,
        tuple(rnd.placements),
        tuple(rnd.trains),
        rnd.pending,
        tuple(rnd.open_ends),
        rnd.engine_toes,
        hands,
        tuple(rnd.hand_sizes),
        seat_names,
        rnd.to_move,
        rnd.stock_size,
    )


def frame_of_train_observation(
    obs: Any, names: Sequence[str] | None = None, title: str = ""
) -> TrainFrame:
    """The picture of a :class:`bones.observation.TrainObservation`: its own hand face
    up, the others face down (the observation holds nothing more)."""
    seat_names = _names(obs.players, names)
    own = tuple(str(t) for t in obs.hand)
    hands = tuple(own if s == obs.seat else None for s in range(obs.players))
    return TrainFrame(
        title
        or f"{_game_name(obs.layout_name)}, engine {obs.engine}-{obs.engine}, "
        f"{obs.players} players, as {seat_names[obs.seat]} sees it",
        tuple(_status(obs, seat_names)),
        obs.layout_name,
        obs.engine,
        obs.players,
        tuple(obs.placements),
        tuple(obs.trains),
        obs.pending,
        tuple(obs.open_ends),
        obs.engine_toes,
        hands,
        tuple(obs.hand_sizes),
        seat_names,
        obs.to_move,
        obs.stock_size,
    )


def frame_of_train_game(game: Any, names: Sequence[str] | None = None) -> TrainFrame:
    """The picture of a :class:`bones.Game` of a train variant: its current round, with
    the game's totals (the lowest wins)."""
    frame = frame_of_train_round(game.round, names)
    state = "over" if game.is_over else f"round {game.round_index + 1}"
    totals = "-".join(map(str, game.scores))
    title = f"{game.variant}, {game.players} players: game {state}, totals {totals}"
    return frame._replace(title=title)


# ---------------------------------------------------------------------------------------
# Drawing


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _pips_of(tile: str) -> tuple[int, int]:
    a, b = tile.split("-")
    return int(a), int(b)


def _style() -> str:
    """The picture's shared looks, once per SVG rather than on every tile: a replay page
    holds hundreds of these pictures."""
    numbers = "".join(f".bones-trains .n{v}{{fill:{c}}}" for v, c in enumerate(NUMBER_COLOURS))
    return (
        "<style>.bones-trains text{font-family:'DejaVu Sans',Verdana,sans-serif}"
        ".bones-trains .num{text-anchor:middle;font-weight:bold}"
        ".bones-trains .tf{fill:#fffdf4;stroke:#222;stroke-width:1}"
        ".bones-trains .tb{fill:#2f5d50;stroke:#222;stroke-width:1}"
        f".bones-trains .bar{{stroke:#222}}{numbers}</style>"
    )


class Box(NamedTuple):
    x: float
    y: float
    w: float
    h: float


def _numeral(cx: float, cy: float, value: int, half: float) -> str:
    size = half * (0.62 if value >= 10 else 0.72)
    return (
        f"<text class='num n{value % 13}' x='{_n(cx)}' y='{_n(cy + size * 0.36)}' "
        f"font-size='{_n(size)}'>{value}</text>"
    )


def _tile(*args: Any, **kw: Any) -> str:
    """A tile (see :func:`_tile_parts`) as one string."""
    return "".join(_tile_parts(*args, **kw))


def _tile_parts(
    x: float,
    y: float,
    first: int,
    second: int,
    half: float,
    vertical: bool,
    *,
    cls: str = "tile",
    label: str = "",
    extra: str = "",
    face_up: bool = True,
) -> list[str]:
    """A tile with its top-left corner at ``(x, y)``: ``first`` on the left (or top); in
    three pieces, the group with the tile's name, its face and the group's end."""
    w, h = (half, 2 * half) if vertical else (2 * half, half)
    attrs = f"class='{cls}'"
    if label:
        attrs += f" data-tile={quoteattr(label)}"
    body = (
        f"<rect class='{'tf' if face_up else 'tb'}' x='{_n(x)}' y='{_n(y)}' width='{_n(w)}' "
        f"height='{_n(h)}' rx='{_n(half / 6)}'/>"
    )
    if face_up:
        if vertical:
            body += (
                f"<line class='bar' x1='{_n(x + 2)}' y1='{_n(y + half)}' x2='{_n(x + w - 2)}' "
                f"y2='{_n(y + half)}'/>"
            )
            body += _numeral(x + half / 2, y + half / 2, first, half)
            body += _numeral(x + half / 2, y + 1.5 * half, second, half)
        else:
            body += (
                f"<line class='bar' x1='{_n(x + half)}' y1='{_n(y + 2)}' x2='{_n(x + half)}' "
                f"y2='{_n(y + h - 2)}'/>"
            )
            body += _numeral(x + half / 2, y + half / 2, first, half)
            body += _numeral(x + 1.5 * half, y + half / 2, second, half)
    title = f"<title>{escape(label)}</title>" if label else ""
    # the face apart from the group naming the tile: the same face serves every seat's
    # tile, in a replay's pieces
    return [f"<g {attrs}{extra}>{title}", body, "</g>"]


def _ring(box: Box, colour: str = _PENDING) -> str:
    return (
        f"<rect class='pending-mark' x='{_n(box.x - 4)}' y='{_n(box.y - 4)}' "
        f"width='{_n(box.w + 8)}' height='{_n(box.h + 8)}' rx='5' fill='{colour}' "
        f"fill-opacity='0.3' stroke='{colour}' stroke-width='2.5'/>"
    )


def _badge(cx: float, cy: float, value: int, playable: bool, target: str) -> str:
    colour = _PLAYABLE if playable else "#9e9e9e"
    return (
        f"<g class='open-end' data-target={quoteattr(target)} data-open='{value}' "
        f"data-playable='{'yes' if playable else 'no'}'><title>{escape(target)} open on "
        f"{value}</title><circle cx='{_n(cx)}' cy='{_n(cy)}' r='11' fill='#ffffff' "
        f"stroke='{colour}' stroke-width='{3 if playable else 1.5}' "
        f"stroke-dasharray='{'none' if playable else '3 2'}'/>"
        f"<text x='{_n(cx)}' y='{_n(cy + 4.5)}' text-anchor='middle' font-size='12' "
        f"font-weight='bold' fill='{NUMBER_COLOURS[value % 13]}'>{value}</text></g>"
    )


def _locomotive(x: float, y: float, colour: str) -> str:
    """A small locomotive, 26 x 16, its top-left corner at ``(x, y)``."""
    return (
        f"<g class='locomotive'><rect x='{_n(x)}' y='{_n(y + 5)}' width='18' height='8' "
        f"fill='{colour}'/><rect x='{_n(x + 11)}' y='{_n(y)}' width='8' height='7' "
        f"fill='{colour}'/><rect x='{_n(x + 2)}' y='{_n(y + 1)}' width='3' height='4' "
        f"fill='{colour}'/><path d='M{_n(x + 18)} {_n(y + 13)}L{_n(x + 24)} {_n(y + 13)}"
        f"L{_n(x + 18)} {_n(y + 7)}Z' fill='{colour}'/>"
        f"<circle cx='{_n(x + 4)}' cy='{_n(y + 14)}' r='2.5' fill='#222'/>"
        f"<circle cx='{_n(x + 14)}' cy='{_n(y + 14)}' r='2.5' fill='#222'/></g>"
    )


def _flag(x: float, y: float) -> str:
    """The marker: a red flag on a pole, 12 x 16, top-left at ``(x, y)``."""
    return (
        f"<g class='marker'><title>marker: this train is public</title>"
        f"<line x1='{_n(x + 1)}' y1='{_n(y)}' x2='{_n(x + 1)}' y2='{_n(y + 16)}' "
        f"stroke='#222' stroke-width='1.5'/><path d='M{_n(x + 1)} {_n(y)}L{_n(x + 13)} "
        f"{_n(y + 4)}L{_n(x + 1)} {_n(y + 8)}Z' fill='#d32f2f'/></g>"
    )


def _text(x: float, y: float, text: str, size: int = 12, extra: str = "") -> str:
    return f"<text x='{_n(x)}' y='{_n(y)}' font-size='{size}'{extra}>{escape(text)}</text>"


def _text_pieces(x: float, y: float, text: str, extra: str = "") -> list[str]:
    """:func:`_text` (size 12) in three pieces: the words apart from the markup around
    them, which a replay then stores once for every line at that place."""
    return [f"<text x='{_n(x)}' y='{_n(y)}' font-size='12'{extra}>", escape(text), "</text>"]


def _move(x: float, y: float) -> str:
    return f"<g transform='translate({_n(x)},{_n(y)})'>"


def _put(
    rel: bool, x: float, y: float, draw: Callable[..., str | list[str]], *args: Any, **kw: Any
) -> list[str]:
    """The pieces of ``draw(x, y, *args, **kw)`` (a string, or a list of pieces): as
    drawn, or with ``rel`` (a replay's pieces) drawn at the origin and moved to ``(x, y)``,
    so that a tile or a badge is the same piece wherever it stands and a replay stores
    it once."""
    drawn = draw(0, 0, *args, **kw) if rel else draw(x, y, *args, **kw)
    pieces = [drawn] if isinstance(drawn, str) else drawn
    return [_move(x, y), *pieces, "</g>"] if rel else pieces


def _trains_board(
    f: TrainFrame, left: float, top: float, rel: bool = False
) -> tuple[list[str], float, float]:
    """Mexican Train: the hub and one band per train; returns the SVG's pieces, width,
    height.  ``rel``: each band drawn from its own top and moved to its place (see
    :func:`_put`)."""
    half = _HALF
    laid: dict[str, list[str]] = {}
    for _, tile, target in f.placements:
        laid.setdefault(target, []).append(tile)
    open_to = {t for t, _ in f.open_ends}
    names = [f"P{s}" for s in range(f.players)] + ["M"]
    x0 = left + _HUB  # where each band's tiles start
    line_h = 2 * half + 10
    bands: list[list[str]] = []
    y = top
    width = 0.0
    starts = []  # the pixel each band's first line is centred on (the hub's arms)
    for index, target in enumerate(names):
        tiles = laid.get(target, [])
        public = index < len(f.trains) and f.trains[index][2] and target != "M"
        mexican = target == "M"
        colour = "#c49000" if mexican else SEAT_COLOURS[index % len(SEAT_COLOURS)]
        lines = max(1, -(-(len(tiles) + 1) // _ROW_TILES))  # +1: the open-end badge
        band_h = _LINE + lines * line_h + 4
        by = 0.0 if rel else y  # the band's top as drawn
        parts = [
            f"<g class='train{' mexican' if mexican else ''}' data-train='{target}' "
            f"data-public='{'yes' if public else 'no'}'>"
            f"<rect x='{_n(x0 - 6)}' y='{_n(by)}' width='@W@' height='{_n(band_h - 4)}' rx='6' "
            f"fill='{'#fff3c4' if mexican else '#ffffff'}' fill-opacity='0.85' "
            f"stroke='{colour}' stroke-width='{2 if mexican else 1}'/>"
            f"<rect x='{_n(x0 - 6)}' y='{_n(by)}' width='5' height='{_n(band_h - 4)}' "
            f"fill='{colour}'/>"
        ]
        if mexican:
            label = "Mexican train (anyone may play here)"
            parts.append(
                f"<text x='{_n(x0)}' y='{_n(by + 13)}' font-size='13' fill='#8a6500'>\u2605</text>"
            )
        else:
            label = f"{f.seat_names[index]}'s train"
            parts.append(_locomotive(x0, by + 1, colour))
        lx = x0 + 30
        parts.append(_text(lx, by + 13, label, 12, " font-weight='bold'"))
        lx += len(label) * 7.4 + 8
        if public:
            parts.append(_flag(lx, by + 1))
            parts.append(_text(lx + 16, by + 13, "marker: open to all", 11, " fill='#b71c1c'"))
            lx += 130
        if f.pending == target and f.to_move is not None:
            parts.append(
                _text(
                    lx, by + 13, "double to satisfy", 11, f" fill='{_PENDING}' font-weight='bold'"
                )
            )
            lx += 110
        width = max(width, lx - left)
        open_v = f.engine
        ty = by + _LINE
        starts.append(y + _LINE + line_h / 2)
        x = x0
        for k, tile in enumerate(tiles):
            if k and k % _ROW_TILES == 0:  # wrap onto the next line of the band
                ty += line_h
                x = x0
                parts.append(_text(x0 - 4, ty + line_h / 2 + 4, "\u21aa", 12, " fill='#666'"))
                x += 10
            a, b = _pips_of(tile)
            first, second = (a, b) if a == open_v else (b, a)
            double = a == b
            cy = ty + line_h / 2
            if double:
                box = Box(x, cy - half, half, 2 * half)
            else:
                box = Box(x, cy - half / 2, 2 * half, half)
            if f.pending == target and f.to_move is not None and k == len(tiles) - 1 and double:
                parts.append(_ring(box))
            seat = f" data-seat='{_seat_of(f, tile)}'"
            parts += _put(rel, box.x, box.y, _tile_parts, first, second, half, double, label=tile,
                          extra=seat)  # fmt: skip
            x += box.w + _GAP
            open_v = second
            width = max(width, x - left)
        if len(tiles) % _ROW_TILES == 0 and tiles:
            ty += line_h
            x = x0 + 10
        trains_open = f.trains[index][0] if index < len(f.trains) else open_v
        parts += _put(rel, x + 13, ty + line_h / 2, _badge, trains_open, target in open_to, target)
        width = max(width, x + 30 - left)
        parts.append("</g>")
        bands.append([_move(0, y), *parts, "</g>"] if rel else parts)
        y += band_h
    height = y - top
    band_w = max(width - _HUB + 12, 360)
    body = [p.replace("@W@", _n(band_w)) for band in bands for p in band]
    # the hub: the engine, with an arm to the start of every train
    hx = left + 8
    hy = top + height / 2
    hub = [
        f"<g class='hub'><rect x='{_n(hx - 6)}' y='{_n(hy - half - 14)}' width='{_n(half + 12)}' "
        f"height='{_n(2 * half + 28)}' rx='10' fill='#5d4037'/>"
    ]
    for sy in starts:
        hub.append(
            f"<path class='arm' d='M{_n(hx + half + 6)} {_n(hy)}C{_n(hx + half + 36)} {_n(hy)} "
            f"{_n(x0 - 40)} {_n(sy)} {_n(x0 - 8)} {_n(sy)}' fill='none' stroke='#8d6e63' "
            f"stroke-width='3'/>"
        )
    e = f.engine
    hub += _put(
        rel, hx, hy - half, _tile_parts, e, e, half, True, cls="tile engine", label=f"{e}-{e}"
    )
    hub.append("</g>")
    return hub + body, band_w + _HUB, height


def _seat_of(f: TrainFrame, tile: str) -> int:
    for seat, t, _ in f.placements:
        if t == tile:
            return seat
    return -1


class _Node:
    __slots__ = ("children", "depth", "free", "missing", "span", "tile", "x", "y")

    def __init__(self, tile: str, free: int, depth: int) -> None:
        self.tile = tile
        self.free = free  # the number its free end shows
        self.depth = depth
        self.children: list[_Node] = []
        self.missing = 0  # toes still due (dashed slots)
        self.span = 0.0
        self.x = 0.0  # left edge of its slot (2 halves wide)
        self.y = 0.0


def _foot_tree(f: TrainFrame) -> tuple[_Node, dict[str, _Node]]:
    engine = f"{f.engine}-{f.engine}"
    root = _Node(engine, f.engine, 0)
    nodes = {engine: root}
    for _, tile, target in f.placements:
        parent = nodes.get(target)
        if parent is None:
            raise ValueError(f"chicken foot: {tile} placed on {target}, which is not on the table")
        a, b = _pips_of(tile)
        node = _Node(tile, b if a == parent.free else a, parent.depth + 1)
        parent.children.append(node)
        nodes[tile] = node
    if f.pending is not None and f.pending in nodes and f.to_move is not None:
        p = nodes[f.pending]
        due = f.engine_toes if p is root else 3
        p.missing = max(0, due - len(p.children))
    return root, nodes


_SLOT = _HALF + 10  # rows of the tree: a horizontal tile and its gap


def _dot(x: float, y: float, target: str) -> str:
    """A green dot at ``(x, y)``: an open end of the tree the seat to move may use."""
    return (
        f"<circle class='open-end' data-target={quoteattr(target)} cx='{_n(x)}' cy='{_n(y)}' "
        f"r='3.5' fill='{_PLAYABLE}'/>"
    )


def _toe(x: float, y: float, ex: float, ey: float, free: int) -> str:
    """A toe still due: a dashed line from ``(x, y)`` to a dashed slot at ``(ex, ey)``
    showing the number it must match."""
    half = _HALF
    return (
        f"<path class='edge due' d='M{_n(x)} {_n(y)}C{_n(x + 12)} {_n(y)} "
        f"{_n(ex - 12)} {_n(ey)} {_n(ex)} {_n(ey)}' fill='none' stroke='{_PENDING}' "
        f"stroke-width='2' stroke-dasharray='4 3'/>"
        f"<rect class='toe-slot' x='{_n(ex)}' y='{_n(ey - half / 2)}' "
        f"width='{_n(2 * half)}' height='{_n(half)}' rx='3' fill='none' "
        f"stroke='{_PENDING}' stroke-width='1.5' stroke-dasharray='4 3'/>"
        f"<text x='{_n(ex + half)}' y='{_n(ey + 4)}' text-anchor='middle' font-size='11' "
        f"fill='{_PENDING}'>{free}</text>"
    )


def _edge(x: float, y: float, ex: float, ey: float) -> str:
    """The line from a tile's end at ``(x, y)`` to the tile (or fork) it carries."""
    return (
        f"<path class='edge' d='M{_n(x)} {_n(y)}C{_n(x + 12)} {_n(y)} {_n(ex - 12)} "
        f"{_n(ey)} {_n(ex)} {_n(ey)}' fill='none' stroke='#8d6e63' stroke-width='2'/>"
    )


def _foot_board(
    f: TrainFrame, left: float, top: float, rel: bool = False
) -> tuple[list[str], float, float]:
    """Chicken Foot: the layered tree; returns the SVG's pieces, width, height.  ``rel``:
    each tile drawn at the origin and moved to its place (see :func:`_put`)."""
    half = _HALF
    root, _nodes = _foot_tree(f)

    def own(n: _Node) -> float:
        a, b = _pips_of(n.tile)
        return 2 * half + 10 if a == b else _SLOT

    def measure(n: _Node) -> float:
        kids = sum(measure(c) for c in n.children) + n.missing * _SLOT
        n.span = max(own(n), kids)
        return n.span

    def chained(n: _Node) -> bool:
        """A plain tile with one tile on it: the two touch, as in a line of play."""
        a, b = _pips_of(n.tile)
        return n.depth > 0 and len(n.children) == 1 and not n.missing and a != b

    def next_x(n: _Node) -> float:
        return n.x + 2 * half + (_GAP if chained(n) else _BRANCH)

    def place(n: _Node, y0: float, x: float) -> None:
        n.x = x
        kids = sum(c.span for c in n.children) + n.missing * _SLOT
        y = y0 + (n.span - kids) / 2
        for c in n.children:
            place(c, y, next_x(n))
            y += c.span
        n.y = y0 + n.span / 2

    measure(root)
    place(root, top, left)
    parts: list[str] = []
    edges: list[str] = []
    open_to = {t for t, _ in f.open_ends}
    right = left

    def box_of(n: _Node) -> Box:
        a, b = _pips_of(n.tile)
        x = n.x
        if a == b:
            return Box(x + half / 2, n.y - half, half, 2 * half)
        return Box(x, n.y - half / 2, 2 * half, half)

    stack = [root]
    while stack:
        n = stack.pop()
        box = box_of(n)
        right = max(right, next_x(n) + 2 * half if n.missing else n.x + 2 * half)
        a, b = _pips_of(n.tile)
        double = a == b
        if f.pending == n.tile and f.to_move is not None:
            parts.append(_ring(box))
        if n.depth == 0:
            first, second = n.free, n.free
        else:
            first, second = (b, a) if a == n.free and not double else (a, b)
        seat = "" if n.depth == 0 else f" data-seat='{_seat_of(f, n.tile)}'"
        cls = "tile engine" if n.depth == 0 else "tile"
        parts += _put(rel, box.x, box.y, _tile_parts, first, second, half, double, cls=cls,
                      label=n.tile, extra=seat)  # fmt: skip
        if not n.children and not n.missing and not double and n.tile in open_to:
            parts += _put(rel, box.x + box.w + 6, box.y + box.h / 2, _dot, n.tile)
        sx, sy = box.x + box.w, box.y + box.h / 2
        ky = n.y - (sum(c.span for c in n.children) + n.missing * _SLOT) / 2
        ky += sum(c.span for c in n.children)
        missing_ys = [ky + (k + 0.5) * _SLOT for k in range(n.missing)]
        for c in n.children:
            cb = box_of(c)
            ex, ey = cb.x, cb.y + cb.h / 2
            stack.append(c)
            if chained(n) and cb.w > cb.h:
                continue  # the tiles touch (a double, standing crosswise, is joined by a line)
            if rel:  # drawn from its start: the same piece wherever the two tiles stand
                edges += [_move(sx, sy), _edge(0, 0, ex - sx, ey - sy), "</g>"]
            else:
                edges.append(_edge(sx, sy, ex, ey))
        for my in missing_ys:
            ex = next_x(n)
            if rel:
                edges += [_move(sx, sy), _toe(0, 0, ex - sx, my - sy, n.free), "</g>"]
            else:
                edges.append(_toe(sx, sy, ex, my, n.free))
    width = right - left + 14
    table = (
        f"<rect class='table' x='{_n(left - 6)}' y='{_n(top - 6)}' width='{_n(width + 12)}' "
        f"height='{_n(root.span + 12)}' rx='8' fill='#2e7d4f' fill-opacity='0.12'/>"
    )
    return [table, *edges, *parts], width, root.span


def _hand_row(
    f: TrainFrame, seat: int, left: float, top: float, rel: bool = False
) -> tuple[list[str], float, float]:
    u = _HAND_HALF
    tiles = f.hands[seat]
    count = f.hand_sizes[seat]
    marker = "\u25b6 " if f.to_move == seat else ""
    label = f"{marker}{f.seat_names[seat]}: {count} tile{'s' if count != 1 else ''}"
    if tiles is None:
        label += " (hidden)"
    else:
        label += f", {sum(sum(_pips_of(t)) for t in tiles)} pips"
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    parts = [
        f"<g class='hand' data-seat='{seat}' data-visible='{'no' if tiles is None else 'yes'}'>"
        f"<rect x='{_n(left)}' y='{_n(top + 3)}' width='4' height='12' fill='{colour}'/>",
        *_text_pieces(left + 8, top + 13, label, " font-weight='bold'" if marker else ""),
    ]
    y0 = top + _LINE
    for k in range(count):
        x = left + (k % _HAND_ROW) * (u + 4)
        y = y0 + (k // _HAND_ROW) * (2 * u + 4)
        if tiles is None:
            parts += _put(
                rel, x, y, _tile_parts, 0, 0, u, True, cls="hand-tile back", face_up=False
            )
        else:
            a, b = _pips_of(tiles[k])
            parts += _put(rel, x, y, _tile_parts, a, b, u, True, cls="hand-tile", label=tiles[k])
    parts.append("</g>")
    lines = max(1, -(-count // _HAND_ROW))
    return parts, min(count, _HAND_ROW) * (u + 4), _LINE + lines * (2 * u + 4) + 4


def render_train_frame(frame: TrainFrame, *, defs: bool = True) -> str:
    """The whole picture: title, status lines, the layout, every hand, the boneyard.
    ``defs`` is accepted for the double-six renderer's signature (nothing is shared)."""
    del defs
    return "".join(train_frame_parts(frame)[0])


def train_frame_parts(
    frame: TrainFrame, *, relative: bool = False
) -> tuple[list[str], float, float]:
    """The pieces of :func:`render_train_frame`'s SVG (their concatenation is the
    picture) with its width and height: a replay stores each distinct piece once.

    With ``relative`` (what a replay page draws) the picture looks the same, but the
    board, each hand, each band of the trains, each tile and each open number is drawn
    from its own origin and moved to its place by a ``translate``: a tile is then the
    same piece at every step, wherever the layout puts it, and only the small
    ``<g transform>`` pieces change when it moves."""
    lines = (frame.title, *frame.lines)
    top = _MARGIN + _LINE * len(lines) + 6
    origin = 0.0 if relative else top  # the board's top as drawn
    if frame.layout == "trains":
        board, bw, bh = _trains_board(frame, _MARGIN, origin, relative)
    else:
        board, bw, bh = _foot_board(frame, _MARGIN + 6, origin + 6, relative)
        bw += 12
        bh += 12
    if frame.layout == "trains":
        legend = (
            "circle: a train's open number (green: open to the seat to move); red flag: a "
            "marker, the train is open to all; orange: the double to satisfy"
        )
    else:
        legend = (
            "green dot: an open end the seat to move may use; orange: the double whose toes "
            "are due, a dashed slot per toe"
        )
    board = [
        f"<g class='board' data-layout='{frame.layout}'>",
        *board,
        "</g>",
        _text(_MARGIN, origin + bh + 4 + 12, legend, 11, " class='legend' fill='#555'"),
    ]
    if relative:
        board = [_move(0, top), *board, "</g>"]
    below = top + bh + 4 + _LINE + 6  # under the board and its legend
    # With more than four seats the hands go beside the board, not under it: eight hands
    # and nine trains stacked made a picture taller than wide, which a window shrank
    # until its numbers were a few pixels high.
    beside = frame.players > 4
    dx = bw + 2 * _MARGIN if beside else 0.0  # the hands' column, from the left margin
    y = top if beside else below
    rows = []
    hands = 0.0
    for seat in range(frame.players):
        row, w, h = _hand_row(
            frame, seat, _MARGIN + (0 if relative else dx), 0.0 if relative else y, relative
        )
        rows += [_move(dx, y), *row, "</g>"] if relative else row
        label = 7.2 * len(frame.seat_names[seat]) + 150  # "seat: 12 tiles, 85 pips"
        hands = max(hands, w, label)
        y += h
    stock = frame.stock_size
    rows.append(
        f"<g class='stock' data-size='{stock}'>"
        + _text(_MARGIN + dx, y + 13, f"boneyard: {stock} tile{'s' if stock != 1 else ''}")
        + "</g>"
    )
    y += _LINE + 4
    text_width = max(len(line) * (8.6 if i == 0 else 7.2) for i, line in enumerate(lines))
    text_width = max(text_width, len(legend) * 6.4)
    width = max(dx + hands, bw, text_width, 360) + 2 * _MARGIN
    height = max(y, below) + _MARGIN
    text = [
        piece
        for i, line in enumerate(lines)
        for piece in (
            f"<text x='{_n(_MARGIN)}' y='{_n(_MARGIN + 13 + i * _LINE)}' "
            f"font-size='{14 if i == 0 else 12}' font-weight='{'bold' if i == 0 else 'normal'}' "
            ">",
            escape(line),  # a piece of its own: the markup around it is the same at every step
            "</text>",
        )
    ]
    head = (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='bones-position bones-trains' "
        f"width='{_n(width)}' height='{_n(height)}' viewBox='0 0 {_n(width)} {_n(height)}'>"
    )
    style = f"{_style()}<rect width='100%' height='100%' fill='#f7f3ea'/>"
    return [head, style, *text, *board, *rows, "</svg>"], width, height


def train_svg_of(obj: Any, names: Sequence[str] | None = None) -> str:
    """The SVG of a train round, a train observation or a game of a train variant."""
    from ..core.trains import TrainSeatView  # TrainObservation's base

    if isinstance(obj, TrainSeatView):
        return render_train_frame(frame_of_train_observation(obj, names))
    if hasattr(obj, "round_index"):  # a bones.Game
        return render_train_frame(frame_of_train_game(obj, names))
    return render_train_frame(frame_of_train_round(obj, names))


def __getattr__(name: str) -> Any:
    """``is_train_round``, kept for one release: the family registry answers now."""
    if name == "is_train_round":
        import warnings

        warnings.warn(
            "bones.render.trains_svg.is_train_round is deprecated: ask the family "
            "(bones.registry.family_of(obj.variant).name == 'trains')",
            DeprecationWarning,
            stacklevel=2,
        )
        return _is_train_round
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _is_train_round(obj: Any) -> bool:
    from ..registry import family_of

    return family_of(obj.variant).name == "trains"
