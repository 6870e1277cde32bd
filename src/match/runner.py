"""The match runner: runs a match's games on an executor, records each in the journal,
watches the workers (the watchdog that kills one stuck in a bot) and stops at an SPRT
decision.  docs/matches.md describes the behaviour.  The schedule is in ``schedule``, a
game's driver in ``driver``, the process pool in ``executors``.

Everything that crosses to a worker is plain data: a *task* is a dict (variant, options,
the game seed, a bot spec per seat, ...) and a worker returns a *record* (a dict that is
written to the journal as one JSON line).  Any ``concurrent.futures.Executor`` can run the
tasks; the process pool made here adds a watchdog that kills a worker stuck in a bot.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from .driver import WALL_FACTOR, WALL_SLACK, hard_limit, hook_name, play_game, play_games
from .executors import PARENT_FDS, Pool, pin_wanted, play_planned
from .journal import (
    IdSet,
    Journal,
    JournalError,
    JournalReader,
    encode_record,
    error_record,
    forfeit_record,
    record_key,
    sign_record,
)
from .progress import Progress
from .report import LiveTally, Summary
from .schedule import (
    FORMATS,
    MatchConfig,
    MatchError,
    Plan,
    Schedule,
    bot_command,
    bot_seed,
    deal_seed,
    installed_plugins,
    load_plugins,
    new_secret,
    parse_tc,
    plan,
    runner_plugins,
    seatings,
    tc_cpu,
    trusted_plugins,
)

if TYPE_CHECKING:
    from ..protocol.client import BotInfo

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
    summary: Summary | None = None  # folded as records come (None: the journal's, at the end)
    game_seconds: float = 0.0
    timed_games: int = 0
    pin: bool = False  # each worker and its bot processes on one CPU
    key: bytes | None = None  # the key of the records' MACs (the match's secret)

    def record(self, rec: dict[str, Any]) -> None:
        self.record_all([rec])

    def record_all(self, records: list[dict[str, Any]]) -> None:
        """Journal the new ones of ``records`` (one write) and count them."""
        new = []
        lines = []
        ids: set[int] = set()
        for rec in records:
            gid = int(rec["id"])
            if gid in self.done or gid in ids:
                continue
            ids.add(gid)
            line = rec.pop("line", None)
            line = encode_record(rec) if line is None else line
            lines.append(line if self.key is None else sign_record(line, self.key))
            new.append(rec)
        if lines:
            self.journal.append_lines(lines)
        for rec in new:
            self._count(rec)

    def _count(self, rec: dict[str, Any]) -> None:
        gid = int(rec["id"])
        self.done.add(gid)
        progress = self.progress
        if self.tally.test is not None or progress.enabled:  # else nobody reads it
            self.tally.add(rec)
        if self.summary is not None:
            self.summary.add(rec)
        seconds = rec.get("seconds")
        if isinstance(seconds, (int, float)):
            self.game_seconds += seconds
            self.timed_games += 1
        progress.update(len(self.done), self.tally.status() if progress.enabled else "")

    @property
    def stopped(self) -> bool:
        return self.tally.decision is not None

    def batch_size(self, remaining: int, jobs: int) -> int:
        """Games per task: about 0.2 s of work (at most 256 games: each task costs the
        runner a round of its executor's threads, which with quick games is what keeps
        ``--jobs 2`` from doubling ``--jobs 1``), fewer near the end so every worker has
        some; one game until the first result tells how long games take."""
        if not self.timed_games:
            return 1
        per_game = max(self.game_seconds / self.timed_games, 1e-5)
        size = int(0.2 / per_game)
        size = min(size, 256, max(1, remaining // (2 * jobs)))
        if self.tally.test is not None:
            # an SPRT is checked as each duplicate set completes; what is in flight when it
            # decides is played for nothing: at most about a quarter of what was played
            size = min(size, max(1, len(self.done) // (8 * jobs)))
        group = self.plan.schedule.group_size
        if size > group:  # whole duplicate sets: the SPRT gets complete ones sooner
            size -= size % group
        return max(1, size)


def _watch_limit(config: MatchConfig) -> float | None:
    """The watchdog's hard limit for a match: from the time per move or, with only a
    clock (``--tc``), from the most a clock may plausibly hold (in wall time: under a
    CPU clock, the backstop a move of that much CPU time gets)."""
    timeout = config.timeout
    if timeout is None and config.tc is not None:
        base, inc = parse_tc(config.tc)
        timeout = base + 1000 * inc
        if tc_cpu(config.tc, config.sandbox):
            timeout = WALL_FACTOR * timeout + WALL_SLACK
    return hard_limit(timeout)


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
    return {spec: info.name for spec, info in handshakes(config, handshake_time).items()}


def handshakes(config: MatchConfig, handshake_time: float = 10.0) -> dict[str, BotInfo]:
    """:func:`check_external`, giving each bot's whole hello (:class:`BotInfo`) by spec:
    under ``isolate`` it is all the runner knows of a ``--plugin`` module's bot."""
    try:
        return _handshakes(config, handshake_time)
    finally:
        if config.sandbox:  # the runner starts no more bots (its workers do): no spares
            from ..protocol.sandbox import close_spares

            close_spares()


