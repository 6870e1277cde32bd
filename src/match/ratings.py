"""A rating list over many journals: ``bones ratings JOURNAL...``.

The model is Bradley--Terry (the Elo model with the logistic curve, as ordo and bayeselo
fit it): bot ``i`` has a strength ``p_i = 10**(elo_i / 400)`` and scores against ``j``
``p_i / (p_i + p_j)`` in expectation.  The ratings are the maximum-likelihood ones for the
pairwise results of every game of the journals:

* **Pairwise results.**  Each game is split into pairwise results as the match summary
  scores it (:func:`bones.match.stats.game_scores`): every pair of sides held by two
  different bots is one result -- the better-ranked side scores 1, equal ranks 1/2 each
  (a draw counts as half a win for both).  A two-sided game is one result; a three-sided
  game of three bots is three; sides held by the same bot are not compared.  Aborted and
  void games (no ranks) count for nobody.
* **The fit** is Hunter's MM algorithm ("MM algorithms for generalized Bradley--Terry
  models", 2004): ``p_i <- W_i / sum_j N_ij / (p_i + p_j)`` (``W_i`` the points of ``i``,
  ``N_ij`` the results between ``i`` and ``j``) increases the likelihood at every step and
  converges to its unique maximum whenever one exists, so no optimiser library is needed
  (tests/test_ratings.py checks it against scipy.optimize where scipy is installed).  The
  maximum exists when the bots cannot be split into two groups one of which scored nothing
  against the other; otherwise :class:`RatingError` says which bots and suggests
  ``--prior``: ``D`` virtual draws between every two bots that met (bayeselo's prior).
* **Intervals** (95%) come from a bootstrap over the independent units of the journals:
  their deals (a game's variant, players, options and seed: matches with the same
  ``--seed`` deal the same deals, so a deal may span journals).  A deal's games share its
  luck: in a two-player match its deal pair (the pentanomial unit: the same deal with the
  seats swapped), in a round-robin also the other encounters on that deal, and the games
  of other journals dealt the same.
  Each resample draws as many units as there are, with replacement, refits and takes the
  2.5% and 97.5% points of each bot's rating (ordo's way: simulation).  Keeping a deal's
  games together is what makes the intervals pentanomial-aware: for two bots they agree
  with :func:`bones.match.stats.pentanomial_estimate` (tests/test_ratings.py).  A resample
  in which the maximum does not exist leaves the bounds of every bot unbounded on both
  sides (shown as ``-inf``/``+inf``), so a thin sample never gets a falsely tight interval.
* **The anchor**: ratings are differences; by default their mean is 0, with
  ``anchor=(BOT, ELO)`` that bot is fixed at ``ELO`` (its interval is then a point, the
  others' are relative to it).

Bots are named by their specs; the same spec in several journals is one bot, unless its
identity (plugin version, program or options hash; :mod:`bones.match.identity`) differs,
in which case the later one is listed as ``SPEC#2`` and a note says so.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .journal import JournalError, no_games, open_journal
from .stats import game_scores

__all__ = ["RatingError", "Ratings", "fit", "rate_journals", "format_ratings"]


class RatingError(JournalError):
    """Journals that give no rating list (one line saying why); exit status 2."""


#: Elo per natural-log unit of strength.
_ELO = 400.0 / math.log(10.0)


def fit(
    k: int, results: Mapping[tuple[int, int], tuple[float, float]], start: Sequence[float] = ()
) -> list[float] | None:
    """Maximum-likelihood Bradley--Terry ratings (Elo, mean 0) of ``k`` bots from
    ``results``: ``{(i, j): (points of i against j, number of results)}`` with ``i < j``.
    ``None`` when the maximum does not exist (a group of bots scored nothing against the
    others, or the bots did not all meet, directly or through others).  ``start``: ratings
    to start from (a resample starts from the whole sample's)."""
    if not _connected(k, results):
        return None
    wins = [0.0] * k
    pairs: list[tuple[int, int, float]] = []
    for (i, j), (points, n) in results.items():
        if n <= 0:
            continue
        wins[i] += points
        wins[j] += n - points
        pairs.append((i, j, n))
    p = [10.0 ** (e / 400.0) for e in start] if len(start) == k else [1.0] * k
    for _ in range(100_000):
        denom = [0.0] * k
        for i, j, n in pairs:
            d = n / (p[i] + p[j])
            denom[i] += d
            denom[j] += d
        new = [wins[i] / denom[i] for i in range(k)]
        mean = math.fsum(math.log(x) for x in new) / k  # keep the geometric mean at 1
        new = [x / math.exp(mean) for x in new]
        change = max(abs(math.log(a / b)) for a, b in zip(new, p, strict=True))
        p = new
        if change < 1e-12:
            break
    return [_ELO * math.log(x) for x in p]


def _connected(k: int, results: Mapping[tuple[int, int], tuple[float, float]]) -> bool:
    """Whether the graph "i scored some points against j" is strongly connected: the
    condition for a finite maximum (Zermelo, Ford)."""
    if k <= 1:
        return k == 1
    beats: list[set[int]] = [set() for _ in range(k)]
    for (i, j), (points, n) in results.items():
        if points > 0:
            beats[i].add(j)
        if n - points > 0:
            beats[j].add(i)
    lost: list[set[int]] = [set() for _ in range(k)]
    for i in range(k):
        for j in beats[i]:
            lost[j].add(i)
    return _reaches_all(beats, k) and _reaches_all(lost, k)


def _reaches_all(graph: Sequence[set[int]], k: int) -> bool:
    seen = {0}
    todo = [0]
    while todo:
        for j in graph[todo.pop()]:
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == k


@dataclass
class Ratings:
    """A rating list: per bot (in rank order) its rating, 95% interval, games and score."""

    bots: list[dict[str, Any]]
    journals: list[str]
    games: int
    units: int
    unit: str
    anchor: tuple[str, float] | None
    bootstrap: int
    seed: int
    prior: float
    degenerate: int = 0
    alike: bool = False  # every unit gave the same results: no spread to resample
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": "bradley-terry (logistic Elo), maximum likelihood; draws half a win",
            "journals": self.journals,
            "games": self.games,
            "units": self.units,
            "unit": self.unit,
            "anchor": None
            if self.anchor is None
            else {"bot": self.anchor[0], "elo": self.anchor[1]},
            "interval": {
                "level": 0.95,
                "method": "bootstrap over units",
                "resamples": self.bootstrap,
                "seed": self.seed,
                "degenerate": self.degenerate,
                "alike": self.alike,
            },
            "prior": self.prior,
            "bots": [{k: _finite(v) for k, v in b.items()} for b in self.bots],
            "notes": self.notes,
            "warnings": self.warnings,
        }


