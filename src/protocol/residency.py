"""The page cache of the files every sandboxed bot shares, made uniform before the games
(issue 43): :func:`warm` brings every page of them into memory, so that no bot's read
changes what another bot, in the same game or a later one, could see of their residency
(by the time a first read takes, its fault counts or its page tables).

The sandbox gives each bot a fresh copy of its own files for every game, but the system
(``/usr``), the Python installation and the bones package are bound read-only and
shared: without this, a bot could mark a rarely read page by reading it, and a later
bot could tell it was cached by the time its own first read takes (≈2 µs against
hundreds), a write-once memory across games of a whole hand.  Once every page is
resident, a read changes nothing: every probe reads "cached".  A bot cannot evict
them (the filter denies ``fadvise``, ``madvise(MADV_PAGEOUT)``, ``cachestat``...; its
memory cgroup reclaims only the pages charged to it, and these were charged to the
runner, which read them first), but the rest of the machine can: under memory pressure
the kernel drops the pages read once before those read again, so the pages an attacker
touched outlive the others, and the channel comes back (docs/contest.md measures it on
the project's machine: 48 of 64 bits a game still carried).  That is why
:class:`~bones.protocol.sandbox.SandboxPolicy` leaves it off unless asked.

The check is ``mincore`` on a read-only mapping of each file (no copy of what is
resident already); only files with a page out of memory are read.  Files larger than
``largest`` are left out (and counted), as are what the runner cannot read."""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Warmth", "warm"]

_PAGE = mmap.PAGESIZE
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Warmth:
    """What :func:`warm` did: the regular files and bytes looked at, the bytes it had to
    read (pages that were out of memory), the files it could not bring in (too large,
    unreadable), and the seconds it took."""

    files: int
    size: int
    read: int
    skipped: int
    seconds: float

    def describe(self) -> str:
        text = (
            f"shared files' page cache warmed ({self.files:,} files, {self.size >> 20:,} MiB, "
            f"{self.read >> 20:,} MiB read in {self.seconds:.1f} s)"
        )
        if self.skipped:
            text += f", {self.skipped:,} left out (too large or unreadable)"
        return text


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]  # fmt: skip
    libc.mmap.restype = ctypes.c_void_p
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    libc.mincore.restype = ctypes.c_int
    return libc


_LIBC = _libc()
_FAILED = ctypes.c_void_p(-1).value


def _resident(fd: int, size: int) -> bool:
    """Whether every page of the open file ``fd`` of ``size`` bytes is in memory
    (``mincore`` on a read-only mapping, which reads nothing; False when it cannot
    tell)."""
    if size == 0:
        return True
    if _LIBC is None:
        return False
    address = _LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if address is None or address == _FAILED:
        return False
    try:
        vector = (ctypes.c_ubyte * ((size + _PAGE - 1) // _PAGE))()
        if _LIBC.mincore(address, size, vector) != 0:
            return False
        return all(byte & 1 for byte in bytes(vector))
    finally:
        _LIBC.munmap(address, size)


def _files(roots: Iterable[str]) -> Iterable[str]:
    seen: set[str] = set()
    for root in roots:
        root = os.path.realpath(root)
        if root in seen:
            continue
        seen.add(root)
        if os.path.isfile(root):
            yield root
            continue
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                yield os.path.join(folder, name)


def warm(roots: Iterable[str], largest: int = 1 << 30) -> Warmth:
    """Bring every page of every regular file under ``roots`` (not following links out
    of them) into the page cache; files of more than ``largest`` bytes are left out."""
    started = time.monotonic()
    files = size = done = skipped = 0
    buffer = bytearray(_CHUNK)
    for path in _files(roots):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue  # a link (its target is under a root, or outside: not the bots'),
        try:  # or a file the runner cannot read (nor, then, a bot)
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                continue
            files += 1
            size += info.st_size
            if info.st_size > largest:
                skipped += 1
                continue
            if _resident(fd, info.st_size):
                continue
            while (got := os.readv(fd, [buffer])) > 0:
                done += got
        except OSError:
            skipped += 1
        finally:
            os.close(fd)
    return Warmth(files, size, done, skipped, time.monotonic() - started)