def _handshakes(config: MatchConfig, handshake_time: float) -> dict[str, BotInfo]:
    specs = list(dict.fromkeys(config.bots))
    if config.sandbox:  # bubblewrap works here, or a clear error before any game
        from ..protocol.sandbox import check

        check(config.sandbox_policy())
    policy = config.sandbox_policy()
    commands = {spec: bot_command(spec, config.isolate, config.plugins, policy) for spec in specs}
    if config.sandbox:  # where asked: no read of a shared file changes its residency
        from ..protocol.sandbox import warm_shared

        warm_shared(list(commands.values()), policy)
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
    from .. import registry

    variant = registry.variant(config.variant).name
    for spec, bot in bots.items():  # its hello's variants: a bot is never sent another
        if bot.info is not None and not bot.info.supports(variant):
            plays = ", ".join(bot.info.variants or ()) or "none"
            raise MatchError(
                f"bot {spec!r} ({bot.info.name}) does not play {variant}; its hello lists: {plays}"
            )
    return {spec: bot.info for spec, bot in bots.items() if bot.info is not None}


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


#: How many times a task may fail on an executor the runner did not make (a Dask worker
#: that died) before the match stops.
_TASK_TRIES = 3


def _run_pool(state: _State, pending: list[int], jobs: int, executor: cf.Executor | None) -> None:
    plan = state.plan
    queue = list(pending)
    position = 0
    limit = _watch_limit(plan.config)
    own = executor is None
    plugins = runner_plugins(plan.config)  # none under --isolate
    public = plan.public()  # the secret stays here: workers get each game's bot seeds
    in_flight: dict[cf.Future[list[dict[str, Any]]], list[int]] = {}
    sent: dict[cf.Future[list[dict[str, Any]]], int] = {}  # when each in flight was sent
    sends = itertools.count()
    killed: dict[int, tuple[int, int]] = {}  # game id -> (seat, hook) killed by the watchdog
    failures: dict[int, int] = {}  # first game of a batch -> times its task failed (not own)
    pool: Pool | None = None
    ex: cf.Executor = executor  # type: ignore[assignment]

    def submit(batch: list[int]) -> None:
        seeds = [plan.bot_seeds(g) for g in batch]
        deals = [plan.game_seed(g) for g in batch]
        # workers this runner did not start load the plugins each task names
        loads = () if pool is not None else plugins
        fut = ex.submit(play_planned, public, batch, seeds, loads, deals)
        in_flight[fut] = batch
        sent[fut] = next(sends)

    try:
        if own:
            pool = Pool(jobs, plugins, state.pin)
            ex = pool.executor
        while True:
            refused = False  # the pool broke before it took a batch: mend it, send it again
            while not state.stopped and position < len(queue) and len(in_flight) < 2 * jobs:
                size = state.batch_size(len(queue) - position, jobs)
                batch = [g for g in queue[position : position + size] if g not in state.done]
                position += size
                if batch:
                    try:
                        submit(batch)
                    except cf.process.BrokenProcessPool:
                        if pool is None:  # someone else's executor: theirs to mend
                            raise
                        position -= size
                        refused = True
                        break
            if (not in_flight and not refused) or state.stopped:
                break
            finished: set[cf.Future[list[dict[str, Any]]]] = set()
            if in_flight:
                finished, _ = cf.wait(in_flight, timeout=0.25, return_when=cf.FIRST_COMPLETED)
            broken = refused
            # in the order they were sent (wait's set has none): with one worker the
            # journal holds the games in the order they were played
            for fut in sorted(finished, key=sent.__getitem__):
                batch = in_flight.pop(fut)
                sent.pop(fut)
                try:
                    records = fut.result()
                except cf.process.BrokenProcessPool:
                    if pool is None:  # someone else's executor: theirs to mend
                        raise
                    broken = True
                    in_flight[fut] = batch  # dealt with below, with the others
                    sent[fut] = -1
                    continue
                except Exception as exc:  # noqa: BLE001  (a cluster's worker died, ...)
                    if pool is not None:
                        raise
                    tries = failures[batch[0]] = failures.get(batch[0], 0) + 1
                    if tries >= _TASK_TRIES:
                        raise MatchError(
                            f"the executor failed the task of games {batch[0]}..{batch[-1]} "
                            f"{tries} times ({type(exc).__name__}: {exc}); the journal keeps "
                            "every finished game: --resume continues"
                        ) from exc
                    submit(batch)  # a lost worker: the games run again elsewhere
                    continue
                state.record_all(records)
            if pool is not None and not broken and pool.stalled():
                broken = True  # a worker died sending its result: nothing more comes
            if pool is not None and limit is not None and not broken:
                now = time.monotonic()
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
                sent.clear()
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
                pool = Pool(jobs, plugins, state.pin)
                ex = pool.executor
    except BaseException:
        # an error, a Ctrl-C: the games in flight are dropped (the journal keeps the
        # finished ones) and every worker is killed, none left with a task pending
        if pool is not None:
            pool.shutdown(kill=True)
        raise
    else:
        if pool is not None:  # an SPRT decision with games in flight: they are not needed
            pool.shutdown(kill=bool(in_flight))
    finally:
        # An executor this runner did not make is not shut down here, but the tasks of
        # this match that it has not started are withdrawn: after an SPRT decision or an
        # error nobody reads them, and a process pool that still holds tasks makes the
        # interpreter's exit wait for them (those already running end by themselves)
        for fut in in_flight:
            fut.cancel()


