"""The journal of a match and its game records.

The journal is a text file of JSON objects, one per line (JSON Lines, UTF-8).  The first
line is the match header ``{"type": "match", "version": 1, "bones": ..., "python": ...,
"bots": [...], "config": {...}}`` (``bots``: each bot's identity, see
:mod:`bones.match.identity`); every finished game is appended as ``{"type": "game", ...}``
(its record) and flushed at once; ``--resume`` appends ``{"type": "resume", "config":
{...}, "bots": [...]}`` (with ``"changed"`` when the bots changed on purpose).  A line
cut short by a kill can only be the last one: it is detected, dropped with a warning, and
cut off before anything new is appended.  Tables and Elo are always recomputed from this file.

A game record holds the variant, options, players, the bot spec of each seat, the game
seed, every round (``Round.to_msgpack()`` in base64: the deal -- hands, stock, leader --
and every ply, forced draws and passes included; the moves also as text) and the result.
:func:`show` replays it with the engine, move by move.  docs/matches.md has the schema.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import hashlib
import hmac
import json
import os
import re
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO, TypeGuard

from ..errors import BonesError, OptionError

__all__ = [
    "JOURNAL_VERSION",
    "Journal",
    "JournalData",
    "JournalError",
    "ReplayError",
    "IdSet",
    "JournalReader",
    "check_game",
    "empty_journal",
    "encode_game",
    "error_record",
    "forfeit_record",
    "forfeit_result",
    "load_record",
    "make_record",
    "no_games",
    "not_a_journal",
    "open_journal",
    "ranks_of",
    "repair_hint",
    "read_journal",
    "round_entry",
    "round_json",
    "record_key",
    "show",
    "sign_record",
    "without_moves",
    "write_private",
]

#: ``version`` of the header line; bump on an incompatible change of the records.
JOURNAL_VERSION = 1

#: The permissions of a journal and of its copies: its owner's only.  The header holds
#: the match's secret, the key of the bots' seeds, and the records every deal.
PRIVATE = 0o600


def _private(fd: int) -> None:
    """Make the open file ``fd`` its owner's only (a file made before bones created its
    journals 0600, or under a umask that the mode of ``os.open`` cannot narrow); a file
    that is not this user's is left as it is."""
    with contextlib.suppress(OSError):
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, PRIVATE)


