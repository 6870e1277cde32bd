"""Control groups for sandboxed bots (``bones match --sandbox``, docs/contest.md): each
bot process tree in a cgroup of its own, with a memory limit for the whole tree and a
limit on its number of processes, frozen as a whole while it waits for its game, killed
as a whole and removed when the bot ends.

:func:`find` looks for a hierarchy this process may write: cgroup v2 (the runner's own
cgroup, when bones may enable the ``memory`` and ``pids`` controllers for sub-groups
there), else cgroup v1 (the ``memory`` and ``pids`` hierarchies, under the runner's own
cgroup in each).  Every bot cgroup is made under ``bones/`` there, so the runner's own
limits still bound it.  :class:`Cgroup` makes one (``memory.max``, ``memory.swap.max``
0, ``memory.oom.group`` 1, ``pids.max``; on v1 ``memory.limit_in_bytes``,
``memory.memsw.limit_in_bytes`` where swap is accounted, ``pids.max``; on v1 a cgroup
of the ``freezer`` hierarchy too where it is writable); the sandbox's
launcher writes its own pid into each ``cgroup.procs`` and then becomes bubblewrap
(:func:`bones.protocol.sandbox.launch`), so the bot and all its children are in it from
their first instruction.  Where none is writable, the rlimits alone apply.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Cgroup", "Hierarchy", "Spares", "find"]

_MOUNTS = "/proc/self/mounts"
_OWN = "/proc/self/cgroup"
_PARENT = "bones"
_COUNTER = itertools.count(1)


@dataclass(frozen=True)
class Hierarchy:
    """Where the bots' cgroups are made: ``version`` 1 or 2; ``memory``, ``pids``: the
    parent folder of the bots' cgroups in the hierarchy of each controller (the same
    one for v2, and for v1 where the two are mounted together)."""

    version: int
    memory: str
    pids: str
    cpu: str | None = None  # where the cpu controller is writable too: a quota per bot
    cpuacct: str | None = None  # where the bot's CPU time is counted (v2: cpu.stat)
    freezer: str | None = None  # where a bot's tree can be frozen (v2: cgroup.freeze)

    @property
    def folders(self) -> tuple[str, ...]:
        """The parent folders, each once."""
        found = (self.memory, self.pids, self.cpu, self.cpuacct, self.freezer)
        return tuple(dict.fromkeys(f for f in found if f))

    def describe(self) -> str:
        return f"cgroup v{self.version} ({', '.join(self.folders)})"


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _write_if(path: str, text: str) -> None:
    """Write a control file the kernel may not have (an older one, swap not accounted)."""
    if os.path.exists(path):
        _write(path, text)


def _mounts(mounts: str) -> list[tuple[str, str, set[str]]]:
    """``(mount point, type, options)`` of the cgroup file systems."""
    out = []
    for line in _read(mounts).splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
            point = fields[1].replace("\\040", " ")
            out.append((point, fields[2], set(fields[3].split(","))))
    return out


def _own(own: str) -> dict[str, str]:
    """This process's cgroup in each hierarchy: controller -> path (``""``: cgroup v2)."""
    out: dict[str, str] = {}
    for line in _read(own).splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            out[name] = path
    return out


def _inside(point: str, path: str) -> str:
    return os.path.join(point, path.lstrip("/"))


