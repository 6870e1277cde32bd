"""Matches at every seat count, secret deals and the fairness monitor (issues 30 and 32):
the seating design's intervals over deals, "not available" under two deals, a random
seed by default, deals keyed with the secret under --sandbox, the shuffled play order,
and the monitor that flags a deal-remembering bot (tests/memory_plugin.py)."""

from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import bones
from bones.cli import main
from bones.match import MatchConfig, MatchError, run_match
from bones.match.journal import read_journal
from bones.match.report import FAIRNESS_ALPHA, Summary, format_table, summarize_journal
from bones.match.runner import plan
from bones.match.schedule import ORDER_BLOCK, PlayOrder, deal_seed
from bones.match.stats import estimate_samples, sign_test

sys.path.insert(0, str(Path(__file__).parent))  # memory_plugin
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from seats_fairness import covered, false_alarms  # noqa: E402

SECRET = "ab" * 32


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------
# Intervals over deals


def test_eight_seats_games_40_has_a_real_interval(tmp_path, capsys):
    """Issue 30's "done when": at 8 seats --games 40 plays 40 games (20 deals of the 2
    seatings) with an interval; one deal shows none, never +/- 0.0 or LOS 100%."""
    journal = str(tmp_path / "m.jsonl")
    code, out, err = run(
        capsys, "match", "greedy", "random", "--variant", "chicken-foot", "--players", "8",
        "--games", "40", "--journal", journal, "--jobs", "1", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["counted"] == 40 and data["group_size"] == 2
    pair = data["pairs"][0]
    assert pair["units"] == 20
    e = pair["estimate"]
    assert e["score_lo"] < e["score"] < e["score_hi"] and e["elo_error"] > 0
    code, out, err = run(
        capsys, "match", "greedy", "random", "--variant", "chicken-foot", "--players", "8",
        "--games", "2", "--journal", str(tmp_path / "one.jsonl"), "--jobs", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "Games: 2 of 2" in out
    assert "its interval and LOS not available (1 deal pair: they need 2 or more)" in out
    assert "+/- 0.0" not in out and "LOS 100.0%" not in out


def test_one_deal_estimates_are_not_available_in_json_and_ratings(tmp_path, capsys):
    journal = str(tmp_path / "one.jsonl")
    config = MatchConfig(bots=("greedy", "random"), variant="draw", players=3, games=6, seed=2)
    summary = run_match(config, journal, jobs=1)
    assert summary["group_size"] == 6
    for e in [b["estimate"] for b in summary["bots"]] + [summary["pairs"][0]["estimate"]]:
        assert e["n"] == 1 and e["score"] is not None
        assert e["score_lo"] is e["score_hi"] is e["elo_error"] is e["los"] is None
    assert "n/a: not available, 1 deal of 6 games" in format_table(summary)
    code, out, err = run(capsys, "ratings", journal, "--json")
    assert code == 0, err
    for b in json.loads(out)["bots"]:
        assert b["elo_lo"] is None and b["elo_hi"] is None
    code, out, _ = run(capsys, "ratings", journal)
    assert "95% intervals: not available (1 deal: they need 2 or more)" in out


def test_every_deal_the_same_shows_no_interval(tmp_path, capsys):
    """Two identical bots with the runner's seeds replay each deal's game with the seats
    swapped: every deal pair scores exactly 1 point.  No interval, no LOS, and why --
    never a zero-width interval or LOS 50%."""
    journal = str(tmp_path / "same.jsonl")
    argv = ["match", "random", "random", "--games", "8", "--seed", "1", "--jobs", "1"]
    code, out, err = run(capsys, *argv, "--journal", journal)
    assert code == 0, err
    assert "(every one of 4 deal pairs scored the same)" in out
    assert "random#1: every deal pair scored 50.0%: no spread to measure" in out
    assert "its interval and LOS not available" in out and "LOS 50.0%" not in out
    e = json.loads(json.dumps(summarize_journal(journal)))["pairs"][0]["estimate"]
    assert e["n"] == 4 and e["score"] == 0.5 and e["variance"] == 0.0
    assert e["score_lo"] is e["score_hi"] is e["elo_error"] is e["los"] is None
    assert "every unit scored the same" in e["note"]


def test_every_deal_lost_gets_the_exact_bound():
    """A pair whose every deal scored 0: the interval is [0, 1 - 0.025**(1/n)], its Elo
    finite on the upper side only, the LOS not available; the table says so."""
    summary = {
        "config": {"format": "head-to-head", "variant": "straight", "players": 2, "seed": 1},
        "counted": 10, "scheduled": 10, "group_size": 2,
        "bots": [
            {"bot": bot, "games": 10, "wins": w, "draws": 0, "losses": 10 - w,
             "points": float(w), "score": w / 10, "forfeits": 0,
             "estimate": estimate_samples([w / 10] * 5).to_dict()}
            for bot, w in (("a", 0), ("b", 10))
        ],
        "pairs": [{"bots": ["a", "b"], "games": 10, "units": 5,
                   "estimate": estimate_samples([0.0] * 5).to_dict()}],
    }  # fmt: skip
    text = format_table(summary)
    assert "[0.0%, 52.2%]" in text and "[-inf, +15.2]" in text
    assert "Elo a vs b: -inf in [-inf, +15.2] (95%, 5 deal pairs), every one scored 0.0%" in text
    assert "LOS not available" in text and "LOS 0.0%" not in text
    assert "b: every deal pair scored 100.0%: its interval is the exact bound" in text


def test_round_robin_bot_units_are_deals(tmp_path):
    """A bot meets two others on each deal of a round robin: its unit is the deal (both
    encounters), a pair's the deal of its encounter."""
    config = MatchConfig(
        bots=("greedy", "random", "heaviest"), format="round-robin", games=4, seed=1
    )
    summary = run_match(config, tmp_path / "rr.jsonl", jobs=1)
    assert [b["units"] for b in summary["bots"]] == [2, 2, 2]
    assert [p["units"] for p in summary["pairs"]] == [2, 2, 2]


def _tolerance(p: float, n: int) -> float:
    """Three standard errors of a proportion ``p`` measured over ``n`` trials."""
    return 3 * math.sqrt(p * (1 - p) / n)


def test_identical_bots_interval_covers_zero_elo():
    """Fast version, 8 seats: 20 matches of 8 deals; the interval covers 0 Elo in at
    least 17 (the t interval is 95%: 17 or more in 98% of such runs)."""
    assert covered(8, 20, 8) >= 17


@pytest.mark.slow
@pytest.mark.parametrize("players, matches", [(2, 100), (3, 100), (5, 60), (8, 200)])
def test_identical_bots_interval_covers_zero_elo_slow(players, matches):
    """Matches of 10 deals: coverage within three binomial standard errors of 95%, the
    t interval's nominal level (the normal one, 1.96 with the population variance,
    covered 88% at 8 seats: 176/200, below this test's 90.4%)."""
    coverage = covered(players, matches, 10, seed=1) / matches
    assert abs(coverage - 0.95) <= _tolerance(0.95, matches), coverage


# ---------------------------------------------------------------------------------------
# Secret deals by default


def _hands(journal: str) -> list[list[str]]:
    """The first round's hands of each game of a journal, dealt again from its seed."""
    out = []
    for r in sorted(read_journal(journal).records, key=lambda rec: rec["id"]):
        rnd = bones.new_game(r["variant"], r["players"], r["seed"], **r["options"]).round
        out.append([" ".join(map(str, rnd.hand(seat))) for seat in range(r["players"])])
    return out


def test_unseeded_matches_deal_different_hands_and_resume_the_same(tmp_path, capsys):
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    seeds = []
    for path in (a, b):
        code, out, err = run(
            capsys, "match", "greedy", "random", "--games", "4", "--journal", path,
            "--jobs", "1", "--json",
        )  # fmt: skip
        assert code == 0, err
        seeds.append(json.loads(out)["config"]["seed"])
    assert seeds[0] != seeds[1]
    assert _hands(a) != _hands(b)
    before = _by_id(a)
    # --resume with more games continues with the journal's seed: the same deals
    code, out, err = run(
        capsys, "match", "--resume", "--journal", a, "--games", "8", "--jobs", "1", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["config"]["seed"] == seeds[0]
    after = _by_id(a)
    assert len(after) == 8 and {g: after[g] for g in before} == before
    # the printed seed deals the match again (without --sandbox: the seed alone)
    replay = tmp_path / "c.jsonl"
    run_match(MatchConfig(bots=("greedy", "random"), games=8, seed=seeds[0]), replay, jobs=1)
    assert _by_id(str(replay)) == after


def _by_id(journal: str) -> dict[int, int]:
    return {r["id"]: r["seed"] for r in read_journal(journal).records}


def test_resume_without_seed_or_journal_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "match", "greedy", "random", "--resume")
    assert code == 2 and out == ""
    assert "--resume of a match without --seed needs --journal PATH" in err


@pytest.mark.parametrize(
    "text",
    [
        b'garbage\n{"x":1}\n',
        b'{"type":"match","config":{"seed":"x"}}\n',
        b"\xff\xfe\x00" * 40 + b"\n{}\n",
        b"",
    ],
)
def test_unseeded_match_on_a_bad_journal_loses_nothing(tmp_path, capsys, text):
    """Without --seed the seed of an existing --journal is taken; a file that is not a
    journal gives no seed, and the runner refuses it as before, leaving it as it was."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(text)
    code, out, err = run(capsys, "match", "greedy", "random", "--games", "2", "--journal",
                         str(path), "--jobs", "1")  # fmt: skip
    if text:
        assert code == 2 and out == "" and err.startswith("bones: error: "), err
        assert path.read_bytes() == text
    else:  # an empty file is a new journal
        assert code == 0, err


def test_sandbox_deals_depend_on_the_secret():
    """Under --sandbox a deal is a keyed hash of the seed: seed S deals other hands than
    the unsandboxed seed S, the same with the same secret, others with another."""
    config = MatchConfig(bots=("greedy", "random"), games=6, seed=7, secret=SECRET)
    plain = plan(config)
    boxed = replace(plain, config=replace(config, sandbox=True))
    other = replace(plain, config=replace(config, sandbox=True, secret="cd" * 32))
    seeds = [[p.game_seed(g) for g in range(6)] for p in (plain, boxed, other)]
    assert seeds[0] == [deal_seed(7, g // 2) for g in range(6)]  # benchmarks: as before
    assert seeds[1] == [deal_seed(7, g // 2, SECRET) for g in range(6)]
    assert len({tuple(s) for s in seeds}) == 3
    assert boxed.task(3)["seed"] == seeds[1][3] and seeds[1][2] == seeds[1][3]
    # the workers get a plan without the secret: the runner sends them the deals
    with pytest.raises(ValueError, match="cannot make the deals"):
        boxed.public().task(0, boxed.bot_seeds(0))
    task = boxed.public().task(0, boxed.bot_seeds(0), boxed.game_seed(0))
    assert task == boxed.task(0)


@pytest.mark.slow
def test_sandboxed_match_deals_from_the_secret(tmp_path):
    """A real --sandbox match (bubblewrap) with --seed S: other hands than without the
    sandbox, and its journal (which keeps the secret) replays them."""
    pytest.importorskip("bones.protocol.sandbox")
    from bones.protocol.sandbox import SandboxError, check

    config = MatchConfig(bots=("greedy", "random"), games=2, seed=5, secret=SECRET)
    try:
        check(replace(config, sandbox=True).sandbox_policy())
    except SandboxError as exc:
        pytest.skip(f"no sandbox here: {exc}")
    run_match(config, tmp_path / "plain.jsonl", jobs=1)
    summary = run_match(replace(config, sandbox=True), tmp_path / "box.jsonl", jobs=1)
    assert "seed 5 (deals keyed with the journal's secret: --sandbox)" in format_table(summary)
    plain, boxed = _hands(str(tmp_path / "plain.jsonl")), _hands(str(tmp_path / "box.jsonl"))
    assert plain != boxed
    seeds = {r["seed"] for r in read_journal(tmp_path / "box.jsonl").records}
    assert seeds == {deal_seed(5, 0, SECRET)}


# ---------------------------------------------------------------------------------------
# The play order and the fairness monitor


def test_play_order_shuffles_each_block_and_is_reproducible():
    order = PlayOrder(2, SECRET)
    games = list(order.games(40))
    assert sorted(games) == list(range(40)) and games != list(range(40))
    block = 2 * ORDER_BLOCK
    for start in range(0, 40, block):  # a block's games stay in the block
        assert sorted(games[start : start + block]) == list(range(start, start + block))
    assert list(PlayOrder(2, SECRET).games(40)) == games
    assert list(PlayOrder(2, "cd" * 32).games(40)) != games
    assert list(order.games(44))[:40] == games  # more games on resume: the same order
    assert [order.rank(g) for g in games] == list(range(40))
    firsts = {min(range(2), key=lambda i, d=d: order.rank(2 * d + i)) for d in range(20)}
    assert firsts == {0, 1}  # either seating of a deal may come first


def test_old_journal_order_has_no_monitor():
    config = MatchConfig(bots=("greedy", "random"), games=4, seed=1, order="id")
    assert list(plan(config).order()) == [0, 1, 2, 3]
    old = {"bots": ["a", "b"], "variant": "straight", "players": 2, "games": 4}
    assert MatchConfig.from_dict(old).order == "id"  # a journal from before the shuffle
    with pytest.raises(MatchError, match="config 'order' must be one of shuffled, id"):
        MatchConfig.from_dict({**old, "order": "backwards"})
    for bad in (5, None, ["id"], True):
        with pytest.raises(MatchError, match="config 'order' has the wrong type"):
            MatchConfig.from_dict({**old, "order": bad})


def test_sign_test():
    assert sign_test(0, 0) == 1.0 and sign_test(1, 0) == 0.5
    assert sign_test(10, 2) == pytest.approx(79 / 4096)
    assert sign_test(5, 5) == pytest.approx(638 / 1024)
    with pytest.raises(ValueError):
        sign_test(-1, 2)


def test_honest_three_seat_match_is_not_flagged_for_a_skewed_deal():
    """A deal of six seatings in which only one is good for a bot: its first game is
    mostly below its mean, but its last minus its first is as often positive as
    negative.  Over many shuffled orders of 60 such deals the monitor flags at most its
    rate (a mean-of-later-games test flagged every one)."""
    flagged = 0
    for key in range(100):  # the order's key: without a secret, the seed
        config = {"bots": ["a", "b"], "players": 3, "seed": key, "order": "shuffled"}
        summary = Summary(config, total=360)
        for gid in range(360):
            good = gid % 6 == 0  # seating 0: bot 0 wins; else bot 1
            summary.add({"id": gid, "group": gid // 6, "sides": [[0], [1], [2]],
                         "seat_bots": [0, 1, 1] if good else [0, 0, 1],
                         "ranks": [2, 0, 0] if good else [0, 0, 2]})  # fmt: skip
        flagged += bool(summary.result()["fairness"]["flagged"])
    assert flagged <= 4


def test_the_monitor_flags_a_deal_remembering_bot(tmp_path, capsys):
    """40 deals of 3-player straight (six seatings each): the bot that plays well on a
    hand it has held before is flagged, in the table, --json and the journal's report."""
    import memory_plugin

    memory_plugin.SEEN.clear()
    journal = str(tmp_path / "cheat.jsonl")
    code, out, err = run(
        capsys, "match", "t-memory", "random", "--plugin", "memory_plugin", "--games", "240",
        "--players", "3", "--seed", "2", "--secret", SECRET, "--journal", journal, "--jobs", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "t-memory" in out and "FLAGGED" in out
    line = next(x for x in out.splitlines() if x.startswith("Fairness"))
    assert "t-memory" in line.split("FLAGGED")[0] and line.count("FLAGGED") == 1
    code, out, err = run(
        capsys, "match", "--resume", "--journal", journal, "--plugin", "memory_plugin", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["fairness"]["flagged"] == ["t-memory"]
    fair = data["bots"][0]["fairness"]
    assert fair["p"] < FAIRNESS_ALPHA and fair["later_better"] > fair["later_worse"]


def test_honest_bots_are_seldom_flagged():
    """Fast version: 30 matches; at most 3 flagged (expected at most 0.6)."""
    assert false_alarms(("greedy", "random"), 30, seed=2) <= 3


@pytest.mark.slow
@pytest.mark.parametrize(
    "bots, players, seed",
    [(("greedy", "random"), 2, 3), (("random", "random"), 2, 4), (("greedy", "random"), 3, 5)],
)
def test_honest_bots_false_alarm_rate(bots, players, seed):
    """200 matches: the monitor flags at most its stated rate, 1% per bot (2% a match of
    two bots), plus three binomial standard errors."""
    flagged = false_alarms(bots, 200, seed=seed, players=players)
    assert flagged / 200 <= 2 * FAIRNESS_ALPHA + _tolerance(2 * FAIRNESS_ALPHA, 200), flagged


def test_the_monitor_compares_the_last_game_with_the_first():
    """A bot that scores better in its last game of each deal than its first is
    flagged; the reverse is not; the order, not the game ids, decides which is first."""
    config = MatchConfig(bots=("greedy", "random"), games=40, seed=3, secret=SECRET)
    p = plan(config)
    order = PlayOrder(p.schedule.per_deal, SECRET)
    summary = Summary(config.to_dict(), total=40, labels=p.labels)
    rng = random.Random(0)
    for gid in range(40):
        deal = gid // 2
        later = order.rank(gid) > order.rank(2 * deal + (1 - gid % 2))
        seat_bots = p.task(gid)["seat_bots"]
        win = 0 if later or rng.random() < 0.2 else 1  # bot 0 wins its later games
        ranks = [2, 0] if seat_bots[0] == win else [0, 2]
        summary.add({"id": gid, "group": deal, "sides": [[0], [1]], "seat_bots": seat_bots,
                     "ranks": ranks})  # fmt: skip
    result = summary.result()
    assert result["fairness"]["flagged"] == ["greedy"]
    assert result["bots"][1]["fairness"]["p"] > 0.5


def test_a_pool_that_breaks_before_it_takes_a_batch_is_mended(tmp_path, monkeypatch):
    """A worker can die (a bot's os._exit) while the runner is still sending batches:
    the pool refuses the next one.  Its games are sent again to a new pool, none lost."""
    import concurrent.futures as cf

    from bones.match import runner

    refusals = []

    class Refusing(runner.Pool):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            submit = self.executor.submit

            def once(*a, **k):
                if not refusals:
                    refusals.append(1)
                    raise cf.process.BrokenProcessPool("a worker died")
                return submit(*a, **k)

            self.executor.submit = once

    monkeypatch.setattr(runner, "Pool", Refusing)
    config = MatchConfig(bots=("greedy", "random"), games=8, seed=1, secret=SECRET)
    summary = run_match(config, tmp_path / "j.jsonl", jobs=1)
    assert refusals == [1] and summary["counted"] == 8
    assert sorted(r["id"] for r in read_journal(tmp_path / "j.jsonl").records) == list(range(8))
