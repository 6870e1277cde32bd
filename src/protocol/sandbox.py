"""Bots in a sandbox: the bubblewrap (``bwrap``) command line that runs a bot's command
with nothing of the runner in reach (``bones match --sandbox``, docs/contest.md).

:func:`wrap` turns a bot's command into ``sh -c 'ulimit ...; exec "$@"' ... bwrap ...
-- COMMAND``: the shell sets the rlimits (address space, file size, open files, no
core), joins the bot's cgroup and becomes bubblewrap, with an empty environment.
Bubblewrap makes new PID (the bot is PID 1 and alone in it), network, IPC and UTS
namespaces, its own session, killed with its parent, a private size-limited ``/tmp``
and ``/dev/shm``, a read-only root that holds only the system's programs and libraries
(``/usr`` and its ``/bin``, ``/lib`` links, a few files of ``/etc``), for a Python bot
its Python installation and the bones package folder, and the entry's own files (the
paths its command names, resolved and checked by :func:`wrap`): a private copy made by
:class:`Launch` for every start, so that no page of them is shared with an earlier
game.  Bubblewrap sets no_new_privs and loads a seccomp filter that libseccomp builds
for this architecture (:func:`seccomp_filter`, through ``pyseccomp``) and that refuses
the system calls a bot never needs, those that probe or drop the page cache and those
that would show one bot another's use of a shared file (locks, notifications).  Where
a writable cgroup hierarchy has the memory and pids controllers, each bot's process
tree runs in a cgroup of its own (:mod:`bones.protocol.cgroup`: memory, processes and,
with the cpu controller, a CPU quota), made by :class:`Launch` before bubblewrap starts
and emptied when the bot ends; elsewhere the bots get RLIMIT_NPROC instead.  Run by
root, the bot runs as uid and gid 65534 (``setpriv``); run by another user, as that
user in a user namespace.

The tools are bubblewrap, the sandbox of Flatpak, and libseccomp, packaged by every
distribution; bones only chooses their options.  Without them :func:`find_bwrap` and
:func:`seccomp_filter` raise :class:`SandboxError` saying what to install: a sandbox that
was asked for never silently goes missing.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import OptionError
from . import cgroup
from .cgroup import Hierarchy

__all__ = [
    "Launch",
    "SandboxError",
    "SandboxPolicy",
    "check",
    "find_bwrap",
    "freezable",
    "limits",
    "separate",
    "seccomp_filter",
    "shared_paths",
    "warm_shared",
    "wrap",
]

INSTALL_HINT = (
    "install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), "
    "dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)"
)

#: The system folders bound read-only (or recreated as the same symbolic links).
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The files of /etc a dynamically linked program may read.
_ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
)
_SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
#: Where :class:`Launch` copies an entry's files for each start: a memory file system
#: (fresh pages each time), else the temporary folder.
_COPY_DIR = "/dev/shm" if os.access("/dev/shm", os.W_OK | os.X_OK) else None
_PYTHON = re.compile(r"python[0-9.]*[a-z]?$")
_MB = 1 << 20


class SandboxError(OptionError):
    """The sandbox cannot be made (no bubblewrap, a path it cannot bind, namespaces the
    system forbids): one line that says what to do.  ``bones`` exits 2."""


@dataclass(frozen=True)
class SandboxPolicy:
    """The limits of a sandboxed bot.  ``memory_mb``: the address space of each of its
    processes (RLIMIT_AS), and the memory of its whole tree where it has a cgroup;
    ``file_mb``: the largest file it may write (RLIMIT_FSIZE); ``tmp_mb``: the size of its
    private ``/tmp``; ``processes``: the processes and threads of the bot's tree
    (``pids.max`` of its cgroup; without a cgroup, RLIMIT_NPROC, set only when the bot
    runs as a uid of its own: ``uid``/``gid``, when the runner is root; that limit counts
    every process of the uid); ``open_files``: RLIMIT_NOFILE; ``read_only``: more paths
    bound read-only (a bot's data); ``bwrap``: the program (None: ``bwrap`` on PATH);
    ``seccomp``: load :func:`seccomp_filter`; ``cgroup``: put the bot's tree in a cgroup
    of its own (``memory_mb`` for the whole tree, ``processes``) where a writable
    hierarchy exists (:mod:`bones.protocol.cgroup`); ``cpus``: the CPU time of the bot's
    tree, in CPUs, where that hierarchy has the cpu controller (0: no quota);
    ``count_cpu``: a cgroup that counts the tree's CPU time too where the hierarchy can
    (``cpuacct``; for ``bones match --tc ...:cpu``: on cgroup v1 one more cgroup to join
    at each start, so only when asked); ``warm``: before a match, bring every page of
    the shared read-only files into the page cache (:func:`warm_shared`; also
    ``BONES_SANDBOX_WARM=1`` in the environment), which narrows the residency channel
    on a machine with memory to spare but does not close it where the kernel reclaims
    pages (docs/contest.md: measured), so it is off by default."""

    memory_mb: int = 1024
    cpus: float = 1.0
    file_mb: int = 16
    tmp_mb: int = 64
    processes: int = 256
    open_files: int = 256
    uid: int = 65534
    gid: int = 65534
    read_only: tuple[str, ...] = ()
    bwrap: str | None = None
    seccomp: bool = True
    cgroup: bool = True
    count_cpu: bool = False
    warm: bool = False


# -- the seccomp filter (libseccomp) -----------------------------------------------------

#: System calls a bot never needs, each answered EPERM: tracing and reading other
#: processes, new namespaces, mounts, kernel modules and keys, BPF, perf, io_uring,
#: userfaultfd, clocks, swap, reboot.  (``kill`` needs no rule: in its PID namespace a bot
#: sees no process outside the sandbox to signal.)
DENIED_SYSCALLS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_by_handle_at",
    "name_to_handle_at",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "add_key",
    "request_key",
    "keyctl",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "acct",
    "swapon",
    "swapoff",
    "reboot",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "quotactl",
    "lookup_dcookie",
    "move_pages",
    "migrate_pages",
    # what would tell a bot which pages of a file are in the page cache, or drop them:
    # bits kept between games, or passed to a bot running beside it (docs/contest.md)
    "mincore",
    "cachestat",
    "fadvise64",
    "fadvise64_64",
    "arm_fadvise64_64",
    "readahead",
    "process_madvise",
    # reads that say whether a page is cached without caching it, or without waiting:
    # preadv2/pwritev2 with any flag (RWF_NOWAIT, RWF_DONTCACHE, ...; a program that
    # wants plain vectored I/O has preadv/pwritev), and Linux AIO (RWF_NOWAIT in an iocb)
    "preadv2",
    "pwritev2",
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    # what one bot sees of another's use of a file both can read: locks, notifications
    "flock",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
)
#: ``fcntl`` commands denied: record and open-file-description locks (F_GETLK shows the
#: holder of a lock another process took), leases and directory notifications.
DENIED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
#: ``madvise`` advice denied: MADV_COLD and MADV_PAGEOUT (which drop a file's pages)
DENIED_MADVISE = (20, 21)
SECCOMP_HINT = (
    "install pyseccomp (pip install 'bones[sandbox]') and libseccomp "
    "(apt-get install libseccomp2, dnf install libseccomp, pacman -S libseccomp)"
)
_CLONE_NEWUSER = 0x10000000
_AF_UNIX = 1
_PLACEHOLDER = "bones-seccomp:"
_CGROUP = "bones-cgroup:"
_COPY = "bones-copy:"
_MARK = "bones-sandbox"  # the $0 of the shell that starts bubblewrap


def _libseccomp() -> Any:
    """The ``pyseccomp`` module (libseccomp through ctypes); :class:`SandboxError` saying
    what to install if it or the library is missing."""
    try:
        import pyseccomp
    except ImportError:
        raise SandboxError(
            f"--sandbox needs pyseccomp (its seccomp filter); {SECCOMP_HINT}"
        ) from None
    except (OSError, RuntimeError) as exc:  # pyseccomp loads libseccomp.so.2 on import
        raise SandboxError(f"--sandbox needs libseccomp ({exc}); {SECCOMP_HINT}") from None
    return pyseccomp


@functools.lru_cache(maxsize=1)
def seccomp_filter() -> bytes:
    """The seccomp program bubblewrap loads (``--seccomp FD``, after setting
    no_new_privs) before the bot starts, built by libseccomp for this machine's
    architecture: :data:`DENIED_SYSCALLS`, ``clone`` with ``CLONE_NEWUSER``,
    ``socket`` of any family but ``AF_UNIX``, ``fcntl`` of :data:`DENIED_FCNTL`,
    ``madvise`` of :data:`DENIED_MADVISE` are EPERM, ``clone3`` is ENOSYS (its flags
    are out of a filter's reach; the C library then uses ``clone``), a call of another
    architecture (the x32 ABI on x86_64) kills the process, the rest is allowed.
    :class:`SandboxError` without pyseccomp or libseccomp."""
    sc = _libseccomp()
    rules = sc.SyscallFilter(sc.ALLOW)
    rules.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
    eperm = sc.ERRNO(errno.EPERM)
    for name in DENIED_SYSCALLS:
        if sc.resolve_syscall(sc.Arch.NATIVE, name) == -1:
            continue  # a call this libseccomp does not know: no kernel it runs on has it
        rules.add_rule(eperm, name)
    flags = 1 if sc.system_arch() in (sc.Arch.S390, sc.Arch.S390X) else 0  # clone's flags
    rules.add_rule(eperm, "clone", sc.Arg(flags, sc.MASKED_EQ, _CLONE_NEWUSER, _CLONE_NEWUSER))
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(eperm, "socket", sc.Arg(0, sc.NE, _AF_UNIX))
    for name in ("fcntl", "fcntl64"):
        if sc.resolve_syscall(sc.Arch.NATIVE, name) != -1:
            for command in DENIED_FCNTL:
                rules.add_rule(eperm, name, sc.Arg(1, sc.EQ, command))
    for advice in DENIED_MADVISE:
        rules.add_rule(eperm, "madvise", sc.Arg(2, sc.EQ, advice))
    with tempfile.TemporaryFile() as f:
        rules.export_bpf(f)
        f.seek(0)
        return f.read()


@functools.lru_cache(maxsize=1)
def _hierarchy() -> Hierarchy | None:
    """The cgroup hierarchy of this machine the bots' cgroups go in (None: rlimits only)."""
    return cgroup.find()


#: This process's spare cgroups, by their limits (:class:`bones.protocol.cgroup.Spares`).
_SPARES: dict[tuple[int, int, float, bool], cgroup.Spares] = {}
_SPARES_LOCK = threading.Lock()


def _spares(limits: tuple[int, int, float, bool], hierarchy: Hierarchy) -> cgroup.Spares:
    with _SPARES_LOCK:
        if not _SPARES:  # at exit, the spares are removed: a worker ends without atexit
            import atexit
            import multiprocessing.util

            atexit.register(close_spares)
            multiprocessing.util.Finalize(None, close_spares, exitpriority=5)
        found = _SPARES.get(limits)
        if found is None:
            make = functools.partial(cgroup.Cgroup, hierarchy, *limits)
            found = _SPARES[limits] = cgroup.Spares(make)
        return found


def close_spares() -> None:
    """Remove the spare cgroups this process made ahead (at exit).  Idempotent."""
    with _SPARES_LOCK:
        spares = list(_SPARES.values())
        _SPARES.clear()
    for one in spares:
        one.close()


def _forget_spares() -> None:
    """In a forked child: the parent's spares are the parent's (never the child's to take
    or remove), and its thread is not in the child."""
    _SPARES.clear()
    global _SPARES_LOCK
    _SPARES_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_spares)


def freezable(command: Sequence[str]) -> bool:
    """Whether a bot of the :func:`wrap` command ``command`` can be frozen here
    (:meth:`Launch.hold`): it gets a cgroup, and the hierarchy has a writable freezer.
    Only then does ``bones match --sandbox`` start bots ahead of their games."""
    if not command or not command[0].startswith(_CGROUP):
        return False
    hierarchy = _hierarchy()
    return hierarchy is not None and hierarchy.freezer is not None


def limits(policy: SandboxPolicy | None = None) -> str:
    """One line saying which limits :func:`wrap` puts in force here (for the match's
    log): the rlimits, the cgroup limits if a writable hierarchy exists, the filter."""
    policy = policy or SandboxPolicy()
    text = (
        f"sandbox limits: rlimits (address space {policy.memory_mb} MiB per process, "
        f"files {policy.file_mb} MiB, {policy.open_files} open files), /tmp and /dev/shm "
        f"{policy.tmp_mb} MiB each"
    )
    hierarchy = _hierarchy() if policy.cgroup else None
    if hierarchy is not None:
        text += (
            f"; {hierarchy.describe()}: memory {policy.memory_mb} MiB and "
            f"{policy.processes} processes per bot"
        )
        if hierarchy.cpu is not None and policy.cpus > 0:
            text += f", {policy.cpus:g} CPU per bot (cpu quota)"
        elif policy.cpus > 0:
            text += ", no CPU quota (no writable cpu controller)"
    else:
        whose = f"of uid {policy.uid}" if os.geteuid() == 0 else "in the bot's user namespace"
        text += f"; {policy.processes} processes (RLIMIT_NPROC, counted {whose})"
        text += "; no writable cgroup hierarchy with memory and pids: no cgroup limits"
    if hierarchy is not None and hierarchy.freezer is not None:
        text += "; bots started ahead of their games, frozen until then (cgroup freezer)"
    else:  # SIGSTOP would miss what a bot moved out of its process group (setsid)
        text += "; no cgroup freezer: each bot started when its game comes (none ahead)"
    if policy.seccomp:
        text += "; seccomp filter (libseccomp)"
    if _warming(policy):
        text += "; shared files' page cache warmed before the games"
    # what no option here closes: docs/contest.md, "Residual channels" (issue 43)
    text += "; open: residency and timing of the shared files' page cache, CPU contention"
    return text


class Launch:
    """What it takes to start a command of :func:`wrap`: :attr:`argv` with the seccomp
    program in a memory file whose descriptor is in :attr:`fds` (pass them to the child,
    then call :meth:`started`), and, where the command asks for one and a writable
    hierarchy exists, the bot's :attr:`cgroup`, made before the start: the command
    begins with ``sh -c`` writing the shell's pid into the cgroup and becoming bubblewrap
    (``exec``), so bubblewrap and everything it starts is in the cgroup.  :meth:`close`
    after the bot ended: kills what is left in the cgroup and removes it.
    :class:`SandboxError` if the cgroup cannot be made."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self.fds: list[int] = []
        self.cgroup: cgroup.Cgroup | None = None
        self._closing = threading.Lock()  # held to take the cgroup, freeze or thaw it
        self._held = False  # to be frozen until release() (hold)
        self._frozen_at: float | None = None  # when hold froze it
        self.copies: str | None = None  # the folder of this start's private copies
        try:
            if self.argv and self.argv[0].startswith(_CGROUP):
                self._jail(self.argv.pop(0)[len(_CGROUP) :])
            for index, arg in enumerate(self.argv):
                if index and self.argv[index - 1] == "--seccomp" and arg.startswith(_PLACEHOLDER):
                    fd = os.memfd_create("bones-seccomp", os.MFD_CLOEXEC)
                    self.fds.append(fd)
                    os.write(fd, bytes.fromhex(arg[len(_PLACEHOLDER) :]))
                    os.lseek(fd, 0, os.SEEK_SET)
                    self.argv[index] = str(fd)
                elif arg.startswith(_COPY):
                    self.argv[index] = self._copy(arg[len(_COPY) :])
        except BaseException:
            self.close()
            raise

    def _copy(self, source: str) -> str:
        """A private copy of the entry's file or folder ``source`` (a real path, checked
        by :func:`wrap`) in a fresh folder of a memory file system: new pages that no
        earlier game touched, removed by :meth:`close`.  Links are copied as links, never
        followed, so an entry that turned a file into a link since :func:`wrap` gets the
        link (which points nowhere useful inside), not what it points to."""
        if os.path.realpath(source) != source:
            raise SandboxError(f"--sandbox: the bot's file {source} became a link; not bound")
        if self.copies is None:
            self.copies = tempfile.mkdtemp(prefix="bones-entry-", dir=_COPY_DIR)
        target = os.path.join(self.copies, str(len(os.listdir(self.copies))))
        try:
            if os.path.isdir(source):
                shutil.copytree(source, target, symlinks=True)
            else:
                shutil.copy2(source, target, follow_symlinks=False)
        except (OSError, shutil.Error) as exc:
            raise SandboxError(f"--sandbox: cannot copy the bot's file {source}: {exc}") from None
        return target

    def _jail(self, spec: str) -> None:
        values = dict(item.partition("=")[::2] for item in spec.split(","))
        hierarchy = _hierarchy()
        if hierarchy is None:  # wrap() found one: the machine that runs the bot should too
            raise SandboxError(
                "--sandbox: the bot's command asks for a cgroup, but this machine has no "
                "writable cgroup hierarchy with memory and pids (not the runner's machine?)"
            )
        limits = (
            int(values["memory"]),
            int(values["pids"]),
            float(values.get("cpus", 0)),
            values.get("count_cpu") == "1",
        )
        try:
            self.cgroup = _spares(limits, hierarchy).take()
        except OSError as exc:
            raise SandboxError(f"--sandbox: cannot make the bot's cgroup: {exc}") from None
        # the shell's pid is bubblewrap's after exec: every process of the bot is inside
        at = self.argv.index(_MARK) + 1
        self.argv[at:at] = self.cgroup.procs

    @property
    def held(self) -> bool:
        """Whether :meth:`hold` is in force (the bot frozen, or about to be)."""
        return self._held

    def hold(self, answered: int, within: float) -> None:
        """Freeze the bot's whole tree (its cgroup's freezer) once the descriptor
        ``answered`` (its stdout) is readable, or ``within`` seconds from now at the
        latest, until :meth:`release`: a bot started ahead of its game runs only to
        answer its hello.  Done by a thread; a bot that cannot be frozen in time is
        killed.  :class:`SandboxError` if its cgroup has no freezer (:func:`freezable`)."""
        if self.cgroup is None or self.cgroup.freezer is None:
            raise SandboxError("--sandbox: this bot's cgroup has no freezer")
        self._held = True
        threading.Thread(
            target=self._freeze, args=(answered, within), name="bones-hold", daemon=True
        ).start()

    def _freeze(self, answered: int, within: float) -> None:
        ready = select.poll()
        ready.register(answered, select.POLLIN)
        with contextlib.suppress(OSError):
            ready.poll(max(0, int(within * 1000)))
        with self._closing:
            group = self.cgroup
            if not self._held or group is None:  # released (its game came) or closed
                return
            try:
                frozen = group.freeze()
            except OSError:
                frozen = False
            self._frozen_at = time.monotonic()
            if not frozen:  # some of it still runs (and listens): it is ended instead
                group.kill()

    def release(self, kill: bool = False) -> float:
        """End :meth:`hold`: thaw the bot if it is frozen (with ``kill``, every process
        of its cgroup killed first: a bot never used, which then runs not at all); the
        seconds it spent frozen."""
        with self._closing:
            self._held = False
            at, self._frozen_at = self._frozen_at, None
            if self.cgroup is not None:
                if kill:
                    self.cgroup.kill()
                elif at is not None:
                    self.cgroup.thaw()
        return 0.0 if at is None else time.monotonic() - at

    def unfreeze(self) -> None:
        """Kill every process of the cgroup and thaw it, whether or not :meth:`hold`
        froze it (a freeze nobody ended: its processes cannot die of SIGKILL until
        thawed, and whoever waits for them would wait for ever)."""
        with self._closing:
            self._held = False
            self._frozen_at = None
            if self.cgroup is not None:
                self.cgroup.kill(thaw=True)

    def started(self) -> None:
        """Close this process's copies of :attr:`fds` (the child has its own)."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = []

    def close(self) -> None:
        """:meth:`started`, kill and remove the cgroup, remove the private copies.
        Idempotent."""
        self.started()
        with self._closing:  # one caller takes the cgroup: a second one would empty it
            taken, self.cgroup = self.cgroup, None  # again once the next bot is in it
            self._held = False
        if taken is not None:
            taken.close()
        if self.copies is not None:
            shutil.rmtree(self.copies, ignore_errors=True)
            self.copies = None


