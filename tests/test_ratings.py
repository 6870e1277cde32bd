"""``bones ratings``: the Bradley-Terry fit, its bootstrap intervals, anchors, priors and
the pairwise results of games of more than two sides (bones.match.ratings)."""

from __future__ import annotations

import json
import math
import random

import pytest

from bones.cli import main
from bones.match.ratings import RatingError, fit, format_ratings, rate_journals
from bones.match.stats import (
    elo_from_score,
    pentanomial_counts,
    pentanomial_estimate,
    trinomial_estimate,
)


def write_journal(path, bots, games, *, players=2, duplicate=True, fmt="head-to-head"):
    """A journal of made-up results: ``games`` is a list of ``(group, side_bots, ranks)``
    (one seat a side).  Unsigned (no secret): the reader counts such records."""
    config = {
        "bots": list(bots),
        "variant": "straight",
        "players": players,
        "options": {},
        "format": fmt,
        "games": len(games),
        "seed": 0,
        "duplicate": duplicate,
        "timeout": 10.0,
        "sprt": None,
        "plugins": [],
        "secret": None,
    }
    lines = [{"type": "match", "version": 1, "config": config}]
    for gid, (group, side_bots, ranks) in enumerate(games):
        n = len(side_bots)
        winners = [s for s in range(n) if ranks[s] == 2]
        losers = [s for s in range(n) if ranks[s] == 0]
        lines.append(
            {
                "type": "game", "id": gid, "group": group, "deal": group, "encounter": 0,
                "seating": gid % 2, "variant": "straight", "players": players, "options": {},
                "seed": 1000 + group, "seats": [bots[b] for b in side_bots],
                "seat_bots": list(side_bots), "bot_seeds": [0] * n,
                "sides": [[s] for s in range(n)], "rounds": [], "scores": None,
                "winners": winners, "losers": losers, "forfeit": None, "ranks": list(ranks),
                "seconds": None, "longest_move": [],
            }
        )  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def two_bot_games(results):
    """Games of bots 0 and 1 from ``results``: one score of bot 0 per game (1, 1/2, 0),
    two games a deal pair with the seats swapped."""
    games = []
    for gid, s in enumerate(results):
        ranks = [2, 0] if s == 1 else [0, 2] if s == 0 else [1, 1]
        sides = (0, 1) if gid % 2 == 0 else (1, 0)
        games.append((gid // 2, sides, ranks if gid % 2 == 0 else ranks[::-1]))
    return games


def test_fit_known_cases():
    # 75% / 25%: 400 log10(3) = 190.85 Elo apart, mean 0
    elo = fit(2, {(0, 1): (75.0, 100.0)})
    assert elo is not None
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert elo[0] + elo[1] == pytest.approx(0.0, abs=1e-9)
    # transitive odds 3 and 3 give 9 (90%): three bots 190.85 apart each
    elo = fit(3, {(0, 1): (75.0, 100.0), (1, 2): (75.0, 100.0), (0, 2): (90.0, 100.0)})
    assert elo is not None
    assert elo[0] - elo[1] == pytest.approx(190.849, abs=1e-3)
    assert elo[1] - elo[2] == pytest.approx(190.849, abs=1e-3)
    # no maximum: a bot that won everything, or bots that never met
    assert fit(2, {(0, 1): (10.0, 10.0)}) is None
    assert fit(3, {(0, 1): (5.0, 10.0)}) is None


def test_fit_agrees_with_scipy():
    optimize = pytest.importorskip("scipy.optimize")
    rng = random.Random(5)
    k = 5
    truth = [rng.uniform(-300, 300) for _ in range(k)]
    results = {}
    for i in range(k):
        for j in range(i + 1, k):
            n = rng.randint(5, 40)
            p = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400))
            points = sum(rng.choice((1.0, 0.5, 0.0)) if rng.random() < 0.2 else
                         float(rng.random() < p) for _ in range(n))  # fmt: skip
            results[(i, j)] = (points, float(n))
    elo = fit(k, results)
    assert elo is not None

    def nll(r):
        total = 0.0
        for (i, j), (w, n) in results.items():
            d = (r[i] - r[j]) * math.log(10) / 400
            total -= w * -math.log1p(math.exp(-d)) + (n - w) * -math.log1p(math.exp(d))
        return total

    best = optimize.minimize(nll, [0.0] * k, method="BFGS", options={"gtol": 1e-10})
    centred = [x - sum(best.x) / k for x in best.x]
    assert elo == pytest.approx(centred, abs=0.05)