def _finite(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


class _Data:
    """The results of the journals, folded: per unit its pairwise results; per bot its
    games and points."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self.index: dict[str, int] = {}
        self.identity: dict[str, Any] = {}
        self.games: list[int] = []
        self.points: list[float] = []
        self.units: dict[tuple[Any, ...], dict[tuple[int, int], list[float]]] = {}
        self.n_games = 0
        self.unit_kinds: set[str] = set()
        self.kinds: dict[str, list[str]] = {}  # "straight, 2 players" -> its journals
        self.notes: list[str] = []
        self.warnings: list[str] = []

    def bot(self, spec: str, identity: Any) -> int:
        label = spec
        copy = 1
        while label in self.index and _differ(self.identity[label], identity):
            copy += 1
            label = f"{spec}#{copy}"
        if copy > 1 and label not in self.index:
            self.notes.append(
                f"{label}: the bot {spec} of another journal has another identity (plugin "
                "version, program or options): rated as a bot of its own"
            )
        if label not in self.index:
            self.index[label] = len(self.labels)
            self.labels.append(label)
            self.identity[label] = identity
            self.games.append(0)
            self.points.append(0.0)
        return self.index[label]

    def read(self, path: str) -> None:
        reader = open_journal(path)
        try:
            config = reader.config
            assert config is not None  # open_journal: a header or an error
            kind = f"{config.get('variant')}, {config.get('players')} players"
            self.kinds.setdefault(kind, []).append(path)
            specs = list(config.get("bots") or [])
            idents: list[Any] = list(reader.identity) if reader.identity else [None] * len(specs)
            read = 0
            for rec in reader.games(rounds=False):
                self._add(rec, specs, idents)
                read += 1
            if not read:
                raise RatingError(no_games(path))
            self.warnings.extend(reader.warnings)
            self.unit_kinds.add("deal")
        finally:
            reader.close()

    def _add(self, rec: Mapping[str, Any], specs: Sequence[str], idents: Sequence[Any]) -> None:
        ranks = rec.get("ranks")
        if not ranks:
            return
        seat_bots = rec["seat_bots"]
        side_bots = [
            self.bot(specs[seat_bots[s[0]]], idents[seat_bots[s[0]]]) for s in rec["sides"]
        ]
        scores = game_scores(ranks, side_bots)
        if not scores:
            return  # every side held by one bot: nothing to compare
        self.n_games += 1
        for bot, (points, count) in scores.items():
            self.games[bot] += 1
            self.points[bot] += points / count
        # the unit is the deal, wherever it was played: matches with the same seed deal the
        # same deals, so journals of one seed share them
        deal = (rec["variant"], rec["players"], _canonical(rec["options"]), rec["seed"])
        unit = self.units.setdefault(deal, {})
        for i, a in enumerate(side_bots):
            for j in range(i + 1, len(side_bots)):
                b = side_bots[j]
                if a == b:
                    continue
                s = 1.0 if ranks[i] > ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                key, s = ((a, b), s) if a < b else ((b, a), 1.0 - s)
                acc = unit.setdefault(key, [0.0, 0.0])
                acc[0] += s
                acc[1] += 1.0


def _kinds_text(kinds: Mapping[str, Sequence[str]]) -> str:
    return "; ".join(f"{kind}: {', '.join(paths)}" for kind, paths in kinds.items())


def _canonical(options: Any) -> str:
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def _differ(old: Any, new: Any) -> bool:
    """Whether two identities of a spec are two bots (a journal written before bones
    kept identities has none: it is taken to be the same bot)."""
    return old is not None and new is not None and old != new


def _total(
    kinds: Sequence[tuple[tuple[tuple[int, int], float, float], ...]],
    counts: Mapping[int, int],
    prior: float,
    met: Sequence[tuple[int, int]],
) -> dict[tuple[int, int], tuple[float, float]]:
    acc: dict[tuple[int, int], list[float]] = {key: [prior / 2.0, prior] for key in met}
    for kind, times in counts.items():
        for key, points, n in kinds[kind]:
            a = acc.setdefault(key, [0.0, 0.0])
            a[0] += points * times
            a[1] += n * times
    return {key: (a[0], a[1]) for key, a in acc.items()}


def _binomial(rng: random.Random, n: int, p: float) -> int:
    """A binomial variate: ``n`` trials of probability ``p`` (CPython 3.12's
    ``random.binomialvariate``, here for Python 3.10 and 3.11: Devroye's geometric method
    for ``n p < 10``, else Hormann's BTRS, "The generation of binomial random variates",
    1993), in time independent of ``n``."""
    if p <= 0.0 or n <= 0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:
        return n - _binomial(rng, n, 1.0 - p)
    if n * p < 10.0:
        x = y = 0
        c = math.log1p(-p)
        while True:
            y += math.floor(math.log(1.0 - rng.random()) / c) + 1
            if y > n:
                return x
            x += 1
    spq = math.sqrt(n * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = math.log(p / (1.0 - p))
    m = math.floor((n + 1) * p)  # the mode
    h = math.lgamma(m + 1) + math.lgamma(n - m + 1)
    while True:
        u = rng.random() - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        v = rng.random()
        if us >= 0.07 and v <= vr:
            return k
        v *= alpha / (a / (us * us) + b)
        if v > 0 and math.log(v) <= h - math.lgamma(k + 1) - math.lgamma(n - k + 1) + (k - m) * lpq:
            return k


def _multinomial(rng: random.Random, n: int, weights: Sequence[int]) -> dict[int, int]:
    """How many of ``n`` draws with replacement fall on each kind of unit, kind ``i``
    having ``weights[i]`` units: a multinomial variate as a chain of binomials (the time
    grows with the kinds, not with the units: a two-bot match has at most 9 kinds)."""
    left = float(sum(weights))
    counts: dict[int, int] = {}
    for i, w in enumerate(weights):
        if n <= 0:
            break
        x = n if w >= left else _binomial(rng, n, w / left)
        if x:
            counts[i] = x
        n -= x
        left -= w
    return counts


def _quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` (linear interpolation; infinities kept)."""
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    if lo == hi or values[lo] == values[hi]:
        return values[lo]
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def rate_journals(
    paths: Sequence[str],
    *,
    anchor: tuple[str, float] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    prior: float = 0.0,
    pool: bool = False,
) -> Ratings:
    """The rating list of the games of ``paths`` (see the module's doc).  Journals of
    different variants or player counts are refused unless ``pool``: a bot's strength in
    one game says little about another, so one list of both is a choice to make."""
    if not paths:
        raise RatingError("give at least one journal")
    if bootstrap < 0:
        raise RatingError(f"--bootstrap must be >= 0; got {bootstrap}")
    if not prior >= 0 or not math.isfinite(prior):
        raise RatingError(f"--prior must be a number >= 0; got {prior}")
    seen: dict[str, str] = {}
    for path in paths:
        real = os.path.realpath(path)
        if real in seen:
            raise RatingError(f"the journal {path} is given twice (also as {seen[real]})")
        seen[real] = path
    data = _Data()
    for path in paths:
        data.read(path)
    games = _kinds_text(data.kinds)
    if len(data.kinds) > 1:
        if not pool:
            raise RatingError(
                f"the journals are of different games ({games}): rate each game on its own, "
                "or give --pool for one list of them all"
            )
        data.notes.insert(0, f"pooled (--pool) into one list: {games}")
    k = len(data.labels)
    if k < 2 or data.n_games == 0:
        raise RatingError(
            "no game between two different bots in "
            + ", ".join(paths)
            + ": nothing to rate (finished games are needed)"
        )
    kinds_index: dict[tuple[tuple[tuple[int, int], float, float], ...], int] = {}
    unit_kinds: list[int] = []
    for contributions in data.units.values():
        kind = tuple(sorted((key, v[0], v[1]) for key, v in contributions.items()))
        if not kind:
            continue
        unit_kinds.append(kinds_index.setdefault(kind, len(kinds_index)))
    kinds = list(kinds_index)
    multiplicity = Counter(unit_kinds)
    met = sorted({key for kind in kinds for key, _, _ in kind}) if prior else []
    whole = _total(kinds, multiplicity, prior, met)
    elo = fit(k, whole)
    if elo is None:
        raise RatingError(_why_no_maximum(k, whole, data.labels))
    shift = 0.0
    if anchor is not None:
        name, value = anchor
        if name not in data.index:
            raise RatingError(
                f"--anchor {name}: no such bot in the journals; their bots: "
                + ", ".join(data.labels)
            )
        shift = value - elo[data.index[name]]
    alike = len(unit_kinds) >= 2 and len(kinds) == 1
    samples: list[list[float]] = [[] for _ in range(k)]
    degenerate = 0
    rng = random.Random(seed)
    weights = [multiplicity[i] for i in range(len(kinds))]
    for _ in range(bootstrap):
        drawn = _multinomial(rng, len(unit_kinds), weights)
        ratings = fit(k, _total(kinds, drawn, prior, met), elo)
        if ratings is None:
            degenerate += 1
            continue
        base = ratings[data.index[anchor[0]]] - anchor[1] if anchor is not None else 0.0
        for i in range(k):
            samples[i].append(ratings[i] - base)
    bots: list[dict[str, Any]] = []
    for i, label in enumerate(data.labels):
        values = sorted(samples[i])
        if anchor is not None and label == anchor[0]:  # fixed: its interval is a point
            lo = hi = anchor[1]
        elif bootstrap == 0 or len(unit_kinds) < 2 or alike:  # no spread to resample
            lo = hi = math.nan
        else:  # a degenerate resample is -inf for the lower tail, +inf for the upper
            lower = [-math.inf] * degenerate + values
            upper = values + [math.inf] * degenerate
            lo, hi = _quantile(lower, 0.025), _quantile(upper, 0.975)
        bots.append(
            {
                "bot": label,
                "elo": elo[i] + shift,
                "elo_lo": lo,
                "elo_hi": hi,
                "games": data.games[i],
                "points": data.points[i],
                "score": data.points[i] / data.games[i] if data.games[i] else math.nan,
            }
        )
    bots.sort(key=lambda b: -b["elo"])
    for rank, b in enumerate(bots, 1):
        b["rank"] = rank
    unit = " or ".join(sorted(data.unit_kinds)) or "game"
    return Ratings(
        bots=[{"rank": b.pop("rank"), **b} for b in bots],
        journals=list(paths),
        games=data.n_games,
        units=len(unit_kinds),
        unit=unit,
        anchor=anchor,
        bootstrap=bootstrap,
        seed=seed,
        prior=prior,
        degenerate=degenerate,
        alike=alike,
        notes=data.notes,
        warnings=data.warnings,
    )


def _why_no_maximum(
    k: int, results: Mapping[tuple[int, int], tuple[float, float]], labels: Sequence[str]
) -> str:
    met: list[set[int]] = [set() for _ in range(k)]
    for i, j in results:
        met[i].add(j)
        met[j].add(i)
    if not _reaches_all(met, k):
        seen = {0}
        todo = [0]
        while todo:
            for j in met[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        apart = ", ".join(labels[i] for i in range(k) if i not in seen)
        return (
            f"the bots {apart} never met the others (not even through other bots): their "
            "ratings cannot be compared; rate those journals separately"
        )
    won = [i for i in range(k) if all(_points(j, i, results) == 0 for j in met[i])]
    lost = [i for i in range(k) if all(_points(i, j, results) == 0 for j in met[i])]
    who = []
    if won:
        who.append("won every result: " + ", ".join(labels[i] for i in won))
    if lost:
        who.append("lost every result: " + ", ".join(labels[i] for i in lost))
    detail = "; ".join(who) or "a group of bots scored nothing against the others"
    return (
        f"no finite ratings ({detail}): the maximum likelihood puts them infinitely far "
        "apart; play more games, or give --prior D (D virtual draws between every two bots "
        "that met, as bayeselo's prior), e.g. --prior 2"
    )


def _key(i: int, j: int) -> tuple[int, int]:
    return (i, j) if i < j else (j, i)


def _points(i: int, j: int, results: Mapping[tuple[int, int], tuple[float, float]]) -> float:
    points, n = results.get(_key(i, j), (0.0, 0.0))
    return points if i < j else n - points


def _elo(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}"


def format_ratings(r: Ratings) -> str:
    """The rating list as a table, with a line saying how it was computed."""
    width = max(3, *(len(b["bot"]) for b in r.bots))
    rows = [
        f"{'Rank':>4}  {'Bot':<{width}}  {'Elo':>7}  {'95% interval':^18}  {'Games':>6}  "
        f"{'Score':>6}"
    ]
    for b in r.bots:
        interval = f"[{_elo(b['elo_lo'])}, {_elo(b['elo_hi'])}]"
        score = "-" if math.isnan(b["score"]) else f"{100 * b['score']:.1f}%"
        rows.append(
            f"{b['rank']:>4}  {b['bot']:<{width}}  {_elo(b['elo']):>7}  {interval:^18}  "
            f"{b['games']:>6}  {score:>6}"
        )
    anchor = "mean 0" if r.anchor is None else f"{r.anchor[0]} = {r.anchor[1]:g}"
    n = len(r.journals)
    rows.append("")
    rows.append(
        f"{r.games} games in {n} journal{'s' if n != 1 else ''}; Bradley-Terry maximum "
        f"likelihood, draws half; anchor: {anchor}."
    )
    if r.bootstrap and r.units < 2:
        rows.append(f"95% intervals: not available ({r.units} {r.unit}: they need 2 or more).")
    elif r.bootstrap and r.alike:
        rows.append(
            f"95% intervals: not available (every one of the {r.units} units, {r.unit}s, "
            "gave the same results: no spread to resample)."
        )
    elif r.bootstrap:
        rows.append(
            f"95% intervals: bootstrap of {r.units} units ({r.unit}s), {r.bootstrap} "
            f"resamples, seed {r.seed}"
            + (f"; {r.degenerate} without finite ratings" if r.degenerate else "")
            + "."
        )
    if r.bootstrap and r.units >= 2 and not r.alike and r.degenerate > 0.025 * r.bootstrap:
        # more than the 2.5% tail without finite ratings: every bound is infinite
        rows.append(
            f"The intervals are unbounded: {r.degenerate} of {r.bootstrap} resamples had no "
            "finite ratings (in them some bot won or lost every result: too few games "
            "between some bots). Play more games, or give --prior 1 (one virtual draw "
            "between every two bots that met, as bayeselo's prior) for finite intervals."
        )
    if r.prior:
        rows.append(f"Prior: {r.prior:g} virtual draws between every two bots that met.")
    rows.extend(f"Note: {note}" for note in r.notes)
    return "\n".join(rows)
