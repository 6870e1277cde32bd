"""Results of a match, recomputed from its game records: per bot, per pair of bots,
pentanomial counts, the SPRT; the terminal table and the JSON summary.

A bot's score in a game is pairwise (:func:`bones.match.stats.game_scores`): each side it
holds is compared with each side held by another bot -- the better result scores 1, equal
results 1/2 each.  With two sides this is the usual win 1, draw 1/2, loss 0.  The unit of
the intervals is the duplicate set of a deal (the games of one deal with the seats
rotated; a single game with ``--no-duplicate``): a bot's unit score is its mean game score
over the set.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .fairness import LaterGamesFold
from .journal import IdSet, JournalError, JournalReader, no_games, open_journal
from .stats import (
    PENTANOMIAL,
    PENTANOMIAL_VALUES,
    SPRT,
    TRINOMIAL_VALUES,
    SequentialTest,
    elo_from_score,
    estimate_counts,
    game_scores,
    t_quantile,
)

if TYPE_CHECKING:
    from .schedule import PlayOrder

__all__ = [
    "LiveTally",
    "Summary",
    "format_table",
    "journal_summary",
    "summarize",
    "summarize_journal",
]


def _margins(rec: Mapping[str, Any], direction: int) -> dict[int, Fraction]:
    """Per bot in a finished game, its sides' mean final score less the other bots'
    sides' mean, signed so that more is better (``direction``: 1 points, -1 penalties)."""
    bots = _side_bots(rec)
    scores = rec["scores"]
    out = {}
    for bot in set(bots):
        mine = [s for s, b in zip(scores, bots, strict=True) if b == bot]
        theirs = [s for s, b in zip(scores, bots, strict=True) if b != bot]
        if mine and theirs:
            out[bot] = direction * (
                Fraction(sum(mine), len(mine)) - Fraction(sum(theirs), len(theirs))
            )
    return out


def _scoring(config: Mapping[str, Any]) -> tuple[int, str]:
    """``(direction, unit)`` of a match's games: which way their final scores go and in
    what (pips: the train games' penalties; points); ``(0, "")`` for a variant this
    process cannot make (a plugin's that is not installed): no margins then."""
    try:
        from ..game import new_game

        game = new_game(
            str(config["variant"]), int(config["players"]), 0, **dict(config.get("options") or {})
        )
    except Exception:  # noqa: BLE001  (a journal's variant: the summary goes on without)
        return 0, ""
    rules = game.game_rules
    return rules.score_order, rules.score_unit


def _side_bots(rec: Mapping[str, Any]) -> list[int]:
    seat_bots = rec["seat_bots"]
    return [seat_bots[side[0]] for side in rec["sides"]]


def _scores(rec: Mapping[str, Any]) -> dict[int, float]:
    """``{bot: game score}`` of a record (empty for an aborted game)."""
    ranks = rec.get("ranks")
    if not ranks:
        return {}
    return _scores_of(ranks, _side_bots(rec))


def _scores_of(ranks: Sequence[int], bots: Sequence[int]) -> dict[int, float]:
    return {b: p / c for b, (p, c) in game_scores(ranks, bots).items() if c}


def _pair_score(ranks: Sequence[int], bots: Sequence[int], a: int, b: int) -> float | None:
    """Bot ``a``'s pairwise score against bot ``b`` in one game whose sides have
    ``ranks`` and are played by ``bots`` (``None``: they did not meet)."""
    points = 0.0
    count = 0
    for i, x in enumerate(bots):
        if x != a:
            continue
        for j, y in enumerate(bots):
            if y == b:
                points += 1.0 if ranks[i] > ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                count += 1
    return points / count if count else None


def _support(n_sides: int, group_size: int) -> tuple[float, ...]:
    if n_sides == 2 and group_size == 2:
        return PENTANOMIAL_VALUES
    if n_sides == 2 and group_size == 1:
        return TRINOMIAL_VALUES
    return (0.0, 1.0)


