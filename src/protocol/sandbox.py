"""Bots in a sandbox: the bubblewrap (``bwrap``) command line that runs a bot's command
with nothing of the runner in reach (``bones match --sandbox``, docs/contest.md).

:func:`wrap` turns a bot's command into ``bwrap ... -- COMMAND``: new PID, network, IPC
and UTS namespaces (a private ``/proc`` that shows only the sandbox, no network), its own
session, killed with its parent, a private size-limited ``/tmp``, a read-only root that
holds only the system's programs and libraries (``/usr`` and its ``/bin``, ``/lib``
links, a few files of ``/etc``), the bot's own files (the paths its command names) and,
for a Python bot, its Python installation and the bones package.  Bubblewrap loads a
seccomp filter (:func:`seccomp_filter`, x86_64) that refuses the system calls a bot
never needs.  Inside, ``prlimit`` sets the rlimits (address space, file size, open
files, no core; processes when the bot has a uid of its own) before the bot starts.
Run by root, the bot runs as uid and gid 65534 (``setpriv``); run by another user, as
that user in a user namespace.

The tool is bubblewrap, the sandbox of Flatpak, packaged by every distribution; bones
only chooses its options.  Without it :func:`find_bwrap` raises :class:`SandboxError`
saying how to install it: a sandbox that was asked for never silently goes missing.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import struct
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import OptionError

__all__ = [
    "SandboxError",
    "SandboxPolicy",
    "check",
    "find_bwrap",
    "open_filter",
    "seccomp_filter",
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
_PYTHON = re.compile(r"python[0-9.]*[a-z]?$")
_MB = 1 << 20


class SandboxError(OptionError):
    """The sandbox cannot be made (no bubblewrap, a path it cannot bind, namespaces the
    system forbids): one line that says what to do.  ``bones`` exits 2."""


@dataclass(frozen=True)
class SandboxPolicy:
    """The limits of a sandboxed bot.  ``memory_mb``: its address space (RLIMIT_AS);
    ``file_mb``: the largest file it may write (RLIMIT_FSIZE); ``tmp_mb``: the size of its
    private ``/tmp``; ``processes``: RLIMIT_NPROC, set only when the bot runs as a uid of
    its own (``uid``/``gid``, when the runner is root: the limit counts every process of
    that uid); ``open_files``: RLIMIT_NOFILE; ``read_only``: more paths bound read-only
    (a bot's data); ``bwrap``: the program (None: ``bwrap`` on PATH); ``seccomp``: load
    :func:`seccomp_filter` (x86_64 only)."""

    memory_mb: int = 1024
    file_mb: int = 16
    tmp_mb: int = 64
    processes: int = 256
    open_files: int = 256
    uid: int = 65534
    gid: int = 65534
    read_only: tuple[str, ...] = ()
    bwrap: str | None = None
    seccomp: bool = True


# -- the seccomp filter (x86_64) ---------------------------------------------------------

#: System calls a bot never needs, each answered EPERM (x86_64 numbers): tracing and
#: reading other processes, new namespaces, mounts, kernel modules and keys, BPF, perf,
#: io_uring, userfaultfd, clocks, swap, reboot.
DENIED_SYSCALLS = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "open_by_handle_at": 304,
    "name_to_handle_at": 303,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "acct": 163,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "settimeofday": 164,
    "clock_settime": 227,
    "clock_adjtime": 305,
    "adjtimex": 159,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "move_pages": 279,
    "migrate_pages": 256,
}
_AUDIT_ARCH_X86_64 = 0xC000003E
_CLONE, _CLONE3, _SOCKET = 56, 435, 41
_CLONE_NEWUSER = 0x10000000
_AF_UNIX = 1
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_EPERM = 0x00050000 | 1
_RET_ENOSYS = 0x00050000 | 38
# classic BPF: ld/jeq/jset/ret with constants
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_PLACEHOLDER = "bones-seccomp:"


def seccomp_filter() -> bytes | None:
    """The compiled seccomp program bubblewrap loads (``--seccomp FD``) before the bot
    starts: another architecture's calls kill the process, :data:`DENIED_SYSCALLS`,
    ``clone`` with ``CLONE_NEWUSER`` and ``socket`` of any family but ``AF_UNIX`` are
    EPERM, ``clone3`` is ENOSYS (its flags are out of a filter's reach; the C library
    then uses ``clone``), the rest is allowed.  ``None`` off x86_64: no filter."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    prog: list[tuple[int, int, int, int]] = []

    def op(code: int, k: int, jt: int = 0, jf: int = 0) -> None:
        prog.append((code, jt, jf, k))

    op(_LD_W_ABS, 4)  # seccomp_data.arch
    op(_JEQ_K, _AUDIT_ARCH_X86_64, 1, 0)
    op(_RET_K, _RET_KILL_PROCESS)
    op(_LD_W_ABS, 0)  # seccomp_data.nr
    op(_JGE_K, 0x40000000, 0, 1)  # the x32 ABI
    op(_RET_K, _RET_EPERM)
    for number in sorted(DENIED_SYSCALLS.values()):
        op(_JEQ_K, number, 0, 1)
        op(_RET_K, _RET_EPERM)
    op(_JEQ_K, _CLONE3, 0, 1)
    op(_RET_K, _RET_ENOSYS)
    op(_JEQ_K, _CLONE, 0, 4)
    op(_LD_W_ABS, 16)  # seccomp_data.args[0], its low 32 bits: clone's flags
    op(_JSET_K, _CLONE_NEWUSER, 0, 1)
    op(_RET_K, _RET_EPERM)
    op(_RET_K, _RET_ALLOW)
    op(_JEQ_K, _SOCKET, 0, 3)
    op(_LD_W_ABS, 16)  # socket's family
    op(_JEQ_K, _AF_UNIX, 1, 0)
    op(_RET_K, _RET_EPERM)
    op(_RET_K, _RET_ALLOW)
    return b"".join(struct.pack("<HBBI", *ins) for ins in prog)


def open_filter(argv: Sequence[str]) -> tuple[list[str], list[int]]:
    """``argv`` with the seccomp program that :func:`wrap` put in it as text turned into
    the read end of a pipe that holds it (for ``bwrap --seccomp FD``), and the file
    descriptors to pass to the child and close after it started."""
    out, fds = list(argv), []
    for index, arg in enumerate(out):
        if index and out[index - 1] == "--seccomp" and arg.startswith(_PLACEHOLDER):
            data = bytes.fromhex(arg[len(_PLACEHOLDER) :])
            read, write = os.pipe()
            try:
                os.write(write, data)  # a few hundred bytes: within the pipe's buffer
            finally:
                os.close(write)
            fds.append(read)
            out[index] = str(read)
    return out, fds


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
    ``bin``), its installation (the prefix of the real file), and the folder bones is
    imported from (on ``PYTHONPATH`` inside); ``(paths to bind, PYTHONPATH entries)``."""
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
    # the bones package itself (a PYTHONPATH checkout, an editable install's link tree)
    import bones

    package = os.path.dirname(os.path.abspath(bones.__file__))
    home = os.path.dirname(package)
    binds += [home, os.path.realpath(package)]
    # an editable install's link tree: each file a link into the checkout or a build folder
    for folder, _, files in os.walk(package):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                binds.append(os.path.dirname(os.path.realpath(path)))
    return binds, [home]


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


def _resolve(command: Sequence[str], cwd: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """``(command with its program made absolute, paths to bind, PYTHONPATH entries,
    folders of its program and interpreter for PATH)``."""
    command = list(command)
    program = command[0]
    found = shutil.which(program) if "/" not in program else os.path.join(cwd, program)
    if found is None:
        raise SandboxError(f"--sandbox: the bot's program {program!r} is not found on PATH")
    command[0] = os.path.abspath(found)
    binds: list[str] = [command[0]]
    pythonpath: list[str] = []
    programs = [command[0]]
    interp = _interpreter(command[0])
    if interp is not None:
        programs.append(interp)
        binds.append(interp)
    folders = [os.path.dirname(exe) for exe in programs if not exe.startswith("/usr/")]
    for exe in programs:
        if _PYTHON.match(os.path.basename(exe)):
            more, entries = _python_paths(exe)
            binds += more
            pythonpath += entries
            if "bones.protocol.server" in command:  # --isolate: its --plugin modules
                modules = [b for a, b in zip(command, command[1:], strict=False) if a == "--plugin"]
                more, entries = _plugin_paths(modules)
                binds += more
                pythonpath += entries
    home = os.path.realpath(cwd)
    for arg in command[1:]:
        for text in (arg, arg.partition("=")[2]):
            if not text or text.startswith("-"):
                continue
            path = os.path.abspath(os.path.join(cwd, text))
            if not os.path.exists(path):
                continue
            real = os.path.realpath(path)
            if os.path.isdir(real) and (real == "/" or _under(home, real)):
                raise SandboxError(
                    f"--sandbox: the bot's command names the folder {text!r}, which holds "
                    "the runner's working folder; name the bot's own files or folder"
                )
            binds.append(path)
    return command, binds, pythonpath, folders


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
    there).  Every argument of ``command`` that names an existing file or folder is
    bound read-only at its own path, as are ``read_only`` and ``policy.read_only``; a
    folder that holds ``cwd`` is refused (it would hold the journal).  Nothing is
    bound writable.  :class:`SandboxError` if ``bwrap`` is missing."""
    policy = policy or SandboxPolicy()
    bwrap = find_bwrap(policy)
    cwd = os.path.abspath(cwd or os.getcwd())
    command, binds, pythonpath, folders = _resolve(command, cwd)
    binds += [os.path.abspath(p) for p in (*policy.read_only, *read_only)]
    root = os.geteuid() == 0
    argv = [
        bwrap,
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "bones-sandbox",
        "--new-session",
        "--die-with-parent",
    ]
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
    for path in _ETC:
        if os.path.exists(path):
            argv += ["--ro-bind", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--perms", "1777"]
    if _supports(bwrap, "--size"):  # bubblewrap 0.5.0 and later
        argv += ["--size", str(policy.tmp_mb * _MB)]
    argv += ["--tmpfs", "/tmp"]
    # the bot's files, once each (a path inside another bound one is there already)
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
    made: set[str] = set()
    for path in [*kept, cwd]:
        for parent in _parents(path) + ([path] if path == cwd else []):
            if parent in made or any(_under(parent, c) for c in covered + kept):
                continue
            if parent == "/tmp" or parent in ("/proc", "/dev"):
                continue
            argv += ["--perms", "0755", "--dir", parent]
            made.add(parent)
    for path in kept:
        argv += ["--ro-bind", path, path]
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
    bpf = seccomp_filter() if policy.seccomp else None
    if bpf is not None:  # a pipe that holds it, at the start (open_filter)
        argv += ["--seccomp", _PLACEHOLDER + bpf.hex()]
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
    argv += [
        "--",
        _tool("prlimit"),
        f"--as={policy.memory_mb * _MB}",
        f"--fsize={policy.file_mb * _MB}",
        f"--nofile={policy.open_files}",
        "--core=0",
    ]
    if root:
        argv.append(f"--nproc={policy.processes}")
    return [*argv, "--", *command]


def check(policy: SandboxPolicy | None = None, timeout: float = 10.0) -> None:
    """Run ``true`` in the sandbox once: :class:`SandboxError` with bwrap's own message
    if this system cannot make it (no user namespaces, no permission to mount)."""
    argv, fds = open_filter(wrap([_tool("true")], policy))
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False, pass_fds=fds)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxError(f"--sandbox: bubblewrap could not run: {exc}") from None
    finally:
        for fd in fds:
            os.close(fd)
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = text[-1] if text else f"exit status {done.returncode}"
        raise SandboxError(f"--sandbox: bubblewrap cannot make the sandbox here: {why}")
