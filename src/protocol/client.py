"""The runner's side of the bones-bot protocol: :class:`ExternalBot`, a :class:`bones.Bot`
that is a child process speaking the protocol of docs/protocol.md on its stdin/stdout.

Every wait on the child has a deadline kept by this process (non-blocking pipes, ``poll``
and a monotonic clock), so a silent, slow or hostile bot cannot hang the runner; the
child's stderr is drained by a thread into a bounded buffer (and, optionally, a bounded
log file), so a chatty bot never blocks on a full pipe.  A fault — the process exits, a
deadline passes, a frame is malformed, a move is not legal — kills the child (its whole
process group) and raises :class:`ExternalBotError`, a :class:`bones.bot.BotError` whose
``kind`` says which fault it was.  POSIX only (``select.poll`` on pipes).
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import select
import signal
import struct
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, NoReturn

import msgpack

from ..botbase import Bot, BotError
from .frames import MAX_FRAME, FrameReader, ProtocolError, decode_body

if TYPE_CHECKING:
    from ..api import Move, Observation
    from ..observation import Observation as LineObservation
    from ..records import Event, RoundResult

__all__ = ["FAULTS", "PROTOCOL", "BotInfo", "ExternalBot", "ExternalBotError"]

#: The protocol version this module speaks (``"bones-bot protocol 1"``).
PROTOCOL = 1
#: The largest ``seed`` of ``game_start`` (and request ``id``): 2**63 - 1, an int64.
MAX_SEED = (1 << 63) - 1
#: The kinds of fault (:attr:`ExternalBotError.kind`).
FAULTS = ("crash", "timeout", "bad_frame", "illegal")

_LENGTH = struct.Struct(">I")
_READ_CHUNK = 1 << 16
_FLUSH_AT = 1 << 16  # buffered frames are written out once they reach this size
_TAIL_SHOWN = 800  # characters of the bot's stderr quoted in an error message
_REAP = 0.5  # seconds to wait for a killed bot to go before thawing its cgroup
_CPU_CHECK = 0.05  # seconds between looks at a bot's CPU time while it has a CPU limit
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu_time(root: int) -> float:
    """The CPU seconds used by the process ``root`` and every process under it (their
    threads, and the children they waited for), from ``/proc/PID/stat``: 0.0 where
    /proc is not there.  A process that left the tree (a double fork, outside a PID
    namespace) is not counted; in a sandbox it cannot leave."""
    parents: dict[int, list[int]] = {}
    used: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0.0
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
        except OSError:  # it ended meanwhile
            continue
        fields = data[data.rindex(b")") + 2 :].split()
        # ppid is field 4 of stat(5), utime, stime, cutime, cstime 14 to 17
        pid = int(name)
        parents.setdefault(int(fields[1]), []).append(pid)
        used[pid] = sum(int(x) for x in fields[11:15])
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += used.get(pid, 0)
        todo.extend(parents.get(pid, ()))
    return total / _TICK


class ExternalBotError(BotError):
    """A fault of an external bot.  ``kind`` is one of :data:`FAULTS`:

    * ``"crash"``: the process could not start, exited, or closed its stdout;
    * ``"timeout"``: no answer (or the bot did not read its input) before the deadline;
    * ``"bad_frame"``: a bad length, an oversized frame, bytes that are not msgpack, a
      message that is not a map, of an unexpected type, or with a field missing or of the
      wrong type;
    * ``"illegal"``: a move that is not one of the legal moves, or an index out of range.

    It pickles (``args == (seat, message, kind)``).
    """

    def __init__(self, seat: int, message: str, kind: str = "crash") -> None:
        super().__init__(seat, message)
        self.kind = kind
        self.args = (seat, message, kind)


@dataclass(frozen=True)
class BotInfo:
    """What a bot says about itself in its hello: ``name``, ``author``, ``version``, the
    ``variants`` it plays (``None``: all) and a free-form description of its ``options``."""

    name: str
    author: str = ""
    version: str = ""
    variants: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def supports(self, variant: str) -> bool:
        """Whether the bot says it plays ``variant``."""
        return self.variants is None or variant in self.variants


def _text(value: Any, limit: int = 200) -> str:
    """A short ``repr`` of a value the bot sent."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_UNSHOWN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, formats (bidi), separators


def printable(text: str, keep: str = "") -> str:
    """``text`` without the characters that would act on a terminal or a table rather
    than show: control characters (ESC, newlines, ...), formatting ones (bidi overrides),
    line and paragraph separators; those in ``keep`` stay.  Everything a bot says is
    passed through it before it is shown (its hello, its stderr in an error message):
    a bot's name cannot print a fake row into the results table."""
    import unicodedata

    if text.isprintable():
        return text
    return "".join(ch for ch in text if ch in keep or unicodedata.category(ch) not in _UNSHOWN)


