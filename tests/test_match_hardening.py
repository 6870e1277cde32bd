"""Hardening of the match runner (issue 6): a bot cannot hang, end or corrupt a match.

* a bot that hangs in any hook (``__init__``, ``start_game``, ``start_round``,
  ``observe``, ``choose``, ``end_round``, ``end_game``), even one that swallows every
  exception, loses that game by timeout, at any ``--jobs`` (games always run in worker
  processes under the parent's watchdog);
* ``sys.exit``, ``KeyboardInterrupt``, ``GeneratorExit``, custom BaseExceptions,
  ``os._exit`` and SIGKILL in a bot are that bot's forfeit; the match goes on;
* anything but a ``Move`` from ``choose`` (a look-alike equal to everything, an object
  whose methods raise) is an illegal move;
* bots' prints never reach the runner's stdout (``--json`` stays JSON);
* a variant whose ``move_scorer`` raises voids the game with a message naming it;
* the user's own Ctrl-C still stops the match cleanly and resumably;
* small things: ``--sprt`` keeps the bots after it, Elo 0 prints as 0.0, ``bones bench``
  says what it will run.

The misbehaving bots and the broken variant come from the plugin ``hardening_plugin``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bones.match import MatchConfig, format_table, read_journal, run_match

PLUGIN = ("hardening_plugin",)
TESTS = str(Path(__file__).parent)
SECRET = "7a" * 32


def _config(**kw):
    base = dict(
        bots=("random", "random:seed=1"),
        variant="straight",
        players=2,
        games=2,
        seed=3,
        timeout=5.0,
        plugins=PLUGIN,
        secret=SECRET,
    )
    base.update(kw)
    return MatchConfig(**base)


@pytest.fixture
def quick_watchdog(monkeypatch):
    """The watchdog kills a worker whose hook runs for 1 s (instead of 10 s)."""
    from bones.match import runner

    monkeypatch.setattr(runner, "hard_limit", lambda timeout: None if timeout is None else 1.0)


def _bones(*args, **kw):
    env = {**os.environ, "PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "bones", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        **kw,
    )


# ---------------------------------------------------------------------------------------
# Hangs


HOOKS = ("init", "start_game", "start_round", "observe", "choose", "end_round", "end_game", "del")


@pytest.mark.parametrize("hook", HOOKS)
def test_a_bot_that_hangs_in_any_hook_loses_by_timeout(tmp_path, quick_watchdog, hook):
    """Swallowing every exception (the alarm included), with --jobs 1: only the parent's
    watchdog can stop it; the game is that seat's timeout, the match goes on."""
    c = _config(bots=(f"t-hang:hook={hook},swallow=true", "random"))
    start = time.monotonic()
    s = run_match(c, tmp_path / "hang.jsonl", jobs=1)
    assert time.monotonic() - start < 60
    bad, good = s["bots"]
    assert bad["forfeits"] == {"timeout": 2} and good["score"] == 1.0
    name = {"init": "__init__", "del": "__del__"}.get(hook, hook)
    details = [r["forfeit"]["detail"] for r in read_journal(tmp_path / "hang.jsonl").records]
    assert all(d.startswith(f"timeout in {name}: no answer after 1s") for d in details), details


@pytest.mark.parametrize("hook", ["start_round", "end_game"])
def test_an_alarm_stops_a_hook_that_does_not_swallow_it(tmp_path, hook):
    c = _config(bots=(f"t-hang:hook={hook}", "random"), timeout=1.0)
    s = run_match(c, tmp_path / "h.jsonl", jobs=2)
    assert s["bots"][0]["forfeits"] == {"timeout": 2}
    rec = read_journal(tmp_path / "h.jsonl").records[0]
    assert f"gave no answer from {hook}() within 1s (interrupted)" in rec["forfeit"]["detail"]


# ---------------------------------------------------------------------------------------
# Exits and BaseExceptions


@pytest.mark.parametrize(
    "what, detail",
    [
        ("exit0", "choose() raised SystemExit: 0"),
        ("exit3", "choose() raised SystemExit: 3"),
        ("keyboard", "choose() raised KeyboardInterrupt"),
        ("generatorexit", "choose() raised GeneratorExit"),
        ("custom", "choose() raised CustomExit: mine"),
        ("os_exit", "the worker process died"),
        ("kill", "the worker process died"),
    ],
)
@pytest.mark.parametrize("jobs", [1, 2])
def test_exits_and_base_exceptions_are_the_bots_forfeit(tmp_path, what, detail, jobs):
    path = tmp_path / f"{what}.jsonl"
    s = run_match(_config(bots=(f"t-raise:what={what}", "random")), path, jobs=jobs)
    bad, good = s["bots"]
    assert bad["forfeits"] == {"crash": 2} and good["score"] == 1.0
    records = read_journal(path).records
    assert [r["id"] for r in records] == [0, 1]
    assert all(detail in r["forfeit"]["detail"] for r in records), records[0]["forfeit"]
    assert all("choose" in r["forfeit"]["detail"] for r in records)


