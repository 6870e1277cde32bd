"""The boundary between the bots and the runner (issue 25): what crosses to the workers
and the bots' processes, and where a ``--plugin`` module runs.

* the match's secret (the key of the bots' seeds) stays in the runner: the workers get
  a plan without it and each game's finished bot seeds; no task, no argument of a worker
  process and no command line holds it;
* under ``--isolate`` the ``--plugin`` modules are imported by the bots' own processes
  only, never by the runner or its workers (``marker_plugin`` says where it is imported,
  and patches the runner's ``bot_seed`` where it can).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bones.match import MatchConfig, read_journal, run_match
from bones.match.runner import plan

TESTS = str(Path(__file__).parent)
SECRET = "5e" * 32


def _leaves(obj, seen=None):
    """Every value inside ``obj`` (containers, dataclasses, objects' attributes), each
    with its ``str`` and ``repr``."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    for text in (str, repr):
        try:
            yield text(obj)
        except Exception:  # noqa: BLE001, S112
            continue
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _leaves(key, seen)
            yield from _leaves(value, seen)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for value in obj:
            yield from _leaves(value, seen)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _leaves(getattr(obj, f.name), seen)


def _holds_secret(obj, secret: str) -> bool:
    raw = bytes.fromhex(secret)
    try:  # what would cross to a process (a pool's initializer's shared memory does not
        blob = pickle.dumps(obj)  # pickle: it is inherited by the fork)
    except (pickle.PicklingError, TypeError, AttributeError):
        blob = b""
    if secret.encode() in blob or raw in blob:
        return True
    for leaf in _leaves(obj):
        if isinstance(leaf, str) and secret in leaf.lower():
            return True
        if isinstance(leaf, (bytes, bytearray)) and (raw in leaf or secret.encode() in leaf):
            return True
    return False


def test_the_check_finds_a_secret():
    assert _holds_secret(
        [{"a": (plan(MatchConfig(bots=("random", "greedy"), secret=SECRET)),)}], SECRET
    )
    assert not _holds_secret(
        plan(MatchConfig(bots=("random", "greedy"), secret=SECRET)).public(), SECRET
    )


class _Recording(cf.ThreadPoolExecutor):
    """An executor (as a Dask cluster's) that keeps what each task carries."""

    def __init__(self) -> None:
        super().__init__(2)
        self.calls: list[tuple] = []

    def submit(self, fn, /, *args, **kwargs):
        self.calls.append((fn, args, kwargs))
        return super().submit(fn, *args, **kwargs)


def test_no_task_carries_the_secret(tmp_path, monkeypatch):
    """The workers get each game's bot seeds, made in the runner: the tasks sent to the
    pool's workers (and their initializer's arguments), and to any other executor, never
    hold the secret; the games are the same as with the plan's own tasks."""
    calls: list[tuple] = []
    submit, init = cf.ProcessPoolExecutor.submit, cf.ProcessPoolExecutor.__init__

    def recording_submit(self, fn, /, *args, **kwargs):
        calls.append((fn, args, kwargs))
        return submit(self, fn, *args, **kwargs)

    def recording_init(self, *args, **kwargs):
        calls.append(("init", args, kwargs))
        init(self, *args, **kwargs)

    monkeypatch.setattr(cf.ProcessPoolExecutor, "submit", recording_submit)
    monkeypatch.setattr(cf.ProcessPoolExecutor, "__init__", recording_init)
    config = MatchConfig(bots=("random", "greedy"), games=6, seed=1, secret=SECRET, timeout=None)
    run_match(config, tmp_path / "pool.jsonl", jobs=2)
    other = _Recording()
    try:
        run_match(config, tmp_path / "other.jsonl", jobs=2, executor=other)
    finally:
        other.shutdown()
    submitted = [c for c in calls if c[0] != "init"]
    assert submitted and other.calls and any(c[0] == "init" for c in calls)
    for call in calls + other.calls:
        assert not _holds_secret(call[1:], SECRET), call
    # the seeds the workers used are the keyed ones
    p = plan(config)
    for name in ("pool.jsonl", "other.jsonl"):
        for rec in read_journal(tmp_path / name).records:
            assert rec["bot_seeds"] == p.task(rec["id"])["bot_seeds"]


def test_a_public_plan_cannot_make_seeds():
    p = plan(MatchConfig(bots=("random", "greedy"), secret=SECRET))
    public = p.public()
    assert public.config.secret is None
    with pytest.raises(ValueError, match="without its secret"):
        public.task(0)
    assert public.task(0, p.bot_seeds(0)) == p.task(0)
    with pytest.raises(ValueError, match="bot seeds"):
        public.task(0, [1])


# ---------------------------------------------------------------------------------------
# --plugin under --isolate, and the command lines


def _match(tmp_path, name, *args, bots=("t-marker", "greedy")):
    """``bones match`` in a process of its own (the runner), with ``marker_plugin``
    importable and saying where it is imported; (runner pid, exit status, stderr, the
    imports, the journal)."""
    marker = tmp_path / f"{name}.imports"
    journal = tmp_path / f"{name}.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "BONES_TEST_MARKER": str(marker),
    }
    command = [sys.executable, "-m", "bones", "match", *bots, "--plugin", "marker_plugin"]
    command += ["--games", "4", "--jobs", "2", "--journal", str(journal), "--seed", "1"]
    proc = subprocess.Popen(
        [*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    try:
        _, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
    imports = (
        [json.loads(line) for line in marker.read_text().splitlines()] if marker.exists() else []
    )
    data = read_journal(journal) if journal.exists() else None
    return proc.pid, proc.returncode, err, imports, data


def test_an_isolated_plugin_is_imported_by_its_bots_only(tmp_path):
    # in process, a plugin is the runner's own code: imported there, its patch takes
    runner, code, err, imports, data = _match(tmp_path, "inside")
    assert code == 0, err
    assert runner in {i["pid"] for i in imports}
    assert all(rec["bot_seeds"] == [rec["seed"]] * 2 for rec in data.records)

    runner, code, err, imports, data = _match(tmp_path, "isolated", "--isolate")
    assert code == 0, err
    assert len(data.records) == 4 and imports
    for imp in imports:
        assert imp["pid"] != runner, imp
        me, parent, _ = imp["cmdlines"]
        # a bot's own process (each isolated bot loads the match's plugins); its parent,
        # the runner or a worker (forked: the runner's command line), did not
        assert " -m bones.protocol.server " in me and "--plugin marker_plugin" in me
        assert " -m bones match " in parent, imp
    assert runner in {i["parent"] for i in imports}  # the handshake, before the match
    assert {i["parent"] for i in imports} - {runner}  # the games: bots of the workers
    # the runner's seeds: keyed with the secret, not the patched ones
    secret = data.config["secret"]
    p = plan(MatchConfig.from_dict(data.config))
    for rec in data.records:
        assert rec["bot_seeds"] == p.task(rec["id"])["bot_seeds"] != [rec["seed"]] * 2
    # and no command line of the runner, a worker or a bot holds the secret
    for imp in imports:
        for line in imp["cmdlines"]:
            assert secret not in line.lower()


def test_an_isolated_plugin_bot_is_checked_by_its_own_process(tmp_path):
    """The runner does not know an isolated plugin's bots: their spec and their variants
    are checked by the handshake of their own process, before the match."""
    runner, code, err, imports, data = _match(
        tmp_path, "options", "--isolate", bots=("t-marker:depth=2", "greedy")
    )
    assert code == 2 and data is None
    assert "bot 't-marker:depth=2' failed its handshake" in err
    assert "unknown option 'depth'" in err
    assert all(i["pid"] != runner for i in imports)
    _, code, err, _, data = _match(
        tmp_path, "variant", "--isolate", "--variant", "draw", "--players", "3",
        bots=("t-marker-straight", "greedy"),
    )  # fmt: skip
    assert code == 2 and data is None
    # the wording of every check made from a hello (docs/protocol.md pins it)
    assert (
        "bot 't-marker-straight' (t-marker-straight) does not play draw; its hello lists: straight"
        in err
    ), err


def test_a_given_secret_can_stay_off_the_command_line(tmp_path, capsys):
    from bones.cli import main

    key = tmp_path / "secret"
    key.write_text(SECRET.upper() + "\n")
    journal = tmp_path / "j.jsonl"
    args = ["match", "random", "greedy", "--games", "2", "--jobs", "1", "--seed", "1", "--journal"]
    assert main([*args, str(journal), "--secret-file", str(key)]) == 0
    assert read_journal(journal).config["secret"] == SECRET
    capsys.readouterr()
    assert (
        main([*args, str(tmp_path / "b.jsonl"), "--secret-file", str(key), "--secret", SECRET]) == 2
    )
    assert "give --secret or --secret-file, not both" in capsys.readouterr().err
    assert main([*args, str(tmp_path / "c.jsonl"), "--secret-file", str(tmp_path / "none")]) == 2
    assert (
        f"--secret-file {tmp_path / 'none'}: No such file or directory" in capsys.readouterr().err
    )
    key.write_text("not hex")
    assert main([*args, str(tmp_path / "d.jsonl"), "--secret-file", str(key)]) == 2
    assert "--secret-file's file takes 32 to 128 hex digits" in capsys.readouterr().err
