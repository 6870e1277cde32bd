"""The journal of a match and its game records.

The journal is a text file of JSON objects, one per line (JSON Lines, UTF-8).  The first
line is the match header ``{"type": "match", "version": 1, "config": {...}}``; every
finished game is appended as ``{"type": "game", ...}`` (its record) and flushed at once;
``--resume`` appends ``{"type": "resume", "config": {...}}``.  A line cut short by a kill
can only be the last one: it is detected, dropped with a warning, and cut off before
anything new is appended.  Tables and Elo are always recomputed from this file.

A game record holds the variant, options, players, the bot spec of each seat, the game
seed, every round (``Round.to_msgpack()`` in base64: the deal -- hands, stock, leader --
and every ply, forced draws and passes included; the moves also as text) and the result.
:func:`show` replays it with the engine, move by move.  docs/matches.md has the schema.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..errors import BonesError, OptionError

__all__ = [
    "JOURNAL_VERSION",
    "Journal",
    "JournalData",
    "JournalError",
    "ReplayError",
    "forfeit_record",
    "load_record",
    "make_record",
    "ranks_of",
    "read_journal",
    "round_entry",
    "show",
]

#: ``version`` of the header line; bump on an incompatible change of the records.
JOURNAL_VERSION = 1


class JournalError(OptionError):
    """A journal or record that cannot be used (one line saying why); exit status 2."""


class ReplayError(BonesError, ValueError):
    """A game record that does not replay with the engine; exit status 1."""


# ---------------------------------------------------------------------------------------
# Records


def encode_record(obj: Mapping[str, Any]) -> str:
    """One journal line (compact JSON, no newline)."""
    return json.dumps(obj, separators=(",", ":"))


def round_entry(rnd: Any) -> dict[str, Any]:
    """One round of a record: the round's msgpack (deal and plies) in base64, the moves as
    text and the result (``[reason, winners, points, values, last_seat]``, ``None`` for a
    round stopped by a forfeit)."""
    result = rnd.result
    return {
        "round": base64.b64encode(rnd.to_msgpack()).decode("ascii"),
        "moves": " ".join(str(m) for m in rnd.moves),
        "result": None
        if result is None
        else [
            result.reason,
            list(result.winners),
            list(result.points),
            list(result.values),
            result.last_seat,
        ],
    }


def ranks_of(n_sides: int, winners: Sequence[int], losers: Sequence[int]) -> list[int]:
    """Per side: 2 won, 0 lost, 1 neither (a Kozel middle player).  A game in which every
    side has the same rank (a Block tie: nobody wins) is a draw."""
    return [2 if s in winners else 0 if s in losers else 1 for s in range(n_sides)]


def _header(task: Mapping[str, Any], sides: Sequence[Sequence[int]]) -> dict[str, Any]:
    return {
        "type": "game",
        "id": int(task["id"]),
        "group": int(task["group"]),
        "deal": int(task["deal"]),
        "encounter": int(task["encounter"]),
        "seating": int(task["seating"]),
        "variant": task["variant"],
        "players": int(task["players"]),
        "options": dict(task["options"]),
        "seed": int(task["seed"]),
        "seats": list(task["seats"]),
        "seat_bots": list(task["seat_bots"]),
        "bot_seeds": list(task["bot_seeds"]),
        "sides": [list(s) for s in sides],
    }


def make_record(
    task: Mapping[str, Any],
    game: Any,
    rounds: list[dict[str, Any]],
    forfeit: dict[str, Any] | None,
    seconds: float,
    longest: Sequence[float] = (),
) -> dict[str, Any]:
    """The record of a game played from ``task``: a finished ``game`` or one stopped by a
    ``forfeit`` (``{"seat", "reason", "detail"}``: the forfeiting side loses, the others
    win)."""
    sides = [list(s) for s in game.sides]
    rec = _header(task, sides)
    rec["rounds"] = rounds
    rec["scores"] = list(game.scores)
    if forfeit is not None:
        side = next((i for i, s in enumerate(sides) if forfeit["seat"] in s), -1)
        forfeit = {**forfeit, "side": side}
        winners = [i for i in range(len(sides)) if i != side]
        losers = [side] if side >= 0 else []
    else:
        winners, losers = list(game.winners), list(game.losers)
    rec["winners"] = winners
    rec["losers"] = losers
    rec["forfeit"] = forfeit
    rec["ranks"] = ranks_of(len(sides), winners, losers) if (winners or losers) else None
    rec["seconds"] = round(seconds, 6)
    rec["longest_move"] = list(longest)
    return rec


def forfeit_record(task: Mapping[str, Any], seat: int, reason: str, detail: str) -> dict[str, Any]:
    """The record of a game lost by ``seat`` without a record of its moves (its worker
    was killed or died).  ``seat`` -1 (unknown): the game is aborted and counts for
    nobody."""
    from ..core.round import Round

    sides = [
        list(s)
        for s in Round.deal(
            task["variant"], players=int(task["players"]), seed=0, **task["options"]
        ).sides
    ]
    rec = _header(task, sides)
    rec["rounds"] = []
    rec["scores"] = None
    side = next((i for i, s in enumerate(sides) if seat in s), -1)
    if side >= 0:
        winners = [i for i in range(len(sides)) if i != side]
        rec["winners"], rec["losers"] = winners, [side]
        rec["ranks"] = ranks_of(len(sides), winners, [side])
    else:
        rec["winners"], rec["losers"], rec["ranks"] = [], [], None
    rec["forfeit"] = {"seat": seat, "side": side, "reason": reason, "detail": detail}
    rec["seconds"] = None
    rec["longest_move"] = []
    return rec


# ---------------------------------------------------------------------------------------
# Reading


@dataclass
class JournalData:
    """A journal as read: ``config`` (the header's, updated by each resume line; ``None``
    for an empty file), the game ``records`` sorted by id (the first of any duplicate id
    wins), ``warnings`` and ``good_bytes`` (the length up to the last complete line)."""

    config: dict[str, Any] | None
    records: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    good_bytes: int = 0


def read_journal(path: str | os.PathLike[str]) -> JournalData:
    """Read a journal; a half-written last line is dropped with a warning, a corrupt line
    elsewhere is a :class:`JournalError`."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise JournalError(f"cannot read the journal {path}: {exc.strerror or exc}") from None
    data = JournalData(None)
    lines = raw.split(b"\n")
    offset = 0
    records: dict[int, dict[str, Any]] = {}
    for number, line in enumerate(lines, 1):
        last = number == len(lines)
        if last and not line:
            break  # the file ends with a newline
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict) or "type" not in obj:
                raise ValueError("not a journal entry")
            if last:
                raise ValueError("no newline at the end")
        except ValueError:
            if last or all(not rest.strip() for rest in lines[number:]):
                data.warnings.append(
                    f"{path}: line {number} is cut short (the match was killed while "
                    "writing it); it is dropped"
                )
                break
            raise JournalError(
                f"{path}: line {number} is corrupt (not a JSON object); only the last "
                "line of a journal may be cut short"
            ) from None
        offset += len(line) + 1
        kind = obj["type"]
        if kind in ("match", "resume"):
            if number == 1 and kind == "match" and obj.get("version") != JOURNAL_VERSION:
                raise JournalError(
                    f"{path}: journal version {obj.get('version')!r}; this bones reads "
                    f"version {JOURNAL_VERSION}"
                )
            if isinstance(obj.get("config"), dict):
                data.config = obj["config"]
        elif kind == "game":
            gid = obj.get("id")
            if isinstance(gid, int) and gid not in records:
                records[gid] = obj
        if number == 1 and kind != "match":
            raise JournalError(f"{path} is not a bones match journal (no header line)")
    data.good_bytes = offset
    data.records = [records[g] for g in sorted(records)]
    return data