class LiveTally:
    """Running totals while a match is played: points per bot for the progress line, and
    the SPRT fed with whole duplicate sets in schedule order, so that its decision does
    not depend on the order in which games finish.  ``stop_group``: the duplicate set
    after which the SPRT decided (games of later sets are not counted)."""

    def __init__(
        self,
        labels: Sequence[str],
        sprt: SPRT | None,
        n_sides: int,
        group_size: int,
        duplicate: bool = True,
    ) -> None:
        self.labels = list(labels)
        self.points = [0.0] * len(labels)
        self.games = [0] * len(labels)
        self.group_size = group_size
        self.test = None if sprt is None else SequentialTest(sprt, _support(n_sides, group_size))
        self._groups: dict[int, list[float | None]] = {}
        self._next = 0
        self.stop_group: int | None = None

    @property
    def decision(self) -> str | None:
        return None if self.test is None else self.test.decision

    def add(self, rec: Mapping[str, Any]) -> None:
        scores = _scores(rec)
        for bot, score in scores.items():
            self.points[bot] += score
            self.games[bot] += 1
        if self.test is None or self.stop_group is not None:
            return
        self._groups.setdefault(int(rec["group"]), []).append(scores.get(0))
        while len(self._groups.get(self._next, ())) >= self.group_size:
            values = [v for v in self._groups.pop(self._next) if v is not None]
            if values:
                if self.test.add(math.fsum(values) / len(values)) is not None:
                    self.stop_group = self._next
                    return
            self._next += 1

    def status(self) -> str:
        parts = []
        if len(self.labels) == 2 and self.games[0]:
            parts.append(f"{self.labels[0]} {100 * self.points[0] / self.games[0]:.1f}%")
        if self.test is not None and self.test.n:
            t = self.test
            parts.append(f"LLR {t.llr:.2f} ({t.sprt.lower:.2f}, {t.sprt.upper:.2f})")
        return " | ".join(parts)


def _wdl(score: float) -> int:
    return 0 if score > 0.5 else 1 if score == 0.5 else 2


class _Histogram:
    """Values and how often each occurs: sums and the estimate of a sample without
    keeping the sample (the values a game or a duplicate set can score are few), and
    exactly the numbers the whole list would give (``math.fsum`` is exactly rounded, so
    the order does not matter; :func:`bones.match.stats.estimate_counts`)."""

    def __init__(self) -> None:
        self.counts: dict[float, int] = {}
        self.n = 0

    def add(self, value: float) -> None:
        self.counts[value] = self.counts.get(value, 0) + 1
        self.n += 1

    def _values(self) -> Iterator[float]:
        for value, count in self.counts.items():
            yield from itertools.repeat(value, count)

    def total(self) -> float:
        return math.fsum(self._values())

    def estimate(self) -> dict[str, Any]:
        return estimate_counts(self.counts).to_dict()


class _Running:
    """A mean and its 95% t interval from values added one at a time: a bot's margin
    per deal, whose values are too many kinds to count.  The sums are exact fractions
    (a margin is a ratio of whole scores), so the order the deals close in -- a resumed
    match's, a worker's -- changes no digit."""

    def __init__(self) -> None:
        self.n = 0
        self.total = Fraction(0)
        self.squares = Fraction(0)

    def add(self, value: Fraction) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value

    def to_dict(self, unit: str) -> dict[str, Any] | None:
        if not self.n:
            return None
        mean = self.total / self.n
        lo = hi = None
        if self.n >= 2:
            variance = (self.squares - self.n * mean * mean) / (self.n - 1)
            half = t_quantile(0.975, self.n - 1) * math.sqrt(float(variance) / self.n)
            lo, hi = float(mean) - half, float(mean) + half
        return {"unit": unit, "mean": float(mean), "lo": lo, "hi": hi, "n": self.n}


class _PairFold:
    def __init__(self) -> None:
        self.wdl = [0, 0, 0]
        self.scores = _Histogram()
        self.units = _Histogram()
        self.pairs: list[float] = []  # pair points of complete deal pairs (0..2), as counts
        self.penta = [0] * 5
        self.incomplete = 0  # units (duplicate sets) with games still missing


#: (ranks, side bots, bots) -> _game_shape's answer: a match has few distinct ones
_SHAPES: dict[tuple[tuple[int, ...], tuple[int, ...], int], Any] = {}


def _game_shape(
    ranks: tuple[int, ...], bots: tuple[int, ...], k: int
) -> tuple[
    bool, tuple[tuple[int, float, int], ...], tuple[tuple[tuple[int, int], float, int], ...]
]:
    """What a game with ``ranks`` per side, played by ``bots`` per side (of ``k`` bots),
    adds to the tallies: whether anyone scored, ``(bot, game score, W/D/L index)`` per bot
    and ``((a, b), a's score against b, W/D/L index)`` per pair of bots that met."""
    key = (ranks, bots, k)
    shape = _SHAPES.get(key)
    if shape is None:
        all_scores = _scores_of(ranks, bots)
        scores = tuple((b, v, _wdl(v)) for b, v in all_scores.items() if 0 <= b < k)
        present = sorted({b for b in bots if 0 <= b < k})
        pairs = []
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                s = _pair_score(ranks, bots, a, b)
                if s is not None:
                    pairs.append(((a, b), s, _wdl(s)))
        shape = (bool(all_scores), scores, tuple(pairs))
        if len(_SHAPES) >= 4096:
            _SHAPES.clear()
        _SHAPES[key] = shape
    return shape


