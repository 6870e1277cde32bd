"""The ``bones`` command line: ``bones match``, ``bones show``, ``bones replay``,
``bones report``, ``bones ratings``, ``bones games``, ``bones play``, ``bones variants``,
``bones bots``, ``bones plugins``, ``bones bench``.

Usage errors print one line ``bones: error: ...`` naming what is allowed and exit with 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from . import registry
from .errors import BonesError, OptionError
from .gamerules import family_rules
from .variant import Variant, show

__all__ = ["main"]


class UsageError(Exception):
    """A bad command line; reported as ``bones: error: ...`` with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bones")
    except PackageNotFoundError:
        return "0+unknown"


def _add_option_argument(p: argparse.ArgumentParser) -> None:
    """``-o KEY=VALUE``: a variant option, repeatable (``bench`` and ``match``)."""
    p.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="variant option (repeatable); VALUE is parsed as JSON when it can be",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="bones", description="A fast and faithful domino engine.")
    parser.add_argument("--version", action="version", version=f"bones {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("variants", help="list the registered variants and their options")
    p.add_argument("name", nargs="?", help="show only this variant")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("bots", help="list the registered bots and their options")
    p.add_argument("name", nargs="?", help="show only this bot")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="register MODULE as a bones plugin first, to list a bot that is not installed "
        "(repeatable)",
    )

    p = sub.add_parser("plugins", help="list the plugins, their hooks and their variants")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser(
        "bench",
        help="measure random-playout speed: the core and a Python-driven loop",
        description="For each variant and player count: the core's random-playout speed "
        "(rounds/s, moves/s) and the speed of the same random play driven from Python "
        "through bones.Round (moves/s). Moves count placements.",
    )
    p.add_argument(
        "--variant",
        action="append",
        metavar="V",
        help="variant to measure (repeatable; default: every registered variant)",
    )
    p.add_argument(
        "--players",
        action="append",
        type=int,
        metavar="N",
        help="player count (repeatable; default: every count the variant allows)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=1.0,
        metavar="S",
        help="time per measurement (default 1.0); the number of measurements and the "
        "total time are printed on stderr first",
    )
    p.add_argument("--seed", type=int, default=0, help="first deal seed (default 0)")
    _add_option_argument(p)
    p.add_argument("--no-python", action="store_true", help="skip the Python-driven loop")
    p.add_argument("--json", action="store_true", help="print JSON")
    _match_parsers(sub)
    _render_parsers(sub)
    return parser


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["target=61", "spinner_rule=none"]`` -> ``{"target": 61, "spinner_rule": "none"}``."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise UsageError(f"--option takes KEY=VALUE (e.g. target=61); got {item!r}")
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text
        options[key] = value
    return options


# -- variants ----------------------------------------------------------------------------


def _describe(v: Variant, out: TextIO) -> None:
    players = ", ".join(map(str, v.players))
    print(f"{v.name}  (base {v.base}; players {players}; plugin {v.plugin})", file=out)
    print(f"  {v.description}", file=out)
    if v.move_scorer is not None:
        print("  move scoring: a Python move_scorer (slow path)", file=out)
    rules = v.game_rules
    if rules is not None and rules is not family_rules(v.base):  # a game of its own
        print(f"  game rules: {rules.__module__}.{rules.__qualname__}", file=out)
    width = max((len(n) for n in v.options), default=0)
    dwidth = max((len(show(o.default)) for o in v.options.values()), default=0)
    for name, o in v.options.items():
        if o.choices is not None:
            allowed = " | ".join(show(c) for c in o.choices)
        else:
            allowed = o.expects or ""
        if o.per_players:
            allowed += "; or {players: n}"
            if o.presets:
                presets = ", ".join(f"{k} = {show(p)}" for k, p in o.presets.items())
                allowed += f"; presets: {presets}"
        print(f"  {name:<{width}}  {show(o.default):<{dwidth}}  {allowed}", file=out)
        print(f"  {'':<{width}}  {o.doc}", file=out)


def _print_json(data: list[dict[str, Any]], one: str | None, out: TextIO) -> int:
    """The JSON of what a listing command shows: one object when one name was asked for."""
    json.dump(data[0] if one else data, out, indent=2, ensure_ascii=False)
    print(file=out)
    return 0


def cmd_variants(args: argparse.Namespace, out: TextIO) -> int:
    chosen = (
        [registry.variant(args.name)]
        if args.name
        else [registry.variant(n) for n in registry.variants()]
    )
    if args.json:
        return _print_json([v.to_dict() for v in chosen], args.name, out)
    for i, v in enumerate(chosen):
        if i:
            print(file=out)
        _describe(v, out)
    return 0


# -- bots --------------------------------------------------------------------------------


