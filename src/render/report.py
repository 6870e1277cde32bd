"""A match in the browser: the match table, each bot's score with its 95% interval, the
scores over the games and the SPRT's log-likelihood ratio against its bounds.

The numbers come from :mod:`bones.match.report` (the same as ``bones match`` prints);
the plots are drawn with matplotlib (the ``bones[plot]`` extra) as inline SVG.
"""

from __future__ import annotations

import html
import io
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import BonesError

__all__ = ["PlotUnavailable", "match_series", "report_html"]


class PlotUnavailable(BonesError):
    """matplotlib is not installed (``pip install 'bones[plot]'``)."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(
            "the match report draws its plots with matplotlib: pip install 'bones[plot]'"
        ) from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "bones"  # the same ids in every run
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: small, searchable
    import matplotlib.pyplot as plt

    return plt


def match_series(path: str | os.PathLike[str], summary: Mapping[str, Any]) -> dict[str, Any]:
    """Per game, in id order, each bot's running score; per SPRT unit, the LLR.  Only the
    games the summary counts (those up to the SPRT's decision)."""
    from ..match.journal import JournalReader
    from ..match.report import LiveTally
    from ..match.stats import SPRT

    labels = [b["bot"] for b in summary["bots"]]
    reader = JournalReader(path)
    try:
        records = sorted(reader.games(rounds=False), key=lambda r: r["id"])
    finally:
        reader.close()
    sprt_cfg = summary["config"].get("sprt")
    tally = LiveTally(
        labels,
        SPRT.from_dict(sprt_cfg) if sprt_cfg else None,
        summary["sides"],
        summary["group_size"],
        bool(summary["config"].get("duplicate", True)),
    )
    games: list[int] = []
    running: list[list[float | None]] = [[] for _ in labels]
    llr: list[tuple[int, float]] = []
    seen: set[int] = set()
    for rec in records:
        if rec["id"] in seen:  # the first of a duplicate id counts, as in the summary
            continue
        seen.add(rec["id"])
        if tally.stop_group is not None and int(rec["group"]) > tally.stop_group:
            continue
        tally.add(rec)
        games.append(len(games) + 1)
        for i in range(len(labels)):
            g = tally.games[i]
            running[i].append(tally.points[i] / g if g else None)
        if tally.test is not None and tally.test.n and (not llr or llr[-1][0] != tally.test.n):
            llr.append((tally.test.n, tally.test.llr))
    return {"labels": labels, "games": games, "running": running, "llr": llr}


def _svg(fig: Any, plt: Any) -> str:
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = out.getvalue()
    text = text[text.index("<svg") :]  # no XML prolog or DOCTYPE inside HTML
    return re.sub(r"<metadata>.*?</metadata>\s*", "", text, count=1, flags=re.S)


def _score_plot(summary: Mapping[str, Any], plt: Any) -> str:
    bots = summary["bots"]
    fig, ax = plt.subplots(figsize=(6.4, 0.6 + 0.5 * len(bots)))
    for i, b in enumerate(bots):
        est = b["estimate"]
        score = est.get("score")
        if score is None:
            continue
        lo = max(0.0, est["score_lo"]) if est.get("score_lo") is not None else score
        hi = min(1.0, est["score_hi"]) if est.get("score_hi") is not None else score
        ax.errorbar([100 * score], [i], xerr=[[100 * (score - lo)], [100 * (hi - score)]],
                    fmt="o", capsize=5, color="C0")  # fmt: skip
        text = f"{100 * score:.1f}%" + (" (interval n/a)" if est.get("score_lo") is None else "")
        ax.annotate(text, (100 * score, i), textcoords="offset points",
                    xytext=(0, 7), ha="center", fontsize=8)  # fmt: skip
    ax.axvline(50, color="grey", linewidth=0.8, linestyle=":")
    ax.set_yticks(range(len(bots)), [b["bot"] for b in bots])
    ax.set_ylim(-0.7, len(bots) - 0.3)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("score (%) with its 95% interval")
    fig.tight_layout()
    return _svg(fig, plt)


def _running_plot(series: Mapping[str, Any], plt: Any) -> str:
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    for label, values in zip(series["labels"], series["running"], strict=True):
        xs = [g for g, v in zip(series["games"], values, strict=True) if v is not None]
        ys = [100 * v for v in values if v is not None]
        ax.plot(xs, ys, label=label, linewidth=1.2)
    ax.axhline(50, color="grey", linewidth=0.8, linestyle=":")
    ax.set_ylim(0, 100)
    ax.set_xlabel("games (in id order)")
    ax.set_ylabel("score so far (%)")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return _svg(fig, plt)


def _llr_plot(series: Mapping[str, Any], sprt: Mapping[str, Any], plt: Any) -> str:
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    xs = [0] + [n for n, _ in series["llr"]]
    ys = [0.0] + [v for _, v in series["llr"]]
    ax.plot(xs, ys, color="C2", linewidth=1.4, label="LLR")
    ax.axhline(sprt["upper"], color="C3", linestyle="--", label=f"H1 bound {sprt['upper']:.2f}")
    ax.axhline(sprt["lower"], color="C0", linestyle="--", label=f"H0 bound {sprt['lower']:.2f}")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("units (duplicate sets) in schedule order")
    ax.set_ylabel("log-likelihood ratio")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return _svg(fig, plt)


_STYLE = """
body { font-family: DejaVu Sans, Verdana, sans-serif; margin: 1em; background: #fff; }
pre { background: #f4f4f4; padding: .6em; font-size: 13px; white-space: break-spaces;
  overflow-wrap: anywhere; }
pre .line { display: block; min-height: 1.2em; padding-left: 4ch; text-indent: -4ch; }
section svg { max-width: 100%; height: auto; }
section { margin-bottom: 1.5em; }
"""


def report_html(path: str | os.PathLike[str]) -> str:
    """One self-contained HTML page reporting the match in the journal at ``path``."""
    from ..match.report import format_table, journal_summary

    plt = _pyplot()
    summary = journal_summary(path)
    series = match_series(path, summary)
    sections: list[tuple[str, str]] = [
        ("The match", f"<pre id='table'>{_lines(format_table(summary))}</pre>"),
        ("Score with its 95% interval", _score_plot(summary, plt)),
        ("Score over the games", _running_plot(series, plt)),
    ]
    sprt = summary.get("sprt")
    if sprt is not None:
        decided = sprt["decision"] or "undecided"
        head = (
            f"<p>SPRT {html.escape(_sprt_text(sprt))}: LLR {sprt['llr']:.2f} after "
            f"{sprt['units']} units, bounds ({sprt['lower']:.2f}, {sprt['upper']:.2f}): "
            f"{decided}</p>"
        )
        sections.append(("SPRT", head + _llr_plot(series, sprt, plt)))
    if summary["warnings"]:
        notes = "".join(f"<li>{html.escape(w)}</li>" for w in summary["warnings"])
        sections.insert(0, ("Warnings", f"<ul>{notes}</ul>"))
    config = summary["config"]
    title = f"bones match: {' vs '.join(config.get('bots') or [])}"
    body = "".join(
        f"<section class='{_slug(name)}'><h2>{html.escape(name)}</h2>{content}</section>"
        for name, content in sections
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(_config_text(config))}</p>"
        f"{body}</body></html>\n"
    )