def find_bwrap(policy: SandboxPolicy | None = None) -> str:
    """The path of ``bwrap``; :class:`SandboxError` saying how to install it if missing."""
    name = (policy or SandboxPolicy()).bwrap or "bwrap"
    path = shutil.which(name)
    if path is None:
        raise SandboxError(f"--sandbox needs bubblewrap ({name!r} is not found); {INSTALL_HINT}")
    return path


_HELP: dict[str, str] = {}


def _supports(bwrap: str, option: str) -> bool:
    """Whether this ``bwrap`` knows ``option`` (``--disable-userns`` came in 0.8.0)."""
    if bwrap not in _HELP:
        try:
            done = subprocess.run([bwrap, "--help"], capture_output=True, timeout=10, check=False)
            _HELP[bwrap] = (done.stdout + done.stderr).decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired):
            _HELP[bwrap] = ""
    return option in _HELP[bwrap].split()


def _tool(name: str) -> str:
    for folder in ("/usr/bin", "/bin"):
        path = os.path.join(folder, name)
        if os.access(path, os.X_OK):
            return path
    raise SandboxError(f"--sandbox needs {name} (util-linux), not found in /usr/bin or /bin")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _python_paths(exe: str) -> tuple[list[str], list[str]]:
    """What a Python interpreter ``exe`` needs: its venv (a ``pyvenv.cfg`` beside its
    ``bin``), its installation (the prefix of the real file), and the bones package:
    its folder alone (and the folders its files link to: an editable install's
    compiled modules), never the checkout around it; ``(paths to bind, PYTHONPATH
    entries)``.  A package folder named ``bones`` is put on ``PYTHONPATH`` through its
    parent, in which the sandbox shows nothing else; another (a plain editable
    install's ``src``) is found by the install's own finder in the bound venv."""
    binds = []
    root = os.path.dirname(os.path.dirname(os.path.abspath(exe)))
    if os.path.isfile(os.path.join(root, "pyvenv.cfg")):
        binds.append(root)
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(exe)))
    if prefix not in ("/", "/usr"):
        binds.append(prefix)
    for base in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        if os.path.realpath(exe).startswith(os.path.realpath(base) + "/"):
            binds.append(base)
    import bones

    package = os.path.dirname(os.path.abspath(bones.__file__))
    binds += [package, os.path.realpath(package)]
    # an editable install's link tree: each file a link into the checkout or a build folder
    for folder, _, files in os.walk(package):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                binds.append(os.path.dirname(os.path.realpath(path)))
    home = [os.path.dirname(package)] if os.path.basename(package) == "bones" else []
    return binds, home