def cmd_bots(args: argparse.Namespace, out: TextIO) -> int:
    from . import bot as bots_api
    from .plugins.manager import register_modules

    register_modules(args.plugin)
    names = [args.name] if args.name else bots_api.bots()
    chosen = [bots_api.bot_spec(n) for n in names]
    if args.json:
        return _print_json([b.to_dict() for b in chosen], args.name, out)
    for i, b in enumerate(chosen):
        if i:
            print(file=out)
        variants = b.plays
        print(f"{b.name}  (plugin {b.plugin}; {variants})", file=out)
        print(f"  {b.description}", file=out)
        options = b.all_options
        width = max(len(n) for n in options)
        dwidth = max(len(show(o.default)) for o in options.values())
        for name, o in options.items():
            if o.choices is not None:
                allowed = " | ".join(show(c) for c in o.choices)
            else:
                allowed = o.expects or ""
            print(f"  {name:<{width}}  {show(o.default):<{dwidth}}  {allowed}", file=out)
            if o.doc:
                print(f"  {'':<{width}}  {o.doc}", file=out)
    return 0


# -- plugins -----------------------------------------------------------------------------


def cmd_plugins(args: argparse.Namespace, out: TextIO) -> int:
    infos = registry.plugins()
    if args.json:
        json.dump(infos, out, indent=2)
        print(file=out)
        return 0
    for info in infos:
        where = info["source"]
        if info["dist"]:
            where += f" ({info['dist']} {info['version']})"
        status = "BROKEN, skipped" if info["error"] else "ok"
        print(f"{info['name']}  [{where}] {status}", file=out)
        print(f"  module:   {info['module']}", file=out)
        print(f"  hooks:    {', '.join(info['hooks']) or '-'}", file=out)
        if info["unknown_hooks"]:
            print(f"  unknown:  {', '.join(info['unknown_hooks'])} (not bones hooks)", file=out)
        if info.get("families"):
            print(f"  families: {', '.join(info['families'])}", file=out)
        print(f"  variants: {', '.join(info['variants']) or '-'}", file=out)
        print(f"  bots:     {', '.join(info.get('bots', ())) or '-'}", file=out)
        if info["error"]:
            print(f"  error:    {info['error']}", file=out)
    return 0


# -- bench -------------------------------------------------------------------------------