def _parse_hello(msg: dict[str, Any]) -> BotInfo:
    """The :class:`BotInfo` of a bot's hello; :class:`ProtocolError` if it is not one."""
    kind = msg.get("type")
    if kind != "hello":
        raise ProtocolError(f"the bot answered the hello with a message of type {_text(kind)}")
    protocol = msg.get("protocol", PROTOCOL)
    if protocol != PROTOCOL or type(protocol) is not int:
        raise ProtocolError(f"the bot speaks protocol {_text(protocol)}; this runner speaks 1")
    name = msg.get("name")
    if not isinstance(name, str) or not 0 < len(name) <= 100:
        raise ProtocolError("hello: 'name' must be a string of 1 to 100 characters")
    name = " ".join(printable(name).split())
    if not name:
        raise ProtocolError("hello: 'name' has no printable character")
    texts = {}
    for key in ("author", "version"):
        value = msg.get(key)
        if value is not None and not isinstance(value, str):
            raise ProtocolError(f"hello: {key!r} must be a string or nil")
        texts[key] = printable(value or "")
    variants = msg.get("variants")
    if variants is not None:
        if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
            raise ProtocolError("hello: 'variants' must be an array of strings or nil")
        variants = tuple(printable(v) for v in variants)
    options = msg.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ProtocolError("hello: 'options' must be a map or nil")
    return BotInfo(name, texts["author"], texts["version"], variants, options)


class _Stderr:
    """The child's stderr, drained by a daemon thread: the last ``limit`` bytes in memory,
    and the first ``log_limit`` bytes appended to ``log`` (a path) if one is given."""

    def __init__(self, fd: int, limit: int, log: str | os.PathLike[str] | None, log_limit: int):
        self.limit = limit
        self.tail = bytearray()
        self.total = 0
        self.lock = threading.Lock()
        self.file: IO[bytes] | None = open(log, "ab") if log is not None else None  # noqa: SIM115
        self.log_left = log_limit
        self.unlogged = log is None  # all it wrote is in tail alone (a bot started ahead)
        self.fd = fd
        self.taken = 0  # bytes read from the pipe (total: those added, a moment later)
        self.reading = threading.Lock()  # held from a read to its count
        self.thread = threading.Thread(
            target=self._drain, args=(fd,), name="bones-bot-stderr", daemon=True
        )
        self.thread.start()

    def _drain(self, fd: int) -> None:
        ready = select.poll()
        ready.register(fd, select.POLLIN)
        try:
            while True:
                try:
                    ready.poll()  # waits with the lock free
                    with self.reading:  # the read and its count at once, for settle
                        chunk = os.read(fd, _READ_CHUNK)
                        self.taken += len(chunk)
                except InterruptedError:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                self._add(chunk)
        finally:
            os.close(fd)
            with self.lock:
                if self.file is not None:
                    self.file.close()
                    self.file = None

    def _add(self, chunk: bytes) -> None:
        with self.lock:
            self.total += len(chunk)
            self.tail += chunk
            if len(self.tail) > self.limit:
                del self.tail[: len(self.tail) - self.limit]
            if self.file is not None and self.log_left > 0:
                part = chunk[: self.log_left]
                self.log_left -= len(part)
                try:
                    self.file.write(part)
                    if self.log_left <= 0:
                        self.file.write(b"\n[bones: the rest of this bot's stderr is not logged]\n")
                    self.file.flush()
                except OSError:  # a full disk: stop logging, never stop draining
                    self.log_left = 0

    def switch(self, log: str | os.PathLike[str], log_limit: int) -> None:
        """From now on append to ``log``, at most ``log_limit`` bytes (a new game); a
        bot's first log gets what it wrote before (its last ``limit`` bytes)."""
        with self.lock:
            if self.file is not None:
                self.file.close()
            self.file = open(log, "ab")  # noqa: SIM115  (closed by the drain or the next switch)
            self.log_left = log_limit
            if self.unlogged:  # what it wrote before its first log: its start-up's, to it
                self.unlogged = False
                early = bytes(self.tail[:log_limit])
                self.log_left -= len(early)
                with contextlib.suppress(OSError):
                    self.file.write(early)
                    self.file.flush()
            if not self.thread.is_alive():  # drained to its end: nothing more comes
                self.file.close()
                self.file = None

    def settle(self, timeout: float = 5.0) -> None:
        """Wait until what the bot wrote so far is drained (the bytes in the pipe now, and
        a chunk read and not yet added): at the end of a game its log is then complete,
        however late the draining thread runs on a loaded machine.  What the bot writes
        meanwhile is not waited for (a flood costs no wait)."""
        import fcntl  # POSIX, as every ExternalBot: here so that bones imports on Windows
        import termios

        with self.reading:  # every byte is in the pipe or counted in taken, once
            try:
                waiting = fcntl.ioctl(self.fd, termios.FIONREAD, b"\0" * 4)
            except OSError:
                return  # closed: drained to its end
            target = self.taken + struct.unpack("i", waiting)[0]
        deadline = time.monotonic() + timeout
        while self.total < target and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.001)
        with self.lock:  # an _add under way (total counted first) has written its bytes
            pass

    def text(self) -> str:
        with self.lock:
            return self.tail.decode("utf-8", "replace")

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)


_LIVE: weakref.WeakSet[ExternalBot] = weakref.WeakSet()
_EVENT_FRAME: tuple[Any, bytes] = (None, b"")  # the last event sent and its frame


@atexit.register
def _close_all() -> None:  # pragma: no cover - runs at interpreter exit
    for bot in list(_LIVE):
        with contextlib.suppress(Exception):
            bot.close(grace=0.1)


def _sandboxed(command: Sequence[str]) -> bool:
    """Whether ``command`` is one of :func:`bones.protocol.sandbox.wrap` (the shell
    that becomes bubblewrap, after the cgroup request if any)."""
    return "--" in command and "bones-sandbox" in command[:5]


