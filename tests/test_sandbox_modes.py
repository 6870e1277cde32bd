"""``--sandbox`` in the ways bones is run (issue 32): a whole ``bones match --sandbox``
run by an ordinary user (uid 65534, no cgroup it could write) against hostile entries,
and what a sandboxed bot sees of the bones package and its checkout under each way of
installing bones (a wheel, ``pip install -e``, a strict editable install).

The match tests need root (to become uid 65534); the install tests build and are
marked slow.  The hostile bot is tests/protocol_bots/hostile.py; it reports what it
managed on stderr."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_sandbox import HOSTILE, findings, needs_bwrap

import bones
from bones.protocol.sandbox import SandboxPolicy

CHECKOUT = Path(__file__).resolve().parent.parent
NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
#: What bones needs at run time (pyproject.toml's dependencies) and --sandbox (pyseccomp).
RUNTIME = ("pluggy", "msgpack", "pyseccomp")
TOKEN = "runner-secret-token"

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="becomes uid 65534 with setpriv, which needs root"
)


def _open_to_others(path: str) -> bool:
    """Whether a user of no group of its owner can reach the file ``path`` (every
    folder above it searchable, the file readable)."""
    real = os.path.realpath(path)
    if not os.stat(real).st_mode & stat.S_IROTH:
        return False
    folder = os.path.dirname(real)
    while folder != "/":
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
        folder = os.path.dirname(folder)
    return True


def _interpreter() -> str | None:
    """A Python of this version that uid 65534 can run: this one, else the system's
    (the same minor version: the compiled core's ABI)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for exe in (sys.executable, f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        if os.path.exists(exe) and _open_to_others(exe):
            return exe
    return None


def _copy_module(name: str, site: Path) -> None:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin, name
    if spec.submodule_search_locations:
        source = Path(next(iter(spec.submodule_search_locations)))
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(source, site / name, ignore=ignore, symlinks=False)
    else:
        shutil.copy2(spec.origin, site / Path(spec.origin).name)


def _venv(python: str, where: Path) -> tuple[Path, Path]:
    """A venv of ``python`` at ``where`` without pip: ``(its python, its site-packages)``."""
    subprocess.run([python, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    exe = where / "bin" / "python"
    purelib = subprocess.run(
        [str(exe), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    return exe, Path(purelib)


def _open_up(root: Path) -> None:
    """``chmod -R a+rX`` of ``root``, as uid 65534 must read it."""
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                mode = os.stat(path).st_mode
                os.chmod(path, stat.S_IMODE(mode) | 0o444 | (0o111 if mode & 0o100 else 0))


def _userns_missing(python: str) -> str:
    """Why uid 65534 cannot make bubblewrap's user namespace here ('' if it can)."""
    bwrap = shutil.which("bwrap")
    argv = [*AS_NOBODY, str(bwrap), "--unshare-user", "--ro-bind", "/", "/", python, "-c", ""]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    return "" if done.returncode == 0 else f"bwrap as uid 65534: {done.stderr.strip()}"


# -- 1. a whole match run by an ordinary user ----------------------------------------------


@pytest.fixture(scope="module")
def nobody() -> Iterator[Path]:
    """A folder uid 65534 can read: ``venv`` (this version of Python, with copies of the
    installed bones package and of what it needs), ``entry`` (a copy of the hostile
    bot); a fresh ``run`` folder of that user's in each test's own folder."""
    python = _interpreter()
    if python is None:
        pytest.skip(f"no Python {sys.version_info[:2]} that uid 65534 can run (folder modes)")
    missing = _userns_missing(python)
    if missing:
        pytest.skip(missing)
    root = Path(tempfile.mkdtemp(prefix="bones-nobody-"))
    try:
        _, site = _venv(python, root / "venv")
        package = Path(bones.__file__).resolve().parent
        shutil.copytree(
            package, site / "bones", symlinks=False, ignore=shutil.ignore_patterns("__pycache__")
        )
        for name in RUNTIME:
            _copy_module(name, site)
        (root / "entry").mkdir()
        shutil.copy(HOSTILE, root / "entry" / "bot.py")
        _open_up(root)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _match(
    root: Path, name: str, bots: list[str], *more: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``bones match --sandbox`` of ``bots`` run by uid 65534 from its folder
    ``root/name`` (the journal ``m.jsonl`` and the bots' logs there), with a token in
    the runner's environment; ``(the finished process, its folder)``."""
    run = root / name
    run.mkdir()
    os.chown(run, NOBODY, NOBODY)
    python = str(root / "venv" / "bin" / "python")
    argv = [*AS_NOBODY, python, "-m", "bones", "match", *bots, "--sandbox", "--games", "2"]
    argv += ["--journal", str(run / "m.jsonl"), "--bot-logs", str(run / "logs")]
    argv += ["--progress", "never", "--timeout", "30", "--jobs", "1", "--json", *more]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(run), "LANG": "C.UTF-8", "BONES_TOKEN": TOKEN}
    done = subprocess.run(
        argv, cwd=run, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    return done, run


def _bot(root: Path, mode: str, arg: str = "") -> str:
    return f"cmd:{root}/venv/bin/python {root}/entry/bot.py {mode} {arg}".rstrip()


def _summary(done: subprocess.CompletedProcess[str], forfeits: int = 0) -> dict:
    """The match's JSON summary, checked: both games played and counted."""
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["played"] == summary["counted"] == 2 and summary["errors"] == []
    assert sum(sum(r["forfeits"].values()) for r in summary["bots"]) == forfeits
    return summary


def _limits(done: subprocess.CompletedProcess[str]) -> str:
    lines = [x for x in done.stderr.splitlines() if x.startswith("bones: sandbox limits:")]
    assert len(lines) == 1, done.stderr
    return lines[0]


@needs_bwrap
@needs_root
def test_an_ordinary_user_match_says_which_limits_hold(nobody):
    done, _ = _match(nobody, "limits", [_bot(nobody, "carry"), "random"])
    _summary(done)
    line = _limits(done)
    assert "/tmp and /dev/shm 64 MiB each" in line
    # no cgroup that user could write: the processes by RLIMIT_NPROC, in its namespace
    assert "256 processes (RLIMIT_NPROC, counted in the bot's user namespace)" in line
    assert "no writable cgroup hierarchy with memory and pids: no cgroup limits" in line
    assert "; seccomp filter (libseccomp); open: residency" in line


@needs_bwrap
@needs_root
def test_an_ordinary_user_bot_reads_no_runner_through_proc_1(nobody):
    journal_hex = str(nobody / "proc" / "m.jsonl").encode().hex()
    done, run = _match(nobody, "proc", [_bot(nobody, "proc", journal_hex), "random"])
    _summary(done)
    found = findings(run / "logs")
    pids = [f for f in found if f["attempt"] == "pids"]
    # the bot is PID 1 and alone: no bubblewrap of the runner's uid to read or write
    assert len(pids) == 2 and all(f["pids"] == [1] and f["me"] == 1 for f in pids)
    mems = [f for f in found if f["attempt"] == "mem"]
    assert mems and all(f["pid"] == 1 for f in mems)  # its own memory alone
    environs = [f for f in found if f["attempt"] == "environ" and f["ok"]]
    assert environs and all(TOKEN not in f["text"] for f in environs)
    for f in found:
        assert TOKEN not in json.dumps(f)
    journals = [f for f in found if f["attempt"] == "journal"]
    assert journals and not any(f["ok"] for f in journals)


@needs_bwrap
@needs_root
def test_an_ordinary_user_bot_cannot_fill_dev_shm(nobody):
    done, run = _match(nobody, "shm", [_bot(nobody, "filltmp", b"/dev/shm".hex()), "random"])
    _summary(done)
    fills = [f for f in findings(run / "logs") if f["attempt"] == "filltmp"]
    assert len(fills) == 2  # a fresh /dev/shm for each game's process
    for f in fills:
        assert f["folder"] == "/dev/shm"
        assert f["written_mb"] <= SandboxPolicy().tmp_mb and f["errors"][-1] == "ENOSPC"


@needs_bwrap
@needs_root
def test_an_ordinary_user_bot_cannot_fork_a_thousand_processes(nobody):
    done, run = _match(nobody, "forkbomb", [_bot(nobody, "forkbomb"), "random"])
    _summary(done)
    bombs = [f for f in findings(run / "logs") if f["attempt"] == "forkbomb"]
    assert len(bombs) == 2
    for f in bombs:
        assert f["forks"] < SandboxPolicy().processes and f["error"] == "EAGAIN"


@needs_bwrap
@needs_root
def test_an_ordinary_user_bot_stops_at_its_address_space(nobody):
    done, run = _match(
        nobody, "memory", [_bot(nobody, "memory"), "random"], "--sandbox-memory", "300"
    )
    _summary(done)
    assert "address space 300 MiB per process" in _limits(done)
    tries = [f for f in findings(run / "logs") if f["attempt"] == "memory"]
    assert len(tries) == 2 and all(not f["ok"] and f["mb"] < 300 for f in tries)


@needs_bwrap
@needs_root
def test_an_ordinary_user_entry_with_a_link_to_the_journal_is_refused(nobody):
    entry = nobody / "linked"
    entry.mkdir()
    shutil.copy(HOSTILE, entry / "bot.py")
    journal = nobody / "link" / "m.jsonl"
    (entry / "journal").symlink_to(journal)
    _open_up(entry)
    bot = f"cmd:{nobody}/venv/bin/python {entry}/bot.py proc "
    bot += f"{(entry / 'journal').as_posix().encode().hex()} {entry}"
    done, _ = _match(nobody, "link", [bot, "random"])
    assert done.returncode == 2, done.stderr
    assert f"holds the link {entry}/journal to {journal}, outside it" in done.stderr
    assert not journal.exists()  # refused before the match: nothing played


# -- 2. what a bot sees of the bones package, per install mode ------------------------------

#: Run inside the sandbox by the bot's Python: what it sees of the checkout ARGV[1]
#: (hex-encoded: a path its command names would be bound; every path under it, as
#: JSON), and where it imports bones from.
PROBE = """
import json, os, sys
import bones, bones.core.state
seen = []
for folder, dirs, files in os.walk(bytes.fromhex(sys.argv[1]).decode()):
    seen += [os.path.join(folder, n) for n in dirs + files]
print(json.dumps({"bones": os.path.dirname(bones.__file__), "seen": sorted(seen)}))
"""

#: Run by each install's own Python (the runner): the probe ARGV[1] in the sandbox of
#: ``wrap``, from the current folder.
RUNNER = """
import subprocess, sys
from bones.protocol.sandbox import Launch, SandboxPolicy, wrap
probe, checkout = sys.argv[1:]
argv = [sys.executable, probe, checkout.encode().hex()]
job = Launch(wrap(argv, SandboxPolicy()))
try:
    done = subprocess.run(job.argv, capture_output=True, text=True, timeout=60, pass_fds=job.fds)
finally:
    job.close()
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
sys.exit(done.returncode)
"""


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> Path:
    """A copy of this checkout (its tracked files, a ``.git``, and the translated and
    compiled core with their times, so that nothing is compiled again) with a wheel
    built from it in ``wheel/``."""
    if not (CHECKOUT / "setup.py").exists() or shutil.which("git") is None:
        pytest.skip("needs the checkout of bones (setup.py) and git")
    root = tmp_path_factory.mktemp("builds")
    checkout = root / "checkout"
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=CHECKOUT, capture_output=True, check=True, timeout=60
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (CHECKOUT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(CHECKOUT / name, checkout / name)
    for pattern in ("*.c", "*.so"):  # translated, and compiled in place (pip install -e)
        for built in (CHECKOUT / "src" / "core").glob(pattern):
            shutil.copy2(built, checkout / "src" / "core" / built.name)
    for pattern in ("lib.*", "temp.*"):  # compiled by a wheel's build
        for folder in (CHECKOUT / "build").glob(pattern):
            shutil.copytree(folder, checkout / "build" / folder.name, symlinks=True)
    (checkout / ".git").mkdir()
    (checkout / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    _open_up(root)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps"]
        + ["-w", str(root / "wheel"), str(checkout)],
        check=True,
        timeout=900,
    )
    return root


def _install(builds: Path, name: str, mode: str) -> Path:
    """A venv ``name`` of this Python with bones installed as ``mode`` (``wheel``,
    ``editable``, ``strict``) and copies of what it needs; its python."""
    exe, site = _venv(sys.executable, builds / name)
    for module in RUNTIME:
        _copy_module(module, site)
    checkout = builds / "checkout"
    if mode == "wheel":
        wheel = str(next((builds / "wheel").glob("bones-*.whl")))
    else:  # setuptools' own editable wheel (PEP 660), built by this Python's setuptools
        settings = {"editable_mode": "strict"} if mode == "strict" else None
        out = builds / f"wheel-{name}"
        out.mkdir()
        code = (
            "import sys; from setuptools import build_meta as b; "
            f"print(b.build_editable({str(out)!r}, {settings!r}))"
        )
        made = subprocess.run(
            [sys.executable, "-c", code],
            cwd=checkout,
            capture_output=True,
            text=True,
            check=True,
            timeout=900,
        ).stdout.split()[-1]
        wheel = str(out / made)
    pip = [sys.executable, "-m", "pip", "--python", str(exe), "install", "-q", "--no-deps"]
    subprocess.run([*pip, wheel], check=True, timeout=300)
    _open_up(builds / name)
    return exe


def _seen(exe: Path, checkout: Path, cwd: Path) -> dict:
    """What a bot that ``exe`` (the runner) sandboxes from the working folder ``cwd``
    sees of ``checkout``, and where it imports bones from (:data:`PROBE`)."""
    probe = checkout.parent / "probe.py"  # the entry: outside the checkout
    probe.write_text(PROBE)
    probe.chmod(0o644)
    done = subprocess.run(
        [str(exe), "-c", RUNNER, str(probe), str(checkout)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _check(report: dict, mode: str, venv: Path, checkout: Path) -> None:
    """Only the package folder of ``checkout`` is there (and a strict install's link
    tree, and the folders on their way): no .git, tests, docs, setup.py, build files."""
    seen = [Path(p) for p in report["seen"]]
    if mode == "wheel":
        assert Path(report["bones"]).is_relative_to(venv)
        assert seen == []  # the checkout is not there at all
        return
    package = checkout / "src"
    links = next(checkout.glob("build/__editable__.*"), None) if mode == "strict" else None
    where = [package] + ([links] if links else [])
    assert report["bones"] == str(links / "bones" if links else package)
    assert any(p.is_relative_to(package) for p in seen)
    outside = [
        p for p in seen if not any(p.is_relative_to(w) or w.is_relative_to(p) for w in where)
    ]
    assert outside == []
    for name in (".git", "tests", "docs", "setup.py", "pyproject.toml"):
        assert checkout / name not in seen


@pytest.mark.slow
@needs_bwrap
@pytest.mark.parametrize("mode", ["wheel", "editable", "strict"])
def test_a_bot_sees_the_package_folder_alone(builds, mode):
    venv = builds / f"venv-{mode}"
    exe = _install(builds, venv.name, mode)
    checkout = builds / "checkout"
    elsewhere = builds / f"run-{mode}"
    elsewhere.mkdir()
    elsewhere.chmod(0o755)
    # run from the checkout (its working folder there, empty) and from another folder
    for cwd in (checkout, elsewhere):
        _check(_seen(exe, checkout, cwd), mode, venv, checkout)