def _v2(point: str, path: str) -> Hierarchy | None:
    """The v2 hierarchy at ``point`` if memory and pids can be given to sub-groups of
    this process's cgroup ``path`` there (else None)."""
    base = _inside(point, path)
    try:
        controllers = set(_read(os.path.join(base, "cgroup.controllers")).split())
        if not {"memory", "pids"} <= controllers:
            return None
        wanted = "+memory +pids" + (" +cpu" if "cpu" in controllers else "")
        parent = os.path.join(base, _PARENT)
        # a cgroup that holds processes cannot give controllers to sub-groups (the "no
        # internal processes" rule of v2): this fails unless bones may do it here
        _write(os.path.join(base, "cgroup.subtree_control"), wanted)
        os.makedirs(parent, exist_ok=True)
        _write(os.path.join(parent, "cgroup.subtree_control"), wanted)
    except OSError:
        return None
    # cpu.stat's usage_usec is in every v2 cgroup, with or without the cpu controller;
    # cgroup.freeze in every one but the root (Linux 5.2)
    freezer = parent if os.path.exists(os.path.join(parent, "cgroup.freeze")) else None
    cpu = parent if "cpu" in controllers else None
    return Hierarchy(2, parent, parent, cpu, parent, freezer)


def _v1(mounts: list[tuple[str, str, set[str]]], own: dict[str, str]) -> Hierarchy | None:
    folders: list[str | None] = []
    for controller in ("memory", "pids", "cpu", "cpuacct", "freezer"):
        point = next(
            (m for m, kind, opts in mounts if kind == "cgroup" and controller in opts), None
        )
        folder = None
        if point is not None:
            folder = os.path.join(_inside(point, own.get(controller, "/")), _PARENT)
            with contextlib.suppress(OSError):  # read-only, or not ours
                os.makedirs(folder, exist_ok=True)
            if not os.access(folder, os.W_OK):
                folder = None
        if folder is None and controller in ("memory", "pids"):  # the rest are bonuses
            return None
        folders.append(folder)
    memory, pids, cpu, cpuacct, freezer = folders
    assert memory is not None and pids is not None
    return Hierarchy(1, memory, pids, cpu, cpuacct, freezer)


