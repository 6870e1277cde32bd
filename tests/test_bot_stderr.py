"""A bot's stderr log is complete at the end of its game, however late the thread that
drains the pipe runs (``_Stderr.settle``)."""

from __future__ import annotations

import os
import threading
import time

from bones.protocol.client import _Stderr


def test_settle_waits_for_what_was_written_and_not_for_what_follows(tmp_path):
    r, w = os.pipe()
    log = tmp_path / "bot.log"
    err = _Stderr(r, 1 << 16, str(log), 1 << 16)
    try:
        err.lock.acquire()  # the draining thread is late: it cannot add what it read
        os.write(w, b"a line the bot wrote before answering\n")
        threading.Timer(0.3, err.lock.release).start()
        started = time.monotonic()
        err.settle()
        assert log.read_bytes() == b"a line the bot wrote before answering\n"
        assert 0.2 < time.monotonic() - started < 4.0
        # a bot that keeps writing: settle returns once what was there is in
        os.write(w, b"more\n")
        err.settle()
        assert log.read_bytes().endswith(b"more\n")
    finally:
        os.close(w)
        err.join(5.0)


def test_settle_after_the_pipe_closed_returns_at_once(tmp_path):
    r, w = os.pipe()
    err = _Stderr(r, 1 << 16, str(tmp_path / "bot.log"), 1 << 16)
    os.write(w, b"last words\n")
    os.close(w)
    err.join(5.0)
    started = time.monotonic()
    err.settle()
    assert time.monotonic() - started < 1.0
    assert err.text() == "last words\n"
