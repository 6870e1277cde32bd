"""Shared test fixtures (keep this file small)."""

from __future__ import annotations

import os

import pytest

# The plugins installed in the environment that runs the tests (a user's own, through the
# ``bones`` entry points) must not change what bones' own tests find: none is loaded,
# here and in every process a test starts.  The tests that load a plugin through an entry
# point on purpose take the ``plugin_autoload`` fixture (docs/testing.md).
os.environ["BONES_DISABLE_PLUGIN_AUTOLOAD"] = "1"


@pytest.fixture
def fresh_registry():
    """The variant registry, rebuilt from scratch before and after the test."""
    from bones import registry

    registry.reset()
    yield registry
    registry.reset()


@pytest.fixture
def plugin_autoload(monkeypatch, tmp_path):
    """The entry points are loaded again, but only those of the distributions the test
    writes under its ``tmp_path``: the plugins installed in the environment stay unseen
    (the plugin manager and pluggy both find entry points through
    ``importlib.metadata.distributions``)."""
    import importlib.metadata
    from pathlib import Path

    every = importlib.metadata.distributions

    def the_tests_own(**kwargs):
        for dist in every(**kwargs):
            if Path(str(dist.locate_file(""))).resolve().is_relative_to(tmp_path.resolve()):
                yield dist

    monkeypatch.delenv("BONES_DISABLE_PLUGIN_AUTOLOAD")
    monkeypatch.setattr(importlib.metadata, "distributions", the_tests_own)


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
