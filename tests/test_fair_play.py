"""Fair play (issue 6): a bot's seed reveals nothing about the deal.

A bot whose spec names no seed gets a seed made from the game seed and its seat with a
keyed hash (BLAKE2b) whose key is the match's secret, drawn from the OS for each match and
kept in the journal header (so ``--resume`` and replays stay exact).  The cheating plugin
``cheat_plugin`` inverts the old, unkeyed derivation (splitmix64 is invertible) and
recognises the deal from its hand; with keyed seeds it never does.
"""

from __future__ import annotations

import json

from cheat_plugin import game_seeds

from bones.game import splitmix64
from bones.match import MatchConfig, format_table, read_journal, run_match
from bones.match.runner import bot_seed, deal_seed, plan

PLUGIN = ("cheat_plugin",)


def test_the_cheat_works_on_unkeyed_seeds():
    """The attack is real: the old seed (no secret) gives the game seed back."""
    for deal in range(20):
        seed = deal_seed(0, deal)
        for seat in range(4):
            assert seed in game_seeds(bot_seed(seed, seat), seat)
    x = 0x0123456789ABCDEF
    from cheat_plugin import unsplitmix64

    assert unsplitmix64(splitmix64(x)) == x


def test_a_bot_cannot_recover_the_deal_from_its_seed(tmp_path):
    for variant, players in [("straight", 2), ("kozel", 4), ("draw", 3)]:
        path = tmp_path / f"{variant}{players}.jsonl"
        c = MatchConfig(
            bots=("t-cheat", "random"),
            variant=variant,
            players=players,
            games=12,
            plugins=PLUGIN,
        )
        s = run_match(c, path, jobs=2)
        cheats = [
            r["forfeit"]["detail"]
            for r in read_journal(path).records
            if r["forfeit"] and "cheated" in r["forfeit"]["detail"]
        ]
        assert cheats == [], cheats[:1]
        assert not s["bots"][0]["forfeits"], format_table(s)


def test_the_secret_is_per_match_and_kept_by_the_journal(tmp_path):
    c = MatchConfig(bots=("random", "random:seed=1"), games=6, seed=2)
    run_match(c, tmp_path / "a.jsonl", jobs=1)
    run_match(c, tmp_path / "b.jsonl", jobs=1)
    a, b = read_journal(tmp_path / "a.jsonl"), read_journal(tmp_path / "b.jsonl")
    assert a.config["secret"] != b.config["secret"] and len(a.config["secret"]) == 64
    # the same deals, other bot seeds
    assert [r["seed"] for r in a.records] == [r["seed"] for r in b.records]
    assert a.records[0]["bot_seeds"] != b.records[0]["bot_seeds"]
    # a seat's seed depends on the deal and the seat only (identical bots: 50%)
    assert a.records[0]["bot_seeds"] == a.records[1]["bot_seeds"]
    # resumed (here: the same command again, with more games), the journal's secret is used
    more = MatchConfig(bots=("random", "random:seed=1"), games=10, seed=2)
    run_match(more, tmp_path / "a.jsonl", jobs=2)
    again = read_journal(tmp_path / "a.jsonl")
    assert again.config["secret"] == a.config["secret"]
    p = plan(MatchConfig.from_dict(again.config))
    for rec in again.records:
        assert rec["bot_seeds"] == p.task(rec["id"])["bot_seeds"]
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines].count("resume") == 1


def test_a_given_secret_replays_the_same_games(tmp_path):
    c = MatchConfig(bots=("random", "random:seed=1"), games=4, seed=2, secret="ab" * 32)
    one = run_match(c, tmp_path / "a.jsonl", jobs=1)
    two = run_match(c, tmp_path / "b.jsonl", jobs=2)
    for s in (one, two):
        s.pop("journal")
    assert one == two
    moves = [
        [r["moves"] for r in rec["rounds"]] for rec in read_journal(tmp_path / "a.jsonl").records
    ]
    assert moves == [
        [r["moves"] for r in rec["rounds"]] for rec in read_journal(tmp_path / "b.jsonl").records
    ]
