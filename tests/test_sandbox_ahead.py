"""``bones match --sandbox`` starts each game's bot ahead, during the game before (a fresh
process per game still), and takes each bot's cgroup from spares made ahead: what is
started ahead and never used leaves nothing behind, a bot that crashes when started
ahead fails its own game, and no cgroup is ever given to a second bot."""

from __future__ import annotations

import functools
import os
import shlex
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from test_sandbox import (
    _cgroups,
    _fake,
    _gone,
    _hierarchy,
    _no_sandbox,
    _running,
    fake_v1,
    needs_bwrap,
    needs_cgroup,
    play,
)

from bones.match import driver
from bones.match.schedule import MatchConfig, plan
from bones.protocol.sandbox import Launch, SandboxPolicy, wrap

RANDOM_BOT = Path(__file__).parent.parent / "examples" / "python" / "random_bot.py"


@pytest.fixture(autouse=True)
def _nothing_left():
    yield
    driver._close_externals()  # what a test left started ahead


@pytest.fixture
def _unfrozen(monkeypatch):
    """Bots of a plain command started ahead, unfrozen (there is no freezer for them):
    the tests of what starting ahead does, apart from the freeze."""
    monkeypatch.setattr(driver, "_ahead", lambda command: driver.AHEAD)
    monkeypatch.setattr(driver, "HOLD", None)


