"""Mutation testing with hand-made mutants: how many realistic one-line mistakes does the
fast test suite catch?

    python mutation/run.py                 # every mutant, one at a time
    python mutation/run.py --list          # the mutants, and whether each still applies
    python mutation/run.py --only stats    # mutants whose id, file or description match
    python mutation/run.py --jobs 2        # two working copies side by side

The mutants are in ``mutation/mutants.py``: (id, file, original snippet, mutated snippet,
description).  The script copies the repository (without ``.git``, ``.venv`` and
``build``) to a temporary folder, builds the Cython core there once and checks that the
unmutated copy passes the suite.  Then, for each mutant, it replaces the snippet (which
must occur exactly once), rebuilds the core when a ``.pyx``/``.pxd`` changed, runs
``python -m pytest -x -q -m "not slow" -p no:cacheprovider`` with ``bones`` imported
from the copy (``PYTHONPATH=<copy>/build/cython-include``, where the build links
``bones`` to ``<copy>/src``; checked before any result is trusted) and puts the file and
the built modules back.  A mutant is *killed* when the suite fails (or crashes, or times
out), *survived* when it passes.  A mutant whose snippet no longer occurs exactly once is
reported *stale*: update its snippet in mutants.py (the source moved on).

When the unmutated copy already fails some tests (the tree is mid-edit), those tests are
listed and left out of every run (``--deselect``/``--ignore``); ``--strict-baseline``
stops instead.

Score = killed / (killed + survived).  Exit status 1 when a mutant is stale, when the
unmutated copy fails, or when the score is below ``--fail-under``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from mutants import MUTANTS, Mutant  # noqa: E402

IGNORE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "__pycache__",
    "*.egg-info",
    ".pytest_cache",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
    ".benchmarks",
)
PYTEST = [
    sys.executable,
    "-m",
    "pytest",
    "-x",
    "-q",
    "-m",
    "not slow",
    "-p",
    "no:cacheprovider",
]
CORE = "src/core"


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed | survived | stale | build-error
    seconds: float
    detail: str = ""


def _log(text: str) -> None:
    print(text, flush=True)


def _run(cmd: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None):
    """Run cmd in its own process group; (returncode or None on timeout, output)."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
        return None, out


def _reap(folder: Path) -> None:
    """End the processes still running in ``folder`` (a test may leave a subprocess
    behind in a session of its own, where the timeout's killpg does not reach)."""
    root = str(folder.resolve())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            try:
                os.kill(int(proc.name), 9)
            except OSError:
                pass


