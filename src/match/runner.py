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
import hashlib
import importlib
import itertools
import json
import math
import multiprocessing
import os
import re
import secrets
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MethodType
from typing import Any, TextIO

from ..bot import Bot, BotError
from ..errors import OptionError
from .journal import (
    IdSet,
    Journal,
    JournalError,
    JournalReader,
    encode_record,
    error_record,
    forfeit_record,
    make_record,
    round_entry,
)
from .progress import Progress
from .report import LiveTally
from .stats import SPRT

__all__ = [
    "FORMATS",
    "MatchConfig",
    "MatchError",
    "Plan",
    "Schedule",
    "bot_seed",
    "deal_seed",
    "installed_plugins",
    "load_plugins",
    "new_secret",
    "parse_tc",
    "play_game",
    "play_games",
    "plan",
    "run_match",
    "seatings",
    "trusted_plugins",
]

#: The match formats.
FORMATS = ("head-to-head", "round-robin", "gauntlet")

_MASK64 = (1 << 64) - 1

#: The most games a match may schedule (its ids, and the list of games to play, stay small).
MAX_GAMES = 10_000_000


class MatchError(OptionError):
    """Bad input for a match (a seating that cannot be made, a bad journal, ...): one line
    that says what is allowed.  An :class:`~bones.OptionError`, so ``bones`` exits 2."""


# ---------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class MatchConfig:
    """What a match is.  ``games``: games per encounter (a pair of bots in a round robin or
    a gauntlet, all the bots in a head-to-head), rounded up to whole duplicate sets;
    ``timeout``: seconds per move, and per call of every other hook of a bot (``None``: no
    limit); ``plugins``: modules registered as bones plugins in every worker (bots that
    are not installed as entry points); ``secret``: the key of the bots' seeds (hex; drawn
    at random for a new match and kept in the journal; ``None`` in a journal written
    before bones had it: the old unkeyed seeds); ``isolate``: every bot runs as a child
    process over the bones-bot protocol (``python -m bones.protocol.server SPEC``);
    ``tc``: a clock per game, ``"GAME_SECONDS+INCREMENT"`` (``None``: none)."""

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
    secret: str | None = None
    isolate: bool = False
    tc: str | None = None

    #: The fields that decide which games are played and how: a journal can only be
    #: resumed with the same values (``games``, ``timeout`` and ``sprt`` may change; the
    #: ``secret`` is the journal's).
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
            "secret": self.secret,
            "isolate": self.isolate,
            "tc": self.tc,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchConfig:
        """The config of a journal header (or of the command line); :class:`MatchError`
        naming the field for anything of the wrong type."""
        if not isinstance(data, Mapping):
            raise MatchError(f"the match config is not a JSON object: {_short(data)}")

        def get(key: str, kind: Any, default: Any = _MISSING) -> Any:
            value = data.get(key, default)
            if value is _MISSING:
                raise MatchError(f"the match config has no {key!r}")
            if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise MatchError(f"config {key!r} must be a whole number; got {_short(value)}")
            if kind is not int and not isinstance(value, kind):
                raise MatchError(f"config {key!r} has the wrong type: {_short(value)}")
            return value

        bots = get("bots", list)
        if not all(isinstance(b, str) for b in bots):
            raise MatchError(f"config 'bots' must be a list of bot specs; got {_short(bots)}")
        plugins = get("plugins", (list, type(None)), None) or []
        if not all(isinstance(m, str) for m in plugins):
            raise MatchError(
                f"config 'plugins' must be a list of module names; got {_short(plugins)}"
            )
        timeout = get("timeout", (int, float, type(None)), None)
        if isinstance(timeout, bool) or (timeout is not None and not 0 < timeout < math.inf):
            raise MatchError(f"config 'timeout' must be > 0 seconds or null; got {_short(timeout)}")
        sprt = get("sprt", (dict, type(None)), None)
        if sprt is not None:
            try:
                sprt = SPRT.from_dict(sprt)
            except (TypeError, ValueError) as exc:
                raise MatchError(f"config 'sprt': {exc}") from None
        secret = get("secret", (str, type(None)), None)
        if secret is not None and not _SECRET.fullmatch(secret):
            raise MatchError("config 'secret' must be 32 to 128 hex digits")
        tc = get("tc", (str, type(None)), None)
        if tc is not None:
            parse_tc(tc)
            tc = "".join(tc.split())
        return cls(
            bots=tuple(bots),
            variant=get("variant", str),
            players=get("players", int),
            options=dict(get("options", (dict, type(None)), None) or {}),
            format=get("format", str, "head-to-head"),
            games=get("games", int),
            seed=get("seed", int, 0),
            duplicate=get("duplicate", bool, True),
            timeout=None if timeout is None else float(timeout),
            sprt=sprt,
            plugins=tuple(plugins),
            secret=secret,
            isolate=get("isolate", bool, False),
            tc=tc,
        )

    def identity(self) -> dict[str, Any]:
        full = self.to_dict()
        return {k: full[k] for k in self.IDENTITY}

    def differences(self, other: MatchConfig) -> str:
        """How ``other`` (a journal's match) differs from this one in identity (and in
        secret, when both have one): ``"seed 0 (not 3)"``; empty when it is the same
        match."""
        mine, theirs = self.identity(), other.identity()
        diff = [
            f"{k} {theirs[k]!r} (not {mine[k]!r})" for k in self.IDENTITY if mine[k] != theirs[k]
        ]
        if self.secret is not None and other.secret is not None and self.secret != other.secret:
            diff.append("another secret")
        return ", ".join(diff)

    def default_journal(self) -> str:
        """A file name for the journal, made from the match: bots, variant, players, seed."""
        safe = []
        for spec in self.bots:
            name = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.replace(":", "_"))
            if spec.startswith("cmd:") and len(name) > 40:  # a long command line: cut, hashed
                digest = hashlib.blake2b(spec.encode("utf-8", "replace"), digest_size=4)
                name = f"{name[:31]}-{digest.hexdigest()}"
            safe.append(name)
        fmt = "" if self.format == "head-to-head" else f"-{self.format}"
        return f"{'-vs-'.join(safe)}{fmt}-{self.variant}{self.players}-seed{self.seed}.jsonl"


