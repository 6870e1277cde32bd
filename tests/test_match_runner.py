"""The match runner: seatings, duplicate deals, forfeits (crash, illegal, timeout, hang),
kill-and-resume, the process pool, bad input.

This module is also a bones plugin (``plugins=("test_match_runner",)``): it registers the
misbehaving bots below, in the test process and in every worker.
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import replace

import pytest

from bones.bot import Bot, BotSpec
from bones.match import MatchConfig, MatchError, format_table, read_journal, run_match
from bones.match.runner import plan, play_game, seatings
from bones.plugins import hookimpl
from bones.variant import Option

PLUGIN = ("test_match_runner",)


class CrashBot(Bot):
    """Plays the first legal move; raises on its ``after``-th choice."""

    name = "t-crash"

    def __init__(self, seed: int = 0, after: int = 3) -> None:
        super().__init__(seed, after=after)
        self.after = after
        self.calls = 0

    def choose(self, observation, legal_moves):
        self.calls += 1
        if self.calls >= self.after:
            raise RuntimeError("boom")
        return legal_moves[0]


class IllegalBot(Bot):
    """Answers a text instead of a Move."""

    name = "t-illegal"

    def choose(self, observation, legal_moves):
        return str(legal_moves[0])


class SlowBot(Bot):
    """Sleeps ``delay`` seconds before each move."""

    name = "t-slow"

    def __init__(self, seed: int = 0, delay: float = 0.5) -> None:
        super().__init__(seed, delay=delay)
        self.delay = delay

    def choose(self, observation, legal_moves):
        time.sleep(self.delay)
        return legal_moves[0]


class SpinBot(Bot):
    """Loops forever in Python: only an interrupt stops it."""

    name = "t-spin"

    def choose(self, observation, legal_moves):
        while True:
            pass


class StuckBot(Bot):
    """Blocks SIGALRM and sleeps: only the parent's watchdog can stop it."""

    name = "t-stuck"

    def choose(self, observation, legal_moves):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(3600)
        return legal_moves[0]


