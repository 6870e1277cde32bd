"""``bones match --sandbox`` against hostile bots (tests/protocol_bots/hostile.py): each
attack is blocked, or is the bot's own clean forfeit, and the match finishes with its
table right.  The bots report what they managed on stderr, kept with ``bot_logs``.

Real bubblewrap processes: skipped only where ``bwrap`` or pyseccomp and libseccomp
are not installed (.ci/run installs them); the cgroup tests where no cgroup hierarchy
with the memory and pids controllers is writable (the reason says so)."""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import socket
import sys
import time
import uuid
from pathlib import Path

import pytest

from bones.match.runner import MatchConfig, run_match
from bones.protocol.sandbox import Launch, SandboxError, SandboxPolicy, close_spares, wrap

HERE = Path(__file__).parent
HOSTILE = HERE / "protocol_bots" / "hostile.py"
SECRET = "5e" * 32


def _no_seccomp() -> str:
    """Why the seccomp filter cannot be built here ('' if it can)."""
    from bones.protocol.sandbox import seccomp_filter

    try:
        seccomp_filter()
    except SandboxError as exc:
        return str(exc)
    return ""


def _no_sandbox() -> str:
    """What ``--sandbox`` lacks here, in the words of its own error ('' if nothing)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    return _no_seccomp()


needs_bwrap = pytest.mark.skipif(bool(_no_sandbox()), reason=_no_sandbox() or "-")


def hostile(mode: str, arg: str = "") -> str:
    return "cmd:" + shlex.join([sys.executable, str(HOSTILE), mode, *([arg] if arg else [])])


def play(tmp_path: Path, bots: tuple[str, ...], games: int = 2, **config) -> tuple[dict, Path]:
    logs = tmp_path / "logs"
    path = tmp_path / "m.jsonl"
    config.setdefault("timeout", 20.0)
    config.setdefault("sandbox", True)
    summary = run_match(
        MatchConfig(bots=bots, games=games, secret=SECRET, bot_logs=str(logs), **config),
        path,
        jobs=1,
        progress=False,
    )
    return summary, logs


def findings(logs: Path) -> list[dict]:
    out = []
    for log in sorted(logs.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("FINDING "):
                out.append(json.loads(line[len("FINDING ") :]))
    return out


def check_table(summary: dict, games: int, forfeits: int = 0) -> None:
    """The match played and counted all its games, with ``forfeits`` forfeits."""
    assert summary["scheduled"] == summary["played"] == summary["counted"] == games
    assert summary["errors"] == [] and summary["void"] == 0
    rows = summary["bots"]
    assert [r["games"] for r in rows] == [games, games]
    assert sum(r["wins"] for r in rows) + sum(r["draws"] for r in rows) // 2 == games
    assert sum(sum(r["forfeits"].values()) for r in rows) == forfeits


# -- the sandbox's command line ---------------------------------------------------------


@needs_bwrap
def test_wrap_builds_the_documented_command(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("print('hi')\n")
    argv = wrap([sys.executable, str(bot)], SandboxPolicy(memory_mb=256, tmp_mb=8), cwd="/")
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"):
        assert flag in argv
    assert "--new-session" in argv and "--die-with-parent" in argv
    # the bot is PID 1 (no bubblewrap inside to read); the namespace ends with it
    assert "--as-pid-1" in argv and argv[argv.index("bones-sandbox") + 2].endswith("bwrap")
    at = argv.index("--tmpfs")  # the private /tmp and /dev/shm: world-writable, 8 MiB
    assert argv[at - 4 : at + 2] == ["--perms", "1777", "--size", str(8 << 20), "--tmpfs", "/tmp"]
    assert argv[at + 2 : at + 8] == [
        "--perms",
        "1777",
        "--size",
        str(8 << 20),
        "--tmpfs",
        "/dev/shm",
    ]
    # the bot's own file: a private copy made at each start (Launch), bound at its path
    assert ["--ro-bind", f"bones-copy:{bot}", str(bot)] == argv[argv.index(str(bot)) - 2 :][:3]
    script = argv[argv.index("bones-sandbox") - 1]  # the shell's rlimits, then bubblewrap
    assert f"ulimit -v {256 << 10} " in script and "ulimit -c 0 " in script
    assert "--bind" not in argv  # nothing writable is bound
    assert argv[-2:] == [sys.executable, str(bot)]
    if os.geteuid() == 0:
        assert "--reuid=65534" in argv


@needs_bwrap
def test_a_folder_that_holds_the_working_folder_is_refused(tmp_path):
    with pytest.raises(SandboxError, match="working folder"):
        wrap([sys.executable, str(HOSTILE), str(tmp_path)], cwd=str(tmp_path / "sub"))


def test_sandbox_without_bwrap_fails_before_the_match(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    path = tmp_path / "m.jsonl"
    with pytest.raises(SandboxError, match="apt-get install bubblewrap"):
        run_match(MatchConfig(bots=("random", "greedy"), sandbox=True), path, jobs=1)
    assert not path.exists()  # nothing played, no journal


@pytest.mark.skipif(shutil.which("bwrap") is None, reason=_no_sandbox() or "-")
def test_sandbox_without_pyseccomp_fails_before_the_match(tmp_path, monkeypatch):
    from bones.protocol.sandbox import seccomp_filter

    monkeypatch.setitem(sys.modules, "pyseccomp", None)  # its import fails
    seccomp_filter.cache_clear()
    path = tmp_path / "m.jsonl"
    try:
        with pytest.raises(SandboxError, match=r"pyseccomp.*pip install 'bones\[sandbox\]'"):
            run_match(MatchConfig(bots=("random", "greedy"), sandbox=True), path, jobs=1)
    finally:
        seccomp_filter.cache_clear()
    assert not path.exists()


# -- hostile bots -----------------------------------------------------------------------


@needs_bwrap
def test_proc_shows_no_runner_and_the_journal_cannot_be_opened(tmp_path):
    journal = tmp_path / "m.jsonl"
    summary, logs = play(tmp_path, (hostile("proc", str(journal).encode().hex()), "random"))
    check_table(summary, 2)
    found = findings(logs)
    assert found, "the hostile bot reported nothing"
    pids = [f for f in found if f["attempt"] == "pids"]
    # the bot is PID 1 and alone: no bubblewrap inside to read
    assert pids and all(f["pids"] == [1] and f["me"] == 1 for f in pids)
    for f in found:
        if f["attempt"] in ("cmdline", "environ") and f["ok"]:
            assert str(journal) not in f["text"] and "pytest" not in f["text"]
            assert SECRET not in f["text"]
    journals = [f for f in found if f["attempt"] == "journal"]
    assert journals and all(not f["ok"] and f["error"] == "ENOENT" for f in journals)


@needs_bwrap
def test_no_network(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    port = server.getsockname()[1]
    try:
        summary, logs = play(tmp_path, (hostile("net", str(port)), "random"), games=2)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected
    finally:
        server.close()
    check_table(summary, 2)
    found = findings(logs)
    connects = [f for f in found if f["attempt"] == "connect"]
    assert len(connects) == 4 and not any(f["ok"] for f in connects)
    # it may listen, on the loopback of its own network namespace: nobody can reach it
    listens = [f for f in found if f["attempt"] == "listen" and f["ok"]]
    for f in listens:
        probe = socket.socket()
        try:
            assert probe.connect_ex(("127.0.0.1", f["port"])) != 0 or f["port"] == port
        finally:
            probe.close()


@needs_bwrap
def test_the_network_namespace_alone_keeps_the_bot_off_the_network():
    """Without the seccomp filter (which refuses the socket itself), the network
    namespace: a connection to a port this process listens on is refused."""
    import subprocess

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    code = (
        f"import socket\ns = socket.socket()\ntry:\n    s.connect(('127.0.0.1', {port}))\n"
        "    print('connected')\nexcept OSError as e:\n    print(e.errno)"
    )
    argv = wrap([sys.executable, "-c", code], SandboxPolicy(seccomp=False), cwd="/")
    job = Launch(argv)
    try:
        done = subprocess.run(job.argv, capture_output=True, text=True, timeout=30)
    finally:
        server.close()
        job.close()
    assert "--seccomp" not in argv
    assert done.stdout.strip() == "111", done.stderr  # ECONNREFUSED: nobody listens there


@needs_bwrap
def test_no_writes_outside_its_tmp(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    summary, logs = play(tmp_path, (hostile("write", str(target).encode().hex()), "random"))
    check_table(summary, 2)
    writes = {f["folder"]: f for f in findings(logs) if f["attempt"] == "write"}
    assert writes["/tmp"]["ok"]  # its private /tmp
    for folder in (str(target), os.getcwd(), str(HOSTILE.parent), "/"):
        assert not writes[folder]["ok"], folder
    assert not list(target.iterdir())
    assert not (HOSTILE.parent / "hostile-was-here").exists()
    assert not Path("hostile-was-here").exists()


@needs_bwrap
def test_filling_tmp_stops_at_its_size(tmp_path):
    summary, logs = play(tmp_path, (hostile("filltmp"), "random"), games=2)
    check_table(summary, 2)
    fills = [f for f in findings(logs) if f["attempt"] == "filltmp"]
    assert len(fills) == 2  # one per game: a fresh /tmp each time
    for f in fills:
        assert f["written_mb"] <= SandboxPolicy().tmp_mb
        assert f["errors"][0] == "EFBIG"  # one file: RLIMIT_FSIZE
        assert f["errors"][-1] == "ENOSPC"  # all of them: the size of the tmpfs


@needs_bwrap
def test_memory_stops_at_its_limit(tmp_path):
    summary, logs = play(tmp_path, (hostile("memory"), "random"), games=2)
    check_table(summary, 2)
    tries = [f for f in findings(logs) if f["attempt"] == "memory"]
    assert len(tries) == 2
    assert all(not f["ok"] and f["mb"] < SandboxPolicy().memory_mb for f in tries)


@needs_bwrap
def test_sandbox_memory_sets_the_limit(tmp_path):
    summary, logs = play(tmp_path, (hostile("memory"), "random"), games=2, sandbox_memory=256)
    check_table(summary, 2)
    tries = [f for f in findings(logs) if f["attempt"] == "memory"]
    assert len(tries) == 2 and all(not f["ok"] and f["mb"] < 256 for f in tries)


def test_sandbox_memory_is_checked(tmp_path, capsys):
    from bones.cli import main
    from bones.match.runner import MatchError

    with pytest.raises(MatchError, match="sandbox_memory"):
        MatchConfig.from_dict(
            {
                "bots": ["random", "greedy"],
                "variant": "straight",
                "players": 2,
                "games": 2,
                "sandbox_memory": 3,
            }
        )
    journal = str(tmp_path / "m.jsonl")
    assert main(["match", "random", "greedy", "--sandbox-memory", "64", "--journal", journal]) == 2
    assert "give --sandbox too" in capsys.readouterr().err


@needs_bwrap
@pytest.mark.skipif(
    platform.machine() != "x86_64", reason="the hostile bot calls x86_64's system call numbers"
)
def test_the_seccomp_filter_denies_what_a_bot_never_needs(tmp_path):
    summary, logs = play(tmp_path, (hostile("syscalls"), "random"), games=2)
    check_table(summary, 2)
    found = findings(logs)
    assert {f["mode"] for f in found if f["attempt"] == "seccomp"} == {"2"}  # a filter
    calls = {f["name"]: f for f in found if f["attempt"] == "syscall"}
    for name in ("ptrace", "unshare", "keyctl", "bpf", "socket_inet"):
        assert not calls[name]["ok"] and calls[name]["error"] == "EPERM", name
    assert calls["socket_unix"]["ok"]


def _running(token: str) -> list[int]:
    """The pids of this machine's processes with ``token`` in their command line."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    out.append(int(name))
        except OSError:
            continue
    return out