class _Fold:
    """The summary's tallies, one record at a time: per bot and per pair of bots the
    W/D/L, the game scores and the unit scores (a duplicate set is folded when its last
    game arrives, the unfinished ones at the end).  Memory grows with the bots and the
    duplicate sets and deals still open, not with the games."""

    def __init__(
        self,
        k: int,
        group_size: int,
        penta: bool,
        per_deal: int,
        order: PlayOrder | None,
        scoring: tuple[int, str] = (0, ""),
    ) -> None:
        self.k = k
        # which way the game's scores go (GameRules.score_order) and their unit: a bot's
        # margin is its sides' mean final score less the other bots', made "higher is
        # better" (0: the variant is not known here, no margin)
        self.direction, self.unit = scoring
        self.margins = [_Running() for _ in range(k)]
        self.group_size = group_size
        self.penta = penta
        self.per_deal = per_deal
        self.order = order
        self.games = [0] * k
        self.wdl = [[0, 0, 0] for _ in range(k)]
        self.points = [_Histogram() for _ in range(k)]
        self.units = [_Histogram() for _ in range(k)]
        self.forfeits: list[dict[str, int]] = [{} for _ in range(k)]
        self.why: list[dict[str, str]] = [{} for _ in range(k)]  # reason -> first detail
        self.trace: list[dict[str, str]] = [{} for _ in range(k)]  # and its traceback
        self.pairs: dict[tuple[int, int], _PairFold] = {}
        self.aborted = 0
        self.void = 0
        self.errors: list[str] = []
        self.played = 0
        # group -> [games seen, {(a, b): [pair scores]}]
        self.open: dict[int, list[Any]] = {}
        # deal -> [games seen, {bot: [(place in the play order, game score, seats)]}]
        self.deals: dict[int, list[Any]] = {}
        # per bot: the fairness monitor's test, folded deal by deal
        self.later = [LaterGamesFold() for _ in range(k)]

    def add(self, r: Mapping[str, Any]) -> None:
        self.played += 1
        ranks = r.get("ranks")
        if ranks:
            scored, scores, pairs = _game_shape(tuple(ranks), tuple(_side_bots(r)), self.k)
        else:
            scored, scores, pairs = False, (), ()
        if not scored:
            self.aborted += 1
        if r.get("error"):
            self.void += 1
            if len(self.errors) < 3:
                self.errors.append(f"game {r['id']}: {r['error']}")
        gid = int(r["id"])
        group = int(r["group"])
        entry = self.open.get(group)
        if entry is None:
            entry = self.open[group] = [0, {}]
        entry[0] += 1
        deal = gid // self.per_deal
        dealt = self.deals.get(deal)
        if dealt is None:
            dealt = self.deals[deal] = [0, {}, {}]
        dealt[0] += 1
        if self.direction and scored and not r.get("forfeit") and r.get("scores"):
            for bot, margin in _margins(r, self.direction).items():
                if 0 <= bot < self.k:
                    dealt[2].setdefault(bot, []).append(margin)
        place = gid if self.order is None else self.order.rank(gid)
        seat_bots = r.get("seat_bots") or ()
        for bot, score, wdl in scores:
            self.games[bot] += 1
            self.points[bot].add(score)
            self.wdl[bot][wdl] += 1
            seats = tuple(i for i, b in enumerate(seat_bots) if b == bot)  # its hand(s)
            dealt[1].setdefault(bot, []).append((place, score, seats))
        forfeit = r.get("forfeit")
        if forfeit and 0 <= forfeit.get("seat", -1) < len(r["seat_bots"]):
            culprit = r["seat_bots"][forfeit["seat"]]
            if 0 <= culprit < self.k:
                reason = forfeit["reason"]
                self.forfeits[culprit][reason] = self.forfeits[culprit].get(reason, 0) + 1
                if reason not in self.why[culprit]:
                    self.why[culprit][reason] = _forfeit_line(forfeit)
                    self.trace[culprit][reason] = str(forfeit.get("traceback") or "")
        for key, s, wdl in pairs:
            pair = self.pairs.get(key)
            if pair is None:
                pair = self.pairs[key] = _PairFold()
            pair.wdl[wdl] += 1
            pair.scores.add(s)
            entry[1].setdefault(key, []).append(s)
        if entry[0] >= self.group_size:
            self._close(group)
        if dealt[0] >= self.per_deal:
            self._close_deal(deal)

    def _close_deal(self, deal: int) -> None:
        """A bot's unit is its mean score over a deal's games (the games of a deal share
        its luck, across encounters too); with a shuffled play order, whether its last
        games of the deal scored better than its first (the fairness monitor)."""
        _, bots, margins = self.deals.pop(deal)
        for bot, values in margins.items():
            self.margins[bot].add(sum(values, Fraction(0)) / len(values))
        for bot, played in bots.items():
            self.units[bot].add(math.fsum(v for _, v, _ in played) / len(played))
            if self.order is None or len(played) < 2:
                continue
            self.later[bot].add([(v, seats) for _, v, seats in sorted(played)])

    def _close(self, group: int, complete: bool = True) -> None:
        _, pairs = self.open.pop(group)
        for key, values in pairs.items():
            pair = self.pairs[key]
            pair.units.add(math.fsum(values) / len(values))
            if not complete:
                pair.incomplete += 1
            if self.penta and len(values) == 2:
                pair.penta[round(sum(values) * 2)] += 1

    def finish(self) -> None:
        for group in sorted(self.open):
            self._close(group, complete=False)
        for deal in sorted(self.deals):
            self._close_deal(deal)