def _crashes_on_start(tmp_path: Path, which: int) -> str:
    """A bot script that counts its starts in a folder and crashes at start ``which`` and
    later ones (0: never); starts that run at once may take their numbers in any order."""
    (tmp_path / "starts").mkdir()
    script = tmp_path / "bot.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, sys
            count = 1
            while True:  # its number: the first free file name (starts run at once)
                try:
                    os.close(os.open(os.path.join(sys.argv[1], str(count)), os.O_CREAT | os.O_EXCL))
                    break
                except FileExistsError:
                    count += 1
            if {which} and count >= {which}:
                sys.stderr.write("crash at start %d\\n" % count)
                sys.exit(3)
            os.execv(sys.executable, [sys.executable, {str(RANDOM_BOT)!r}])
            """
        )
    )
    return shlex.join([sys.executable, str(script), str(tmp_path / "starts")])


def _soon(done, wait: float = 10.0) -> bool:
    """Whether ``done()`` holds within ``wait`` seconds."""
    end = time.monotonic() + wait
    while not done():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def _starts(tmp_path: Path, count: int) -> bool:
    """Whether the bot of :func:`_crashes_on_start` has started ``count`` times (soon)."""
    return _soon(lambda: len(os.listdir(tmp_path / "starts")) == count)


def test_the_next_games_bots_are_started_ahead_and_told_nothing(tmp_path, _unfrozen):
    command = tuple(shlex.split(_crashes_on_start(tmp_path, 0)))
    bot = driver._take_external(command, 0, 11, 5.0, fresh=True)
    assert bot.alive and bot.info is not None and bot.seed == 11
    ahead = driver._AHEAD[command]
    assert len(ahead) == driver.AHEAD >= 1 and all(error is None for _, error in ahead)
    for one, _ in ahead:
        assert one.alive and one is not bot and one.pid != bot.pid
        assert one.seat == -1 and one.info is None  # its hello sent, nothing more
    assert _starts(tmp_path, 1 + driver.AHEAD)  # they run meanwhile
    first = ahead[0][0]
    nxt = driver._take_external(command, 1, 12, 5.0, fresh=True)
    assert nxt is first and nxt.info is not None and nxt.seat == 1 and nxt.seed == 12
    assert _starts(tmp_path, 2 + driver.AHEAD)  # one more ahead in its place
    for one in (bot, nxt):
        one.close()


def test_bots_started_ahead_and_never_used_leave_no_process(_unfrozen):
    token = str(uuid.uuid4().int % (1 << 62))  # the bot's seed: in its command line
    command = (sys.executable, str(RANDOM_BOT), token)
    bot = driver._take_external(command, 0, 1, 5.0, fresh=True)
    end = time.monotonic() + 10
    while len(_running(token)) < 1 + driver.AHEAD and time.monotonic() < end:
        time.sleep(0.01)  # those started ahead run their command soon
    assert len(_running(token)) == 1 + driver.AHEAD  # this game's and the next ones'
    bot.close()
    driver._close_externals()
    assert _gone(token) and driver._AHEAD == {}


def test_a_bot_that_crashes_when_started_ahead_fails_its_own_game(tmp_path, _unfrozen):
    logs = tmp_path / "logs"
    logs.mkdir()
    config = MatchConfig(
        bots=("cmd:" + _crashes_on_start(tmp_path, 2), "random"),
        games=2,
        seed=3,
        timeout=10.0,
        bot_logs=str(logs),
    )
    the_plan = plan(config)
    first = driver.play_game(dict(the_plan.task(0), fresh=True))
    assert first["forfeit"] is None
    second = driver.play_game(dict(the_plan.task(1), fresh=True))
    seat = second["seat_bots"].index(0)  # the cmd: bot's seat in the second game
    assert second["forfeit"]["seat"] == seat and second["forfeit"]["reason"] == "crash"
    log = logs / f"game-1-seat-{seat}.log"
    assert "crash at start " in log.read_text()  # its stderr from before its game
    assert _starts(tmp_path, 2 + driver.AHEAD)  # and those of the next games


# -- cgroups made ahead, each used once ------------------------------------------------


@needs_cgroup
def test_spare_cgroups_are_never_given_twice_and_removed_at_close():
    from bones.protocol.cgroup import Cgroup, Spares

    spares = Spares(functools.partial(Cgroup, _hierarchy(), 64 << 20, 8), size=2)
    seen: set[str] = set()
    try:
        for _ in range(6):
            group = spares.take()
            assert group.folders and not set(group.folders) & seen
            assert all(os.path.isdir(f) for f in group.folders)
            seen |= set(group.folders)
            group.close()
        while len(spares.ready) < 2:  # the thread makes them again
            os.sched_yield()
        left = [f for group in spares.ready for f in group.folders]
        assert not set(left) & seen
    finally:
        spares.close()
    assert not any(os.path.exists(f) for f in [*seen, *left])


@needs_cgroup
def test_every_start_gets_a_cgroup_no_bot_has_used():
    before = _cgroups()
    argv = wrap([sys.executable, "-c", "pass"], SandboxPolicy(memory_mb=64, processes=8), cwd="/")
    names: list[str] = []
    per_start = set()
    for _ in range(5):
        job = Launch(argv)
        try:
            assert job.cgroup is not None
            folders = job.cgroup.folders
            assert not set(folders) & before and all(os.path.isdir(f) for f in folders)
            names += [os.path.basename(f) for f in folders]
            per_start.add(len(folders))
        finally:
            job.close()
        assert not any(os.path.exists(f) for f in folders)  # removed: never given again
    assert len(per_start) == 1 and len(names) == 5 * per_start.pop()
    assert len(set(names)) == 5  # one name per start (the same in each hierarchy)


@needs_cgroup
def test_a_match_leaves_no_bot_and_no_cgroup_behind(tmp_path):
    """The bot started ahead for a game that never comes is ended with its worker: its
    process and its cgroup gone, as the spare cgroups."""
    before = _cgroups()
    token = str(uuid.uuid4().int % (1 << 62))
    bot = "cmd:" + shlex.join([sys.executable, str(RANDOM_BOT), token])
    summary, _ = play(tmp_path, (bot, "greedy"), games=4)
    assert summary["counted"] == 4 and not any(
        sum(row["forfeits"].values()) for row in summary["bots"]
    )
    assert _gone(token)
    assert _cgroups() <= before


@needs_bwrap
def test_a_sandboxed_bot_started_ahead_plays_its_game(tmp_path):
    """Spawned by the worker's own thread (a bot spawned by a thread that ends is killed
    with it: bubblewrap's --die-with-parent), it is alive when its game comes."""
    token = str(uuid.uuid4().int % (1 << 62))
    command = tuple(wrap([sys.executable, str(RANDOM_BOT), token], cwd=str(tmp_path)))
    bot = driver._take_external(command, 0, 1, 5.0, fresh=True)
    bot.close()
    (ahead, error), *_ = driver._AHEAD[command]
    assert error is None
    nxt = driver._take_external(command, 1, 2, 5.0, fresh=True)
    assert nxt is ahead and nxt.alive and nxt.ping(5.0) >= 0
    nxt.close()
    driver._close_externals()
    assert _gone(token)


