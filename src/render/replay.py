"""A recorded game step by step: the position after every move, each move, draw and pass
explained in words; and the self-contained HTML page that steps through it.

The record is first replayed and checked by :func:`bones.match.journal.show` (the same
checks as ``bones show``); a record that does not replay is a ``ReplayError``.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .svg import Frame, frame_of_observation, frame_of_round, pip_defs, render_frame

if TYPE_CHECKING:
    from .trains_svg import TrainFrame

__all__ = ["Step", "explain_events", "replay_html", "replay_steps"]


class Step(NamedTuple):
    """One position of a replay: which round (1-based) and ply (0: the deal), what
    happened (``lines``), the picture's ``frame`` and the tiles on the table."""

    round: int
    ply: int
    lines: tuple[str, ...]
    frame: Frame | TrainFrame

    @property
    def tiles(self) -> int:
        return len(self.frame.placements)


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


def _field(record: Mapping[str, Any], key: str) -> Any:
    from ..match.journal import JournalError

    try:
        return record[key]
    except (KeyError, TypeError):
        raise JournalError(f"not a game record: missing field {key!r}") from None


def replay_steps(record: Mapping[str, Any], seat: int | None = None) -> list[Step]:
    """Every position of the recorded game ``record`` (a journal record), in order: each
    round's deal, then the position after each of its moves.  With ``seat`` the pictures
    show what that seat saw (the other hands and the boneyard face down)."""
    from ..core.round import Round
    from ..game import new_game
    from ..match.journal import show
    from .trains_replay import is_train_record, train_replay_steps

    if is_train_record(record):  # Mexican Train, Chicken Foot: render/trains_replay.py
        return train_replay_steps(record, seat)
    show(record, io.StringIO())  # checks that the record replays; raises if it does not
    variant = _field(record, "variant")
    players = int(_field(record, "players"))
    seats = list(_field(record, "seats"))
    names = tuple(f"seat {s} ({seats[s]})" for s in range(players))
    if seat is not None and not 0 <= seat < players:
        from ..match.journal import JournalError

        raise JournalError(f"seat {seat}: the game has seats 0 to {players - 1}")

    def picture(rnd: Any, title: str) -> Frame:
        if seat is None:
            return frame_of_round(rnd, seats, title)
        return frame_of_observation(rnd.observation(seat), seats)._replace(title=title)

    game = new_game(variant, players, int(_field(record, "seed")), **_field(record, "options"))
    rounds = list(_field(record, "rounds"))
    if not rounds:
        from ..match.journal import JournalError

        why = record.get("error") or (record.get("forfeit") or {}).get("detail") or "none"
        raise JournalError(f"game {record.get('id', '?')} recorded no round to replay ({why})")
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
                won = ", ".join(f"side {w}" for w in r.winners) or "nobody"
                lines.append(f"round over ({r.reason}): won by {won}; points {list(r.points)}")
            steps.append(Step(index + 1, ply, tuple(lines), picture(rnd, title)))
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
#controls button {{ font-size: 1em; margin-right: .3em; }}
#where {{ margin-left: 1em; font-weight: bold; }}
#events {{ min-height: 4.5em; margin: .5em 0; }}
#events li {{ margin: .1em 0; }}
</style></head>
<body>
<h1>{title}</h1>
<p>{summary}</p>
<div id="controls">
<button id="first" title="first step (Home)">&#x25C0;&#x25C0; first</button>
<button id="prev" title="previous step (left arrow)">&#x25C0; back</button>
<button id="next" title="next step (right arrow)">next &#x25B6;</button>
<button id="last" title="last step (End)">last &#x25B6;&#x25B6;</button>
<span id="where"></span>
</div>
<ul id="events"></ul>
<div id="board"></div>
<svg width="0" height="0" style="position:absolute">{defs}</svg>
<script id="steps" type="application/json">{steps}</script>
<script>
"use strict";
const steps = JSON.parse(document.getElementById("steps").textContent);
let at = 0;
function show(i) {{
  at = Math.max(0, Math.min(steps.length - 1, i));
  const s = steps[at];
  document.getElementById("board").innerHTML = s.svg;
  const list = document.getElementById("events");
  list.replaceChildren(...s.lines.map(function (text) {{
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }}));
  const ply = s.ply === 0 ? "the deal" : "move " + s.ply;
  document.getElementById("where").textContent =
    "step " + (at + 1) + " of " + steps.length + ": round " + s.round + ", " + ply;
  document.body.dataset.step = String(at);
  document.body.dataset.tiles = String(s.tiles);
}}
document.getElementById("first").onclick = function () {{ show(0); }};
document.getElementById("prev").onclick = function () {{ show(at - 1); }};
document.getElementById("next").onclick = function () {{ show(at + 1); }};
document.getElementById("last").onclick = function () {{ show(steps.length - 1); }};
document.addEventListener("keydown", function (e) {{
  if (e.key === "ArrowRight") show(at + 1);
  else if (e.key === "ArrowLeft") show(at - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(steps.length - 1);
  else return;
  e.preventDefault();
}});
show(0);
</script>
</body></html>
"""


def _script_json(value: Any) -> str:
    """JSON that is safe inside ``<script>``: no ``</`` can close the element."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def replay_html(record: Mapping[str, Any], seat: int | None = None) -> str:
    """One self-contained HTML page (no network, no external file) that steps through the
    recorded game with buttons and the arrow keys (Home/End: first/last step); with
    ``seat``, as that seat saw it."""
    steps = replay_steps(record, seat)
    seats = ", ".join(f"seat {s}: {b}" for s, b in enumerate(record["seats"]))
    final = record.get("scores")
    summary = f"{seats}. Final scores: {'-'.join(map(str, final)) if final else '-'}."
    data = [
        {
            "round": s.round,
            "ply": s.ply,
            "lines": list(s.lines),
            "tiles": s.tiles,
            "svg": render_frame(s.frame, defs=False),
        }
        for s in steps
    ]
    title = f"bones replay: game {record.get('id', '?')}, {record['variant']}"
    if seat is not None:
        title += f", as seat {seat} saw it"
    return _PAGE.format(
        title=html.escape(title),
        summary=html.escape(summary),
        defs=pip_defs(),
        steps=_script_json(data),
    )
