"""The page cache of the shared read-only files made uniform before a --sandbox match
(issue 43, ``bones.protocol.residency``): every page brought in, so a bot's first read
of a rarely read page says nothing of what an earlier game or its partner read."""

from __future__ import annotations

import os
import sys

import pytest
from test_sandbox import needs_bwrap

from bones.protocol import residency, sandbox
from bones.protocol.sandbox import SandboxPolicy, shared_paths, warm_shared, wrap


def _cold(path) -> bool:
    """Drop the clean pages of ``path``; whether some page is then out of memory."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return not residency._resident(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def _resident(path) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        return residency._resident(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def test_warm_brings_every_page_in_and_reads_only_what_was_out(tmp_path):
    folder = tmp_path / "shared"
    (folder / "lib").mkdir(parents=True)
    files = [folder / "lib" / f"f{i}.bin" for i in range(3)]
    for f in files:
        f.write_bytes(os.urandom(64 * 4096))
    (folder / "link").symlink_to(files[0])  # a link is not read twice
    if not all(_cold(f) for f in files):
        pytest.skip("this file system keeps its pages (a memory file system?)")
    done = residency.warm([str(folder)])
    assert all(_resident(f) for f in files)
    assert done.files == 3 and done.size == 3 * 64 * 4096 and done.read == done.size
    again = residency.warm([str(folder)])
    assert again.read == 0 and again.files == 3  # resident: checked, not read
    assert "3 files" in again.describe()
    _cold(files[1])
    assert residency.warm([str(folder)]).read == 64 * 4096
    big = residency.warm([str(folder)], largest=4096)
    assert big.skipped == 3 and big.read == 0


@needs_bwrap
def test_warm_shared_warms_the_shared_paths_of_the_commands_once(tmp_path, monkeypatch):
    bot = tmp_path / "bot.py"
    bot.write_text("print()\n")
    command = wrap([sys.executable, str(bot)], SandboxPolicy(cgroup=False), cwd="/")
    paths = shared_paths(command)
    assert "/usr" in paths and str(bot) not in paths
    assert not any(p.startswith("bones-copy:") for p in paths)
    seen = []
    monkeypatch.setattr(residency, "warm", lambda roots: seen.append(roots) or "warmed")
    monkeypatch.setattr(sandbox, "_WARMED", {})
    monkeypatch.delenv("BONES_SANDBOX_WARM", raising=False)
    assert warm_shared([command], SandboxPolicy()) is None and not seen  # off by default
    assert "page cache warmed" not in sandbox.limits(SandboxPolicy())
    assert warm_shared([command, None], SandboxPolicy(warm=True)) == "warmed"
    assert seen == [tuple(sorted(set(paths)))]
    assert warm_shared([command], SandboxPolicy(warm=True)) is None  # within WARM_AGAIN
    monkeypatch.setattr(sandbox, "_WARMED", {})
    monkeypatch.setenv("BONES_SANDBOX_WARM", "1")
    assert warm_shared([command], SandboxPolicy()) == "warmed"
    assert "page cache warmed" in sandbox.limits(SandboxPolicy())
