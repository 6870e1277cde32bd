"""What a match is and which games it plays: the configuration, the formats, the
schedule of duplicate deals, the seeds of deals and bots, and the plan of each game's
task (plain data that any executor can carry to a worker)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import math
import random
import re
import secrets
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import OptionError
from .stats import SPRT

#: The match formats.
FORMATS = ("head-to-head", "round-robin", "gauntlet")

_MASK64 = (1 << 64) - 1

#: The most bytes of a child bot's stderr kept for one game (``bot_logs``).
BOT_LOG_LIMIT = 1 << 20

#: The most games a match may schedule (its ids, and the list of games to play, stay small).
MAX_GAMES = 10_000_000

#: The games an SPRT match schedules when no ``--games`` caps it (``games`` None): it
#: plays until the test decides, and this is only a safety maximum.
SPRT_MAX_GAMES = 1_000_000


class MatchError(OptionError):
    """Bad input for a match (a seating that cannot be made, a bad journal, ...): one line
    that says what is allowed.  An :class:`~bones.OptionError`, so ``bones`` exits 2."""


# ---------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class MatchConfig:
    """What a match is.  ``games``: games per encounter (a pair of bots in a round robin or
    a gauntlet, all the bots in a head-to-head), rounded up to whole duplicate sets
    (``None``, with an SPRT: until the test decides, at most :data:`SPRT_MAX_GAMES`);
    ``timeout``: seconds per move, and per call of every other hook of a bot (``None``: no
    limit); ``plugins``: modules registered as bones plugins in every worker (bots that
    are not installed as entry points); ``secret``: the key of the bots' seeds (hex; drawn
    at random for a new match and kept in the journal; ``None`` in a journal written
    before bones had it: the old unkeyed seeds); ``isolate``: every bot runs as a child
    process over the bones-bot protocol (``python -m bones.protocol.server SPEC``);
    ``sandbox``: every bot runs as a child process (``isolate`` for the in-process ones)
    inside bubblewrap, a fresh process for every game (:mod:`bones.protocol.sandbox`),
    with ``sandbox_memory`` MiB of address space each, and of memory for each bot's
    process tree where it has a cgroup (``None``: the default, 1024);
    ``tc``: a clock per game, ``"GAME_SECONDS+INCREMENT"`` in wall time, or
    ``"GAME_SECONDS+INCREMENT:cpu"`` in each bot's own CPU time (``None``: none);
    ``bot_logs``: a folder where the stderr of each bot that runs as a child process is
    kept, one file per game and seat (``game-ID-seat-S.log``, at most
    :data:`BOT_LOG_LIMIT` bytes each; ``None``: only its last lines, in a fault's
    detail); ``order``: the order the games are played in (:data:`ORDERS`; a journal
    that names none was played in ``"id"`` order)."""

    bots: tuple[str, ...]
    variant: str = "straight"
    players: int = 2
    options: Mapping[str, Any] = field(default_factory=dict)
    format: str = "head-to-head"
    games: int | None = 100
    seed: int = 0
    duplicate: bool = True
    timeout: float | None = 10.0
    sprt: SPRT | None = None
    plugins: tuple[str, ...] = ()
    secret: str | None = None
    isolate: bool = False
    sandbox: bool = False
    sandbox_memory: int | None = None
    tc: str | None = None
    bot_logs: str | None = None
    order: str = "shuffled"

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
            "sandbox": self.sandbox,
            "sandbox_memory": self.sandbox_memory,
            "tc": self.tc,
            "bot_logs": self.bot_logs,
            "order": self.order,
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
        sandbox_memory = get("sandbox_memory", (int, type(None)), None)
        if sandbox_memory is not None and (
            isinstance(sandbox_memory, bool) or not 16 <= sandbox_memory <= 1 << 20
        ):
            raise MatchError(
                f"config 'sandbox_memory' must be 16 to 1048576 MiB; got {_short(sandbox_memory)}"
            )
        order = get("order", str, "id")
        if order not in ORDERS:
            raise MatchError(
                f"config 'order' must be one of {', '.join(ORDERS)}; got {_short(order)}"
            )
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
            games=None if data.get("games", 0) is None else get("games", int),
            seed=get("seed", int, 0),
            duplicate=get("duplicate", bool, True),
            timeout=None if timeout is None else float(timeout),
            sprt=sprt,
            plugins=tuple(plugins),
            secret=secret,
            isolate=get("isolate", bool, False),
            sandbox=get("sandbox", bool, False),
            sandbox_memory=sandbox_memory,
            tc=tc,
            bot_logs=get("bot_logs", (str, type(None)), None),
            order=order,
        )

    def sandbox_policy(self) -> Any:
        """The :class:`~bones.protocol.sandbox.SandboxPolicy` of the bots (``None``:
        no ``sandbox``)."""
        if not self.sandbox:
            return None
        from ..protocol.sandbox import SandboxPolicy

        count_cpu = self.tc is not None and tc_cpu(self.tc, self.sandbox)
        if self.sandbox_memory is None:
            return SandboxPolicy(count_cpu=count_cpu)
        return SandboxPolicy(memory_mb=self.sandbox_memory, count_cpu=count_cpu)

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


_TC = re.compile(
    r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:\+\s*(\d+(?:\.\d*)?|\.\d+)\s*)?(?::\s*(cpu|wall)\s*)?"
)


def parse_tc(text: str) -> tuple[float, float]:
    """``"10+0.1"`` -> ``(10.0, 0.1)``: a time control of GAME_SECONDS per game plus
    INCREMENT seconds after each move (``"60"``: no increment), counted in the CPU time
    of each bot's own processes (``":cpu"`` after it, the default under ``sandbox``) or
    in wall time (``":wall"``, the default otherwise; :func:`tc_cpu`);
    :class:`MatchError` otherwise."""
    match = _TC.fullmatch(text) if isinstance(text, str) else None
    if match is None or not float(match.group(1)) > 0:
        raise MatchError(
            f"--tc takes GAME_SECONDS+INCREMENT, GAME_SECONDS > 0, and :cpu to count each "
            f"bot's own CPU time or :wall for wall time (e.g. 10+0.1, 60 for no increment, "
            f"10+0.1:cpu); got {text!r}"
        )
    return float(match.group(1)), float(match.group(2) or 0)


def tc_cpu(text: str, sandbox: bool = False) -> bool:
    """Whether the time control ``text`` (valid for :func:`parse_tc`) counts CPU time:
    ``:cpu`` does, ``:wall`` does not, and with neither it does in a ``sandbox`` match:
    there the bots' clocks are fair by default (a bot that hogs the CPU takes no time
    from its opponent's clock; one that sleeps is stopped by the wall-time backstop)."""
    match = _TC.fullmatch(text)
    if match is None:
        return False
    return match.group(3) == "cpu" or (match.group(3) is None and sandbox)