def test_sys_exit_in_a_bot_does_not_end_bones_match(tmp_path):
    for jobs in ("1", "2"):
        journal = str(tmp_path / f"exit{jobs}.jsonl")
        out = _bones(
            "match", "t-raise:what=exit0", "random", "--plugin", "hardening_plugin",
            "--games", "4", "--jobs", jobs, "--journal", journal, "--json", "--seed", "1",
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        summary = json.loads(out.stdout)
        assert summary["counted"] == 4
        assert summary["bots"][0]["forfeits"] == {"crash": 4}


# ---------------------------------------------------------------------------------------
# Garbage from choose


@pytest.mark.parametrize(
    "kind, detail",
    [
        ("none", "choose() returned NoneType None, not a bones.Move"),
        ("str", "choose() returned str '"),
        ("int", "choose() returned int 7, not a bones.Move"),
        ("fake", "choose() returned an object of type FakeMove, not a bones.Move"),
        ("unprintable", "choose() returned an object of type Unprintable, not a bones.Move"),
    ],
)
def test_garbage_from_choose_is_an_illegal_move(tmp_path, kind, detail):
    path = tmp_path / f"{kind}.jsonl"
    s = run_match(_config(bots=(f"t-answer:kind={kind}", "random")), path, jobs=1)
    assert s["bots"][0]["forfeits"] == {"illegal": 2}
    assert all(detail in r["forfeit"]["detail"] for r in read_journal(path).records)


def test_a_move_look_alike_cannot_pass_play_round():
    from hardening_plugin import FakeMove

    import bones
    from bones.bot import Bot, BotError, play_round

    class Liar(Bot):
        def choose(self, observation, legal_moves):
            return FakeMove()

    rnd = bones.Round.deal("straight", seed=1)
    assert isinstance(FakeMove(), bones.Move)  # what fooled the old check
    with pytest.raises(BotError, match="an object of type FakeMove, not a bones.Move"):
        play_round(rnd, [Liar(), Liar()])


# ---------------------------------------------------------------------------------------
# Output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bots_cannot_write_into_the_json_output(tmp_path, jobs):
    out = _bones(
        "match", "t-print", "random", "--plugin", "hardening_plugin", "--games", "4",
        "--jobs", jobs, "--journal", str(tmp_path / "p.jsonl"), "--json", "--seed", "1",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["counted"] == 4  # stdout is the JSON and nothing else
    assert "PRINTED BY A BOT" in out.stderr and "WRITTEN TO FD 1 BY A BOT" in out.stderr


def test_play_game_in_process_sends_bot_prints_to_stderr(capfd):
    from bones.match.runner import load_plugins, plan, play_game

    load_plugins(PLUGIN)
    play_game(plan(_config(bots=("t-print", "random"))).task(0))
    out, err = capfd.readouterr()
    assert "PRINTED BY A BOT" not in out and "PRINTED BY A BOT" in err


# ---------------------------------------------------------------------------------------
# Engine errors


@pytest.mark.parametrize("bots", [("random", "random:seed=1"), ("greedy", "random")])
def test_a_raising_move_scorer_voids_the_game(tmp_path, capsys, bots):
    """random: the engine's play raises; greedy: points_after in its choose raises (the
    variant's fault, not the bot's)."""
    path = tmp_path / "boom.jsonl"
    s = run_match(_config(bots=bots, variant="t-boom", games=10), path, jobs=2)
    assert s["void"] > 0 and s["counted"] == 10
    assert all(not b["forfeits"] for b in s["bots"])
    assert (
        s["errors"][0].endswith(
            "variant 't-boom': its move_scorer boom_scorer raised RuntimeError: boom at 10"
        )
        or "move_scorer" in s["errors"][0]
    )
    games = sum(b["games"] for b in s["bots"]) // 2
    assert games == 10 - s["void"]
    table = format_table(s)
    assert f"({s['void']} void: engine error)" in table
    assert "Engine errors, " in table and "'t-boom'" in table and "move_scorer" in table
    voided = [r for r in read_journal(path).records if r.get("error")]
    assert len(voided) == s["void"] and all(r["ranks"] is None for r in voided)
    from bones.cli import main

    assert main(["show", str(path), "--game", str(voided[0]["id"])]) == 0
    out = capsys.readouterr().out
    assert "The game is void (it counts for nobody): variant 't-boom'" in out


def test_a_bot_that_calls_the_scorer_itself_forfeits(tmp_path):
    """Only the engine's call of the scorer voids a game: a bot that provokes the error
    by calling the scorer (or raising a look-alike message) crashes as any bot."""
    import bones
    from bones.match.driver import _scorer_fault

    try:
        bones.variant("t-boom").move_scorer((), None, 10)
    except RuntimeError as exc:
        assert _scorer_fault(exc, "t-boom") is None
    assert _scorer_fault(RuntimeError("move_scorer raised"), "t-boom") is None


# ---------------------------------------------------------------------------------------
# The user's Ctrl-C


def _wait_for(condition, what: str, limit: float = 120.0) -> None:
    """Wait until ``condition()`` holds (polled every 50 ms), at most ``limit`` seconds:
    a test waits for what it needs, not for a guessed time."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {limit:g}s: {what}")
        time.sleep(0.05)


def _games_in(path: str) -> int:
    try:
        with open(path, "rb") as f:
            return f.read().count(b'"type":"game"')
    except FileNotFoundError:
        return 0


def test_user_ctrl_c_stops_cleanly_and_resumably(tmp_path):
    journal = str(tmp_path / "c.jsonl")
    env = {**os.environ, "PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", "")}
    args = [sys.executable, "-m", "bones", "match", "greedy", "random", "--games", "100000"]
    args += ["--jobs", "1", "--journal", journal]
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )
    try:
        # the Ctrl-C comes once the match is under way (20 games journaled), however
        # slow the machine
        _wait_for(lambda: _games_in(journal) >= 20 or proc.poll() is not None, "20 games")
        assert proc.poll() is None, proc.communicate()[1]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert f"Interrupted: bones match --resume --journal {journal} continues".encode() in out
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
    data = read_journal(journal)
    assert not data.warnings and len(data.records) >= 20
    again = _bones("match", "--resume", "--journal", journal, "--games", "60", "--jobs", "2")
    assert again.returncode == 0, again.stderr
    assert "Games: 60 of 60" in again.stdout


def test_a_killed_pool_leaves_no_thread_or_worker_behind():
    """``Pool.shutdown(kill=True)`` (a Ctrl-C, a broken pool) kills idle workers too and
    returns only once the executor's manager thread has ended: nothing is left to write
    to a closed pipe when the interpreter exits."""
    from bones.match.executors import Pool

    pool = Pool(2, ())
    running = pool.executor.submit(time.sleep, 600)  # busy, but not in a game
    _wait_for(running.running, "the task to start")
    manager = pool.executor._executor_manager_thread
    workers = list(pool.executor._processes.values())
    assert manager.is_alive() and len(workers) >= 1
    pool.shutdown(kill=True)
    assert not manager.is_alive()
    for proc in workers:
        proc.join(timeout=10)
        assert proc.exitcode is not None, proc


# ---------------------------------------------------------------------------------------
# Small things


def test_sprt_words_stop_at_the_bots(tmp_path, capsys):
    from bones.cli import main

    for sprt in (["elo1=5"], ["elo0=0,elo1=5"], ["elo0=0", "elo1=5", "alpha=0.1"]):
        journal = str(tmp_path / f"s{len(sprt)}{sprt[0][:4]}.jsonl")
        code = main(
            ["match", "--sprt", *sprt, "greedy", "random", "--games", "4", "--jobs", "1",
             "--journal", journal, "--json", "--seed", "1"]
        )  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, err
        data = json.loads(out)
        assert [b["bot"] for b in data["bots"]] == ["greedy", "random"]
        assert data["sprt"]["elo1"] == 5.0
    code = main(["match", "greedy", "--sprt", "elo1=5", "random:seed=3", "--games", "2",
                 "--jobs", "1", "--journal", str(tmp_path / "x.jsonl")])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err and "Match greedy vs random:seed=3" in out


def test_elo_zero_prints_as_zero(tmp_path):
    s = run_match(_config(bots=("greedy", "greedy"), games=4), tmp_path / "z.jsonl", jobs=1)
    assert s["bots"][0]["estimate"]["elo"] == 0.0
    assert str(s["bots"][0]["estimate"]["elo"]) == "0.0"  # not -0.0, in the JSON too
    table = format_table(s)
    assert "-0.0" not in table and "    0.0  " in table


def test_bench_says_what_it_will_run(capsys):
    from bones.cli import main

    code = main(["bench", "--variant", "block", "--seconds", "0.05", "--no-python"])
    out, err = capsys.readouterr()
    assert code == 0
    assert err.startswith("bones bench: 2 measurements of 0.05 s (block: 2, 4 players): ")
    assert "about 0.1 s" in err