class Copy:
    """One working copy of the repository with its own built core."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.include = path / "build" / "cython-include"
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = str(self.include)
        self.env.pop("PYTHONSTARTUP", None)

    @classmethod
    def create(cls, source: Path, dest: Path) -> Copy:
        shutil.copytree(source, dest, ignore=IGNORE, symlinks=True)  # copy2 keeps mtimes
        copy = cls(dest)
        copy.include.mkdir(parents=True, exist_ok=True)
        link = copy.include / "bones"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(dest / "src")
        return copy

    def build(self, timeout: float = 1800) -> tuple[bool, str]:
        rc, out = _run(
            [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
            self.path,
            timeout,
            self.env,
        )
        return rc == 0, out

    def check_import(self) -> None:
        code = "import bones, bones.core.state as s; print(bones.__file__); print(s.__file__)"
        rc, out = _run([sys.executable, "-c", code], self.path, 120, self.env)
        files = out.split()
        if (
            rc != 0
            or len(files) != 2
            or not all(Path(f).resolve().is_relative_to(self.path.resolve()) for f in files)
        ):
            raise SystemExit(f"bones is not imported from the copy {self.path}:\n{out}")

    def test(self, timeout: float, extra: list[str] | None = None) -> tuple[int | None, str]:
        try:
            return _run(PYTEST + (extra or []), self.path, timeout, self.env)
        finally:
            _reap(self.path)

    def core_artifacts(self) -> list[Path]:
        """The generated C files and built modules, in the source tree and in build/lib
        (setuptools' ``--inplace`` builds there and copies every module it holds back to
        the source tree, so a mutated module left there would come back)."""
        core = self.path / CORE
        built = [*core.glob("*.c"), *core.glob("*.so")]
        built += self.path.glob("build/lib*/bones/core/*.so")
        return sorted(built)


def stale_reason(m: Mutant, root: Path) -> str | None:
    path = root / m.file
    if not path.exists():
        return f"{m.file} does not exist"
    n = path.read_text().count(m.original)
    if n == 1:
        return None
    return f"original snippet occurs {n} times in {m.file} (must be exactly once)"


def run_mutant(m: Mutant, copy: Copy, timeout: float, extra: list[str]) -> Outcome:
    start = time.monotonic()
    reason = stale_reason(m, copy.path)
    if reason:
        return Outcome(m, "stale", 0.0, reason)
    path = copy.path / m.file
    text = path.read_text()
    st = path.stat()
    is_core = path.suffix in (".pyx", ".pxd")
    backup = None
    try:
        if is_core:
            backup = Path(tempfile.mkdtemp(prefix="bones-mut-bak-"))
            for f in copy.core_artifacts():
                dest = backup / f.relative_to(copy.path)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, dest)
        path.write_text(text.replace(m.original, m.mutated, 1))
        if is_core:
            ok, out = copy.build()
            if not ok:
                tail = "\n".join(out.strip().splitlines()[-5:])
                return Outcome(m, "build-error", time.monotonic() - start, tail)
        rc, out = copy.test(timeout, extra)
        elapsed = time.monotonic() - start
        if rc is None:
            return Outcome(m, "killed", elapsed, f"timeout after {timeout:.0f}s")
        if rc == 0:
            return Outcome(m, "survived", elapsed, _summary_line(out))
        return Outcome(m, "killed", elapsed, _first_failure(out, rc))
    finally:
        path.write_text(text)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        if backup is not None:
            for f in copy.core_artifacts():
                if not (backup / f.relative_to(copy.path)).exists():
                    f.unlink()
            for f in backup.rglob("*"):
                if f.is_file():
                    shutil.copy2(f, copy.path / f.relative_to(backup))
            shutil.rmtree(backup, ignore_errors=True)


def _summary_line(out: str) -> str:
    lines = [ln for ln in out.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _first_failure(out: str, rc: int) -> str:
    for line in out.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line
    if rc < 0:
        return f"crashed (signal {-rc})"
    return f"pytest exit {rc}: {_summary_line(out)}"


def _deselect(out: str) -> list[str]:
    """pytest options leaving out the tests that failed (``FAILED``/``ERROR`` lines of
    ``-rfE``): ``--deselect`` a failed test, ``--ignore`` a file that fails to import."""
    extra: list[str] = []
    for line in out.splitlines():
        if not line.startswith(("FAILED ", "ERROR ")):
            continue
        node = line.split()[1]
        if "::" in node:
            extra += ["--deselect", node]
        else:
            extra += ["--ignore", node]
    return extra


def select(pattern: str | None) -> list[Mutant]:
    if not pattern:
        return list(MUTANTS)
    rx = re.compile(pattern, re.IGNORECASE)
    return [m for m in MUTANTS if rx.search(m.id) or rx.search(m.file) or rx.search(m.description)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", metavar="PATTERN", help="regex on the mutant id, file or text")
    ap.add_argument("--jobs", type=int, default=1, help="working copies run side by side")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per test run")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--fail-under", type=float, default=0.0, help="minimum score in percent")
    ap.add_argument("--keep", action="store_true", help="keep the working copies")
    ap.add_argument(
        "--tests",
        nargs="+",
        metavar="PATH",
        help="run only these test files or node ids (to check what one file pins)",
    )
    ap.add_argument(
        "--strict-baseline",
        action="store_true",
        help="stop when the unmutated copy fails a test (default: leave those tests out)",
    )
    args = ap.parse_args(argv)

    ids = [m.id for m in MUTANTS]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"duplicate mutant ids: {sorted(dupes)}")
    mutants = select(args.only)
    if args.list:
        for m in mutants:
            reason = stale_reason(m, ROOT)
            mark = "STALE " if reason else ""
            _log(f"{m.id:28} {mark}{m.file}: {m.description}" + (f" ({reason})" if reason else ""))
        _log(f"{len(mutants)} mutants")
        return 0
    if not mutants:
        _log("no mutant matches")
        return 1

    work = Path(tempfile.mkdtemp(prefix="bones-mutation-"))
    jobs = max(1, min(args.jobs, len(mutants)))
    try:
        _log(f"copying {ROOT} to {work} ...")
        base = Copy.create(ROOT, work / "copy0")
        ok, out = base.build()
        if not ok:
            _log(out)
            raise SystemExit("the unmutated copy does not build")
        base.check_import()
        t0 = time.monotonic()
        tests = list(args.tests or [])
        rc, out = base.test(args.timeout, tests)
        skipped: list[str] = []
        if rc != 0 and not args.strict_baseline:
            # The tree may be mid-edit: set aside what fails without any mutant.
            cmd = [*(a for a in PYTEST if a != "-x"), "-rfE", *tests]
            rc, out = _run(cmd, base.path, args.timeout, base.env)
            _reap(base.path)
            skipped = _deselect(out)
            if skipped:
                _log("the unmutated copy fails these; they are left out of every run:")
                pairs = zip(skipped[::2], skipped[1::2], strict=True)
                _log("\n".join(f"  {a} {b}" for a, b in pairs))
                rc, out = base.test(args.timeout, tests + skipped)
        extra = tests + skipped
        if rc != 0:
            _log(out[-3000:])
            _log("the unmutated copy fails the suite: fix that first")
            return 1
        _log(f"baseline passes ({time.monotonic() - t0:.0f}s): {_summary_line(out)}")
        copies = [base]
        for k in range(1, jobs):
            c = Copy.create(base.path, work / f"copy{k}")
            c.check_import()
            copies.append(c)

        free = list(copies)
        lock = threading.Lock()
        results: list[Outcome] = []

        def task(m: Mutant) -> Outcome:
            with lock:
                copy = free.pop()
            try:
                o = run_mutant(m, copy, args.timeout, extra)
            finally:
                with lock:
                    free.append(copy)
            with lock:
                results.append(o)
                _log(
                    f"[{len(results):3}/{len(mutants)}] {o.status:11} {m.id:28} "
                    f"{o.seconds:5.0f}s  {o.detail}"
                )
            return o

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            list(pool.map(task, mutants))
    finally:
        if args.keep:
            _log(f"working copies kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    order = {m.id: i for i, m in enumerate(mutants)}
    results.sort(key=lambda o: order[o.mutant.id])
    counts = {s: sum(o.status == s for o in results) for s in ("killed", "survived", "stale")}
    counts["build-error"] = sum(o.status == "build-error" for o in results)
    decided = counts["killed"] + counts["survived"]
    score = 100.0 * counts["killed"] / decided if decided else 0.0
    _log("")
    for status in ("survived", "stale", "build-error"):
        for o in results:
            if o.status == status:
                _log(f"{status.upper():11} {o.mutant.id}: {o.mutant.description} ({o.detail})")
    _log(
        f"\n{counts['killed']} killed, {counts['survived']} survived, {counts['stale']} stale, "
        f"{counts['build-error']} build errors of {len(results)} mutants: "
        f"score {score:.1f}% ({time.strftime('%Y-%m-%d')})"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "date": time.strftime("%Y-%m-%d %H:%M"),
                    "score": score,
                    **counts,
                    "results": [
                        {
                            "id": o.mutant.id,
                            "file": o.mutant.file,
                            "status": o.status,
                            "seconds": round(o.seconds, 1),
                            "detail": o.detail,
                        }
                        for o in results
                    ],
                },
                indent=1,
            )
        )
    if counts["stale"] or score < args.fail_under:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
