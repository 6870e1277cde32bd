"""External and isolated bots in matches (docs/matches.md, "External and isolated bots"):
``cmd:`` specs, ``--isolate``, the fault reasons of external bots, ``--tc`` clocks.

Real child processes: tests/protocol_bots/misbehave.py (a mode file per bot) and small
bots written here; tiny matches, short timeouts, no timing assertions."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from bones.bot import BotError, check_spec, command_of, make_bot
from bones.errors import OptionError
from bones.match.runner import MatchConfig, MatchError, parse_tc, run_match

HERE = Path(__file__).parent
MISBEHAVE = HERE / "protocol_bots" / "misbehave.py"
SECRET = "5e" * 32


def misbehave(tmp_path: Path, mode: str) -> str:
    """The ``cmd:`` spec of a misbehave.py bot in ``mode``."""
    path = tmp_path / f"mode-{mode}"
    path.write_text(mode)
    return "cmd:" + shlex.join([sys.executable, str(MISBEHAVE), str(path)])


def games(path: Path) -> list[dict]:
    out = []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "game":
                out.append(rec)
    return sorted(out, key=lambda r: r["id"])


def header(path: Path) -> dict:
    with open(path) as f:
        return json.loads(f.readline())["config"]


def play(tmp_path: Path, name: str = "m.jsonl", **config) -> tuple[dict, Path]:
    config.setdefault("secret", SECRET)
    config.setdefault("games", 2)
    config.setdefault("seed", 1)
    path = tmp_path / name
    summary = run_match(MatchConfig(**config), path, jobs=1, progress=False)
    return summary, path


# -- specs ------------------------------------------------------------------------------


def test_command_specs():
    assert command_of("greedy") is None
    assert command_of("cmd:./bot --depth 3 'a b'") == ["./bot", "--depth", "3", "a b"]
    assert check_spec("cmd:./bot 7").name == "cmd"
    for bad in ("cmd:", "cmd:   ", "cmd:'unbalanced"):
        with pytest.raises(OptionError, match="cmd:|cannot be split"):
            check_spec(bad)


def test_make_bot_of_a_command_is_an_external_bot(tmp_path):
    from bones.protocol import ExternalBot

    bot = make_bot(misbehave(tmp_path, "good"), seed=5)
    try:
        assert isinstance(bot, ExternalBot)
        assert bot.info is not None and bot.info.name == "misbehave-good"
        assert bot.seed == 5
    finally:
        bot.close()


# -- cmd: bots in every format ----------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "players", "others"),
    [
        ("head-to-head", 2, ["greedy"]),
        ("head-to-head", 4, ["greedy"]),  # partners: two processes of the same command
        ("round-robin", 2, ["greedy", "random"]),
        ("gauntlet", 2, ["greedy", "random"]),
    ],
)
def test_external_bot_in_every_format(tmp_path, fmt, players, others):
    spec = misbehave(tmp_path, "good")
    summary, path = play(tmp_path, bots=(spec, *others), format=fmt, players=players)
    recs = games(path)
    assert len(recs) == summary["scheduled"] == summary["played"]
    assert all(r["forfeit"] is None and r["rounds"] for r in recs)
    labels = [b["bot"] for b in summary["bots"]]
    assert "misbehave-good" in labels  # the name of its hello
    assert any(spec in r["seats"] for r in recs)


def test_label_is_the_command_without_a_name(tmp_path):
    from bones.match.schedule import _labels

    assert _labels(["cmd:./bot 7", "greedy"]) == ("./bot 7", "greedy")
    assert _labels(["cmd:./a", "cmd:./b"], {"cmd:./a": "x", "cmd:./b": "x"}) == ("x#1", "x#2")


# -- --isolate --------------------------------------------------------------------------


def test_isolated_builtin_bots_play_the_same_games(tmp_path):
    base = dict(bots=("greedy", "random"), games=4)
    _, plain = play(tmp_path, "plain.jsonl", **base)
    summary, isolated = play(tmp_path, "isolated.jsonl", isolate=True, **base)
    assert header(isolated)["isolate"] is True and header(plain)["isolate"] is False

    def key(rec: dict) -> tuple:
        return (rec["id"], rec["bot_seeds"], rec["rounds"], rec["scores"], rec["forfeit"])

    a, b = games(plain), games(isolated)
    assert len(a) == len(b) == 4
    assert [key(r) for r in a] == [key(r) for r in b]
    assert all(r["rounds"] for r in b)
    assert [x["bot"] for x in summary["bots"]] == ["greedy", "random"]


# -- faults ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "crash"),
        ("hang", "timeout"),
        ("garbage", "bad_frame"),
        ("wrong_type", "bad_frame"),
        ("illegal_index", "illegal"),
        ("illegal_move", "illegal"),
    ],
)
def test_faults_forfeit_and_the_match_goes_on(tmp_path, mode, reason):
    spec = misbehave(tmp_path, mode)
    summary, path = play(tmp_path, bots=(spec, "greedy"), timeout=0.5)
    recs = games(path)
    assert len(recs) == 2 and summary["played"] == 2  # nothing lost
    pids = set()
    for rec in recs:
        forfeit = rec["forfeit"]
        assert forfeit is not None, rec
        assert forfeit["reason"] == reason
        assert forfeit["seat"] == rec["seats"].index(spec)
        assert f"misbehave-{mode}" in forfeit["detail"]
        pids.update(re.findall(r"\(pid (\d+)\)", forfeit["detail"]))
    assert len(pids) == 2  # a fresh process for the next game
    bots = {b["spec"]: b for b in summary["bots"]}
    assert bots[spec]["forfeits"] == {reason: 2}
    assert bots["greedy"]["points"] == 2


@pytest.mark.parametrize("mode", ["exit_in_handshake", "bad_hello", "old_protocol"])
def test_a_failed_handshake_stops_the_match_before_any_game(tmp_path, mode):
    spec = misbehave(tmp_path, mode)
    path = tmp_path / "never.jsonl"
    with pytest.raises(MatchError, match="failed its handshake") as info:
        run_match(MatchConfig(seed=1, bots=(spec, "greedy"), games=2), path, jobs=1, progress=False)
    assert "\n" not in str(info.value)
    assert not path.exists()


def test_a_failed_handshake_on_the_command_line(tmp_path, capsys):
    from bones.cli import main

    spec = misbehave(tmp_path, "exit_in_handshake")
    path = tmp_path / "never.jsonl"
    code = main(["match", "--seed", "1", spec, "greedy", "--games", "2", "--journal", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("bones: error: bot 'cmd:") and "failed its handshake (crash)" in err
    assert err.count("\n") == 1
    assert not path.exists()


def test_guard_passes_an_external_fault_unchanged():
    from bones.core.referee import Guard
    from bones.match.driver import _forfeit
    from bones.protocol import ExternalBotError

    error = ExternalBotError(1, "external bot 'x': index 9 is out of range", "illegal")

    class Faulty:
        def choose(self, *args):
            raise error

    guard = Guard(Faulty(), 1, "x", None, False)
    guard.external = True
    with pytest.raises(ExternalBotError) as info:
        guard.choose(None, ())
    assert info.value is error
    assert _forfeit(info.value)["reason"] == "illegal"
    plain = Guard(Faulty(), 1, "x", None, False)  # an in-process bot raising it: a crash
    with pytest.raises(BotError) as info2:
        plain.choose(None, ())
    assert not isinstance(info2.value, ExternalBotError)
    assert _forfeit(info2.value)["reason"] == "crash"


# -- time controls ----------------------------------------------------------------------


def test_parse_tc():
    assert parse_tc("10+0.1") == (10.0, 0.1)
    assert parse_tc("60") == (60.0, 0.0)
    assert parse_tc(" 1.5 + 0 ") == (1.5, 0.0)
    for bad in ("0+1", "10+", "+1", "ten", "10+-1", "-5"):
        with pytest.raises(MatchError, match="--tc takes"):
            parse_tc(bad)
    assert MatchConfig.from_dict({"bots": ["a", "b"], "variant": "straight", "players": 2,
                                  "games": 1, "tc": "10 + 0.1"}).tc == "10+0.1"  # fmt: skip
    with pytest.raises(MatchError, match="--tc takes"):
        MatchConfig.from_dict(
            {"bots": ["a", "b"], "variant": "straight", "players": 2, "games": 1, "tc": "x"}
        )


def test_in_process_clock_runs_out(tmp_path):
    summary, path = play(tmp_path, bots=("greedy", "random"), tc="0.00001+0", timeout=None)
    assert header(path)["tc"] == "0.00001+0"
    recs = games(path)
    assert len(recs) == 2
    for rec in recs:
        assert rec["forfeit"]["reason"] == "timeout"
        assert "clock" in rec["forfeit"]["detail"]


def test_in_process_clock_with_room_changes_nothing(tmp_path):
    base = dict(bots=("greedy", "random"), games=2)
    _, plain = play(tmp_path, "plain.jsonl", **base)
    _, clocked = play(tmp_path, "clocked.jsonl", tc="1000+1", **base)
    assert [r["rounds"] for r in games(plain)] == [r["rounds"] for r in games(clocked)]


def test_external_clock_runs_out(tmp_path):
    spec = misbehave(tmp_path, "hang")
    _, path = play(tmp_path, bots=(spec, "greedy"), tc="0.5+0", timeout=None)
    for rec in games(path):
        assert rec["forfeit"]["reason"] == "timeout"
        assert rec["forfeit"]["seat"] == rec["seats"].index(spec)


CLOCK_BOT = """
import os, struct, sys
import msgpack