_MISSING = object()
_SECRET = re.compile(r"[0-9a-f]{32,128}")


_TC = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:\+\s*(\d+(?:\.\d*)?|\.\d+)\s*)?")


def parse_tc(text: str) -> tuple[float, float]:
    """``"10+0.1"`` -> ``(10.0, 0.1)``: a time control of GAME_SECONDS per game plus
    INCREMENT seconds after each move (``"60"``: no increment); :class:`MatchError`
    otherwise."""
    match = _TC.fullmatch(text) if isinstance(text, str) else None
    if match is None or not float(match.group(1)) > 0:
        raise MatchError(
            f"--tc takes GAME_SECONDS+INCREMENT, GAME_SECONDS > 0 (e.g. 10+0.1, or 60 for "
            f"no increment); got {text!r}"
        )
    return float(match.group(1)), float(match.group(2) or 0)


def _tc_text(tc: tuple[float, float]) -> str:
    return f"{tc[0]:g}+{tc[1]:g}"


def _short(value: Any) -> str:
    """A value for an error message: its JSON, at most 60 characters."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def new_secret() -> str:
    """A fresh secret for a match: 32 random bytes from the OS, in hex."""
    return secrets.token_hex(32)


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


def bot_seed(game_seed: int, seat: int, secret: str | None = None) -> int:
    """The seed of the bot in ``seat`` of a game (unless its spec names a seed): it
    depends on the deal and the seat only, so identical bots replay identical games.

    With the match's ``secret`` (hex) it is a keyed hash, BLAKE2b keyed with the secret,
    of the game seed and the seat: it tells the bot nothing about the deal.  Without one
    (journals written before bones had secrets) it is the old, invertible
    ``derive(game seed, 4, seat)``."""
    if secret is None:
        return _mix(game_seed, 4, seat)
    digest = hashlib.blake2b(
        f"bones-bot-seed:{game_seed & _MASK64}:{seat}".encode("ascii"),
        key=bytes.fromhex(secret)[:64],
        digest_size=8,
    ).digest()
    return int.from_bytes(digest, "little") >> 1


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
    #: The command of each bot that runs as a child process (``cmd:`` specs, every bot
    #: with ``isolate``), else None.
    commands: tuple[tuple[str, ...] | None, ...] = ()

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
            "bot_seeds": [bot_seed(seed, seat, c.secret) for seat in range(c.players)],
            "timeout": c.timeout,
            **self._extras(seat_bots),
        }

    def _extras(self, seat_bots: Sequence[int]) -> dict[str, Any]:
        """The task's fields for external bots and clocks (none without them, so that a
        match of in-process bots plays exactly as before)."""
        out: dict[str, Any] = {}
        if any(self.commands[b] is not None for b in seat_bots):
            out["commands"] = [self.commands[b] for b in seat_bots]
        if self.config.tc is not None:
            out["tc"] = parse_tc(self.config.tc)
        return out


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


def installed_plugins() -> set[str]:
    """The modules of the installed bones plugins (entry points of the ``bones`` group)
    and the built-in ones: the plugins a journal may name."""
    from importlib.metadata import entry_points

    from ..plugins.manager import BUILTIN_PLUGINS, ENTRY_POINT_GROUP

    out = set(BUILTIN_PLUGINS)
    with contextlib.suppress(Exception):
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            out.add(ep.value.partition(":")[0].strip())
    return out


def trusted_plugins(named: Sequence[str], given: Sequence[str], where: str) -> tuple[str, ...]:
    """The plugins a journal names (``named``), each checked: a module is only imported
    when it is installed (an entry point of the ``bones`` group) or named on the command
    line (``given``); a journal someone sends must not make bones run code.
    :class:`MatchError` otherwise."""
    installed = installed_plugins()
    for name in named:
        if name not in installed and name not in given:
            raise MatchError(
                f"{where} names the plugin {name!r}, which is not installed (no 'bones' "
                f"entry point); a journal cannot make bones import a module: if you trust "
                f"it, name it again with --plugin {name}"
            )
    return tuple(named)


def _labels(bots: Sequence[str], names: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The bots' names in tables: the spec, or for an external bot (``cmd:``) the name it
    gave in its hello (``names``) or else its command line; made unique with ``#1``,
    ``#2``."""
    from ..bot import COMMAND_PREFIX

    names = names or {}
    bases = []
    for spec in bots:
        if spec.startswith(COMMAND_PREFIX):
            bases.append(names.get(spec) or spec[len(COMMAND_PREFIX) :].strip())
        else:
            bases.append(spec)
    counts: dict[str, int] = {}
    for spec in bases:
        counts[spec] = counts.get(spec, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for spec in bases:
        if counts[spec] > 1:
            seen[spec] = seen.get(spec, 0) + 1
            out.append(f"{spec}#{seen[spec]}")
        else:
            out.append(spec)
    return tuple(out)


def bot_command(spec: str, isolate: bool = False) -> tuple[str, ...] | None:
    """The command that runs the bot of ``spec`` as a child process: a ``cmd:`` spec's
    own, or with ``isolate`` the protocol server serving the spec; None: in process."""
    from ..bot import command_of

    command = command_of(spec)
    if command is not None:
        return tuple(command)
    if isolate:
        return (sys.executable, "-m", "bones.protocol.server", spec)
    return None


def plan(config: MatchConfig, names: Mapping[str, str] | None = None) -> Plan:
    """Check ``config`` and make its schedule; :class:`MatchError` (or
    :class:`~bones.OptionError`) with one line saying what is allowed.  ``names``: the
    names external bots gave in their hello (spec -> name), for the labels."""
    from .. import registry
    from ..bot import check_spec

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
    if config.tc is not None:
        parse_tc(config.tc)
    k = len(config.bots)
    if k < 2:
        raise MatchError(f"a match takes at least 2 bots; got {k}")
    for text in config.bots:
        bspec = check_spec(text)  # OptionError: the grammar, the known bots, the options
        if not bspec.supports(spec.name):
            plays = ", ".join(bspec.variants or ())
            raise MatchError(f"bot {bspec.name!r} does not play {spec.name}; it plays: {plays}")
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
    if schedule.total > MAX_GAMES:
        raise MatchError(
            f"a match schedules at most {MAX_GAMES:,} games; --games {config.games} makes "
            f"{schedule.total:,} ({len(encounters)} encounter(s))"
        )
    commands = tuple(bot_command(spec, config.isolate) for spec in config.bots)
    return Plan(config, sides, _labels(config.bots, names), schedule, commands)


# ---------------------------------------------------------------------------------------
# Playing one game (in a worker or in-process)


class _Alarm(BaseException):
    """Raised by SIGALRM inside a bot that overruns its time (a BaseException, so a bot's
    ``except Exception`` does not swallow it; a bot that swallows even this one is killed
    by the runner's watchdog)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Alarm()


#: The hooks of a bot, by the code a worker writes in its watch slot.
HOOKS = (
    "__init__",
    "start_game",
    "start_round",
    "observe",
    "choose",
    "end_round",
    "end_game",
    "__del__",
)
_INIT, _START_GAME, _START_ROUND, _OBSERVE, _CHOOSE, _END_ROUND, _END_GAME, _DEL = range(8)
_SLOT = 5  # doubles per worker slot: pid, game id, seat, since, hook


def hook_name(code: float | int) -> str:
    code = int(code)
    return HOOKS[code] if 0 <= code < len(HOOKS) else "a hook"


class _Watch:
    """This worker's slot in shared memory: pid, game id, the seat whose hook is running
    (-1: none: the engine's part of the game), since when (``time.time()``, 0: idle) and
    which hook, so the parent can kill a worker stuck in a bot and say whose hook it was.
    The engine's part is timed too: nothing of a game may run for the hard limit without
    a hook starting or ending (a bot's ``__del__`` or thread that never lets go)."""

    def __init__(self, array: Any, index: int) -> None:
        self.a = array
        self.base = _SLOT * index
        array[self.base] = os.getpid()
        self.idle()

    def game(self, gid: int) -> None:
        a, b = self.a, self.base
        a[b + 1] = gid
        a[b + 2] = -1.0
        a[b + 4] = -1.0
        a[b + 3] = time.time()

    def begin(self, seat: int, hook: int) -> None:
        a, b = self.a, self.base
        a[b + 2] = seat
        a[b + 4] = hook
        a[b + 3] = time.time()

    def end(self) -> None:
        a, b = self.a, self.base
        a[b + 2] = -1.0
        a[b + 4] = -1.0
        a[b + 3] = time.time()

    def idle(self) -> None:
        a, b = self.a, self.base
        a[b + 1] = -1.0
        a[b + 2] = -1.0
        a[b + 3] = 0.0
        a[b + 4] = -1.0


_WATCH: _Watch | None = None
_ALARM_READY = False
_IN_WORKER = False  # a worker of the pool: SIGINT is ignored, stdout goes to stderr
_USER_INTERRUPT = False  # set by the SIGINT handler play_game installs in the main thread


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
        """A bot took longer than its time for a move or a hook."""

    return MoveTimeout


_MoveTimeout: type[Exception] | None = None


def _move_timeout() -> type[Exception]:
    global _MoveTimeout
    if _MoveTimeout is None:
        _MoveTimeout = _timeout_error()
    return _MoveTimeout


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


def _raised(exc: BaseException) -> str:
    """``"ValueError: boom"`` for an exception a bot raised (``SystemExit: 0`` for
    ``sys.exit(0)``)."""
    text = _text(exc)
    name = _type_name(exc)
    return f"{name}: {text}" if text else name


class _Guard:
    """A bot as ``play_round`` sees it.  Every hook goes through :meth:`_call`, which

    * marks the seat and the hook in the worker's watch slot (the parent kills a worker
      whose hook overruns the hard limit, whatever the bot does);
    * interrupts the hook at the time limit with SIGALRM (POSIX, main thread; every hook
      but ``observe``, which is called for every event and is left to the clock check
      and the watchdog);
    * times the call: a hook slower than the limit is a timeout even if it returned;
    * turns anything the hook raises, ``BaseException`` included (``sys.exit``,
      ``KeyboardInterrupt`` raised by a bot, ``GeneratorExit``, ...), into a
      :class:`~bones.bot.BotError` of this seat; only the user's own Ctrl-C passes.
    """

    #: Whether the bot is an external one (an ``ExternalBot``, which keeps its own
    #: deadlines: no SIGALRM, no timing here, and its faults pass unchanged).
    external = False

    def __init__(self, bot: Any, seat: int, name: str, timeout: float | None, alarm: bool) -> None:
        self.bot = bot
        self.name = name
        self.seat = seat
        self.timeout = timeout
        self.alarm = alarm and timeout is not None
        self.watch = _WATCH
        self.longest = 0.0

    def _call(self, hook: int, args: tuple[Any, ...], alarm: bool) -> Any:
        watch = self.watch
        if watch is not None:
            watch.begin(self.seat, hook)
        alarm = alarm and self.alarm
        start = time.perf_counter()
        try:
            try:
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, self.timeout)  # type: ignore[arg-type]
                try:
                    if hook == _INIT:
                        value = args[0]()
                    else:
                        value = getattr(self.bot, HOOKS[hook])(*args)
                finally:
                    if alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except _Alarm:
                raise _move_timeout()(
                    self.seat,
                    f"{self.name} gave no answer from {HOOKS[hook]}() within "
                    f"{self.timeout:g}s (interrupted)",
                ) from None
        except BotError as exc:
            if exc.seat == self.seat and (isinstance(exc, _move_timeout()) or self.external):
                raise  # its own timeout, or an external bot's fault (ExternalBotError)
            raise BotError(self.seat, f"{self.name}.{HOOKS[hook]}() raised {_raised(exc)}") from exc
        except KeyboardInterrupt as exc:
            if _USER_INTERRUPT:
                raise
            raise BotError(self.seat, f"{self.name}.{HOOKS[hook]}() raised {_raised(exc)}") from exc
        except BaseException as exc:  # noqa: BLE001  (anything a bot raises is its forfeit)
            raise BotError(self.seat, f"{self.name}.{HOOKS[hook]}() raised {_raised(exc)}") from exc
        finally:
            if watch is not None:
                watch.end()
        elapsed = time.perf_counter() - start
        if hook == _CHOOSE and elapsed > self.longest:
            self.longest = elapsed
        if self.timeout is not None and elapsed > self.timeout:
            what = "a move" if hook == _CHOOSE else f"{HOOKS[hook]}()"
            raise _move_timeout()(
                self.seat, f"{self.name} took {elapsed:.3f}s for {what} (limit {self.timeout:g}s)"
            )
        return value

    def start_game(self, *args: Any) -> None:
        self._call(_START_GAME, args, True)

    def start_round(self, *args: Any) -> None:
        self._call(_START_ROUND, args, True)

    def observe(self, *args: Any) -> None:
        self._call(_OBSERVE, args, False)

    def choose(self, *args: Any) -> Any:
        return self._call(_CHOOSE, args, True)

    def end_round(self, *args: Any) -> None:
        self._call(_END_ROUND, args, True)

    def end_game(self, *args: Any) -> None:
        self._call(_END_GAME, args, True)


class _ClockGuard(_Guard):
    """A guard with a clock for the game (``--tc GAME+INC``): each move may take at most
    the clock's time left (and the time per move, if any); its time is subtracted from
    the clock and the increment added after it.  An in-process bot is interrupted by
    SIGALRM at that limit; an external bot gets it as its move time (``time_left_ms``)
    and its own deadline.  A clock that runs out is a timeout."""

    def __init__(
        self,
        bot: Any,
        seat: int,
        name: str,
        timeout: float | None,
        alarm: bool,
        tc: tuple[float, float],
        external: bool,
    ) -> None:
        super().__init__(bot, seat, name, None if external else timeout, alarm and not external)
        self.external = external
        self.can_alarm = alarm and not external
        self.move_limit = timeout
        self.tc = tc
        self.clock = float(tc[0])

    def choose(self, *args: Any) -> Any:
        left = self.clock
        cap = self.move_limit
        on_clock = cap is None or left < cap
        limit = left if on_clock else cap
        saved = self.timeout, self.alarm
        if self.external:
            self.bot.move_time = max(limit, 0.001)  # type: ignore[type-var]
        else:
            self.timeout, self.alarm = limit, self.can_alarm
        start = time.perf_counter()
        try:
            move = self._call(_CHOOSE, args, True)
        except BotError as exc:
            if on_clock and not self.external and isinstance(exc, _move_timeout()):
                raise _move_timeout()(
                    self.seat,
                    f"{self.name} ran out of time on its clock ({left:.3f}s left, --tc "
                    f"{_tc_text(self.tc)}): {exc.message}",
                ) from None
            raise
        finally:
            self.timeout, self.alarm = saved
        elapsed = time.perf_counter() - start
        if elapsed > left:
            raise _move_timeout()(
                self.seat,
                f"{self.name} ran out of time on its clock: {elapsed:.3f}s for a move with "
                f"{left:.3f}s left (--tc {_tc_text(self.tc)})",
            )
        self.clock = left - elapsed + self.tc[1]
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


def _close_externals() -> None:
    with _EXTERNAL_LOCK:
        bots = [bot for idle in _IDLE_EXTERNAL.values() for bot in idle]
        _IDLE_EXTERNAL.clear()
    for bot in bots:
        with contextlib.suppress(Exception):
            bot.close(grace=0.2)


def _take_external(command: tuple[str, ...], seat: int, seed: int, timeout: float | None) -> Any:
    """An external bot running ``command`` for ``seat`` of a game: an idle one of this
    process (restarted if its process is gone: after a fault) or a new one.  Its fault
    in the handshake is an :class:`ExternalBotError` of ``seat``."""
    from ..protocol.client import ExternalBot, ExternalBotError

    with _EXTERNAL_LOCK:
        idle = _IDLE_EXTERNAL.get(command)
        bot = idle.pop() if idle else None
        if not _EXTERNAL_AT_EXIT:
            import multiprocessing.util

            # workers end with os._exit: atexit does not run, multiprocessing's finalizers do
            _EXTERNAL_AT_EXIT.append(
                multiprocessing.util.Finalize(None, _close_externals, exitpriority=10)
            )
    limit = _hard_limit(timeout)
    handshake = 10.0 if limit is None else max(1.0, min(10.0, limit - 1.0))
    if bot is None:
        bot = ExternalBot(list(command), handshake_time=handshake, start=False)
    bot.seed = seed
    bot.move_time = timeout
    bot.hook_time = timeout
    try:
        if not bot.alive:
            bot.restart()
    except ExternalBotError as exc:
        raise ExternalBotError(seat, exc.message, exc.kind) from None
    bot.seat = seat
    return bot


def _give_back(bot: Any, finished: bool) -> None:
    """Return an external bot after its game; one whose game did not end normally is
    closed (a fresh process plays its next game)."""
    if not finished:
        with contextlib.suppress(Exception):
            bot.close(grace=0.1)
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
    elif isinstance(exc, _move_timeout()):
        reason = "timeout"
    elif exc.__cause__ is not None:
        reason = "crash"
    else:
        reason = "illegal"
    detail = _text(getattr(exc, "message", exc), 500)
    return {"seat": seat, "reason": reason, "detail": detail}


def _scorer_fault(exc: BaseException, variant: str) -> str | None:
    try:
        return _find_scorer_fault(exc, variant)
    except Exception:  # noqa: BLE001  (a bot's exception object may be anything)
        return None


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
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    seen: set[int] = set()
    chain: BaseException | None = exc
    while chain is not None and id(chain) not in seen:
        seen.add(id(chain))
        previous = ""
        tb = chain.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code is code:
                # who called the scorer: the real Python frame below it (compiled code
                # has none), else the traceback entry before it
                back = frame.f_back
                caller = back.f_code.co_filename if back is not None else previous
                if caller.endswith(".pyx") or os.path.abspath(caller).startswith(home + os.sep):
                    name = getattr(scorer, "__qualname__", None) or _type_name(scorer)
                    return f"variant {variant!r}: its move_scorer {name} raised {_raised(chain)}"
            previous = frame.f_code.co_filename
            tb = tb.tb_next
        chain = chain.__cause__ or chain.__context__
    return None


def _engine_error(exc: BaseException, variant: str) -> str:
    fault = _scorer_fault(exc, variant)
    if fault is not None:
        return fault
    return f"the engine raised {_raised(exc)} (variant {variant!r})"


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
    (its forfeit): a SIGINT handler sets ``_USER_INTERRUPT`` before raising."""

    def __enter__(self) -> None:
        global _USER_INTERRUPT
        self.saved: Any = None
        if _IN_WORKER or threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            _USER_INTERRUPT = False
            self.saved = signal.default_int_handler
            signal.signal(signal.SIGINT, _on_sigint)

    def __exit__(self, *exc: Any) -> None:
        if self.saved is not None:
            signal.signal(signal.SIGINT, self.saved)


def _on_sigint(signum: int, frame: Any) -> None:
    global _USER_INTERRUPT
    _USER_INTERRUPT = True
    raise KeyboardInterrupt


_SKIPPABLE = ("start_game", "start_round", "observe", "end_round", "end_game")


def _make(guard: _Guard, spec: str, seed: int) -> Any:
    """Make the bot of a seat (in its guarded ``__init__`` call).  The hooks it keeps from
    :class:`~bones.Bot` do nothing: the guard hands those on as they are, so that the
    driver skips them instead of timing thousands of empty calls."""
    from ..bot import make_bot

    bot = make_bot(spec, seed=seed)
    kind = type(bot)
    for hook in _SKIPPABLE:
        base: Any = getattr(Bot, hook)
        if getattr(kind, hook, None) is base and hook not in getattr(bot, "__dict__", {}):
            setattr(guard, hook, MethodType(getattr(Bot, hook), bot))
    return bot


def play_game(task: Mapping[str, Any]) -> dict[str, Any]:
    """Play the game of ``task`` to its end (or to a forfeit) and return its record.

    For each seat a bot is made from its spec (``bot_seeds[seat]`` unless the spec names a
    seed); ``start_game``; each round is played by :func:`bones.bot.play_round` (which
    delivers ``start_round``, every public event, ``choose`` and ``end_round``);
    ``end_game``.  A bot that raises (anything, ``SystemExit`` included), answers
    anything but a legal move or overruns its time forfeits: its side loses the game and
    the record says why.  An error of the engine (a variant's ``move_scorer`` that
    raises) voids the game: the record's ``error`` says what happened.
    """
    with _StdoutToStderr(), _UserInterrupt():
        return _play_game(task)


def _play_game(task: Mapping[str, Any]) -> dict[str, Any]:
    from ..bot import play_round
    from ..game import new_game

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
    if tc is not None:
        alarm = _alarm_usable()
    rounds: list[dict[str, Any]] = []
    forfeit = None
    guards: list[_Guard] = []
    game = None
    finished = False
    try:
        game = new_game(task["variant"], n, int(task["seed"]), **options)
        for seat, spec in enumerate(task["seats"]):
            name = str(spec).partition(":")[0].strip() or str(spec)  # the registered name
            command = None if commands is None else commands[seat]
            seed = int(task["bot_seeds"][seat])
            guard: _Guard
            if command is not None:  # an external bot: it keeps its own deadlines
                if tc is not None:
                    guard = _ClockGuard(None, seat, name, timeout, False, tuple(tc), True)
                else:
                    guard = _Guard(None, seat, name, None, False)
                    guard.external = True
                make: Any = lambda c=tuple(command), s=seat, x=seed: _take_external(  # noqa: E731
                    c, s, x, timeout
                )
            else:
                if tc is not None:
                    guard = _ClockGuard(None, seat, name, timeout, alarm, tuple(tc), False)
                else:
                    guard = _Guard(None, seat, name, timeout, alarm)
                make = lambda g=guard, s=spec, x=seed: _make(g, s, x)  # noqa: E731
            try:
                guard.bot = guard._call(_INIT, (make,), True)
                if guard.external:
                    guard.name = getattr(guard.bot.info, "name", None) or name
            except BotError as exc:
                if isinstance(exc, _move_timeout()) or guard.external:
                    raise
                raise BotError(seat, f"bot {spec!r} could not be made: {exc.message}") from exc
            guards.append(guard)
        for seat, guard in enumerate(guards):
            guard.start_game(seat, game.variant, n, dict(options))
        while True:
            rnd = game.round
            try:
                play_round(rnd, guards)
            finally:
                with contextlib.suppress(Exception):
                    rounds.append(round_entry(rnd))
            if game.next_round() is None:
                break
        for guard in guards:
            guard.end_game(tuple(game.scores), tuple(game.winners))
        finished = True
    except BotError as exc:
        fault = _scorer_fault(exc, str(task["variant"]))
        if fault is not None:  # the bot asked points_after and the variant's scorer raised
            return error_record(task, fault, time.perf_counter() - start)
        forfeit = _forfeit(exc)
    except KeyboardInterrupt:
        if _USER_INTERRUPT or not _IN_WORKER:
            raise
        return error_record(task, "KeyboardInterrupt in the engine", time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001  (the engine, not a bot: the game is void)
        return error_record(
            task, _engine_error(exc, str(task["variant"])), time.perf_counter() - start
        )
    finally:
        if commands is not None:
            for guard in guards:
                if guard.external:
                    _give_back(guard.bot, finished)
        _release(guards, watch)
        if watch is not None:
            watch.idle()
    longest = [round(g.longest, 6) for g in guards]
    longest += [0.0] * (n - len(longest))
    assert game is not None
    return make_record(task, game, rounds, forfeit, time.perf_counter() - start, longest)


def _release(guards: Sequence[_Guard], watch: _Watch | None) -> None:
    """Let go of the bots of a game, each in its seat's ``__del__`` window: a bot whose
    ``__del__`` never returns is caught by the watchdog, and blamed."""
    for guard in guards:
        if watch is not None:
            watch.begin(guard.seat, _DEL)
        try:
            for hook in _SKIPPABLE:
                guard.__dict__.pop(hook, None)
            guard.bot = None
        except BaseException:  # noqa: BLE001, S110  (a __del__ that raises: ignored)
            pass
        finally:
            if watch is not None:
                watch.end()


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


#: File descriptors a worker must not keep (the journal and its lock): closed at start.
_PARENT_FDS: list[int] = []
_SAVED_STDOUT: list[Any] = []


def _init_worker(array: Any, counter: Any, plugins: Sequence[str], parent: int) -> None:
    global _WATCH, _IN_WORKER
    _IN_WORKER = True
    _die_with_parent(parent)
    for fd in _PARENT_FDS:
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
    if _SLOT * (index + 1) <= len(array):
        _WATCH = _Watch(array, index)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    load_plugins(plugins)


class _Pool:
    """A ``ProcessPoolExecutor`` whose workers report, in shared memory, which game, seat
    and hook they are busy with, so that a worker stuck in a bot can be found and
    killed."""

    def __init__(self, jobs: int, plugins: Sequence[str]) -> None:
        ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else None)
        self.slots = jobs + 4  # replacement workers get fresh slots
        self.array = ctx.RawArray("d", _SLOT * self.slots)
        for i in range(self.slots):
            self.array[_SLOT * i] = 0.0
            self.array[_SLOT * i + 1] = -1.0
            self.array[_SLOT * i + 2] = -1.0
            self.array[_SLOT * i + 4] = -1.0
        counter = ctx.Value("i", 0)
        with contextlib.suppress(Exception):
            sys.stdout.flush()  # nothing buffered is copied into the workers
        self.executor = cf.ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(self.array, counter, tuple(plugins), os.getpid()),
        )

    def busy(self) -> list[tuple[int, int, int, float, int]]:
        """``(pid, game id, seat or -1, in a hook since or 0, hook)`` of every busy
        worker."""
        out = []
        for i in range(self.slots):
            pid, gid, seat, since, hook = self.array[_SLOT * i : _SLOT * i + _SLOT]
            if pid and gid >= 0:
                out.append((int(pid), int(gid), int(seat), float(since), int(hook)))
        return out

    def exit_code(self, pid: int) -> int | None:
        procs = getattr(self.executor, "_processes", None) or {}
        proc = procs.get(pid)
        return None if proc is None else proc.exitcode

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
    done: IdSet = field(default_factory=IdSet)
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


def _hard_limit(timeout: float | None) -> float | None:
    """How long a hook may run before the watchdog kills the worker (SIGALRM has
    normally stopped the bot at ``timeout``): twice the time limit, at least 5 s more."""
    if timeout is None:
        return None
    return timeout + max(timeout, 5.0)


def _watch_limit(config: MatchConfig) -> float | None:
    """The watchdog's hard limit for a match: from the time per move or, with only a
    clock (``--tc``), from the most a clock may plausibly hold."""
    timeout = config.timeout
    if timeout is None and config.tc is not None:
        base, inc = parse_tc(config.tc)
        timeout = base + 1000 * inc
    return _hard_limit(timeout)


def _one_line(message: str) -> str:
    """An external bot's error message on one line: the last line of its stderr only."""
    head, _, tail = message.partition("; its stderr ends with:\n")
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    head = " ".join(head.split())
    return f"{head}; its stderr ends with: {lines[-1]}" if lines else head


def check_external(config: MatchConfig, handshake_time: float = 10.0) -> dict[str, str]:
    """Start every bot of ``config`` that runs as a child process (``cmd:`` specs; all of
    them with ``isolate``), check its handshake, and close it: the name each gave in its
    hello, by spec.  :class:`MatchError` (one line) for a bot that fails."""
    specs = list(dict.fromkeys(config.bots))
    commands = {spec: bot_command(spec, config.isolate) for spec in specs}
    wanted = [spec for spec in specs if commands[spec] is not None]
    if not wanted:
        return {}
    from ..protocol.client import ExternalBot, ExternalBotError

    bots = {
        spec: ExternalBot(list(commands[spec] or ()), handshake_time=handshake_time, start=False)
        for spec in wanted
    }
    try:
        ExternalBot.start_all(list(bots.values()))
    except ExternalBotError as exc:
        spec = next((s for s, b in bots.items() if b.fault is exc), wanted[0])
        raise MatchError(
            f"bot {spec!r} failed its handshake ({exc.kind}): {_one_line(exc.message)}"
        ) from None
    finally:
        for bot in bots.values():
            bot.close(grace=0.2)
    return {spec: bot.info.name for spec, bot in bots.items() if bot.info is not None}


def _killed_record(plan: Plan, gid: int, seat: int, hook: int, limit: float) -> dict[str, Any]:
    if seat < 0:
        return error_record(
            plan.task(gid),
            f"the game ran {limit:g}s without any bot hook starting or ending (the engine, or "
            "a bot's thread or finaliser); the worker was killed",
        )
    return forfeit_record(
        plan.task(gid),
        seat,
        "timeout",
        f"timeout in {hook_name(hook)}: no answer after {limit:g}s; the worker was killed",
    )


def _run_pool(state: _State, pending: list[int], jobs: int, executor: cf.Executor | None) -> None:
    plan = state.plan
    queue = list(pending)
    position = 0
    limit = _watch_limit(plan.config)
    own = executor is None
    pool = _Pool(jobs, plan.config.plugins) if own else None
    ex: cf.Executor = pool.executor if pool is not None else executor  # type: ignore[assignment]
    in_flight: dict[cf.Future[list[dict[str, Any]]], list[int]] = {}
    killed: dict[int, tuple[int, int]] = {}  # game id -> (seat, hook) killed by the watchdog
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
                for pid, gid, seat, since, hook in pool.busy():
                    if since and now - since > limit and gid not in killed:
                        killed[gid] = (seat, hook)
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
            if broken:
                assert pool is not None
                lost = sorted({g for b in in_flight.values() for g in b if g not in state.done})
                suspects = pool.busy()
                pool.shutdown(kill=True)
                in_flight.clear()
                for gid, (seat, hook) in sorted(killed.items()):
                    if gid not in state.done:
                        state.record(_killed_record(plan, gid, seat, hook, limit or 0.0))
                if not killed:  # a worker died on its own: find the game that kills it
                    for _pid, gid, seat, _since, hook in suspects:
                        if gid not in state.done:
                            _isolate(state, gid, seat, hook)
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


def _isolate(state: _State, gid: int, seat: int, hook: int) -> None:
    """Play game ``gid`` alone in a fresh worker; if the worker dies again, the game is
    forfeited by the seat whose hook was running (or void, if no bot's hook was)."""
    plan = state.plan
    pool = _Pool(1, plan.config.plugins)
    try:
        fut = pool.executor.submit(play_games, [plan.task(gid)])
        limit = _watch_limit(plan.config)
        while True:
            try:
                records = fut.result(timeout=0.25)
                for rec in records:
                    state.record(rec)
                return
            except cf.TimeoutError:
                busy = pool.busy()
                if busy:
                    _pid, _gid, seat, since, hook = busy[0]
                    if limit is not None and since and time.time() - since > limit:
                        pool.shutdown(kill=True)
                        state.record(_killed_record(plan, gid, seat, hook, limit))
                        return
            except cf.process.BrokenProcessPool:
                busy = pool.busy()
                code = None
                if busy:
                    pid, _gid, seat, _since, hook = busy[0]
                    code = pool.exit_code(pid)
                how = "" if code is None else f" (exit status {code})"
                if seat >= 0:
                    rec = forfeit_record(
                        plan.task(gid),
                        seat,
                        "crash",
                        f"the worker process died{how} in {hook_name(hook)}",
                    )
                else:
                    rec = error_record(
                        plan.task(gid), f"the worker process died{how} outside any bot's hook"
                    )
                state.record(rec)
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
    folder).  ``jobs``: worker processes (default: all cores; with 1 the games still run
    in a worker process, under the watchdog).  ``resume``: continue the journal's match;
    finished games are kept, the others played.  Without ``resume`` an existing journal
    of the same match is continued too, and one of another match is an error unless
    ``overwrite``.  ``progress``: draw a progress bar on ``stream`` (default stderr;
    ``None``: only when it is a terminal).  ``executor``: any
    ``concurrent.futures.Executor`` to run the tasks on instead of the process pool made
    here (``jobs`` then sets the batches in flight; the hang watchdog is the pool's own
    and is not available there).
    """
    from .report import summarize_journal

    path = os.fspath(journal) if journal is not None else config.default_journal()
    plan(config)  # check everything before touching the journal
    names = check_external(config)  # and every external bot's handshake
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise MatchError(f"--jobs must be >= 1; got {jobs}")
    stream = stream if stream is not None else sys.stderr
    jnl = Journal.acquire(path)  # locked: one runner per journal
    reader: JournalReader | None = None
    try:
        if jnl.size and (resume or not overwrite):  # --resume wins over --overwrite
            reader = JournalReader(path, jnl.reader())
        if reader is not None and reader.config is not None:
            old = MatchConfig.from_dict(reader.config)
            diff = config.differences(old)
            if diff:
                if resume:
                    raise MatchError(
                        f"--resume: the journal {path} holds another match: {diff}; resume "
                        "it with the same settings (or without bots: they are read from the "
                        "journal), or choose another --journal"
                    )
                raise JournalError(
                    f"the journal {path} exists and holds another match ({diff}): "
                    "--overwrite starts it again, --journal PATH writes elsewhere"
                )
            config = _replace(config, secret=old.secret)
        else:
            if reader is not None:
                reader.close()
                reader = None  # an empty file or a cut-short header: a new match
            if config.secret is None:
                config = _replace(config, secret=new_secret())
        the_plan = plan(config, names)
        total = the_plan.schedule.total
        tally = LiveTally(
            the_plan.labels,
            config.sprt,
            len(the_plan.sides),
            the_plan.schedule.group_size,
            config.duplicate,
        )
        done = IdSet()
        warnings: list[str] = []
        if reader is not None:
            for rec in reader.games(rounds=False):
                gid = rec["id"]
                if gid < total and done.add(gid):
                    tally.add(rec)
            reader.close()
            warnings = reader.warnings
            for text in warnings:
                print(f"bones: warning: {text}", file=stream)
        jnl.start(
            config.to_dict(),
            resume=reader is not None,
            keep=reader.good_bytes if reader is not None else 0,
        )
    except BaseException:
        if reader is not None:
            reader.close()
        jnl.close()
        raise
    bar = Progress(total, stream=stream, enabled=progress)
    state = _State(the_plan, jnl, tally, bar, done)
    bar.update(len(state.done), tally.status())
    pending = [g for g in range(total) if g not in state.done]
    interrupted = False
    try:
        if pending and not state.stopped:
            _PARENT_FDS[:] = jnl.fds()
            _run_pool(state, pending, jobs, executor)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        _PARENT_FDS.clear()
        bar.close()
        try:
            summary = summarize_journal(path, total=total, labels=the_plan.labels)
        finally:
            jnl.close()
    for text in summary.pop("warnings", []):
        if text not in warnings:
            print(f"bones: warning: {text}", file=stream)
    summary["journal"] = path
    if interrupted:
        summary["interrupted"] = True
    return summary


def _replace(config: MatchConfig, **changes: Any) -> MatchConfig:
    from dataclasses import replace

    return replace(config, **changes)