def _gone(token: str, wait: float = 5.0) -> bool:
    end = time.monotonic() + wait
    while _running(token):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@needs_bwrap
def test_a_double_forked_child_dies_with_the_bot(tmp_path):
    token = f"bones-orphan-{uuid.uuid4().hex}"
    summary, logs = play(tmp_path, (hostile("fork", token), "random"))
    check_table(summary, 2)
    forks = [f for f in findings(logs) if f["attempt"] == "fork"]
    assert forks and all(f["ok"] and f["seen"] for f in forks)  # it ran, in the game
    assert _gone(token), "a grandchild of the sandboxed bot outlived the match"


def test_without_the_sandbox_the_double_forked_child_survives(tmp_path):
    """The attack of the test above is real: a plain ``cmd:`` bot's grandchild lives on."""
    token = f"bones-orphan-{uuid.uuid4().hex}"
    try:
        summary, _ = play(tmp_path, (hostile("fork", token), "random"), games=2, sandbox=False)
        check_table(summary, 2)
        end = time.monotonic() + 5
        while not _running(token) and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.5)  # after the match: still there
        assert _running(token)
    finally:
        for pid in _running(token):
            os.kill(pid, 9)


@needs_bwrap
def test_signals_reach_no_other_process(tmp_path):
    summary, logs = play(tmp_path, (hostile("signals", str(os.getpid())), "random"))
    check_table(summary, 2)
    found = findings(logs)
    assert not [f for f in found if f["attempt"] == "kill"]  # it is alone: PID 1
    runner = [f for f in found if f["attempt"] == "runner"]
    assert runner and all(not f["ok"] and f["error"] == "ESRCH" for f in runner)


