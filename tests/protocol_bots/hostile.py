"""A protocol bot (msgpack and the standard library only) that attacks its runner, as a
hostile contest entry would, and reports what it managed on stderr (one line
``FINDING {json}`` per attempt; a test reads them from ``--bot-logs``).  Between its
attempts it plays a random legal index, so a match with it finishes.

    python hostile.py MODE [ARG]

Modes (the attempt is made once, at the first ``game_start`` of the process):

* ``proc``: list /proc, read every process's cmdline, environ and fds, open its
  memory for writing, look for the runner and try to open the journal (ARG: its path,
  hex-encoded so that it is not a path on the command line);
* ``net``: connect to 127.0.0.1:ARG (a port the test listens on) and to 1.1.1.1:53,
  and bind and listen on 127.0.0.1 (reports the port);
* ``write``: write a file in the folder ARG (hex-encoded), in the working folder, next
  to this script, and in /tmp;
* ``filltmp``: write 1 MiB blocks to files in /tmp (or the folder ARG, hex-encoded)
  until it fails, 2 GiB at most;
* ``memory``: allocate 64 MiB blocks until it fails;
* ``fork``: start a double-forked, setsid grandchild that runs ``sleep`` forever with
  ARG (a token) in its command line, so that the test can look for it afterwards;
* ``forkbomb``: fork children that sleep until a fork fails (2000 at most), report how
  many it made, then kill them;
* ``hog``: start two children that hold ARG/6 MiB each, then allocate 16 MiB blocks until
  it holds ARG MiB itself (the sandbox's memory limit: the address space of one process;
  together they go past the tree's cgroup limit of the same size);
* ``signals``: send SIGSTOP and SIGKILL to every other process it can see, and signal
  0 to the pid ARG (the runner's, as if it had learnt it);
* ``syscalls``: call ``ptrace``, ``unshare(CLONE_NEWUSER)``, ``keyctl``, ``bpf`` and
  ``socket(AF_INET)`` through the C library, and ``socket(AF_UNIX)``;
* ``probes``: try each system call the seccomp filter denies (docs/contest.md), with
  arguments that would succeed without it, and report each result (run on its own too:
  ``python hostile.py probes`` prints the findings and exits);
* ``pagecache``: the page-cache memory of issue 32: read 64 bits from the residency of
  the pages of the file ARG (``preadv2(RWF_NOWAIT)``: 1 where a page is cached), then
  write the game's seed there (``posix_fadvise(DONTNEED)``, then read the pages of the
  1 bits) for the next game's process to read;
* ``locks``: two copies of this bot in one game pass a word through POSIX record locks
  on the file ARG (each locks a byte at its seat, and looks with ``F_GETLK`` for the
  other's lock at each of its moves); also ``flock`` and an open-file-description lock;
* ``spin``: (alone) ARG processes spin for one second of wall time; report the CPU
  seconds they got together;
* ``carry``: report whether anything of an earlier game is left in /tmp or in this
  process, then leave a note in /tmp for the next game;
* ``name``: say a hello name with a newline and an escape sequence in it (a fake row
  for the results table);
* ``spinners``: ARG processes compute without end from its first ``game_start`` on,
  through its moves and its opponent's (the CPU hog of issue 32; processes, since
  Python's threads share one CPU);
* ``sleep``, ``work``, ``spinmove`` (for the CPU-time clock): at each move request,
  sleep ARG seconds (no CPU time), compute for ARG seconds of CPU time, or compute
  forever without answering.
"""

import errno
import json
import os
import random
import signal
import socket
import struct
import sys
import time

import msgpack

MODE = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
OUT = sys.stdout.fileno()
GAMES = []  # the seeds of the games this process has played (its memory)


def finding(**what):
    print("FINDING", json.dumps(what, sort_keys=True), file=sys.stderr, flush=True)


def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


def read():
    (n,) = struct.unpack(">I", read_exactly(4))
    return msgpack.unpackb(read_exactly(n), raw=False, strict_map_key=False)


def send(obj):
    body = msgpack.packb(obj, use_bin_type=True)
    os.write(OUT, struct.pack(">I", len(body)) + body)


def error(exc):
    return errno.errorcode.get(getattr(exc, "errno", None) or 0, type(exc).__name__)