def test_a_hello_waiting_past_the_handshake_time_is_read_and_a_silent_bot_times_out():
    """A bot spawned ahead whose game comes after its handshake time: the hello it sent
    in the meantime is read; one that never says hello fails its handshake (timeout)."""
    from bones.protocol.client import ExternalBot, ExternalBotError

    bot = ExternalBot([sys.executable, str(RANDOM_BOT)], handshake_time=0.5, start=False)
    bot.spawn()
    time.sleep(1.5)  # the game before, longer than its handshake time
    bot.start()
    assert bot.info is not None and bot.ping(5.0) >= 0
    bot.close()
    silent = [sys.executable, "-c", "import time; time.sleep(60)"]
    quiet = ExternalBot(silent, handshake_time=0.5, start=False)
    quiet.spawn()
    time.sleep(1.0)
    with pytest.raises(ExternalBotError) as caught:
        quiet.start()
    assert caught.value.kind == "timeout" and not quiet.alive


# -- bots started ahead are frozen until their game ------------------------------------

needs_freezer = pytest.mark.skipif(
    bool(_no_sandbox()) or _hierarchy() is None or _hierarchy().freezer is None,
    reason=_no_sandbox() or "no writable cgroup freezer: no bot is started ahead",
)

#: A hostile bot: it and a child it forks count in loops, and write their counts to its
#: stderr, from its start on; then it plays (the random bot).
COUNTER = """
import os, runpy, sys, threading

def count(who):
    n = 0
    while True:
        n += 1
        if n % 5000 == 0:
            os.write(2, b"%s %d\\n" % (who, n))

if os.fork() == 0:
    count(b"child")
threading.Thread(target=count, args=(b"parent",), daemon=True).start()
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _counts(bot) -> dict[bytes, int]:
    """The last count of each counting process of :data:`COUNTER` in ``bot``'s stderr."""
    bot._stderr.settle()
    last: dict[bytes, int] = {}
    for line in bot.stderr_text().encode().splitlines():
        who, _, n = line.partition(b" ")
        if who in (b"parent", b"child") and n.isdigit():
            last[who] = int(n)
    return last


def _frozen(bot) -> bool:
    """Whether ``bot``, held (started ahead), is frozen (soon)."""
    return _soon(lambda: bot._launch._frozen_at is not None)


@needs_freezer
def test_a_bot_started_ahead_and_its_child_count_nothing_while_they_wait(tmp_path):
    """Frozen once it answered its hello (or half a second after its spawn), a bot
    started ahead does not run until its game, nor does the child it forked: it cannot
    listen to the bots playing."""
    (tmp_path / "bot.py").write_text(COUNTER)
    command = tuple(
        wrap([sys.executable, str(tmp_path / "bot.py"), str(RANDOM_BOT)], cwd=str(tmp_path))
    )
    assert driver._ahead(command) == driver.AHEAD
    driver._spawn_ahead(command, 10.0)
    (bot, error), *_ = driver._AHEAD[command]
    assert error is None and _frozen(bot)
    time.sleep(0.1)  # what they wrote before the freeze, drained
    before = _counts(bot)
    assert set(before) == {b"parent", b"child"}  # both counted until the freeze
    time.sleep(1.0)  # the game before: a second of it
    assert _counts(bot) == before  # not one more loop
    taken = driver._take_external(command, 0, 1, 10.0, fresh=True)
    assert taken is bot and bot.info is not None and bot.ping(10.0) >= 0
    assert _soon(lambda: all(_counts(bot).get(who, 0) > before[who] for who in before))
    bot.close()  # thawed, both counted again


