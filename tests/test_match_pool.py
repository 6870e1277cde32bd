"""The runner never leaves a process pool with a task pending (issue 25): such a pool
makes the interpreter's exit wait for the task for ever (a green suite once hung at exit).

The path found: a worker killed (a Ctrl-C, an SPRT decision or an error with games in
flight: ``Pool.shutdown(kill=True)``) while it was sending its result, a batch's records
that are often more than a pipe holds, left part of a message in the result pipe; the
pool's manager thread waited for the rest for ever, as the runner held a write end of
that pipe too, with the killed tasks still pending.  Now the runner's write end is
closed after the kill, and the manager thread fails the pending futures and ends.

This module is also a bones plugin (``plugins=("test_match_pool",)``): its bot
``t-halfsend`` writes half of a result message into its worker's result pipe and hangs.
"""

from __future__ import annotations

import _thread
import concurrent.futures as cf
import concurrent.futures.process as cfp
import os
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bones.bot import Bot, BotSpec
from bones.match import MatchConfig, executors, run_match
from bones.match.executors import Pool
from bones.plugins import hookimpl

PLUGIN = ("test_match_pool",)
SECRET = "3c" * 32
MARK = "BONES_TEST_HALFSEND"  # the file t-halfsend creates once it has written


def _result_queue() -> object:
    """The result queue of the pool worker this runs in (a local of its main loop)."""
    frame = sys._getframe()
    while frame is not None and frame.f_code.co_name != "_process_worker":
        frame = frame.f_back
    assert frame is not None, "not in a worker of a ProcessPoolExecutor"
    return frame.f_locals["result_queue"]


def half_sent(die: bool = False) -> None:
    """What a worker killed in the middle of sending its result leaves: the length of a
    1000-byte message and 10 bytes of it.  Then it hangs (until it is killed), or with
    ``die`` it is killed at once (SIGKILL)."""
    queue: object = _result_queue()
    os.write(queue._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)  # type: ignore[attr-defined]
    mark = os.environ.get(MARK)
    if mark:
        Path(mark).write_text("sent")
    if die:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(600)


class HalfSendBot(Bot):
    """On its first move, does :func:`half_sent` in its worker."""

    name = "t-halfsend"

    def choose(self, observation, legal_moves):
        half_sent()
        return legal_moves[0]


class HalfDieBot(Bot):
    """On its first move, does :func:`half_sent` in its worker and is killed there."""

    name = "t-halfdie"

    def choose(self, observation, legal_moves):
        half_sent(die=True)
        return legal_moves[0]


@hookimpl
def register_bots(register):
    register(BotSpec("t-halfsend", HalfSendBot, "writes half a result, then hangs"))
    register(BotSpec("t-halfdie", HalfDieBot, "writes half a result, then is killed"))


def _pools_pending() -> list[object]:
    """The managers of the process pools of this process that are alive with tasks."""
    return [
        thread
        for thread in list(getattr(cfp, "_threads_wakeups", {}))
        if thread.is_alive() and getattr(thread, "pending_work_items", None)
    ]


@pytest.fixture
def quick_join(monkeypatch):
    """Pool.shutdown waits 5 s (not 30) for a manager thread: without the fix a test fails
    in seconds.  Afterwards a manager left behind is ended (as the fix would), so that a
    failure here does not hang the suite's exit."""
    monkeypatch.setattr(executors, "_MANAGER_JOIN", 5.0)
    yield
    for thread in _pools_pending():
        for proc in list(getattr(thread, "processes", {}).values()):
            proc.kill()
        queue = getattr(thread, "result_queue", None)
        if queue is not None:
            queue._writer.close()
        thread.join(timeout=10)


def _wait(condition, what: str, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {limit:g}s: {what}")
        time.sleep(0.02)


def test_a_killed_pool_ends_even_with_a_result_half_sent(tmp_path, quick_join, monkeypatch):
    mark = tmp_path / "sent"
    monkeypatch.setenv(MARK, str(mark))
    pool = Pool(2, ())
    # one task at a time: once half a message is in, the manager thread queues no more
    other = pool.executor.submit(time.sleep, 600)
    _wait(other.running, "the first task to start")
    stuck = pool.executor.submit(half_sent)
    _wait(mark.exists, "half a result to be written")
    time.sleep(0.3)  # the manager thread is now reading the half-sent message
    manager = pool.executor._executor_manager_thread
    workers = list(pool.executor._processes.values())
    start = time.monotonic()
    pool.shutdown(kill=True)
    assert time.monotonic() - start < 4.0
    assert not manager.is_alive()
    assert not _pools_pending()
    for fut in (stuck, other):  # failed, not left pending
        assert fut.done()
        assert isinstance(fut.exception(), cfp.BrokenProcessPool)
    for proc in workers:
        proc.join(timeout=10)
        assert proc.exitcode is not None


def test_ctrl_c_with_a_result_half_sent_leaves_no_pool_behind(
    tmp_path, quick_join, monkeypatch, request
):
    """The whole path: a match whose worker is stuck with half a result in the pipe (the
    runner waits for it), a Ctrl-C: run_match returns, interrupted, at once, and no pool
    is left with a task pending."""
    mark = tmp_path / "sent"
    monkeypatch.setenv(MARK, str(mark))
    config = MatchConfig(
        bots=("t-halfsend", "random"), games=4, timeout=None, plugins=PLUGIN, seed=1, secret=SECRET
    )
    # A test run started in the background (`pytest &` in a script) inherits SIGINT
    # ignored, and then interrupt_main does nothing: the match would wait for ever.
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, saved))
    main = threading.main_thread()
    assert threading.current_thread() is main

    def interrupt() -> None:
        deadline = time.monotonic() + 60
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        _thread.interrupt_main()  # the user's Ctrl-C

    helper = threading.Thread(target=interrupt, daemon=True)
    helper.start()
    start = time.monotonic()
    summary = run_match(config, tmp_path / "m.jsonl", jobs=2, progress=False)
    helper.join()
    assert mark.exists()
    assert summary.get("interrupted") is True
    assert time.monotonic() - start < 30
    assert not _pools_pending()