def _positive(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


_positive.expects = "a number >= 0"  # type: ignore[attr-defined]


@hookimpl
def register_bots(register):
    register(
        BotSpec("t-crash", CrashBot, "crashes", {"after": Option("after", 3, check=_positive)})
    )
    register(BotSpec("t-illegal", IllegalBot, "answers a string"))
    register(BotSpec("t-slow", SlowBot, "sleeps", {"delay": Option("delay", 0.5, check=_positive)}))
    register(BotSpec("t-spin", SpinBot, "loops forever"))
    register(BotSpec("t-stuck", StuckBot, "blocks SIGALRM and sleeps"))


SECRET = "5e" * 32  # a fixed secret: separate runs of a match play the same games


def _config(**kw):
    base = dict(
        bots=("greedy", "random"), variant="straight", players=2, games=8, seed=5, secret=SECRET
    )
    base.update(kw)
    return MatchConfig(**base)


# ---------------------------------------------------------------------------------------
# Seatings and the schedule


def test_seatings():
    assert seatings(2, 2) == [(0, 1), (1, 0)]  # the classic swapped pair
    assert len(seatings(2, 3)) == 6 and len(seatings(3, 3)) == 3
    assert seatings(2, 4) == [(0, 1, 0, 1), (1, 0, 1, 0)]  # copies sit opposite
    assert len(seatings(3, 4)) == 12 and len(seatings(4, 4)) == 4
    assert seatings(2, 8) == [(0, 1) * 4, (1, 0) * 4]
    for s in range(2, 9):
        for k in range(2, s + 1):
            seats = seatings(k, s)
            assert len(seats) <= k * s and len(set(seats)) == len(seats)
            for a in seats:
                assert set(a) == set(range(k))  # every bot plays
                if s == 4:  # a bot that holds two sides of four holds opposite ones
                    assert all(a[i] != a[(i + 1) % 4] for i in range(4)), a
            for side in range(s):  # every bot plays every side equally often
                counts = [sum(1 for a in seats if a[side] == b) for b in range(k)]
                assert len(set(counts)) == 1, (k, s, counts)
    with pytest.raises(ValueError):
        seatings(3, 2)


def test_games_rounded_up_to_one_design():
    """--games N plays N games, at most one design's size more (issue 30: 254 games for
    --games 16 at 8 seats)."""
    for players, bots, games in [(8, 2, 16), (8, 2, 40), (8, 4, 10), (5, 2, 12), (6, 3, 7)]:
        c = _config(bots=("random",) * bots, variant="chicken-foot", players=players)
        p = plan(replace(c, games=games))
        assert games <= p.schedule.total < games + p.schedule.group_size, (players, bots)


def test_schedule_duplicate_deals():
    p = plan(_config(games=7, variant="straight", players=4))
    assert p.sides == ((0, 2), (1, 3))
    assert p.schedule.total == 8  # rounded up to whole pairs
    t0, t1 = p.task(0), p.task(1)
    assert t0["seed"] == t1["seed"] and t0["group"] == t1["group"]
    assert t0["seats"] == ["greedy", "random", "greedy", "random"]
    assert t1["seats"] == ["random", "greedy", "random", "greedy"]
    assert t0["bot_seeds"] == t1["bot_seeds"]  # seat seeds depend on deal and seat only
    assert p.task(2)["seed"] != t0["seed"]
    p3 = plan(_config(games=6, players=3))
    groups = {p3.task(i)["group"] for i in range(6)}  # 2 bots, 3 sides: 6 seatings
    assert groups == {0} and len({tuple(p3.task(i)["seats"]) for i in range(6)}) == 6
    nodup = plan(_config(games=5, duplicate=False))
    assert nodup.schedule.total == 5
    assert len({nodup.task(i)["seed"] for i in range(5)}) == 5


def test_round_robin_and_gauntlet_schedules():
    rr = plan(_config(bots=("greedy", "random", "heaviest"), format="round-robin", games=4))
    assert rr.schedule.encounters == ((0, 1), (0, 2), (1, 2))
    assert rr.schedule.total == 12
    g = plan(_config(bots=("greedy", "random", "heaviest"), format="gauntlet", games=4))
    assert g.schedule.encounters == ((0, 1), (0, 2))
    three = plan(_config(bots=("greedy", "random", "heaviest"), players=3, games=6))
    assert three.schedule.group_size == 3  # the three rotations


# ---------------------------------------------------------------------------------------
# Results


def test_identical_bots_score_exactly_half(tmp_path):
    for variant, players in [("straight", 2), ("kozel", 3), ("draw", 4), ("block", 2)]:
        for bots in [("greedy", "greedy"), ("random", "random")]:
            c = _config(bots=bots, variant=variant, players=players, games=12)
            s = run_match(c, tmp_path / f"{variant}{players}{bots[0]}.jsonl", jobs=1)
            assert [b["score"] for b in s["bots"]] == [0.5, 0.5], (variant, players, bots)
            assert s["bots"][0]["estimate"]["elo"] == 0.0


def test_record_fields_and_show(tmp_path):
    from bones.match.journal import load_record, show

    path = tmp_path / "m.jsonl"
    run_match(_config(variant="kozel", players=4, games=2), path, jobs=1)
    rec = load_record(path, 1)
    assert rec["variant"] == "kozel" and rec["players"] == 4
    assert rec["seats"] == ["random", "greedy", "random", "greedy"]
    assert rec["forfeit"] is None and rec["ranks"] in ([2, 0], [0, 2])
    assert all(r["result"] is not None for r in rec["rounds"])
    import io

    out = io.StringIO()
    show(rec, out)
    text = out.getvalue()
    assert "seat 1 (greedy)" in text and "Final scores" in text
    assert text.count("\nRound ") == len(rec["rounds"])


# ---------------------------------------------------------------------------------------
# Forfeits


@pytest.mark.parametrize("jobs", [1, 2])
def test_crash_illegal_and_slow_bots_lose(tmp_path, jobs):
    for spec, reason in [
        ("t-crash:after=2", "crash"),
        ("t-illegal", "illegal"),
        ("t-slow:delay=0.3", "timeout"),
        ("t-spin", "timeout"),
    ]:
        c = _config(bots=(spec, "random"), games=4, timeout=0.1, plugins=PLUGIN)
        s = run_match(c, tmp_path / f"{reason}{spec[2:6]}{jobs}.jsonl", jobs=jobs)
        bad, good = s["bots"]
        assert s["counted"] == 4
        assert bad["forfeits"] == {reason: 4}, (spec, bad)
        assert bad["score"] == 0.0 and good["score"] == 1.0
        data = read_journal(tmp_path / f"{reason}{spec[2:6]}{jobs}.jsonl")
        assert all(r["forfeit"]["reason"] == reason for r in data.records)
        assert "Forfeits: " + bad["bot"] in format_table(s)


def test_stuck_worker_is_killed(tmp_path, monkeypatch):
    from bones.match import runner

    monkeypatch.setattr(runner, "hard_limit", lambda timeout: 1.0)
    c = _config(bots=("t-stuck", "random"), games=2, timeout=0.2, plugins=PLUGIN)
    start = time.monotonic()
    s = run_match(c, tmp_path / "stuck.jsonl", jobs=2)
    assert time.monotonic() - start < 30
    assert s["bots"][0]["forfeits"] == {"timeout": 2}
    assert s["bots"][1]["score"] == 1.0
    import io

    from bones.match.journal import load_record, show

    out = io.StringIO()
    show(load_record(tmp_path / "stuck.jsonl", 0), out)
    assert "forfeits the game: timeout" in out.getvalue()


def test_play_game_is_deterministic():
    p = plan(_config(bots=("random", "greedy"), variant="draw", players=3, games=6))
    a = play_game(p.task(4))
    b = play_game(p.task(4))
    for r in (a, b):
        r.pop("seconds")
        r.pop("longest_move")
    assert a == b


# ---------------------------------------------------------------------------------------
# Kill and resume


def _cut(path, keep_games: int, half_line: bool) -> None:
    lines = open(path, "rb").read().split(b"\n")
    kept = lines[: 1 + keep_games]
    body = b"\n".join(kept) + b"\n"
    if half_line:
        body += lines[1 + keep_games][: len(lines[1 + keep_games]) // 2]
    open(path, "wb").write(body)


@pytest.mark.parametrize("half_line", [False, True])
def test_resume_gives_the_uninterrupted_table(tmp_path, half_line, capsys):
    c = _config(bots=("greedy", "random:seed=3"), variant="straight", players=3, games=12)
    full = run_match(c, tmp_path / "full.jsonl", jobs=1)
    cut = tmp_path / "cut.jsonl"
    run_match(c, cut, jobs=1)
    _cut(cut, 5, half_line)
    resumed = run_match(c, cut, jobs=2, resume=True)
    err = capsys.readouterr().err
    assert ("cut short" in err) == half_line
    for s in (full, resumed):
        s.pop("journal")
    assert json.dumps(full, sort_keys=True) == json.dumps(resumed, sort_keys=True)
    assert format_table(full) == format_table(resumed)
    data = read_journal(cut)
    assert sorted(r["id"] for r in data.records) == list(range(12))
    assert not data.warnings
    raw = open(cut, encoding="utf-8").read().splitlines()
    assert sum(1 for line in raw if '"type":"game"' in line) == 12  # nothing duplicated


@pytest.mark.parametrize("tail", [b"", b'{"type":"game","id":'])
def test_resume_of_a_finished_match_leaves_its_journal(tmp_path, tail):
    """Nothing left to play: no resume line is written (a driver that resumes every
    pairing of a finished run keeps its journals byte for byte); a cut-short tail goes."""
    c = _config(games=6)
    path = tmp_path / "m.jsonl"
    full = run_match(c, path, jobs=1)
    full.pop("journal")
    before = path.read_bytes()
    path.write_bytes(before + tail)
    for resume in (True, False):
        again = run_match(c, path, jobs=1, resume=resume)
        assert path.read_bytes() == before
        again.pop("journal")
        assert json.dumps(full, sort_keys=True) == json.dumps(again, sort_keys=True)


def test_resume_refuses_another_match(tmp_path):
    path = tmp_path / "m.jsonl"
    run_match(_config(games=2), path, jobs=1)
    with pytest.raises(MatchError, match="another match"):
        run_match(_config(games=2, seed=6), path, jobs=1, resume=True)
    with pytest.raises(ValueError, match="exists and holds another match"):
        run_match(_config(games=2, seed=6), path, jobs=1)


def test_corrupt_middle_line_is_an_error(tmp_path):
    from bones.match.journal import JournalError

    path = tmp_path / "m.jsonl"
    run_match(_config(games=4), path, jobs=1)
    lines = open(path, encoding="utf-8").read().splitlines()
    lines[2] = lines[2][:10]
    open(path, "w", encoding="utf-8").write("\n".join(lines) + "\n")
    with pytest.raises(JournalError, match="line 3 is corrupt"):
        read_journal(path)


# ---------------------------------------------------------------------------------------
# SPRT


def test_sprt_stops_and_is_reproducible(tmp_path):
    from bones.match.stats import SPRT

    c = _config(bots=("greedy", "random"), games=400, sprt=SPRT(0, 10, 0.05, 0.05))
    one = run_match(c, tmp_path / "a.jsonl", jobs=1)
    two = run_match(c, tmp_path / "b.jsonl", jobs=2)
    assert one["sprt"]["decision"] == "H1"
    assert one["counted"] < 400
    for s in (one, two):
        s.pop("journal")
        s.pop("after_decision")
        s.pop("played")
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


# ---------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(bots=("greedy", "nosuchbot")), "unknown bot 'nosuchbot'; known bots:"),
        (dict(bots=("greedy", "random:depth=2")), "unknown option 'depth'"),
        (dict(bots=("greedy", "random:seed")), "KEY=VALUE"),
        (dict(variant="chess"), "unknown variant 'chess'; known variants:"),
        (dict(options={"targt": 5}), "targt"),
        (dict(players=5), "straight is played by 2, 3, 4 players, not 5"),
        (dict(bots=("greedy", "random", "heaviest")), "takes 2 to 2 bots, not 3"),
        (dict(bots=("greedy", "random", "heaviest"), players=4), "partners sit opposite"),
        (dict(bots=("greedy",)), "at least 2 bots"),
        (dict(format="swiss"), "unknown format 'swiss'; formats: head-to-head"),
        (dict(games=0), "--games must be"),
        (dict(games=10**12), "a match schedules at most 10,000,000 games; --games"),
        (dict(bots=("a", "b", "c"), format="round-robin", sprt=None), "unknown bot 'a'"),
    ],
)
def test_bad_input(kw, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan(_config(**kw))


def test_sprt_needs_two_bots():
    from bones.match.stats import SPRT

    with pytest.raises(MatchError, match="head-to-head of 2 bots"):
        plan(_config(bots=("greedy", "random", "heaviest"), format="round-robin", sprt=SPRT()))


def test_default_journal_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_match(_config(bots=("greedy", "random:seed=3"), games=2), jobs=1)
    assert os.listdir(tmp_path) == ["greedy-vs-random_seed_3-straight2-seed5.jsonl"]


@pytest.mark.slow
def test_kill_9_and_resume(tmp_path):
    """A real kill: the runner process (and its pool) is SIGKILLed mid-match, resumed
    with --resume, and reports what an uninterrupted match reports."""
    import subprocess
    import sys

    args = ["greedy", "random", "--variant", "block", "--games", "3000", "--seed", "4"]
    args += ["--jobs", "2", "--json", "--secret", SECRET]
    bones = [sys.executable, "-m", "bones", "match"]
    full = subprocess.run(
        [*bones, *args, "--journal", str(tmp_path / "full.jsonl")], capture_output=True, check=True
    )
    cut = tmp_path / "cut.jsonl"
    proc = subprocess.Popen(
        [*bones, *args, "--journal", str(cut)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if cut.exists() and cut.read_bytes().count(b'"type":"game"') >= 600:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # the runner and its workers, mid-write or not
    proc.wait()
    games = cut.read_bytes().count(b'"type":"game"')
    assert 600 <= games < 3000
    resumed = subprocess.run(
        [*bones, "--resume", "--journal", str(cut), "--json"], capture_output=True, check=True
    )
    a, b = json.loads(full.stdout), json.loads(resumed.stdout)
    a.pop("journal")
    b.pop("journal")
    assert a == b
    assert cut.read_bytes().count(b'"type":"game"') == 3000


@pytest.mark.parametrize("variant", ["mexican-train", "chicken-foot", "draw"])
def test_a_workers_journal_line_is_its_games_record_encoded(variant):
    from bones.match.journal import encode_record
    from bones.match.runner import MatchConfig, play_games

    p = plan(MatchConfig(bots=("random", "greedy"), variant=variant, players=4, games=2, seed=5))
    tasks = [p.task(g) for g in range(2)]
    for task, summary in zip(tasks, play_games(tasks), strict=True):
        record = play_game(task)
        assert record["rounds"] and all(r["result"] is not None for r in record["rounds"])
        line = json.loads(summary["line"])
        for timed in ("seconds", "longest_move"):  # the two games' own timings
            record[timed] = line[timed]
        assert summary["line"] == encode_record(record)