def _bench_plan(args: argparse.Namespace) -> list[tuple[Variant, int]]:
    names = args.variant or registry.variants()
    chosen = [registry.variant(n) for n in dict.fromkeys(names)]
    if args.seconds <= 0:
        raise UsageError(f"--seconds must be > 0; got {args.seconds}")
    plan: list[tuple[Variant, int]] = []
    for v in chosen:
        counts = v.players if not args.players else [n for n in v.players if n in args.players]
        plan.extend((v, n) for n in dict.fromkeys(counts))
    for n in args.players or []:
        if not any(n in v.players for v in chosen):
            allowed = "; ".join(f"{v.name}: {', '.join(map(str, v.players))}" for v in chosen)
            raise UsageError(f"--players {n} is allowed by none of the variants ({allowed})")
    return plan


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    options = parse_options(args.option)
    plan = _bench_plan(args)
    for v, n in plan:  # check every option before measuring anything
        v.resolve(n, **options)
    try:
        from . import speed
        from .core import playout  # noqa: F401  (fail early when the core is not built)
    except ImportError as exc:
        print(
            f"bones: error: the compiled core is not importable ({exc}); "
            "build it with `pip install -e .`",
            file=sys.stderr,
        )
        return 1
    runs = [
        (v, n, v.move_scorer is None, not args.no_python or v.move_scorer is not None)
        for v, n in plan
    ]
    count = sum(int(core) + int(py) for _, _, core, py in runs)
    shown: dict[str, list[str]] = {}
    for v, n, _, _ in runs:
        shown.setdefault(v.name, []).append(str(n))
    what = "; ".join(f"{name}: {', '.join(ns)} players" for name, ns in shown.items())
    print(
        f"bones bench: {count} measurements of {args.seconds:g} s ({what}): "
        f"about {count * args.seconds:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    rows = []
    if not args.json:
        print(
            f"{'variant':<14}{'players':>7}{'core rounds/s':>15}{'core moves/s':>15}"
            f"{'python moves/s':>16}{'ratio':>8}",
            file=out,
        )
    for v, n in plan:
        # a Python move_scorer cannot run inside the core's playouts: Python loop only
        core = None
        if v.move_scorer is None:
            core = speed.core_playouts(v.name, n, args.seconds, seed=args.seed, **options)
        py = None
        if not args.no_python or core is None:
            py = speed.python_loop(v.name, n, args.seconds, seed=args.seed, **options)
        rows.append({"variant": v.name, "players": n, "core": core, "python": py})
        if not args.json:
            print(_bench_row(v.name, n, core, py), file=out)
            out.flush()
    if args.json:
        json.dump(rows, out, indent=2)
        print(file=out)
    return 0


def _bench_row(name: str, n: int, core: dict[str, Any] | None, py: dict[str, Any] | None) -> str:
    rounds = f"{core['rounds_per_s']:,.0f}" if core else "-"
    moves = f"{core['moves_per_s']:,.0f}" if core else "-"
    py_rate = f"{py['moves_per_s']:,.0f}" if py else "-"
    ratio = f"{core['moves_per_s'] / py['moves_per_s']:,.0f}x" if core and py else "-"
    return f"{name:<14}{n:>7}{rounds:>15}{moves:>15}{py_rate:>16}{ratio:>8}"


# -- match and show ----------------------------------------------------------------------


def _match_parsers(sub: Any) -> None:
    from .match.runner import FORMATS

    p = sub.add_parser(
        "match",
        help="play a match between bots: scores, Elo with 95%% intervals, SPRT",
        description="Play bots against each other on duplicate deals (every deal replayed "
        "with the seats rotated) and report games, points, score and Elo with 95% "
        "intervals, pentanomial counts and an optional SPRT. Every finished game is "
        "appended to a journal; --resume continues a killed match. See docs/matches.md.",
    )
    p.add_argument(
        "bots",
        nargs="*",
        metavar="BOT",
        help="bot specs: NAME or NAME:KEY=VALUE,... (e.g. greedy random:seed=3), or "
        "'cmd:COMMAND LINE' for an external bot (bones-bot protocol, docs/protocol.md); "
        "with --resume they may be left out (read from the journal)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="head-to-head (every bot in each game; default), round-robin (every pair), "
        "gauntlet (the first bot against each other)",
    )
    p.add_argument("--variant", metavar="V", help="variant (default straight)")
    p.add_argument("--players", type=int, metavar="N", help="players per game (default 2)")
    _add_option_argument(p)
    p.add_argument(
        "--games",
        type=int,
        metavar="N",
        help="games per encounter, rounded up to whole duplicate sets (default 100; with "
        "--sprt: until the test decides, at most 1,000,000)",
    )
    p.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="match seed: the deals, the same for the same S (default: drawn at random, "
        "printed and kept in the journal; under --sandbox the deals depend on the "
        "journal's secret too)",
    )
    p.add_argument(
        "--no-duplicate",
        action="store_true",
        help="play each deal once (seatings rotate from deal to deal)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes (default: all cores); with dask: batches in flight (default: "
        "the cluster's threads)",
    )
    p.add_argument(
        "--executor",
        choices=("processes", "dask"),
        default="processes",
        help="where the games run: worker processes here (default), or a Dask cluster "
        "(pip install 'bones[dask]'; needs --scheduler)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the Dask scheduler's address (tcp://host:8786) for --executor dask",
    )
    p.add_argument(
        "--timeout",
        type=float,
        metavar="SEC",
        help="seconds per move; a slower bot loses the game (default 10; 0: no limit)",
    )
    p.add_argument(
        "--tc",
        metavar="GAME+INC[:cpu|:wall]",
        help="a clock per game and bot, cutechess style: GAME seconds, plus INC seconds "
        "after each move (e.g. 10+0.1); a bot whose clock runs out loses the game; "
        ":cpu counts each bot's own CPU time (the default with --sandbox), :wall wall time "
        "(the default without)",
    )
    p.add_argument(
        "--bot-logs",
        metavar="DIR",
        help="keep the stderr of every bot that runs as a child process (cmd: specs, "
        "--isolate) in DIR, one file per game and seat: game-ID-seat-S.log, 1 MiB at most",
    )
    p.add_argument(
        "--affinity",
        choices=("game", "off"),
        default="game",
        help="with bots that run as child processes: game (default) puts each worker and "
        "the bots of its games on one CPU, so a turn is a process switch, not a wake-up of "
        "another CPU; off lets the system place them (bots that think on several threads)",
    )
    p.add_argument(
        "--isolate",
        action="store_true",
        help="run every bot as a child process over the bones-bot protocol (python -m "
        "bones.protocol.server SPEC): it is handed only what its seat may know, and the "
        "--plugin modules are imported by the bots' processes only, never by the runner "
        "or its workers; a process boundary, not a sandbox: see --sandbox",
    )
    p.add_argument(
        "--sandbox",
        action="store_true",
        help="run every bot (cmd: specs, and the others as with --isolate) inside "
        "bubblewrap, a fresh process for every game: no network, no view of other "
        "processes or of the runner's files, a private /tmp, limits on memory, processes "
        "and file size (docs/contest.md); fails before the match if bwrap is missing",
    )
    p.add_argument(
        "--sandbox-memory",
        type=int,
        metavar="MB",
        help="with --sandbox: the address space of each bot process, and the memory of each "
        "bot's whole process tree where cgroups are writable, in MiB (default 1024)",
    )
    p.add_argument(
        "--sprt",
        nargs="*",
        metavar="KEY=VALUE",
        help="play until a GSPRT decides (or --games, if given, are played): elo0=0 elo1=10 "
        "alpha=0.05 beta=0.05 (the defaults; any of them, also comma separated: --sprt "
        "elo0=0,elo1=5); it takes only KEY=VALUE words, so bots may follow",
    )
    p.add_argument(
        "--secret",
        metavar="HEX",
        help="key of the bots' seeds (default: drawn at random for a new match and kept in "
        "the journal); give one to play the same games again in another journal",
    )
    p.add_argument(
        "--secret-file",
        metavar="PATH",
        help="read --secret from PATH (its hex digits), so that it is not on the command "
        "line, which every process of the machine can read",
    )
    p.add_argument(
        "--journal",
        metavar="PATH",
        help="the results journal (default: a file named after the match, here)",
    )
    p.add_argument("--resume", action="store_true", help="continue the journal's match")
    p.add_argument("--overwrite", action="store_true", help="start an existing journal again")
    p.add_argument(
        "--allow-changed-bots",
        action="store_true",
        help="continue a journal whose bots changed since its games were played (another "
        "plugin version, program or options); the change is recorded in the journal",
    )
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE and register it as a bones plugin (bots not installed as "
        "entry points; repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (default auto: when stderr is a terminal)",
    )

    p = sub.add_parser(
        "ratings",
        help="a rating list (Elo with 95%% intervals) over the games of many journals",
        description="Fit Bradley-Terry (logistic Elo) ratings by maximum likelihood to "
        "every game of the journals (draws half a win; a game of more than two sides as "
        "its pairwise results) and give each bot a 95% interval from a bootstrap over the "
        "deals (each deal's games together: pentanomial-aware). See docs/matches.md.",
    )
    p.add_argument("journals", nargs="+", metavar="JOURNAL", help="match journals")
    p.add_argument(
        "--anchor",
        metavar="BOT=ELO",
        help="fix BOT's rating at ELO (default: the ratings' mean is 0)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="resamples for the intervals (default 1000; 0: no intervals)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    p.add_argument(
        "--prior",
        type=float,
        default=0.0,
        metavar="D",
        help="D virtual draws between every two bots that met (default 0); needed when a "
        "bot won or lost every game",
    )
    p.add_argument(
        "--pool",
        action="store_true",
        help="rate journals of different variants or player counts in one list (refused "
        "without it)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser(
        "games",
        help="list the games of a journal, with filters; write one as a text record",
        description="List the games of a match journal: id, seats, result, length in "
        "moves and forfeits. With --game N --record, print that game as a plain-text "
        "record that bones show and bones replay read back. See docs/matches.md.",
    )
    p.add_argument("journal", metavar="JOURNAL", help="a match journal")
    p.add_argument(
        "--lost-by",
        metavar="BOT",
        help="only games BOT did not win: someone won and none of its seats did (a spec or a "
        "bot name)",
    )
    p.add_argument("--forfeits", action="store_true", help="only games with a forfeit")
    p.add_argument("--variant", metavar="V", help="only games of variant V")
    p.add_argument("--limit", type=int, metavar="N", help="list at most N games")
    p.add_argument("--game", type=int, metavar="N", help="with --record: the game id")
    p.add_argument(
        "--record",
        action="store_true",
        help="print game --game N as a plain-text game record (docs/matches.md)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser(
        "serve-bot",
        help="run a bot as a bones-bot protocol process on stdin/stdout",
        description="Serve the bot of SPEC over the bones-bot protocol (docs/protocol.md): "
        "frames on stdin and stdout, the bot's prints on stderr. A fresh bot for every game, "
        "with the seed of game_start unless SPEC names one.",
    )
    p.add_argument("spec", metavar="SPEC", help="a bot spec: greedy, random:seed=3, ...")
    p.add_argument(
        "--strict",
        action="store_true",
        help="check every observation with Observation.from_msgpack (slower)",
    )
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="register MODULE as a bones plugin first, for a bot that is not installed "
        "(repeatable)",
    )
    p.add_argument(
        "--sandbox",
        action="store_true",
        help="serve the bot from inside bubblewrap, as bones match --sandbox runs it: no "
        "network, no view of other processes or of files beyond its own, limits on memory, "
        "processes and file size (docs/contest.md)",
    )

    p = sub.add_parser(
        "show",
        help="replay a recorded game move by move",
        description="Replay a game of a match journal (or a record file) with the engine "
        "and print every move with its seat and events, each round's layout and the scores.",
    )
    p.add_argument(
        "record",
        metavar="RECORD",
        help="a match journal, a game record file (JSON) or a text game record",
    )
    p.add_argument("--game", type=int, metavar="N", help="the game id in a journal")
    p.add_argument("--json", action="store_true", help="print the record itself as JSON")
    p.add_argument(
        "--record",
        dest="record_text",
        action="store_true",
        help="print the game as a plain-text game record (which bones show and bones "
        "replay read back; docs/matches.md)",
    )
    p.add_argument(
        "--svg",
        metavar="FILE",
        help="draw a position of the game as SVG into FILE (default: the end of the last "
        "round; see --round and --ply)",
    )
    p.add_argument("--round", type=int, metavar="R", help="with --svg: round R (1-based)")
    p.add_argument(
        "--ply", type=int, metavar="K", help="with --svg: after K moves of the round (0: the deal)"
    )
    p.add_argument(
        "--seat",
        type=int,
        metavar="S",
        help="with --svg: as seat S saw it (the other hands and the boneyard face down)",
    )


