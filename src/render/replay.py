"""A recorded game step by step: the position after every move, each move, draw and pass
explained in words; and the self-contained HTML page that steps through it.

The record is first replayed and checked by :func:`bones.match.journal.show` (the same
checks as ``bones show``); a record that does not replay is a ``ReplayError``.
"""

from __future__ import annotations

import base64
import difflib
import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .steps import Step, replayed
from .svg import (
    Frame,
    _n,
    frame_of_observation,
    frame_of_round,
    pip_defs,
    points_text,
)

__all__ = ["Step", "explain_events", "line_replay_steps", "replay_html", "replay_steps"]


def _ends_text(ends: Sequence[tuple[str, int]], closed: Sequence[str]) -> str:
    shown = [f"{name}={value}" for name, value in ends if name not in closed]
    text = ", ".join(shown) if shown else "none"
    if closed:
        text += f"; closed: {', '.join(closed)}"
    return text


def explain_events(
    events: Sequence[Any],
    names: Sequence[str],
    ends: Sequence[tuple[str, int]],
    closed: Sequence[str],
    stock: int,
) -> list[str]:
    """One sentence per public event.  ``ends``/``closed``: the open and closed ends the
    draws and passes faced; ``stock``: the boneyard's size before the first event."""
    lines = []
    for e in events:
        who = names[e.seat]
        if e.kind == "play":
            where = "leads" if e.move.is_lead else "plays"
            points = f", scores {e.points}" if e.points else ""
            lines.append(f"{who} {where} {e.move} (count {e.count}{points})")
        elif e.kind == "draw":
            stock -= e.count
            tiles = "a tile" if e.count == 1 else f"{e.count} tiles"
            lines.append(
                f"{who} has no tile for the open ends ({_ends_text(ends, closed)}) and draws "
                f"{tiles} from the boneyard ({stock} left)"
            )
        elif e.kind == "pass":
            lines.append(
                f"{who} passes: no tile for the open ends ({_ends_text(ends, closed)}) and "
                f"no tile may be drawn (boneyard {stock})"
            )
        else:
            lines.append(f"{who} claims muggins: {e.points} points missed by the previous player")
    return lines


def replay_steps(record: Mapping[str, Any], seat: int | None = None) -> list[Step]:
    """Every position of the recorded game ``record`` (a journal record), in order: each
    round's deal, then the position after each of its moves.  With ``seat`` the pictures
    show what that seat saw (the other hands and the boneyard face down).  Drawn by the
    ``replay_steps`` part of the game's family (:func:`line_replay_steps` for the line
    games, ``bones.render.trains_replay.train_replay_steps`` for the train games)."""
    from ..registry import family_of

    try:
        family = family_of(record["variant"])
    except Exception:  # not a record, an unknown variant: replayed() says what is wrong
        replayed(record, seat)
        raise
    steps: list[Step] = family.part("replay_steps")(record, seat)
    return steps


def line_replay_steps(record: Mapping[str, Any], seat: int | None = None) -> list[Step]:
    """:func:`replay_steps` of a line game (the line family's ``replay_steps`` part)."""
    from ..api import Round

    game, seats, names, rounds = replayed(record, seat)
    variant, players = game.variant, game.players

    def picture(rnd: Any, title: str) -> Frame:
        if seat is None:
            return frame_of_round(rnd, seats, title)
        return frame_of_observation(rnd.observation(seat), seats)._replace(title=title)

    steps: list[Step] = []
    for index, entry in enumerate(rounds):
        moves = Round.from_msgpack(base64.b64decode(entry["round"], validate=True)).moves
        rnd = game.round
        title = f"{variant}, {players} players: game {record.get('id', '?')}, round {index + 1}"
        lines = [f"round {index + 1} dealt: {names[rnd.leader]} leads"]
        lines += explain_events(rnd.events, names, rnd.ends, rnd.closed_ends, rnd.stock_size)
        steps.append(Step(index + 1, 0, tuple(lines), picture(rnd, title)))
        for ply, move in enumerate(moves, 1):
            seen = len(rnd.events)
            stock = rnd.stock_size
            mover = rnd.to_move  # not None: show() checked that the round goes on
            rnd.play(move)
            new = rnd.events[seen:]
            lines = explain_events(new, names, rnd.ends, rnd.closed_ends, stock) or [
                f"{names[mover or 0]} plays {move}"
            ]
            if rnd.result is not None:
                r = rnd.result
                sides = rnd.sides
                won = ", ".join("+".join(names[s] for s in sides[w]) for w in r.winners)
                points = points_text(sides, r.points, names)
                lines.append(f"round over ({r.reason}): won by {won or 'nobody'}; points: {points}")
            steps.append(Step(index + 1, ply, tuple(lines), picture(rnd, title), str(move)))
        if rnd.result is not None and not game.is_over and index < len(rounds) - 1:
            game.next_round()
    return steps


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{title}</title>
<style>
body {{ font-family: DejaVu Sans, Verdana, sans-serif; margin: 1em; background: #f7f3ea; }}
h1 {{ font-size: 1.5em; margin: .2em 0; }}
#controls {{ display: flex; flex-wrap: wrap; align-items: center; gap: .3em; }}
#controls button, #controls select {{ font-size: 1em; }}
#play {{ min-width: 5.5em; }}
#where {{ margin-left: .7em; font-weight: bold; }}
#events {{ flex: 1 0 100%; height: {events_height}em; overflow-y: auto; margin: 0;
  padding-left: 1.5em; }}