log = open(sys.argv[1], "a")

def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data

def send(obj):
    body = msgpack.packb(obj, use_bin_type=True)
    os.write(1, struct.pack(">I", len(body)) + body)

while True:
    (n,) = struct.unpack(">I", read_exactly(4))
    msg = msgpack.unpackb(read_exactly(n), raw=False, strict_map_key=False)
    kind = msg.get("type")
    if kind == "quit":
        sys.exit(0)
    if kind == "hello":
        send({"type": "hello", "name": "clock-bot"})
    elif kind == "game_start":
        log.write("game\\n")
        log.flush()
    elif kind == "move_request":
        log.write(f"{msg['time_left_ms']}\\n")
        log.flush()
        send({"type": "move", "id": msg["id"], "index": 0})
"""


def test_external_bot_gets_its_clock_in_time_left_ms(tmp_path):
    script = tmp_path / "clock_bot.py"
    script.write_text(CLOCK_BOT)
    log = tmp_path / "clock.log"
    spec = "cmd:" + shlex.join([sys.executable, str(script), str(log)])
    _, path = play(tmp_path, bots=(spec, "greedy"), tc="5+0.25", timeout=10.0)
    assert header(path)["tc"] == "5+0.25"
    assert all(r["forfeit"] is None for r in games(path))
    lines = log.read_text().split()
    assert lines.count("game") == 2
    for game in " ".join(lines).split("game")[1:]:
        left = [int(x) for x in game.split()]
        assert left and left[0] == 5000  # the clock, below the 10 s per move
        assert all(0 < x <= 5000 + 250 * i for i, x in enumerate(left))


def test_command_line_isolate_and_tc(tmp_path, capsys):
    from bones.cli import main

    path = tmp_path / "cli.jsonl"
    spec = misbehave(tmp_path, "good")
    args = ["match", "--seed", "1", spec, "greedy", "--isolate", "--tc", "30+0.5", "--games", "2"]
    code = main([*args, "--secret", SECRET, "--journal", str(path), "--jobs", "1", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["played"] == 2
    config = header(path)
    assert config["isolate"] is True and config["tc"] == "30+0.5"
    assert all(r["forfeit"] is None for r in games(path))
    assert os.path.exists(path)


def test_default_journal_name_of_a_long_command_stays_short():
    spec = "cmd:" + " ".join(["/very/long/path/to/a/bot/binary"] * 20)
    name = MatchConfig(bots=(spec, "greedy")).default_journal()
    assert len(name) < 120 and name.startswith("cmd_") and name.endswith("seed0.jsonl")
    assert MatchConfig(bots=("cmd:./a", "greedy")).default_journal().startswith("cmd_._a-vs-")
    other = MatchConfig(bots=(spec + "x", "greedy")).default_journal()
    assert other != name


def test_isolate_takes_the_match_plugins_into_each_bot_process(tmp_path, monkeypatch):
    """A plugin's bot under --isolate runs in its own process (loading the --plugin
    modules there), where no round exists to peek at; in-process the same bot finds it."""
    here = str(Path(__file__).resolve().parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    base = dict(bots=("t-peek", "greedy"), games=2, plugins=("peek_plugin",))
    _, inside = play(tmp_path, "inside.jsonl", **base)
    assert all("saw another hand" in g["forfeit"]["detail"] for g in games(inside))
    summary, isolated = play(tmp_path, "isolated.jsonl", isolate=True, **base)
    recs = games(isolated)
    assert len(recs) == 2 and all(g["forfeit"] is None and g["rounds"] for g in recs)
    assert [x["bot"] for x in summary["bots"]] == ["t-peek", "greedy"]


def test_serve_bot_reports_a_plugin_that_does_not_import(capsys):
    from bones.protocol.server import main as server_main

    assert server_main(["greedy", "--plugin", "no_such_module_here"]) == 2
    assert "--plugin no_such_module_here: cannot import it" in capsys.readouterr().err


def test_game_start_carries_the_clock_and_each_game_has_its_log(tmp_path):
    """--tc reaches the bot in game_start (game_ms, increment_ms); --bot-logs keeps each
    external bot's stderr per game and seat."""
    from bones.match.schedule import BOT_LOG_LIMIT

    logs = tmp_path / "logs"
    spec = misbehave(tmp_path, "log_clock")
    summary, path = play(tmp_path, bots=(spec, "greedy"), games=2, tc="30+0.5", bot_logs=str(logs))
    assert summary["played"] == 2
    recs = games(path)
    for rec in recs:
        seat = rec["seats"].index(spec)
        text = (logs / f"game-{rec['id']}-seat-{seat}.log").read_text()
        assert text.count("clock") == 1  # this game's log: one game_start
        clock = json.loads(text.split("clock ", 1)[1].splitlines()[0])
        assert clock == {"move_ms": 10000, "game_ms": 30000, "increment_ms": 500}
    assert header(path)["bot_logs"] == str(logs)
    flood, floods = misbehave(tmp_path, "flood_stderr"), tmp_path / "floods"
    play(tmp_path, "flood.jsonl", bots=(flood, "greedy"), games=2, bot_logs=str(floods))
    sizes = [p.stat().st_size for p in floods.iterdir()]
    assert len(sizes) == 2 and all(BOT_LOG_LIMIT <= n <= BOT_LOG_LIMIT + 100 for n in sizes)