class _Keeping(cf.ThreadPoolExecutor):
    """An executor the runner did not make (as a Dask cluster's), keeping its futures."""

    def __init__(self, pause: float = 0.0) -> None:
        super().__init__(1)
        self.futures: list[cf.Future] = []
        self.pause = pause

    def submit(self, fn, /, *args, **kwargs):
        if self.pause:
            # A task holds the one thread a while after its games, so that the tasks
            # queued behind it are still waiting when the runner reads its result (a
            # scheduler that ran them all first would leave nothing to withdraw).
            work = fn

            def fn(*args, **kwargs):  # noqa: F811
                result = work(*args, **kwargs)
                time.sleep(self.pause)
                return result

        fut = super().submit(fn, *args, **kwargs)
        self.futures.append(fut)
        return fut


def test_an_sprt_decision_withdraws_the_tasks_not_started_from_an_outside_executor(tmp_path):
    from bones.match.stats import SPRT

    config = MatchConfig(
        bots=("greedy", "random"), games=400, sprt=SPRT(0, 10, 0.05, 0.05), seed=1, secret=SECRET
    )
    other = _Keeping(pause=0.1)
    try:
        summary = run_match(config, tmp_path / "s.jsonl", jobs=4, executor=other, progress=False)
        assert summary["sprt"]["decision"] == "H1" and summary["counted"] < 400
        # the batches in flight at the decision that the executor had not started
        assert any(f.cancelled() for f in other.futures)
        assert all(f.cancelled() or f.running() or f.done() for f in other.futures)
    finally:
        other.shutdown(wait=True, cancel_futures=True)


def test_an_error_with_games_in_flight_kills_the_pool(tmp_path, monkeypatch, quick_join):
    """An error in the runner (here: the journal cannot be written) while games are in
    flight: it is raised, and every worker of the pool is gone, no task left pending."""
    from bones.match import runner

    seen: list[Pool] = []
    made = runner.Pool

    class Recording(made):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            seen.append(self)

    def broken(self, records):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner, "Pool", Recording)
    monkeypatch.setattr(runner._State, "record_all", broken)
    config = MatchConfig(bots=("greedy", "random"), games=40, seed=1, secret=SECRET)
    with pytest.raises(OSError, match="No space"):
        run_match(config, tmp_path / "e.jsonl", jobs=2, progress=False)
    assert seen
    for pool in seen:
        assert pool.executor._executor_manager_thread is None  # shut down
    assert not _pools_pending()


def test_a_worker_that_dies_sending_its_result_does_not_stall_the_match(tmp_path):
    """A worker killed from outside while it sends its result (the out-of-memory killer,
    say) leaves the pool stuck: its manager thread waits for the rest of the message, the
    other workers for the lock of the pipe the dead one held, and no future ever ends.
    The runner finds the dead worker (Pool.stalled), kills the pool and plays its games
    again; the game that kills its worker again, alone, is the forfeit of the bot whose
    hook ran.  (Before, the match waited for ever: run in a process with a time limit.)"""
    journal = tmp_path / "d.jsonl"
    tests = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": tests + os.pathsep + os.environ.get("PYTHONPATH", "")}
    args = [sys.executable, "-m", "bones", "match", "t-halfdie", "random", "--plugin"]
    args += ["test_match_pool", "--games", "2", "--jobs", "2", "--journal", str(journal)]
    args += ["--seed", "1"]
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the match stalled: a worker died sending its result")
    assert proc.returncode == 0, err
    from bones.match import read_journal

    records = read_journal(journal).records
    assert len(records) == 2
    for rec in records:
        forfeit = rec["forfeit"]
        assert forfeit["reason"] == "crash" and forfeit["seat"] == rec["seats"].index("t-halfdie")
        assert "the worker process died" in forfeit["detail"] and "choose" in forfeit["detail"]
    assert "Forfeits: t-halfdie: crash 2" in out


def test_an_sprt_decision_with_games_in_flight_leaves_no_pool(tmp_path, monkeypatch):
    """The runner's own pool at an SPRT decision with batches in flight: killed, and its
    manager thread ended (no task pending)."""
    from bones.match import runner
    from bones.match.stats import SPRT

    seen: list[Pool] = []
    made = runner.Pool

    class Recording(made):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.manager = None
            seen.append(self)

        def shutdown(self, kill=False):
            self.manager = self.executor._executor_manager_thread
            self.killed = kill
            super().shutdown(kill)

    monkeypatch.setattr(runner, "Pool", Recording)
    config = MatchConfig(
        bots=("greedy", "random"), games=400, sprt=SPRT(0, 10, 0.05, 0.05), seed=1, secret=SECRET
    )
    summary = run_match(config, tmp_path / "s.jsonl", jobs=2, progress=False)
    assert summary["sprt"]["decision"] == "H1" and summary["counted"] < 400
    assert len(seen) == 1  # (killed: with batches in flight at the decision, as a rule)
    assert seen[0].manager is not None and not seen[0].manager.is_alive()
    assert not _pools_pending()