#events li {{ line-height: 1.4em; }}
#view {{ display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: flex-start;
  margin-top: .5em; }}
/* the board: as wide as its picture when the window allows, the move list beside it;
   else the whole width, the list below, the picture shrunk to fit (all of it in view) */
#board {{ flex: 1 1 {width}px; max-width: {width}px; min-width: 0; }}
#board svg {{ display: block; width: 100%; height: auto; }}
#moves {{ position: relative; flex: 1 0 13em; max-width: 22em; height: {list_height}px;
  max-height: 85vh; overflow-y: auto; margin: 0; padding: .3em; list-style: none;
  background: #fffdf4; border: 1px solid #ccc; font-size: .9em; }}
#moves li.deal {{ font-weight: bold; margin-top: .4em; }}
#moves a {{ color: #1a4d8f; text-decoration: none; display: block; padding: 0 .2em; }}
#moves a:hover {{ text-decoration: underline; }}
#moves li.current a {{ background: #f3d36b; color: #000; }}
/* a train game's picture (its hands below its board) is tall: the page is the window,
   the picture scaled to fit its part of it, the events and the move list beside it, each
   scrolling on its own; no part's size depends on the step shown */
body.fit {{ height: 100vh; margin: 0; padding: .4em 1em; box-sizing: border-box;
  display: flex; flex-direction: column; }}
body.fit h1 {{ font-size: 1.2em; }}
body.fit > p {{ margin: .2em 0; }}
body.fit #where {{ min-width: 20em; }}
body.fit #view {{ flex: 1 1 0; min-height: 0; display: grid; gap: .5em 1em; align-items: stretch;
  grid-template-columns: minmax(0, 1fr) minmax(12em, 20em);
  grid-template-rows: minmax(0, 1fr) minmax(0, 1fr); }}
body.fit #board {{ grid-column: 1; grid-row: 1 / 3; max-width: none; min-height: 0; }}
body.fit #board svg {{ width: 100%; height: 100%; }}
body.fit #events {{ grid-column: 2; grid-row: 1; height: auto; min-height: 0;
  background: #fffdf4; border: 1px solid #ccc; font-size: .9em; }}
body.fit #moves {{ grid-column: 2; grid-row: 2; height: auto; max-height: none;
  max-width: none; min-height: 0; }}