def _logged_cpus(logs: Path) -> list[list[int]]:
    return [
        json.loads(p.read_text().split("cpus ", 1)[1].splitlines()[0])
        for p in sorted(logs.iterdir())
    ]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity here")
def test_a_worker_and_its_bot_processes_share_one_cpu(tmp_path):
    """--affinity game (the default): each worker is pinned to one CPU, and the bots it
    starts inherit it; --affinity off leaves them where the runner may run."""
    allowed = sorted(os.sched_getaffinity(0))
    spec = misbehave(tmp_path, "log_affinity")
    logs = tmp_path / "pinned"
    summary, _ = play(tmp_path, bots=(spec, "greedy"), games=4, bot_logs=str(logs))
    assert summary["played"] == 4
    cpus = _logged_cpus(logs)
    assert len(cpus) == 4 and all(len(c) == 1 and c[0] in allowed for c in cpus)
    free = tmp_path / "free"
    path = tmp_path / "free.jsonl"
    config = MatchConfig(seed=1, bots=(spec, "greedy"), games=2, secret=SECRET, bot_logs=str(free))
    run_match(config, path, jobs=1, progress=False, affinity=False)
    assert _logged_cpus(free) == [allowed, allowed]
    assert os.sched_getaffinity(0) == set(allowed)  # the runner itself is never pinned


def test_in_process_bots_are_not_pinned(tmp_path):
    """Only matches with bot processes pin their workers: an in-process bot may think on
    several threads."""
    import bones.match.executors as executors

    assert not executors.pin_wanted(MatchConfig(bots=("greedy", "random")))
    assert executors.pin_wanted(MatchConfig(bots=("greedy", "random"), isolate=True))
    assert executors.pin_wanted(MatchConfig(bots=(misbehave(tmp_path, "good"), "random")))


def test_without_a_clock_game_start_says_so(tmp_path):
    logs = tmp_path / "logs"
    spec = misbehave(tmp_path, "log_clock")
    play(tmp_path, bots=(spec, "greedy"), games=2, bot_logs=str(logs))
    text = next(logs.iterdir()).read_text()
    assert json.loads(text.split("clock ", 1)[1].splitlines()[0]) == {
        "move_ms": 10000,
        "game_ms": None,
        "increment_ms": None,
    }