@needs_bwrap
def test_nothing_carries_over_between_games(tmp_path):
    summary, logs = play(tmp_path, (hostile("carry"), "random"), games=4)
    check_table(summary, 4)
    carried = [f for f in findings(logs) if f["attempt"] == "carry"]
    assert len(carried) == 4  # a fresh process and a fresh /tmp for every game
    assert all(f["notes"] == [] and f["remembered"] == 0 for f in carried)


@needs_bwrap
def test_isolated_builtin_bots_play_in_the_sandbox(tmp_path):
    """With --isolate too, the built-in bots are served from sandboxes (without it they
    play in process: test_sandbox_contest.py)."""
    summary, _ = play(tmp_path, ("random", "greedy"), games=4, sandbox=True, isolate=True)
    check_table(summary, 4)


@needs_bwrap
def test_serve_bot_sandbox_serves_from_inside_bubblewrap():
    from bones.protocol.client import ExternalBot

    before = _cgroups() if _hierarchy() is not None else set()
    command = [sys.executable, "-m", "bones", "serve-bot", "--sandbox", "greedy"]
    with ExternalBot(command) as bot:
        assert bot.info is not None and bot.info.name == "greedy"
        assert bot.ping() >= 0
    if _hierarchy() is not None:  # serve-bot removed its bot's cgroup when it ended
        assert _cgroups() <= before