def tc_text(tc: tuple[float, float], cpu: bool = False) -> str:
    return f"{tc[0]:g}+{tc[1]:g}" + (":cpu" if cpu else "")


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
    """The seating design of one deal: the seatings (tuples: side -> bot) in which
    ``bots`` bots play a deal of ``sides`` sides, sorted.

    A *base* seating spreads each bot's copies around the table as evenly as it can
    (:func:`_base`: with four sides a bot that holds two of them holds opposite ones);
    the design is every seating made from it by turning the table (side ``s`` gets the
    bot of side ``s + r``) and by renaming the bots in a cycle (bot ``b`` becomes
    ``b + j``), each once.  These rotations and renamings form a group acting on the
    seatings, so every bot sits at every side equally often over the design, and a bot
    that holds more sides than another in one seating holds fewer in another.  Two bots,
    two sides: the sides swapped; at most ``sides * bots`` seatings (56: 7 bots at 8
    sides), of the ``bots ** sides`` ways to seat them."""
    if not 2 <= bots <= sides:
        raise ValueError(f"seatings take 2 to {sides} bots for {sides} sides; got {bots}")
    return list(_design(bots, sides))


@functools.lru_cache(maxsize=64)
def _design(bots: int, sides: int) -> tuple[tuple[int, ...], ...]:
    base = _base(bots, sides)
    made = {
        tuple((base[(s + r) % sides] + j) % bots for s in range(sides))
        for r in range(sides)
        for j in range(bots)
    }
    return tuple(sorted(made))