def find(mounts: str = _MOUNTS, own: str = _OWN) -> Hierarchy | None:
    """The cgroup hierarchy for the bots' cgroups, or None if this process may write
    none with the memory and pids controllers (``mounts``, ``own``: the files read, for
    tests)."""
    try:
        table = _mounts(mounts)
        paths = _own(own)
    except (OSError, ValueError):
        return None
    for point, kind, _ in table:
        if kind == "cgroup2" and "" in paths:
            found = _v2(point, paths[""])
            if found is not None:
                return found
    return _v1(table, paths)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _sweep(folder: str) -> None:
    """Remove the empty cgroups a runner that was killed (SIGKILL) left: theirs are named
    after its pid."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            pid, dash, _ = name.partition("-")
            if not (dash and pid.isdigit()) or int(pid) == os.getpid() or _alive(int(pid)):
                continue
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                # a minute old at least: not one another runner (in another PID
                # namespace, where its pid means nothing here) is about to fill
                if time.time() - os.stat(path).st_mtime > 60:
                    os.rmdir(path)


#: The period of a CPU quota, in microseconds (the kernel's default).
PERIOD_US = 100_000


class Cgroup:
    """A bot's cgroup in ``hierarchy``: at most ``memory`` bytes of memory for all its
    processes together (no swap), at most ``pids`` processes and threads and, where the
    hierarchy has the cpu controller and ``cpus`` > 0, at most ``cpus`` CPUs of time
    (``cpu.max``; v1 ``cpu.cfs_quota_us``), so that a bot that spins cannot take the
    CPU of a bot beside it; with ``count_cpu``, in the hierarchy that counts their CPU
    time too (:meth:`cpu_time`; v1 ``cpuacct``, a cgroup more to join, so only then).
    Made by the constructor (:class:`OSError` if it cannot be);
    :attr:`procs` are the files the launcher writes its pid into; :meth:`close` kills
    what is left in it and removes it."""

    def __init__(
        self,
        hierarchy: Hierarchy,
        memory: int,
        pids: int,
        cpus: float = 0.0,
        count_cpu: bool = False,
    ) -> None:
        self.hierarchy = hierarchy
        name = f"{os.getpid()}-{next(_COUNTER)}-{time.monotonic_ns()}"
        self.folders: list[str] = []
        parents = hierarchy.folders
        if not count_cpu and hierarchy.cpuacct not in (hierarchy.memory, hierarchy.cpu):
            parents = tuple(p for p in parents if p != hierarchy.cpuacct)
        self.counts_cpu = hierarchy.cpuacct in parents
        #: The folder whose freezer stops the bot's whole tree (None: none writable).
        self.freezer = None if hierarchy.freezer is None else os.path.join(hierarchy.freezer, name)
        self.frozen = False  # frozen by freeze(), until thaw()
        try:
            for parent in parents:
                _sweep(parent)
                folder = os.path.join(parent, name)
                os.mkdir(folder)
                self.folders.append(folder)
            mem = os.path.join(hierarchy.memory, name)
            if hierarchy.version == 2:
                _write(os.path.join(mem, "memory.max"), str(memory))
                _write_if(os.path.join(mem, "memory.swap.max"), "0")  # swap accounted
                _write_if(os.path.join(mem, "memory.oom.group"), "1")  # Linux 4.19
            else:
                _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory))
                _write_if(os.path.join(mem, "memory.memsw.limit_in_bytes"), str(memory))
            _write(os.path.join(hierarchy.pids, name, "pids.max"), str(pids))
            if hierarchy.cpu is not None and cpus > 0:
                quota = max(1000, int(cpus * PERIOD_US))
                cpu = os.path.join(hierarchy.cpu, name)
                if hierarchy.version == 2:
                    _write(os.path.join(cpu, "cpu.max"), f"{quota} {PERIOD_US}")
                else:
                    _write(os.path.join(cpu, "cpu.cfs_period_us"), str(PERIOD_US))
                    _write(os.path.join(cpu, "cpu.cfs_quota_us"), str(quota))
        except BaseException:
            self.close()
            raise

    def cpu_time(self) -> float | None:
        """The CPU seconds the processes of this cgroup have used since it was made (v2
        ``cpu.stat``'s ``usage_usec``, v1 ``cpuacct.usage``), or None where the hierarchy
        does not count them."""
        if self.hierarchy.cpuacct is None or not self.counts_cpu or not self.folders:
            return None
        folder = os.path.join(self.hierarchy.cpuacct, os.path.basename(self.folders[0]))
        try:
            if self.hierarchy.version == 2:
                for line in _read(os.path.join(folder, "cpu.stat")).splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
                return None
            return int(_read(os.path.join(folder, "cpuacct.usage"))) / 1e9
        except (OSError, ValueError):
            return None

    def _set_frozen(self, frozen: bool) -> None:
        """Write the freezer's control file: v2 ``cgroup.freeze`` 1 or 0, v1
        ``freezer.state`` FROZEN or THAWED."""
        assert self.freezer is not None
        if self.hierarchy.version == 2:
            _write(os.path.join(self.freezer, "cgroup.freeze"), "1" if frozen else "0")
        else:
            _write(os.path.join(self.freezer, "freezer.state"), "FROZEN" if frozen else "THAWED")

    def freeze(self, wait: float = 1.0) -> bool:
        """Stop every process of the cgroup, forks included, until :meth:`thaw` (v2
        ``cgroup.freeze``, done when ``cgroup.events`` says ``frozen 1``; v1
        ``freezer.state`` FROZEN, done when it reads FROZEN, not FREEZING): whether that
        happened within ``wait`` seconds (if not, some may still run: the caller ends
        them).  :class:`OSError` if the cgroup has no freezer."""
        if self.freezer is None:
            raise OSError(f"no writable freezer for {self.folders}")
        self.frozen = True  # even in part: close() must thaw what SIGKILL cannot wake
        v2 = self.hierarchy.version == 2
        self._set_frozen(True)
        deadline = time.monotonic() + wait
        pause = 0.0002
        while True:
            if v2:
                done = "frozen 1" in _read(os.path.join(self.freezer, "cgroup.events"))
            else:
                state = _read(os.path.join(self.freezer, "freezer.state"))
                done = state.strip() == "FROZEN"  # a read moves FREEZING on
            if done:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def thaw(self, force: bool = False) -> None:
        """Let the processes run again (after :meth:`freeze`; with ``force`` whatever
        this object believes: a freeze it did not record).  Idempotent."""
        if (self.frozen or force) and self.freezer is not None:
            with contextlib.suppress(FileNotFoundError):
                self._set_frozen(False)
        self.frozen = False

    @property
    def procs(self) -> list[str]:
        return [os.path.join(folder, "cgroup.procs") for folder in self.folders]

    def pids(self) -> list[int]:
        """The processes in the cgroup (all hierarchies)."""
        out: set[int] = set()
        for path in self.procs:
            with contextlib.suppress(OSError):
                out.update(int(p) for p in _read(path).split())
        return sorted(out)

    def kill(self, thaw: bool = False) -> None:
        """SIGKILL every process in the cgroup now, and thaw it if frozen (with ``thaw``,
        whether or not it knows of a freeze): a frozen process dies of SIGKILL only once
        thawed (v1)."""
        if self.hierarchy.version == 2 and self.folders:
            with contextlib.suppress(OSError):  # Linux 5.14: the kernel kills them all
                _write_if(os.path.join(self.folders[0], "cgroup.kill"), "1")
        for pid in self.pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if self.frozen or thaw:
            with contextlib.suppress(OSError):
                self.thaw(force=thaw)

    def close(self, wait: float = 2.0) -> None:
        """SIGKILL every process in the cgroup (again, until none is left, for one that
        forked meanwhile; thawed if frozen), then remove its folders.  Idempotent."""
        deadline = time.monotonic() + wait
        pause = 0.0005
        while self.folders:
            self.kill()
            for folder in list(self.folders):
                try:
                    os.rmdir(folder)
                except FileNotFoundError:
                    pass
                except OSError:  # EBUSY: a process in it is still dying
                    continue
                self.folders.remove(folder)
            if self.folders:
                if time.monotonic() > deadline:
                    return  # left for _sweep of a later run (an unkillable process)
                time.sleep(pause)  # short at first: the last process is usually exiting
                pause = min(pause * 2, 0.02)


class Spares:
    """Cgroups made ahead, off the critical path of a bot's start: a thread keeps
    ``size`` never-used cgroups made by ``make`` (a :class:`Cgroup` of given limits)
    ready, and :meth:`take` gives one away for good (made at once when none is ready).
    No cgroup is given twice: one a bot has used is emptied and removed by its own
    :meth:`Cgroup.close`, never handed to another bot (whose processes a late close of
    the first would kill).  :meth:`close` stops the thread and removes the spares."""

    def __init__(self, make: Callable[[], Cgroup], size: int = 2) -> None:
        self._make = make
        self.size = size
        self.ready: list[Cgroup] = []
        self._changed = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._fill, name="bones-cgroups", daemon=True)
        self._thread.start()

    def _fill(self) -> None:
        while True:
            with self._changed:
                while not self._closed and len(self.ready) >= self.size:
                    self._changed.wait()
                if self._closed:
                    return
            try:
                group = self._make()
            except OSError:
                return  # take() makes its own, and says why it cannot
            with self._changed:
                if not self._closed:
                    self.ready.append(group)
                    continue
            group.close()
            return

    def take(self) -> Cgroup:
        """A cgroup no process has been in, for one bot (:class:`OSError` if none can be
        made)."""
        with self._changed:
            group = self.ready.pop(0) if self.ready else None
            self._changed.notify()
        return group if group is not None else self._make()

    def close(self) -> None:
        """Stop making spares and remove those not taken.  Idempotent."""
        with self._changed:
            self._closed = True
            left, self.ready = self.ready, []
            self._changed.notify()
        self._thread.join()
        for group in left:
            group.close()
