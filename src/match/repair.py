"""``bones journal check`` and ``bones journal repair``: a damaged journal made usable.

A journal is written a line at a time and flushed, so a kill can only cut its last line
short, which every reader drops.  A line damaged otherwise (a disk error, an edit, a copy
gone wrong) stops the summary and ``--resume``: they cannot tell what else is wrong.
:func:`check` names every bad line (a line that is not JSON, a record whose fields are
wrong, a record without a valid MAC, a resume line of another match, a cut-short last
line); :func:`repair` rewrites the journal without them, every other line kept byte for
byte (so each signed record keeps its MAC), and appends the bad lines to a *side file*,
``JOURNAL.bad``, one JSON object a line::

    {"type": "set-aside", "line": 6, "why": "corrupt (not a JSON object) ...", "text": "..."}

(``line``: its number in the journal as it was; ``text``: the line, its bytes that are
not UTF-8 as surrogate escapes).  Nothing is lost: the journal and its side file hold
every line.  ``--resume`` then plays the games of the lines set aside again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .journal import Journal, JournalError, open_journal, write_private

__all__ = ["Check", "check", "read_side_file", "repair", "side_file"]

#: The ``type`` of each line of a side file.
SET_ASIDE = "set-aside"


def side_file(path: str) -> str:
    """Where :func:`repair` sets aside the bad lines of the journal at ``path``."""
    return path + ".bad"


@dataclass
class Check:
    """What :func:`check` found: ``bad`` lines as ``(number, why)``, the ``lines`` of the
    file, the ``games`` that count and what the side file already holds (``set_aside``
    lines, from earlier repairs)."""

    path: str
    bad: list[tuple[int, str]] = field(default_factory=list)
    lines: int = 0
    games: int = 0
    set_aside: int = 0
    warnings: list[str] = field(default_factory=list)


def check(path: str | os.PathLike[str]) -> Check:
    """Every bad line of the journal at ``path`` (a :class:`JournalError` for a file that
    is not a journal at all: a missing or empty file, a first line that is no header)."""
    path = os.fspath(path)
    if path.endswith(".gz"):
        raise JournalError(f"{path}: a compressed copy; check the journal it was made from")
    reader = open_journal(path)
    reader.bad = []
    try:
        games = sum(1 for _ in reader.games())
    finally:
        reader.close()
    found = Check(path, list(reader.bad), reader.line, games)
    found.warnings = [w for w in reader.warnings if "cut short" not in w and "MAC" not in w]
    side = side_file(path)
    if os.path.exists(side):
        found.set_aside = sum(1 for _ in read_side_file(side))
    return found


def read_side_file(path: str) -> Iterator[dict[str, Any]]:
    """The entries of a side file, checked: each line one object as :func:`repair`
    writes it, else a :class:`JournalError` that names the line (the file is never
    trusted: it holds what was wrong)."""
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise JournalError(f"cannot read {path}: {exc.strerror or exc}") from None
    with f:
        for number, raw in enumerate(f, 1):
            try:
                entry = json.loads(raw)
            except (ValueError, RecursionError):
                entry = None
            if (
                not isinstance(entry, dict)
                or entry.get("type") != SET_ASIDE
                or type(entry.get("line")) is not int
                or entry["line"] < 1
                or not isinstance(entry.get("why"), str)
                or not isinstance(entry.get("text"), str)
            ):
                raise JournalError(
                    f"{path}: line {number} is not a line set aside by 'bones journal "
                    'repair\' (each is {"type": "set-aside", "line", "why", "text"}); '
                    "move the file away to repair the journal again"
                )
            yield entry


def repair(path: str | os.PathLike[str]) -> Check:
    """Rewrite the journal at ``path`` without its bad lines (:func:`check`), every other
    line kept as it was, and append those lines to :func:`side_file`; the journal is
    replaced at once (a new file renamed over it) and locked meanwhile, so a running
    match is refused.  What :func:`check` found is returned (nothing changes when no line
    is bad)."""
    path = os.fspath(path)
    open_journal(path).close()  # a missing file is not made by the lock below
    jnl = Journal.acquire(path)  # no match may be writing it meanwhile
    try:
        found = check(path)
        if not found.bad:
            return found
        numbers = {n: why for n, why in found.bad}
        kept: list[bytes] = []
        aside: list[bytes] = []
        with open(path, "rb") as f:
            for number, raw in enumerate(f, 1):
                if number not in numbers:
                    if raw.strip():  # blank lines after a cut-short last one go
                        kept.append(raw)
                    continue
                text = raw.rstrip(b"\n").decode("utf-8", "surrogateescape")
                entry = {"type": SET_ASIDE, "line": number, "why": numbers[number], "text": text}
                aside.append((json.dumps(entry) + "\n").encode("utf-8", "surrogateescape"))
        side = side_file(path)
        before = b""
        if os.path.exists(side):  # an earlier repair's: checked, then added to
            for _ in read_side_file(side):
                pass
            with open(side, "rb") as f:
                before = f.read()
        write_private(side, before + b"".join(aside))
        new = f"{path}.repairing"
        write_private(new, b"".join(kept))
        os.replace(new, path)
        return found
    finally:
        jnl.close()
