"""The game driver: plays one game's task to its record, in a worker or in-process.

Every hook of a bot runs under a guard: the watch slot the parent's watchdog reads, the
time limit (SIGALRM for in-process bots, the protocol's deadlines for external ones),
and anything the bot raises or answers wrong turned into a forfeit of its seat."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..bot import Bot, BotError, make_bot
from ..core import referee
from ..core.referee import HOOKS, SLOT, Guard, play_round
from ..game import new_game
from .journal import (
    encode_game,
    error_record,
    make_record,
    round_entry,
    round_json,
)
from .schedule import BOT_LOG_LIMIT, tc_text

# ---------------------------------------------------------------------------------------
# Playing one game (in a worker or in-process)


_INIT, _START_GAME, _START_ROUND, _OBSERVE, _CHOOSE, _END_ROUND, _END_GAME, _DEL = range(8)
MoveTimeout = referee.move_timeout()


def hook_name(code: float | int) -> str:
    code = int(code)
    return HOOKS[code] if 0 <= code < len(HOOKS) else "a hook"


class Watch:
    """This worker's slot in shared memory: pid, game id, the seat whose hook is running
    (-1: none: the engine's part of the game), since when (``time.monotonic()``, the same
    clock in every process of the machine; 0: idle) and which hook, so the parent can
    kill a worker stuck in a bot and say whose hook it was.  The engine's part is timed
    too: nothing of a game may run for the hard limit without a hook starting (a bot's
    ``__del__`` or thread that never lets go)."""

    def __init__(self, array: Any, index: int) -> None:
        self.a = array
        self.base = SLOT * index
        array[self.base] = os.getpid()
        self.idle()

    def game(self, gid: int) -> None:
        a, b = self.a, self.base
        a[b + 1] = gid
        a[b + 2] = -1.0
        a[b + 4] = -1.0
        a[b + 3] = time.monotonic()

    def begin(self, seat: int, hook: int) -> None:
        a, b = self.a, self.base
        a[b + 2] = seat
        a[b + 4] = hook
        a[b + 3] = time.monotonic()

    def end(self) -> None:
        a, b = self.a, self.base
        a[b + 2] = -1.0  # the hook code is left: with no seat the parent ignores it
        a[b + 3] = time.monotonic()

    def idle(self) -> None:
        a, b = self.a, self.base
        a[b + 1] = -1.0
        a[b + 2] = -1.0
        a[b + 3] = 0.0
        a[b + 4] = -1.0


_WATCH: Watch | None = None
_ALARM_READY = False
_IN_WORKER = False  # a worker of the pool: SIGINT is ignored, stdout goes to stderr


def _alarm_usable() -> bool:
    """SIGALRM can interrupt a bot: POSIX, main thread; the handler is installed once."""
    global _ALARM_READY
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return False
    if not _ALARM_READY:
        signal.signal(signal.SIGALRM, referee.on_alarm)
        _ALARM_READY = True
    return True


def _text(obj: Any, limit: int = 200) -> str:
    """``str(obj)`` of something a bot made, without trusting it: whatever its ``__str__``
    raises or returns, a short text comes back."""
    try:
        text = str(obj)
        if type(text) is not str:
            raise TypeError
    except BaseException:  # noqa: BLE001  (a bot's __str__ may raise anything)
        return "<unprintable>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_name(obj: Any) -> str:
    try:
        name = type(obj).__name__
        return name if type(name) is str else "?"
    except BaseException:  # noqa: BLE001
        return "?"


#: Under a CPU clock (``--tc ...:cpu``), a move's wall time is bounded too, by this many
#: times the CPU time the bot has left plus :data:`WALL_SLACK` seconds (or by ``--timeout``
#: if given): a bot that waits without computing is charged nothing, and still ended.
WALL_FACTOR = 4.0
WALL_SLACK = 1.0


class _ClockGuard(Guard):
    """A guard with a clock for the game (``--tc GAME+INC``): each move may take at most
    the clock's time left (and the time per move, if any); its time is subtracted from
    the clock and the increment added after it.  An in-process bot is interrupted by
    SIGALRM at that limit; an external bot gets it as its move time (``time_left_ms``)
    and its own deadline.  A clock that runs out is a timeout.

    With ``cpu`` (``--tc GAME+INC:cpu``) the clock counts the bot's own CPU time instead:
    an external bot's process tree (:meth:`ExternalBot.cpu_time`), from its
    ``start_game`` on (what it computes between its moves is charged at its next one),
    ended as soon as its move has used the clock's time; an in-process bot's thread
    during its moves.  A wall-time limit (:data:`WALL_FACTOR`) still ends a bot that
    waits; so the time a busy machine or a spinning opponent takes from a bot is not
    charged to it."""

    def __init__(
        self,
        bot: Any,
        seat: int,
        name: str,
        timeout: float | None,
        alarm: bool,
        tc: tuple[float, float],
        external: bool,
        cpu: bool = False,
    ) -> None:
        super().__init__(
            bot, seat, name, None if external else timeout, alarm and not external, *_slot()
        )
        self.external = external
        self.can_alarm = alarm and not external
        self.move_limit = timeout
        self.tc = tc
        self.cpu = cpu
        self.clock = float(tc[0])
        self.mark: float | None = None  # the bot's CPU time when its clock was last charged

    def _cpu_now(self) -> float:
        return self.bot.cpu_time() if self.external else time.thread_time()

    def start_game(self, *args: Any) -> None:
        super().start_game(*args)
        if self.cpu and self.external:
            self.mark = self._cpu_now()

    def choose(self, *args: Any) -> Any:
        tc = tc_text(self.tc, self.cpu)
        if self.cpu:
            if self.mark is not None:  # what it computed since its last move
                self.clock -= self._cpu_now() - self.mark
            if self.clock <= 0:
                raise MoveTimeout(
                    self.seat,
                    f"{self.name} ran out of time on its clock: it used the CPU time left "
                    f"between its moves (--tc {tc})",
                )
        left = self.clock
        cap = self.move_limit
        limit: float
        if self.cpu:  # CPU time for the clock, wall time for the backstop
            on_clock = False
            limit = WALL_FACTOR * left + WALL_SLACK if cap is None else cap
        else:
            on_clock = cap is None or left < cap
            limit = left if on_clock or cap is None else cap
        saved = self.timeout, self.alarm
        if self.external:
            self.bot.move_time = max(limit, 0.001)  # type: ignore[type-var]
            if self.cpu:
                self.bot.move_cpu = left
        else:
            self.timeout, self.alarm = limit, self.can_alarm
        start = self._cpu_now() if self.cpu else time.perf_counter()
        try:
            move = super().choose(*args)
        except BotError as exc:
            if on_clock and not self.external and isinstance(exc, MoveTimeout):
                raise MoveTimeout(
                    self.seat,
                    f"{self.name} ran out of time on its clock ({left:.3f}s left, --tc "
                    f"{tc}): {exc.message}",
                ) from None
            raise
        finally:
            self.timeout, self.alarm = saved
        end = self._cpu_now() if self.cpu else time.perf_counter()
        elapsed = end - start
        if elapsed > left:
            what = " of CPU time" if self.cpu else ""
            raise MoveTimeout(
                self.seat,
                f"{self.name} ran out of time on its clock: {elapsed:.3f}s{what} for a "
                f"move with {left:.3f}s left (--tc {tc})",
            )
        self.clock = left - elapsed + self.tc[1]
        if self.cpu and self.external:
            self.mark = end
        return move


def _external_kind(exc: BaseException) -> str | None:
    """The fault kind of an external bot's error (``crash``, ``timeout``, ``bad_frame``,
    ``illegal``), else None."""
    from ..protocol.client import FAULTS, ExternalBotError

    if isinstance(exc, ExternalBotError) and exc.kind in FAULTS:
        return exc.kind
    return None


#: This process's external bots between games, by command: a process is kept for the
#: next game of the same command (restarted after a fault), closed at exit.
_IDLE_EXTERNAL: dict[tuple[str, ...], list[Any]] = {}
_EXTERNAL_LOCK = threading.Lock()
_EXTERNAL_AT_EXIT: list[Any] = []


#: The threads ending the processes of fresh (sandboxed) bots after their games.
_CLOSING: list[threading.Thread] = []


#: ``--sandbox``: how many bots of a command are started ahead of their games: enough
#: to hide a sandboxed start (tens of ms, mostly waiting in the kernel to join the
#: bot's cgroups) behind games of a few ms.
AHEAD = 3
#: ``--sandbox``: a bot started ahead is frozen once it answered its hello, or this many
#: seconds after its spawn at the latest (so that a late hello buys no time to run), until
#: its game: while it waits it cannot listen to the bots playing (CPU contention).
HOLD = 0.5
#: ``--sandbox``: the bots spawned ahead, by command, for the next games (each with the
#: error of its spawn, if any); closed at exit.
_AHEAD: dict[tuple[str, ...], list[tuple[Any, BaseException | None]]] = {}


def _spawn_ahead(command: tuple[str, ...], handshake: float) -> None:
    """Start the next game's fresh bot of ``command`` now (``--sandbox``): its start-up
    runs beside the current game, on any CPU (the worker's plays the game), and it is
    sent its hello and nothing else until its own game, frozen once it answered
    (:meth:`ExternalBot.spawn`; only where it can be: :func:`_ahead`).
    The spawn is made by this thread, which lives on: a bot started by a thread that
    ends would be killed with it (bubblewrap's ``--die-with-parent``)."""
    from ..protocol.client import ExternalBot

    bot = ExternalBot(list(command), handshake_time=handshake, start=False)
    error = None
    pinned = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        if pinned is not None:
            with contextlib.suppress(OSError, ValueError):
                os.sched_setaffinity(0, range(os.cpu_count() or 1))
        bot.spawn(hold=HOLD)
    except Exception as exc:  # noqa: BLE001  (reported on the game that takes it)
        error = exc
    finally:
        if pinned is not None:
            with contextlib.suppress(OSError, ValueError):
                os.sched_setaffinity(0, pinned)
    with _EXTERNAL_LOCK:
        _AHEAD.setdefault(command, []).append((bot, error))


@functools.lru_cache(maxsize=64)
def _ahead(command: tuple[str, ...]) -> int:
    """How many bots of ``command`` to start ahead: :data:`AHEAD` where they can be
    frozen while they wait, else none (a stopped process group would not hold a bot
    that left it with setsid)."""
    from ..protocol.sandbox import freezable

    return AHEAD if freezable(command) else 0


def _close_externals() -> None:
    with _EXTERNAL_LOCK:
        bots = [bot for idle in _IDLE_EXTERNAL.values() for bot in idle]
        _IDLE_EXTERNAL.clear()
        bots += [bot for waiting in _AHEAD.values() for bot, _ in waiting]  # never used
        _AHEAD.clear()
    for bot in bots:  # their processes, cgroups and copies
        with contextlib.suppress(Exception):
            bot.close(grace=0.2)
    _join_closing()


def _forget_externals() -> None:
    """In a forked child (a worker): the parent's bots, and its finalizer that ends them,
    are the parent's; the child makes and ends its own."""
    global _EXTERNAL_LOCK
    _EXTERNAL_LOCK = threading.Lock()
    _IDLE_EXTERNAL.clear()
    _AHEAD.clear()
    _EXTERNAL_AT_EXIT.clear()
    _CLOSING.clear()


os.register_at_fork(after_in_child=_forget_externals)


def _close_quietly(bot: Any) -> None:
    with contextlib.suppress(Exception):
        bot.close(grace=0.1)


def _join_closing() -> None:
    """Wait for the fresh bots' processes to end (their logs complete, their cgroups
    emptied)."""
    while _CLOSING:
        _CLOSING.pop().join()


def _take_external(
    command: tuple[str, ...],
    seat: int,
    seed: int,
    timeout: float | None,
    clock: tuple[float, float] | None = None,
    log: str | None = None,
    fresh: bool = False,
) -> Any:
    """An external bot running ``command`` for ``seat`` of a game: an idle one of this
    process (restarted if its process is gone: after a fault) or a new one, with the
    game's ``clock`` and its stderr going to ``log`` (if given).  A ``fresh`` one
    (``--sandbox``) is a new process, started ahead during the game before if there was
    one and it can be frozen while it waits (:func:`_ahead`, :func:`_spawn_ahead`),
    and the next game's is started now.  Its fault in the
    handshake is an :class:`ExternalBotError` of ``seat``."""
    from ..protocol.client import ExternalBot, ExternalBotError

    error = None
    with _EXTERNAL_LOCK:
        waiting = (_AHEAD if fresh else _IDLE_EXTERNAL).get(command)
        if fresh and waiting:
            bot, error = waiting.pop(0)
        else:
            bot = waiting.pop() if waiting else None
        if not _EXTERNAL_AT_EXIT:
            import multiprocessing.util

            # workers end with os._exit: atexit does not run, multiprocessing's finalizers do
            _EXTERNAL_AT_EXIT.append(
                multiprocessing.util.Finalize(None, _close_externals, exitpriority=10)
            )
    limit = hard_limit(timeout)
    handshake = 10.0 if limit is None else max(1.0, min(10.0, limit - 1.0))
    if bot is None:
        bot = ExternalBot(list(command), handshake_time=handshake, start=False)
    bot.seed = seed
    bot.move_time = timeout
    bot.move_cpu = None  # set for each move under a CPU clock
    bot.hook_time = timeout
    bot.clock = clock
    if log is not None:
        bot.log_to(log, BOT_LOG_LIMIT)
    try:
        if error is not None:  # its spawn failed (the sandbox could not be made)
            raise error
        if fresh:  # one spawned ahead that died since is not replaced: it fails its game
            bot.start()
        elif not bot.alive:
            bot.restart()
    except ExternalBotError as exc:
        raise ExternalBotError(seat, exc.message, exc.kind) from None
    finally:
        while fresh and len(_AHEAD.get(command, ())) < _ahead(command):  # the next games',
            _spawn_ahead(command, handshake)  # whatever became of this one
    bot.seat = seat
    return bot


def _give_back(bot: Any, finished: bool, fresh: bool = False) -> None:
    """Return an external bot after its game; one whose game did not end normally is
    closed (a fresh process plays its next game).  A ``fresh`` one (``--sandbox``) is
    not used again: its process ends in a thread of its own, beside the next game."""
    if fresh:
        thread = threading.Thread(target=_close_quietly, args=(bot,), daemon=True)
        thread.start()
        _CLOSING.append(thread)
        return
    if not finished:
        with contextlib.suppress(Exception):
            bot.close(grace=0.1)
    else:
        bot.settle_log()  # the game's log complete when its result is recorded
    with _EXTERNAL_LOCK:
        _IDLE_EXTERNAL.setdefault(tuple(bot.command), []).append(bot)


def _forfeit(exc: Exception) -> dict[str, Any]:
    """``{"seat", "reason", "detail"}`` of a BotError: timeout, crash (a hook raised) or
    illegal (choose answered something that is not a legal move); an external bot's
    fault: its kind (crash, timeout, bad_frame, illegal)."""
    seat = int(getattr(exc, "seat", -1))
    kind = _external_kind(exc)
    if kind is not None:
        reason = kind
    elif isinstance(exc, MoveTimeout):
        reason = "timeout"
    elif exc.__cause__ is not None:
        reason = "crash"
    else:
        reason = "illegal"
    full = _text(getattr(exc, "message", exc), 100_000)
    detail = full
    if len(detail) > 500:  # what went wrong comes first, an external bot's stderr last
        detail = detail[:300] + " ... " + detail[-195:]
    forfeit = {"seat": seat, "reason": reason, "detail": detail}
    trace = _traceback(exc, full)
    if trace:
        forfeit["traceback"] = trace
    return forfeit


#: The frames of a crashing bot's traceback kept in its forfeit: the bot's own code is
#: where it crashed, the deepest frames; the referee's above them say nothing new.
TRACE_FRAMES = 6
#: At most this many characters of a traceback (a frame's line of code may be long).
TRACE_LIMIT = 4000
_STDERR = "; its stderr ends with:\n"


def _traceback(exc: BaseException, detail: str) -> str:
    """The traceback of a bot's crash, for the bot's writer: an in-process bot's error
    with its last frames (file, line, function, code), an external bot's stderr tail
    (where its own runtime printed its traceback); "" when there is none."""
    if _STDERR in detail:
        return detail.partition(_STDERR)[2][-TRACE_LIMIT:]
    cause = exc.__cause__
    if cause is None or cause.__traceback__ is None:
        return ""
    import traceback

    try:
        frames = list(traceback.extract_tb(cause.__traceback__))
        # the referee's own frames (compiled, bones.core) come before the bot's
        while len(frames) > 1 and frames[0].filename.endswith(".pyx"):
            frames = frames[1:]
        frames = frames[-TRACE_FRAMES:]
        text = "".join(
            ["Traceback (most recent call last; the bot's last frames):\n"]
            + traceback.format_list(frames)
            + [f"{referee.raised(cause)}\n"]
        )
    except BaseException:  # noqa: BLE001  (a bot's exception may break anything)
        return ""
    return text if len(text) <= TRACE_LIMIT else "..." + text[-TRACE_LIMIT:]


def _scorer_fault(exc: BaseException, variant: str) -> str | None:
    try:
        return _find_scorer_fault(exc, variant)
    except Exception:  # noqa: BLE001  (a bot's exception object may be anything)
        return None


_CALL_SCORER = "bones.core.scorer.call_scorer"  # its name in a traceback


def _find_scorer_fault(exc: BaseException, variant: str) -> str | None:
    """The error message when ``exc`` comes from the variant's Python ``move_scorer``
    called by the engine, else ``None``.  A bot that asks ``points_after`` of a variant
    whose scorer raises does not forfeit: the variant is at fault.  Only a scorer frame
    called from bones itself counts (a bot that calls the scorer itself, or raises an
    error that says "move_scorer", forfeits as any crash)."""
    from .. import registry

    try:
        scorer = registry.variant(variant).move_scorer
    except Exception:  # noqa: BLE001
        return None
    if scorer is None:
        return None
    call = type(scorer).__dict__.get("__call__")
    code = getattr(scorer, "__code__", None) or getattr(call, "__code__", None)
    if code is None:
        return None
    seen: set[int] = set()
    chain: BaseException | None = exc
    while chain is not None and id(chain) not in seen:
        seen.add(id(chain))
        previous = ""
        tb = chain.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            # bones calls the scorer only through bones.core.scorer.call_scorer, whose
            # (compiled) traceback entry comes just before the scorer's frame
            if frame.f_code is code and previous == _CALL_SCORER:
                name = getattr(scorer, "__qualname__", None) or _type_name(scorer)
                what = referee.raised(chain)
                return f"variant {variant!r}: its move_scorer {name} raised {what}"
            previous = frame.f_code.co_name
            tb = tb.tb_next
        chain = chain.__cause__ or chain.__context__
    return None


def _engine_error(exc: BaseException, variant: str) -> str:
    fault = _scorer_fault(exc, variant)
    if fault is not None:
        return fault
    return f"the engine raised {referee.raised(exc)} (variant {variant!r})"


class _StdoutToStderr:
    """Bots' prints go to stderr, never into the runner's stdout (``--json``): while a
    game is played in this process's main thread, ``sys.stdout`` is ``sys.stderr``
    (workers redirect file descriptor 1 as well, once)."""

    def __enter__(self) -> None:
        self.saved = None
        if not _IN_WORKER and threading.current_thread() is threading.main_thread():
            self.saved = sys.stdout
            sys.stdout = sys.stderr

    def __exit__(self, *exc: Any) -> None:
        if self.saved is not None:
            sys.stdout = self.saved


class _UserInterrupt:
    """In the main thread of a process that is not a worker, tells the user's Ctrl-C
    (SIGINT, which must stop the match) from a bot raising ``KeyboardInterrupt`` itself
    (its forfeit): a SIGINT handler marks the interrupt as the user's before raising."""

    def __enter__(self) -> None:
        self.saved: Any = None
        if _IN_WORKER or threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            referee.set_user_interrupt(False)
            self.saved = signal.default_int_handler
            signal.signal(signal.SIGINT, _on_sigint)

    def __exit__(self, *exc: Any) -> None:
        if self.saved is not None:
            signal.signal(signal.SIGINT, self.saved)


def _on_sigint(signum: int, frame: Any) -> None:
    referee.set_user_interrupt(True)
    raise KeyboardInterrupt


def hard_limit(timeout: float | None) -> float | None:
    """How long a hook may run before the watchdog kills the worker (SIGALRM has
    normally stopped the bot at ``timeout``): twice the time limit, at least 5 s more."""
    if timeout is None:
        return None
    return timeout + max(timeout, 5.0)


#: The hooks a guard may skip: (code, name, :class:`~bones.Bot`'s own, which does nothing).
_SKIPPABLE = tuple(
    (hook, HOOKS[hook], getattr(Bot, HOOKS[hook]))
    for hook in (_START_GAME, _START_ROUND, _OBSERVE, _END_ROUND, _END_GAME)
)


def _make(guard: Guard, spec: str, seed: int) -> Any:
    """Make the bot of a seat (in its guarded ``__init__`` call).  The hooks it keeps from
    :class:`~bones.Bot` do nothing: the guard skips them instead of timing thousands of
    empty calls."""
    bot = make_bot(spec, seed=seed)
    kind = type(bot)
    own = getattr(bot, "__dict__", None) or {}
    skip = 0
    for hook, name, noop in _SKIPPABLE:
        if getattr(kind, name, None) is noop and name not in own:
            skip |= 1 << hook
    guard.skip |= skip
    return bot


def _slot() -> tuple[Any, int]:
    """The watch array and this worker's slot in it, for a guard (None: not a worker)."""
    watch = _WATCH
    return (None, 0) if watch is None else (watch.a, watch.base // SLOT)


def play_game(task: Mapping[str, Any]) -> dict[str, Any]:
    """Play the game of ``task`` to its end (or to a forfeit) and return its record.

    For each seat a bot is made from its spec (``bot_seeds[seat]`` unless the spec names a
    seed); ``start_game``; each round is played by :func:`bones.bot.play_round` (which
    delivers ``start_round``, every public event, ``choose`` and ``end_round``);
    ``end_game``.  A bot that raises (anything, ``SystemExit`` included), answers
    anything but a legal move or overruns its time forfeits: it loses the game in every
    seat it holds (:func:`~bones.match.journal.forfeit_result`) and
    the record says why.  An error of the engine (a variant's ``move_scorer`` that
    raises) voids the game: the record's ``error`` says what happened.
    """
    rec, rounds = _played(task, round_entry)
    rec["rounds"] = rounds
    return rec


def _played(
    task: Mapping[str, Any], entry: Callable[[Any], Any]
) -> tuple[dict[str, Any], list[Any]]:
    """:func:`play_game`'s record, with its ``rounds`` empty, and each round as ``entry``
    makes it: a dict (:func:`~bones.match.journal.round_entry`) or, for a worker, the text
    the journal writes (:func:`~bones.match.journal.round_json`)."""
    with _StdoutToStderr(), _UserInterrupt():
        return _play_game(task, entry)


def _play_game(
    task: Mapping[str, Any], entry: Callable[[Any], Any]
) -> tuple[dict[str, Any], list[Any]]:
    start = time.perf_counter()
    watch = _WATCH
    if watch is not None:
        watch.game(int(task["id"]))
    n = int(task["players"])
    timeout = task.get("timeout")
    alarm = timeout is not None and _alarm_usable()
    options = dict(task["options"])
    commands = task.get("commands")
    tc = task.get("tc")
    cpu = bool(task.get("tc_cpu"))
    if tc is not None:
        alarm = _alarm_usable()
    rounds: list[Any] = []
    forfeit = None
    guards: list[Guard] = []
    game = None
    finished = False
    try:
        game = new_game(task["variant"], n, int(task["seed"]), **options)
        for seat, spec in enumerate(task["seats"]):
            name = str(spec).partition(":")[0].strip() or str(spec)  # the registered name
            command = None if commands is None else commands[seat]
            seed = int(task["bot_seeds"][seat])
            guard: Guard
            if command is not None:  # an external bot: it keeps its own deadlines
                if tc is not None:
                    guard = _ClockGuard(None, seat, name, timeout, False, tuple(tc), True, cpu)
                else:
                    guard = Guard(None, seat, name, None, False, *_slot())
                    guard.external = True
                log = None
                if task.get("bot_logs"):
                    log = os.path.join(task["bot_logs"], f"game-{task['id']}-seat-{seat}.log")
                clock = None if tc is None else (float(tc[0]), float(tc[1]))
                fresh = bool(task.get("fresh"))  # --sandbox: a new process every game
                make: Any = lambda c=tuple(command), s=seat, x=seed, k=clock, g=log, f=fresh: (  # noqa: E731
                    _take_external(c, s, x, timeout, k, g, f)
                )
            else:
                if tc is not None:
                    guard = _ClockGuard(None, seat, name, timeout, alarm, tuple(tc), False, cpu)
                else:
                    guard = Guard(None, seat, name, timeout, alarm, *_slot())
                make = lambda g=guard, s=spec, x=seed: _make(g, s, x)  # noqa: E731
            try:
                guard.bot = guard.make(make)
                if guard.external:
                    guard.name = getattr(guard.bot.info, "name", None) or name
            except BotError as exc:
                if isinstance(exc, MoveTimeout) or guard.external:
                    raise
                raise BotError(seat, f"bot {spec!r} could not be made: {exc.message}") from exc
            guards.append(guard)
        variant = game.variant
        for seat, guard in enumerate(guards):
            if not guard.skip >> _START_GAME & 1:  # else its arguments need not be made
                guard.start_game(seat, variant, n, dict(options))
        while True:
            rnd = game.round
            try:
                play_round(rnd, guards)
            finally:
                try:  # not contextlib.suppress: no object made per round
                    rounds.append(entry(rnd))
                except Exception:  # noqa: BLE001, S110  (the round's error is the one raised)
                    pass
            if game.next_round() is None:
                break
        scores, winners = tuple(game.scores), tuple(game.winners)
        for guard in guards:
            guard.end_game(scores, winners)
        finished = True
    except BotError as exc:
        fault = _scorer_fault(exc, str(task["variant"]))
        if fault is not None:  # the bot asked points_after and the variant's scorer raised
            return error_record(task, fault, time.perf_counter() - start), []
        forfeit = _forfeit(exc)
    except KeyboardInterrupt:
        if referee.user_interrupt() or not _IN_WORKER:
            raise
        return error_record(
            task, "KeyboardInterrupt in the engine", time.perf_counter() - start
        ), []
    except Exception as exc:  # noqa: BLE001  (the engine, not a bot: the game is void)
        return error_record(
            task, _engine_error(exc, str(task["variant"])), time.perf_counter() - start
        ), []
    finally:
        if commands is not None:
            fresh = bool(task.get("fresh"))  # --sandbox: a new process for the next game
            for guard in guards:
                if guard.external:
                    _give_back(guard.bot, finished, fresh)
        _release(guards, watch)
        if _ALARM_READY:
            referee.disarm()
        if watch is not None:
            watch.idle()
    longest = [round(g.longest, 6) for g in guards]
    longest += [0.0] * (n - len(longest))
    assert game is not None
    return make_record(task, game, [], forfeit, time.perf_counter() - start, longest), rounds


def _release(guards: Sequence[Guard], watch: Watch | None) -> None:
    """Let go of the bots of a game, each in its seat's ``__del__`` window: a bot whose
    ``__del__`` never returns is caught by the watchdog, and blamed."""
    for guard in guards:
        if watch is not None:
            watch.begin(guard.seat, _DEL)
        try:
            guard.skip = 0
            guard.bot = None
        except BaseException:  # noqa: BLE001, S110  (a __del__ that raises: ignored)
            pass
        finally:
            if watch is not None:
                watch.end()


#: The fields of a game record that the runner reads (to journal, tally and summarise
#: it); the rest travel only in its journal line.
TALLIED = ("id", "group", "sides", "seat_bots", "ranks", "scores", "forfeit", "error", "seconds")


def play_games(batch: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A worker's task: play each game of ``batch`` in order; their records, each already
    encoded as its journal line (``"line"``) beside the summary fields the runner tallies,
    so that the encoding runs in the workers, in parallel, not in the runner."""
    out = []
    for task in batch:
        rec, rounds = _played(task, round_json)
        summary = {k: rec[k] for k in TALLIED if k in rec}
        summary["line"] = encode_game(rec, rounds)
        out.append(summary)
    _join_closing()
    return out


def enter_worker(array: Any, index: int) -> None:
    """Make this process a worker of the pool: its hooks are watched in slot ``index`` of
    ``array`` (when the array has that slot), and a SIGINT is the parent's to handle."""
    global _WATCH, _IN_WORKER
    _IN_WORKER = True
    if SLOT * (index + 1) <= len(array):
        _WATCH = Watch(array, index)