def _render_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="write an HTML page that steps through a recorded game",
        description="Write one self-contained HTML page (no network) that steps through a "
        "game of a match journal with buttons and the arrow keys: the board after each "
        "move, the count, the scores, and every draw and pass explained. See docs/render.md.",
    )
    p.add_argument(
        "record",
        metavar="JOURNAL",
        help="a match journal, a game record file (JSON) or a text game record",
    )
    p.add_argument("--game", type=int, metavar="N", help="the game id in a journal")
    p.add_argument("--html", required=True, metavar="FILE", help="the page to write")
    p.add_argument(
        "--seat",
        type=int,
        metavar="S",
        help="as seat S saw it: the other hands and the boneyard face down",
    )

    p = sub.add_parser(
        "journal",
        help="check a match journal line by line, or repair a damaged one",
        description="check: name every bad line of a journal (not JSON, a record with "
        "wrong fields or without a valid MAC, a resume line of another match); exit 1 if "
        "there is one. repair: rewrite the journal without them, every other line kept as "
        "it was, and append them to JOURNAL.bad, so that --resume goes on. See "
        "docs/matches.md, Damaged journals.",
    )
    p.add_argument("action", choices=("check", "repair"), help="what to do")
    p.add_argument("journal", metavar="JOURNAL", help="a match journal")

    p = sub.add_parser(
        "report",
        help="a match's table; with --html, a report page with plots",
        description="Print the match table of a journal (each bot's score with its 95% "
        "interval, pairs, SPRT, forfeits); with --html FILE write one self-contained HTML "
        "page: the table, the scores with their intervals, the scores over the games and "
        "the SPRT's log-likelihood ratio against its bounds (needs matplotlib: pip install "
        "'bones[plot]').",
    )
    p.add_argument("journal", metavar="JOURNAL", help="a match journal")
    p.add_argument("--html", metavar="FILE", help="write the HTML report page to FILE")

    p = sub.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="Play a game in the terminal: 'human' seats are typed at the keyboard, "
        "the others are bots. Ctrl-C (or q) saves the game; --resume FILE continues it.",
    )
    p.add_argument("--variant", metavar="V", help="variant (default straight)")
    p.add_argument("--players", type=int, metavar="N", help="players (default: the seats)")
    p.add_argument(
        "--seats",
        metavar="SPECS",
        help="one spec per seat, comma separated: human or a bot spec "
        "(default human,greedy); a bot's options: NAME:KEY=VALUE",
    )
    _add_option_argument(p)
    p.add_argument("--seed", type=int, metavar="S", help="game seed (default: a random one)")
    p.add_argument(
        "--save",
        metavar="FILE",
        help="where Ctrl-C saves the game (default: the --resume file, else bones-play.game)",
    )
    p.add_argument("--resume", metavar="FILE", help="continue the game saved in FILE")