class ExternalBot(Bot):
    """A bot that runs as the child process ``command`` (a list of arguments; no shell)
    and speaks the bones-bot protocol (docs/protocol.md) on its stdin and stdout.

    The process is started and the handshake done in the constructor (within
    ``handshake_time`` seconds): a bot that fails it raises :class:`ExternalBotError`
    before any game.  Then every hook of :class:`bones.Bot` is forwarded as a frame;
    :meth:`choose` sends a ``move_request`` and waits at most ``move_time`` seconds
    (``None``: no limit) for the answer; writes wait at most ``hook_time`` seconds for a
    bot that does not read its input.  A fault raises :class:`ExternalBotError` (with a
    ``kind``) and kills the process; :meth:`restart` starts a fresh one (for the next
    game), :meth:`close` ends it (``quit``, a short grace, then SIGKILL to its process
    group).  Use it as a context manager, or call :meth:`close`: the process and its
    process group end with it; a child that left the group (``setsid``) is not killed
    unless the command runs in a PID namespace (:mod:`bones.protocol.sandbox`, where the
    whole tree dies with the bot).

    ``seed`` is sent in ``game_start`` (a bot may use it for its randomness): an int from
    0 to 2**63 - 1, so that every bot can hold it in a signed 64-bit integer (ValueError
    otherwise, when it is set).  The bot's
    stderr is kept in memory (its last ``stderr_limit`` bytes: :meth:`stderr_text`) and
    appended to the file ``log`` (at most ``log_limit`` bytes per process) if given.
    ``trace(direction, frame)`` is called with ``"send"`` or ``"recv"`` and the bytes of
    every frame (length prefix included), for debugging.  ``start=False`` makes the
    object without starting the process: call :meth:`start`, or :meth:`start_all` to
    start several bots at once.
    """

    name = "external"

    def __init__(
        self,
        command: Sequence[str],
        *,
        seed: int = 0,
        move_time: float | None = 10.0,
        hook_time: float | None = 10.0,
        handshake_time: float = 10.0,
        max_frame: int = MAX_FRAME,
        stderr_limit: int = 1 << 16,
        log: str | os.PathLike[str] | None = None,
        log_limit: int = 1 << 20,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        trace: Callable[[str, bytes], None] | None = None,
        start: bool = True,
    ) -> None:
        super().__init__(seed)
        if isinstance(command, (str, bytes)) or not command:
            raise TypeError("ExternalBot: command is a non-empty list of arguments (no shell)")
        self.command = [os.fspath(arg) for arg in command]
        for value, what in ((move_time, "move_time"), (hook_time, "hook_time")):
            if value is not None and not value > 0:
                raise ValueError(f"ExternalBot: {what} must be > 0 seconds or None")
        if not handshake_time > 0:
            raise ValueError("ExternalBot: handshake_time must be > 0 seconds")
        self.move_time = move_time
        self.hook_time = hook_time
        self.handshake_time = handshake_time
        self.max_frame = max_frame
        self.stderr_limit = stderr_limit
        self.log = log
        self.log_limit = log_limit
        self.env = None if env is None else dict(env)
        self.cwd = cwd
        self.trace = trace
        #: The clock of each game, ``(seconds, increment)`` (``bones match --tc``), sent in
        #: ``game_start``; the runner keeps it and sets ``move_time`` for each move.
        self.clock: tuple[float, float] | None = None
        #: The seat of the current game (-1 before the first ``start_game``).
        self.seat = -1
        #: What the bot said in its hello (None before a handshake).
        self.info: BotInfo | None = None
        #: The last fault (an :class:`ExternalBotError`), or None.
        self.fault: ExternalBotError | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: _Stderr | None = None
        self._out = bytearray()
        self._packer = msgpack.Packer(use_bin_type=True, autoreset=True)
        self._encoder: Any = PlainEncoder()  # the family's, from start_game
        self._request = 0
        self._window: float = 0.0  # the seconds of the current deadline, for messages
        #: The CPU seconds the next move may use (:meth:`cpu_time`; ``bones match --tc
        #: ...:cpu``), sent as its ``time_left_ms``; ``move_time`` still bounds its wall
        #: time.  None: no CPU limit.
        self.move_cpu: float | None = None
        self._cpu_limit: float | None = None  # cpu_time() at which the current move ends
        self._launch: Any = None  # a sandboxed bot's Launch (its filter, its cgroup)
        if start:
            self.start()

    @property
    def seed(self) -> int:
        """The ``seed`` of the next ``game_start``: an int from 0 to 2**63 - 1."""
        return self._seed

    @seed.setter
    def seed(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
            raise ValueError(
                f"ExternalBot: seed must be an int from 0 to 2**63 - 1 (the protocol's "
                f"range); got {_text(value, 40)}"
            )
        self._seed = int(value)

    # -- the process -----------------------------------------------------------------

    @property
    def _move_ms(self) -> int | None:
        """The move time in milliseconds, as the messages say it (None: no limit)."""
        return None if self.move_time is None else max(1, round(self.move_time * 1000))

    def cpu_time(self) -> float:
        """The CPU seconds the bot's processes have used, a count that only grows while
        it runs (compare two): its cgroup's where the sandbox gave it one that counts CPU
        time (:meth:`bones.protocol.cgroup.Cgroup.cpu_time`), else the sum over its
        process tree (:func:`tree_cpu_time`); 0.0 when it is not running."""
        if self._proc is None:
            return 0.0
        group = None if self._launch is None else self._launch.cgroup
        counted = None if group is None else group.cpu_time()
        return tree_cpu_time(self._proc.pid) if counted is None else counted

    @property
    def alive(self) -> bool:
        """Whether the bot's process is running (started, not faulted, not closed)."""
        return self._proc is not None and not _exited(self._proc)

    @property
    def pid(self) -> int | None:
        """The process id of the bot's process (None when it is not running)."""
        return None if self._proc is None else self._proc.pid

    def _label(self) -> str:
        program = self.command[0]
        if _sandboxed(self.command):  # the bot's own program: after bwrap's last "--"
            program = self.command[len(self.command) - self.command[::-1].index("--")]
        name = self.info.name if self.info is not None else os.path.basename(program)
        pid = f" (pid {self._proc.pid})" if self._proc is not None else ""
        return f"external bot {name!r}{pid}"

    def start(self) -> None:
        """Start the process and do the handshake (nothing if it is running; after
        :meth:`spawn`, the handshake alone, the bot thawed first)."""
        if self._proc is None:
            self._spawn()
        if self._launch is not None and self._launch.held:
            self._started += self._launch.release()  # its frozen time is not its own
        if self.info is None:
            self._handshake()

    def spawn(self, hold: float | None = None) -> None:
        """Start the process and send ``hello`` without waiting for the answer: the bot
        starts up while this process does something else (``bones match --sandbox``
        starts the next game's bot during a game), and :meth:`start` then reads its
        hello.  The bot has ``handshake_time`` seconds from now to answer (its time
        frozen not counted), or until :meth:`start` if that comes later and its answer
        is waiting then (the game before lasted longer).  With ``hold``, a sandboxed bot
        is frozen once it answered, or ``hold`` seconds from now at the latest, until
        :meth:`start` (:meth:`bones.protocol.sandbox.Launch.hold`): it runs only to
        start up, not while it waits (:class:`ExternalBotError` if it cannot be frozen
        here: :func:`bones.protocol.sandbox.freezable`)."""
        if self._proc is None:
            self._spawn()
            self._flush(self._started + self.handshake_time, "the handshake")  # the hello
            if hold is not None:
                from .sandbox import SandboxError

                try:
                    if self._launch is None:
                        raise SandboxError("--sandbox: only a sandboxed bot can be frozen")
                    self._launch.hold(self._stdout, hold)
                except SandboxError as exc:
                    self._fail("crash", f"could not be frozen: {exc}")

    @staticmethod
    def start_all(bots: Sequence[ExternalBot]) -> None:
        """Start several bots (made with ``start=False``) at once: every process is
        started, then every handshake done, so their start-up times overlap."""
        started = [bot for bot in bots if bot._proc is None]
        try:
            for bot in started:
                bot._spawn()
            for bot in started:
                bot._handshake()
        except BaseException:
            for bot in started:
                bot.close(grace=0.0)
            raise

    def _spawn(self) -> None:
        if not hasattr(select, "poll"):  # pragma: no cover - Windows
            raise OSError("ExternalBot needs a POSIX system (select.poll on pipes)")
        self.fault = None
        self.info = None
        self._out.clear()
        self._request = 0
        self._reader = FrameReader(self.max_frame)
        command, extra = list(self.command), list[int]()
        if _sandboxed(command):  # its seccomp filter in a file for bwrap, its cgroup made
            from .sandbox import Launch, SandboxError

            try:
                self._launch = Launch(command)
            except SandboxError as exc:
                error = ExternalBotError(self.seat, f"could not start the sandbox: {exc}", "crash")
                self.fault = error
                raise error from None
            command, extra = self._launch.argv, self._launch.fds
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            self._proc = subprocess.Popen(
                command,
                stdin=in_r,
                stdout=out_w,
                stderr=err_w,
                close_fds=True,
                pass_fds=extra,
                start_new_session=True,  # its own process group: close() kills it whole
                env={} if self._launch is not None else self.env,  # bwrap's: empty
                cwd=self.cwd,
            )
        except (OSError, ValueError) as exc:
            for fd in (in_r, in_w, out_r, out_w, err_r, err_w):
                os.close(fd)
            self._unjail()
            error = ExternalBotError(self.seat, f"could not start {self.command!r}: {exc}", "crash")
            self.fault = error
            raise error from None
        if self._launch is not None:  # the child has its copy of the filter's file
            self._launch.started()
        self._started = time.monotonic()
        for fd in (in_r, out_w, err_w):
            os.close(fd)
        os.set_blocking(in_w, False)
        os.set_blocking(out_r, False)
        self._stdin = in_w
        self._stdout = out_r
        self._rpoll = select.poll()
        self._rpoll.register(out_r, select.POLLIN)
        self._wpoll = select.poll()
        self._wpoll.register(in_w, select.POLLOUT)
        self._stderr = _Stderr(err_r, self.stderr_limit, self.log, self.log_limit)
        _LIVE.add(self)
        self._send({"type": "hello", "protocol": PROTOCOL})

    def _handshake(self) -> None:
        deadline = self._started + self.handshake_time
        if time.monotonic() >= deadline and self._rpoll.poll(0):  # spawned long ago (spawn)
            deadline = time.monotonic() + self.handshake_time  # and it answered: read it
        self._window = self.handshake_time
        self._flush(deadline, "the handshake")
        msg = self._receive(deadline, "its hello (the handshake)")
        try:
            self.info = _parse_hello(msg)
        except ProtocolError as exc:
            self._fail("bad_frame", f"handshake failed: {exc}")
        self.__dict__["name"] = self.info.name

    def log_to(self, log: str | os.PathLike[str], limit: int | None = None) -> None:
        """Append the bot's stderr from now on to the file ``log`` (at most ``limit``
        bytes, default ``log_limit``), for this process and the next: one log per game.
        What the bot wrote before goes to the file before (:meth:`settle_log`)."""
        self.log = log
        if limit is not None:
            self.log_limit = limit
        if self._stderr is not None:  # one spawned ahead may have died: its last words too
            self._stderr.settle()
            self._stderr.switch(log, self.log_limit)

    def settle_log(self) -> None:
        """Wait until what the bot wrote to stderr so far is in its log (at a game's end)."""
        if self._stderr is not None:
            self._stderr.settle()

    def restart(self, log: str | os.PathLike[str] | None = None) -> None:
        """End the process (if any) and start a fresh one with a new handshake, logging
        its stderr to ``log`` if given (else to the same log as before)."""
        self.close()
        if log is not None:
            self.log = log
        self.seat = -1
        self.start()

    def reset(self) -> None:
        """A fresh process (see :meth:`restart`): the state just after ``__init__``."""
        self.restart()

    def stderr_text(self) -> str:
        """The last ``stderr_limit`` bytes the bot wrote to stderr (its current or last
        process), decoded as UTF-8."""
        return "" if self._stderr is None else self._stderr.text()

    def close(self, grace: float = 0.5) -> None:
        """End the process: send ``quit``, close its stdin, wait up to ``grace`` seconds
        for it to exit, then SIGKILL its process group; reap it.  Idempotent."""
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        _LIVE.discard(self)
        self._out.clear()
        if not _exited(proc):
            with contextlib.suppress(OSError):
                frame = self._frame({"type": "quit"})
                if self.trace is not None:
                    self.trace("send", frame)
                os.write(self._stdin, frame)
        with contextlib.suppress(OSError):
            os.close(self._stdin)
        self._end(proc, grace)
        with contextlib.suppress(OSError):
            os.close(self._stdout)

    def _end(self, proc: subprocess.Popen[bytes], grace: float) -> bool:
        """Wait up to ``grace`` s for ``proc`` to exit, kill its group, reap it; whether
        it had exited by itself."""
        if self._launch is not None and self._launch.held:  # frozen, it cannot exit: its
            self._launch.release(kill=True)  # tree is killed (and thawed to die) now
        deadline = time.monotonic() + grace
        pause = 0.0005
        while not (exited := _exited(proc)) and time.monotonic() < deadline:
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.02)
        # the leader is not reaped yet, so its process group id is still its own
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
        try:  # SIGKILL ends a process at once, unless its cgroup is frozen
            proc.wait(timeout=_REAP)
        except subprocess.TimeoutExpired:
            if self._launch is not None:  # a freeze nobody ended: thawed, killed again
                self._launch.unfreeze()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=_REAP)  # else left to Popen's own reaping
        self._unjail()
        if self._stderr is not None:
            self._stderr.join(5.0)  # at once when the pipe ends; long only on a loaded machine
        return exited

    def _unjail(self) -> None:
        """A sandboxed bot's end: what is left in its cgroup killed, the cgroup removed."""
        if self._launch is not None:
            self._launch.close()
            self._launch = None

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close(grace=0.0)

    # -- frames ------------------------------------------------------------------------

    def _frame(self, message: dict[str, Any]) -> bytes:
        body = self._packer.pack(message)
        return _LENGTH.pack(len(body)) + body

    def _send(self, message: dict[str, Any]) -> None:
        body = self._packer.pack(message)
        out = self._out
        out += _LENGTH.pack(len(body))
        out += body
        if self.trace is not None:
            self.trace("send", _LENGTH.pack(len(body)) + body)

    def _flush(self, deadline: float | None, doing: str) -> None:
        """Write out the buffered frames, waiting for a bot that does not read its input
        until ``deadline`` (monotonic seconds; None: no limit)."""
        out = self._out
        if self._proc is None:
            self._dead(doing)
        fd = self._stdin
        while out:
            try:
                written = os.write(fd, out)
            except BlockingIOError:
                self._wait(self._wpoll, deadline, f"the bot did not read its input ({doing})")
                continue
            except InterruptedError:
                continue
            except OSError as exc:  # EPIPE: the bot closed its stdin or exited
                self._crashed(f"its stdin is closed ({exc.strerror}) during {doing}")
            del out[:written]

    def _wait(self, poll: select.poll, deadline: float | None, what: str) -> None:
        """Block until ``poll`` reports an event, or fail with a timeout at ``deadline``."""
        if deadline is None:
            poll.poll()
            return
        left = deadline - time.monotonic()
        while True:
            step = left if self._cpu_limit is None else min(left, _CPU_CHECK)
            if left > 0 and poll.poll(math.ceil(step * 1000)):
                return
            if time.monotonic() >= deadline:
                self._fail("timeout", f"{what}: nothing within {self._window:g} s")
            if self._cpu_limit is not None and self.cpu_time() >= self._cpu_limit:
                self._fail("timeout", f"{what}: it used its {self.move_cpu:g} s of CPU time")
            left = deadline - time.monotonic()

    def _receive(self, deadline: float | None, waiting: str) -> dict[str, Any]:
        """The next message from the bot, by ``deadline``; every failure is a fault.

        It reads before it polls: the answer is often in the pipe already (the bot ran
        while this process was switched out), and then one ``read`` is the only system
        call.  A read that finds nothing waits in ``poll``, to the deadline; bytes read
        after the deadline are late, even if they keep coming."""
        reader = self._reader
        fd = self._stdout
        while True:
            if reader.pending >= 4:
                try:
                    body = reader.next_body()
                    if body is not None:
                        if self.trace is not None:
                            self.trace("recv", _LENGTH.pack(len(body)) + body)
                        return decode_body(body)
                except ProtocolError as exc:
                    self._fail("bad_frame", f"{exc} (waiting for {waiting})")
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                self._wait(self._rpoll, deadline, f"no answer: waiting for {waiting}")
                continue
            except InterruptedError:
                continue
            except OSError as exc:
                self._crashed(f"its stdout failed ({exc.strerror}) while waiting for {waiting}")
            if not chunk:
                pending = reader.pending
                cut = f" in the middle of a frame ({pending} bytes)" if pending else ""
                self._crashed(f"it closed its stdout{cut} while waiting for {waiting}")
            reader.feed(chunk)
            if deadline is not None and time.monotonic() >= deadline:
                self._fail(
                    "timeout",
                    f"no answer: waiting for {waiting}: nothing within {self._window:g} s",
                )

    def _dead(self, doing: str) -> NoReturn:
        last = f" (its fault: {self.fault.message})" if self.fault is not None else ""
        error = ExternalBotError(
            self.seat, f"{self._label()} is not running{last} ({doing})", "crash"
        )
        raise error

    def _crashed(self, what: str) -> NoReturn:
        self._fail("crash", what, grace=0.5)  # it is most likely exiting: let it

    def _fail(self, kind: str, text: str, grace: float = 0.0) -> NoReturn:
        """Kill the process (after up to ``grace`` s for it to exit by itself) and raise
        the fault."""
        label = self._label()
        proc = self._proc
        if proc is not None:
            self._proc = None
            _LIVE.discard(self)
            with contextlib.suppress(OSError):
                os.close(self._stdin)
            exited = self._end(proc, grace)
            with contextlib.suppress(OSError):
                os.close(self._stdout)
            code = proc.returncode
            if exited and code is not None and code >= 0:
                text += f"; it exited with status {code}"
            elif exited and code is not None:
                name = signal.Signals(-code).name if -code in signal.valid_signals() else -code
                text += f"; it was killed by signal {name}"
        tail = printable(self.stderr_text(), keep="\n\t").strip()
        if tail:
            if len(tail) > _TAIL_SHOWN:
                tail = "..." + tail[-_TAIL_SHOWN:]
            text += f"; its stderr ends with:\n{tail}"
        error = ExternalBotError(self.seat, f"{label}: {text}", kind)
        self.fault = error
        raise error

    def _deadline(self, seconds: float | None) -> float | None:
        """The deadline ``seconds`` from now (None: none); a timeout will quote them."""
        if seconds is None:
            return None
        self._window = seconds
        return time.monotonic() + seconds

    # -- the hooks -----------------------------------------------------------------------

    def ping(self, timeout: float | None = None) -> float:
        """Send ``ping`` and wait (at most ``timeout`` s, default ``hook_time``) for the
        ``pong``; the round trip in seconds."""
        self._request += 1
        rid = self._request
        start = time.monotonic()
        deadline = self._deadline(self.hook_time if timeout is None else timeout)
        self._send({"type": "ping", "id": rid})
        self._flush(deadline, "a ping")
        while True:
            msg = self._receive(deadline, f"the pong of ping {rid}")
            if msg.get("type") == "pong" and msg.get("id") == rid:
                return time.monotonic() - start
            if msg.get("type") != "pong":
                self._fail(
                    "bad_frame", f"a message of type {_text(msg.get('type'))} instead of a pong"
                )

    def start_game(self, seat: int, variant: str, players: int, options: dict[str, Any]) -> None:
        from ..api import Round
        from ..registry import family_of

        self.seat = seat
        sides = Round.deal(variant, players, 0, **options).sides
        side = next(i for i, s in enumerate(sides) if seat in s)
        family = family_of(variant)
        self._encoder = (
            family.part("encoder")(self._packer) if family.has("encoder") else PlainEncoder()
        )
        self._send(
            {
                "type": "game_start",
                "variant": variant,
                "options": dict(options),
                "players": players,
                "seat": seat,
                "side": side,
                "sides": [list(s) for s in sides],
                "seed": self.seed,
                "time_control": {
                    "move_ms": self._move_ms,
                    "game_ms": None if self.clock is None else round(self.clock[0] * 1000),
                    "increment_ms": None if self.clock is None else round(self.clock[1] * 1000),
                },
            }
        )
        if len(self._out) >= _FLUSH_AT:
            self._flush(self._deadline(self.hook_time), "game_start")

    def start_round(self, observation: Observation) -> None:
        data = self._encoder.encode(observation)[0]
        self._send({"type": "round_start", "observation": data})
        if len(self._out) >= _FLUSH_AT:
            self._flush(self._deadline(self.hook_time), "round_start")

    def observe(self, event: Event) -> None:
        global _EVENT_FRAME
        # every bot of the table gets the same event in turn: its frame is made once
        last, frame = _EVENT_FRAME
        if event is not last:
            move = event.move
            frame = self._frame(
                {
                    "type": "event",
                    "kind": event.kind,
                    "seat": event.seat,
                    "move": None if move is None else _MOVE_TEXT.get(move) or _move_text(move),
                    "count": event.count,
                    "points": event.points,
                }
            )
            _EVENT_FRAME = (event, frame)
        self._out += frame
        if self.trace is not None:
            self.trace("send", frame)
        if len(self._out) >= _FLUSH_AT:
            self._flush(self._deadline(self.hook_time), "events")

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        self._request += 1
        rid = self._request
        data, legal = self._encoder.encode(observation)
        if len(legal_moves) != len(legal) or legal_moves is not observation.legal_moves:
            legal = [_MOVE_TEXT.get(m) or _move_text(m) for m in legal_moves]
        self._send(
            {
                "type": "move_request",
                "id": rid,
                "observation": data,
                "legal": legal,
                "time_left_ms": self._move_ms
                if self.move_cpu is None
                else max(1, round(self.move_cpu * 1000)),
            }
        )
        deadline = self._deadline(self.move_time)
        waiting = f"its move (request {rid})"
        if self.move_cpu is not None:
            self._cpu_limit = self.cpu_time() + self.move_cpu
        try:
            self._flush(deadline, waiting)
            while True:
                msg = self._receive(deadline, waiting)
                kind = msg.get("type")
                if kind == "move":
                    break
                if kind != "pong":  # a late pong is harmless
                    self._fail("bad_frame", f"a message of type {_text(kind)} instead of {waiting}")
        finally:
            self._cpu_limit = None
        try:
            return answer_move(msg, rid, legal_moves)
        except Fault as exc:
            self._fail(exc.kind, exc.text)

    def end_round(self, result: RoundResult, observation: Observation) -> None:
        self._send(
            {
                "type": "round_end",
                "result": {
                    "reason": result.reason,
                    "winners": list(result.winners),
                    "points": list(result.points),
                    "values": list(result.values),
                    "last_seat": result.last_seat,
                },
                "observation": self._encoder.encode(observation)[0],
            }
        )
        if len(self._out) >= _FLUSH_AT:
            self._flush(self._deadline(self.hook_time), "round_end")

    def end_game(self, scores: tuple[int, ...], winners: tuple[int, ...]) -> None:
        self._send({"type": "game_end", "scores": list(scores), "winners": list(winners)})
        self._flush(self._deadline(self.hook_time), "game_end")

    def __repr__(self) -> str:
        state = "running" if self.alive else "stopped"
        return f"<ExternalBot {self.command!r} {state}>"


