"""Matches on a Dask cluster (``--executor dask``) against a ``distributed.LocalCluster``:
the same seed plays the same games as the process pool; journal, resume and SPRT work."""

from __future__ import annotations

import json

import pytest

distributed = pytest.importorskip("distributed")

from bones.cli import main  # noqa: E402
from bones.match.executors import DaskExecutor  # noqa: E402
from bones.match.runner import MatchConfig, MatchError, run_match  # noqa: E402
from bones.match.stats import SPRT  # noqa: E402

SECRET = "5e" * 16


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local


def _games(path):
    """The journal's game records by id, without the fields that time the run."""
    out = {}
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("type") == "game":
                rec.pop("seconds", None)
                rec.pop("longest_move", None)
                rec.pop("mac", None)  # it signs the times too
                out[rec["id"]] = rec
    return out


def test_dask_plays_the_same_games_as_the_process_pool(tmp_path, cluster):
    config = MatchConfig(
        bots=("greedy", "random"), variant="straight", players=2, games=16, seed=9, secret=SECRET
    )
    pool = run_match(config, tmp_path / "pool.jsonl", jobs=2, progress=False)
    dask = DaskExecutor(cluster.scheduler_address)
    try:
        assert dask.threads == 2
        remote = run_match(
            config, tmp_path / "dask.jsonl", jobs=2, executor=dask.executor, progress=False
        )
    finally:
        dask.close()
    assert _games(tmp_path / "pool.jsonl") == _games(tmp_path / "dask.jsonl")
    assert len(_games(tmp_path / "dask.jsonl")) == 16
    for key in ("bots", "pairs", "played", "counted", "void"):
        assert pool[key] == remote[key]


def test_cli_resume_and_sprt_on_dask(tmp_path, cluster, capsys):
    journal = str(tmp_path / "m.jsonl")
    args = ["match", "greedy", "random", "--variant", "block", "--seed", "3", "--secret", SECRET]
    args += ["--journal", journal, "--executor", "dask", "--scheduler", cluster.scheduler_address]
    assert main([*args, "--games", "8", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["played"] == 8 and first["config"]["games"] == 8
    assert main([*args, "--games", "16", "--resume", "--json"]) == 0  # continues the journal
    assert len(_games(journal)) == 16
    reference = str(tmp_path / "ref.jsonl")
    ref_args = ["match", "greedy", "random", "--variant", "block", "--seed", "3"]
    ref_args += ["--secret", SECRET, "--journal", reference, "--games", "16", "--json"]
    assert main(ref_args) == 0
    assert _games(journal) == _games(reference)
    capsys.readouterr()
    sprt = MatchConfig(
        bots=("greedy", "random"),
        variant="straight",
        players=2,
        games=2000,
        seed=1,
        sprt=SPRT(elo0=0, elo1=150),
        secret=SECRET,
    )
    dask = DaskExecutor(cluster.scheduler_address)
    try:
        summary = run_match(sprt, tmp_path / "sprt.jsonl", executor=dask.executor, jobs=2)
    finally:
        dask.close()
    assert summary["sprt"]["decision"] in ("H0", "H1")
    assert len(_games(tmp_path / "sprt.jsonl")) < 4000


def test_a_scheduler_that_is_not_there_is_a_clear_error():
    with pytest.raises(MatchError, match="cannot connect"):
        DaskExecutor("tcp://127.0.0.1:9", timeout=1.0)


def test_cli_refuses_a_scheduler_without_dask(tmp_path, capsys):
    code = main(["match", "greedy", "random", "--games", "2", "--scheduler", "tcp://x:1"])
    assert code != 0
    assert "--scheduler is for --executor dask" in capsys.readouterr().err


def test_a_bot_that_kills_its_worker_stops_the_match_cleanly(tmp_path, monkeypatch):
    """A game whose bot kills the Dask worker fails its task on every try: after three
    the match stops with a one-line error, and the journal keeps every finished game.
    (Here the bot kills its worker in game 4 only; the games before it are kept.)"""
    from pathlib import Path

    import dask

    here = str(Path(__file__).resolve().parent)
    monkeypatch.syspath_prepend(here)  # the runner checks the plugin here too
    env = {"PYTHONPATH": here}
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            env=env,
        ) as local,
    ):
        config = MatchConfig(
            bots=("t-exit", "greedy"),
            variant="block",
            players=2,
            games=40,
            seed=4,
            secret=SECRET,
            plugins=("dask_exit_plugin",),
        )
        dask_ex = DaskExecutor(local.scheduler_address)
        try:
            with pytest.raises(MatchError, match=r"failed the task of games .* 3 times"):
                run_match(config, tmp_path / "exit.jsonl", jobs=1, executor=dask_ex.executor)
        finally:
            dask_ex.close()
    lines = (tmp_path / "exit.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "match"  # the journal is intact and readable
    kinds = [json.loads(line)["type"] for line in lines]
    assert set(kinds) <= {"match", "game"} and "game" in kinds  # games that finished
