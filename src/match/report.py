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

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .stats import (
    PENTANOMIAL,
    PENTANOMIAL_VALUES,
    SPRT,
    TRINOMIAL_VALUES,
    SequentialTest,
    elo_from_score,
    estimate_samples,
    game_scores,
    pentanomial_counts,
)

__all__ = ["LiveTally", "format_table", "summarize"]


def _side_bots(rec: Mapping[str, Any]) -> list[int]:
    seat_bots = rec["seat_bots"]
    return [seat_bots[side[0]] for side in rec["sides"]]


def _scores(rec: Mapping[str, Any]) -> dict[int, float]:
    """``{bot: game score}`` of a record (empty for an aborted game)."""
    ranks = rec.get("ranks")
    if not ranks:
        return {}
    return {b: p / c for b, (p, c) in game_scores(ranks, _side_bots(rec)).items() if c}


def _pair_score(rec: Mapping[str, Any], a: int, b: int) -> float | None:
    """Bot ``a``'s pairwise score against bot ``b`` in one game (``None``: they did not
    meet, or the game was aborted)."""
    ranks = rec.get("ranks")
    if not ranks:
        return None
    bots = _side_bots(rec)
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


def _estimate_dict(samples: Sequence[float]) -> dict[str, Any]:
    return estimate_samples(samples).to_dict()


