"""``bones match --sandbox`` against the attacks of issue 32 that outlived the first
sandbox: memory across games in the page cache, partners talking through record locks,
the denied system calls (each tried, each EPERM, each working without the filter), a
``--plugin`` imported by the runner, binds turned towards /proc or another entry, the
package of an editable install, and a runner that is not root.  The hostile bot is
tests/protocol_bots/hostile.py; it reports what it managed on stderr."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_sandbox import HOSTILE, check_table, findings, hostile, needs_bwrap, play

from bones.match.runner import MatchConfig
from bones.match.schedule import plan
from bones.protocol.sandbox import Launch, SandboxError, SandboxPolicy, wrap

HERE = Path(__file__).parent


def _alone(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    job = Launch(argv)
    try:
        return subprocess.run(
            job.argv, capture_output=True, text=True, timeout=timeout, pass_fds=job.fds
        )
    finally:
        job.close()


def _found(stderr: str) -> list[dict]:
    return [json.loads(x[8:]) for x in stderr.splitlines() if x.startswith("FINDING ")]


def _entry(tmp_path: Path) -> tuple[Path, Path]:
    """An entry's folder on a disk file system (its own copy of the hostile bot and a
    64-page data file)."""
    folder = tmp_path / "entry"
    folder.mkdir(parents=True)
    bot = folder / "bot.py"
    shutil.copy(HOSTILE, bot)
    data = folder / "data.bin"
    with open(data, "wb") as f:
        f.write(os.urandom(64 * 4096))
        os.fsync(f.fileno())  # clean pages: the kernel drops them when told to
    for path in (folder, bot, data):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return bot, data


# -- 1. no memory across games -------------------------------------------------------------


@needs_bwrap
def test_the_page_cache_keeps_nothing_between_games(tmp_path):
    bot, data = _entry(tmp_path)
    spec = "cmd:" + " ".join([sys.executable, str(bot), "pagecache", str(data)])
    summary, logs = play(tmp_path, (spec, "random"), games=4)
    check_table(summary, 4)
    tries = [f for f in findings(logs) if f["attempt"] == "pagecache"]
    assert len(tries) == 4
    for before, after in zip(tries, tries[1:], strict=False):
        assert after["read"] != before["wrote"]  # the next game reads nothing of it
    assert all(f["errors"] == ["EPERM"] for f in tries)  # preadv2(RWF_NOWAIT), fadvise


@needs_bwrap
def test_a_private_copy_alone_forgets_the_page_cache(tmp_path):
    """Without the seccomp filter the probes work, and still each start reads its own
    fresh copy of the entry's file: the seed the first start left is not there."""
    bot, data = _entry(tmp_path)
    policy = SandboxPolicy(seccomp=False, cgroup=False)
    seeds = [0x5EED_F00D_0BAD_CAFE, 0x0123_4567_89AB_CDEF]
    runs = []
    for seed in seeds:
        argv = wrap([sys.executable, str(bot), "pagecache", str(data), str(seed)], policy, cwd="/")
        done = _alone(argv)
        (f,) = [f for f in _found(done.stderr) if f["attempt"] == "pagecache"]
        runs.append(f)
    # the copy is in a memory file system: no page of it is ever read from a disk
    assert all(set(f["errors"]) <= {"ENOTSUP"} for f in runs)
    assert runs[1]["read"] != runs[0]["wrote"]


@needs_bwrap
def test_partners_pass_nothing_through_locks(tmp_path):
    """Two copies of one entry in a game, both locking bytes of a file every sandbox
    binds (/usr/bin/env): no lock is taken, none is seen."""
    shared = "/usr/bin/env"
    summary, logs = play(tmp_path, (hostile("locks", shared), hostile("locks", shared)), games=2)
    check_table(summary, 2)
    found = findings(logs)
    locks = [f for f in found if f["attempt"] == "lock"]
    assert {f["name"] for f in locks} == {"setlk", "flock", "ofd_setlk"}
    assert all(not f["ok"] and f["error"] == "EPERM" for f in locks)
    looks = [f for f in found if f["attempt"] == "getlk"]
    assert looks and all(not f["ok"] and f["error"] == "EPERM" for f in looks)


# -- 6. every denied call, tried ------------------------------------------------------------

