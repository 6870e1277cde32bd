"""A one-line progress bar with the rate and the time left, drawn on stderr.

Quiet unless the stream is a terminal (or it is forced on); redrawn at most ten times a
second, so it costs nothing however fast games finish.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "format_duration"]


def format_duration(seconds: float) -> str:
    """``3725`` -> ``"1:02:05"``, ``65`` -> ``"1:05"``."""
    if seconds != seconds or seconds == float("inf"):
        return "?"
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """``update(done, note)`` after each finished game; ``close()`` at the end.

    ``enabled``: ``None`` draws only when ``stream`` is a terminal.  The rate counts the
    games finished in this run (a resumed match starts from the games already done).
    """

    def __init__(
        self,
        total: int | None,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        width: int = 24,
        interval: float = 0.1,
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.width = width
        self.interval = interval
        self.start = time.monotonic()
        self.first: int | None = None
        self.last_draw = 0.0
        self.shown = False
        self.done = 0
        self.note = ""

    def line(self, now: float | None = None) -> str:
        """The text of the bar: ``[#####-----] 512/1000  51.2%  83.1 games/s  ETA 0:06``;
        without a total (an SPRT that plays until it decides): ``512 games  83.1
        games/s``."""
        now = time.monotonic() if now is None else now
        done, total = self.done, self.total
        if total is None:
            elapsed = now - self.start
            rate = (done - (self.first or 0)) / elapsed if elapsed > 0 else 0.0
            text = f"{done} games  {rate:,.1f} games/s"
            return f"{text}  {self.note}" if self.note else text
        frac = done / total if total else 1.0
        filled = int(self.width * frac)
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = now - self.start
        fresh = done - (self.first or 0)
        rate = fresh / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else float("inf")
        text = (
            f"[{bar}] {done}/{total} {100 * frac:5.1f}%  {rate:,.1f} games/s  "
            f"ETA {format_duration(eta)}"
        )
        if self.note:
            text += f"  {self.note}"
        return text

    def update(self, done: int, note: str = "") -> None:
        if self.first is None:
            self.first = done
            self.start = time.monotonic()
        self.done = done
        self.note = note
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last_draw < self.interval and (self.total is None or done < self.total):
            return
        self.last_draw = now
        self.stream.write("\r\x1b[2K" + self.line(now))
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[2K" + self.line() + "\n")
            self.stream.flush()
