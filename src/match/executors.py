"""The executors that run the tasks: the process pool, whose workers die with the
runner, report in shared memory which game, seat and hook they are busy with (the
runner's watchdog reads it) and send bots' output to stderr; and a Dask cluster."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import multiprocessing.connection as mpc
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from .driver import SLOT, enter_worker, play_games
from .schedule import MatchConfig, MatchError, Plan, bot_command, load_plugins

# ---------------------------------------------------------------------------------------
# The process pool with its watchdog


def _die_with_parent(parent: int) -> None:
    """A worker must not outlive the runner (killed with SIGKILL, it cannot stop its
    pool): on Linux the kernel kills the worker when the runner dies (PR_SET_PDEATHSIG);
    elsewhere a thread checks the parent twice a second."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the runner died before this worker was ready
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="bones-parent-watch", daemon=True).start()


#: File descriptors a worker must not keep (the journal and its lock): closed at start.
PARENT_FDS: list[int] = []
_SAVED_STDOUT: list[Any] = []


def pin_to_cpu(index: int) -> int | None:
    """Pin this process, and the children it starts from now on, to the ``index``-th CPU
    it may run on (round robin); that CPU, or None where affinity cannot be set.

    A game with bots behind the protocol is a chain of short turns: the driver writes a
    request, one bot answers, the driver goes on.  Spread over CPUs every turn wakes a
    sleeping one (tens of microseconds here); on one CPU it is a switch between processes
    (a few), and only one of them runs at a time."""
    getaffinity = getattr(os, "sched_getaffinity", None)
    if getaffinity is None:  # pragma: no cover - macOS, Windows
        return None
    cpus = sorted(getaffinity(0))
    cpu = cpus[index % len(cpus)]
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:  # pragma: no cover - a container that forbids it
        return None
    return cpu


def pin_wanted(config: MatchConfig) -> bool:
    """Whether the workers of a match are pinned (:func:`pin_to_cpu`) when affinity is
    on: only if some bot runs as a child process; an in-process bot may think on several
    threads."""
    return any(
        config.sandbox or bot_command(spec, config.isolate, config.plugins) is not None
        for spec in config.bots
    )


def _init_worker(array: Any, counter: Any, plugins: Sequence[str], parent: int, pin: bool) -> None:
    _die_with_parent(parent)
    for fd in PARENT_FDS:
        with contextlib.suppress(OSError):
            os.close(fd)
    # Bots print to stderr, never into the runner's stdout (``--json``): Python's
    # sys.stdout and file descriptor 1 (C-level writes) both.  The inherited stdout
    # object is kept alive and never flushed (it may hold the runner's buffered text).
    _SAVED_STDOUT.append(sys.stdout)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(2, 1)
    sys.stdout = sys.stderr
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    enter_worker(array, index)
    if pin:
        pin_to_cpu(index)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    load_plugins(plugins)