@needs_freezer
def test_a_bot_frozen_before_its_hello_still_passes_its_handshake(tmp_path):
    """Its time frozen is not counted against its handshake time: a bot that needs more
    CPU before its hello than it had until the freeze answers after the thaw."""
    from bones.protocol.client import ExternalBot

    slow = tmp_path / "bot.py"
    slow.write_text(
        "import runpy, sys, time\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 1.0:\n"  # CPU time: it stops when frozen
        "    pass\n"
        "sys.argv = [sys.argv[1]]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    command = wrap([sys.executable, str(slow), str(RANDOM_BOT)], cwd=str(tmp_path))
    bot = ExternalBot(command, handshake_time=4.0, start=False)
    bot.spawn(hold=0.3)
    assert _frozen(bot) and bot.info is None
    time.sleep(5.0)  # longer than its handshake time, frozen
    bot.start()
    assert bot.info is not None and bot.ping(10.0) >= 0
    bot.close()


@needs_freezer
def test_a_frozen_bot_never_used_is_killed_and_its_cgroups_removed(tmp_path):
    token = str(uuid.uuid4().int % (1 << 62))
    command = tuple(wrap([sys.executable, str(RANDOM_BOT), token], cwd=str(tmp_path)))
    driver._spawn_ahead(command, 10.0)
    (bot, error), *_ = driver._AHEAD[command]
    assert error is None and _frozen(bot)
    group = bot._launch.cgroup
    assert group.frozen and group.freezer in group.folders
    folders = list(group.folders)
    assert all(os.path.isdir(f) for f in folders) and _running(token)
    driver._close_externals()
    assert _gone(token) and not any(os.path.exists(f) for f in folders)


def test_no_bot_is_started_ahead_where_it_cannot_be_frozen():
    """A bot with no cgroup freezer (here: not sandboxed) gets a process when its game
    comes, none ahead: a process group stopped by SIGSTOP would not hold a bot that left
    it (setsid)."""
    token = str(uuid.uuid4().int % (1 << 62))
    command = (sys.executable, str(RANDOM_BOT), token)
    assert driver._ahead(command) == 0
    bot = driver._take_external(command, 0, 1, 5.0, fresh=True)
    assert bot.info is not None and not driver._AHEAD.get(command)
    assert len(_running(token)) == 1
    bot.close()


def _empty(group) -> None:
    """Close a cgroup of a fake file system: its files removed first (the kernel's
    would go with the folder)."""
    folders = list(group.folders)
    for folder in folders:
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
    group.close()
    assert not any(os.path.exists(f) for f in folders)


def test_the_freezer_of_cgroup_v1_and_v2(tmp_path):
    """Fake cgroup file systems (plain folders): v1's ``freezer`` hierarchy is found and
    a bot's cgroup made in it, frozen when ``freezer.state`` reads FROZEN; v2's
    ``cgroup.freeze`` is written and the freeze waits for ``frozen 1`` in
    ``cgroup.events`` (False if it does not come); no freezer: :class:`OSError`."""
    from bones.protocol.cgroup import Cgroup, find

    found = fake_v1(tmp_path, ("memory", "pids", "freezer"))
    assert found is not None and found.freezer == f"{tmp_path}/freezer/bones"
    group = Cgroup(found, 1 << 20, 4)
    assert group.freezer in group.folders and len(group.folders) == 3
    assert group.freeze() and group.frozen
    state = Path(group.freezer, "freezer.state")
    assert state.read_text() == "FROZEN"
    group.thaw()
    assert state.read_text() == "THAWED" and not group.frozen
    _empty(group)

    v2 = tmp_path / "v2"
    (v2 / "bones").mkdir(parents=True)
    (v2 / "cgroup.controllers").write_text("memory pids\n")
    (v2 / "bones" / "cgroup.freeze").write_text("0\n")  # in every cgroup but the root
    found2 = find(*_fake(tmp_path / "v2", [f"cgroup2 {v2} cgroup2 rw"], ["0::/"]))
    assert found2 is not None and found2.version == 2 and found2.freezer == str(v2 / "bones")
    group2 = Cgroup(found2, 1 << 20, 4)
    folder = Path(group2.freezer)
    assert group2.folders == [str(folder)]
    (folder / "cgroup.events").write_text("populated 1\nfrozen 0\n")
    assert not group2.freeze(wait=0.05) and group2.frozen  # asked, not done: close thaws
    assert (folder / "cgroup.freeze").read_text() == "1"
    (folder / "cgroup.events").write_text("populated 1\nfrozen 1\n")
    assert group2.freeze()
    group2.thaw()
    assert (folder / "cgroup.freeze").read_text() == "0"
    _empty(group2)

    (v2 / "bones" / "cgroup.freeze").unlink()
    found3 = find(*_fake(tmp_path / "v2", [f"cgroup2 {v2} cgroup2 rw"], ["0::/"]))
    assert found3 is not None and found3.freezer is None
    group3 = Cgroup(found3, 1 << 20, 4)
    with pytest.raises(OSError):
        group3.freeze()
    _empty(group3)


def test_the_limits_line_says_whether_bots_are_started_ahead(monkeypatch):
    from bones.protocol import sandbox
    from bones.protocol.cgroup import Hierarchy

    command = ["bones-cgroup:memory=1,pids=1,cpus=1", "sh"]
    with_freezer = Hierarchy(1, "/m", "/p", None, None, "/f")
    monkeypatch.setattr(sandbox, "_hierarchy", lambda: with_freezer)
    assert "frozen until then (cgroup freezer)" in sandbox.limits()
    assert sandbox.freezable(command) and not sandbox.freezable(command[1:])
    monkeypatch.setattr(sandbox, "_hierarchy", lambda: Hierarchy(1, "/m", "/p"))
    assert "no cgroup freezer: each bot started when its game comes" in sandbox.limits()
    assert not sandbox.freezable(command)
    monkeypatch.setattr(sandbox, "_hierarchy", lambda: None)
    assert "none ahead" in sandbox.limits() and not sandbox.freezable(command)


@needs_freezer
def test_a_bot_that_cannot_be_frozen_in_time_is_killed(tmp_path, monkeypatch):
    """A freeze that does not complete (a process that the freezer cannot stop in time)
    leaves nothing running early: the bot is killed, and fails its game."""
    from bones.protocol.cgroup import Cgroup
    from bones.protocol.client import ExternalBot, ExternalBotError

    monkeypatch.setattr(Cgroup, "freeze", lambda self, wait=1.0: False)
    token = str(uuid.uuid4().int % (1 << 62))
    bot = ExternalBot(
        wrap([sys.executable, str(RANDOM_BOT), token], cwd=str(tmp_path)), start=False
    )
    bot.spawn(hold=0.3)
    assert _frozen(bot) and _gone(token) and _soon(lambda: not bot.alive)
    with pytest.raises(ExternalBotError):
        bot.start()
        bot.ping(5.0)
    bot.close()


def test_only_a_sandboxed_bot_can_be_held():
    """Holding a bot that has no cgroup freezer (here: not sandboxed) is a clear error,
    and its process is not left running."""
    from bones.protocol.client import ExternalBot, ExternalBotError

    token = str(uuid.uuid4().int % (1 << 62))
    bot = ExternalBot([sys.executable, str(RANDOM_BOT), token], start=False)
    with pytest.raises(ExternalBotError) as caught:
        bot.spawn(hold=0.5)
    assert caught.value.kind == "crash" and "could not be frozen" in caught.value.message
    assert not bot.alive and _gone(token)