def attack_proc():
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    finding(attempt="pids", pids=pids, me=os.getpid())
    for pid in pids:
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as f:
                    text = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
                finding(attempt=part, pid=pid, ok=True, text=text)
            except OSError as exc:
                finding(attempt=part, pid=pid, ok=False, error=error(exc))
        try:
            with open(f"/proc/{pid}/mem", "r+b"):
                finding(attempt="mem", pid=pid, ok=True)
        except OSError as exc:
            finding(attempt="mem", pid=pid, ok=False, error=error(exc))
        try:
            fds = {}
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    fds[fd] = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError as exc:
                    fds[fd] = error(exc)
            finding(attempt="fds", pid=pid, ok=True, fds=fds)
        except OSError as exc:
            finding(attempt="fds", pid=pid, ok=False, error=error(exc))
    journal = bytes.fromhex(ARG).decode()
    try:
        with open(journal, "rb") as f:
            finding(attempt="journal", ok=True, head=f.read(200).decode("utf-8", "replace"))
    except OSError as exc:
        finding(attempt="journal", ok=False, error=error(exc))


def attack_net():
    for host, port in (("127.0.0.1", int(ARG)), ("1.1.1.1", 53)):
        s = None
        try:
            s = socket.socket()
            s.settimeout(2)
            s.connect((host, port))
            s.sendall(b"hello from the bot\n")
            finding(attempt="connect", host=host, ok=True)
        except OSError as exc:
            finding(attempt="connect", host=host, ok=False, error=error(exc))
        finally:
            if s is not None:
                s.close()
    try:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        finding(attempt="listen", ok=True, port=listener.getsockname()[1])
    except OSError as exc:
        finding(attempt="listen", ok=False, error=error(exc))
        return
    GAMES.append(listener)  # kept open while the bot lives


def attack_write():
    here = os.path.dirname(os.path.abspath(__file__))
    for folder in (bytes.fromhex(ARG).decode(), os.getcwd(), here, "/", "/tmp"):
        path = os.path.join(folder, "hostile-was-here")
        try:
            with open(path, "w") as f:
                f.write("pwned\n")
            finding(attempt="write", folder=folder, ok=True)
        except OSError as exc:
            finding(attempt="write", folder=folder, ok=False, error=error(exc))


def attack_filltmp():
    block = b"x" * (1 << 20)
    folder = bytes.fromhex(ARG).decode() or "/tmp"
    total, errors, index = 0, [], 0
    while "ENOSPC" not in errors and len(errors) < 200 and total < (2 << 30):
        path = f"{folder}/fill-{index}"
        index += 1
        try:
            with open(path, "wb") as f:
                while True:
                    f.write(block)
                    f.flush()
                    total += len(block)
        except OSError as exc:
            errors.append(error(exc))
    finding(attempt="filltmp", folder=folder, written_mb=total >> 20, errors=errors)


def attack_memory():
    blocks = []
    try:
        while len(blocks) < 64:  # 4 GiB at most
            blocks.append(bytearray(64 << 20))
        finding(attempt="memory", ok=True, mb=64 * len(blocks))
    except MemoryError:
        finding(attempt="memory", ok=False, mb=64 * len(blocks))
    del blocks


def attack_fork():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", ARG])
    os.waitpid(pid, 0)
    seen = False  # the grandchild running, as this bot sees it
    for _ in range(400):
        for name in os.listdir("/proc"):
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    seen = seen or ARG.encode() in f.read()
            except OSError:
                continue
        if seen:
            break
        time.sleep(0.005)
    finding(attempt="fork", ok=True, seen=seen)


def attack_forkbomb():
    children, err = [], None
    while len(children) < 2000:
        try:
            pid = os.fork()
        except OSError as exc:
            err = error(exc)
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    finding(attempt="forkbomb", forks=len(children), error=err)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def attack_spinners():
    for _ in range(int(ARG)):
        if os.fork() == 0:
            while True:
                pass


def before_move():
    """What the clock modes do at a move request (nothing in the other modes)."""
    if MODE == "sleep":
        time.sleep(float(ARG))
    elif MODE == "work":
        end = time.process_time() + float(ARG)
        while time.process_time() < end:
            pass
    elif MODE == "spinmove":
        while True:
            pass