def _isolate(state: _State, gid: int, seat: int, hook: int) -> None:
    """Play game ``gid`` alone in a fresh worker; if the worker dies again, the game is
    forfeited by the seat whose hook was running (or void, if no bot's hook was)."""
    plan = state.plan
    pool = Pool(1, runner_plugins(plan.config), state.pin)
    try:
        fut = pool.executor.submit(play_games, [plan.task(gid)])
        limit = _watch_limit(plan.config)
        while True:
            try:
                records = fut.result(timeout=0.25)
                state.record_all(records)
                return
            except cf.TimeoutError:
                busy = pool.busy()
                if busy:
                    _pid, _gid, seat, since, hook = busy[0]
                    if limit is not None and since and time.monotonic() - since > limit:
                        pool.shutdown(kill=True)
                        state.record(_killed_record(plan, gid, seat, hook, limit))
                        return
                if not pool.stalled():
                    continue
                # the worker died sending its result: the pool would wait for ever
            except cf.process.BrokenProcessPool:
                pass
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
    affinity: bool = True,
    allow_changed_bots: bool = False,
) -> dict[str, Any]:
    """Run (or resume) a match and return its summary: what
    :func:`bones.match.report.summarize_journal` gives of the journal, the truth of the
    match (without an SPRT it is folded as the games are written, not read back).

    ``journal``: the path (default: :meth:`MatchConfig.default_journal` in the current
    folder).  ``jobs``: worker processes (default: all cores; with 1 the games still run
    in a worker process, under the watchdog).  ``resume``: continue the journal's match;
    finished games are kept, the others played.  Without ``resume`` an existing journal
    of the same match is continued too, and one of another match is an error unless
    ``overwrite``.  ``progress``: draw a progress bar on ``stream`` (default stderr;
    ``None``: only when it is a terminal).  ``executor``: any
    ``concurrent.futures.Executor`` to run the tasks on instead of the process pool made
    here (``jobs`` then sets the batches in flight; the hang watchdog is the pool's own
    and is not available there).  ``affinity``: in a match with bots that run as child
    processes, each worker of the pool and the bots it starts share one CPU (turns are
    then process switches, not wake-ups of another CPU; see docs/matches.md); False lets
    the system place them (bots that think on several threads want that).

    The journal keeps the identity of each bot (:mod:`bones.match.identity`: its
    plugin's distribution and version, the hash of its module or program, its options).
    A journal whose bots' identity differs from this run's is refused
    (:class:`MatchError` naming each bot and what changed) unless
    ``allow_changed_bots``: then the match continues and the resume line records the
    change.  A journal written before bones kept identities is continued with a warning
    and the identity recorded from then on.
    """
    from .identity import identities
    from .report import summarize_journal

    path = os.fspath(journal) if journal is not None else config.default_journal()
    checked = plan(config)  # check everything before touching the journal
    if config.sandbox:  # no entry sees another's files, the journal or the bots' logs
        from ..protocol.sandbox import separate

        separate(checked.commands, [path, *([config.bot_logs] if config.bot_logs else [])])
    if config.bot_logs is not None:
        try:
            os.makedirs(config.bot_logs, exist_ok=True)
        except OSError as exc:
            raise MatchError(f"--bot-logs {config.bot_logs}: {exc.strerror or exc}") from None
    hellos = handshakes(config)  # and every external bot's handshake
    names = {spec: info.name for spec, info in hellos.items()}
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
            config = _replace(config, secret=old.secret, order=old.order)
        else:
            if reader is not None:
                reader.close()
                reader = None  # an empty file or a cut-short header: a new match
            if config.secret is None:
                config = _replace(config, secret=new_secret())
        the_plan = plan(config, names)
        total = the_plan.schedule.total
        # under --isolate the runner never imports a --plugin module: the identity of
        # its bots is read from the modules' files and the bots' hellos
        isolated = tuple(config.plugins) if config.isolate or config.sandbox else ()
        bots_identity = identities(config.bots, isolated, hellos)
        tally = LiveTally(
            the_plan.labels,
            config.sprt,
            len(the_plan.sides),
            the_plan.schedule.group_size,
            config.duplicate,
        )
        # Without an SPRT the summary is folded as the games come, as summarize_journal
        # would fold the journal (the same config as read back from it), so that the end
        # of a match does not read the whole journal again in one process.
        summary = None
        if config.sprt is None:
            summary = Summary(_as_journal(config), total=total, labels=the_plan.labels)
        done = IdSet()
        warnings: list[str] = []
        changed: list[str] = []
        recorded: list[str] = []  # the changes the journal's resume lines record
        played = 0
        if reader is not None:
            for rec in reader.games(rounds=False):
                played += 1
                gid = rec["id"]
                if gid < total and done.add(gid):
                    tally.add(rec)
                    if summary is not None:
                        summary.add(rec)
            reader.close()
            warnings = list(reader.warnings)
            if reader.unsigned:
                warnings.append(
                    f"{path}: {reader.unsigned} game record(s) carry no MAC (written by a "
                    "bones that did not sign its records): they count as they are; the "
                    "records written from now on are signed"
                )
            for text in warnings:
                print(f"bones: warning: {text}", file=stream)
            recorded = list(reader.changes)
            changed = _check_identity(
                reader, bots_identity, config, path, played, allow_changed_bots, stream
            )
        pending = [g for g in the_plan.order() if g not in done]
        idle = not pending or tally.decision is not None
        if reader is not None:
            _say_resuming(path, played, len(pending), config, tally, stream)
        if reader is not None and idle and reader.config == _as_journal(config):
            jnl.cut(reader.good_bytes)  # nothing to play, nothing new: no resume line
        else:
            # a resume line also when only the settings changed (an SPRT added to a
            # finished match): the journal says what its summary is of
            jnl.start(
                config.to_dict(),
                resume=reader is not None,
                keep=reader.good_bytes if reader is not None else 0,
                bots=bots_identity,
                changed=changed,
            )
            recorded += changed
    except BaseException:
        if reader is not None:
            reader.close()
        jnl.close()
        raise
    until_decided = config.sprt is not None and config.games is None
    bar = Progress(None if until_decided else total, stream=stream, enabled=progress)
    state = _State(the_plan, jnl, tally, bar, done, summary, pin=affinity and pin_wanted(config))
    state.key = record_key(config.secret)
    bar.update(len(state.done), tally.status())
    interrupted = False
    try:
        if pending and not state.stopped:
            PARENT_FDS[:] = jnl.fds()
            _run_pool(state, pending, jobs, executor)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        PARENT_FDS.clear()
        bar.close()
        try:
            if state.summary is not None:
                result = state.summary.result()
            else:
                result = summarize_journal(path, total=total, labels=the_plan.labels)
        finally:
            jnl.close()
    for text in result.pop("warnings", []):
        if text not in warnings:
            print(f"bones: warning: {text}", file=stream)
    result["bot_changes"] = recorded
    result["journal"] = path
    if interrupted:
        result["interrupted"] = True
    return result


