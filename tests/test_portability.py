"""The portable primitives of the compiled core (src/core/_portable.h): each branch a
compiler can take gives the exact answers.  The header shipped with the installed package
is compiled into a small C program twice, with this compiler's own branch and with the
plain-C fallback (-DBONES_PORTABLE_FALLBACK, the branch of a compiler with neither GCC's
builtins nor MSVC's intrinsics), and both are checked against Python's integers on many
random inputs."""

import os
import random
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

import bones.core

HEADER = Path(bones.core.__file__).parent / "_portable.h"
M64 = (1 << 64) - 1
M128 = (1 << 128) - 1

PROGRAM = r"""
#if defined(__linux__)
#define _POSIX_C_SOURCE 200809L  /* clock_gettime under -std=c99 too */
#endif
#include <inttypes.h>
#include <stdio.h>
#include "_portable.h"

/* One line of input per check: "b X" bit counts of X, "a ALO AHI BLO BHI" sums,
   differences and order of A and B, "t" the clocks. */
int main(void) {
    char op;
    uint64_t x, y, z, w;
    bones_u128 a, b, s;
    volatile double sink = 0;
    int i;
    printf("%s\n", BONES_BITS);
    while (scanf(" %c", &op) == 1) {
        if (op == 'b' && scanf("%" SCNx64, &x) == 1) {
            printf("%d %d %d %d\n", bones_popcount32((uint32_t)x), bones_popcount64(x),
                   (uint32_t)x ? bones_ctz32((uint32_t)x) : -1, x ? bones_ctz64(x) : -1);
        } else if (op == 'a' && scanf("%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64,
                                      &x, &y, &z, &w) == 4) {
            a.lo = x; a.hi = y; b.lo = z; b.hi = w;
            s = bones_u128_add(a, b);
            printf("%" PRIx64 " %" PRIx64 " %d %d %d", s.lo, s.hi, bones_u128_lt(a, b),
                   bones_u128_is_max(s), bones_u128_is_zero(a));
            if (!bones_u128_lt(a, b)) {
                s = bones_u128_sub(a, b);
                printf(" %" PRIx64 " %" PRIx64, s.lo, s.hi);
            }
            s = bones_u128_of(x);
            printf(" %" PRIx64 " %" PRIx64 "\n", s.lo, s.hi);
        } else if (op == 't') {
            double t0 = bones_thread_ms();
            for (i = 0; i < 20000000; i++) sink += i;
            printf("%.9f %.6f %.6f\n", bones_monotonic(), t0, bones_thread_ms());
        } else {
            return 2;
        }
    }
    return 0;
}
"""


def compiler() -> list[str] | None:
    """The C compiler Python's own extensions are built with, else cc, if it runs."""
    for cmd in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc", "clang"):
        if cmd and shutil.which(shlex.split(cmd)[0]):
            return shlex.split(cmd)
    return None