# ---------------------------------------------------------------------------------------
# Observations, encoded fast


_MOVE_TEXT: dict[Any, str] = {}
_TILE_TEXT: dict[Any, str] = {}
_TEXT_LIMIT = 8192  # distinct moves and tiles are a few thousand at most
_SCHEMA_VERSION = 3  # Observation's msgpack schema (bones.observation.SCHEMA_VERSION)


def _move_text(move: Any) -> str:
    text = str(move)
    if len(_MOVE_TEXT) < _TEXT_LIMIT:
        _MOVE_TEXT[move] = text
    return text


def _tile_text(tile: Any) -> str:
    text = str(tile)
    if len(_TILE_TEXT) < _TEXT_LIMIT:
        _TILE_TEXT[tile] = text
    return text


def encode_observation(
    observation: LineObservation, packer: msgpack.Packer | None = None
) -> tuple[bytes, list[str]]:
    """``(observation.to_msgpack(), the texts of its legal moves)``: the same bytes (the
    tests check it in every variant), made faster — see :class:`ObservationEncoder`, which
    also reuses the bytes of the previous observation of the same round."""
    return ObservationEncoder(packer).encode(observation)


_ARRAY19 = b"\xdc\x00\x13"  # the array header of the 19 fields of an observation


class PlainEncoder:
    """The observations of a family with no encoder of its own (``Family`` part
    ``encoder``): each its ``to_msgpack()``."""

    __slots__ = ()

    def encode(self, observation: Any) -> tuple[bytes, list[str]]:
        """``(observation.to_msgpack(), the texts of its legal moves)``."""
        return observation.to_msgpack(), [str(m) for m in observation.legal_moves]


