"""The smaller findings of the third contest trial (issue 43, item 5): links to other
journals refused (and never a hint to make a journal readable), a clear error for a
link to nothing, a bot seed per encounter, and ``ExternalBot.close()`` ending a bot
whose cgroup was left frozen."""

from __future__ import annotations

import gzip
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from test_sandbox import _hierarchy, _no_sandbox, needs_bwrap

from bones.match.schedule import MatchConfig, bot_seed, plan
from bones.protocol.sandbox import SandboxError, wrap

RANDOM_BOT = Path(__file__).parent.parent / "examples" / "python" / "random_bot.py"
HEADER = b'{"type":"match","version":1,"bones":"0.1.0","config":{"secret":"5e5e"}}\n'

needs_freezer = pytest.mark.skipif(
    bool(_no_sandbox()) or _hierarchy() is None or _hierarchy().freezer is None,
    reason=_no_sandbox() or "no writable cgroup freezer",
)


def _entry(tmp_path: Path) -> Path:
    folder = tmp_path / "entry"
    folder.mkdir()
    bot = folder / "bot.py"
    shutil.copy(RANDOM_BOT, bot)
    for path in (folder, bot):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return bot


def _journal(path: Path, zipped: bool = False) -> Path:
    """Another match's journal, its owner's only (as bones writes it)."""
    path.write_bytes(gzip.compress(HEADER) if zipped else HEADER)
    path.chmod(0o600)
    return path


@needs_bwrap
@pytest.mark.parametrize("zipped", [False, True])
def test_a_link_to_another_journal_is_refused_without_a_hint_to_make_it_readable(tmp_path, zipped):
    """Named directly, through a link, a hard link in the entry's folder, or gzipped:
    refused as a journal before anything is bound, and the message (as root too, where
    a 0600 file used to be reported as one to ``chmod o+rX``) says never to show it."""
    bot = _entry(tmp_path)
    other = _journal(tmp_path / "other.jsonl", zipped)
    (bot.parent / "data").symlink_to(other)
    for named in (other, bot.parent / "data"):
        with pytest.raises(SandboxError, match="a bones journal") as caught:
            wrap([sys.executable, str(bot), str(named)], cwd="/")
        assert "readable" not in str(caught.value) and "chmod" not in str(caught.value)
    (bot.parent / "data").unlink()
    os.link(other, bot.parent / "data")  # a hard link: a file of the folder like any
    with pytest.raises(SandboxError, match=r"holds .*data, a bones journal"):
        wrap([sys.executable, str(bot), str(bot.parent)], cwd="/")
    (bot.parent / "data").unlink()
    (bot.parent / "data").write_bytes(b'{"type": "game"}\n')  # not a header: allowed
    wrap([sys.executable, str(bot), str(bot.parent)], cwd="/")


@needs_bwrap
def test_a_journal_is_refused_before_the_match_starts(tmp_path):
    from bones.match.runner import run_match

    bot = _entry(tmp_path)
    other = _journal(tmp_path / "other.jsonl")
    (bot.parent / "notes").symlink_to(other)
    spec = f"cmd:{sys.executable} {bot} {bot.parent / 'notes'}"
    journal = tmp_path / "run" / "m.jsonl"
    journal.parent.mkdir()
    with pytest.raises(SandboxError, match="no bot may see a journal"):
        run_match(MatchConfig(bots=(spec, "random"), games=2, sandbox=True), journal, jobs=1)
    assert not journal.exists()


@needs_bwrap
def test_a_link_to_nothing_is_a_clear_error(tmp_path, capsys):
    """A link whose target does not exist (yet) was a traceback of ``bones match``."""
    from bones.cli import main

    bot = _entry(tmp_path)
    (bot.parent / "later").symlink_to(tmp_path / "not-yet")
    with pytest.raises(SandboxError, match=r"'.*later', a link to .*not-yet, which does not"):
        wrap([sys.executable, str(bot), str(bot.parent / "later")], cwd="/")
    run = tmp_path / "run"
    run.mkdir()
    old = os.getcwd()
    os.chdir(run)
    try:
        code = main(["match", "--sandbox", "--games", "2", "--progress", "never",
                     f"cmd:{sys.executable} {bot} {bot.parent / 'later'}", "random"])  # fmt: skip
    finally:
        os.chdir(old)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "which does not exist" in err.splitlines()[-1]


def test_a_bot_gets_another_seed_in_each_encounter_of_a_deal():
    """In a round robin a bot in the same seat of the same deal met two opponents with
    one seed (400 distinct seeds over 800 games, issue 43): the encounter is mixed in,
    with the secret and without; encounter 0 keeps the seeds of before."""
    for secret in ("5e" * 32, None):
        config = MatchConfig(
            bots=("random", "greedy", "heaviest"), format="round-robin", games=40, seed=3,
            secret=secret,
        )  # fmt: skip
        p = plan(config)
        seeds = [s for gid in range(p.schedule.total) for s in p.bot_seeds(gid)]
        by_deal: dict[tuple[int, int], set[int]] = {}
        for gid in range(p.schedule.total):
            deal, encounter, _, _ = p.schedule.locate(gid)
            for seat, s in enumerate(p.bot_seeds(gid)):
                by_deal.setdefault((deal, seat), set()).add(s)
                if encounter == 0:
                    assert s == bot_seed(p.game_seed(gid), seat, secret)
        # one seed per (deal, seat, encounter): 3 encounters of 2 seatings each
        assert all(len(s) == 3 for s in by_deal.values())
        assert len(set(seeds)) == len(seeds) // 2


@needs_freezer
@pytest.mark.parametrize("how", ["held", "frozen"])
def test_close_ends_a_bot_left_frozen_within_its_timeout(tmp_path, how):
    """A bot whose cgroup stays frozen (started ahead and never released, or frozen
    outside the bookkeeping of :meth:`Launch.hold`) cannot die of SIGKILL until
    thawed: ``close()`` waited for it for ever.  Now it thaws and kills it, in about
    its grace and one more half second."""
    from bones.protocol.client import ExternalBot

    bot = ExternalBot(wrap([sys.executable, str(RANDOM_BOT)], cwd=str(tmp_path)), start=False)
    if how == "held":
        bot.spawn(hold=0.2)
        deadline = time.monotonic() + 10
        while bot._launch._frozen_at is None and time.monotonic() < deadline:
            time.sleep(0.02)
        bot._launch._held = False  # its release forgotten
    else:
        bot.start()
        bot._launch.cgroup._set_frozen(True)
    group = bot._launch.cgroup
    folders = list(group.folders)
    pid = bot.pid
    done = threading.Event()
    started = time.monotonic()
    closer = threading.Thread(target=lambda: (bot.close(grace=0.5), done.set()), daemon=True)
    closer.start()
    assert done.wait(10.0), "close() waited on the frozen bot"
    assert time.monotonic() - started < 4.0
    assert not os.path.exists(f"/proc/{pid}") or "Z" in Path(f"/proc/{pid}/stat").read_text()
    assert not any(os.path.exists(f) for f in folders)