def attack_hog():
    limit = int(ARG) << 20
    ready_r, ready_w = os.pipe()
    for _ in range(2):
        if os.fork() == 0:
            block = bytearray(b"\x01") * (limit // 6)  # written: resident, not just mapped
            os.write(ready_w, b"k")
            time.sleep(60)
            del block
            os._exit(0)
    read = b""
    while len(read) < 2:
        read += os.read(ready_r, 2 - len(read))
    blocks = []
    try:
        while 16 * len(blocks) < int(ARG):
            blocks.append(bytearray(b"\x01") * (16 << 20))
        finding(attempt="hog", ok=True, mb=16 * len(blocks))
    except MemoryError:
        finding(attempt="hog", ok=False, mb=16 * len(blocks))
    del blocks


def attack_signals():
    me = os.getpid()
    for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
        if pid == me:
            continue
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(pid, sig)
                finding(attempt="kill", pid=pid, sig=int(sig), ok=True)
            except OSError as exc:
                finding(attempt="kill", pid=pid, sig=int(sig), ok=False, error=error(exc))
    try:
        os.kill(int(ARG), 0)
        finding(attempt="runner", ok=True)
    except OSError as exc:
        finding(attempt="runner", ok=False, error=error(exc))


def attack_syscalls():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    calls = {
        "ptrace": (101, 0, 0, 0, 0),  # PTRACE_TRACEME
        "unshare": (272, 0x10000000),  # CLONE_NEWUSER
        "keyctl": (250, 0, 0),
        "bpf": (321, 0, 0, 0),
        "socket_inet": (41, 2, 1, 0),
        "socket_unix": (41, 1, 1, 0),
    }
    for name, args in calls.items():
        result = libc.syscall(*[ctypes.c_long(a) for a in args])
        code = ctypes.get_errno()
        if result >= 0:
            if name.startswith("socket"):
                os.close(result)
            finding(attempt="syscall", name=name, ok=True)
        else:
            finding(attempt="syscall", name=name, ok=False, error=errno.errorcode.get(code, code))
    with open("/proc/self/status") as f:
        mode = [line.split()[1] for line in f if line.startswith("Seccomp:")]
    finding(attempt="seccomp", mode=mode[0] if mode else "?")


def _call(libc, number, *args):
    """A raw system call: (result, errno name or None)."""
    import ctypes

    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    code = ctypes.get_errno()
    return result, (None if result >= 0 else errno.errorcode.get(code, str(code)))


def probe_calls():
    """Each denied call, made so that it would succeed (or fail otherwise than EPERM)
    without the filter: (name, errno name or None where it worked), as they are made."""
    import ctypes
    import mmap

    libc = ctypes.CDLL(None, use_errno=True)
    buffers = [ctypes.create_string_buffer(256) for _ in range(4)]
    a, b, c, d = (ctypes.addressof(x) for x in buffers)
    # clone(CLONE_NEWUSER | SIGCHLD), not CLONE_VM: a child that exits at once
    result, err = _call(libc, 56, 0x10000000 | 17, 0, 0, 0, 0)
    if result == 0:
        os._exit(0)
    if result > 0:
        os.waitpid(result, 0)
    yield "clone_newuser", err
    yield "unshare_newuser", _call(libc, 272, 0x10000000)[1]
    pid = os.fork()
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    yield "ptrace_attach", _call(libc, 101, 16, pid)[1]  # PTRACE_ATTACH to its own child
    iovecs = (ctypes.c_void_p * 4)(a, 8, b, 8)
    here = ctypes.addressof(iovecs)
    yield "process_vm_readv", _call(libc, 310, pid, here, 1, here + 16, 1, 0)[1]
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    for name, family, kind in (
        ("inet", 2, 1),
        ("inet6", 10, 1),
        ("netlink", 16, 3),
        ("unix", 1, 1),
    ):
        result, err = _call(libc, 41, family, kind, 0)
        if result >= 0:
            os.close(result)
        yield "socket_" + name, err
    path = f"/tmp/probe-{os.getpid()}"
    with open(path, "wb") as f:
        f.write(b"x" * 8192)
    fd = os.open(path, os.O_RDWR)
    view = mmap.mmap(-1, 8192)  # an anonymous mapping for madvise
    where = ctypes.addressof(ctypes.c_char.from_buffer(view))
    mapped = libc.mmap
    mapped.restype = ctypes.c_void_p
    mapped.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    file_map = mapped(None, 8192, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    yield "mincore", _call(libc, 27, file_map, 8192, c)[1]
    yield "madvise_pageout", _call(libc, 28, file_map, 8192, 21)[1]
    yield "madvise_cold", _call(libc, 28, where, 8192, 20)[1]
    yield "cachestat", _call(libc, 451, fd, a, b, 0)[1]
    yield "fadvise64", _call(libc, 221, fd, 0, 0, 4)[1]  # POSIX_FADV_DONTNEED
    yield "readahead", _call(libc, 187, fd, 0, 4096)[1]
    iov = (ctypes.c_void_p * 2)(c, 16)
    yield "preadv2_nowait", _call(libc, 327, fd, ctypes.addressof(iov), 1, 0, 0, 8)[1]
    yield "pwritev2_nowait", _call(libc, 328, fd, ctypes.addressof(iov), 1, 0, 0, 8)[1]
    # RWF_DONTCACHE (0x80) reads a page without caching it; flags 0 the same call plainly
    yield "preadv2_dontcache", _call(libc, 327, fd, ctypes.addressof(iov), 1, 0, 0, 0x80)[1]
    yield "preadv2_plain", _call(libc, 327, fd, ctypes.addressof(iov), 1, 0, 0, 0)[1]
    context = ctypes.c_ulong(0)
    yield "io_setup", _call(libc, 206, 1, ctypes.addressof(context))[1]  # Linux AIO
    if context.value:
        _call(libc, 207, context.value)  # io_destroy
    yield "io_submit", _call(libc, 209, 0, 0, 0)[1]  # EINVAL without the filter
    yield "io_getevents", _call(libc, 208, 0, 0, 0, 0, 0)[1]
    yield "flock", _call(libc, 73, fd, 1 | 4)[1]  # LOCK_SH | LOCK_NB
    for name, command in (
        ("getlk", 5),
        ("setlk", 6),
        ("setlkw", 7),
        ("ofd_getlk", 36),
        ("ofd_setlk", 37),
        ("ofd_setlkw", 38),
    ):
        ctypes.memmove(d, struct.pack("hhqqi4x", 0, 0, 0, 1, 0), 32)
        yield "fcntl_" + name, _call(libc, 72, fd, command, d)[1]
    yield "fcntl_getlease", _call(libc, 72, fd, 1025, 0)[1]
    folder = os.open("/tmp", os.O_RDONLY)
    yield "fcntl_notify", _call(libc, 72, folder, 1026, 1)[1]  # DN_ACCESS
    os.close(folder)
    result, err = _call(libc, 294, 0)  # inotify_init1
    yield "inotify_init1", err
    if result >= 0:
        os.close(result)
    result, err = _call(libc, 253)  # inotify_init
    yield "inotify_init", err
    if result >= 0:
        ctypes.memmove(a, b"/tmp\0", 5)
        yield "inotify_add_watch", _call(libc, 254, result, a, 1)[1]
        os.close(result)
    result, err = _call(libc, 300, 0, 0)  # fanotify_init
    yield "fanotify_init", err
    if result >= 0:
        os.close(result)
    libc.munmap(ctypes.c_void_p(file_map), ctypes.c_size_t(8192))
    os.close(fd)
    os.remove(path)


def attack_probes():
    for name, err in probe_calls():
        finding(attempt="probe", name=name, error=err)
    with open("/proc/self/status") as f:
        mode = [line.split()[1] for line in f if line.startswith("Seccomp:")]
    finding(attempt="seccomp", mode=mode[0] if mode else "?")


def attack_pagecache(seed):
    """Read what an earlier game left in the page cache of ARG, then leave this game's
    seed there."""
    bits, errors = 0, set()
    fd = os.open(ARG, os.O_RDONLY)
    try:
        page = bytearray(1)
        for i in range(64):
            try:
                os.preadv(fd, [page], i * 4096, os.RWF_NOWAIT)
                bits |= 1 << i
            except BlockingIOError:
                pass
            except OSError as exc:
                errors.add(error(exc))
        for advice in (os.POSIX_FADV_DONTNEED, os.POSIX_FADV_RANDOM):  # no read-ahead
            try:
                os.posix_fadvise(fd, 0, 0, advice)
            except OSError as exc:
                errors.add(error(exc))
        word = seed & ((1 << 64) - 1)
        for i in range(64):
            if word >> i & 1:
                os.pread(fd, 1, i * 4096)
    finally:
        os.close(fd)
    finding(attempt="pagecache", read=bits, wrote=word, errors=sorted(errors))


LOCKS = {}


def attack_locks(seat, look):
    """Lock the byte of ``seat`` of ARG (once) and, when ``look``, report whose locks on
    the other bytes ``F_GETLK`` shows."""
    import fcntl

    if "fd" not in LOCKS:
        LOCKS["fd"] = fd = os.open(ARG, os.O_RDONLY)
        for name, call in (
            (
                "setlk",
                lambda: fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi4x", 0, 0, seat, 1, 0)),
            ),
            ("flock", lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
            (
                "ofd_setlk",
                lambda: fcntl.fcntl(fd, 37, struct.pack("hhqqi4x", 0, 0, 100 + seat, 1, 0)),
            ),
        ):
            try:
                call()
                finding(attempt="lock", name=name, seat=seat, ok=True)
            except OSError as exc:
                finding(attempt="lock", name=name, seat=seat, ok=False, error=error(exc))
    if not look:
        return
    seen = []
    for byte in range(4):
        if byte == seat:
            continue
        try:  # a write lock's test: the kernel answers with the holder of a read lock
            got = fcntl.fcntl(LOCKS["fd"], fcntl.F_GETLK, struct.pack("hhqqi4x", 1, 0, byte, 1, 0))
            kind, _, _, _, pid = struct.unpack("hhqqi4x", got)
            if kind != fcntl.F_UNLCK:
                seen.append(byte)
        except OSError as exc:
            finding(attempt="getlk", seat=seat, ok=False, error=error(exc))
            return
    finding(attempt="getlk", seat=seat, ok=True, seen=seen)


def attack_carry(seed):
    notes = sorted(name for name in os.listdir("/tmp") if name.startswith("note-"))
    finding(attempt="carry", notes=notes, remembered=len(GAMES))
    with open(f"/tmp/note-{seed}", "w") as f:
        f.write("a deal I have seen\n")


ATTACKS = {
    "proc": attack_proc,
    "net": attack_net,
    "write": attack_write,
    "filltmp": attack_filltmp,
    "memory": attack_memory,
    "fork": attack_fork,
    "forkbomb": attack_forkbomb,
    "hog": attack_hog,
    "spinners": attack_spinners,
    "signals": attack_signals,
    "syscalls": attack_syscalls,
    "probes": attack_probes,
}

if MODE == "probes" and ARG == "alone":
    attack_probes()
    sys.exit(0)
if MODE == "spin":  # alone: ARG processes spin for a second; their CPU seconds
    start = time.monotonic()
    for _ in range(int(ARG)):
        if os.fork() == 0:
            while time.monotonic() - start < 1.0:
                pass
            os._exit(0)
    for _ in range(int(ARG)):
        os.wait()
    times = os.times()
    finding(attempt="spin", cpu=times.children_user + times.children_system)
    sys.exit(0)
if MODE == "pagecache" and len(sys.argv) > 3:  # alone, with the seed to leave
    attack_pagecache(int(sys.argv[3]))
    sys.exit(0)

rng = random.Random(7)
attacked = False
while True:
    msg = read()
    kind = msg.get("type")
    if kind == "quit":
        sys.exit(0)
    if kind == "hello":
        name = "evil\n 1  fake-bot  999  999 0 0\x1b[2J" if MODE == "name" else "hostile-" + MODE
        send({"type": "hello", "name": name})
    elif kind == "ping":
        send({"type": "pong", "id": msg["id"]})
    elif kind == "game_start":
        if MODE == "carry":
            attack_carry(msg["seed"])
            GAMES.append(msg["seed"])
        elif MODE == "pagecache" and not attacked:
            attacked = True
            attack_pagecache(msg["seed"])
        elif MODE == "locks":
            LOCKS["seat"] = msg["seat"]
            attack_locks(msg["seat"], False)
        elif not attacked and MODE in ATTACKS:
            attacked = True
            ATTACKS[MODE]()
    elif kind == "move_request":
        before_move()
        if MODE == "locks":
            attack_locks(LOCKS["seat"], True)
        send({"type": "move", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))})