class Summary:
    """A match's summary folded one game record at a time: each id once (the first), in
    any order, ids from ``total`` on ignored; the games of duplicate sets after ``stop``
    (the set on which an SPRT decided) count as played after the decision, not scored.
    :func:`summarize` folds a journal's records through it; the runner folds the records
    as they arrive, so that it need not read its journal again at the end."""

    def __init__(
        self,
        config: Mapping[str, Any] | None,
        *,
        total: int | None = None,
        labels: Sequence[str] | None = None,
        stop: int | None = None,
    ) -> None:
        self.config = dict(config or {})
        secret = self.config.pop("secret", None)
        # the key of the play order (schedule.Plan.order); not shown
        self.order_key = secret or str(self.config.get("seed", 0))
        self.bots = list(self.config.get("bots") or [])
        self.names = list(labels) if labels else self.bots
        self.total = total
        self.stop = stop
        self.seen = IdSet()
        self.after = 0
        self.n_sides = 0
        self.group_size = 1
        self.fold: _Fold | None = None

    def _start(self, n_sides: int) -> _Fold:
        from .schedule import PlayOrder

        self.n_sides = n_sides
        self.group_size, per_deal = _shape(self.config, n_sides)
        duplicate = bool(self.config.get("duplicate", True))
        penta = n_sides == 2 and duplicate and self.group_size == 2
        shuffled = self.config.get("order") == "shuffled"
        order = PlayOrder(per_deal, self.order_key) if shuffled else None
        scoring = _scoring(self.config) if n_sides else (0, "")
        self.fold = _Fold(len(self.names), self.group_size, penta, per_deal, order, scoring)
        return self.fold

    def add(self, r: Mapping[str, Any]) -> None:
        gid = int(r["id"])
        if not ((self.total is None or gid < self.total) and self.seen.add(gid)):
            return
        fold = self.fold if self.fold is not None else self._start(len(r["sides"]))
        if self.stop is not None and int(r["group"]) > self.stop:
            self.after += 1
            return
        fold.add(r)

    def result(self, test: SequentialTest | None = None) -> dict[str, Any]:
        """The summary (a JSON-ready dict; ``test``: the SPRT that decided, if any)."""
        fold = self.fold if self.fold is not None else self._start(0)
        fold.finish()
        names, bots = self.names, self.bots
        per_bot: list[dict[str, Any]] = []
        for i, name in enumerate(names):
            games = fold.games[i]
            points = fold.points[i].total()
            per_bot.append(
                {
                    "bot": name,
                    "spec": bots[i] if i < len(bots) else name,
                    "games": games,
                    "wins": fold.wdl[i][0],
                    "draws": fold.wdl[i][1],
                    "losses": fold.wdl[i][2],
                    "points": points,
                    "score": points / games if games else None,
                    "units": fold.units[i].n,
                    "estimate": fold.units[i].estimate(),
                    "forfeits": fold.forfeits[i],
                    "fairness": _fairness(fold.later[i], fold.order is not None),
                    "forfeit_details": fold.why[i],
                    "forfeit_tracebacks": fold.trace[i],
                    "margin": fold.margins[i].to_dict(fold.unit),
                }
            )
        pairs = []
        for (a, b), p in sorted(fold.pairs.items()):
            pair: dict[str, Any] = {
                "games": p.scores.n,
                "wins": p.wdl[0],
                "draws": p.wdl[1],
                "losses": p.wdl[2],
                "points": p.scores.total(),
                "units": p.units.n,
                "incomplete_units": p.incomplete,
                "estimate": p.units.estimate(),
                "pentanomial": dict(zip(PENTANOMIAL, p.penta, strict=True)) if fold.penta else None,
                "bots": [names[a], names[b]],
            }
            pairs.append(pair)
        out: dict[str, Any] = {
            "config": self.config,
            "scheduled": self.total,
            "played": fold.played + self.after,
            "counted": fold.played,
            "after_decision": self.after,
            "aborted": fold.aborted,
            "void": fold.void,
            "errors": fold.errors,
            "sides": self.n_sides,
            "group_size": self.group_size,
            "bots": per_bot,
            "pairs": pairs,
            "sprt": None,
            "fairness": {
                "order": self.config.get("order", "id"),
                "alpha": FAIRNESS_ALPHA,
                "flagged": [b["bot"] for b in per_bot if b["fairness"]["flagged"]],
            },
        }
        if test is not None:
            out["sprt"] = {
                **test.sprt.to_dict(),
                "llr": test.llr,
                "lower": test.sprt.lower,
                "upper": test.sprt.upper,
                "units": test.n,
                "decision": test.decision or "undecided",
            }
        return out


