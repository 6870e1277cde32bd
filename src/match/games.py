"""``bones games JOURNAL``: the games of a journal as a list, with filters.

Each row is one game record (the first of its id, as every reader counts it): its id,
variant, the bot of each seat, the result (who won, or a draw, or void), the final scores,
its length (rounds, and moves: the tiles placed; forced draws and passes are not moves;
``None`` in a journal copied without its moves) and its forfeit, if any.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from .journal import JournalError, no_games, open_journal

__all__ = ["format_games", "game_row", "list_games"]


def game_row(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The row of one game record (JSON-ready)."""
    seats = list(rec["seats"])
    sides = [list(s) for s in rec["sides"]]
    winners = list(rec.get("winners") or [])
    losers = list(rec.get("losers") or [])
    if rec.get("error"):
        result = "void"
    elif not rec.get("ranks"):
        result = "aborted"
    elif not winners or len(winners) == len(sides):
        result = "draw"
    else:
        result = "won by " + "; ".join(
            ", ".join(f"{seats[x]} (seat {x})" for x in sides[s]) for s in winners
        )
    rounds = rec.get("rounds") or []
    moves: int | None = sum(len((r.get("moves") or "").split()) for r in rounds)
    forfeit = rec.get("forfeit")
    kept: int | None = len(rounds)
    if not rounds and rec.get("ranks") and not forfeit:  # a copy without the moves
        kept = moves = None
    return {
        "id": rec["id"],
        "variant": rec["variant"],
        "seats": seats,
        "result": result,
        "winners": [x for s in winners for x in sides[s]],
        "losers": [x for s in losers for x in sides[s]],
        "scores": rec.get("scores"),
        "rounds": kept,
        "moves": moves,
        "forfeit": None
        if not forfeit
        else {
            "seat": forfeit.get("seat"),
            "bot": seats[forfeit["seat"]] if 0 <= forfeit.get("seat", -1) < len(seats) else None,
            "reason": forfeit.get("reason"),
            "detail": forfeit.get("detail", ""),
            "traceback": forfeit.get("traceback", ""),
        },
        "error": rec.get("error"),
    }


def _matches(spec: str, wanted: str) -> bool:
    """``wanted`` names the bot of ``spec``: the spec itself or its bot's name."""
    return spec == wanted or spec.partition(":")[0] == wanted


def _did_not_win(row: Mapping[str, Any], wanted: str) -> bool:
    """Whether the bot ``wanted`` lost the game of ``row``: someone won it and none of
    the bot's seats did.  With several seats a bot counts as one player: at 4 seats of
    two bots one of its seats always finishes behind the other bot's, which is not a
    loss; a draw and a void game are no loss either."""
    held = {x for x, spec in enumerate(row["seats"]) if _matches(spec, wanted)}
    return bool(held) and row["result"].startswith("won by") and not held & set(row["winners"])


def list_games(
    path: str | os.PathLike[str],
    *,
    lost_by: str | None = None,
    forfeits: bool = False,
    variant: str | None = None,
    limit: int | None = None,
) -> tuple[list[dict[str, Any]], list[str], int]:
    """The rows of the games of the journal ``path`` that pass the filters, in id
    order (at most ``limit``), the reader's warnings and how many games passed the
    filters (``limit`` aside).  ``lost_by``: a bot spec or a bot's name (every spec
    of that bot) that did not win a game someone won (:func:`_did_not_win`)."""
    reader = open_journal(path)
    try:
        config = reader.config
        assert config is not None  # open_journal: a header or an error
        bots = list(config.get("bots") or [])
        if lost_by is not None and not any(_matches(b, lost_by) for b in bots):
            raise JournalError(
                f"--lost-by {lost_by}: no such bot in {os.fspath(path)}; its bots: "
                + ", ".join(bots)
            )
        rows = []
        read = 0
        for rec in reader.games():
            read += 1
            if variant is not None and rec["variant"] != variant:
                continue
            if forfeits and not rec.get("forfeit"):
                continue
            row = game_row(rec)
            if lost_by is not None and not _did_not_win(row, lost_by):
                continue
            rows.append(row)
        warnings = list(reader.warnings)
    finally:
        reader.close()
    if not read:
        raise JournalError(no_games(os.fspath(path)))
    rows.sort(key=lambda r: r["id"])
    matched = len(rows)
    if limit is not None:
        rows = rows[:limit]
    return rows, warnings, matched


def format_games(
    rows: Sequence[Mapping[str, Any]], matched: int | None = None, details: bool = False
) -> str:
    """The rows as a table; a last line counts them (and the ``matched`` games, when
    ``--limit`` left some out).  With ``details`` (``--forfeits``) each forfeit's message
    and traceback follow its row: what a bot's writer needs to find the fault."""
    if not rows:
        return "No game matches."
    table = [["id", "variant", "seats", "result", "scores", "rounds", "moves", "forfeit"]]
    for r in rows:
        forfeit = r["forfeit"]
        table.append(
            [
                str(r["id"]),
                r["variant"],
                ", ".join(r["seats"]),
                r["result"],
                "-".join(map(str, r["scores"])) if r["scores"] else "-",
                "-" if r["rounds"] is None else str(r["rounds"]),
                "-" if r["moves"] is None else str(r["moves"]),
                "-" if not forfeit else f"seat {forfeit['seat']}: {forfeit['reason']}",
            ]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    right = {0, 5, 6}
    lines = []
    for row, shown in zip(table, [None, *rows], strict=True):
        lines.append(
            "  ".join(
                cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
                for i, cell in enumerate(row)
            ).rstrip()
        )
        lost = shown["forfeit"] if shown is not None else None
        if details and lost:
            forfeit = lost
            trace = str(forfeit.get("traceback") or "")
            detail = str(forfeit["detail"] or "")
            if trace:  # an external bot's stderr tail is its traceback: once
                detail = detail.partition("\n")[0]
            text = [detail, *trace.splitlines()]
            lines.extend(f"      {x}" for x in "\n".join(text).splitlines() if x.strip())
    if matched is not None and matched > len(rows):
        lines.append(f"({len(rows)} of {matched} games; --limit {len(rows)})")
    else:
        lines.append(f"({len(rows)} game{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines)
