"""The plain-text game record: a game a person can read, paste and load again.

Like a PGN file, a record is tag lines and then the moves, one line per move::

    [Bones "game record 1"]
    [Game 3]
    [Variant "straight"]
    [Players 2]
    [Options {}]
    [Seed 8167...]
    [Deal 1]
    [Seating 1]
    [Seat0 "random"]
    [Seat1 "greedy"]
    [Sides "0 | 1"]
    [Result "won by greedy (seat 1)"]
    [Scores "120-250"]
    [Digest "5f0c..."]

    Round 1: seat 1 leads; scores 0-0
    hand 0 (random): 6-6 6-5 ...
    hand 1 (greedy): 5-4 ...
    stock: 5-1 6-1 ...
    1. seat 1: 2-1  (count 3)
    2. seat 0: 3-1@E  (count 5, +5)
       seat 1 draws 1
    ...
    Round 1 over (out): won by side 0; points 0-0; hand values 0-0
    Game scores after round 1: 25-0

A tag's value is JSON (a string, a number, an object).  A move is the engine's move text
(``6-4@W``: the tile and the end it goes on; a train game's ``12-7@M``/``9-3@P0``: the
train).  The lines that are not moves -- hands, stock, forced draws and passes, counts,
round results, the Result and Scores tags -- are what the engine says about those moves.

Reading a record (:func:`read_text_record`) deals the game again from its variant,
players, options and seed (:func:`bones.game.new_game`: every variant, the train games
too), plays every move line on it with the engine, writes the record of what it played
(:func:`render`) and requires the text to be exactly that, line by line (blank lines and
the indentation aside): a move that is not legal, a hand that is not the deal, a count or
a result that is not the engine's gives a :class:`RecordError` naming the line.  The
``Digest`` tag (SHA-256 of the other lines) catches the one edit left: a move replaced by
another legal one with the same consequences.  The game rebuilt is returned as the
journal's record of it (:func:`bones.match.journal.load_record`'s kind), which
``bones show`` and ``bones replay`` use as they use a journal's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..registry import family_of
from .journal import JournalError, _sides_of, forfeit_result, ranks_of, round_entry

__all__ = ["RecordError", "is_text_record", "read_text_record", "render", "write_text_record"]

#: The first line of every record (its format's version is the number).
MAGIC = '[Bones "game record 1"]'
_TAG = re.compile(r"\[([A-Za-z][A-Za-z0-9]*) (.*)\]\Z")
_MOVE = re.compile(r"(\d+)\. seat (\d+): (\S+)")
_ROUND = re.compile(r"Round (\d+): ")
_LIMIT = 64 << 20


class RecordError(JournalError):
    """A text game record that cannot be read (names the line); exit status 2."""


def _tag(name: str, value: Any) -> str:
    return f"[{name} {json.dumps(value, ensure_ascii=False, sort_keys=True)}]"


def _dash(values: Sequence[int]) -> str:
    return "-".join(map(str, values))


def _seat_names(meta: Mapping[str, Any], seats: Sequence[int]) -> str:
    return ", ".join(f"{meta['seats'][x]} (seat {x})" for x in seats)


def _result(meta: Mapping[str, Any], game: Any, sides: Sequence[Sequence[int]]) -> str:
    if meta.get("error") is not None:
        return "void"
    forfeit = meta.get("forfeit")
    if forfeit is not None:
        seat = forfeit["seat"]
        specs = list(meta["seats"])
        winners, _ = forfeit_result(sides, [specs.index(s) for s in specs], seat)
        if not winners:
            return "aborted (an unknown seat forfeited)"
        # every seat of the forfeiting bot loses (bones 0.1 wrote its other seats here too)
        others = [x for i in winners for x in sides[i]]
        return f"won by {_seat_names(meta, others)}: seat {seat} forfeits"
    winners = list(game.winners)
    if not winners or len(winners) == len(sides):
        return "draw"
    return "won by " + "; ".join(_seat_names(meta, sides[s]) for s in winners)


def render(meta: Mapping[str, Any], game: Any, rounds: Sequence[tuple[Any, Any]]) -> list[str]:
    """The lines of the record of ``game`` (None for a void game), whose ``rounds`` are
    ``(the round as dealt, the round as played)``; ``meta``: the record's header fields
    (``id``, ``variant``, ``players``, ``options``, ``seed``, ``deal``, ``seating``,
    ``seats``, ``forfeit``, ``error``).  Without the Digest line (:func:`_digest`)."""
    seats = list(meta["seats"])
    sides = [list(s) for s in game.sides] if game is not None else _sides_of(meta)
    lines = [
        MAGIC,
        _tag("Game", meta["id"]),
        _tag("Variant", meta["variant"]),
        _tag("Players", meta["players"]),
        _tag("Options", dict(meta["options"])),
        _tag("Seed", meta["seed"]),
        _tag("Deal", meta["deal"]),
        _tag("Seating", meta["seating"]),
    ]
    lines += [_tag(f"Seat{i}", spec) for i, spec in enumerate(seats)]
    lines.append(_tag("Sides", " | ".join(" ".join(map(str, s)) for s in sides)))
    forfeit = meta.get("forfeit")
    if forfeit is not None:
        lines.append(_tag("ForfeitSeat", forfeit["seat"]))
        lines.append(_tag("ForfeitReason", forfeit["reason"]))
        lines.append(_tag("ForfeitDetail", forfeit.get("detail", "")))
    if meta.get("error") is not None:
        lines.append(_tag("Void", meta["error"]))
    lines.append(_tag("Result", _result(meta, game, sides)))
    if game is not None and forfeit is None:
        lines.append(_tag("Scores", _dash(game.scores)))
    face = family_of(meta["variant"]).part("terminal")  # how its events are written
    for number, (dealt, played) in enumerate(rounds, 1):
        lines.append("")
        leader = dealt.leader
        lines.append(
            f"Round {number}: seat {leader} ({seats[leader]}) leads; scores {_dash(dealt.scores)}"
        )
        for seat in range(len(seats)):
            tiles = " ".join(str(t) for t in dealt.dealt_hand(seat))
            lines.append(f"hand {seat} ({seats[seat]}): {tiles}")
        if dealt.dealt_stock:
            lines.append(f"stock: {' '.join(str(t) for t in dealt.dealt_stock)}")
        ply = 0
        for event in played.events:
            if event.kind == "play":
                ply += 1
                lines.append(f"{ply}. seat {event.seat}: {face.event_text(event)}")
            else:
                lines.append(f"   seat {event.seat} {face.event_text(event)}")
        r = played.result
        if r is None:
            culprit = forfeit["seat"] if forfeit is not None else "?"
            lines.append(f"Round {number} stopped: seat {culprit} forfeits")
            continue
        won = ", ".join(f"side {s}" for s in r.winners) or "nobody"
        lines.append(
            f"Round {number} over ({r.reason}): won by {won}; points {_dash(r.points)}; "
            f"hand values {_dash(r.values)}"
        )
        if number < len(rounds) or forfeit is None:
            lines.append(f"Game scores after round {number}: {_dash(game.history[number - 1])}")
    return lines


def _digest(lines: Sequence[str]) -> str:
    body = "\n".join(line.strip() for line in lines if line.strip())
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


def _text(lines: list[str]) -> str:
    digest = _tag("Digest", _digest(lines))
    head = lines.index("") if "" in lines else len(lines)
    return "\n".join([*lines[:head], digest, *lines[head:]]) + "\n"


def _meta(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": record.get("id", 0),
        "variant": record["variant"],
        "players": record["players"],
        "options": dict(record["options"]),
        "seed": record["seed"],
        "deal": record.get("deal", 0),
        "seating": record.get("seating", 0),
        "seats": list(record["seats"]),
        "forfeit": None
        if not record.get("forfeit")
        else {
            "seat": record["forfeit"]["seat"],
            "reason": record["forfeit"]["reason"],
            "detail": record["forfeit"].get("detail", ""),
        },
        "error": record.get("error"),
    }


def write_text_record(record: Mapping[str, Any]) -> str:
    """The text record of a journal's game record (checked first: it must replay with
    the engine, as ``bones show`` checks it)."""
    import io

    from ..api import Round
    from .journal import show

    meta = _meta(record)
    if meta["error"] is None and not record.get("rounds") and not record.get("forfeit"):
        raise JournalError(
            f"game {meta['id']}: its moves are not in this journal (a copy without them): "
            "no record to write"
        )
    show(record, io.StringIO())  # raises ReplayError if the record does not replay
    moves = [
        [(str(m), None, None) for m in Round.from_msgpack(base64.b64decode(entry["round"])).moves]
        for entry in record.get("rounds") or []
    ]
    game, rounds = _play(meta, moves)
    return _text(render(meta, game, rounds))


#: A move of a record: its text, the seat that the record says plays it and its line
#: (``None``: not known).
_Move = tuple[str, "int | None", "int | None"]


def _play(
    meta: Mapping[str, Any],
    moves: Sequence[Sequence[_Move]],
    path: str = "",
    lines: tuple[int, int] | None = None,
) -> tuple[Any, list[tuple[Any, Any]]]:
    """Deal the game of ``meta`` and play ``moves`` (per round) with the engine;
    ``lines``: the record's line of its Variant tag and its last line (for the errors
    that no move line is to blame for)."""
    from ..errors import BonesError
    from ..game import new_game

    def fail(r: int, i: int | None, what: str) -> RecordError:
        line = None
        if i is not None and r < len(moves) and 0 <= i < len(moves[r]):
            line = moves[r][i][2]
        elif lines is not None:
            line = lines[1]
        at = f"line {line}: " if line is not None else ""
        return RecordError(f"{path}: {at}{what}" if path else f"{at}{what}")

    if meta.get("error") is not None:
        if moves:
            raise fail(0, 0 if moves[0] else None, "a void game has no rounds")
        return None, []
    try:
        game = new_game(meta["variant"], meta["players"], meta["seed"], **meta["options"])
    except (BonesError, TypeError, ValueError, OverflowError) as exc:
        where = f"line {lines[0]}: " if lines is not None else ""
        what = f"the Variant, Players, Options and Seed tags give no game: {exc}"
        raise RecordError(f"{path}: {where}{what}" if path else f"{where}{what}") from None
    rounds = []
    for r, round_moves in enumerate(moves):
        if r:
            try:
                nxt = game.next_round()
            except (BonesError, ValueError) as exc:
                raise fail(r, 0, f"round {r + 1}: {exc}") from None
            if nxt is None:
                raise fail(r, 0, f"the game is over after round {r}; round {r + 1} cannot start")
        rnd = game.round
        dealt = rnd.copy()
        for i, (move, seat, _) in enumerate(round_moves):
            if rnd.to_move is None:
                raise fail(r, i, f"round {r + 1} is over; {move} cannot be played")
            if seat is not None and seat != rnd.to_move:
                raise fail(
                    r,
                    i,
                    f"round {r + 1} move {i + 1}: seat {rnd.to_move} is to move, not seat {seat}",
                )
            try:
                rnd.play(move)
            except (ValueError, TypeError, IndexError, OverflowError) as exc:
                raise fail(
                    r, i, f"round {r + 1} move {i + 1} ({move}) is not legal: {exc}"
                ) from None
        rounds.append((dealt, rnd))
        last = r == len(moves) - 1
        if last and meta.get("forfeit") is None:
            if rnd.to_move is not None:
                raise fail(
                    r,
                    len(round_moves) - 1 if round_moves else None,
                    f"round {r + 1} is not over at the end of the record",
                )
            try:
                following = game.next_round()
            except (BonesError, ValueError) as exc:
                raise fail(r, None, f"round {r + 1}: {exc}") from None
            if following is not None:
                raise fail(
                    r,
                    len(round_moves) - 1 if round_moves else None,
                    f"the record ends with round {r + 1}, but the game goes on",
                )
    if not moves and meta.get("forfeit") is None:
        raise fail(0, None, "a record of a finished game needs its rounds")
    return game, rounds


def is_text_record(path: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path`` starts as a text game record (its first line that is
    not blank is the ``[Bones "game record 1"]`` tag)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"[Bones ")


_INT_TAGS = ("Game", "Players", "Seed", "Deal", "Seating")
_KNOWN_TAGS = (
    "Bones", "Game", "Variant", "Players", "Options", "Seed", "Deal", "Seating", "Sides",
    "ForfeitSeat", "ForfeitReason", "ForfeitDetail", "Void", "Result", "Scores", "Digest",
)  # fmt: skip


def read_text_record(path: str | os.PathLike[str], text: str | None = None) -> dict[str, Any]:
    """The game of a text record (the file at ``path``, or ``text`` with ``path`` naming
    it in the errors), replayed and checked line by line, as a journal's game record."""
    path = os.fspath(path)
    if text is None:
        try:
            with open(path, "rb") as f:
                data = f.read(_LIMIT + 1)
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
        if len(data) > _LIMIT:
            raise RecordError(f"{path}: more than {_LIMIT >> 20} MiB: not a game record")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(f"{path}: not UTF-8 text (byte {exc.start})") from None

    def fail(line: int, what: str) -> RecordError:
        return RecordError(f"{path}: line {line}: {what}")

    lines = [(n, raw.strip()) for n, raw in enumerate(text.splitlines(), 1)]
    lines = [(n, s) for n, s in lines if s]
    if not lines or lines[0][1] != MAGIC:
        where = lines[0][0] if lines else 1
        raise fail(where, f"a game record starts with {MAGIC}")
    tags: dict[str, Any] = {}
    tag_line: dict[str, int] = {}
    body = 0
    while body < len(lines) and lines[body][1].startswith("["):
        n, s = lines[body]
        body += 1
        match = _TAG.fullmatch(s)
        if match is None:
            raise fail(n, f"not a tag line [Name VALUE]: {s[:60]!r}")
        name = match.group(1)
        if name not in _KNOWN_TAGS and not re.fullmatch(r"Seat(0|[1-9][0-9]?)", name):
            raise fail(n, f"unknown tag {name}; a record's tags: {', '.join(_KNOWN_TAGS)}, SeatN")
        if name in tags:
            raise fail(n, f"tag {name} again (first at line {tag_line[name]})")
        try:
            tags[name] = json.loads(match.group(2))
        except (ValueError, RecursionError):
            raise fail(n, f"tag {name}: its value is not JSON: {match.group(2)[:60]!r}") from None
        tag_line[name] = n
    last = lines[body - 1][0]

    def need(name: str, kind: type | tuple[type, ...], what: str) -> Any:
        if name not in tags:
            raise fail(last, f"no [{name}] tag: a record has {what}")
        value = tags[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise fail(tag_line[name], f"tag {name} must be {what}; got {json.dumps(value)[:60]}")
        return value

    meta: dict[str, Any] = {"id": need("Game", int, "the game's id")}
    meta["variant"] = need("Variant", str, "a variant name")
    meta["players"] = need("Players", int, "a player count")
    meta["options"] = need("Options", dict, "the variant's options (a JSON object)")
    meta["seed"] = need("Seed", int, "the game's seed")
    meta["deal"] = need("Deal", int, "the deal number")
    meta["seating"] = need("Seating", int, "the seating number")
    for name in _INT_TAGS:
        if not 0 <= tags[name] < 2**64:
            raise fail(tag_line[name], f"tag {name} must be a whole number >= 0")
    if not 1 <= meta["players"] <= 16:
        raise fail(tag_line["Players"], "tag Players must be from 1 to 16")
    meta["seats"] = [need(f"Seat{i}", str, f"the bot of seat {i}") for i in range(meta["players"])]
    meta["forfeit"] = None
    if "ForfeitSeat" in tags:
        meta["forfeit"] = {
            "seat": need("ForfeitSeat", int, "the seat that forfeited"),
            "reason": need("ForfeitReason", str, "why the seat forfeited"),
            "detail": need("ForfeitDetail", str, "the forfeit's detail"),
        }
        if not -1 <= meta["forfeit"]["seat"] < meta["players"]:
            raise fail(tag_line["ForfeitSeat"], "tag ForfeitSeat must be a seat of the game")
    meta["error"] = need("Void", str, "why the game is void") if "Void" in tags else None
    digest = need("Digest", str, "a digest")
    # the moves, by round
    moves: list[list[_Move]] = []
    for n, s in lines[body:]:
        head = _ROUND.match(s)
        if head is not None:
            if int(head.group(1)) != len(moves) + 1:
                raise fail(n, f"round {head.group(1)}, but round {len(moves) + 1} comes next")
            moves.append([])
            continue
        move = _MOVE.match(s)
        if move is None:
            continue  # hands, draws, passes, results: checked against the engine below
        if not moves:
            raise fail(n, "a move before the first 'Round 1:' line")
        if int(move.group(1)) != len(moves[-1]) + 1:
            raise fail(n, f"move number {move.group(1)}; move {len(moves[-1]) + 1} comes next")
        moves[-1].append((move.group(3), int(move.group(2)), n))
    game, rounds = _play(meta, moves, path, (tag_line["Variant"], lines[-1][0]))
    want = render(meta, game, rounds)
    expected = [s.strip() for s in want if s.strip()]
    tagged = [(n, s) for n, s in lines if n != tag_line["Digest"]]
    for (n, s), e in zip(tagged, expected, strict=False):
        if s != e:
            raise fail(n, f"the engine says {e[:80]!r}, the record {s[:80]!r}")
    if len(tagged) < len(expected):
        raise fail(lines[-1][0], f"the record ends early; next: {expected[len(tagged)][:80]!r}")
    if len(tagged) > len(expected):
        n, s = tagged[len(expected)]
        raise fail(n, f"more than the game: {s[:60]!r}")
    if digest != _digest(want):
        raise fail(
            tag_line["Digest"],
            "the Digest does not match the record: it was edited (every move is legal, but "
            "the game is not the one written)",
        )
    return _as_record(meta, game, rounds)


def _as_record(
    meta: Mapping[str, Any], game: Any, rounds: Sequence[tuple[Any, Any]]
) -> dict[str, Any]:
    """The journal's record of the game rebuilt (no bot seeds, timing or group: a text
    record does not keep them)."""
    seats = list(meta["seats"])
    bots = list(dict.fromkeys(seats))
    sides = [list(s) for s in game.sides] if game is not None else _sides_of(meta)
    rec: dict[str, Any] = {
        "type": "game",
        "id": meta["id"],
        "group": 0,
        "deal": meta["deal"],
        "encounter": 0,
        "seating": meta["seating"],
        "variant": meta["variant"],
        "players": meta["players"],
        "options": dict(meta["options"]),
        "seed": meta["seed"],
        "seats": seats,
        "seat_bots": [bots.index(s) for s in seats],
        "bot_seeds": [],
        "sides": sides,
        "rounds": [round_entry(played) for _, played in rounds],
    }
    forfeit = meta.get("forfeit")
    if meta.get("error") is not None:
        rec.update(scores=None, winners=[], losers=[], forfeit=None, ranks=None)
        rec["error"] = meta["error"]
    elif forfeit is not None:
        side = next((i for i, s in enumerate(sides) if forfeit["seat"] in s), -1)
        winners, losers = forfeit_result(sides, rec["seat_bots"], forfeit["seat"])
        rec["scores"] = list(game.scores) if rounds else None
        rec.update(winners=winners, losers=losers, forfeit={**forfeit, "side": side})
        rec["ranks"] = ranks_of(len(sides), winners, losers) if losers else None
    else:
        winners, losers = list(game.winners), list(game.losers)
        rec.update(scores=list(game.scores), winners=winners, losers=losers, forfeit=None)
        standings = game.game_rules.standings(game.scores, winners, losers)
        rec["ranks"] = (
            ranks_of(len(sides), winners, losers, standings) if (winners or losers) else None
        )
    rec["seconds"] = None
    rec["longest_move"] = []
    return rec