_SPRT_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=[^,:]*(,[A-Za-z_][A-Za-z0-9_]*=[^,:]*)*,?")


def _split_sprt(args: argparse.Namespace) -> None:
    """``--sprt`` takes only KEY=VALUE words (``elo1=5``, ``elo0=0,elo1=5``): the words
    after them that are not (bot specs: ``greedy``, ``random:seed=3``) are bots."""
    if not args.sprt:
        return
    words = list(args.sprt)
    keep = 0
    while keep < len(words) and _SPRT_WORD.fullmatch(words[keep]):
        keep += 1
    args.sprt = words[:keep]
    args.bots = list(args.bots) + words[keep:]


def _match_config(args: argparse.Namespace) -> tuple[Any, str | None]:
    from .match.journal import JournalError, JournalReader, empty_journal
    from .match.runner import MatchConfig, MatchError, trusted_plugins
    from .match.schedule import new_seed
    from .match.stats import SPRT

    _split_sprt(args)
    old: dict[str, Any] = {}
    path = args.journal
    # the command line's words, not the config's (which says "> 0 seconds or null")
    if args.timeout is not None and not args.timeout >= 0:
        raise UsageError(
            f"--timeout takes seconds per move > 0, or 0 for no limit; got {args.timeout:g}"
        )
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs takes a number of workers >= 1; got {args.jobs}")
    if args.resume:
        if not args.bots and not path:
            raise UsageError("--resume without bots needs --journal PATH (the match to resume)")
        if path and os.path.exists(path):
            try:
                reader = JournalReader(path)
            except JournalError as exc:
                raise MatchError(f"--resume: {exc}") from None
            try:
                old = reader.final_config() or {}
            finally:
                reader.close()
        if not args.bots and not old:
            why = f"{path}: no such file" if not os.path.exists(path) else empty_journal(path)
            raise MatchError(f"--resume: {why}; give the bots to start a new match there")
    if not args.resume and not args.bots:
        raise UsageError("give at least 2 bots, e.g. bones match greedy random")

    def pick(value: Any, key: str, default: Any) -> Any:
        return value if value is not None else old.get(key, default)

    sprt = old.get("sprt")
    if args.sprt is not None:
        try:
            sprt = SPRT.parse(args.sprt).to_dict()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    timeout = pick(args.timeout, "timeout", 10.0)
    options = parse_options(args.option) if args.option else old.get("options", {})
    plugins = list(args.plugin)
    if not plugins and old.get("plugins"):  # named by the journal: only if installed
        where = f"--resume: the journal {path}"
        plugins = list(trusted_plugins(old["plugins"], args.plugin, where))
    secret = args.secret
    if args.secret_file is not None:
        if secret is not None:
            raise UsageError("give --secret or --secret-file, not both")
        try:
            with open(args.secret_file, encoding="utf-8") as f:
                secret = f.read(1024)
        except (OSError, UnicodeDecodeError) as exc:
            what = exc.strerror if isinstance(exc, OSError) else "not text"
            raise UsageError(f"--secret-file {args.secret_file}: {what or exc}") from None
    if secret is not None:
        secret = secret.strip().lower()
        if not re.fullmatch(r"[0-9a-f]{32,128}", secret):
            where = "--secret" if args.secret_file is None else "--secret-file's file"
            raise UsageError(f"{where} takes 32 to 128 hex digits (e.g. 64, as the journal has)")
    data = {
        "bots": list(args.bots) or old.get("bots", []),
        "variant": pick(args.variant, "variant", "straight"),
        "players": pick(args.players, "players", 2),
        "options": options,
        "format": pick(args.format, "format", "head-to-head"),
        # --sprt without --games: until the test decides (to a safety maximum), also
        # when it is added to a journal that was played with a number of games
        "games": args.games
        if args.games is not None
        else None
        if args.sprt is not None
        else old.get("games", 100),
        "seed": pick(args.seed, "seed", None),
        "duplicate": False if args.no_duplicate else old.get("duplicate", True),
        "timeout": None if not timeout else timeout,
        "sprt": sprt,
        "plugins": plugins,
        "secret": secret,
        "isolate": True if args.isolate else old.get("isolate", False),
        "sandbox": True if args.sandbox else old.get("sandbox", False),
        "sandbox_memory": pick(args.sandbox_memory, "sandbox_memory", None),
        "tc": pick(args.tc, "tc", None),
        "bot_logs": pick(args.bot_logs, "bot_logs", None),
        "order": old.get("order", "id") if old else "shuffled",
    }
    if data["seed"] is None and path and os.path.exists(path) and not args.overwrite:
        data["seed"] = _journal_seed(path)  # its match goes on (or another is refused)
    if data["seed"] is None:
        if args.resume and not old:
            raise UsageError(
                "--resume of a match without --seed needs --journal PATH (its seed was "
                "drawn at random: the journal keeps it)"
            )
        data["seed"] = new_seed()  # the table and the journal show it
    if data["sandbox_memory"] is not None and not data["sandbox"]:
        raise UsageError("--sandbox-memory is a limit of --sandbox: give --sandbox too")
    return MatchConfig.from_dict(data), path