class ObservationEncoder:
    """The observations of one seat as msgpack: each the bytes of
    ``Observation.to_msgpack()``, in a time that does not grow with the round.

    During a round the layout and the public log only grow, so the bytes of the moves
    and events already encoded are kept and only the new ones are packed (an
    observation of another round, or after an undo, is encoded whole: its start is not
    the one kept).  The texts of moves and tiles are cached.  ``packer`` must have
    ``use_bin_type=True, autoreset=True`` (None: a new one)."""

    __slots__ = (
        "_events",
        "_events_bytes",
        "_head",
        "_head_key",
        "_layout",
        "_layout_bytes",
        "_packer",
    )

    def __init__(self, packer: msgpack.Packer | None = None) -> None:
        self._packer = (
            msgpack.Packer(use_bin_type=True, autoreset=True) if packer is None else packer
        )
        self._head_key: tuple[Any, ...] | None = None
        self._head = b""
        self._layout: tuple[Any, ...] = ()
        self._layout_bytes = b""
        self._events: tuple[Any, ...] = ()
        self._events_bytes = b""

    def encode(self, observation: LineObservation) -> tuple[bytes, list[str]]:
        """``(observation.to_msgpack(), the texts of its legal moves)`` of a line game's
        observation (the line family's ``encoder`` part)."""
        o = observation
        pack = self._packer.pack
        move, tile = _MOVE_TEXT.get, _TILE_TEXT.get
        # pack(list)[1:] is the concatenated items of a list of at most 15 (its header is
        # one byte): the fields of the observation array, packed several at a time
        key = (o.seat, o.side, o.variant, o.players, o.options)
        if key != self._head_key:
            head = [_SCHEMA_VERSION, "observation", o.seat, o.side, o.variant, o.options]
            self._head = _ARRAY19 + pack([*head, o.players])[1:]
            self._head_key = key
        layout, events = o.layout, o.events
        done = _grown(layout, self._layout, self._layout_bytes, self._pack_move)
        self._layout, self._layout_bytes = layout, done
        logged = _grown(events, self._events, self._events_bytes, self._pack_event)
        self._events, self._events_bytes = events, logged
        legal = [move(m) or _move_text(m) for m in o.legal_moves]
        hand = [tile(t) or _tile_text(t) for t in o.hand]
        middle = pack([hand, list(o.hand_sizes), o.stock_size, [list(end) for end in o.ends]])
        header = self._packer.pack_array_header
        data = b"".join(
            [
                self._head,
                middle[1:],
                header(len(layout)),
                done,
                pack(o.count),
                header(len(events)),
                logged,
                pack([list(o.scores), o.to_move, legal, list(o.closed_ends), o.opening])[1:],
            ]
        )
        return data, legal

    def _pack_move(self, move: Any) -> bytes:
        return self._packer.pack(_MOVE_TEXT.get(move) or _move_text(move))

    def _pack_event(self, e: Event) -> bytes:
        move = None if e.move is None else _MOVE_TEXT.get(e.move) or _move_text(e.move)
        return self._packer.pack([e.kind, e.seat, move, e.count, e.points])