def summarize(
    config: Mapping[str, Any] | None,
    records: Iterable[Mapping[str, Any]] | Callable[[], Iterable[Mapping[str, Any]]],
    *,
    total: int | None = None,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The summary of a match from its ``config`` (as in the journal header) and game
    ``records`` (an iterable, or a function that makes a fresh one: with an SPRT the
    records are gone through twice, first to find where the test decided): per bot, per
    pair, pentanomial, SPRT, forfeits, void games.  ``total``: the games scheduled
    (records with a higher id are ignored).  Only games up to the duplicate set on which
    the SPRT decided are counted; the JSON output is this dict.  Records are folded one
    at a time (:class:`Summary`), in any order, each id once (the first)."""
    if callable(records):
        make = records
    else:
        listed = list(records)

        def make() -> Iterable[Mapping[str, Any]]:
            return listed

    sprt_cfg = (config or {}).get("sprt")
    test = None
    stop = None
    if sprt_cfg:
        sprt = SPRT.from_dict(sprt_cfg)
        seen = IdSet()
        tally: LiveTally | None = None
        for r in make():
            gid = int(r["id"])
            if not ((total is None or gid < total) and seen.add(gid)):
                continue
            if tally is None:
                n_sides = len(r["sides"])
                tally = LiveTally(
                    list(labels) if labels else list((config or {}).get("bots") or []),
                    sprt,
                    n_sides,
                    _group_size(config or {}, n_sides),
                    bool((config or {}).get("duplicate", True)),
                )
            tally.add(r)
            if tally.stop_group is not None:
                break
        if tally is None:  # no games: the test has seen nothing
            tally = LiveTally([], sprt, 0, 1)
        test, stop = tally.test, tally.stop_group
    summary = Summary(config, total=total, labels=labels, stop=stop)
    for r in make():
        summary.add(r)
    return summary.result(test)


def journal_summary(path: str | os.PathLike[str]) -> dict[str, Any]:
    """:func:`summarize_journal` of a finished or stopped match, for ``bones report``: a
    missing or empty file, one that is not a journal and a journal with no finished game
    are each a :class:`~bones.match.journal.JournalError` that says which."""
    open_journal(path).close()
    summary = summarize_journal(path)
    if not summary["played"]:
        raise JournalError(no_games(os.fspath(path)))
    return summary


def summarize_journal(
    path: str | os.PathLike[str],
    *,
    total: int | None = None,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """:func:`summarize` of a journal, streamed: the file is read line by line (twice
    with an SPRT), never held whole.  ``warnings``: what the reader dropped or ignored."""
    warnings: list[str] = []
    head = JournalReader(path)
    config = head.config
    head.close()

    def records() -> Iterator[Mapping[str, Any]]:
        reader = JournalReader(path)
        try:
            yield from reader.games(rounds=False)
        finally:
            reader.close()
            for text in reader.warnings:
                if text not in warnings:
                    warnings.append(text)

    changes: list[str] = []
    if config is not None:  # the config after the resume lines
        reader = JournalReader(path)
        try:
            config = reader.final_config()
            changes = reader.changes
        finally:
            reader.close()
    summary = summarize(config, records, total=total, labels=labels)
    summary["warnings"] = warnings
    summary["bot_changes"] = changes
    return summary


def _group_size(config: Mapping[str, Any], n_sides: int) -> int:
    return _shape(config, n_sides)[0]


def _shape(config: Mapping[str, Any], n_sides: int) -> tuple[int, int]:
    """The games of a duplicate set and of a deal (every encounter's set) in a match of
    ``config`` on ``n_sides`` sides; ``(1, 1)`` for a config no schedule fits."""
    from .schedule import make_schedule

    bots = len(config.get("bots") or ())
    try:
        schedule = make_schedule(
            config.get("format", "head-to-head"),
            bots,
            n_sides,
            bool(config.get("duplicate", True)),
            1,
        )
    except (ValueError, IndexError):  # a journal's config no schedule fits
        return 1, 1
    return schedule.group_size, schedule.per_deal


#: The fairness monitor flags a bot whose sign test's p-value is below this: an honest
#: bot is flagged at most this often (the test is exact, and conservative).
FAIRNESS_ALPHA = 0.01


def _fairness(later: LaterGamesFold, shuffled: bool) -> dict[str, Any]:
    """The fairness monitor's verdict on one bot (:mod:`bones.match.fairness`): over its
    deals, how many of its later games scored better or worse than its first game of the
    deal, the exact one-sided p-value (None: the games were not played in a shuffled
    order) and whether it is flagged."""
    test = later.result()
    p = test.p if shuffled else None
    return {
        "deals": test.deals,
        "later_better": test.better,
        "later_worse": test.worse,
        "p": p,
        "flagged": p is not None and p < FAIRNESS_ALPHA,
    }


# ---------------------------------------------------------------------------------------
# The terminal table


def _pct(x: float | None) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


def _elo(x: float | None) -> str:
    if x is None:
        return "inf"
    if not math.isfinite(x):
        return "+inf" if x > 0 else "-inf"
    text = f"{x:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def _interval(lo: Any, hi: Any, fmt: Any) -> str:
    if lo is None and hi is None:
        return "n/a"
    return f"[{fmt(lo)}, {fmt(hi)}]"


def _elo_of(score: float | None) -> str:
    """The Elo of a score, with the sign of an infinite one (JSON keeps only null)."""
    if score is None or not math.isfinite(score):
        return "n/a"
    return _elo(elo_from_score(min(max(score, 0.0), 1.0)))


def _clip(x: float | None) -> float | None:
    return None if x is None else min(max(x, 0.0), 1.0)


def format_table(summary: Mapping[str, Any]) -> str:
    """The summary as a readable table (what ``bones match`` prints)."""
    c = summary.get("config") or {}
    lines = []
    bots = summary["bots"]
    title = (
        " vs ".join(b["bot"] for b in bots)
        if c.get("format") == "head-to-head"
        else (f"{c.get('format')} of {len(bots)} bots")
    )
    opts = ", ".join(f"{k}={v}" for k, v in sorted((c.get("options") or {}).items()))
    deals = "duplicate deals" if c.get("duplicate", True) else "no duplicate deals"
    lines.append(
        f"Match {title}: {c.get('variant')}, {c.get('players')} players"
        f"{' (' + opts + ')' if opts else ''}, {deals}, seed {c.get('seed')}"
        + (" (deals keyed with the journal's secret: --sandbox)" if c.get("sandbox") else "")
    )
    counted = summary["counted"]
    scheduled = summary.get("scheduled")
    extra = []
    if summary.get("after_decision"):
        extra.append(f"{summary['after_decision']} more played after the SPRT decided, not counted")
    void = summary.get("void") or 0
    if void:
        extra.append(f"{void} void: engine error")
    if (summary.get("aborted") or 0) > void:
        extra.append(f"{summary['aborted'] - void} aborted")
    of = f" of {scheduled}" if scheduled is not None else ""
    if c.get("sprt") and scheduled is not None:
        # an SPRT plays until it decides: the games scheduled are only its cap
        cap = "the safety maximum" if c.get("games") is None else "--games"
        extra.insert(0, f"SPRT: until it decides, at most {scheduled:,}, {cap}")
        of = ""
    lines.append(f"Games: {counted}{of}" + (f" ({'; '.join(extra)})" if extra else ""))
    lines.append("")
    header = (
        f"{'#':>2}  {'bot':<{_w(bots)}}  {'games':>6} {'W':>6} {'D':>5} {'L':>6} {'points':>8}"
        f"  {'score':>6}  {'95% interval':<16} {'Elo':>7}  95% interval"
    )
    lines.append(header)
    order = sorted(range(len(bots)), key=lambda i: -(bots[i]["score"] or 0.0))
    for rank, i in enumerate(order, 1):
        b = bots[i]
        e = b["estimate"]
        lines.append(
            f"{rank:>2}  {b['bot']:<{_w(bots)}}  {b['games']:>6} {b['wins']:>6} {b['draws']:>5} "
            f"{b['losses']:>6} {b['points']:>8.1f}  {_pct(b['score']):>6}  "
            f"{_interval(_clip(e['score_lo']), _clip(e['score_hi']), _pct):<16} "
            f"{_elo_of(e['score']):>7}  {_interval(e['score_lo'], e['score_hi'], _elo_of)}"
        )
    lines.append(_units_line(summary, [(b["bot"], b["estimate"]) for b in bots if b["games"]]))
    if any(b["estimate"]["n"] == 1 for b in bots):
        lines.append(f"n/a: not available, 1 {_unit_name(summary, 1)}: an interval needs 2 or more")
    margins = [(b["bot"], b["margin"]) for b in bots if b.get("margin")]
    if margins:
        unit = margins[0][1]["unit"]
        lines.append(
            f"Margin per game in {unit} (its sides' mean final score against the other "
            "bots', more is better; 95% intervals): "
            + "; ".join(
                f"{name} {m['mean']:+.1f}"
                + (f" [{m['lo']:+.1f}, {m['hi']:+.1f}]" if m["lo"] is not None else "")
                for name, m in margins
            )
        )
    pairs = summary.get("pairs") or []
    lines.extend(
        _same_note(summary, name, e)
        for name, e in [(b["bot"], b["estimate"]) for b in bots]
        + [(" vs ".join(p["bots"]), p["estimate"]) for p in pairs if len(bots) > 2]
        if e.get("note")
    )
    if len(bots) > 2 and pairs:
        lines.append("")
        width = max(len(" vs ".join(p["bots"])) for p in pairs)
        lines.append(
            f"{'pair':<{width}}  {'games':>6}  {'score':>6}  {'95% interval':<16} {'Elo':>7}  +/-"
        )
        for p in pairs:
            e = p["estimate"]
            score = e["score"]
            lines.append(
                f"{' vs '.join(p['bots']):<{width}}  {p['games']:>6}  {_pct(score):>6}  "
                f"{_interval(_clip(e['score_lo']), _clip(e['score_hi']), _pct):<16} "
                f"{_elo_of(e['score']):>7}  {_pm(e)}"
            )
        lines.append(_units_line(summary, [(" vs ".join(p["bots"]), p["estimate"]) for p in pairs]))
    if len(bots) == 2 and pairs:
        p = pairs[0]
        e = p["estimate"]
        unit = _unit_name(summary, p["units"])
        lines.append("")
        part = p.get("incomplete_units") or 0
        part_text = f", {part} of them incomplete" if part else ""
        err = e["elo_error"]
        # an interval that reaches a score of 0% or 100% is infinite on that side only:
        # its two ends say more than "+/- inf"
        spread = (
            f"+/- {_err(err)}"
            if err is not None and math.isfinite(err)
            else f"in {_interval(e['score_lo'], e['score_hi'], _elo_of)}"
        )
        if e["score_lo"] is None and e.get("note"):
            lines.append(
                f"Elo {bots[0]['bot']} vs {bots[1]['bot']}: {_elo_of(e['score'])}, its "
                f"interval and LOS not available (every one of {p['units']} {unit}{part_text}"
                " scored the same)"
            )
        elif e["score_lo"] is None:
            lines.append(
                f"Elo {bots[0]['bot']} vs {bots[1]['bot']}: {_elo_of(e['score'])}, its "
                f"interval and LOS not available ({p['units']} {_unit_name(summary, p['units'])}"
                f"{part_text}: they need 2 or more)"
            )
        else:
            los = (
                f"LOS {_los(e['los'])}"
                if e["los"] is not None
                else f"every one scored {_pct(e['score'])}: the interval is the exact bound"
                ", LOS not available"
            )
            lines.append(
                f"Elo {bots[0]['bot']} vs {bots[1]['bot']}: {_elo_of(e['score'])} "
                f"{spread} (95%, {p['units']} {unit}{part_text}), {los}"
            )
    for p in pairs:
        # one deal pair has no spread: its counts would say nothing the scores do not
        if p.get("pentanomial") and p["units"] > 1:
            counts = ", ".join(f"{k} {v}" for k, v in p["pentanomial"].items())
            n = sum(p["pentanomial"].values())
            whole = " complete" if p.get("incomplete_units") else ""
            lines.append(f"Pentanomial {' vs '.join(p['bots'])}: {counts} ({n}{whole} deal pairs)")
    s = summary.get("sprt")
    if s:
        unit = _unit_name(summary)
        verdict = {
            "H1": f"H1 accepted (elo >= {s['elo1']:g}) after {s['units']} {unit}",
            "H0": f"H0 accepted (elo <= {s['elo0']:g}) after {s['units']} {unit}",
        }.get(s["decision"], f"undecided after {s['units']} {unit}")
        if (
            s["decision"] not in ("H0", "H1")
            and not summary.get("interrupted")
            and scheduled is not None
            and summary.get("played", 0) >= scheduled
        ):
            verdict += f": the cap of {scheduled:,} games is reached (a higher --games goes on)"
        lines.append(
            f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}: "
            f"LLR {s['llr']:.2f} ({s['lower']:.2f}, {s['upper']:.2f}) -> {verdict}"
        )
    fair = summary.get("fairness") or {}
    # a deal scored the same in its first and last game says nothing of fairness
    if fair.get("order") == "shuffled" and any(_decided(b.get("fairness")) for b in bots):
        tests = "; ".join(
            f"{b['bot']} {b['fairness']['later_better']}/{b['fairness']['later_worse']} "
            f"p={_p(b['fairness']['p'])}" + (" FLAGGED" if b["fairness"]["flagged"] else "")
            for b in bots
        )
        lines.append(
            f"Fairness (later games of a deal that scored better/worse than the bot's "
            f"first, exact test, flagged at p < {fair['alpha']:g}): {tests}"
        )
    lines += _forfeit_lines(bots)
    if void:
        shown = "; ".join(summary.get("errors") or [])
        more = f" (and {void - len(summary.get('errors') or [])} more)" if void > 3 else ""
        lines.append(f"Engine errors, {void} game(s) void, not counted: {shown}{more}")
    for change in summary.get("bot_changes") or []:
        lines.append(f"Bots changed during the match (--allow-changed-bots): {change}")
    if summary.get("interrupted"):
        import shlex

        journal = shlex.quote(str(summary.get("journal") or "JOURNAL"))
        lines.append(f"Interrupted: bones match --resume --journal {journal} continues the match")
    if summary.get("journal"):
        lines.append(f"Journal: {summary['journal']}")
    return "\n".join(lines)


def _forfeit_line(forfeit: Mapping[str, Any]) -> str:
    """A forfeit in one line: what went wrong (the detail's first line) and where, the
    last line of a bot's stderr (an external bot) or the deepest frame of its traceback
    (file and line of an in-process bot)."""
    detail = str(forfeit.get("detail") or "")
    head, sep, tail = detail.partition("; its stderr ends with:\n")
    line = _first_line(head)
    if sep:
        last = [x.strip() for x in tail.splitlines() if x.strip()]
        return f"{line}; its stderr ends with: {last[-1][:200]}" if last else line
    frames = [x.strip() for x in str(forfeit.get("traceback") or "").splitlines()]
    where = [x for x in frames if x.startswith("File ")]
    return f"{line} ({where[-1]})" if where else line


def _first_line(detail: Any) -> str:
    """What went wrong, in one line: the first non-blank line of a forfeit's detail (an
    exception's ``Type: message``)."""
    lines = [line.strip() for line in str(detail or "").splitlines() if line.strip()]
    return lines[0][:200] if lines else ""


def _forfeit_lines(bots: Sequence[Mapping[str, Any]]) -> list[str]:
    """The forfeits per bot on one line, then a line for each bot and reason with its
    first detail (a crashing bot's exception): ``crash 100`` alone would not say why."""
    lost = [b for b in bots if b["forfeits"]]
    if not lost:
        return []
    lines = [
        "Forfeits: "
        + "; ".join(
            f"{b['bot']}: " + ", ".join(f"{k} {v}" for k, v in sorted(b["forfeits"].items()))
            for b in lost
        )
    ]
    for b in lost:
        for reason, why in sorted((b.get("forfeit_details") or {}).items()):
            if why:
                lines.append(f"  {b['bot']}, {reason}, first: {why}")
    return lines


def _units_line(summary: Mapping[str, Any], rows: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """How many independent units the intervals of ``rows`` (name, estimate) rest on, and
    why an interval that spans nearly everything does: a table of few deals says so,
    not just [0%, 100%]."""
    counts = sorted({e["n"] for _, e in rows if e["n"]})
    if not counts:
        return "95% intervals: no game scored yet"
    n = counts[0] if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    why = (
        "each game a deal of its own"
        if summary.get("group_size", 1) == 1
        else "the unit: a deal's games share its luck"
    )
    line = f"95% intervals over {n} {_unit_name(summary, counts[-1])} ({why})"
    wide = [
        name
        for name, e in rows
        if e["score_lo"] is not None and e["score_hi"] - e["score_lo"] >= 0.5
    ]
    if wide:
        line += f"; {', '.join(wide)}: too few {_unit_name(summary)} to narrow the interval"
    return line


def _decided(fairness: Mapping[str, Any] | None) -> bool:
    return bool(fairness) and fairness["later_better"] + fairness["later_worse"] > 0  # type: ignore[index]


def _los(x: float | None) -> str:
    """A likelihood of superiority: never 100.0% or 0.0% from a handful of deals."""
    if x is not None and math.isfinite(x) and x > 0.999:
        return ">99.9%"
    if x is not None and math.isfinite(x) and x < 0.001:
        return "<0.1%"
    return _pct(x)


def _unit_name(summary: Mapping[str, Any], count: int = 2) -> str:
    size = summary.get("group_size", 1)
    if size == 1:
        return "games" if count != 1 else "game"
    if size == 2:
        return "deal pairs" if count != 1 else "deal pair"
    return f"deals of {size} games" if count != 1 else f"deal of {size} games"


def _same_note(summary: Mapping[str, Any], name: str, e: Mapping[str, Any]) -> str:
    """Why the interval of ``name``, whose units all scored the same, is a bound or n/a."""
    every = f"{name}: every {_unit_name(summary, 1)} scored {_pct(e['score'])}"
    if e["score_lo"] is None:
        return f"{every}: no spread to measure, its interval not available"
    return f"{every}: its interval is the exact bound for any scores in [0, 1]"


def _p(p: float | None) -> str:
    return "-" if p is None else "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _err(x: float | None) -> str:
    return "inf" if x is None or not math.isfinite(x) else f"{x:.1f}"


def _pm(e: Mapping[str, Any]) -> str:
    """The ``+/-`` of an estimate: ``n/a`` without an interval, ``inf`` past 0% or 100%."""
    return "n/a" if e["score_lo"] is None else _err(e["elo_error"])


def _w(bots: Sequence[Mapping[str, Any]]) -> int:
    return max([3] + [len(b["bot"]) for b in bots])