def _journal_seed(path: str) -> int | None:
    """The match seed of the journal at ``path`` (None: not a journal with one)."""
    from .match.journal import JournalError, JournalReader

    try:
        reader = JournalReader(path)
    except (JournalError, OSError):
        return None
    try:
        seed = (reader.config or {}).get("seed")
    finally:
        reader.close()
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def cmd_match(args: argparse.Namespace, out: TextIO) -> int:
    from .match.report import format_table
    from .match.runner import run_match

    config, path = _match_config(args)
    progress = {"auto": None, "always": True, "never": False}[args.progress]
    if config.sandbox:  # which limits this machine puts in force: cgroups or rlimits only
        from .protocol.sandbox import limits

        print(f"bones: {limits(config.sandbox_policy())}", file=sys.stderr)
    cluster = None
    if args.executor == "dask":
        from .match.executors import DaskExecutor

        if not args.scheduler:
            raise OptionError("--executor dask needs --scheduler ADDRESS (tcp://host:8786)")
        cluster = DaskExecutor(args.scheduler)
    elif args.scheduler:
        raise OptionError("--scheduler is for --executor dask")
    try:
        summary = run_match(
            config,
            path,
            jobs=args.jobs or (cluster.threads if cluster is not None else None),
            resume=args.resume,
            overwrite=args.overwrite,
            progress=progress,
            executor=cluster.executor if cluster is not None else None,
            affinity=args.affinity == "game",
            allow_changed_bots=args.allow_changed_bots,
        )
    finally:
        if cluster is not None:
            cluster.close()
    if args.json:
        json.dump(summary, out, indent=2)
        print(file=out)
    else:
        print(format_table(summary), file=out)
    return 130 if summary.get("interrupted") else 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise BonesError(f"cannot write {path}: {exc.strerror or exc}") from None