#: the calls the hostile bot makes (tests/protocol_bots/hostile.py, ``probes``)
PROBED = (
    "clone_newuser",
    "unshare_newuser",
    "ptrace_attach",
    "process_vm_readv",
    "socket_inet",
    "socket_inet6",
    "socket_netlink",
    "mincore",
    "madvise_pageout",
    "madvise_cold",
    "cachestat",
    "fadvise64",
    "readahead",
    "preadv2_nowait",
    "pwritev2_nowait",
    "preadv2_dontcache",
    "preadv2_plain",
    "io_setup",
    "io_submit",
    "io_getevents",
    "flock",
    "fcntl_getlk",
    "fcntl_setlk",
    "fcntl_setlkw",
    "fcntl_ofd_getlk",
    "fcntl_ofd_setlk",
    "fcntl_ofd_setlkw",
    "fcntl_getlease",
    "fcntl_notify",
    "inotify_init1",
    "inotify_init",
)


def _probes(seccomp: bool) -> dict[str, str | None]:
    policy = SandboxPolicy(seccomp=seccomp, cgroup=False)
    done = _alone(wrap([sys.executable, str(HOSTILE), "probes", "alone"], policy, cwd="/"))
    return {f["name"]: f["error"] for f in _found(done.stderr) if f["attempt"] == "probe"}


@needs_bwrap
@pytest.mark.skipif(
    os.uname().machine != "x86_64", reason="the hostile bot calls x86_64's system call numbers"
)
def test_each_denied_call_is_eperm_and_works_without_the_filter():
    """Each call is EPERM under the filter, and not EPERM without it: removing any of
    these rules from the filter fails this test."""
    denied, free = _probes(True), _probes(False)
    for name in PROBED:
        assert denied[name] == "EPERM", (name, denied[name])
        assert free[name] != "EPERM", (name, free[name])
    assert denied["socket_unix"] is None and free["socket_unix"] is None


# -- 3. nothing of the entrants in the runner ----------------------------------------------