def _lines(text: str) -> str:
    """Preformatted text whose long lines wrap in a narrow window, the rest of a line
    indented under its start (the table keeps its columns; nothing is cut off)."""
    return "".join(f"<span class='line'>{html.escape(line)}</span>" for line in text.split("\n"))


def _sprt_text(sprt: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={sprt[k]:g}" for k in ("elo0", "elo1", "alpha", "beta"))


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")


def _games_text(config: Mapping[str, Any]) -> str:
    """How many games the match plays: an SPRT plays until it decides (``--games``, when
    given, is only its cap)."""
    games, sprt = config.get("games"), config.get("sprt")
    if sprt:
        cap = "" if games is None else f", at most {games} games"
        return f"SPRT {_sprt_text(sprt)}: until it decides{cap}"
    return f"{games} games per encounter"


def _config_text(config: Mapping[str, Any]) -> str:
    options: Sequence[str] = [f"{k}={v}" for k, v in sorted((config.get("options") or {}).items())]
    parts = [
        f"{config.get('variant')}, {config.get('players')} players",
        f"{config.get('format')}",
        _games_text(config),
        "duplicate deals" if config.get("duplicate", True) else "single deals",
        f"seed {config.get('seed')}",
    ]
    if options:
        parts.append("options " + " ".join(options))
    return "; ".join(parts)