def _show_svg(record: dict[str, Any], args: argparse.Namespace, out: TextIO) -> int:
    from .render.replay import replay_steps
    from .render.svg import render_frame

    steps = replay_steps(record, args.seat)
    rounds = max(s.round for s in steps)
    number = rounds if args.round is None else args.round
    if not 1 <= number <= rounds:
        raise UsageError(f"--round {number}: the game has rounds 1 to {rounds}")
    plies = [s for s in steps if s.round == number]
    ply = len(plies) - 1 if args.ply is None else args.ply
    if not 0 <= ply < len(plies):
        raise UsageError(f"--ply {ply}: round {number} has plies 0 to {len(plies) - 1}")
    _write(args.svg, render_frame(plies[ply].frame))
    print(f"{args.svg}: round {number} after {ply} moves, {plies[ply].tiles} tiles", file=out)
    return 0


def _load_record(path: str, game: int | None) -> dict[str, Any]:
    """A game record from a journal, a JSON record file or a text game record (which is
    replayed and checked line by line: bones.match.gamerecord)."""
    from .match.gamerecord import is_text_record, read_text_record
    from .match.journal import JournalError, load_record

    if is_text_record(path):
        record = read_text_record(path)
        if game is not None and record["id"] != game:
            raise JournalError(f"{path} is the record of game {record['id']}, not game {game}")
        return record
    return load_record(path, game)


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    from .match.journal import show as show_record

    if (args.round is not None or args.ply is not None or args.seat is not None) and not args.svg:
        raise UsageError("--round, --ply and --seat go with --svg FILE")
    if args.record_text and (args.svg or args.json):
        raise UsageError("--record prints the text record: not with --svg or --json")
    record = _load_record(args.record, args.game)
    if args.record_text:
        from .match.gamerecord import write_text_record

        out.write(write_text_record(record))
        return 0
    if args.svg:
        return _show_svg(record, args, out)
    if args.json:
        json.dump(record, out, indent=2)
        print(file=out)
        return 0
    show_record(record, out)
    return 0


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    from .render.replay import replay_html

    record = _load_record(args.record, args.game)
    _write(args.html, replay_html(record, args.seat))
    print(f"{args.html}: replay of game {record.get('id', '?')}", file=out)
    return 0


def cmd_ratings(args: argparse.Namespace, out: TextIO) -> int:
    from .match.ratings import format_ratings, rate_journals

    anchor = None
    if args.anchor is not None:
        name, eq, value = args.anchor.rpartition("=")
        try:
            elo = float(value)
        except ValueError:
            elo = math.nan
        if not eq or not name or not math.isfinite(elo):
            raise UsageError(f"--anchor takes BOT=ELO (e.g. greedy=1500); got {args.anchor!r}")
        anchor = (name, elo)
    ratings = rate_journals(
        args.journals,
        anchor=anchor,
        bootstrap=args.bootstrap,
        seed=args.seed,
        prior=args.prior,
        pool=args.pool,
    )
    for warning in ratings.warnings:
        print(f"bones: warning: {warning}", file=sys.stderr)
    if args.json:
        json.dump(ratings.to_dict(), out, indent=2)
        print(file=out)
    else:
        print(format_ratings(ratings), file=out)
    return 0


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    from .match.games import format_games, list_games

    if args.record:
        from .match.gamerecord import write_text_record

        if args.lost_by or args.forfeits or args.variant or args.limit is not None or args.json:
            raise UsageError("--record prints one game: give only --game N")
        out.write(write_text_record(_load_record(args.journal, args.game)))
        return 0
    if args.game is not None:
        raise UsageError("--game N goes with --record (or use bones show JOURNAL --game N)")
    if args.limit is not None and args.limit < 0:
        raise UsageError(f"--limit must be >= 0; got {args.limit}")
    rows, warnings, matched = list_games(
        args.journal,
        lost_by=args.lost_by,
        forfeits=args.forfeits,
        variant=args.variant,
        limit=args.limit,
    )
    for warning in warnings:
        print(f"bones: warning: {warning}", file=sys.stderr)
    if args.json:
        json.dump(rows, out, indent=2)
        print(file=out)
    else:
        print(format_games(rows, matched, details=args.forfeits), file=out)
    return 0


def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    if args.html is None:  # the match's table, as bones match printed it
        from .match.report import format_table, journal_summary

        summary = journal_summary(args.journal)
        for warning in summary.get("warnings") or []:
            print(f"bones: warning: {warning}", file=sys.stderr)
        print(format_table(summary), file=out)
        return 0
    from .render.report import report_html

    _write(args.html, report_html(args.journal))
    print(f"{args.html}: report of {args.journal}", file=out)
    return 0