def write_private(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path``, created (or cut) with mode 0600: a journal's copy
    (``bench/strength.py --archive``, a journal brought back from it) holds what the
    journal holds."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
    try:
        _private(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


class JournalError(OptionError):
    """A journal or record that cannot be used (one line saying why); exit status 2."""


class ReplayError(BonesError, ValueError):
    """A game record that does not replay with the engine; exit status 1."""


# ---------------------------------------------------------------------------------------
# Records


#: ``json.dumps(obj, separators=(",", ":"))`` made once: dumps makes an encoder per call,
#: and a worker encodes every game's record.
_ENCODER = json.JSONEncoder(separators=(",", ":"))
#: And its C encoder made once too (``JSONEncoder.encode`` makes one per call, a
#: microsecond, as much as a round's result takes to encode): the same text.  Without
#: circular-reference markers, so that it keeps no state between calls or threads (a
#: record is a tree: a cycle would end in RecursionError, not ValueError).
_MAKE_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # None without _json
_C_ENCODE: Any = (
    None
    if _MAKE_C_ENCODER is None
    else _MAKE_C_ENCODER(  # markers, default, strings, indent, separators, sort, skip, nan
        None,
        _ENCODER.default,
        json.encoder.encode_basestring_ascii,
        None,
        ":",
        ",",
        False,
        False,
        True,
    )
)


def encode_record(obj: Mapping[str, Any]) -> str:
    """One journal line (compact JSON, no newline)."""
    if _C_ENCODE is None:
        return _ENCODER.encode(obj)
    return "".join(_C_ENCODE(obj, 0))


#: The value of ``mac`` in a header or resume line: the game records after it carry a MAC.
MAC_KIND = "hmac-sha256"
_MAC_TAIL = re.compile(rb',"mac":"([0-9a-f]{64})"\}\n?\Z')


def record_key(secret: str | None) -> bytes | None:
    """The key of the records' MACs: the match's secret (None: a journal written before
    bones had secrets, whose records cannot be signed)."""
    return None if secret is None else bytes.fromhex(secret)


@functools.lru_cache(maxsize=8)
def _hmac_base(key: bytes) -> Any:
    return hmac.new(key, b"bones-record:", hashlib.sha256)


def _mac(key: bytes, body: bytes) -> str:
    """HMAC-SHA256 of ``b"bones-record:" + body`` (a copy of the keyed start: a journal
    checks one per record)."""
    mac = _hmac_base(key).copy()
    mac.update(body)
    return mac.hexdigest()  # type: ignore[no-any-return]


def sign_record(line: str, key: bytes) -> str:
    """A game record's journal line (:func:`encode_record`) with its MAC appended as a
    last field, ``"mac"``: HMAC-SHA256, keyed with the match's secret, of the line
    without its moves (:func:`without_moves` leaves a signed record verifiable)."""
    body = line
    if line.startswith('{"type":"game"'):  # as _without_rounds, on the text (no copy)
        start = line.find(',"rounds":[')
        end = line.find('],"scores":', start) if start >= 0 else -1
        if end >= 0:
            body = line[: start + 11] + line[end:]
    return f'{line[:-1]},"mac":"{_mac(key, body.encode("utf-8"))}"}}'


def _check_mac(line: bytes, key: bytes) -> bool | None:
    """Whether the MAC of a game record's line (with or without its moves) is right;
    None: the line has none."""
    cut = max(0, len(line) - 80)  # the MAC's field is the last one: search its end only
    tail = _MAC_TAIL.search(line, cut)
    if tail is None:
        return None
    body = _without_rounds(line[: tail.start()] + b"}\n")[:-1]
    return hmac.compare_digest(_mac(key, body), tail.group(1).decode("ascii"))


def round_entry(rnd: Any) -> dict[str, Any]:
    """One round of a record: the round's msgpack (deal and plies) in base64, the moves as
    text and the result (``[reason, winners, points, values, last_seat]``, ``None`` for a
    round stopped by a forfeit)."""
    result = rnd.result
    return {
        "round": base64.b64encode(rnd.to_msgpack()).decode("ascii"),
        "moves": rnd.moves_text(),
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


def round_json(rnd: Any) -> str:
    """:func:`round_entry` of ``rnd`` as :func:`encode_record` writes it: a round that
    writes its text itself in one pass (its ``journal_entry()``: the train games'),
    without the dict and the encoder (a worker writes one per round); any other round
    through both."""
    own = getattr(rnd, "journal_entry", None)
    if own is not None:
        text: str = own()
        return text
    return encode_record(round_entry(rnd))


def encode_game(rec: Mapping[str, Any], rounds: Sequence[str]) -> str:
    """The journal line of the game record ``rec`` whose ``rounds`` are given as their
    texts (:func:`round_json`, in play order) in place of its own: what
    :func:`encode_record` writes for ``rec`` with those rounds, without decoding them."""
    keys = list(rec)
    at = keys.index("rounds")
    head = encode_record({k: rec[k] for k in keys[:at]})[1:-1]
    tail = encode_record({k: rec[k] for k in keys[at + 1 :]})[1:-1]
    middle = f'"rounds":[{",".join(rounds)}]'
    return "{" + ",".join(part for part in (head, middle, tail) if part) + "}"


def ranks_of(
    n_sides: int,
    winners: Sequence[int],
    losers: Sequence[int],
    standings: Sequence[Any] | None = None,
) -> list[int]:
    """Per side, where it finished: 2 for each side it finished ahead of and 1 for each
    side it tied with (twice its pairwise points, so a higher rank is better and equal
    ranks are equal, whatever the number of sides).  ``standings``: a key per side, the
    higher finishing ahead (:meth:`bones.GameRules.standings`: the winners, then the
    final scores); without them the winners finish ahead of the rest and the losers
    behind (a forfeit).  A journal of bones 0.1 holds 2 won, 1 neither, 0 lost: the same
    order, read as it was written."""
    if standings is None:
        won, lost = set(winners), set(losers)
        standings = [2 if s in won else 0 if s in lost else 1 for s in range(n_sides)]
    return [
        sum(2 if mine > theirs else 1 if mine == theirs else 0 for theirs in standings) - 1
        for mine in standings
    ]


def forfeit_result(
    sides: Sequence[Sequence[int]], seat_bots: Sequence[int], seat: int
) -> tuple[list[int], list[int]]:
    """``(winners, losers)`` of a game forfeited by ``seat``: every side held by the bot
    of that seat loses (a crash costs the bot the game in each seat it holds, so that
    none of its other seats is counted among the winners), every other side wins.  An
    unknown seat (-1): nobody ``([], [])``."""
    if not 0 <= seat < len(seat_bots):
        return [], []
    culprit = seat_bots[seat]
    losers = [i for i, side in enumerate(sides) if any(seat_bots[x] == culprit for x in side)]
    return [i for i in range(len(sides)) if i not in losers], losers


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
    ``forfeit`` (``{"seat", "reason", "detail"}``: :func:`forfeit_result`); a finished
    game's ``ranks`` order every side by the rules' :meth:`~bones.GameRules.standings`."""
    sides = [list(s) for s in game.sides]
    rec = _header(task, sides)
    rec["rounds"] = rounds
    rec["scores"] = list(game.scores)
    standings = None
    if forfeit is not None:
        side = next((i for i, s in enumerate(sides) if forfeit["seat"] in s), -1)
        forfeit = {**forfeit, "side": side}
        winners, losers = forfeit_result(sides, rec["seat_bots"], forfeit["seat"])
    else:
        winners, losers = list(game.winners), list(game.losers)
        standings = game.game_rules.standings(game.scores, winners, losers)
    rec["winners"] = winners
    rec["losers"] = losers
    rec["forfeit"] = forfeit
    rec["ranks"] = ranks_of(len(sides), winners, losers, standings) if (winners or losers) else None
    rec["seconds"] = round(seconds, 6)
    rec["longest_move"] = list(longest)
    return rec


def _sides_of(task: Mapping[str, Any]) -> list[list[int]]:
    from ..api import Round

    players = int(task["players"])
    try:
        rnd = Round.deal(task["variant"], players=players, seed=0, **task["options"])
        return [list(s) for s in rnd.sides]
    except Exception:  # noqa: BLE001  (a variant that cannot even deal: one seat a side)
        return [[seat] for seat in range(players)]


def forfeit_record(task: Mapping[str, Any], seat: int, reason: str, detail: str) -> dict[str, Any]:
    """The record of a game lost by ``seat`` without a record of its moves (its worker
    was killed or died).  ``seat`` -1 (unknown): the game is aborted and counts for
    nobody."""
    sides = _sides_of(task)
    rec = _header(task, sides)
    rec["rounds"] = []
    rec["scores"] = None
    side = next((i for i, s in enumerate(sides) if seat in s), -1)
    winners, losers = forfeit_result(sides, rec["seat_bots"], seat)
    rec["winners"], rec["losers"] = winners, losers
    rec["ranks"] = ranks_of(len(sides), winners, losers) if losers else None
    rec["forfeit"] = {"seat": seat, "side": side, "reason": reason, "detail": detail}
    rec["seconds"] = None
    rec["longest_move"] = []
    return rec


def error_record(
    task: Mapping[str, Any], detail: str, seconds: float | None = None
) -> dict[str, Any]:
    """The record of a game voided by an error of the engine, not of a bot (a variant's
    ``move_scorer`` that raises, a worker that died outside every bot hook): no rounds,
    no result (``ranks`` null: it counts for nobody), ``error`` says what happened."""
    sides = _sides_of(task)
    rec = _header(task, sides)
    rec["rounds"] = []
    rec["scores"] = None
    rec["winners"], rec["losers"], rec["ranks"] = [], [], None
    rec["forfeit"] = None
    rec["error"] = detail[:1000]
    rec["seconds"] = None if seconds is None else round(seconds, 6)
    rec["longest_move"] = []
    return rec


# ---------------------------------------------------------------------------------------
# Reading


def _is_int(value: Any) -> TypeGuard[int]:
    return type(value) is int  # JSON's ints (a bool is not one)


def _json(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


#: Game ids above this are refused (a journal of 2**31 games is not a journal).
MAX_GAME_ID = 2**31 - 1


def check_game(rec: Any, config: Mapping[str, Any] | None = None) -> str | None:
    """What is wrong with a game record (``None``: nothing): every field the summary,
    ``--resume`` and ``bones show`` use must have its type and range, and with the
    journal's ``config`` the seats must be played by the match's bots."""
    if not isinstance(rec, dict):
        return "not a JSON object"

    def bad(key: str, what: str) -> str:
        return (
            f"game {_json(rec.get('id'))}: field {key!r} must be {what}; got {_json(rec.get(key))}"
        )

    for key in ("id", "group", "deal", "encounter", "seating"):
        value = rec.get(key)
        if not _is_int(value) or not 0 <= value <= MAX_GAME_ID:
            return bad(key, f"a whole number from 0 to {MAX_GAME_ID}")
    if not isinstance(rec.get("variant"), str):
        return bad("variant", "a variant name")
    players = rec.get("players")
    if not _is_int(players) or not 1 <= players <= 16:
        return bad("players", "a player count")
    if not isinstance(rec.get("options"), dict):
        return bad("options", "an object")
    if not _is_int(rec.get("seed")) or not 0 <= rec["seed"] < 2**64:
        return bad("seed", "a seed (a whole number >= 0)")
    seats = rec.get("seats")
    if (
        not isinstance(seats, list)
        or len(seats) != players
        or not all(isinstance(x, str) for x in seats)
    ):
        return bad("seats", f"{players} bot specs")
    seat_bots = rec.get("seat_bots")
    if (
        not isinstance(seat_bots, list)
        or len(seat_bots) != players
        or not all(_is_int(b) and b >= 0 for b in seat_bots)
    ):
        return bad("seat_bots", f"{players} bot indexes")
    sides = rec.get("sides")
    if (
        not isinstance(sides, list)
        or not sides
        or not all(isinstance(s, list) and s and all(_is_int(x) for x in s) for s in sides)
        or sorted(x for s in sides for x in s) != list(range(players))
    ):
        return bad("sides", f"the seats 0 to {players - 1} grouped in sides")
    n = len(sides)
    ranks = rec.get("ranks")
    top = max(2, 2 * (n - 1))  # ranks_of's best; bones 0.1 wrote 0, 1 or 2
    if ranks is not None and (
        not isinstance(ranks, list)
        or len(ranks) != n
        or not all(_is_int(r) and 0 <= r <= top for r in ranks)
    ):
        return bad("ranks", f"null or {n} ranks (0 to {top})")
    for key in ("winners", "losers"):
        value = rec.get(key)
        if not isinstance(value, list) or not all(_is_int(x) and 0 <= x < n for x in value):
            return bad(key, "a list of sides")
    scores = rec.get("scores")
    if scores is not None and (not isinstance(scores, list) or not all(_is_int(x) for x in scores)):
        return bad("scores", "null or a list of scores")
    rounds = rec.get("rounds", [])
    if not isinstance(rounds, list) or not all(
        isinstance(r, dict)
        and isinstance(r.get("round"), str)
        and (r.get("moves") is None or isinstance(r.get("moves"), str))
        and (r.get("result") is None or isinstance(r.get("result"), list))
        for r in rounds
    ):
        return bad("rounds", "a list of rounds ({round, moves, result})")
    forfeit = rec.get("forfeit")
    if forfeit is not None and (
        not isinstance(forfeit, dict)
        or not _is_int(forfeit.get("seat"))
        or not -1 <= forfeit["seat"] < players
        or not isinstance(forfeit.get("reason"), str)
        or not isinstance(forfeit.get("detail", ""), str)
        or not isinstance(forfeit.get("traceback", ""), str)
    ):
        return bad("forfeit", "null or {seat, reason, detail, traceback}")
    error = rec.get("error")
    if error is not None and not isinstance(error, str):
        return bad("error", "null or a message")
    if config is not None:
        bots = config.get("bots") or []
        if players != config.get("players") or rec["variant"] != config.get("variant"):
            return (
                f"game {rec['id']}: {rec['variant']} with {players} players, but the match "
                f"is {config.get('variant')} with {config.get('players')} players"
            )
        for seat, b in enumerate(seat_bots):
            if b >= len(bots) or bots[b] != seats[seat]:
                return (
                    f"game {rec['id']}: seat_bots[{seat}] is {b}, which is not the bot of "
                    f"seat {seat} ({_json(seats[seat])}) among the match's bots "
                    f"({', '.join(bots)})"
                )
    return None


# The four cases every reader tells apart (a missing file is open_journal's own message).


def not_a_journal(path: str) -> str:
    return (
        f"{path} is not a bones match journal (its first line is not a match header; "
        "bones match --journal writes one)"
    )


def empty_journal(path: str) -> str:
    return f"{path} is empty: not a match journal yet (a match writes its header line first)"


def no_games(path: str) -> str:
    return f"{path} is a match journal with no finished game yet"


def repair_hint(path: str) -> str:
    import shlex

    where = shlex.quote(path)
    return (
        f"'bones journal check {where}' lists every bad line and 'bones journal repair "
        f"{where}' sets them aside (docs/matches.md, Damaged journals)"
    )


def _why(exc: JournalError) -> str:
    """What is wrong with a line, from the reader's error: without the path, the line
    number and the hint."""
    text = str(exc)
    text = text.split("; 'bones journal check", 1)[0]
    return re.sub(r"^.*?: line \d+(: | is )", "", text, count=1)


def open_journal(path: str | os.PathLike[str]) -> JournalReader:
    """A journal opened for reading with its header: a missing file, an empty one and a
    file that is not a journal are each a :class:`JournalError` that says which."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise JournalError(f"{path}: no such file (no journal there)")
    reader = JournalReader(path)
    if reader.header is None:
        reader.close()
        raise JournalError(empty_journal(path))
    return reader


class JournalReader:
    """A journal read as a stream, line by line, never whole.

    Opening reads the header (``config``, ``header``); :meth:`games` then yields each
    game record once, in the order of the file, checked (:func:`check_game`): the first
    record of a game id counts and later ones are ignored with a warning.  A journal
    whose header (or a resume line) says ``"mac": "hmac-sha256"`` has every game record
    after it signed by its runner (:func:`sign_record`): a record without a MAC there, or
    with a wrong one anywhere, was not written by the runner and is ignored with a
    warning (``forged``); a record without a MAC before that line (a bones that did not
    sign) counts (``unsigned``).  ``resume``
    lines must be the same match as the header (they may change ``games``, ``timeout``
    and ``sprt``: ``config`` follows them).  A half-written last line is dropped with a
    warning; any other bad line is a :class:`JournalError`.  After :meth:`games`,
    ``good_bytes`` is the length up to the last complete line and ``warnings`` says what
    was dropped or ignored.  Nothing named in the file is imported or run.
    """

    def __init__(self, path: str | os.PathLike[str], handle: BinaryIO | None = None) -> None:
        self.path = os.fspath(path)
        try:
            self.f: BinaryIO | gzip.GzipFile
            if handle is not None:
                self.f = handle
            elif self.path.endswith(".gz"):  # a compressed copy (bench/strength.py --archive)
                self.f = gzip.open(self.path, "rb")
            else:
                self.f = open(self.path, "rb")
        except OSError as exc:
            raise JournalError(
                f"cannot read the journal {self.path}: {exc.strerror or exc}"
            ) from None
        self.header: dict[str, Any] | None = None
        self.config: dict[str, Any] | None = None
        self.warnings: list[str] = []
        self.good_bytes = 0
        self.duplicates = 0
        self.forged = 0
        self.unsigned = 0
        self.signed = False  # the records from here on must carry a MAC
        self.key: bytes | None = None
        self.line = 0
        #: The versions of bones and Python that wrote the header (``None``: not kept).
        self.versions: dict[str, Any] = {}
        #: The bots' identity (:mod:`bones.match.identity`): the header's, then that of
        #: each resume line that has one; ``None`` for a journal written before bones
        #: kept it.
        self.identity: list[dict[str, Any]] | None = None
        #: How the bots changed, as resume lines record it (``--allow-changed-bots``).
        self.changes: list[str] = []
        #: With a list (``bones journal check`` and ``repair``), :meth:`games` goes past
        #: a bad line and records it here as ``(line number, why)`` instead of failing;
        #: a record without a valid MAC and a cut-short last line are bad lines too.
        self.bad: list[tuple[int, str]] | None = None
        self._pending: bytes | None = None
        first = self._next_line()
        if first is None:
            return
        if not first.endswith(b"\n") and first.startswith(b'{"type":"match"'):
            self._parse(first)  # a header cut short by a kill: an empty journal, warned
            return
        try:
            obj = json.loads(first)
        except (ValueError, RecursionError):
            obj = None
        if not isinstance(obj, dict) or obj.get("type") != "match":
            raise JournalError(not_a_journal(self.path))
        if obj.get("version") != JOURNAL_VERSION:
            raise JournalError(
                f"{self.path}: journal version {_json(obj.get('version'))}; this bones reads "
                f"version {JOURNAL_VERSION}"
            )
        self.header = self._config(obj)
        self.config = self.header
        self.versions = {"bones": obj.get("bones"), "python": obj.get("python")}
        self.identity = self._identity(obj)
        self.key = record_key(self.header.get("secret"))
        self.signed = obj.get("mac") == MAC_KIND and self.key is not None
        self.good_bytes = len(first)

    def _fail(self, what: str) -> JournalError:
        return JournalError(f"{self.path}: line {self.line}: {what}")

    def _damaged(self, what: str) -> JournalError:
        """A bad line after the header: the error says how to go past it."""
        return JournalError(f"{self.path}: line {self.line}: {what}; {repair_hint(self.path)}")

    def _next_line(self) -> bytes | None:
        if self._pending is not None:
            line, self._pending = self._pending, None
        else:
            line = self._readline()
        if not line:
            return None
        self.line += 1
        return line

    def _readline(self) -> bytes:
        try:
            return self.f.readline()
        except (OSError, EOFError, zlib.error) as exc:  # EOFError, zlib.error: a cut .gz
            raise JournalError(f"cannot read the journal {self.path}: {exc}") from None

    def _rest_is_blank(self) -> bool:
        while True:
            line = self._readline()
            if not line:
                return True
            if line.strip():
                self._pending = line
                return False

    def _parse(self, line: bytes) -> dict[str, Any] | None:
        """The entry of a line; ``None`` for a cut-short last line (warned)."""
        try:
            if not line.endswith(b"\n"):
                raise ValueError("no newline at the end")
            obj = json.loads(line)
            if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                raise ValueError("not a journal entry")
        except (ValueError, RecursionError):
            if self._rest_is_blank():
                self.warnings.append(
                    f"{self.path}: line {self.line} is cut short (the match was killed while "
                    "writing it); it is dropped"
                )
                return None
            raise JournalError(
                f"{self.path}: line {self.line} is corrupt (not a JSON object); only the last "
                f"line of a journal may be cut short; {repair_hint(self.path)}"
            ) from None
        return obj

    def _parse_light(self, text: bytes, line: bytes) -> dict[str, Any] | None:
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            return self._parse(line)
        if not isinstance(obj, dict) or obj.get("type") != "game":
            return self._parse(line)
        obj.pop("rounds", None)
        return obj

    def _config(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        from .schedule import MatchConfig, MatchError

        config = obj.get("config")
        try:
            return MatchConfig.from_dict(config).to_dict()  # type: ignore[arg-type]
        except MatchError as exc:
            raise self._fail(str(exc)) from None

    def _identity(self, obj: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        """The ``bots`` of a header or resume line, checked: one object per bot."""
        bots = obj.get("bots")
        if bots is None:
            return None
        n = len((self.header or {}).get("bots") or ())
        if (
            not isinstance(bots, list)
            or len(bots) != n
            or not all(isinstance(b, dict) for b in bots)
        ):
            raise self._fail(
                f"field 'bots' must be the identity of each of the {n} bots (objects); "
                f"got {_json(bots)}"
            )
        return bots

    def _resume(self, obj: Mapping[str, Any]) -> None:
        """What a resume line adds: the bots' identity and how they changed."""
        identity = self._identity(obj)
        if identity is not None:
            self.identity = identity
        changed = obj.get("changed")
        if changed is not None:
            if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed):
                raise self._fail(f"field 'changed' must be a list of texts; got {_json(changed)}")
            self.changes.extend(changed)

    def games(self, rounds: bool = True) -> Iterator[dict[str, Any]]:
        """Each game record once (the first of its id), checked, in file order.  With
        ``rounds=False`` a record's ``rounds`` (nine tenths of its bytes) are cut out
        before the line is parsed, when the line is laid out as bones writes it: what the
        summary and ``--resume`` need, several times faster."""
        seen = IdSet()
        first_dup = first_forged = ""
        while True:
            line = self._next_line()
            if line is None:
                break
            text = line if rounds else _without_rounds(line)
            try:
                obj = self._parse(line) if text is line else self._parse_light(text, line)
            except JournalError as exc:
                if self.bad is None:
                    raise
                self.bad.append((self.line, _why(exc)))
                continue
            if obj is None:
                if self.bad is not None:
                    self.bad.append((self.line, "cut short (the match was killed writing it)"))
                break
            self.good_bytes += len(line)
            kind = obj["type"]
            if kind == "game":
                problem = check_game(obj, self.config)
                if problem is not None and self.bad is not None:
                    self.bad.append((self.line, problem))
                    continue
                if problem is not None:
                    raise self._damaged(problem)
                if self.key is not None:  # before the duplicates: a forgery shadows nothing
                    ok = _check_mac(text, self.key)
                    if ok is False or (ok is None and self.signed):
                        self.forged += 1
                        if self.bad is not None:
                            self.bad.append((self.line, "a game record without a valid MAC"))
                        if not first_forged:
                            first_forged = f"game {obj['id']} at line {self.line}"
                        continue
                    if ok is None:
                        self.unsigned += 1
                if not seen.add(obj["id"]):
                    self.duplicates += 1
                    if not first_dup:
                        first_dup = f"game {obj['id']} again at line {self.line}"
                    continue
                yield obj
            else:
                try:
                    self._other(obj)
                except JournalError as exc:
                    if self.bad is None:
                        raise
                    self.bad.append((self.line, _why(exc)))
        if self.forged:
            self.warnings.append(
                f"{self.path}: {self.forged} game record(s) without a valid MAC "
                f"({first_forged}): not written by this match's runner (each record it "
                "writes carries an HMAC with the match's secret); they are ignored"
            )
        if self.duplicates:
            self.warnings.append(
                f"{self.path}: {self.duplicates} game record(s) written twice ({first_dup}); "
                "the first record of a game counts, later ones are ignored"
            )

    def _other(self, obj: Mapping[str, Any]) -> None:
        """A line that is not a game record: a resume line, else a :class:`JournalError`."""
        kind = obj["type"]
        if kind == "match":
            raise self._damaged("a second header line; a journal holds one match")
        if kind != "resume":
            raise self._damaged(f"unknown entry type {_json(kind)}")
        try:
            config = self._config(obj)
        except JournalError as exc:
            raise self._damaged(_why(exc)) from None
        assert self.header is not None
        for key in _IDENTITY:
            if config.get(key) != self.header.get(key):
                raise self._damaged(
                    f"a resume line for another match: {key} {_json(config.get(key))}, "
                    f"not {_json(self.header.get(key))} as in the header"
                )
        if config.get("secret") != self.header.get("secret"):
            raise self._damaged("a resume line with another secret than the header's")
        self.config = config
        self._resume(obj)
        if obj.get("mac") == MAC_KIND and self.key is not None:
            self.signed = True  # never turned off again: a line cannot unsign

    def final_config(self) -> dict[str, Any] | None:
        """The config after every resume line, read quickly: game lines are skipped
        without being parsed (:meth:`games` checks them)."""
        while True:
            line = self._next_line()
            if line is None:
                return self.config
            if line.startswith(b'{"type":"game"'):
                continue
            obj = self._parse(line)
            if obj is None:
                return self.config
            if obj["type"] == "resume":
                config = self._config(obj)
                if all(config.get(k) == (self.header or {}).get(k) for k in _IDENTITY):
                    self.config = config
                    self._resume(obj)

    def close(self) -> None:
        self.f.close()


def without_moves(data: bytes) -> bytes:
    """A journal's complete lines with every game's ``rounds`` emptied: still a journal
    of the same match, which the summary and ``--resume`` read as the same games, at about
    a quarter of the size (``bones show`` has no moves left to replay).  A line cut short
    at the end is left out; a game line not laid out as bones writes it is kept whole."""
    lines = data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]
    return b"".join(_without_rounds(line + b"\n") for line in lines)


def _without_rounds(line: bytes) -> bytes:
    """A game line without the contents of its ``rounds``, or the line itself if it is
    not laid out as :func:`encode_record` writes records (base64 and move texts hold no
    quote, so ``],"scores":`` after ``"rounds":[`` is where the list ends)."""
    if not line.startswith(b'{"type":"game"') or not line.endswith(b"\n"):
        return line
    start = line.find(b',"rounds":[')
    if start < 0:
        return line
    end = line.find(b'],"scores":', start)
    if end < 0:
        return line
    return line[: start + 11] + line[end:]


_IDENTITY = ("bots", "variant", "players", "options", "format", "seed", "duplicate", "plugins")


class IdSet:
    """A set of game ids (ints >= 0) as a bitmap: one bit per id, so that the ids of a
    150,000-game match take 19 KB, not a set of 150,000 ints.  Ids past 2**24 (which no
    real match reaches) go to an ordinary set."""

    BITMAP_IDS = 1 << 24

    def __init__(self) -> None:
        self.bits = bytearray()
        self.big: set[int] = set()
        self.count = 0

    def __contains__(self, gid: object) -> bool:
        if not isinstance(gid, int) or gid < 0:
            return False
        if gid >= self.BITMAP_IDS:
            return gid in self.big
        byte = gid >> 3
        return byte < len(self.bits) and bool(self.bits[byte] >> (gid & 7) & 1)

    def add(self, gid: int) -> bool:
        """Add ``gid``; ``False`` if it was already there."""
        if gid >= self.BITMAP_IDS:
            if gid in self.big:
                return False
            self.big.add(gid)
        else:
            byte = gid >> 3
            if byte >= len(self.bits):
                self.bits.extend(bytes(max(byte + 1 - len(self.bits), len(self.bits))))
            mask = 1 << (gid & 7)
            if self.bits[byte] & mask:
                return False
            self.bits[byte] |= mask
        self.count += 1
        return True

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[int]:
        for byte, value in enumerate(self.bits):
            if value:
                for bit in range(8):
                    if value >> bit & 1:
                        yield byte * 8 + bit
        yield from sorted(self.big)


@dataclass
class JournalData:
    """A journal as read: ``config`` (the header's, updated by each resume line; ``None``
    for an empty file), the game ``records`` sorted by id (the first of any duplicate id
    wins), ``warnings`` and ``good_bytes`` (the length up to the last complete line).
    Holds every record: for big journals use :class:`JournalReader`."""

    config: dict[str, Any] | None
    records: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    good_bytes: int = 0


def read_journal(path: str | os.PathLike[str]) -> JournalData:
    """Read a whole journal; a half-written last line is dropped with a warning, any
    other bad line is a :class:`JournalError`."""
    reader = JournalReader(path)
    try:
        records = list(reader.games())
    finally:
        reader.close()
    records.sort(key=lambda r: r["id"])
    return JournalData(reader.config, records, reader.warnings, reader.good_bytes)


_RECORD_LIMIT = 256 << 20


def load_record(path: str | os.PathLike[str], game: int | None = None) -> dict[str, Any]:
    """A game record: from a journal (``game``: its id; may be omitted when the journal
    holds one game) or from a file holding one record (as ``bones show --json`` prints).
    The journal is streamed until the game is found; the record is checked
    (:func:`check_game`)."""
    path = os.fspath(path)
    whole: Any = None
    try:
        with open(path, "rb") as f:
            first = f.readline()
            try:
                head = json.loads(first)
            except (ValueError, RecursionError):
                head = None
            if not (isinstance(head, dict) and head.get("type") == "match"):
                f.seek(0)
                text = f.read(_RECORD_LIMIT + 1)  # a record file: one JSON object
                if len(text) <= _RECORD_LIMIT:
                    with contextlib.suppress(ValueError, RecursionError):
                        whole = json.loads(text)
    except FileNotFoundError:
        raise JournalError(f"{path}: no such file (no journal or game record there)") from None
    except OSError as exc:
        raise JournalError(f"cannot read {path}: {exc.strerror or exc}") from None
    if isinstance(whole, dict) and whole.get("type") == "game":
        problem = check_game(whole)
        if problem is not None:
            raise JournalError(f"{path}: {problem}")
        if game is not None and whole.get("id") != game:
            raise JournalError(f"{path} holds game {whole.get('id')}, not game {game}")
        return whole
    reader = JournalReader(path)
    if reader.header is None:
        reader.close()
        raise JournalError(empty_journal(path))
    ids = IdSet()
    found = None
    try:
        for rec in reader.games():
            ids.add(rec["id"])
            if game is not None and rec["id"] == game:
                found = rec
                break
            if game is None:
                found = rec if found is None else found
    finally:
        reader.close()
    if found is not None and (game is not None or len(ids) == 1):
        return found
    if not ids:
        raise JournalError(no_games(path))
    if game is None:
        raise JournalError(
            f"{path} holds {len(ids)} games (ids {_ranges(list(ids))}); choose one with --game N"
        )
    raise JournalError(f"{path} has no game {game}; its games: {_ranges(list(ids))}")


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
    if len(parts) > 20:
        parts = parts[:10] + ["..."] + parts[-5:]
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------
# Writing


class Journal:
    """An open, locked journal: :meth:`append` writes one record as a line and flushes it.

    :meth:`acquire` opens the file (creating it with mode 0600: only its owner may read
    the match's secret and the deals, and an existing journal is made so too) and takes
    an exclusive lock (``flock``), held until :meth:`close`: a second runner on the same
    journal is refused at once.  :meth:`start` then cuts the file to what is kept and writes the
    header (a new match) or a resume line."""

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self.fd = fd
        self.size = os.fstat(fd).st_size
        self.warnings: list[str] = []

    @classmethod
    def acquire(cls, path: str | os.PathLike[str]) -> Journal:
        path = os.fspath(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, PRIVATE)
        except OSError as exc:
            raise JournalError(f"cannot write the journal {path}: {exc.strerror or exc}") from None
        _private(fd)  # an older journal, made 0644, holds a secret too
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            return cls(path, fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise JournalError(
                f"the journal {path} is in use by another bones match (it is locked); wait "
                "for it to finish, or choose another --journal"
            ) from None
        return cls(path, fd)

    def reader(self) -> BinaryIO:
        """A new handle to read the journal from its start (the lock stays held)."""
        try:
            return open(self.path, "rb")
        except OSError as exc:
            raise JournalError(
                f"cannot read the journal {self.path}: {exc.strerror or exc}"
            ) from None

    def start(
        self,
        config: Mapping[str, Any],
        *,
        resume: bool,
        keep: int = 0,
        bots: Sequence[Mapping[str, Any]] | None = None,
        changed: Sequence[str] = (),
    ) -> None:
        """Cut the file to its first ``keep`` bytes and write the header (``resume``
        false) or a resume line, with the versions of bones and Python, the identity of
        each bot (``bots``, :mod:`bones.match.identity`) and, on a resume line, how the
        bots changed since the journal's last identity (``changed``: a rerun with
        ``--allow-changed-bots``)."""
        import platform

        from .. import __version__

        self.cut(keep if resume else 0)
        kind = "resume" if resume else "match"
        entry: dict[str, Any] = {
            "type": kind,
            "version": JOURNAL_VERSION,
            "bones": __version__,
            "python": platform.python_version(),
        }
        if bots is not None:
            entry["bots"] = [dict(b) for b in bots]
        if changed:
            entry["changed"] = list(changed)
        entry["config"] = config
        if config.get("secret") is not None:  # the records that follow are signed
            entry["mac"] = MAC_KIND
        self._write(entry)

    def cut(self, keep: int) -> None:
        """Cut the file to its first ``keep`` bytes (a line cut short by a kill goes)."""
        os.ftruncate(self.fd, keep)

    def fds(self) -> list[int]:
        return [self.fd]

    def _write(self, obj: Mapping[str, Any]) -> None:
        self.append_lines([encode_record(obj)])

    def append_lines(self, lines: Sequence[str]) -> None:
        """Append records already encoded by :func:`encode_record`, in one write (a
        worker's batch as it arrives)."""
        data = "".join([line + "\n" for line in lines]).encode("utf-8")
        while data:
            written = os.write(self.fd, data)
            data = data[written:]

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # releases the lock
            self.fd = -1


# ---------------------------------------------------------------------------------------
# Replaying a record: bones show


def _fail(record: Mapping[str, Any], what: str) -> ReplayError:
    return ReplayError(f"game {record.get('id', '?')} does not replay: {what}")


def show(record: Mapping[str, Any], out: TextIO) -> None:
    """Replay ``record`` with the engine and print it move by move: each move with its
    seat and the events it caused, ``str(round)`` at the end of each round, the scores.

    The game is dealt again from its seed; each recorded round must be that deal, its
    moves must be legal and lead to the recorded round and result, else
    :class:`JournalError` ("does not replay").
    """
    from ..api import Round
    from ..game import new_game
    from ..registry import family_of

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
    face = family_of(variant).part("terminal")  # how its events and table are written

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
    error = record.get("error")
    if error:
        print(f"\nThe game is void (it counts for nobody): {error}", file=out)
        return
    if not rounds and forfeit:
        print("  (no moves recorded)", file=out)
    elif not rounds:
        print("  (its moves are not in this journal: a copy without them, as made by", file=out)
        print("  bones.match.journal.without_moves)", file=out)
        _print_result(record, sides, seats, out)
        return
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
            hand = " ".join(str(t) for t in rnd.dealt_hand(seat))
            print(f"  hand {who(seat)}: {hand}", file=out)
        if rnd.dealt_stock:
            print(f"  stock: {' '.join(str(t) for t in rnd.dealt_stock)}", file=out)
        seen = 0
        events = rnd.events
        for event in events:
            print(f"      {who(event.seat)} {face.event_text(event)}", file=out)
        seen = len(events)
        for number, move in enumerate(moves, 1):
            if rnd.to_move is None:
                raise _fail(record, f"round {index + 1} move {number} ({move}): the round is over")
            seat = rnd.to_move
            try:
                rnd.play(move)
            except ValueError as exc:
                raise _fail(record, f"round {index + 1} move {number} ({move}): {exc}") from None
            events = rnd.events
            new = events[seen:]
            seen = len(events)
            head = f"  {number:3}. {who(seat)} "
            print(head + (face.event_text(new[0]) if new else str(move)), file=out)
            for event in new[1:]:
                print(f"       {who(event.seat)} {face.event_text(event)}", file=out)
        print(file=out)
        board = face.round_text(rnd, [who(s) for s in range(players)])
        for line in board.splitlines():
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
    _print_result(record, sides, seats, out)


def _print_result(
    record: Mapping[str, Any], sides: list[list[int]], seats: list[str], out: TextIO
) -> None:
    winners = record.get("winners") or []
    final = record.get("scores")
    print(f"\nFinal scores: {'-'.join(map(str, final)) if final else '-'}", file=out)
    if winners and len(winners) < len(sides):
        names = "; ".join(f"side {s} ({', '.join(seats[x] for x in sides[s])})" for s in winners)
        print(f"Won by {names}", file=out)
    else:
        print("A draw", file=out)