def test_two_bots_table_json_and_anchor(tmp_path, capsys):
    # 30 deal pairs: bot 0 scores 75% -> +190.85 apart
    results = [1, 1, 1, 0] * 15
    path = write_journal(tmp_path / "a.jsonl", ["greedy", "random"], two_bot_games(results))
    r = rate_journals([path], bootstrap=300)
    top, bottom = r.bots
    assert top["bot"] == "greedy" and top["rank"] == 1 and top["games"] == 60
    assert top["score"] == pytest.approx(0.75) and bottom["score"] == pytest.approx(0.25)
    assert top["elo"] - bottom["elo"] == pytest.approx(190.849, abs=1e-3)
    assert top["elo"] == pytest.approx(95.42, abs=0.01)
    assert top["elo_lo"] < top["elo"] < top["elo_hi"]
    assert r.units == 30 and r.unit == "deal"
    code = main(["ratings", path, "--anchor", "random=1000", "--json", "--bootstrap", "200"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    by = {b["bot"]: b for b in data["bots"]}
    assert by["random"]["elo"] == 1000 and by["random"]["elo_lo"] == by["random"]["elo_hi"] == 1000
    assert by["greedy"]["elo"] == pytest.approx(1190.85, abs=0.01)
    assert data["anchor"] == {"bot": "random", "elo": 1000.0}
    assert data["interval"]["resamples"] == 200
    code = main(["ratings", path, "--bootstrap", "100"])
    out, _ = capsys.readouterr()
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["Rank", "Bot", "Elo", "95%", "interval", "Games", "Score"]
    assert lines[1].split()[:3] == ["1", "greedy", "+95.4"] and lines[1].endswith("75.0%")
    assert "anchor: mean 0" in out and "bootstrap of 30 units (deals)" in out


def test_interval_matches_the_pentanomial_one(tmp_path):
    """Deal pairs in which the deal often decides (the seat it favours wins both games,
    so each bot wins one): the bootstrap over pairs is about the pentanomial interval of
    stats.py, and narrower than the trinomial one (games taken as independent)."""
    rng = random.Random(1)
    results = []
    for _ in range(400):
        if rng.random() < 0.6:  # the deal favours a seat: each bot wins once
            results += [1, 0] if rng.random() < 0.5 else [0, 1]
        else:  # the better bot wins both
            results += [1, 1] if rng.random() < 0.62 else [0, 0]
    path = write_journal(tmp_path / "p.jsonl", ["a", "b"], two_bot_games(results))
    r = rate_journals([path], bootstrap=1000, seed=3)
    a = next(b for b in r.bots if b["bot"] == "a")
    b = next(b for b in r.bots if b["bot"] == "b")
    pairs = [(results[i] + results[i + 1]) for i in range(0, len(results), 2)]
    est = pentanomial_estimate(pentanomial_counts(pairs))
    width = (a["elo_hi"] - a["elo_lo"]) * 2  # a's rating is half the difference
    assert a["elo"] - b["elo"] == pytest.approx(est.elo, abs=1e-6)
    assert width == pytest.approx(est.elo_hi - est.elo_lo, rel=0.15)
    wins = sum(results)
    games = trinomial_estimate(wins, 0, len(results) - wins)
    assert width < 0.9 * (games.elo_hi - games.elo_lo)


def test_interval_covers_the_truth(tmp_path):
    """Simulated matches of two bots 100 Elo apart, with the luck of the deal shared by
    the two games of a pair: the 95% interval covers the true rating about 95% of the
    time."""
    rng = random.Random(11)
    luck = 150.0
    true_score = (1 / (1 + 10 ** (-(100 + luck) / 400)) + 1 / (1 + 10 ** (-(100 - luck) / 400))) / 2
    truth = elo_from_score(true_score) / 2  # bot 0's rating, mean 0
    covered = 0
    runs = 60
    for run in range(runs):
        results = []
        for _ in range(100):
            sign = 1 if rng.random() < 0.5 else -1  # the deal favours seat 0 or seat 1
            for seat in (0, 1):
                edge = 100 + (luck if (seat == 0) == (sign == 1) else -luck)
                p = 1 / (1 + 10 ** (-edge / 400))
                results.append(1 if rng.random() < p else 0)
        path = write_journal(tmp_path / f"s{run}.jsonl", ["x", "y"], two_bot_games(results))
        r = rate_journals([path], bootstrap=200, seed=run)
        x = next(b for b in r.bots if b["bot"] == "x")
        covered += x["elo_lo"] <= truth <= x["elo_hi"]
    assert covered >= 0.85 * runs, covered


def test_many_journals_and_multiplayer_pairs(tmp_path):
    # a three-sided game is three pairwise results: 0 beats 1 and 2, 1 and 2 draw
    games = [(g, (0, 1, 2), (2, 1, 1) if g % 2 else (1, 2, 1)) for g in range(4)]
    games += [(4, (2, 1, 0), (2, 0, 0)), (5, (1, 2, 0), (2, 0, 1))]
    three = write_journal(tmp_path / "three.jsonl", ["a", "b", "c"], games, players=3,
                          duplicate=False)  # fmt: skip
    two = write_journal(tmp_path / "two.jsonl", ["a", "c"], two_bot_games([1, 0, 1, 1]))
    # journals of different player counts: refused unless pooled, and the list says so
    with pytest.raises(RatingError, match=r"different games \(straight, 3 players: .*three"
                       r".jsonl; straight, 2 players: .*two.jsonl\).*--pool"):  # fmt: skip
        rate_journals([three, two], bootstrap=0)
    r = rate_journals([three, two], bootstrap=0, pool=True)
    assert r.notes == [f"pooled (--pool) into one list: straight, 3 players: {three}; "
                       f"straight, 2 players: {two}"]  # fmt: skip
    assert f"Note: pooled (--pool) into one list: straight, 3 players: {three}" in format_ratings(r)
    by = {b["bot"]: b for b in r.bots}
    assert set(by) == {"a", "b", "c"}
    assert by["a"]["games"] == 10 and by["b"]["games"] == 6 and by["c"]["games"] == 10
    assert r.games == 10 and r.unit == "deal" and r.units == 6 + 2
    # the fit equals fit() of the pairwise results counted by hand
    # three.jsonl: games 0,2 (a,b,c ranks 1,2,1): b>a, b>c, a=c; games 1,3 (2,1,1):
    # a>b, a>c, b=c; game 4 (c,b,a ranks 2,0,0): c>b, c>a, a=b; game 5 (b,c,a: 2,0,1):
    # b>c, b>a, a>c.  two.jsonl: a scores 3 of 4 against c.
    ab = (2 * 0 + 2 * 1 + 0.5 + 0, 6.0)
    ac = (2 * 0.5 + 2 * 1 + 0 + 1, 6.0)
    bc = (2 * 1 + 2 * 0.5 + 0 + 1, 6.0)
    ac = (ac[0] + 3.0, ac[1] + 4.0)
    elo = fit(3, {(0, 1): ab, (0, 2): ac, (1, 2): bc})
    assert elo is not None
    assert [by[n]["elo"] for n in "abc"] == pytest.approx(elo, abs=1e-6)
    assert math.isnan(by["a"]["elo_lo"])  # --bootstrap 0: no intervals
    assert "[-, -]" in format_ratings(r)


def test_errors(tmp_path, capsys):
    path = write_journal(tmp_path / "w.jsonl", ["greedy", "random"], two_bot_games([1, 1, 1, 1]))
    with pytest.raises(RatingError, match=r"won every result: greedy.*--prior"):
        rate_journals([path])
    r = rate_journals([path], prior=2, bootstrap=50)
    assert r.bots[0]["bot"] == "greedy" and math.isfinite(r.bots[0]["elo"])
    assert "Prior: 2 virtual draws" in format_ratings(r)
    with pytest.raises(RatingError, match="given twice"):
        rate_journals([path, str(tmp_path / "." / "w.jsonl")])
    other = write_journal(tmp_path / "o.jsonl", ["x", "y"], two_bot_games([1, 0]))
    with pytest.raises(RatingError, match="never met the others"):
        rate_journals([path, other], prior=1)
    draw = write_journal(tmp_path / "d.jsonl", ["greedy", "random"], two_bot_games([0.5, 1]))
    text = (tmp_path / "d.jsonl").read_text().replace('"variant": "straight"', '"variant": "draw"')
    (tmp_path / "d.jsonl").write_text(text)
    assert main(["ratings", path, draw, "--pool", "--bootstrap", "0"]) == 0
    assert f"Note: pooled (--pool) into one list: straight, 2 players: {path}; draw, 2 players: " \
        f"{draw}" in capsys.readouterr().out  # fmt: skip
    for argv, message in [
        (["ratings", path, "--prior", "1", "--anchor", "nobody=3"], "--anchor nobody: no such bot"),
        (["ratings", path, "--anchor", "greedy"], "--anchor takes BOT=ELO"),
        (["ratings", path, "--anchor", "greedy=x"], "--anchor takes BOT=ELO"),
        (["ratings", str(tmp_path / "missing.jsonl")], "missing.jsonl: no such file"),
        (["ratings", path, draw], "different games (straight, 2 players: "),
    ]:
        assert main(argv) == 2
        _, err = capsys.readouterr()
        assert message in err, err


def test_identity_changes_make_another_bot(tmp_path):
    def with_identity(path, versions):
        text = path.read_text().splitlines()
        head = json.loads(text[0])
        head["bots"] = [
            {"bot": b, "version": v} for b, v in zip(["greedy", "random"], versions, strict=True)
        ]
        text[0] = json.dumps(head)
        path.write_text("\n".join(text) + "\n")
        return str(path)

    one = write_journal(tmp_path / "1.jsonl", ["greedy", "random"], two_bot_games([1, 0, 1, 1]))
    two = write_journal(tmp_path / "2.jsonl", ["greedy", "random"], two_bot_games([1, 0, 0, 1]))
    r = rate_journals([one, two], bootstrap=0)  # no identities kept: the same bots
    assert sorted(b["bot"] for b in r.bots) == ["greedy", "random"] and not r.notes
    with_identity(tmp_path / "1.jsonl", ["1", "1"])
    with_identity(tmp_path / "2.jsonl", ["2", "1"])
    r = rate_journals([one, two], bootstrap=0)
    assert sorted(b["bot"] for b in r.bots) == ["greedy", "greedy#2", "random"]
    assert (
        r.notes
        and "greedy#2: the bot greedy of another journal has another identity" in (r.notes[0])
    )


def test_real_match_journals(tmp_path, capsys):
    a = str(tmp_path / "a.jsonl")
    b = str(tmp_path / "b.jsonl")
    for path, bots in ((a, ["greedy", "random"]), (b, ["greedy", "heaviest"])):
        code = main(["match", *bots, "--games", "16", "--journal", path, "--jobs", "1",
                     "--seed", "0", "--secret", "5e" * 32])  # fmt: skip
        assert code == 0
    capsys.readouterr()
    code = main(["ratings", a, b, "--prior", "1", "--bootstrap", "100", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert {x["bot"] for x in data["bots"]} == {"greedy", "random", "heaviest"}
    # both matches have seed 0: the same 8 deals, each a unit with the games of both
    assert data["games"] == 32 and data["units"] == 8
    assert [x["rank"] for x in data["bots"]] == [1, 2, 3]


@pytest.mark.parametrize("n, p", [(1, 0.3), (7, 0.3), (60, 0.1), (2000, 0.35), (50_000, 0.8)])
def test_binomial_sampler(n, p):
    """The resampling's binomial variates have the binomial's mean and variance."""
    from bones.match.ratings import _binomial, _multinomial

    rng = random.Random(n)
    draws = [_binomial(rng, n, p) for _ in range(20_000)]
    assert all(0 <= x <= n for x in draws)
    mean = sum(draws) / len(draws)
    var = sum((x - mean) ** 2 for x in draws) / len(draws)
    sd = math.sqrt(n * p * (1 - p))
    assert abs(mean - n * p) < 5 * sd / math.sqrt(len(draws))
    assert var == pytest.approx(n * p * (1 - p), rel=0.06)
    counts = _multinomial(rng, n, [3, 0, 5, 2])
    assert sum(counts.values()) == n and 1 not in counts


def test_thin_samples_get_unbounded_intervals(tmp_path, capsys):
    """Three deal pairs, one game lost: many resamples have the winner win everything
    (no finite ratings), so the bounds are infinite, never falsely tight."""
    path = write_journal(tmp_path / "t.jsonl", ["a", "b"], two_bot_games([1, 1, 1, 0, 1, 1]))
    r = rate_journals([path], bootstrap=200)
    assert r.degenerate > 20  # (2/3)**3 of the resamples miss the lost game
    a = r.bots[0]
    assert a["bot"] == "a" and math.isfinite(a["elo"])
    assert a["elo_lo"] == -math.inf and a["elo_hi"] == math.inf
    assert "[-inf, +inf]" in format_ratings(r) and "without finite ratings" in format_ratings(r)
    assert main(["ratings", path, "--json", "--bootstrap", "50"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bots"][0]["elo_lo"] is None and data["bots"][0]["elo_hi"] is None
    assert data["interval"]["degenerate"] > 0


def test_every_unit_alike_has_no_interval(tmp_path, capsys):
    """Every deal pair split 1-1 (the deal's favoured seat won both games): every
    resample is the sample, so a bootstrap interval would have zero width; it is not
    available instead, and says why."""
    path = write_journal(tmp_path / "a.jsonl", ["a", "b"], two_bot_games([1, 0] * 5))
    r = rate_journals([path], bootstrap=100)
    assert r.alike and r.units == 5
    for b in r.bots:
        assert b["elo"] == pytest.approx(0.0, abs=1e-9)
        assert math.isnan(b["elo_lo"]) and math.isnan(b["elo_hi"])
    assert "every one of the 5 units, deals, gave the same results" in format_ratings(r)
    assert main(["ratings", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["interval"]["alike"] is True
    assert all(b["elo_lo"] is None and b["elo_hi"] is None for b in data["bots"])
    # one different pair gives a spread again
    mixed = write_journal(tmp_path / "m.jsonl", ["a", "b"], two_bot_games([1, 0] * 5 + [1, 1]))
    r = rate_journals([mixed], bootstrap=100)
    assert not r.alike and r.bots[0]["elo_lo"] < r.bots[0]["elo_hi"]
