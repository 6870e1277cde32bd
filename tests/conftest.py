"""Shared test fixtures (keep this file small)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def fresh_registry():
    """The variant registry, rebuilt from scratch before and after the test."""
    from bones import registry

    registry.reset()
    yield registry
    registry.reset()


def pytest_unconfigure(config):
    """End every process pool a test left with a task pending: the interpreter's exit
    joins each pool's manager thread, which waits for that task for ever (a suite that
    passed and then hung at exit was seen once).  Such a pool is reported on stderr, so
    that it is found, not hidden."""
    import concurrent.futures.process as cfp
    import signal
    import sys

    for thread in list(getattr(cfp, "_threads_wakeups", {})):
        processes = getattr(thread, "processes", None) or {}
        pending = getattr(thread, "pending_work_items", None) or {}
        if not thread.is_alive() or not pending:
            continue
        print(
            f"conftest: a process pool was left with {len(pending)} task(s) pending; "
            f"killing its workers {sorted(processes)}",
            file=sys.stderr,
        )
        for pid in list(processes):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        thread.join(timeout=30)