@needs_bwrap
def test_a_plugin_is_not_imported_by_the_runner_under_sandbox(tmp_path):
    marker = tmp_path / "imports"
    journal = tmp_path / "m.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "BONES_TEST_MARKER": str(marker),
    }
    command = [sys.executable, "-m", "bones", "match", "t-marker", "greedy", "--sandbox"]
    command += ["--plugin", "marker_plugin", "--games", "2", "--jobs", "1"]
    command += ["--journal", str(journal), "--progress", "never"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr
    # the sandboxed bots import it (their marker file is out of their reach): nobody else
    assert not marker.exists(), marker.read_text()
    from bones.match import read_journal

    records = read_journal(journal).records
    assert len(records) == 2
    assert all(rec["bot_seeds"] != [rec["seed"]] * 2 for rec in records)  # its patch failed


@needs_bwrap
def test_built_in_bots_play_in_process_and_commands_in_the_sandbox():
    """Trusted code is not restarted in a sandbox for every game; an entry is."""
    config = MatchConfig(bots=("greedy", hostile("carry")), games=2, sandbox=True)
    commands = plan(config).commands
    assert commands[0] is None
    assert commands[1] is not None and "--as-pid-1" in commands[1]
    isolated = plan(MatchConfig(bots=("greedy", "random"), games=2, sandbox=True, isolate=True))
    assert all(c is not None for c in isolated.commands)  # --isolate too: served, sandboxed


@needs_bwrap
def test_two_sandboxed_entries_play_a_match_without_a_fault(tmp_path):
    """Two entries in the sandbox in every game, two workers, a clock and bot logs, each
    bot's process ended beside the next game: every game is played without a fault."""
    example = Path(__file__).resolve().parent.parent / "examples" / "python" / "random_bot.py"
    entry = tmp_path / "entry"
    entry.mkdir()
    shutil.copy(example, entry / "alice.py")
    shutil.copy(example, entry / "carol.py")
    bots = tuple(f"cmd:{sys.executable} {entry / name} 1" for name in ("alice.py", "carol.py"))
    from bones.match.runner import run_match

    config = MatchConfig(
        bots=bots,
        games=12,
        seed=3,
        secret="5e" * 32,
        sandbox=True,
        tc="5+0.1",
        bot_logs=str(tmp_path / "logs"),
    )
    summary = run_match(config, tmp_path / "m.jsonl", jobs=2, progress=False)
    check_table(summary, 12)


# -- 4. binds that cannot be turned --------------------------------------------------------


@needs_bwrap
def test_paths_to_host_folders_or_out_of_an_entry_are_refused(tmp_path):
    bot, _ = _entry(tmp_path)
    with pytest.raises(SandboxError, match=r"'/proc'.*no bot may see"):
        wrap([sys.executable, str(bot), "/proc"], cwd="/")
    link = tmp_path / "me"
    link.symlink_to("/proc/1")
    with pytest.raises(SandboxError, match=r"/proc/1\).*no bot may see"):
        wrap([sys.executable, str(bot), str(link)], cwd="/")
    other = tmp_path / "other"
    other.mkdir()
    (other / "secret.txt").write_text("another entry's file\n")
    (bot.parent / "theirs").symlink_to(other)
    with pytest.raises(SandboxError, match=r"holds the link .*theirs to .*other, outside it"):
        wrap([sys.executable, str(bot), str(bot.parent)], cwd="/")
    (bot.parent / "theirs").unlink()
    (bot.parent / "sys").symlink_to("/sys/kernel")
    with pytest.raises(SandboxError, match="outside it"):
        wrap([sys.executable, str(bot), str(bot.parent)], cwd="/")
    (bot.parent / "sys").unlink()
    (bot.parent / "inside").symlink_to(bot)  # a link within the folder is kept, as a link
    argv = wrap([sys.executable, str(bot), str(bot.parent)], cwd="/")
    assert f"bones-copy:{bot.parent}" in argv


@needs_bwrap
def test_an_entry_that_becomes_a_link_is_not_followed(tmp_path):
    bot, data = _entry(tmp_path)
    argv = wrap([sys.executable, str(bot), str(data)], cwd="/")
    data.unlink()
    data.symlink_to("/proc/self/environ")  # turned after the check, before the start
    with pytest.raises(SandboxError, match="became a link"):
        Launch(argv)


@needs_bwrap
def test_a_plain_editable_install_binds_the_package_folder_alone(tmp_path, monkeypatch):
    """``pip install -e .`` (no strict mode): bones is imported from the checkout's
    ``src`` through the install's finder; the sandbox binds ``src``, never the checkout
    (its ``.git``, the working folder of a match run there)."""
    import bones

    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    package = checkout / "src"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.setattr(bones, "__file__", str(package / "__init__.py"))
    argv = wrap([sys.executable, "-c", "pass"], SandboxPolicy(cgroup=False), cwd=str(checkout))
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    assert str(package) in binds
    assert str(checkout) not in binds and not any(".git" in b for b in binds)
    pythonpath = argv[argv.index("PYTHONPATH") + 1] if "PYTHONPATH" in argv else ""
    assert str(checkout) not in pythonpath.split(":")


# -- 5. a runner that is not root ----------------------------------------------------------


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="drops to uid 65534 with setpriv, which needs root")
def test_an_ordinary_user_runner_hides_bubblewrap_and_bounds_shm_and_processes(monkeypatch):
    """The runner as uid 65534 (no cgroup it could write): the bot is PID 1 and alone
    (no bubblewrap to read), /dev/shm is bounded, and the processes are limited."""
    monkeypatch.setattr(os, "geteuid", lambda: 65534)
    script = (
        "set -- /proc/[0-9]*; echo $#; cat /proc/1/environ | tr '\\0' ' '; echo;"
        " dd if=/dev/zero of=/dev/shm/f bs=1M count=64 2>/dev/null; echo shm $?;"
        " (for i in $(seq 40); do sleep 5 & echo x >> /tmp/n; done) 2>/dev/null;"
        " c=0; while read x; do c=$((c+1)); done < /tmp/n; echo forks $c"  # builtins alone
    )
    policy = SandboxPolicy(cgroup=False, tmp_mb=8, processes=16)
    argv = wrap(["/usr/bin/sh", "-c", script], policy, cwd="/")
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    token = "BONES_TEST_TOKEN=runner-secret"
    job = Launch(argv)
    try:
        done = subprocess.run(
            drop + job.argv,
            capture_output=True,
            text=True,
            timeout=60,
            pass_fds=job.fds,
            env={**os.environ, "BONES_TEST_TOKEN": "runner-secret"},
        )
    finally:
        job.close()
    lines = done.stdout.splitlines()
    assert len(lines) == 4, (done.stdout, done.stderr)
    assert lines[0] == "1"  # PID 1, the bot's shell, alone
    assert token not in done.stdout and "PATH=" in lines[1]  # its own clean environment
    assert lines[2] == "shm 1"  # 64 MiB do not fit in 8
    forks = int(lines[3].split()[1])
    assert 0 < forks < 16  # RLIMIT_NPROC in its user namespace


