"""The match runner: formats, the schedule of duplicate deals, the game driver and the
executors.  docs/matches.md describes the behaviour; this module is its implementation.

Everything that crosses to a worker is plain data: a *task* is a dict (variant, options,
the game seed, a bot spec per seat, ...) and a worker returns a *record* (a dict that is
written to the journal as one JSON line).  Any ``concurrent.futures.Executor`` can run the
tasks; the process pool made here adds a watchdog that kills a worker stuck in a bot.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import itertools
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..errors import OptionError
from .journal import Journal, encode_record, forfeit_record, make_record, round_entry
from .progress import Progress
from .report import LiveTally
from .stats import SPRT

__all__ = [
    "FORMATS",
    "MatchConfig",
    "MatchError",
    "Plan",
    "Schedule",
    "load_plugins",
    "play_game",
    "play_games",
    "plan",
    "run_match",
    "seatings",
]

#: The match formats.
FORMATS = ("head-to-head", "round-robin", "gauntlet")

_MASK64 = (1 << 64) - 1


class MatchError(OptionError):
    """Bad input for a match (a seating that cannot be made, a bad journal, ...): one line
    that says what is allowed.  An :class:`~bones.OptionError`, so ``bones`` exits 2."""


# ---------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class MatchConfig:
    """What a match is.  ``games``: games per encounter (a pair of bots in a round robin or
    a gauntlet, all the bots in a head-to-head), rounded up to whole duplicate sets;
    ``timeout``: seconds per move (``None``: no limit); ``plugins``: modules registered as
    bones plugins in every worker (bots that are not installed as entry points)."""

    bots: tuple[str, ...]
    variant: str = "straight"
    players: int = 2
    options: Mapping[str, Any] = field(default_factory=dict)
    format: str = "head-to-head"
    games: int = 100
    seed: int = 0
    duplicate: bool = True
    timeout: float | None = 10.0
    sprt: SPRT | None = None
    plugins: tuple[str, ...] = ()

    #: The fields that decide which games are played and how: a journal can only be
    #: resumed with the same values (``games``, ``timeout`` and ``sprt`` may change).
    IDENTITY = ("bots", "variant", "players", "options", "format", "seed", "duplicate", "plugins")

    def to_dict(self) -> dict[str, Any]:
        return {
            "bots": list(self.bots),
            "variant": self.variant,
            "players": self.players,
            "options": dict(sorted(self.options.items())),
            "format": self.format,
            "games": self.games,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "timeout": self.timeout,
            "sprt": None if self.sprt is None else self.sprt.to_dict(),
            "plugins": list(self.plugins),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchConfig:
        sprt = data.get("sprt")
        return cls(
            bots=tuple(data["bots"]),
            variant=data["variant"],
            players=int(data["players"]),
            options=dict(data.get("options") or {}),
            format=data.get("format", "head-to-head"),
            games=int(data["games"]),
            seed=int(data.get("seed", 0)),
            duplicate=bool(data.get("duplicate", True)),
            timeout=data.get("timeout"),
            sprt=None if sprt is None else SPRT.from_dict(sprt),
            plugins=tuple(data.get("plugins") or ()),
        )

    def identity(self) -> dict[str, Any]:
        full = self.to_dict()
        return {k: full[k] for k in self.IDENTITY}

    def default_journal(self) -> str:
        """A file name for the journal, made from the match: bots, variant, players, seed."""
        safe = [
            "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.replace(":", "_"))
            for spec in self.bots
        ]
        fmt = "" if self.format == "head-to-head" else f"-{self.format}"
        return f"{'-vs-'.join(safe)}{fmt}-{self.variant}{self.players}-seed{self.seed}.jsonl"


# ---------------------------------------------------------------------------------------
# Seatings and the schedule


def seatings(bots: int, sides: int) -> list[tuple[int, ...]]:
    """Every way to give ``sides`` sides to ``bots`` bots (tuples: side -> bot) in which
    every bot plays; with four sides a bot that holds two of them holds opposite ones (a
    bot and its copy sit opposite).  Two bots, two sides: the sides swapped; three sides:
    all six seatings (of two bots or of three)."""
    out = []
    for assignment in itertools.product(range(bots), repeat=sides):
        if len(set(assignment)) != bots:
            continue
        if sides == 4 and any(
            not ({s for s in range(4) if assignment[s] == b} <= {0, 2}
                 or {s for s in range(4) if assignment[s] == b} <= {1, 3})
            for b in range(bots)
        ):  # fmt: skip
            continue
        out.append(assignment)
    return out


def _mix(seed: int, stream: int, index: int) -> int:
    from ..game import splitmix64

    x = splitmix64(seed & _MASK64)
    x = splitmix64(x ^ stream)
    return splitmix64(x ^ (index & _MASK64)) >> 1


def deal_seed(match_seed: int, deal: int) -> int:
    """The game seed of deal ``deal`` (0-based) of a match seeded ``match_seed``: every
    game of the deal's duplicate set is dealt from it."""
    return _mix(match_seed, 3, deal)


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot in ``seat`` of a game (unless its spec names a seed): it
    depends on the deal and the seat only, so identical bots replay identical games."""
    return _mix(game_seed, 4, seat)


@dataclass(frozen=True)
class Schedule:
    """The games of a match in a fixed order.  Game ``id`` ``i`` belongs to deal
    ``i // per_deal``; within a deal come the encounters in order and, with duplicate
    deals, every seating of each.  ``group``: the duplicate set a game belongs to (with
    ``--no-duplicate`` every game is its own group)."""

    encounters: tuple[tuple[int, ...], ...]
    seatings: tuple[tuple[int, ...], ...]  # side -> position in the encounter
    duplicate: bool
    deals: int

    @property
    def group_size(self) -> int:
        return len(self.seatings) if self.duplicate else 1

    @property
    def per_deal(self) -> int:
        return len(self.encounters) * self.group_size

    @property
    def total(self) -> int:
        return self.deals * self.per_deal

    def locate(self, gid: int) -> tuple[int, int, int, int]:
        """``(deal, encounter, seating, group)`` of game ``gid``."""
        deal, rest = divmod(gid, self.per_deal)
        if self.duplicate:
            encounter, seating = divmod(rest, len(self.seatings))
            group = deal * len(self.encounters) + encounter
        else:
            encounter, seating, group = rest, deal % len(self.seatings), gid
        return deal, encounter, seating, group

    def side_bots(self, gid: int) -> tuple[int, ...]:
        """The bot index playing each side of game ``gid``."""
        _, encounter, seating, _ = self.locate(gid)
        lineup = self.encounters[encounter]
        return tuple(lineup[p] for p in self.seatings[seating])


@dataclass(frozen=True)
class Plan:
    """A checked match: the config, the sides of the variant (tuples of seats), the bot
    labels (specs, made unique) and the schedule."""

    config: MatchConfig
    sides: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    schedule: Schedule

    def task(self, gid: int) -> dict[str, Any]:
        """The plain-data task of game ``gid``."""
        c = self.config
        deal, encounter, seating, group = self.schedule.locate(gid)
        side_bots = self.schedule.side_bots(gid)
        seat_bots = [0] * c.players
        for side, seats in enumerate(self.sides):
            for seat in seats:
                seat_bots[seat] = side_bots[side]
        seed = deal_seed(c.seed, deal)
        return {
            "id": gid,
            "group": group,
            "deal": deal,
            "encounter": encounter,
            "seating": seating,
            "variant": c.variant,
            "players": c.players,
            "options": dict(c.options),
            "seed": seed,
            "seat_bots": seat_bots,
            "seats": [c.bots[b] for b in seat_bots],
            "bot_seeds": [bot_seed(seed, seat) for seat in range(c.players)],
            "timeout": c.timeout,
        }


def load_plugins(modules: Sequence[str]) -> None:
    """Import each module and register it as a bones plugin (once); the registry is
    rebuilt so that its variants and bots can be used."""
    if not modules:
        return
    from .. import registry
    from ..plugins.manager import get_plugin_manager

    pm = get_plugin_manager()
    changed = False
    for name in modules:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # any import failure is bad input
            raise MatchError(
                f"--plugin {name}: cannot import it ({type(exc).__name__}: {exc})"
            ) from None
        if not pm.is_registered(module) and pm.get_plugin(name) is None:
            pm.register(module, name=name)
            changed = True
    if changed:
        registry.reset(plugins=False)


def _labels(bots: Sequence[str]) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    for spec in bots:
        counts[spec] = counts.get(spec, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for spec in bots:
        if counts[spec] > 1:
            seen[spec] = seen.get(spec, 0) + 1
            out.append(f"{spec}#{seen[spec]}")
        else:
            out.append(spec)
    return tuple(out)


def plan(config: MatchConfig) -> Plan:
    """Check ``config`` and make its schedule; :class:`MatchError` (or
    :class:`~bones.OptionError`) with one line saying what is allowed."""
    from .. import registry
    from ..bot import bot_spec, make_bot, parse_spec

    load_plugins(config.plugins)
    if config.format not in FORMATS:
        raise MatchError(f"unknown format {config.format!r}; formats: {', '.join(FORMATS)}")
    spec = registry.variant(config.variant)  # OptionError listing the variants
    if config.players not in spec.players:
        allowed = ", ".join(map(str, spec.players))
        raise MatchError(f"{spec.name} is played by {allowed} players, not {config.players}")
    spec.resolve(config.players, **config.options)  # OptionError naming the option
    if isinstance(config.games, bool) or not isinstance(config.games, int) or config.games < 1:
        raise MatchError(f"--games must be a whole number >= 1; got {config.games!r}")
    if config.timeout is not None and not config.timeout > 0:
        raise MatchError(
            f"--timeout must be > 0 seconds (0 on the command line: no limit); got {config.timeout}"
        )
    k = len(config.bots)
    if k < 2:
        raise MatchError(f"a match takes at least 2 bots; got {k}")
    for text in config.bots:
        name, _ = parse_spec(text)  # OptionError: the grammar
        bspec = bot_spec(name)  # OptionError: the known bots
        if not bspec.supports(spec.name):
            plays = ", ".join(bspec.variants or ())
            raise MatchError(f"bot {name!r} does not play {spec.name}; it plays: {plays}")
        make_bot(text, seed=0)  # OptionError: the bot's options
    from ..core.round import Round

    sides = tuple(
        tuple(s)
        for s in Round.deal(spec.name, players=config.players, seed=0, **config.options).sides
    )
    n_sides = len(sides)
    shape = f"{spec.name} with {config.players} players has {n_sides} sides"
    if n_sides == 2 and config.players == 4:
        shape += " (partners sit opposite: a bot and its copy form a team)"
    if config.format == "head-to-head":
        if k > n_sides:
            raise MatchError(
                f"head-to-head puts every bot in each game, but {shape}, so it takes 2 to "
                f"{n_sides} bots, not {k}; use --format round-robin or --format gauntlet"
            )
        encounters: list[tuple[int, ...]] = [tuple(range(k))]
    elif config.format == "round-robin":
        encounters = list(itertools.combinations(range(k), 2))
    else:
        encounters = [(0, j) for j in range(1, k)]
    if config.sprt is not None and not (config.format == "head-to-head" and k == 2):
        raise MatchError("--sprt tests one bot against another: it needs a head-to-head of 2 bots")
    seats = tuple(seatings(len(encounters[0]), n_sides))
    group = len(seats) if config.duplicate else 1
    deals = math.ceil(config.games / group)
    schedule = Schedule(tuple(encounters), seats, config.duplicate, deals)
    return Plan(config, sides, _labels(config.bots), schedule)


# ---------------------------------------------------------------------------------------
# Playing one game (in a worker or in-process)


class _Alarm(BaseException):
    """Raised by SIGALRM inside a bot that overruns its move time (a BaseException, so a
    bot's ``except Exception`` does not swallow it)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Alarm()


class _Watch:
    """This worker's slot in shared memory: pid, game id, seat thinking, since when
    (``time.time()``), so the parent can kill a worker stuck in a bot."""

    def __init__(self, array: Any, index: int) -> None:
        self.a = array
        self.base = 4 * index
        array[self.base] = os.getpid()
        array[self.base + 1] = -1.0
        array[self.base + 2] = -1.0
        array[self.base + 3] = 0.0

    def game(self, gid: int) -> None:
        self.a[self.base + 1] = gid
        self.a[self.base + 2] = -1.0
        self.a[self.base + 3] = 0.0

    def begin(self, seat: int) -> None:
        self.a[self.base + 2] = seat
        self.a[self.base + 3] = time.time()

    def end(self) -> None:
        self.a[self.base + 3] = 0.0

    def idle(self) -> None:
        self.a[self.base + 1] = -1.0
        self.a[self.base + 2] = -1.0
        self.a[self.base + 3] = 0.0


_WATCH: _Watch | None = None
_ALARM_READY = False


def _alarm_usable() -> bool:
    """SIGALRM can interrupt a bot: POSIX, main thread; the handler is installed once."""
    global _ALARM_READY
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return False
    if not _ALARM_READY:
        signal.signal(signal.SIGALRM, _on_alarm)
        _ALARM_READY = True
    return True


def _timeout_error() -> type[Exception]:
    from ..bot import BotError

    class MoveTimeout(BotError):
        """A bot took longer than the move time."""

    return MoveTimeout


_MoveTimeout: type[Exception] | None = None


def _move_timeout() -> type[Exception]:
    global _MoveTimeout
    if _MoveTimeout is None:
        _MoveTimeout = _timeout_error()
    return _MoveTimeout


class _Guard:
    """A bot as ``play_round`` sees it: the hooks are the bot's own methods; ``choose`` is
    timed (wall clock) and, where SIGALRM works, interrupted at the move time."""

    def __init__(self, bot: Any, seat: int, timeout: float | None, alarm: bool) -> None:
        self.name = getattr(bot, "name", "") or type(bot).__name__
        self.start_round = bot.start_round
        self.observe = bot.observe
        self.end_round = bot.end_round
        self._choose = bot.choose
        self.seat = seat
        self.timeout = timeout
        self.alarm = alarm and timeout is not None
        self.longest = 0.0

    def choose(self, observation: Any, legal_moves: tuple[Any, ...]) -> Any:
        watch = _WATCH
        if watch is not None:
            watch.begin(self.seat)
        start = time.perf_counter()
        try:
            try:
                if self.alarm:
                    signal.setitimer(signal.ITIMER_REAL, self.timeout)  # type: ignore[arg-type]
                try:
                    move = self._choose(observation, legal_moves)
                finally:
                    if self.alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except _Alarm:
                raise _move_timeout()(
                    self.seat, f"{self.name} gave no move within {self.timeout:g}s (interrupted)"
                ) from None
        finally:
            if watch is not None:
                watch.end()
        elapsed = time.perf_counter() - start
        if elapsed > self.longest:
            self.longest = elapsed
        if self.timeout is not None and elapsed > self.timeout:
            raise _move_timeout()(
                self.seat, f"{self.name} took {elapsed:.3f}s for a move (limit {self.timeout:g}s)"
            )
        return move


def _forfeit(exc: Exception) -> dict[str, Any]:
    """``{"seat", "reason", "detail"}`` of a BotError: timeout, crash (a hook raised) or
    illegal (choose answered something that is not a legal move)."""
    seat = int(getattr(exc, "seat", -1))
    if isinstance(exc, _move_timeout()):
        reason = "timeout"
    elif exc.__cause__ is not None:
        reason = "crash"
    else:
        reason = "illegal"
    detail = str(getattr(exc, "message", exc))
    return {"seat": seat, "reason": reason, "detail": detail[:500]}


def play_game(task: Mapping[str, Any]) -> dict[str, Any]:
    """Play the game of ``task`` to its end (or to a forfeit) and return its record.

    For each seat a bot is made from its spec (``bot_seeds[seat]`` unless the spec names a
    seed); ``start_game``; each round is played by :func:`bones.bot.play_round` (which
    delivers ``start_round``, every public event, ``choose`` and ``end_round``);
    ``end_game``.  A bot that raises, answers an illegal move or overruns the move time
    forfeits: its side loses the game and the record says why.
    """
    from ..bot import BotError, make_bot, play_round
    from ..game import new_game

    start = time.perf_counter()
    watch = _WATCH
    if watch is not None:
        watch.game(int(task["id"]))
    n = int(task["players"])
    timeout = task.get("timeout")
    alarm = timeout is not None and _alarm_usable()
    options = dict(task["options"])
    game = new_game(task["variant"], n, int(task["seed"]), **options)
    rounds: list[dict[str, Any]] = []
    forfeit = None
    guards: list[_Guard] = []
    try:
        bots = []
        for seat, spec in enumerate(task["seats"]):
            try:
                bots.append(make_bot(spec, seed=int(task["bot_seeds"][seat])))
            except Exception as exc:
                raise BotError(seat, f"bot {spec!r} could not be made: {exc}") from exc
        guards = [_Guard(bot, seat, timeout, alarm) for seat, bot in enumerate(bots)]
        for seat, bot in enumerate(bots):
            try:
                bot.start_game(seat, game.variant, n, dict(options))
            except Exception as exc:
                raise BotError(seat, f"start_game() raised {type(exc).__name__}: {exc}") from exc
        while True:
            rnd = game.round
            try:
                play_round(rnd, guards)
            finally:
                rounds.append(round_entry(rnd))
            if game.next_round() is None:
                break
        for seat, bot in enumerate(bots):
            try:
                bot.end_game(tuple(game.scores), tuple(game.winners))
            except Exception as exc:
                raise BotError(seat, f"end_game() raised {type(exc).__name__}: {exc}") from exc
    except BotError as exc:
        forfeit = _forfeit(exc)
    finally:
        if watch is not None:
            watch.idle()
    longest = [round(g.longest, 6) for g in guards]
    return make_record(task, game, rounds, forfeit, time.perf_counter() - start, longest)


def play_games(batch: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A worker's task: play each game of ``batch`` in order; their records, each already
    encoded as its journal line (``"line"``) beside the summary fields the runner tallies,
    so that the encoding runs in the workers, in parallel, not in the runner."""
    out = []
    for task in batch:
        rec = play_game(task)
        summary = {k: v for k, v in rec.items() if k != "rounds"}
        summary["line"] = encode_record(rec)
        out.append(summary)
    return out


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


def _init_worker(array: Any, counter: Any, plugins: Sequence[str], parent: int) -> None:
    global _WATCH
    _die_with_parent(parent)
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    if 4 * (index + 1) <= len(array):
        _WATCH = _Watch(array, index)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    load_plugins(plugins)


class _Pool:
    """A ``ProcessPoolExecutor`` whose workers report, in shared memory, which game and
    seat they are busy with, so that a worker stuck in a bot can be found and killed."""

    def __init__(self, jobs: int, plugins: Sequence[str]) -> None:
        ctx = multiprocessing.get_context()
        self.slots = jobs + 4  # replacement workers get fresh slots
        self.array = ctx.RawArray("d", 4 * self.slots)
        for i in range(self.slots):
            self.array[4 * i] = 0.0
            self.array[4 * i + 1] = -1.0
            self.array[4 * i + 2] = -1.0
        counter = ctx.Value("i", 0)
        self.executor = cf.ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(self.array, counter, tuple(plugins), os.getpid()),
        )

    def busy(self) -> list[tuple[int, int, int, float]]:
        """``(pid, game id, seat or -1, thinking since or 0)`` of every busy worker."""
        out = []
        for i in range(self.slots):
            pid, gid, seat, since = self.array[4 * i : 4 * i + 4]
            if pid and gid >= 0:
                out.append((int(pid), int(gid), int(seat), float(since)))
        return out

    def shutdown(self, kill: bool = False) -> None:
        if kill:
            for pid, *_ in self.busy():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.executor.shutdown(wait=not kill, cancel_futures=True)


# ---------------------------------------------------------------------------------------
# Running a match


@dataclass
class _State:
    """What the parent tracks while a match runs."""

    plan: Plan
    journal: Journal
    tally: LiveTally
    progress: Progress
    done: set[int] = field(default_factory=set)
    game_seconds: float = 0.0
    timed_games: int = 0

    def record(self, rec: dict[str, Any]) -> None:
        gid = int(rec["id"])
        if gid in self.done:
            return
        line = rec.pop("line", None)
        if line is None:
            self.journal.append(rec)
        else:
            self.journal.append_line(line)
        self.done.add(gid)
        self.tally.add(rec)
        seconds = rec.get("seconds")
        if isinstance(seconds, (int, float)):
            self.game_seconds += seconds
            self.timed_games += 1
        self.progress.update(len(self.done), self.tally.status())

    @property
    def stopped(self) -> bool:
        return self.tally.decision is not None

    def batch_size(self, remaining: int, jobs: int) -> int:
        """Games per task: about 0.2 s of work, fewer near the end so every worker has
        some; one game until the first result tells how long games take."""
        if not self.timed_games:
            return 1
        per_game = max(self.game_seconds / self.timed_games, 1e-5)
        size = int(0.2 / per_game)
        size = min(size, 64, max(1, remaining // (2 * jobs)))
        return max(1, size)


def _run_inline(state: _State, pending: list[int]) -> None:
    global _ALARM_READY
    main = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")
    previous = signal.getsignal(signal.SIGALRM) if main else None
    try:
        for gid in pending:
            if state.stopped:
                return
            state.record(play_game(state.plan.task(gid)))
    finally:
        if main and _ALARM_READY:
            signal.signal(signal.SIGALRM, previous)
            _ALARM_READY = False


def _hard_limit(timeout: float | None) -> float | None:
    """How long a move may run before the watchdog kills the worker (SIGALRM has
    normally stopped the bot at ``timeout``): twice the move time, at least 5 s more."""
    if timeout is None:
        return None
    return timeout + max(timeout, 5.0)


def _run_pool(state: _State, pending: list[int], jobs: int, executor: cf.Executor | None) -> None:
    plan = state.plan
    queue = list(pending)
    position = 0
    limit = _hard_limit(plan.config.timeout)
    own = executor is None
    pool = _Pool(jobs, plan.config.plugins) if own else None
    ex: cf.Executor = pool.executor if pool is not None else executor  # type: ignore[assignment]
    in_flight: dict[cf.Future[list[dict[str, Any]]], list[int]] = {}
    killed: dict[int, tuple[int, int]] = {}  # game id -> (seat, pid) killed by the watchdog
    try:
        while True:
            while not state.stopped and position < len(queue) and len(in_flight) < 2 * jobs:
                size = state.batch_size(len(queue) - position, jobs)
                batch = [g for g in queue[position : position + size] if g not in state.done]
                position += size
                if batch:
                    fut = ex.submit(play_games, [plan.task(g) for g in batch])
                    in_flight[fut] = batch
            if not in_flight or state.stopped:
                break
            finished, _ = cf.wait(in_flight, timeout=0.25, return_when=cf.FIRST_COMPLETED)
            broken = False
            for fut in finished:
                batch = in_flight.pop(fut)
                try:
                    records = fut.result()
                except cf.process.BrokenProcessPool:
                    if pool is None:  # someone else's executor: theirs to mend
                        raise
                    broken = True
                    in_flight[fut] = batch  # dealt with below, with the others
                    continue
                for rec in records:
                    state.record(rec)
            if pool is not None and limit is not None and not broken:
                now = time.time()
                for pid, gid, seat, since in pool.busy():
                    if since and now - since > limit and gid not in killed:
                        killed[gid] = (seat, pid)
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
            if broken:
                assert pool is not None
                lost = sorted({g for b in in_flight.values() for g in b} - state.done)
                suspects = pool.busy()
                pool.shutdown(kill=True)
                in_flight.clear()
                for gid, (seat, _pid) in sorted(killed.items()):
                    if gid not in state.done:
                        state.record(
                            forfeit_record(
                                plan.task(gid),
                                seat,
                                "timeout",
                                f"no move after {limit:g}s: the worker was killed",
                            )
                        )
                if not killed:  # a worker died on its own: find the game that kills it
                    for _pid, gid, seat, _since in suspects:
                        if gid not in state.done:
                            _isolate(state, gid, seat)
                killed.clear()
                queue = [g for g in lost if g not in state.done] + queue[position:]
                position = 0
                pool = _Pool(jobs, plan.config.plugins)
                ex = pool.executor
    except BaseException:
        if pool is not None:
            pool.shutdown(kill=True)
        raise
    else:
        if pool is not None:
            pool.shutdown(kill=bool(in_flight))


def _isolate(state: _State, gid: int, seat: int) -> None:
    """Play game ``gid`` alone in a fresh worker; if the worker dies again, the game is
    forfeited by the seat that was thinking (or recorded as aborted)."""
    plan = state.plan
    pool = _Pool(1, plan.config.plugins)
    try:
        fut = pool.executor.submit(play_games, [plan.task(gid)])
        limit = _hard_limit(plan.config.timeout)
        while True:
            try:
                records = fut.result(timeout=0.25)
                for rec in records:
                    state.record(rec)
                return
            except cf.TimeoutError:
                busy = pool.busy()
                if limit is not None and busy and busy[0][3] and time.time() - busy[0][3] > limit:
                    seat = busy[0][2]
                    pool.shutdown(kill=True)
                    state.record(
                        forfeit_record(
                            plan.task(gid),
                            seat,
                            "timeout",
                            f"no move after {limit:g}s: the worker was killed",
                        )
                    )
                    return
                if busy:
                    seat = busy[0][2]
            except cf.process.BrokenProcessPool:
                busy = pool.busy()
                if busy:
                    seat = busy[0][2]
                state.record(
                    forfeit_record(plan.task(gid), seat, "crash", "the worker process died")
                )
                return
    finally:
        pool.shutdown(kill=True)


def run_match(
    config: MatchConfig,
    journal: str | os.PathLike[str] | None = None,
    *,
    jobs: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | None = None,
    stream: TextIO | None = None,
    executor: cf.Executor | None = None,
) -> dict[str, Any]:
    """Run (or resume) a match and return its summary (:func:`bones.match.report.summarize`
    of the journal, the truth of the match).

    ``journal``: the path (default: :meth:`MatchConfig.default_journal` in the current
    folder).  ``jobs``: worker processes (default: all cores; 1 plays in this process).
    ``resume``: continue the journal's match; finished games are kept, the others played.
    ``progress``: draw a progress bar on ``stream`` (default stderr; ``None``: only when
    it is a terminal).  ``executor``: any ``concurrent.futures.Executor`` to run the
    tasks on instead of the process pool made here (``jobs`` then sets the batches in
    flight; the hang watchdog is the pool's own and is not available there).
    """
    from .journal import read_journal
    from .report import summarize

    path = os.fspath(journal) if journal is not None else config.default_journal()
    if resume and os.path.exists(path):
        _check_resume(config, path)
    the_plan = plan(config)
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise MatchError(f"--jobs must be >= 1; got {jobs}")
    jnl, existing = Journal.open(path, config.to_dict(), resume=resume, overwrite=overwrite)
    journal_warnings = jnl.warnings
    total = the_plan.schedule.total
    stream = stream if stream is not None else sys.stderr
    for text in journal_warnings:
        print(f"bones: warning: {text}", file=stream)
    tally = LiveTally(
        the_plan.labels,
        config.sprt,
        len(the_plan.sides),
        the_plan.schedule.group_size,
        config.duplicate,
    )
    bar = Progress(total, stream=stream, enabled=progress)
    state = _State(the_plan, jnl, tally, bar)
    for rec in existing:
        gid = int(rec["id"])
        if gid < total and gid not in state.done:
            state.done.add(gid)
            tally.add(rec)
    bar.update(len(state.done), tally.status())
    pending = [g for g in range(total) if g not in state.done]
    interrupted = False
    try:
        if pending and not state.stopped:
            if jobs == 1 and executor is None:
                _run_inline(state, pending)
            else:
                _run_pool(state, pending, jobs, executor)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
        jnl.close()
    data = read_journal(path)
    summary = summarize(data.config, data.records, total=total, labels=the_plan.labels)
    summary["journal"] = path
    if interrupted:
        summary["interrupted"] = True
    return summary


def _check_resume(config: MatchConfig, path: str) -> None:
    """A journal can only be resumed by the match that wrote it (``games``, ``timeout``
    and ``sprt`` may differ)."""
    from .journal import read_journal

    data = read_journal(path)
    if data.config is None:
        return
    old = MatchConfig.from_dict(data.config)
    mine, theirs = config.identity(), old.identity()
    diff = [k for k in MatchConfig.IDENTITY if mine[k] != theirs[k]]
    if diff:
        shown = ", ".join(f"{k} {theirs[k]!r} (not {mine[k]!r})" for k in diff)
        raise MatchError(
            f"--resume: the journal {path} holds another match: {shown}; resume it with the "
            "same settings (or without bots: they are read from the journal), or choose "
            "another --journal"
        )