def load_record(path: str | os.PathLike[str], game: int | None = None) -> dict[str, Any]:
    """A game record: from a journal (``game``: its id; may be omitted when the journal
    holds one game) or from a file holding one record (as ``bones show --json`` prints)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise JournalError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and whole.get("type") == "game":
        if game is not None and whole.get("id") != game:
            raise JournalError(f"{path} holds game {whole.get('id')}, not game {game}")
        return whole
    data = read_journal(path)
    if not data.records:
        raise JournalError(f"{path} holds no finished game")
    ids = [r["id"] for r in data.records]
    if game is None:
        if len(ids) == 1:
            return data.records[0]
        raise JournalError(
            f"{path} holds {len(ids)} games (ids {_ranges(ids)}); choose one with --game N"
        )
    for rec in data.records:
        if rec["id"] == game:
            return rec
    raise JournalError(f"{path} has no game {game}; its games: {_ranges(ids)}")


def _ranges(ids: Sequence[int]) -> str:
    parts = []
    start = prev = ids[0]
    for i in list(ids[1:]) + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------
# Writing


class Journal:
    """An open journal: :meth:`append` writes one record as a line and flushes it."""

    def __init__(self, path: str, handle: TextIO, warnings: list[str]) -> None:
        self.path = path
        self._f = handle
        self.warnings = warnings

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        config: dict[str, Any],
        *,
        resume: bool = False,
        overwrite: bool = False,
    ) -> tuple[Journal, list[dict[str, Any]]]:
        """Open ``path`` for a match with ``config``; returns the journal and the records
        already in it (resume).  A new journal gets the header line.  An existing one is
        an error unless ``resume`` (continue it: a cut-short last line is removed) or
        ``overwrite``."""
        from .. import __version__

        path = os.fspath(path)
        exists = os.path.exists(path) and os.path.getsize(path) > 0
        records: list[dict[str, Any]] = []
        warnings: list[str] = []
        if exists and resume:
            data = read_journal(path)
            warnings = data.warnings
            if data.config is None:  # only a cut-short header: start again
                exists = False
            else:
                records = data.records
                if data.good_bytes != os.path.getsize(path):
                    with open(path, "r+b") as f:
                        f.truncate(data.good_bytes)
        elif exists and not overwrite:
            raise JournalError(
                f"the journal {path} exists: --resume continues that match, --overwrite "
                "starts it again, --journal PATH writes elsewhere"
            )
        try:
            handle = open(path, "a" if exists and resume else "w", encoding="utf-8")
        except OSError as exc:
            raise JournalError(f"cannot write the journal {path}: {exc.strerror or exc}") from None
        journal = cls(path, handle, warnings)
        kind = "resume" if exists and resume else "match"
        journal._write(
            {"type": kind, "version": JOURNAL_VERSION, "bones": __version__, "config": config}
        )
        return journal, records

    def _write(self, obj: Mapping[str, Any]) -> None:
        self.append_line(encode_record(obj))

    def append(self, record: Mapping[str, Any]) -> None:
        """Append one game record and flush it."""
        self._write(record)

    def append_line(self, line: str) -> None:
        """Append one record already encoded by :func:`encode_record`, and flush it."""
        self._f.write(line + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()


# ---------------------------------------------------------------------------------------
# Replaying a record: bones show


def _fail(record: Mapping[str, Any], what: str) -> ReplayError:
    return ReplayError(f"game {record.get('id', '?')} does not replay: {what}")


def _event_text(event: Any) -> str:
    if event.kind == "play":
        points = f", +{event.points}" if event.points else ""
        return f"{event.move}  (count {event.count}{points})"
    if event.kind == "draw":
        return f"draws {event.count}"
    return "passes"


def show(record: Mapping[str, Any], out: TextIO) -> None:
    """Replay ``record`` with the engine and print it move by move: each move with its
    seat and the events it caused, ``str(round)`` at the end of each round, the scores.

    The game is dealt again from its seed; each recorded round must be that deal, its
    moves must be legal and lead to the recorded round and result, else
    :class:`JournalError` ("does not replay").
    """
    from ..core.round import Round
    from ..game import new_game

    try:
        variant = record["variant"]
        players = int(record["players"])
        options = dict(record["options"])
        seed = int(record["seed"])
        seats = list(record["seats"])
        rounds = list(record["rounds"])
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalError(f"not a game record: missing or bad field {exc}") from None
    try:
        game = new_game(variant, players, seed, **options)
    except (OptionError, TypeError, ValueError) as exc:
        raise _fail(record, f"cannot start the game: {exc}") from None
    sides = [list(s) for s in game.sides]

    def who(seat: int) -> str:
        return f"seat {seat} ({seats[seat]})"

    opts = " ".join(f"{k}={v}" for k, v in sorted(options.items()))
    print(
        f"Game {record.get('id', '?')}: {variant}, {players} players{', ' + opts if opts else ''}; "
        f"seed {seed} (deal {record.get('deal', '?')}, seating {record.get('seating', '?')})",
        file=out,
    )
    for side, members in enumerate(sides):
        names = ", ".join(who(s) for s in members)
        print(f"  side {side}: {names}", file=out)
    forfeit = record.get("forfeit")
    if not rounds and forfeit:
        print("  (no moves recorded)", file=out)
    for index, entry in enumerate(rounds):
        try:
            recorded = Round.from_msgpack(base64.b64decode(entry["round"], validate=True))
        except Exception as exc:
            raise _fail(record, f"round {index + 1} does not load: {exc}") from None
        moves = list(recorded.moves)
        text = " ".join(str(m) for m in moves)
        if entry.get("moves") is not None and entry["moves"] != text:
            raise _fail(record, f"round {index + 1}: the moves in text and in msgpack differ")
        while True:
            try:
                recorded.undo()
            except IndexError:
                break
        rnd = game.round
        if rnd != recorded:
            raise _fail(
                record, f"round {index + 1}: the recorded deal is not the one the seed deals"
            )
        score_text = "-".join(map(str, rnd.scores))
        print(f"\nRound {index + 1}: {who(rnd.leader)} leads; scores before {score_text}", file=out)
        for seat in range(players):
            hand = " ".join(str(t) for t in rnd.hand(seat))
            print(f"  hand {who(seat)}: {hand}", file=out)
        if rnd.stock_size:
            print(f"  stock: {' '.join(str(t) for t in rnd.stock)}", file=out)
        seen = 0
        events = rnd.events
        for event in events:
            print(f"      {who(event.seat)} {_event_text(event)}", file=out)
        seen = len(events)
        for number, move in enumerate(moves, 1):
            seat = rnd.to_move
            try:
                rnd.play(move)
            except ValueError as exc:
                raise _fail(record, f"round {index + 1} move {number} ({move}): {exc}") from None
            events = rnd.events
            new = events[seen:]
            seen = len(events)
            head = f"  {number:3}. {who(seat)} "
            print(head + (_event_text(new[0]) if new else str(move)), file=out)
            for event in new[1:]:
                print(f"       {who(event.seat)} {_event_text(event)}", file=out)
        print(file=out)
        for line in str(rnd).splitlines():
            print(f"  {line}", file=out)
        result = entry.get("result")
        if rnd.result is None:
            if result is not None or index != len(rounds) - 1 or not forfeit:
                raise _fail(
                    record, f"round {index + 1} is unfinished but the record says otherwise"
                )
            continue
        mine = [
            rnd.result.reason,
            list(rnd.result.winners),
            list(rnd.result.points),
            list(rnd.result.values),
            rnd.result.last_seat,
        ]
        if result is not None and mine != result:
            raise _fail(record, f"round {index + 1}: result {mine} but the record says {result}")
        r = rnd.result
        won = ", ".join(f"side {s}" for s in r.winners) or "nobody"
        print(
            f"  round over ({r.reason}): won by {won}; points {list(r.points)}; "
            f"hand values {list(r.values)}",
            file=out,
        )
        if index < len(rounds) - 1 or not forfeit:
            nxt = game.next_round()
            print(f"  game scores: {'-'.join(map(str, game.scores))}", file=out)
            if nxt is None and index != len(rounds) - 1:
                raise _fail(record, f"the game ended after round {index + 1}, the record goes on")
    if forfeit:
        seat = forfeit.get("seat", -1)
        culprit = who(seat) if 0 <= seat < players else "an unknown seat"
        print(
            f"\n{culprit} forfeits the game: {forfeit.get('reason')}: {forfeit.get('detail')}",
            file=out,
        )
    elif not game.is_over:
        raise _fail(record, "the game is not over after the recorded rounds")
    elif record.get("scores") is not None and list(game.scores) != list(record["scores"]):
        raise _fail(record, f"final scores {list(game.scores)}, the record says {record['scores']}")
    winners = record.get("winners") or []
    losers = record.get("losers") or []
    if not forfeit and (list(game.winners) != list(winners) or list(game.losers) != list(losers)):
        raise _fail(record, "the winners differ from the record's")
    final = record.get("scores")
    print(f"\nFinal scores: {'-'.join(map(str, final)) if final else '-'}", file=out)
    if winners and len(winners) < len(sides):
        names = "; ".join(f"side {s} ({', '.join(seats[x] for x in sides[s])})" for s in winners)
        print(f"Won by {names}", file=out)
    else:
        print("A draw", file=out)