# -- 2. fair clocks: a CPU quota per bot ---------------------------------------------------


def _cpu_hierarchy():
    from bones.protocol.sandbox import _hierarchy

    found = _hierarchy()
    return None if found is None else found.cpu


@needs_bwrap
@pytest.mark.skipif(
    _cpu_hierarchy() is None, reason="no writable cgroup hierarchy with the cpu controller"
)
def test_a_spinning_bot_gets_no_more_than_its_cpu_quota():
    """Four processes spinning for a second of wall time get 0.2 CPU seconds between
    them (the quota), not the machine's cores: a hog cannot take its opponent's CPU."""
    argv = wrap([sys.executable, str(HOSTILE), "spin", "4"], SandboxPolicy(cpus=0.2), cwd="/")
    job = Launch(argv)
    try:
        (folder,) = [f for f in job.cgroup.folders if f.startswith(_cpu_hierarchy())]
        assert Path(folder, "cpu.cfs_quota_us").read_text().strip() == "20000"
        done = subprocess.run(
            job.argv, capture_output=True, text=True, timeout=60, pass_fds=job.fds
        )
    finally:
        job.close()
    (f,) = [f for f in _found(done.stderr) if f["attempt"] == "spin"]
    # (on an idle machine of 2 cores, 2 CPU seconds without the quota)
    assert 0 < f["cpu"] <= 0.3, f


def test_the_cpu_quota_is_written_where_the_cpu_controller_is(tmp_path):
    """A fake cgroup v1 file system with the cpu controller: its quota files."""
    from bones.protocol.cgroup import Cgroup, find

    lines = []
    for name in ("memory", "pids", "cpu"):
        (tmp_path / name).mkdir()
        lines.append(f"cgroup {tmp_path}/{name} cgroup rw,{name}")
    (tmp_path / "mounts").write_text("".join(f"{line} 0 0\n" for line in lines))
    (tmp_path / "own").write_text("4:memory:/\n8:pids:/\n1:cpu:/\n")
    found = find(str(tmp_path / "mounts"), str(tmp_path / "own"))
    assert found is not None and found.cpu == f"{tmp_path}/cpu/bones"
    group = Cgroup(found, 1 << 20, 4, cpus=1.5)
    folder = os.path.join(found.cpu, os.path.basename(group.folders[0]))
    assert Path(folder, "cpu.cfs_quota_us").read_text() == "150000"
    assert Path(folder, "cpu.cfs_period_us").read_text() == "100000"
    for made in group.folders:
        for name in os.listdir(made):
            os.remove(os.path.join(made, name))
    group.close()


@needs_bwrap
def test_an_entry_that_would_see_another_or_the_journal_is_refused(tmp_path):
    from bones.match.runner import run_match

    entries = tmp_path / "entries"
    alice, _ = _entry(entries / "alice")
    bob, _ = _entry(entries / "bob")
    nosy = "cmd:" + " ".join([sys.executable, str(alice), "carry", str(entries)])
    honest = "cmd:" + " ".join([sys.executable, str(bob), "carry"])
    journal = tmp_path / "m.jsonl"
    with pytest.raises(SandboxError, match=r"bot 1 would see .*bob.*, a file of bot 2"):
        run_match(MatchConfig(bots=(nosy, honest), games=2, sandbox=True), journal, jobs=1)
    logs = alice.parent / "logs"  # the bots' logs in an entry's folder
    config = MatchConfig(bots=(honest, "random"), games=2, sandbox=True, bot_logs=str(bob.parent))
    with pytest.raises(SandboxError, match="the journal or the bots' logs"):
        run_match(config, journal, jobs=1)
    assert not journal.exists() and not logs.exists()