def _grown(
    items: tuple[Any, ...], kept: tuple[Any, ...], kept_bytes: bytes, pack: Callable[[Any], bytes]
) -> bytes:
    """The packed ``items``, one after the other: ``kept_bytes`` (those of ``kept``) and
    the rest if ``items`` starts with ``kept``, else every item packed anew."""
    n = len(kept)
    if len(items) >= n and items[:n] == kept:
        if len(items) == n:
            return kept_bytes
        return kept_bytes + b"".join([pack(item) for item in items[n:]])
    return b"".join([pack(item) for item in items])


class Fault(Exception):
    """A fault found in a message (``kind`` as in :data:`FAULTS`, ``text``)."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(kind, text)
        self.kind = kind
        self.text = text


def answer_move(msg: dict[str, Any], rid: int, legal_moves: Sequence[Move]) -> Move:
    """The move a ``move`` message answers to request ``rid`` with ``legal_moves``:
    ``legal_moves[index]``, or the legal move written as ``move``.  :class:`Fault`
    ``bad_frame`` for a wrong id, a wrong-typed field, both or neither of ``index`` and
    ``move``; ``illegal`` for an index out of range or a move that is not legal."""
    rid_got = msg.get("id")
    if type(rid_got) is not int or rid_got != rid:
        raise Fault("bad_frame", f"the move answers request id {_text(rid_got)}, not {rid}")
    index = msg.get("index")
    text = msg.get("move")
    if (index is None) == (text is None):
        raise Fault("bad_frame", "a move message needs exactly one of 'index' and 'move'")
    if index is not None:
        if type(index) is not int:
            raise Fault("bad_frame", f"'index' must be an int; got {_text(index)}")
        if not 0 <= index < len(legal_moves):
            raise Fault("illegal", f"index {index} is out of range: {len(legal_moves)} legal moves")
        return legal_moves[index]
    if type(text) is not str:
        raise Fault("bad_frame", f"'move' must be a string; got {_text(text)}")
    for move in legal_moves:
        if str(move) == text:
            return move
    from ..core.moves import Move

    # the legal moves' own grammar: a double-six Move, or a train game's TrainMove
    parse = getattr(type(legal_moves[0]), "parse", Move.parse) if legal_moves else Move.parse
    try:
        parsed = parse(text)
    except (ValueError, TypeError):
        parsed = None
    if parsed is not None:
        for move in legal_moves:
            if move == parsed:
                return move
    raise Fault(
        "illegal",
        f"the move {_text(text, 40)} is not legal; legal: " + ", ".join(map(str, legal_moves)),
    )


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether ``proc`` has exited, without reaping it (its pid, and so its process
    group id, stay reserved until :meth:`subprocess.Popen.wait`)."""
    if proc.returncode is not None:
        return True
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # pragma: no cover - macOS
        return proc.poll() is not None
    try:
        return waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True