def test_a_bot_name_cannot_print_a_fake_row(tmp_path):
    """A hello name with a newline and ESC: the table shows it on its own row, inert."""
    from bones.match.report import format_table
    from bones.protocol.client import printable

    summary, _ = play(tmp_path, (hostile("name"), "random"), sandbox=False)
    check_table(summary, 2)
    labels = sorted(row["bot"] for row in summary["bots"])
    assert labels == ["evil 1 fake-bot 999 999 0 0[2J", "random"]
    table = format_table(summary)
    assert "\x1b" not in table
    firsts = [line.split()[:2] for line in table.splitlines() if line.strip()]
    assert [w for w in firsts if w[0] in ("1", "2")] == [["1", "random"], ["2", "evil"]] or [
        w for w in firsts if w[0] in ("1", "2")
    ] == [["1", "evil"], ["2", "random"]]  # a row per bot, no fake one
    assert not any(w[0] == "fake-bot" or w[1:] == ["fake-bot"] for w in firsts)
    assert printable("a\u202eb\tc\nd", keep="\n") == "abc\nd"  # bidi override, tab: gone


@needs_bwrap
def test_a_plugin_bot_plays_in_the_sandbox(tmp_path, monkeypatch):
    """--sandbox serves a --plugin bot as --isolate does: its module is bound read-only
    into the sandbox and put on its PYTHONPATH; the bot finds no round to peek at."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    summary, _ = play(tmp_path, ("t-peek", "greedy"), games=2, plugins=("peek_plugin",))
    check_table(summary, 2)
    assert [x["bot"] for x in summary["bots"]] == ["t-peek", "greedy"]
    with open(tmp_path / "m.jsonl") as f:
        assert json.loads(f.readline())["config"]["sandbox"] is True  # --resume keeps it


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="runs the unprivileged command as uid 65534")
def test_the_command_of_a_user_that_is_not_root_works(monkeypatch):
    """Run by another user, bubblewrap needs a user namespace (no setpriv, no process
    limit); here that command is built and run as uid 65534."""
    import subprocess

    monkeypatch.setattr(os, "geteuid", lambda: 65534)
    script = "id -u; echo /proc/[0-9]*; echo x > /tmp/a && echo tmp; echo y > /b"
    # no cgroup: that user could not write this machine's root-owned hierarchy
    argv = wrap(["/usr/bin/sh", "-c", script], SandboxPolicy(cgroup=False), cwd="/")
    assert "--unshare-user" in argv and "/usr/bin/setpriv" not in argv
    assert "--nproc=256" in argv  # counted in the bot's own user namespace
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    job = Launch(argv)
    try:
        done = subprocess.run(
            drop + job.argv, capture_output=True, text=True, timeout=30, pass_fds=job.fds
        )
    finally:
        job.close()
    assert done.stdout.split() == ["65534", "/proc/1", "tmp"]  # sh alone: PID 1
    assert "Read-only file system" in done.stderr


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="only root's bots change uid")
def test_a_file_the_bots_uid_cannot_read_is_a_clear_error(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("pass\n")
    bot.chmod(0o600)
    with pytest.raises(SandboxError, match=r"uid 65534, which cannot read .*bot.py \(mode 0600\)"):
        wrap([sys.executable, str(bot)], cwd="/")


# -- cgroups: the memory and processes of a bot's whole tree -----------------------------


def _hierarchy():
    from bones.protocol.sandbox import _hierarchy

    return _hierarchy()


needs_cgroup = pytest.mark.skipif(
    bool(_no_sandbox()) or _hierarchy() is None,
    reason=_no_sandbox()
    or "no writable cgroup hierarchy with the memory and pids controllers "
    "(cgroup v2 with them delegated to this user, or v1 as root): the rlimits alone apply",
)


def _theirs(pid: int) -> bool:
    """Whether ``pid`` is a live process outside this test's tree (another run's)."""
    while pid > 1:
        if pid == os.getpid():
            return False
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            return False  # gone: one of ours that left its cgroup behind, or another's
    return True


def _cgroups() -> set[str]:
    """The bots' cgroups that exist now (every hierarchy), but those of other runs of
    bones going on at the same time."""
    return {
        os.path.join(folder, name)
        for folder in _hierarchy().folders
        for name in os.listdir(folder)
        if os.path.isdir(os.path.join(folder, name)) and not _theirs(int(name.partition("-")[0]))
    }


@needs_cgroup
def test_with_a_cgroup_the_processes_are_counted_by_it(tmp_path):
    argv = wrap([sys.executable, "-c", "pass"], SandboxPolicy(memory_mb=256, processes=32), cwd="/")
    assert argv[0] == f"bones-cgroup:memory={256 << 20},pids=32,cpus=1"
    assert "ulimit -p" not in argv[3]  # not the uid's count: the tree's
    argv = wrap([sys.executable, "-c", "pass"], SandboxPolicy(cgroup=False), cwd="/")
    assert argv[0] == "/usr/bin/sh" and ("ulimit -p 256 " in argv[2]) == (os.geteuid() == 0)


@needs_cgroup
def test_the_launch_puts_bubblewrap_in_the_cgroup_and_removes_it():
    import subprocess

    before = _cgroups()
    job = Launch(wrap(["/usr/bin/sleep", "60"], SandboxPolicy(memory_mb=64, processes=8), cwd="/"))
    proc = subprocess.Popen(job.argv, pass_fds=job.fds)
    job.started()
    try:
        assert job.cgroup is not None
        made = set(job.cgroup.folders)
        assert made <= _cgroups() and not made & before
        deadline = time.monotonic() + 10
        while len(job.cgroup.pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # bwrap, sleep (PID 1 of its namespace; setpriv, prlimit exec)
        assert proc.pid in job.cgroup.pids() and len(job.cgroup.pids()) >= 2
        for folder in made:
            limit = "memory.limit_in_bytes" if "memory" in folder else "memory.max"
            if os.path.exists(os.path.join(folder, limit)):
                assert open(os.path.join(folder, limit)).read().strip() == str(64 << 20)
            if os.path.exists(os.path.join(folder, "pids.max")):
                assert open(os.path.join(folder, "pids.max")).read().strip() == "8"
    finally:
        job.close()  # kills the tree, removes the cgroup
        close_spares()  # and those made ahead for the next starts
    assert proc.wait(timeout=10) == -9
    assert not any(os.path.exists(folder) for folder in made)
    assert _cgroups() <= before


@needs_cgroup
def test_a_fork_bomb_stops_at_pids_max(tmp_path):
    before = _cgroups()
    summary, logs = play(tmp_path, (hostile("forkbomb"), "random"), games=2)
    check_table(summary, 2)  # refused forks, the game played on
    bombs = [f for f in findings(logs) if f["attempt"] == "forkbomb"]
    assert len(bombs) == 2
    # pids.max counts bwrap's two processes and the bot too
    assert all(
        f["error"] == "EAGAIN" and 200 < f["forks"] < SandboxPolicy().processes for f in bombs
    )
    assert _cgroups() <= before  # every bot's cgroup removed


@needs_cgroup
def test_a_tree_past_the_memory_limit_is_killed_and_forfeits(tmp_path):
    """Each process stays within its address space (RLIMIT_AS); together they pass the
    cgroup's limit: the kernel kills the biggest, the bot, which forfeits."""
    before = _cgroups()
    summary, logs = play(tmp_path, (hostile("hog", "160"), "random"), games=2, sandbox_memory=160)
    check_table(summary, 2, forfeits=2)
    rows = {r["bot"]: r for r in summary["bots"]}
    assert rows["hostile-hog"]["forfeits"] == {"crash": 2}
    assert not [f for f in findings(logs) if f["attempt"] == "hog"]  # killed before a word
    assert _cgroups() <= before