def _check_identity(
    reader: JournalReader,
    bots: list[dict[str, Any]],
    config: MatchConfig,
    path: str,
    played: int,
    allow: bool,
    stream: TextIO,
) -> list[str]:
    """How this run's bots differ from the journal's (one line per bot); a
    :class:`MatchError` unless ``allow``.  A journal without identities (written before
    bones kept them) is taken to be of these bots, with a warning."""
    from .identity import differences

    if reader.identity is None:
        version = reader.versions.get("bones") or "an older version"
        print(
            f"bones: warning: {path} was written by bones {version}, which did not record "
            f"what its bots were: its {played} games are taken as played by these bots "
            "(their identity is recorded from now on)",
            file=stream,
        )
        return []
    changed = differences(reader.identity, bots, config.bots)
    if not changed:
        return []
    what = "; ".join(changed)
    if not allow:
        raise MatchError(
            f"the journal {path} holds {played} games of other bots than these: {what}. "
            "Its results are not theirs: give a new journal (--journal NEW) to play them, "
            "or --allow-changed-bots to continue this one on purpose (the change is "
            "recorded in the journal)"
        )
    print(
        f"bones: warning: {path}: continuing with changed bots (--allow-changed-bots): {what}",
        file=stream,
    )
    return changed


def _say_resuming(
    path: str, played: int, pending: int, config: MatchConfig, tally: LiveTally, stream: TextIO
) -> None:
    """Say on ``stream`` that the journal is continued, or that its result is old."""
    if tally.decision is not None:
        print(
            f"bones: {path}: {played} games played; the SPRT decided ({tally.decision}): "
            "nothing to play, the result is the journal's",
            file=stream,
        )
    elif not pending:
        print(
            f"bones: {path}: {played} games played; the match is complete: nothing to "
            "play, the result is the journal's",
            file=stream,
        )
    elif config.sprt is not None and config.games is None:
        print(f"bones: resuming {path}: {played} games played; until the SPRT decides", file=stream)
    else:
        print(f"bones: resuming {path}: {played} games played, {pending} to play", file=stream)


def _as_journal(config: MatchConfig) -> dict[str, Any]:
    """The config as a journal's reader gives it back (JSON and checked)."""
    return MatchConfig.from_dict(json.loads(encode_record(config.to_dict()))).to_dict()


def _replace(config: MatchConfig, **changes: Any) -> MatchConfig:
    from dataclasses import replace

    return replace(config, **changes)