@pytest.fixture(scope="module", params=["native", "fallback"])
def program(request, tmp_path_factory):
    cc = compiler()
    if cc is None:
        pytest.skip("no C compiler found ($CC, Python's CC, cc, gcc or clang) to build the check")
    if not HEADER.exists():
        pytest.fail(f"{HEADER} is not installed with the package")
    folder = tmp_path_factory.mktemp(request.param)
    (folder / "empty.c").write_text("int main(void) { return 0; }\n")
    empty = subprocess.run([*cc, "empty.c", "-o", "empty"], cwd=folder, capture_output=True)
    if empty.returncode != 0:  # CC=false, as in CI's venv where no compiler may be found
        pytest.skip(f"the C compiler {shlex.join(cc)} cannot build an empty program")
    (folder / "check.c").write_text(PROGRAM)
    exe = folder / ("check.exe" if sys.platform == "win32" else "check")
    flags = ["-DBONES_PORTABLE_FALLBACK"] if request.param == "fallback" else []
    subprocess.run(
        [*cc, "-O2", "-Wall", "-Werror", *flags, f"-I{HEADER.parent}", "check.c", "-o", exe.name],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return request.param, exe


def run(exe: Path, lines: list[str]) -> list[str]:
    out = subprocess.run(
        [str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def words(rng: random.Random, n: int) -> list[int]:
    """Edge cases, then random words of every density (few bits, many bits, any)."""
    out = [0, 1, M64, 1 << 63, 1 << 31, 1 << 32, 0xFFFFFFFF, 0xFFFFFFFF00000000]
    out += [1 << i for i in range(64)]
    while len(out) < n:
        x = rng.getrandbits(64)
        out.append(
            [x, x & rng.getrandbits(64) & rng.getrandbits(64), x | rng.getrandbits(64)][
                len(out) % 3
            ]
        )
    return out


def ctz(x: int) -> int:
    return (x & -x).bit_length() - 1 if x else -1


def test_which_branch(program):
    kind, exe = program
    branch = run(exe, [])[0]
    assert branch == ("c" if kind == "fallback" else "builtin")


def test_bit_counts_are_exact(program):
    _, exe = program
    xs = words(random.Random(1), 20000)
    got = run(exe, [f"b {x:x}" for x in xs])[1:]
    assert len(got) == len(xs)
    for x, line in zip(xs, got, strict=True):
        lo = x & 0xFFFFFFFF
        want = [bin(lo).count("1"), bin(x).count("1"), ctz(lo), ctz(x)]
        assert [int(v) for v in line.split()] == want, hex(x)


def pairs(rng: random.Random, n: int) -> list[tuple[int, int]]:
    """Pairs of 128-bit numbers: near the top (sums that overflow), the overflow mark,
    equal halves (borrows and carries between the words), and random ones."""
    edge = [0, 1, M64, M64 + 1, M128, M128 - 1, 1 << 127, (1 << 127) - 1, 28 * 10**28]
    out = [(a, b) for a in edge for b in edge]
    while len(out) < n:
        shape = len(out) % 4
        a = rng.getrandbits(128)
        if shape == 0:
            b = rng.getrandbits(128)
        elif shape == 1:
            b = rng.getrandbits(rng.randrange(1, 129))
        elif shape == 2:
            b = (a & ~M64) | rng.getrandbits(64)  # same high word
        else:
            b = M128 - a + rng.randrange(-2, 3)  # sums at the edge of 2**128
            b &= M128
        out.append((a, b))
    return out


def test_u128_sums_are_exact_or_saturate(program):
    _, exe = program
    ps = pairs(random.Random(2), 20000)
    lines = [f"a {a & M64:x} {a >> 64:x} {b & M64:x} {b >> 64:x}" for a, b in ps]
    got = run(exe, lines)[1:]
    assert len(got) == len(ps)
    for (a, b), line in zip(ps, got, strict=True):
        v = [int(w, 16) for w in line.split()]
        total = a + b
        want_sum = M128 if total > M128 or M128 in (a, b) else total
        assert v[0] | v[1] << 64 == want_sum, (hex(a), hex(b))
        assert v[2:5] == [int(a < b), int(want_sum == M128), int(a == 0)]
        if a >= b:
            assert v[5] | v[6] << 64 == a - b, (hex(a), hex(b))
        assert v[-2:] == [a & M64, 0]


def test_clocks(program):
    """bones_monotonic reads time.monotonic()'s clock (the match runner's watchdog in the
    parent compares the two); bones_thread_ms counts this thread's CPU time."""
    _, exe = program
    t0 = time.monotonic()
    line = run(exe, ["t"])[1]
    t1 = time.monotonic()
    now, cpu0, cpu1 = (float(v) for v in line.split())
    assert t0 <= now <= t1
    assert 0 <= cpu0 < cpu1


# --- what other compilers see -------------------------------------------------------------

WIN32_STUB = """/* the Win32 declarations _portable.h uses, as the Windows SDK spells them */
typedef unsigned long DWORD;
typedef int BOOL;
typedef void *HANDLE;
typedef union { struct { DWORD LowPart; long HighPart; }; long long QuadPart; } LARGE_INTEGER;
typedef union { struct { DWORD LowPart; DWORD HighPart; }; unsigned long long QuadPart; }
    ULARGE_INTEGER;
typedef struct { DWORD dwLowDateTime; DWORD dwHighDateTime; } FILETIME;
__declspec(dllimport) BOOL __stdcall QueryPerformanceCounter(LARGE_INTEGER *);
__declspec(dllimport) BOOL __stdcall QueryPerformanceFrequency(LARGE_INTEGER *);
__declspec(dllimport) unsigned long long __stdcall GetTickCount64(void);
__declspec(dllimport) HANDLE __stdcall GetCurrentThread(void);
__declspec(dllimport) BOOL __stdcall GetThreadTimes(HANDLE, FILETIME *, FILETIME *,
                                                   FILETIME *, FILETIME *);
"""

USES = """#include "_portable.h"
const char *branch = BONES_BITS;
double use(uint32_t a, uint64_t b) {
    bones_u128 x = bones_u128_add(bones_u128_of(b), bones_u128_of(a));
    return bones_popcount32(a) + bones_popcount64(b) + bones_ctz32(a) + bones_ctz64(b)
        + (double)bones_u128_sub(x, bones_u128_of(a)).lo + bones_u128_lt(x, x)
        + bones_monotonic() + bones_thread_ms();
}
"""


@pytest.mark.parametrize("target", ["x86_64", "aarch64", "i686"])
def test_msvc_branch_compiles(tmp_path, target):
    """The MSVC branch (intrinsics, Win32 clocks) as MSVC would see it: clang in MSVC
    mode with __clang__ removed, so the header takes the MSVC branch.  The Windows SDK is
    not here: a stub declares the few Win32 functions the header calls."""
    clang = shutil.which("clang")
    if clang is None:
        pytest.skip("clang not found (Debian: apt-get install clang): the MSVC branch is unchecked")
    (tmp_path / "windows.h").write_text(WIN32_STUB)
    (tmp_path / "use.c").write_text(USES)
    flags = ["-ffreestanding", "-fms-extensions", "-fms-compatibility", "-U__clang__"]
    cmd = [clang, f"--target={target}-pc-windows-msvc", *flags, "-Wall", "-Wextra", "-Werror"]
    include = ["-I", str(tmp_path), "-I", str(HEADER.parent)]
    pre = subprocess.run(
        [*cmd, *include, "-E", "use.c"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert pre.returncode == 0, pre.stderr
    assert 'branch = "msvc"' in pre.stdout
    out = subprocess.run(
        [*cmd, *include, "-O2", "-c", "use.c", "-o", "use.obj"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr


def test_windows_clocks_compile_with_mingw(tmp_path):
    """The Win32 clocks against the real Windows headers (MinGW-w64's), linked."""
    gcc = shutil.which("x86_64-w64-mingw32-gcc")
    if gcc is None:
        pytest.skip(
            "x86_64-w64-mingw32-gcc not found (Debian: apt-get install "
            "gcc-mingw-w64-x86-64): the Windows clocks are unchecked"
        )
    (tmp_path / "check.c").write_text(PROGRAM)
    for flags in ([], ["-DBONES_PORTABLE_FALLBACK"]):
        out = subprocess.run(
            [
                gcc,
                "-O2",
                "-Wall",
                "-Werror",
                *flags,
                f"-I{HEADER.parent}",
                "check.c",
                "-o",
                "check.exe",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr


def test_core_sources_use_no_compiler_builtins():
    """Only _portable.h may name a compiler's builtins, 128-bit integers or POSIX clocks:
    every other core source takes them from bitops.pxd, so the core builds with MSVC."""
    core = Path(__file__).resolve().parent.parent / "src" / "core"
    if not core.is_dir():
        pytest.skip("the source tree is not beside the tests")
    banned = ("__builtin_", "__int128", "__attribute__", "posix.", "clock_gettime", "<sys/")
    found = [
        f"{path.name}: {word}"
        for path in sorted([*core.glob("*.pyx"), *core.glob("*.pxd")])
        for word in banned
        if word in path.read_text()
    ]
    assert found == []


def test_the_referee_reads_time_monotonic_clock():
    """The compiled referee stamps a bot's watch slot with bones_monotonic, which the match
    runner's watchdog compares with its own time.monotonic()."""
    from bones.core.referee import now

    t0 = time.monotonic()
    stamp = now()
    t1 = time.monotonic()
    assert t0 <= stamp <= t1


#: The standard modules a Windows Python does not have.
POSIX_ONLY = ("fcntl", "termios", "resource", "pwd", "grp", "pty", "tty", "posix")

_WITHOUT_POSIX = """
import importlib.abc, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (as on Windows)", name=name)
for name in {blocked!r}:
    if name != "posix":  # os itself is built on it here; bones must not import it
        sys.modules.pop(name, None)
sys.meta_path.insert(0, Absent())
import pkgutil, bones
for module in pkgutil.walk_packages(bones.__path__, "bones."):
    if module.name.endswith("__main__"):  # that one runs the CLI
        continue
    try:
        __import__(module.name)
    except ModuleNotFoundError as exc:  # an optional tool (pyspiel, dask...) is no fault
        if exc.name in {blocked!r}:
            raise
from bones.cli import main
sys.exit(main(["match", "greedy", "random", "--games", "4", "--jobs", "1",
               "--seed", "1", "--progress", "never", "--journal", {journal!r}]))
"""


def test_bones_plays_a_match_without_the_posix_only_modules(tmp_path):
    """What a Windows wheel's test runs (pyproject's cibuildwheel test-command): bones
    imports every module of bones and plays an in-process match where fcntl, termios,
    resource, pwd, grp, pty and tty cannot be imported: external bots and the sandbox
    need POSIX when they run, but no module may need it to be imported."""
    code = _WITHOUT_POSIX.format(blocked=POSIX_ONLY, journal=str(tmp_path / "m.jsonl"))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Games: 4 of 4" in out.stdout
