"""Boards, hands and whole positions as SVG, drawn from the public placements API.

A tile's position comes from :class:`bones.Placement` (``Round.placements``,
``Observation.placements``): grid units of a quarter tile length, ``(x, y)`` the tile's
centre with y pointing down, ``angle`` the direction from the ``first`` half to the
``second``.  Nothing here reads the core's internals, so a picture shows exactly what the
rules decided.  The output is deterministic (same position, same bytes) and valid XML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol
from xml.sax.saxutils import escape, quoteattr

if TYPE_CHECKING:
    from .trains_svg import TrainFrame

__all__ = [
    "UNIT",
    "Frame",
    "board_group",
    "frame_of_game",
    "frame_of_observation",
    "frame_of_round",
    "frame_parts",
    "line_svg_of",
    "pip_defs",
    "render_frame",
    "spinner_indices",
    "svg_of",
]

#: Pixels per grid unit (a tile is 4 units long and 2 wide: 56 x 28 px on the board).
UNIT = 14
_HAND_UNIT = 11  # hands and the boneyard: 22 x 44 px tiles, a little smaller than the board
_PIP_UNIT = 10  # the unit the pip symbols are drawn for (a half of 20 x 20)
_MARGIN = 12
_LINE = 18  # height of a line of text
_FONT = "font-family='DejaVu Sans, Verdana, sans-serif'"
_PIPS = {  # pip centres in a half, in quarters of the half's side, from its centre
    0: (),
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}
_STEP = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}  # angle -> unit step first->second


class PlacementLike(Protocol):
    """What the renderer reads of a placement (``bones.Placement`` has these fields)."""

    @property
    def move(self) -> Any: ...
    @property
    def tile(self) -> Any: ...
    @property
    def x(self) -> int: ...
    @property
    def y(self) -> int: ...
    @property
    def angle(self) -> int: ...
    @property
    def first(self) -> int: ...
    @property
    def second(self) -> int: ...


class Frame(NamedTuple):
    """Everything one picture shows.  ``hands``: per seat, its tiles, or ``None`` when the
    viewer may not see them (drawn face down, ``hand_sizes`` of them)."""

    title: str
    lines: tuple[str, ...]  # status lines under the title (count, scores, ...)
    placements: tuple[Any, ...]
    table: tuple[int, int, int, int] | None
    closed_ends: tuple[str, ...]
    spinners: frozenset[int]  # indices into placements
    hands: tuple[tuple[Any, ...] | None, ...]
    hand_sizes: tuple[int, ...]
    seat_names: tuple[str, ...]
    to_move: int | None
    stock_size: int

    # Every family's frame answers these three (the train games' TrainFrame too), so a
    # page of pictures needs not know whose they are.

    def bounds(self) -> tuple[int, int, int, int] | None:
        """The grid box its board needs (:func:`board_bounds`): a replay draws every
        position of a round in their union."""
        return board_bounds(self)

    def page_parts(
        self, bounds: tuple[int, int, int, int] | None, size: tuple[float, float] | None
    ) -> tuple[list[str], float, float]:
        """The picture in pieces for a page that holds the pip symbols once, with its
        width and height (:func:`frame_parts`)."""
        return frame_parts(self, defs=False, bounds=bounds, size=size)

    def svg(self, defs: bool = True, bounds: Any = None, size: Any = None) -> str:
        """The whole picture as one SVG (:func:`frame_parts`)."""
        return "".join(frame_parts(self, defs=defs, bounds=bounds, size=size)[0])


# ---------------------------------------------------------------------------------------
# Reading positions


def spinner_indices(placements: Sequence[PlacementLike], options: Mapping[str, Any]) -> frozenset:
    """The placements that are spinners under the variant's ``spinner_rule`` option: the
    first double played (``first_double``), every double (``all_doubles``) or none."""
    rule = options.get("spinner_rule", "none")
    doubles = [i for i, p in enumerate(placements) if p.tile.is_double]
    if rule == "first_double":
        return frozenset(doubles[:1])
    if rule == "all_doubles":
        return frozenset(doubles)
    return frozenset()


def _sides_text(sides: Sequence[Sequence[int]], scores: Sequence[int], names: Sequence[str]) -> str:
    parts = []
    for side, seats in enumerate(sides):
        who = "+".join(names[s] for s in seats)
        parts.append(f"{who} {scores[side]}")
    return "scores: " + ", ".join(parts)


def points_text(sides: Sequence[Sequence[int]], points: Sequence[int], names: Sequence[str]) -> str:
    """A round's points as words: per side when ``points`` has one entry per side, else
    per seat (``seat 0 (greedy) 25, seat 1 (random) 0``)."""
    if len(points) == len(sides):
        who = ["+".join(names[s] for s in seats) for seats in sides]
    else:
        who = list(names[: len(points)])
    return ", ".join(f"{w} {p}" for w, p in zip(who, points, strict=False))


def _seat_names(players: int, names: Sequence[str] | None) -> tuple[str, ...]:
    if names is None:
        return tuple(f"seat {s}" for s in range(players))
    if len(names) != players:
        raise ValueError(f"seat names: {players} expected, got {len(names)}")
    return tuple(f"seat {s} ({n})" for s, n in enumerate(names))


def _status(
    count: int, stock: int, to_move: int | None, names: Sequence[str], closed: Sequence[str]
) -> str:
    turn = "round over" if to_move is None else f"{names[to_move]} to move"
    ends = f", closed ends: {', '.join(closed)}" if closed else ""
    return f"count {count}, boneyard {stock}, {turn}{ends}"


def frame_of_round(rnd: Any, names: Sequence[str] | None = None, title: str = "") -> Frame:
    """The picture of a :class:`bones.Round`: every hand face up."""
    seat_names = _seat_names(rnd.players, names)
    placements = tuple(rnd.placements)
    lines = [
        _status(rnd.count, rnd.stock_size, rnd.to_move, seat_names, rnd.closed_ends),
        _sides_text(rnd.sides, rnd.scores, seat_names),
    ]
    if rnd.result is not None:
        r = rnd.result
        won = ", ".join("+".join(seat_names[s] for s in rnd.sides[w]) for w in r.winners)
        points = points_text(rnd.sides, r.points, seat_names)
        lines.append(f"round over ({r.reason}): won by {won or 'nobody'}; points: {points}")
    return Frame(
        title or f"{rnd.variant}, {rnd.players} players",
        tuple(lines),
        placements,
        rnd.table,
        tuple(rnd.closed_ends),
        spinner_indices(placements, rnd.options),
        tuple(rnd.hand(s) for s in range(rnd.players)),
        tuple(rnd.hand_sizes),
        seat_names,
        rnd.to_move,
        rnd.stock_size,
    )


def frame_of_observation(obs: Any, names: Sequence[str] | None = None) -> Frame:
    """The picture of an :class:`bones.Observation`: its own hand face up, the others face
    down (an observation holds nothing more)."""
    seat_names = _seat_names(obs.players, names)
    placements = tuple(obs.placements)
    from ..core.rules import compile_rules
    from ..registry import variant as lookup_variant

    sides = compile_rules(obs.variant, obs.players, obs.options).sides
    # an observation keeps only the options that were given; the spinner rule may be
    # the variant's default
    options = lookup_variant(obs.variant).resolve_options(obs.players, obs.options)
    return Frame(
        f"{obs.variant}, {obs.players} players, as {seat_names[obs.seat]} sees it",
        (
            _status(obs.count, obs.stock_size, obs.to_move, seat_names, obs.closed_ends),
            _sides_text(sides, obs.scores, seat_names),
        ),
        placements,
        obs.table,
        tuple(obs.closed_ends),
        spinner_indices(placements, options),
        tuple(tuple(obs.hand) if s == obs.seat else None for s in range(obs.players)),
        tuple(obs.hand_sizes),
        seat_names,
        obs.to_move,
        obs.stock_size,
    )


def frame_of_game(game: Any, names: Sequence[str] | None = None) -> Frame:
    """The picture of a :class:`bones.Game`: its current round, with the game scores."""
    frame = frame_of_round(game.round, names)
    state = "over" if game.is_over else f"round {game.round_index + 1}"
    scores = "-".join(map(str, game.scores))
    title = f"{game.variant}, {game.players} players: game {state}, game scores {scores}"
    return frame._replace(title=title)


# ---------------------------------------------------------------------------------------
# Drawing


def _n(value: float) -> str:
    """A coordinate as short, stable text."""
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def pip_defs() -> str:
    """``<defs>`` with one symbol per pip number (``bones-pips-0`` ... ``bones-pips-6``),
    in a 20 x 20 box centred on 0; every half of every tile uses them."""
    parts = ["<defs>"]
    for n, spots in _PIPS.items():
        circles = "".join(
            f"<circle cx='{_n(dx * 5.2)}' cy='{_n(dy * 5.2)}' r='2.1'/>" for dx, dy in spots
        )
        parts.append(f"<symbol id='bones-pips-{n}' overflow='visible'>{circles}</symbol>")
    parts.append("</defs>")
    return "".join(parts)


def _half(cx: float, cy: float, pips: int, scale: float, along_row: bool) -> str:
    # the symbols stand upright; a tile along a row shows its sixes as rows of three
    turn = " rotate(90)" if along_row else ""
    return (
        f"<use href='#bones-pips-{pips}' transform='translate({_n(cx)} {_n(cy)}) "
        f"scale({_n(scale)}){turn}'/>"
    )


def _tile_parts(
    cx: float,
    cy: float,
    angle: int,
    first: int,
    second: int,
    unit: float,
    *,
    cls: str = "tile",
    label: str = "",
    face_up: bool = True,
) -> tuple[str, str, str]:
    """One tile centred at pixel ``(cx, cy)``, its ``first`` half away from ``angle``, as
    its opening tag (which places it), its face drawn round (0, 0), and ``</g>``: every
    tile of the same face and orientation has the same middle piece."""
    dx, dy = _STEP[angle]
    w, h = (4 * unit, 2 * unit) if dx else (2 * unit, 4 * unit)
    attrs = f"class='{cls}'"
    if label:
        attrs += f" data-tile={quoteattr(label)}"
    body = (
        f"<rect x='{_n(-w / 2)}' y='{_n(-h / 2)}' width='{_n(w)}' height='{_n(h)}' "
        f"rx='{_n(unit / 3)}' fill='{'#fffdf4' if face_up else '#2f5d50'}' stroke='#222' "
        f"stroke-width='1'/>"
    )
    if face_up:
        if dx:
            body += (
                f"<line x1='0' y1='{_n(-h / 2 + 2)}' x2='0' y2='{_n(h / 2 - 2)}' stroke='#222'/>"
            )
        else:
            body += (
                f"<line x1='{_n(-w / 2 + 2)}' y1='0' x2='{_n(w / 2 - 2)}' y2='0' stroke='#222'/>"
            )
        scale = unit / _PIP_UNIT
        body += _half(-dx * unit, -dy * unit, first, scale, bool(dx))
        body += _half(dx * unit, dy * unit, second, scale, bool(dx))
    return f"<g {attrs} transform='translate({_n(cx)} {_n(cy)})'>", body, "</g>"


def _tile(
    cx: float,
    cy: float,
    angle: int,
    first: int,
    second: int,
    unit: float,
    *,
    cls: str = "tile",
    label: str = "",
    face_up: bool = True,
) -> str:
    """One tile centred at pixel ``(cx, cy)``, its ``first`` half away from ``angle``."""
    parts = _tile_parts(cx, cy, angle, first, second, unit, cls=cls, label=label, face_up=face_up)
    return "".join(parts)


def _end_of(placement: PlacementLike) -> str | None:
    """The end a placement was laid on (``None`` for the lead)."""
    move = placement.move
    if move.tile2 is not None and placement.tile == move.tile2:
        return move.end2
    return move.end


def _extremity(
    placements: Sequence[PlacementLike], end: str, spinners: Sequence[int]
) -> int | None:
    """The index of the tile at the open end ``end``: the last one laid on it, else the
    tile the end starts from (the lead for W/E, the k-th spinner for Nk/Sk)."""
    for i in range(len(placements) - 1, -1, -1):
        if _end_of(placements[i]) == end:
            return i
    if not placements:
        return None
    if end in ("W", "E"):
        return 0
    k = int(end[1:] or 1) - 1
    order = sorted(spinners)
    return order[k] if k < len(order) else None


def board_bounds(frame: Frame) -> tuple[int, int, int, int]:
    """The grid box drawn: the table when it is bounded, else the tiles with a margin."""
    if frame.table is not None:
        return frame.table
    if not frame.placements:
        return (-8, -4, 8, 4)
    xs = [p.x for p in frame.placements]
    ys = [p.y for p in frame.placements]
    return (min(xs) - 4, min(ys) - 4, max(xs) + 4, max(ys) + 4)


def _closed_end(end: str, p: PlacementLike, px: Any, lead_west: bool = False) -> str:
    """The mark of a closed end on the tile ``p`` at that end: a red frame round its open
    half (the pips stay visible inside it) and a small red ⊗ on the half's outer corner
    (a corner holds no pip: the nearest is 6.6 px away, the ⊗'s radius is 5 px).  A
    double, which stands across the line, is framed whole, the ⊗ on its top-right corner.
    ``lead_west``: ``p`` is the lead and the end is W, whose open half is the first."""
    r = 5.0
    if p.tile.is_double:
        cx, cy = px(p.x, p.y)
        w, h = (4 * UNIT, 2 * UNIT) if _STEP[p.angle][0] else (2 * UNIT, 4 * UNIT)
        bx, by = cx + w / 2, cy - h / 2
    else:
        sx, sy = _STEP[p.angle]  # the open half is the second one, towards the angle
        if lead_west:
            sx, sy = -sx, -sy
        cx, cy = px(p.x + sx, p.y + sy)
        w = h = 2 * UNIT
        # the outer edge's corner on the right-hand side of the way out
        bx, by = cx + (sx - sy) * UNIT, cy + (sy + sx) * UNIT
    arm = r * 0.55
    return (
        f"<g class='closed-end' data-end={quoteattr(end)}><title>{escape(end)} closed</title>"
        f"<rect class='closed-half' x='{_n(cx - w / 2 - 1)}' y='{_n(cy - h / 2 - 1)}' "
        f"width='{_n(w + 2)}' height='{_n(h + 2)}' rx='{_n(UNIT / 3)}' fill='none' "
        f"stroke='#d32f2f' stroke-width='3'/>"
        f"<circle cx='{_n(bx)}' cy='{_n(by)}' r='{_n(r)}' fill='#d32f2f' stroke='#fff' "
        f"stroke-width='1'/><path d='M{_n(bx - arm)} {_n(by - arm)}L{_n(bx + arm)} "
        f"{_n(by + arm)}M{_n(bx - arm)} {_n(by + arm)}L{_n(bx + arm)} {_n(by - arm)}' "
        f"stroke='#fff' stroke-width='1.5'/></g>"
    )


def _board_parts(
    frame: Frame, left: float, top: float, bounds: tuple[int, int, int, int] | None = None
) -> tuple[list[str], float, float]:
    x0, y0, x1, y1 = bounds if bounds is not None else board_bounds(frame)
    width = (x1 - x0) * UNIT
    height = (y1 - y0) * UNIT

    def px(x: float, y: float) -> tuple[float, float]:
        return left + (x - x0) * UNIT, top + (y - y0) * UNIT

    parts = [
        f"<g class='board'><rect class='table' x='{_n(left)}' y='{_n(top)}' "
        f"width='{_n(width)}' height='{_n(height)}' fill='#2e7d4f' "
        f"stroke='{'#5a3b1a' if frame.table is not None else 'none'}' stroke-width='4'/>"
    ]
    if not frame.placements:
        cx, cy = px((x0 + x1) / 2, (y0 + y1) / 2)
        parts.append(
            f"<text x='{_n(cx)}' y='{_n(cy + 5)}' text-anchor='middle' fill='#e8f5e9' "
            f"font-size='14' {_FONT}>no tile on the table</text>"
        )
    for i, p in enumerate(frame.placements):
        cx, cy = px(p.x, p.y)
        cls = "tile spinner" if i in frame.spinners else "tile"
        parts += _tile_parts(cx, cy, p.angle, p.first, p.second, UNIT, cls=cls, label=str(p.tile))
    # the spinners' marks after every tile: no tile laid later can hide one
    for i in sorted(frame.spinners):
        if i < len(frame.placements):
            cx, cy = px(frame.placements[i].x, frame.placements[i].y)
            parts.append(
                f"<circle class='spinner-mark' cx='{_n(cx)}' cy='{_n(cy)}' r='{_n(UNIT / 3)}' "
                f"fill='#e0a800' stroke='#222' stroke-width='1'><title>spinner</title></circle>"
            )
    for end in frame.closed_ends:
        at = _extremity(frame.placements, end, sorted(frame.spinners))
        if at is None:
            continue
        p = frame.placements[at]
        lead_west = at == 0 and end == "W" and _end_of(p) is None
        parts.append(_closed_end(end, p, px, lead_west))
    parts.append("</g>")
    return parts, width, height


def board_group(
    frame: Frame, left: float, top: float, bounds: tuple[int, int, int, int] | None = None
) -> tuple[str, float, float]:
    """The board (``<g class='board'>``, one ``<g class='tile'>`` per tile) with its
    box's top-left corner at pixel ``(left, top)``; returns it with its width and height.
    ``bounds``: the grid box to draw (default :func:`board_bounds`)."""
    parts, width, height = _board_parts(frame, left, top, bounds)
    return "".join(parts), width, height


def _hand_parts(frame: Frame, seat: int, left: float, top: float) -> tuple[list[str], float]:
    """One seat's hand: its label and its tiles, face up or face down; returns the SVG
    pieces and the row's width."""
    u = _HAND_UNIT
    marker = "\u25b6 " if frame.to_move == seat else ""
    tiles = frame.hands[seat]
    count = frame.hand_sizes[seat]
    label = f"{marker}{frame.seat_names[seat]}: {count} tile{'s' if count != 1 else ''}"
    if tiles is None:
        label += " (face down)"
    parts = [
        f"<g class='hand' data-seat='{seat}' data-visible='{'no' if tiles is None else 'yes'}'>"
        f"<text x='{_n(left)}' y='{_n(top + 13)}' font-size='13'>{escape(label)}</text>"
    ]
    y = top + _LINE + 2 * u
    for k in range(count):
        x = left + u + k * (2 * u + 5)
        if tiles is None:
            parts += _tile_parts(x, y, 90, 0, 0, u, cls="hand-tile back", face_up=False)
        else:
            t = tiles[k]
            parts += _tile_parts(x, y, 90, t.high, t.low, u, cls="hand-tile", label=str(t))
    parts.append("</g>")
    return parts, count * (2 * u + 5)


def _hand_row(frame: Frame, seat: int, left: float, top: float) -> tuple[str, float]:
    parts, width = _hand_parts(frame, seat, left, top)
    return "".join(parts), width


_HAND_HEIGHT = _LINE + 4 * _HAND_UNIT + 10


def frame_parts(
    frame: Frame,
    *,
    defs: bool = True,
    bounds: tuple[int, int, int, int] | None = None,
    size: tuple[float, float] | None = None,
) -> tuple[list[str], float, float]:
    """The pieces of :func:`render_frame`'s SVG (their concatenation is the picture) with
    its width and height.  ``bounds``: the board's grid box (default: the table, else the
    tiles); ``size``: at least this width and height (a replay draws every step in one
    size, the board centred across it)."""
    lines = (frame.title, *frame.lines)
    top = _MARGIN + _LINE * len(lines) + 4
    x0, y0, x1, y1 = bounds if bounds is not None else board_bounds(frame)
    bw, bh = (x1 - x0) * UNIT, (y1 - y0) * UNIT
    u = _HAND_UNIT
    stock = frame.stock_size
    hands_w = max((n * (2 * u + 5) for n in frame.hand_sizes), default=0)
    text_width = max(len(line) for line in lines) * 7.6  # about 7.5 px a character at 13 px
    widest = max(bw, hands_w, stock * (2 * u + 3), text_width, 400)
    width: float = widest + 2 * _MARGIN
    height: float = top + bh + 10 + _HAND_HEIGHT * (len(frame.hand_sizes) + 1) + _MARGIN
    if size is not None:
        width, height = max(width, size[0]), max(height, size[1])
    board, _, _ = _board_parts(frame, (width - bw) / 2, top, (x0, y0, x1, y1))
    y = top + bh + 10
    rows: list[str] = []
    for seat in range(len(frame.hand_sizes)):
        rows += _hand_parts(frame, seat, _MARGIN, y)[0]
        y += _HAND_HEIGHT
    rows.append(
        f"<g class='stock' data-size='{stock}'><text x='{_n(_MARGIN)}' y='{_n(y + 13)}' "
        f"font-size='13'>boneyard: {stock} tile{'s' if stock != 1 else ''}</text>"
    )
    for k in range(stock):
        x = _MARGIN + u + k * (2 * u + 3)
        rows += _tile_parts(x, y + _LINE + 2 * u, 90, 0, 0, u, cls="stock-tile", face_up=False)
    rows.append("</g>")
    text = [
        f"<text x='{_n(_MARGIN)}' y='{_n(_MARGIN + 14 + i * _LINE)}' "
        f"font-size='{15 if i == 0 else 13}' font-weight='{'bold' if i == 0 else 'normal'}'>"
        f"{escape(line)}</text>"
        for i, line in enumerate(lines)
    ]
    head = (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='bones-position' {_FONT} "
        f"width='{_n(width)}' height='{_n(height)}' viewBox='0 0 {_n(width)} {_n(height)}'>"
        f"{pip_defs() if defs else ''}<rect width='100%' height='100%' fill='#f7f3ea'/>"
    )
    return [head, *text, *board, *rows, "</svg>"], width, height


def render_frame(
    frame: Frame | TrainFrame,
    *,
    defs: bool = True,
    bounds: tuple[int, int, int, int] | None = None,
    size: tuple[float, float] | None = None,
) -> str:
    """The whole picture: title, status lines, board (centred), every hand and the
    boneyard.  ``defs=False`` leaves out the pip symbols (a page that holds them once);
    ``bounds`` and ``size`` as in :func:`frame_parts`; any family's frame draws itself
    (its ``svg``)."""
    picture: str = frame.svg(defs=defs, bounds=bounds, size=size)
    return picture


def svg_of(obj: Any, names: Sequence[str] | None = None) -> str:
    """The SVG of a :class:`bones.Round`, :class:`bones.Observation` or :class:`bones.Game`
    of any family (``names``: the seats' players, shown next to the seat numbers), drawn
    by the ``svg`` part of its family (:func:`line_svg_of` for the line games,
    ``bones.render.trains_svg.train_svg_of`` for the train games)."""
    from ..registry import family_of

    svg: str = family_of(obj.variant).part("svg")(obj, names)
    return svg


def line_svg_of(obj: Any, names: Sequence[str] | None = None) -> str:
    """:func:`svg_of` of a line game's round, observation or game (the line family's
    ``svg`` part)."""
    from ..game import Game
    from ..observation import Observation

    if isinstance(obj, Game):
        return render_frame(frame_of_game(obj, names))
    if isinstance(obj, Observation):
        return render_frame(frame_of_observation(obj, names))
    return render_frame(frame_of_round(obj, names))