class Pool:
    """A ``ProcessPoolExecutor`` whose workers report, in shared memory, which game, seat
    and hook they are busy with, so that a worker stuck in a bot can be found and
    killed.  ``pin``: each worker, and so the bot processes it starts, runs on one CPU
    (:func:`pin_to_cpu`, the workers spread round robin)."""

    def __init__(self, jobs: int, plugins: Sequence[str], pin: bool = False) -> None:
        ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else None)
        self.slots = jobs + 4  # replacement workers get fresh slots
        self.array = ctx.RawArray("d", SLOT * self.slots)
        for i in range(self.slots):
            self.array[SLOT * i] = 0.0
            self.array[SLOT * i + 1] = -1.0
            self.array[SLOT * i + 2] = -1.0
            self.array[SLOT * i + 4] = -1.0
        counter = ctx.Value("i", 0)
        with contextlib.suppress(Exception):
            sys.stdout.flush()  # nothing buffered is copied into the workers
        self.executor = cf.ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(self.array, counter, tuple(plugins), os.getpid(), pin),
        )
        self._dead_since: float | None = None  # see stalled()

    def busy(self) -> list[tuple[int, int, int, float, int]]:
        """``(pid, game id, seat or -1, in a hook since or 0, hook)`` of every busy
        worker."""
        out = []
        for i in range(self.slots):
            pid, gid, seat, since, hook = self.array[SLOT * i : SLOT * i + SLOT]
            if pid and gid >= 0:
                out.append((int(pid), int(gid), int(seat), float(since), int(hook)))
        return out

    def stalled(self, grace: float | None = None) -> bool:
        """Whether a worker has been dead for ``grace`` seconds (default
        :data:`STALL_GRACE`) and the executor has not
        noticed (it fails every future at once when it does): its manager thread is stuck
        reading the result the worker was sending when it died (killed from outside, by
        the out-of-memory killer, say), and every other worker waits for the lock of the
        result pipe that the dead one held.  Nothing of the pool will finish: the runner
        kills it (:meth:`shutdown`) and plays its games again."""
        executor = self.executor
        manager = getattr(executor, "_executor_manager_thread", None)
        procs = list((getattr(executor, "_processes", None) or {}).values())
        # a dead worker's sentinel is ready (the check does not reap it)
        dead = manager is not None and manager.is_alive() and bool(mpc.wait(
            [proc.sentinel for proc in procs], timeout=0
        ))  # fmt: skip
        if not dead:
            self._dead_since = None
            return False
        now = time.monotonic()
        if self._dead_since is None:
            self._dead_since = now
        return now - self._dead_since >= (STALL_GRACE if grace is None else grace)

    def exit_code(self, pid: int) -> int | None:
        procs = getattr(self.executor, "_processes", None) or {}
        proc = procs.get(pid)
        return None if proc is None else proc.exitcode

    def shutdown(self, kill: bool = False) -> None:
        """Stop the pool: wait for the running tasks or, with ``kill``, kill every worker
        (busy or idle).  Either way every future still pending is cancelled or failed and
        the executor's manager thread has ended on return, also when a ``KeyboardInterrupt``
        comes in the middle: a manager thread left running with a task pending makes the
        interpreter's exit wait for it for ever, and one left running at all races
        ``concurrent.futures``' own exit hook, which writes to the thread's wake-up pipe
        while the thread closes it (``Exception ignored in: <module 'threading'> ...
        OSError: [Errno 9] Bad file descriptor`` after a Ctrl-C)."""
        executor = self.executor
        manager = getattr(executor, "_executor_manager_thread", None)
        results = getattr(executor, "_result_queue", None)
        try:
            if kill:
                pids = {pid for pid, *_ in self.busy()}
                pids.update(getattr(executor, "_processes", None) or {})
                for pid in pids:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
        finally:
            with contextlib.suppress(Exception):
                executor.shutdown(wait=not kill, cancel_futures=True)
            if kill and results is not None:
                # A worker killed while it was sending its result (a batch's records,
                # often more than a pipe holds) leaves part of a message in the result
                # pipe, and the manager thread waits for the rest for ever: this process
                # holds a write end of that pipe too.  Closed, the pipe ends once the
                # killed workers are gone: the manager thread reads the end of the file,
                # fails every pending future (BrokenProcessPool) and ends.
                with contextlib.suppress(Exception):
                    results._writer.close()
            if manager is not None and manager is not threading.current_thread():
                manager.join(timeout=_MANAGER_JOIN)  # killed workers: it ends at once


#: How long a worker may be dead without its executor noticing (:meth:`Pool.stalled`);
#: it notices in milliseconds unless its manager thread is stuck.
STALL_GRACE = 1.0
#: How long :meth:`Pool.shutdown` waits for the executor's manager thread to end.
_MANAGER_JOIN = 30.0


# ---------------------------------------------------------------------------------------
# Any other executor (a Dask cluster): the task carries the plugins to load


def play_planned(
    plan: Plan,
    gids: Sequence[int],
    seeds: Sequence[Sequence[int]],
    plugins: Sequence[str] = (),
    game_seeds: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """A worker's task: the games ``gids`` of ``plan`` (the :meth:`Plan.public` one: no
    secret), with ``seeds``, the bots' seeds of each game that the runner made, and
    ``game_seeds``, the seed each game is dealt from (made by the runner: under
    ``--sandbox`` it is keyed with the secret; None: the plan's own); their tasks are
    made here, in the workers, not in the runner.  ``plugins``: modules to load first,
    for workers this runner did not start (a Dask worker; once per process)."""
    load_plugins(plugins)
    if len(seeds) != len(gids) or (game_seeds is not None and len(game_seeds) != len(gids)):
        raise ValueError(f"{len(seeds)} sets of bot seeds for {len(gids)} games")
    deals = [None] * len(gids) if game_seeds is None else list(game_seeds)
    return play_games([plan.task(g, s, d) for g, s, d in zip(gids, seeds, deals, strict=True)])


class DaskExecutor:
    """A ``concurrent.futures`` executor on a Dask distributed cluster (``bones[dask]``):
    ``scheduler`` is the address of a running scheduler (``tcp://host:8786``) or a
    ``distributed.Client``.  ``threads`` is the cluster's number of worker threads, the
    batches the runner keeps in flight.  Workers must have bones installed, and the
    plugins of the match importable; a worker runs the games in its own threads, so an
    in-process bot that hangs is not interrupted there: ``--isolate`` runs every bot
    behind the protocol, whose deadlines hold in any thread."""

    def __init__(self, scheduler: Any, timeout: float = 30.0) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise MatchError(
                "--executor dask needs the Dask extra: pip install 'bones[dask]'"
            ) from None
        self.own = not isinstance(scheduler, Client)
        try:
            self.client = Client(scheduler, timeout=timeout) if self.own else scheduler
        except (OSError, TimeoutError, ValueError) as exc:
            raise MatchError(f"--scheduler {scheduler}: cannot connect: {exc}") from None
        self.executor: cf.Executor = self.client.get_executor(pure=False)
        self.threads = max(1, sum(self.client.nthreads().values()))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.executor.shutdown(wait=False)
        if self.own:
            with contextlib.suppress(Exception):
                self.client.close()