def summarize(
    config: Mapping[str, Any] | None,
    records: Iterable[Mapping[str, Any]],
    *,
    total: int | None = None,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The summary of a match from its ``config`` (as in the journal header) and game
    ``records``: per bot, per pair, pentanomial, SPRT, forfeits.  ``total``: the games
    scheduled (records with a higher id are ignored).  Only games up to the duplicate set
    on which the SPRT decided are counted; the JSON output is this dict."""
    config = dict(config or {})
    bots = list(config.get("bots") or [])
    names = list(labels) if labels else bots
    recs = sorted(
        (r for r in records if total is None or int(r["id"]) < total), key=lambda r: int(r["id"])
    )
    n_sides = len(recs[0]["sides"]) if recs else 0
    duplicate = bool(config.get("duplicate", True))
    group_sizes: dict[int, int] = {}
    for r in recs:
        group_sizes[int(r["group"])] = group_sizes.get(int(r["group"]), 0) + 1
    group_size = _group_size(config, n_sides) if recs else 1
    sprt_cfg = config.get("sprt")
    sprt = SPRT.from_dict(sprt_cfg) if sprt_cfg else None
    tally = LiveTally(names, sprt, n_sides, group_size, duplicate)
    for r in recs:
        tally.add(r)
    stop = tally.stop_group
    counted = [r for r in recs if stop is None or int(r["group"]) <= stop]
    after = len(recs) - len(counted)

    per_bot: list[dict[str, Any]] = []
    unit_scores: list[dict[int, list[float]]] = [{} for _ in names]
    wdl = [[0, 0, 0] for _ in names]
    points = [0.0] * len(names)
    games = [0] * len(names)
    forfeits: list[dict[str, int]] = [{} for _ in names]
    aborted = 0
    for r in counted:
        scores = _scores(r)
        if not scores:
            aborted += 1
        for bot, score in scores.items():
            games[bot] += 1
            points[bot] += score
            wdl[bot][_wdl(score)] += 1
            unit_scores[bot].setdefault(int(r["group"]), []).append(score)
        forfeit = r.get("forfeit")
        if forfeit and 0 <= forfeit.get("seat", -1) < len(r["seat_bots"]):
            culprit = r["seat_bots"][forfeit["seat"]]
            forfeits[culprit][forfeit["reason"]] = forfeits[culprit].get(forfeit["reason"], 0) + 1
    for i, name in enumerate(names):
        units = [math.fsum(v) / len(v) for _, v in sorted(unit_scores[i].items())]
        per_bot.append(
            {
                "bot": name,
                "spec": bots[i] if i < len(bots) else name,
                "games": games[i],
                "wins": wdl[i][0],
                "draws": wdl[i][1],
                "losses": wdl[i][2],
                "points": points[i],
                "score": points[i] / games[i] if games[i] else None,
                "units": len(units),
                "estimate": _estimate_dict(units),
                "forfeits": forfeits[i],
            }
        )

    pairs = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            pair = _pair_summary(counted, a, b, n_sides, group_size, duplicate)
            if pair is not None:
                pair["bots"] = [names[a], names[b]]
                pairs.append(pair)

    out: dict[str, Any] = {
        "config": config,
        "scheduled": total,
        "played": len(recs),
        "counted": len(counted),
        "after_decision": after,
        "aborted": aborted,
        "sides": n_sides,
        "group_size": group_size,
        "bots": per_bot,
        "pairs": pairs,
        "sprt": None,
    }
    if tally.test is not None:
        t = tally.test
        out["sprt"] = {
            **t.sprt.to_dict(),
            "llr": t.llr,
            "lower": t.sprt.lower,
            "upper": t.sprt.upper,
            "units": t.n,
            "decision": t.decision,
        }
    return out


def _group_size(config: Mapping[str, Any], n_sides: int) -> int:
    if not config.get("duplicate", True):
        return 1
    from .runner import seatings

    fmt = config.get("format", "head-to-head")
    k = len(config.get("bots") or ()) if fmt == "head-to-head" else 2
    return len(seatings(k, n_sides))


def _pair_summary(
    recs: Sequence[Mapping[str, Any]],
    a: int,
    b: int,
    n_sides: int,
    group_size: int,
    duplicate: bool,
) -> dict[str, Any] | None:
    groups: dict[int, list[float]] = {}
    wdl = [0, 0, 0]
    for r in recs:
        s = _pair_score(r, a, b)
        if s is None:
            continue
        groups.setdefault(int(r["group"]), []).append(s)
        wdl[_wdl(s)] += 1
    if not groups:
        return None
    units = [math.fsum(v) / len(v) for _, v in sorted(groups.items())]
    games = sum(len(v) for v in groups.values())
    pair: dict[str, Any] = {
        "games": games,
        "wins": wdl[0],
        "draws": wdl[1],
        "losses": wdl[2],
        "points": math.fsum(s for v in groups.values() for s in v),
        "units": len(units),
        "estimate": _estimate_dict(units),
        "pentanomial": None,
    }
    if n_sides == 2 and duplicate and group_size == 2:
        complete = [sum(v) for v in groups.values() if len(v) == 2]
        counts = pentanomial_counts(complete)
        pair["pentanomial"] = dict(zip(PENTANOMIAL, counts, strict=True))
    return pair


# ---------------------------------------------------------------------------------------
# The terminal table


def _pct(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


def _elo(x: float | None) -> str:
    if x is None:
        return "inf"
    return f"{x:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _interval(lo: Any, hi: Any, fmt: Any) -> str:
    return f"[{fmt(lo)}, {fmt(hi)}]"


def _elo_of(score: float | None) -> str:
    """The Elo of a score, with the sign of an infinite one (JSON keeps only null)."""
    if score is None or not math.isfinite(score):
        return "-"
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
    )
    counted = summary["counted"]
    scheduled = summary.get("scheduled")
    extra = []
    if summary.get("after_decision"):
        extra.append(f"{summary['after_decision']} more played after the SPRT decided, not counted")
    if summary.get("aborted"):
        extra.append(f"{summary['aborted']} aborted")
    lines.append(
        f"Games: {counted}"
        + (f" of {scheduled}" if scheduled is not None else "")
        + (f" ({'; '.join(extra)})" if extra else "")
    )
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
    pairs = summary.get("pairs") or []
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
                f"{_elo_of(e['score']):>7}  {_err(e['elo_error'])}"
            )
    if len(bots) == 2 and pairs:
        p = pairs[0]
        e = p["estimate"]
        unit = _unit_name(summary)
        lines.append("")
        lines.append(
            f"Elo {bots[0]['bot']} vs {bots[1]['bot']}: {_elo_of(e['score'])} "
            f"+/- {_err(e['elo_error'])} (95%, {p['units']} {unit}), LOS {_pct(e['los'])}"
        )
    for p in pairs:
        if p.get("pentanomial"):
            counts = ", ".join(f"{k} {v}" for k, v in p["pentanomial"].items())
            n = sum(p["pentanomial"].values())
            lines.append(f"Pentanomial {' vs '.join(p['bots'])}: {counts} ({n} deal pairs)")
    s = summary.get("sprt")
    if s:
        unit = _unit_name(summary)
        verdict = {
            "H1": f"H1 accepted (elo >= {s['elo1']:g}) after {s['units']} {unit}",
            "H0": f"H0 accepted (elo <= {s['elo0']:g}) after {s['units']} {unit}",
        }.get(s["decision"], f"undecided after {s['units']} {unit}")
        lines.append(
            f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}: "
            f"LLR {s['llr']:.2f} ({s['lower']:.2f}, {s['upper']:.2f}) -> {verdict}"
        )
    lost = [
        f"{b['bot']}: " + ", ".join(f"{k} {v}" for k, v in sorted(b["forfeits"].items()))
        for b in bots
        if b["forfeits"]
    ]
    if lost:
        lines.append("Forfeits: " + "; ".join(lost))
    if summary.get("interrupted"):
        lines.append("Interrupted: bones match --resume --journal JOURNAL continues the match")
    if summary.get("journal"):
        lines.append(f"Journal: {summary['journal']}")
    return "\n".join(lines)


def _unit_name(summary: Mapping[str, Any]) -> str:
    size = summary.get("group_size", 1)
    if size == 1:
        return "games"
    if size == 2:
        return "deal pairs"
    return f"deals of {size} games"


def _err(x: float | None) -> str:
    return "inf" if x is None or not math.isfinite(x) else f"{x:.1f}"


def _w(bots: Sequence[Mapping[str, Any]]) -> int:
    return max([3] + [len(b["bot"]) for b in bots])