def cmd_journal(args: argparse.Namespace, out: TextIO) -> int:
    import shlex

    from .match.repair import check, repair, side_file

    path = args.journal
    found = repair(path) if args.action == "repair" else check(path)
    for warning in found.warnings:
        print(f"bones: warning: {warning}", file=sys.stderr)
    earlier = (
        f"; {side_file(path)} holds {found.set_aside} line(s) set aside before"
        if found.set_aside
        else ""
    )
    if not found.bad:
        print(f"{path}: no bad line ({found.games} games){earlier}", file=out)
        return 0
    print(f"{path}: {len(found.bad)} bad line(s) of {found.lines}:", file=out)
    for number, why in found.bad:
        print(f"  line {number}: {why}", file=out)
    if args.action == "repair":
        print(
            f"Repaired: {found.games} games kept, {len(found.bad)} line(s) set aside in "
            f"{side_file(path)}; bones match --resume --journal {shlex.quote(path)} plays "
            "the games they held again",
            file=out,
        )
        return 0
    print(
        f"bones journal repair {shlex.quote(path)} keeps the {found.games} good games and "
        f"sets the bad lines aside in {side_file(path)}{earlier}",
        file=out,
    )
    return 1


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    from .render.play import load_game, play_game

    if args.resume:
        if args.variant or args.players or args.seats or args.option or args.seed is not None:
            raise UsageError("--resume FILE continues a saved game: give no other game option")
        game, seats = load_game(args.resume)
    else:
        import secrets

        from .game import new_game

        seats = [s.strip() for s in (args.seats or "human,greedy").split(",")]
        if not all(seats):
            raise UsageError(f"--seats: an empty seat in {args.seats!r}")
        players = args.players or len(seats)
        if players != len(seats):
            raise UsageError(f"--players {players} but {len(seats)} seats in --seats")
        seed = secrets.randbelow(1 << 31) if args.seed is None else args.seed
        game = new_game(args.variant or "straight", players, seed, **parse_options(args.option))
        _check_seats(seats, game.variant)  # before the banner: a bad seat is a usage error
        print(f"bones play: {game.variant}, {players} players, seed {seed}", file=out)
    save = args.save or args.resume or "bones-play.game"
    # a game resumed from its file saves back there; any other file is never written over
    replace = args.resume is not None and os.path.abspath(save) == os.path.abspath(args.resume)
    return play_game(game, seats, save_path=save, out=out, replace=replace)


def _check_seats(seats: Sequence[str], variant: str) -> None:
    from .bot import check_spec
    from .render.play import HUMAN

    for seat, spec in enumerate(seats):
        if spec == HUMAN:
            continue
        try:
            bspec = check_spec(spec)
        except OptionError as exc:
            raise UsageError(f"--seats: seat {seat}: {exc}") from None
        if not bspec.supports(variant):
            plays = ", ".join(bspec.variants or ())
            raise UsageError(
                f"--seats: seat {seat}: bot {bspec.name!r} does not play {variant}; "
                f"it plays: {plays}"
            )
        try:
            check_spec(spec, variant)  # an option that does not apply to the variant
        except OptionError as exc:
            raise UsageError(f"--seats: seat {seat}: {exc}") from None


def cmd_serve_bot(args: argparse.Namespace, out: TextIO) -> int:
    from .protocol.server import serve_spec

    if args.sandbox:  # run this same command again inside the sandbox, as its child
        return _serve_sandboxed(args)
    return serve_spec(args.spec, args.strict, plugins=args.plugin)


def _serve_sandboxed(args: argparse.Namespace) -> int:
    """``serve-bot --sandbox``: the sandboxed server, on this process's stdin and stdout,
    as a child (not exec'd: its cgroup is removed here when it ends; SIGTERM, SIGINT
    and SIGHUP end it too).  Its exit status, or 128 + the signal that killed it."""
    import signal
    import subprocess

    from .match.schedule import bot_command
    from .protocol.sandbox import Launch

    command = list(bot_command(args.spec, True, args.plugin, sandbox=True) or ())
    if args.strict:
        command.append("--strict")
    job = Launch(command)

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    sys.stdout.flush()
    try:
        proc = subprocess.Popen(job.argv, pass_fds=job.fds)
        job.started()
        code = proc.wait()
    finally:
        job.close()  # kills what is left in the cgroup (bwrap dies with this process)
    return code if code >= 0 else 128 - code


COMMANDS = {
    "variants": cmd_variants,
    "bots": cmd_bots,
    "plugins": cmd_plugins,
    "bench": cmd_bench,
    "match": cmd_match,
    "show": cmd_show,
    "replay": cmd_replay,
    "report": cmd_report,
    "journal": cmd_journal,
    "ratings": cmd_ratings,
    "games": cmd_games,
    "play": cmd_play,
    "serve-bot": cmd_serve_bot,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 usage error)."""
    parser = _parser()
    out = sys.stdout
    try:
        try:
            args, extra = parser.parse_known_args(argv)
        except SystemExit as exc:  # --help, --version
            return exc.code if isinstance(exc.code, int) else 0
        if extra:  # bones match greedy --games 10 random: bots after options are bots
            if args.command != "match" or any(e.startswith("-") for e in extra):
                raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
            args.bots = list(args.bots) + extra
        if not args.command:
            parser.print_help(out)
            return 2
        return COMMANDS[args.command](args, out)
    except (UsageError, OptionError) as exc:
        print(f"bones: error: {exc}", file=sys.stderr)
        return 2
    except BonesError as exc:
        print(f"bones: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `bones variants | head`: silence the flush at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