def _fake(tmp_path: Path, mounts: list[str], own: list[str]) -> tuple[str, str]:
    (tmp_path / "mounts").write_text("".join(f"{line} 0 0\n" for line in mounts))
    (tmp_path / "own").write_text("".join(f"{line}\n" for line in own))
    return str(tmp_path / "mounts"), str(tmp_path / "own")


def fake_v1(tmp_path: Path, names: tuple[str, ...]):
    """:func:`bones.protocol.cgroup.find` on a fake cgroup v1 file system (plain
    folders) with a hierarchy of each controller of ``names``, this process at its root."""
    from bones.protocol.cgroup import find

    for name in names:
        (tmp_path / name).mkdir()
    mounts = [f"cgroup {tmp_path}/{name} cgroup rw,{name}" for name in names]
    return find(*_fake(tmp_path, mounts, [f"{i}:{name}:/" for i, name in enumerate(names)]))


def test_cgroup_v2_is_used_where_memory_and_pids_can_be_given_to_sub_groups(tmp_path):
    """A fake cgroup v2 file system (plain folders): the files bones writes, and what."""
    from bones.protocol.cgroup import Cgroup, find

    base = tmp_path / "cg" / "a" / "b"
    base.mkdir(parents=True)
    (base / "cgroup.controllers").write_text("cpu io memory pids\n")
    mounts, own = _fake(tmp_path, [f"cgroup2 {tmp_path}/cg cgroup2 rw"], ["0::/a/b"])
    found = find(mounts, own)
    assert found is not None and found.version == 2
    assert found.folders == (str(base / "bones"),)
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (base / "bones" / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    (base / "bones" / "123-1-1").mkdir()  # a group of a runner that is gone (pid 123)
    os.utime(base / "bones" / "123-1-1", (0, 0))
    group = Cgroup(found, 64 << 20, 8)
    (folder,) = group.folders
    assert not (base / "bones" / "123-1-1").exists()  # swept
    assert os.path.basename(folder).startswith(f"{os.getpid()}-")
    assert Path(folder, "memory.max").read_text() == str(64 << 20)
    assert Path(folder, "pids.max").read_text() == "8"
    assert not Path(folder, "memory.swap.max").exists()  # only written where it exists
    assert group.procs == [os.path.join(folder, "cgroup.procs")] and group.pids() == []
    for name in os.listdir(folder):  # the kernel's files go with the folder
        os.remove(os.path.join(folder, name))
    group.close()
    assert not os.path.exists(folder) and group.folders == []


def test_cgroup_v1_when_v2_lacks_the_controllers_and_none_without_either(tmp_path):
    from bones.protocol.cgroup import Cgroup, find

    (tmp_path / "unified").mkdir()
    (tmp_path / "unified" / "cgroup.controllers").write_text("hugetlb\n")
    for name in ("memory", "pids"):
        (tmp_path / name / "x").mkdir(parents=True)
    lines = [
        f"cgroup2 {tmp_path}/unified cgroup2 rw",
        f"cgroup {tmp_path}/memory cgroup rw,memory",
        f"cgroup {tmp_path}/pids cgroup rw,pids",
    ]
    mounts, own = _fake(tmp_path, lines, ["8:pids:/", "4:memory:/x", "0::/"])
    found = find(mounts, own)
    assert found is not None and found.version == 1
    assert found.folders == (f"{tmp_path}/memory/x/bones", f"{tmp_path}/pids/bones")
    mounts, own = _fake(tmp_path, lines[:2], ["4:memory:/x", "0::/"])
    assert find(mounts, own) is None  # no pids hierarchy: rlimits only
    both = [f"cgroup {tmp_path}/memory cgroup rw,memory,pids"]  # mounted together
    mounts, own = _fake(tmp_path, both, ["4:memory,pids:/x"])
    found = find(mounts, own)
    assert found is not None and found.folders == (f"{tmp_path}/memory/x/bones",)
    assert found.memory == found.pids
    group = Cgroup(found, 1 << 20, 4)  # one folder, both controllers' files in it
    (folder,) = group.folders
    assert sorted(os.listdir(folder)) == ["memory.limit_in_bytes", "pids.max"]
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    group.close()
    assert not os.path.exists(folder)
    assert find(str(tmp_path / "none"), own) is None


@needs_bwrap
def test_match_sandbox_says_which_limits_are_in_force(tmp_path, capsys, monkeypatch):
    from bones.cli import main
    from bones.protocol import sandbox

    journal = str(tmp_path / "m.jsonl")
    argv = ["match", "random", "greedy", "--games", "2", "--sandbox", "--sandbox-memory", "200"]
    assert main([*argv, "--journal", journal, "--progress", "never", "--seed", "1"]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("bones: sandbox")]
    assert len(lines) == 1
    assert "address space 200 MiB per process" in lines[0]
    assert "; seccomp filter (libseccomp)" in lines[0]
    assert lines[0].endswith(
        "; open: residency and timing of the shared files' page cache, CPU contention"
    )
    found = _hierarchy()
    if found is not None:
        assert f"cgroup v{found.version} (" in lines[0]
        assert "memory 200 MiB and 256 processes per bot" in lines[0]
    monkeypatch.setattr(sandbox, "_hierarchy", lambda: None)  # a machine without cgroups
    text = sandbox.limits(SandboxPolicy(memory_mb=200))
    assert "no writable cgroup hierarchy with memory and pids: no cgroup limits" in text
    assert "256 processes (RLIMIT_NPROC" in text
    argv = wrap([sys.executable, "-c", "pass"], cwd="/")
    assert argv[0] == "/usr/bin/sh" and ("ulimit -p 256 " in argv[2]) == (os.geteuid() == 0)


@needs_cgroup
def test_a_machine_without_the_cgroup_the_command_asks_for_cannot_start_it(monkeypatch):
    from bones.protocol import sandbox
    from bones.protocol.client import ExternalBot, ExternalBotError

    command = wrap([sys.executable, "-c", "pass"], cwd="/")  # asks for a cgroup
    monkeypatch.setattr(sandbox, "_hierarchy", lambda: None)  # a dask worker without one
    with pytest.raises(
        ExternalBotError, match="could not start the sandbox: .* no writable cgroup"
    ):
        ExternalBot(command)