</style></head>
<body class="{layout}">
<h1>{title}</h1>
<p>{summary}</p>
<div id="controls">
<button id="first" title="first step (Home)">&#x25C0;&#x25C0; first</button>
<button id="prev" title="previous step (left arrow)">&#x25C0; back</button>
<button id="play" title="play or pause (space)">&#x25B6; play</button>
<button id="next" title="next step (right arrow)">next &#x25B6;</button>
<button id="last" title="last step (End)">last &#x25B6;&#x25B6;</button>
<label>speed <select id="speed" title="steps per second when playing">
<option value="2000">0.5 / s</option><option value="1000" selected>1 / s</option>
<option value="500">2 / s</option><option value="250">4 / s</option>
<option value="100">10 / s</option></select></label>
<span id="where"></span>
</div>
<div id="view">
<ul id="events"></ul>
<div id="board"></div>
<ul id="moves"></ul>
</div>
<svg width="0" height="0" style="position:absolute">{defs}</svg>
<script id="steps" type="application/json">{steps}</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("steps").textContent);
const steps = data.steps;
(function undelta() {{  // each step's pieces: runs copied from the previous step's and ids
  let previous = [];
  for (const s of steps) {{
    const ids = [];
    for (let k = 0; k < s.svg.length; k++) {{
      const x = s.svg[k];
      if (x < 0) {{
        const start = -x - 1, n = s.svg[++k];
        for (let j = 0; j < n; j++) ids.push(previous[start + j]);
      }} else ids.push(x);
    }}
    s.svg = ids;
    previous = ids;
  }}
}})();
let at = 0;
let timer = null;
let addressTimer = null;
const items = steps.map(function (s, i) {{
  const li = document.createElement("li");
  const a = document.createElement("a");
  a.href = "#step-" + (i + 1);
  a.textContent = s.label;
  li.appendChild(a);
  if (s.ply === 0) li.className = "deal";
  return li;
}});
document.getElementById("moves").replaceChildren(...items);
function show(i) {{
  at = Math.max(0, Math.min(steps.length - 1, i));
  const s = steps[at];
  const board = document.getElementById("board");
  board.innerHTML = s.svg.map(function (k) {{
    return data.parts[k];
  }}).join("");
  if (document.body.classList.contains("fit")) {{  // scaled to fit: kept at the top left
    board.firstElementChild.setAttribute("preserveAspectRatio", "xMinYMin meet");
  }}
  const list = document.getElementById("events");
  list.replaceChildren(...s.lines.map(function (text) {{
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }}));
  const ply = s.ply === 0 ? "the deal" : "move " + s.ply;
  document.getElementById("where").textContent =
    "step " + (at + 1) + " of " + steps.length + ": round " + s.round + ", " + ply;
  for (const li of document.querySelectorAll("#moves li.current")) li.classList.remove("current");
  const item = items[at];
  item.classList.add("current");
  const box = document.getElementById("moves");  // scroll the list, never the page
  if (item.offsetTop < box.scrollTop || item.offsetTop + item.offsetHeight >
      box.scrollTop + box.clientHeight) {{
    box.scrollTop = item.offsetTop - box.clientHeight / 2;
  }}
  // the address follows a moment later: Chromium ignores more than 200 history changes
  // in 10 s, which holding an arrow key would reach
  clearTimeout(addressTimer);
  addressTimer = setTimeout(function () {{
    if (location.hash !== "#step-" + (at + 1)) history.replaceState(null, "", "#step-" + (at + 1));
  }}, 150);
  document.body.dataset.step = String(at);
  document.body.dataset.tiles = String(s.tiles);
}}
function fromHash() {{
  const m = /^#step-([0-9]+)$/.exec(location.hash);
  return m ? Number(m[1]) - 1 : null;
}}
function pause() {{
  if (timer !== null) clearInterval(timer);
  timer = null;
  document.getElementById("play").innerHTML = "&#x25B6; play";
  document.body.dataset.playing = "no";
}}
function play() {{
  pause();
  if (at >= steps.length - 1) show(0);
  timer = setInterval(function () {{
    if (at >= steps.length - 1) pause();
    else show(at + 1);
  }}, Number(document.getElementById("speed").value));
  document.getElementById("play").innerHTML = "&#x23F8; pause";
  document.body.dataset.playing = "yes";
}}
function go(i) {{ pause(); show(i); }}
function toggle() {{ if (timer === null) play(); else pause(); }}
document.getElementById("first").onclick = function () {{ go(0); }};
document.getElementById("prev").onclick = function () {{ go(at - 1); }};
document.getElementById("next").onclick = function () {{ go(at + 1); }};
document.getElementById("last").onclick = function () {{ go(steps.length - 1); }};
document.getElementById("play").onclick = function () {{ toggle(); }};
document.getElementById("speed").onchange = function () {{ if (timer !== null) play(); }};
window.addEventListener("hashchange", function () {{
  const i = fromHash();
  if (i !== null && i !== at) go(i);
}});
document.addEventListener("keydown", function (e) {{
  if (e.target.tagName === "SELECT") return;
  if (e.key === "ArrowRight") go(at + 1);
  else if (e.key === "ArrowLeft") go(at - 1);
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(steps.length - 1);
  else if (e.key === " ") toggle();
  else return;
  e.preventDefault();
}});
pause();
show(fromHash() ?? 0);
</script>
</body></html>
"""


def _script_json(value: Any) -> str:
    """JSON that is safe inside ``<script>``: no ``</`` can close the element."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def _delta(previous: list[int], ids: list[int]) -> list[int]:
    """``ids`` as edits of ``previous``: a run copied from ``previous`` is ``-(start + 1),
    length``, any other entry is a piece's id (the page's ``undelta`` reads it back)."""
    out: list[int] = []
    matcher = difflib.SequenceMatcher(None, previous, ids, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += (-(i1 + 1), i2 - i1)
        else:
            out += ids[j1:j2]
    return out


def _label(step: Step, names: Sequence[str]) -> str:
    """A step in the move list: the deal, or the ply and its move."""
    if step.ply == 0:
        return f"round {step.round}: the deal"
    return f"{step.ply}. {step.move}"


def _parts(
    step: Step,
    bounds: Mapping[int, tuple[int, int, int, int]],
    size: tuple[float, float] | None,
) -> tuple[list[str], float, float]:
    """A step's picture in pieces, with its width and height: a line board in its
    round's box at ``size``, a train game's picture at its own size (each family's frame
    says)."""
    parts: tuple[list[str], float, float] = step.frame.page_parts(bounds.get(step.round), size)
    return parts


def replay_html(record: Mapping[str, Any], seat: int | None = None) -> str:
    """One self-contained HTML page (no network, no external file) that steps through the
    recorded game: buttons and the arrow keys (Home/End: first/last step), play/pause
    (space) at a chosen speed, a move list to click, and ``#step-N`` in the address for
    each step (1-based; a link with it opens that step).  With ``seat``, as that seat saw
    it.

    Every step is drawn at one size, and each round's board in one box (the union of its
    positions' boxes), so nothing moves on the page but what changed.  The pictures share
    their pieces: each distinct piece of SVG (a tile at its place, a tile's face, a line
    of text) is stored once, and a step is its list of pieces, written as edits of the
    previous step's list."""
    steps = replay_steps(record, seat)
    seats = ", ".join(f"seat {s}: {b}" for s, b in enumerate(record["seats"]))
    final = record.get("scores")
    summary = f"{seats}. Final scores: {'-'.join(map(str, final)) if final else '-'}."
    bounds: dict[int, tuple[int, int, int, int]] = {}
    for s in steps:  # the round's union; the tiles of a round only ever grow
        box = s.frame.bounds()
        if box is not None:
            x0, y0, x1, y1 = box
            b = bounds.get(s.round, (x0, y0, x1, y1))
            bounds[s.round] = (min(b[0], x0), min(b[1], y0), max(b[2], x1), max(b[3], y1))
    width = height = 0.0
    for s in steps:
        _, w, h = _parts(s, bounds, None)
        width, height = max(width, w), max(height, h)
    index: dict[str, int] = {}
    parts: list[str] = []
    data = []
    previous: list[int] = []
    for s in steps:
        pieces, _, _ = _parts(s, bounds, (width, height))
        ids = []
        for piece in pieces:
            k = index.get(piece)
            if k is None:
                k = index[piece] = len(parts)
                parts.append(piece)
            ids.append(k)
        svg = _delta(previous, ids)
        previous = ids
        data.append(
            {
                "round": s.round,
                "ply": s.ply,
                "lines": list(s.lines),
                "tiles": s.tiles,
                "label": _label(s, record["seats"]),
                "svg": svg,
            }
        )
    title = f"bones replay: game {record.get('id', '?')}, {record['variant']}"
    if seat is not None:
        title += f", as seat {seat} saw it"
    most = max(len(s.lines) for s in steps)
    fit = not isinstance(steps[0].frame, Frame)  # a train game: the page is the window
    return _PAGE.format(
        layout="fit" if fit else "",
        title=html.escape(title),
        summary=html.escape(summary),
        defs=pip_defs(),
        width=_n(width),
        events_height=f"{1.4 * max(most, 2):.1f}",
        list_height=_n(height),
        steps=_script_json({"parts": parts, "steps": data}),
    )