def _interpreter(program: str) -> str | None:
    """The interpreter of a script's ``#!`` line (``/usr/bin/env NAME`` resolved on PATH)."""
    try:
        with open(program, "rb") as f:
            line = f.readline(256)
    except OSError:
        return None
    if not line.startswith(b"#!"):
        return None
    words = line[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        return shutil.which(words[1])
    return words[0]


def _plugin_paths(modules: Sequence[str]) -> tuple[list[str], list[str]]:
    """The files of the ``--plugin`` modules an isolated bot loads (found, not imported),
    and the folders to put on its ``PYTHONPATH``."""
    import importlib.util

    binds, roots = [], []
    for module in modules:
        top = module.partition(".")[0]
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue  # the bot's own import fails, with its message, in its handshake
        places = list(spec.submodule_search_locations or ())
        if not places and spec.origin and os.path.isabs(spec.origin):
            places = [spec.origin]
        for place in places:
            binds.append(place)
            roots.append(os.path.dirname(os.path.abspath(place)))
    return binds, roots


#: Host folders no bot may have bound, whatever its command names or links to.
_REFUSED = ("/proc", "/sys", "/dev", "/run", "/var/log", "/var/run", "/boot")


def _system(path: str) -> bool:
    return any(_under(path, d) for d in _SYSTEM_DIRS if os.path.isdir(d))


def _entry(text: str, path: str, home: str) -> str:
    """The real path of ``path`` (named ``text`` by a bot's command), checked: not a
    host folder of :data:`_REFUSED`, not a folder that holds the working folder
    ``home``, and, for a folder, no link inside that leads out of it (but into the
    system's folders, bound anyway).  :class:`SandboxError` saying which."""
    real = os.path.realpath(path)
    if not os.path.exists(real):  # a link to nothing (yet): what it would lead to is unknown
        raise SandboxError(
            f"--sandbox: the bot's command names {text!r}, a link to {real}, which does "
            "not exist; name the bot's own files"
        )
    for place in _REFUSED:
        if _under(real, place) or real == "/":
            raise SandboxError(
                f"--sandbox: the bot's command names {text!r} ({real}), a host folder no bot "
                "may see; name the bot's own files"
            )
    if not os.path.isdir(real):
        _not_a_journal(text, real)
        return real
    if _under(home, real):
        raise SandboxError(
            f"--sandbox: the bot's command names the folder {text!r}, which holds "
            "the runner's working folder; name the bot's own files or folder"
        )
    for folder, dirs, files in os.walk(real):
        for name in dirs + files:
            link = os.path.join(folder, name)
            if os.path.islink(link):
                target = os.path.realpath(link)
                if not (_under(target, real) or _system(target)):
                    raise SandboxError(
                        f"--sandbox: the bot's folder {real} holds the link {link} to "
                        f"{target}, outside it; copy what it needs into the folder"
                    )
            elif name in files:  # a hard link or a copy of a journal is refused too
                _not_a_journal(text, link)
    return real


#: How a bones journal begins (its header line; docs/matches.md), plain or gzipped.
_JOURNAL_HEAD = re.compile(rb'\s*\{\s*"type"\s*:\s*"match"')


def _not_a_journal(text: str, path: str) -> None:
    """:class:`SandboxError` if ``path`` (a file of the bot named ``text``) is a bones
    journal: any match's, not only this one's, for its header holds that match's
    secret and its records every deal.  The message never suggests making it readable."""
    import gzip
    import stat
    import zlib

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a pipe would block the read
            return
        with open(path, "rb") as f:
            head = f.read(256)
            if head[:2] == b"\x1f\x8b":  # gzip: the start of what it holds
                f.seek(0)
                with contextlib.suppress(OSError, EOFError, zlib.error):
                    head = gzip.GzipFile(fileobj=f).read(256)
    except OSError:
        return  # not readable by the runner: not copied either (Launch says so)
    if _JOURNAL_HEAD.match(head):
        raise SandboxError(
            f"--sandbox: the bot's command names {text!r}, which is or holds {path}, a "
            "bones journal (a match's secret and deals); no bot may see a journal"
        )


def _resolve(
    command: Sequence[str], cwd: str
) -> tuple[list[str], list[str], dict[str, str], list[str], list[str]]:
    """``(command with its program made absolute, shared paths to bind (the
    interpreter, its installation, bones), the entry's own paths (bound path -> real
    path, copied for each start by :class:`Launch`), PYTHONPATH entries, folders of its
    program and interpreter for PATH)``."""
    command = list(command)
    program = command[0]
    found = shutil.which(program) if "/" not in program else os.path.join(cwd, program)
    if found is None:
        raise SandboxError(f"--sandbox: the bot's program {program!r} is not found on PATH")
    command[0] = os.path.abspath(found)
    home = os.path.realpath(cwd)
    binds: list[str] = []
    own: dict[str, str] = {}
    pythonpath: list[str] = []
    programs = [command[0]]
    interp = _interpreter(command[0])
    if interp is not None:
        programs.append(interp)
        binds.append(interp)
    if _PYTHON.match(os.path.basename(command[0])) or _system(command[0]):
        binds.append(command[0])  # an interpreter or a system program: not the entry's
    else:
        own[command[0]] = _entry(program, command[0], home)
    folders = [os.path.dirname(exe) for exe in programs if not exe.startswith("/usr/")]
    for exe in programs:
        if _PYTHON.match(os.path.basename(exe)):
            more, entries = _python_paths(exe)
            binds += more
            pythonpath += entries
            if "bones.protocol.server" in command:  # --isolate: its --plugin modules
                modules = [b for a, b in zip(command, command[1:], strict=False) if a == "--plugin"]
                more, entries = _plugin_paths(modules)
                own.update((os.path.abspath(p), _entry(p, p, home)) for p in more)
                pythonpath += entries
    for arg in command[1:]:
        for text in (arg, arg.partition("=")[2]):
            if not text or text.startswith("-"):
                continue
            path = os.path.abspath(os.path.join(cwd, text))
            if os.path.lexists(path):
                own[path] = _entry(text, path, home)
    return command, binds, own, pythonpath, folders


def _readable_by_others(path: str, uid: int) -> None:
    """:class:`SandboxError` if the bot, as ``uid``, could not read the bound ``path``
    (the folders above it are the sandbox's own, 0755)."""
    import stat

    mode = os.stat(path).st_mode
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    if mode & need != need:
        raise SandboxError(
            f"--sandbox runs the bots as uid {uid}, which cannot read {path} (mode "
            f"{stat.S_IMODE(mode):04o}); make it readable (chmod o+rX), or run bones as "
            "another user than root"
        )


def _parents(path: str) -> list[str]:
    """The folders above ``path``, from the top (``/`` left out)."""
    out: list[str] = []
    while True:
        path = os.path.dirname(path)
        if path in ("/", ""):
            return out[::-1]
        out.append(path)


def wrap(
    command: Sequence[str],
    policy: SandboxPolicy | None = None,
    cwd: str | None = None,
    read_only: Sequence[str] = (),
) -> list[str]:
    """The command that runs ``command`` in the sandbox of ``policy``, started from
    ``cwd`` (default: the current folder; relative paths in the command are read
    there).  Every argument of ``command`` that names an existing file or folder, and
    its program unless a system program or a Python interpreter, is the entry's own:
    resolved and checked (:func:`_entry`) now, and at each start copied afresh by
    :class:`Launch` and bound read-only at the path the command names.  The
    interpreter, its installation, the bones package, ``read_only`` and
    ``policy.read_only`` are bound read-only, shared.  Nothing is bound writable.
    :class:`SandboxError` if ``bwrap`` is missing or a path is refused."""
    policy = policy or SandboxPolicy()
    bwrap = find_bwrap(policy)
    cwd = os.path.abspath(cwd or os.getcwd())
    command, binds, own, pythonpath, folders = _resolve(command, cwd)
    binds += [os.path.abspath(p) for p in (*policy.read_only, *read_only)]
    root = os.geteuid() == 0
    # a clean environment for bubblewrap itself; the bot is PID 1 of its namespace (no
    # bubblewrap inside whose memory or environment it could read), and all of the
    # namespace dies with it
    argv = [bwrap, "--unshare-pid", "--as-pid-1"]
    argv += ["--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    argv += ["--hostname", "bones-sandbox", "--new-session", "--die-with-parent"]
    if not root:  # an unprivileged user: bwrap needs a user namespace; no nested ones
        argv.append("--unshare-user")
        if _supports(bwrap, "--disable-userns"):
            argv.append("--disable-userns")
    covered = []
    for folder in _SYSTEM_DIRS:
        if os.path.islink(folder):
            argv += ["--symlink", os.readlink(folder), folder]
            covered.append(folder)
        elif os.path.isdir(folder):
            argv += ["--ro-bind", folder, folder]
            covered.append(folder)
    argv += ["--perms", "0755", "--dir", "/etc"]  # bubblewrap would make it 0700
    for path in _ETC:
        if os.path.exists(path):
            argv += ["--ro-bind", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    sized = _supports(bwrap, "--size")  # bubblewrap 0.5.0 and later
    for folder in ("/tmp", "/dev/shm"):
        argv += ["--perms", "1777"]
        if sized:
            argv += ["--size", str(policy.tmp_mb * _MB)]
        argv += ["--tmpfs", folder]
    # the shared paths, once each (a path inside another bound one is there already)
    wanted = sorted({os.path.abspath(p) for p in binds if os.path.exists(p)})
    kept: list[str] = []
    home = os.path.realpath(cwd)
    for path in wanted:
        if any(_under(path, c) for c in covered + kept):
            continue
        if os.path.isdir(path) and _under(home, os.path.realpath(path)):
            raise SandboxError(
                f"--sandbox: the bot needs the folder {path}, which holds the working folder "
                f"{cwd} (and so the journal); run the match from another folder"
            )
        if root:
            _readable_by_others(path, policy.uid)
        kept.append(path)
    if root:
        for real in own.values():
            _readable_by_others(real, policy.uid)
    made: set[str] = set()
    for path in [*kept, *own, cwd]:
        for parent in _parents(path) + ([path] if path == cwd else []):
            if parent in made or any(_under(parent, c) for c in covered + kept):
                continue
            if parent in ("/tmp", "/proc", "/dev", "/etc"):
                continue
            argv += ["--perms", "0755", "--dir", parent]
            made.add(parent)
    for path in kept:
        argv += ["--ro-bind", path, path]
    for path, real in sorted(own.items()):  # after the shared ones: the entry's own win
        argv += ["--ro-bind", _COPY + real, path]
    argv += ["--remount-ro", "/", "--chdir", cwd, "--clearenv"]
    env = {
        "PATH": ":".join([*dict.fromkeys(folders), _SANDBOX_PATH]),
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if pythonpath:
        env["PYTHONPATH"] = ":".join(dict.fromkeys(pythonpath))
    for key, value in env.items():
        argv += ["--setenv", key, value]
    if policy.seccomp:  # a memory file that holds it, at the start (Launch)
        argv += ["--seccomp", _PLACEHOLDER + seccomp_filter().hex()]
    if root:  # bwrap keeps CAP_SETUID/SETGID for setpriv alone, which drops them all
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--"]
        argv += [
            _tool("setpriv"),
            f"--reuid={policy.uid}",
            f"--regid={policy.gid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
        ]
    # the rlimits: set by the shell that becomes bubblewrap (no program of their own to
    # start), but RLIMIT_NPROC of an ordinary user's bot, which must count inside the
    # bot's user namespace (outside, it would count all that user's processes)
    jailed = policy.cgroup and _hierarchy() is not None
    ulimits = [
        f"-v {policy.memory_mb * 1024}",  # KiB
        f"-f {policy.file_mb * 2048}",  # blocks of 512 bytes
        f"-n {policy.open_files}",
        "-c 0",
    ]
    if not jailed and root:  # a cgroup's pids.max counts the bot's own tree alone
        ulimits.append(f"-p {policy.processes}")
    if not jailed and not root:
        argv += ["--", _tool("prlimit"), f"--nproc={policy.processes}"]
    script = "".join(f"ulimit {u} || exit 125; " for u in ulimits)
    # then the bot's cgroup.procs files (Launch puts them after the mark), each joined
    script += 'for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done'
    script += '; shift; exec "$@"'
    argv = [_tool("sh"), "-c", script, _MARK, "--", *argv]
    if jailed:  # Launch makes the cgroup and starts bubblewrap in it
        spec = f"memory={policy.memory_mb * _MB},pids={policy.processes},cpus={policy.cpus:g}"
        spec += ",count_cpu=1" if policy.count_cpu else ""
        argv.insert(0, _CGROUP + spec)
    return [*argv, "--", *command]


#: When :func:`warm_shared` last warmed each set of shared paths (a match start warms
#: again only after this many seconds: the tests play many matches in one process).
_WARMED: dict[tuple[str, ...], float] = {}
WARM_AGAIN = 600.0


def _warming(policy: SandboxPolicy) -> bool:
    return policy.warm or os.environ.get("BONES_SANDBOX_WARM") == "1"


def shared_paths(command: Sequence[str]) -> list[str]:
    """The host paths a :func:`wrap` command binds read-only and shares with every other
    bot (the system, the Python installation, the bones package; not the entry's own
    copies)."""
    out = []
    for index, arg in enumerate(command[:-2]):
        if arg == "--ro-bind" and not command[index + 1].startswith(_COPY):
            out.append(command[index + 1])
    return out


def warm_shared(commands: Sequence[Sequence[str] | None], policy: SandboxPolicy | None) -> Any:
    """Before a match: bring every page of the files the :func:`wrap` commands share into
    the page cache (:func:`bones.protocol.residency.warm`), so that a bot's first read of
    a rarely read page tells it nothing of what an earlier game or its partner read.
    None when neither ``policy.warm`` nor ``BONES_SANDBOX_WARM=1`` asks for it, or when
    done in this process within :data:`WARM_AGAIN` seconds; else its
    :class:`~bones.protocol.residency.Warmth`."""
    if policy is None or not _warming(policy):
        return None
    from .residency import warm

    roots = tuple(sorted({p for c in commands if c for p in shared_paths(c)}))
    if not roots or time.monotonic() - _WARMED.get(roots, -1e9) < WARM_AGAIN:
        return None
    done = warm(roots)
    _WARMED[roots] = time.monotonic()
    return done


def separate(commands: Sequence[Sequence[str] | None], private: Sequence[str] = ()) -> None:
    """:class:`SandboxError` if the files of one entry (what the :func:`wrap` commands
    ``commands`` copy into their sandboxes) hold another entry's, or hold or are one of
    the ``private`` paths (the journal, the bots' logs)."""
    owned = [
        (index, arg[len(_COPY) :])
        for index, command in enumerate(commands)
        for arg in command or ()
        if arg.startswith(_COPY)
    ]
    for index, path in owned:
        for other, theirs in owned:
            if other != index and path != theirs and _under(theirs, path):
                raise SandboxError(
                    f"--sandbox: bot {index + 1} would see {theirs}, a file of bot "
                    f"{other + 1}, through {path}; give each entry a folder of its own"
                )
        for secret in private:
            real = os.path.realpath(secret)
            if _under(real, path) or _under(path, real):
                raise SandboxError(
                    f"--sandbox: bot {index + 1} would see {real} (the journal or the bots' "
                    f"logs) through {path}; keep them out of the entries' folders"
                )


def check(policy: SandboxPolicy | None = None, timeout: float = 10.0) -> None:
    """Run ``true`` in the sandbox once: :class:`SandboxError` with bwrap's own message
    if this system cannot make it (no user namespaces, no permission to mount)."""
    job = Launch(wrap([_tool("true")], policy))
    try:
        done = subprocess.run(
            job.argv, capture_output=True, timeout=timeout, check=False, pass_fds=job.fds
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxError(f"--sandbox: bubblewrap could not run: {exc}") from None
    finally:
        job.close()
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = text[-1] if text else f"exit status {done.returncode}"
        raise SandboxError(f"--sandbox: bubblewrap cannot make the sandbox here: {why}")