def _gaps(seating: Sequence[int]) -> list[int]:
    """The steps around the table from each copy of a bot to its next copy, sorted."""
    n = len(seating)
    out = []
    for bot in set(seating):
        at = [s for s in range(n) if seating[s] == bot]
        if len(at) > 1:
            out += [(at[(i + 1) % len(at)] - at[i]) % n for i in range(len(at))]
    return sorted(out)


def _base(bots: int, sides: int) -> tuple[int, ...]:
    """The seating of ``sides`` sides whose bots hold ``sides // bots`` sides each (one
    more for the first ``sides % bots`` bots), with each bot's copies as far apart as
    they can be: the largest smallest gap between two copies, then the next, ...; the
    first such seating in order.  A copy beside a copy would pass it its turn."""
    if bots == sides:
        return tuple(range(sides))
    counts = [sides // bots + (b < sides % bots) for b in range(bots)]
    copies = [b for b in range(bots) for _ in range(counts[b])]
    best: tuple[list[int], tuple[int, ...]] | None = None
    for seating in sorted(set(itertools.permutations(copies))):
        gaps = _gaps(seating)
        if best is None or gaps > best[0]:
            best = (gaps, seating)
    assert best is not None
    return best[1]


def _mix(seed: int, stream: int, index: int) -> int:
    from ..core.round import derive_seed

    return derive_seed(seed, stream, index)  # type: ignore[no-any-return]


def deal_seed(match_seed: int, deal: int, secret: str | None = None) -> int:
    """The game seed of deal ``deal`` (0-based) of a match seeded ``match_seed``: every
    game of the deal's duplicate set is dealt from it.

    With a ``secret`` (hex; a ``--sandbox`` match's) it is a keyed hash, BLAKE2b keyed
    with the secret, of the match seed and the deal: who knows the match seed but not the
    secret cannot deal the match again.  Without one it is ``derive(match seed, 3,
    deal)``, the same deals for the same seed (reproducible benchmarks)."""
    if secret is None:
        return _mix(match_seed, 3, deal)
    return _keyed(secret, f"bones-deal-seed:{match_seed & _MASK64}:{deal}")


def _keyed(secret: str, text: str) -> int:
    """A 63-bit keyed hash of ``text``: BLAKE2b keyed with the secret's bytes."""
    digest = hashlib.blake2b(
        text.encode("ascii"), key=bytes.fromhex(secret)[:64], digest_size=8
    ).digest()
    return int.from_bytes(digest, "little") >> 1


def new_seed() -> int:
    """A match seed drawn at random (from the OS), for a match that names none."""
    return secrets.randbits(63)


def bot_seed(game_seed: int, seat: int, secret: str | None = None, encounter: int = 0) -> int:
    """The seed of the bot in ``seat`` of a game (unless its spec names a seed): it
    depends on the deal, the seat and the ``encounter`` (the pairing of a round robin or
    gauntlet) only, so identical bots replay identical games of one encounter, and a
    bot meeting two opponents on one deal gets two seeds (its play against one tells
    it nothing of its play against the other).  Encounter 0 keeps the seeds of before.

    With the match's ``secret`` (hex) it is a keyed hash, BLAKE2b keyed with the secret,
    of the game seed and the seat: it tells the bot nothing about the deal.  Without one
    (journals written before bones had secrets) it is the old, invertible
    ``derive(game seed, 4, seat)``."""
    if secret is None:
        seed = _mix(game_seed, 4, seat)
        return _mix(seed, 5, encounter) if encounter else seed
    more = f":{encounter}" if encounter else ""
    return _keyed(secret, f"bones-bot-seed:{game_seed & _MASK64}:{seat}{more}")


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


#: The deals whose games are played shuffled together (:class:`PlayOrder`).
ORDER_BLOCK = 4

#: The orders a match plays its games in: ``"shuffled"`` (:class:`PlayOrder`), or
#: ``"id"``, the order of a journal written before bones shuffled.
ORDERS = ("shuffled", "id")


class PlayOrder:
    """The order a match plays its games in: the games of each block of
    :data:`ORDER_BLOCK` deals shuffled together, block after block.  So the games of a
    deal come in a random order, with the other deals' games between them: which seating
    of a deal is played first is chance, which the fairness monitor
    (:mod:`bones.match.fairness`) relies on.  The shuffle is a function of
    ``key`` (the match's secret, or its seed) and the block: a resumed match, and its
    report, find the same order again."""

    def __init__(self, per_deal: int, key: str) -> None:
        self.key = key
        self.size = ORDER_BLOCK * per_deal  # games of a block
        self._cache: dict[int, list[int]] = {}

    def _block(self, block: int) -> list[int]:
        """The offsets of block ``block``'s games (from its first id), in play order: the
        same whatever the match's number of games (``--games`` may grow on resume)."""
        order = self._cache.get(block)
        if order is None:
            order = list(range(self.size))
            random.Random(f"bones-play-order:{self.key}:{block}").shuffle(order)
            if len(self._cache) >= 64:
                self._cache.clear()
            self._cache[block] = order
        return order

    def games(self, total: int) -> Iterator[int]:
        """The ids ``0 .. total - 1`` in play order."""
        for block in range(-(-total // self.size)):
            first = block * self.size
            for offset in self._block(block):
                if first + offset < total:
                    yield first + offset

    def rank(self, gid: int) -> int:
        """Game ``gid``'s place in the order (0: played first)."""
        block, offset = divmod(gid, self.size)
        ranks = self._cache.get(-1 - block)  # its inverse, cached beside it
        if ranks is None:
            order = self._block(block)
            ranks = [0] * len(order)
            for place, at in enumerate(order):
                ranks[at] = place
            self._cache[-1 - block] = ranks
        return block * self.size + ranks[offset]


def make_schedule(fmt: str, bots: int, sides: int, duplicate: bool, games: int) -> Schedule:
    """The schedule of a match of ``bots`` bots in format ``fmt`` on a variant of
    ``sides`` sides: ``games`` games per encounter, rounded up to whole deals of the
    seating design (:func:`seatings`)."""
    if fmt == "head-to-head":
        encounters: list[tuple[int, ...]] = [tuple(range(bots))]
    elif fmt == "round-robin":
        encounters = list(itertools.combinations(range(bots), 2))
    else:
        encounters = [(0, j) for j in range(1, bots)]
    seats = tuple(seatings(len(encounters[0]), sides))
    group = len(seats) if duplicate else 1
    return Schedule(tuple(encounters), seats, duplicate, math.ceil(games / group))


@dataclass(frozen=True)
class Plan:
    """A checked match: the config, the sides of the variant (tuples of seats), the bot
    labels (specs, made unique) and the schedule."""

    config: MatchConfig
    sides: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    schedule: Schedule
    #: The command of each bot that runs as a child process (``cmd:`` specs, every bot
    #: with ``isolate`` or ``sandbox``; with ``sandbox``, the bubblewrap command that runs
    #: it), else None.
    commands: tuple[tuple[str, ...] | None, ...] = ()
    #: A plan without the match's secret (:meth:`public`, what the workers get): its
    #: tasks take the bots' seeds from the runner.
    sealed: bool = False

    def order(self) -> Iterator[int]:
        """The game ids in the order they are played (:class:`PlayOrder`)."""
        c = self.config
        if c.order == "id":
            return iter(range(self.schedule.total))
        return PlayOrder(self.schedule.per_deal, c.secret or str(c.seed)).games(self.schedule.total)

    def public(self) -> Plan:
        """This plan without the secret, for the workers: the key of the bots' seeds
        stays in the runner, which sends each game's seeds (:meth:`bot_seeds`) with it."""
        from dataclasses import replace

        return replace(self, config=replace(self.config, secret=None), sealed=True)

    def game_seed(self, gid: int) -> int:
        """The seed game ``gid`` is dealt from (:func:`deal_seed`): keyed with the
        match's secret under ``sandbox``, so that no bot can deal the match again from
        the seed it was shown."""
        if self.sealed and self.config.sandbox:
            raise ValueError("a sandboxed plan without its secret cannot make the deals")
        c = self.config
        deal = self.schedule.locate(gid)[0]
        return deal_seed(c.seed, deal, c.secret if c.sandbox else None)

    def bot_seeds(self, gid: int) -> list[int]:
        """The seed of each seat's bot in game ``gid`` (:func:`bot_seed`)."""
        if self.sealed:
            raise ValueError("a plan without its secret cannot make the bots' seeds")
        c = self.config
        seed = self.game_seed(gid)
        encounter = self.schedule.locate(gid)[1]
        return [bot_seed(seed, seat, c.secret, encounter) for seat in range(c.players)]

    def task(
        self, gid: int, bot_seeds: Sequence[int] | None = None, game_seed: int | None = None
    ) -> dict[str, Any]:
        """The plain-data task of game ``gid``; ``bot_seeds``: its bots' seeds, made by
        the runner (required by a :meth:`public` plan; default :meth:`bot_seeds`);
        ``game_seed``: its deal's seed, made by the runner (required by a public plan of
        a ``sandbox`` match; default :meth:`game_seed`)."""
        c = self.config
        if bot_seeds is None:
            bot_seeds = self.bot_seeds(gid)
        elif len(bot_seeds) != c.players:
            raise ValueError(f"game {gid}: {len(bot_seeds)} bot seeds for {c.players} seats")
        deal, encounter, seating, group = self.schedule.locate(gid)
        side_bots = self.schedule.side_bots(gid)
        seat_bots = [0] * c.players
        for side, seats in enumerate(self.sides):
            for seat in seats:
                seat_bots[seat] = side_bots[side]
        seed = self.game_seed(gid) if game_seed is None else int(game_seed)
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
            "bot_seeds": [int(x) for x in bot_seeds],
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
            if tc_cpu(self.config.tc, self.config.sandbox):
                out["tc_cpu"] = True
        if self.config.bot_logs is not None and "commands" in out:
            out["bot_logs"] = self.config.bot_logs
        if self.config.sandbox:
            out["fresh"] = True  # a new sandboxed process for every game: no memory of a deal
        return out


def load_plugins(modules: Sequence[str]) -> None:
    """Import each module and register it as a bones plugin (once); the registry is
    rebuilt so that its variants and bots can be used.  :class:`MatchError` for a module
    that cannot be imported."""
    from ..plugins.manager import register_modules

    try:
        register_modules(modules)
    except MatchError:
        raise
    except OptionError as exc:
        raise MatchError(str(exc)) from None


def runner_plugins(config: MatchConfig) -> tuple[str, ...]:
    """The ``--plugin`` modules that the runner and its workers import: none under
    ``isolate`` or ``sandbox``, where no bot code of theirs runs outside the bots' own
    processes (each imports them, :func:`bot_command`); else all of them."""
    return () if config.isolate or config.sandbox else tuple(config.plugins)


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


def bot_command(
    spec: str, isolate: bool = False, plugins: Sequence[str] = (), sandbox: Any = None
) -> tuple[str, ...] | None:
    """The command that runs the bot of ``spec`` as a child process: a ``cmd:`` spec's
    own, or with ``isolate`` the protocol server serving the spec (loading the match's
    ``--plugin`` modules, so that a plugin's bot is isolated too); None: in process.
    With ``sandbox`` (a :class:`~bones.protocol.sandbox.SandboxPolicy`, or ``True`` for
    the default one) every bot but bones' own built-in ones (trusted code, in process
    unless ``isolate``) runs as a child process, and the command is the bubblewrap
    command that runs it in the sandbox (:func:`bones.protocol.sandbox.wrap`;
    :class:`~bones.protocol.sandbox.SandboxError` if bubblewrap is missing)."""
    from ..bot import command_of

    command = command_of(spec)
    sandboxed = sandbox is not None and sandbox is not False
    if command is None and sandboxed and not isolate and _built_in(spec):
        return None
    if command is None and (isolate or sandboxed):
        loads = [arg for module in plugins for arg in ("--plugin", module)]
        command = [sys.executable, "-m", "bones.protocol.server", spec, *loads]
    if command is None:
        return None
    if sandboxed:
        from ..protocol.sandbox import wrap

        command = wrap(command, None if sandbox is True else sandbox)
    return tuple(command)


def _built_in(spec: str) -> bool:
    """Whether ``spec`` names a bot of bones' own built-in plugins (not a ``--plugin``
    module's, which the runner does not import under ``sandbox``)."""
    from ..bot import check_spec
    from ..plugins.manager import BUILTIN_PLUGINS

    try:
        return check_spec(spec).plugin in BUILTIN_PLUGINS
    except OptionError:
        return False


def plan(config: MatchConfig, names: Mapping[str, str] | None = None) -> Plan:
    """Check ``config`` and make its schedule; :class:`MatchError` (or
    :class:`~bones.OptionError`) with one line saying what is allowed.  ``names``: the
    names external bots gave in their hello (spec -> name), for the labels."""
    from .. import registry
    from ..bot import check_spec

    load_plugins(runner_plugins(config))
    deferred = (config.isolate or config.sandbox) and bool(config.plugins)
    if config.format not in FORMATS:
        raise MatchError(f"unknown format {config.format!r}; formats: {', '.join(FORMATS)}")
    try:
        spec = registry.variant(config.variant)  # OptionError listing the variants
    except OptionError as exc:
        if not deferred:
            raise
        raise MatchError(
            f"{exc}; under --isolate the --plugin modules are imported by the bots' own "
            "processes only, so a variant of a plugin must be installed (a 'bones' entry "
            "point)"
        ) from None
    if config.players not in spec.players:
        allowed = ", ".join(map(str, spec.players))
        raise MatchError(f"{spec.name} is played by {allowed} players, not {config.players}")
    spec.resolve(config.players, **config.options)  # OptionError naming the option
    games = config.games
    if games is None and config.sprt is not None:
        games = SPRT_MAX_GAMES  # until the SPRT decides; a safety maximum
    if games is None:
        raise MatchError("a match without --sprt needs --games N (games per encounter)")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
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
        try:
            bspec = check_spec(text)  # OptionError: the grammar, the known bots, the options
        except OptionError:
            if deferred:  # maybe a bot of a --plugin module, which only its own process
                continue  # imports: its handshake checks it (runner.check_external)
            raise
        if not bspec.supports(spec.name):
            raise MatchError(
                f"bot {bspec.name!r} does not play {spec.name} (rule family {spec.base}); "
                f"it plays {bspec.plays}"
            )
        check_spec(text, spec.name)  # OptionError: an option that does not apply there
    from ..api import Round

    sides = tuple(
        tuple(s)
        for s in Round.deal(spec.name, players=config.players, seed=0, **config.options).sides
    )
    n_sides = len(sides)
    shape = f"{spec.name} with {config.players} players has {n_sides} sides"
    if n_sides == 2 and config.players == 4:
        shape += " (partners sit opposite: a bot and its copy form a team)"
    if config.format == "head-to-head" and k > n_sides:
        raise MatchError(
            f"head-to-head puts every bot in each game, but {shape}, so it takes 2 to "
            f"{n_sides} bots, not {k}; use --format round-robin or --format gauntlet"
        )
    if config.sprt is not None and not (config.format == "head-to-head" and k == 2):
        raise MatchError("--sprt tests one bot against another: it needs a head-to-head of 2 bots")
    schedule = make_schedule(config.format, k, n_sides, config.duplicate, games)
    if schedule.total > MAX_GAMES:
        raise MatchError(
            f"a match schedules at most {MAX_GAMES:,} games; --games {config.games} makes "
            f"{schedule.total:,} ({len(schedule.encounters)} encounter(s))"
        )
    commands = tuple(
        bot_command(spec, config.isolate, config.plugins, config.sandbox_policy())
        for spec in config.bots
    )
    return Plan(config, sides, _labels(config.bots, names), schedule, commands)
