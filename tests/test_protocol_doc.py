"""docs/protocol.md holds what a bot writer needs, and it is true: the grammar of move
text, the msgpack type of every field, the ranges of seed and id, what happens to a bot
that does not play the match's variant, and how a ``cmd:`` line is split.  Each test
reads the statement from the document itself (its grammar, its tables, its examples),
so the document cannot drift from the code."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import string
import sys
from pathlib import Path

import msgpack
import pytest

import bones
from bones.bot import command_of, make_bot, play_round
from bones.core.actions import ActionSpace
from bones.core.moves import END_NAMES
from bones.errors import OptionError
from bones.protocol import ExternalBot
from bones.protocol.client import MAX_SEED, Fault, answer_move

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
MINIMAL = [sys.executable, str(ROOT / "examples" / "python" / "minimal_bot.py")]
RANDOM = [sys.executable, str(ROOT / "examples" / "python" / "random_bot.py")]


# ---------------------------------------------------------------------------------------
# Reading the document


def section(title: str) -> str:
    """The text under the heading ``title`` (any level), up to the next heading of the
    same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(title)}\n", DOC, re.M)
    assert match is not None, f"docs/protocol.md has no section {title!r}"
    level = len(match.group(1))
    rest = DOC[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest if end is None else rest[: end.start()]


def tables(text: str) -> list[list[list[str]]]:
    """The markdown tables of ``text``: each a list of rows (the header first, the
    separator row left out), each row its cells, stripped."""
    out: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= {"-", ":"} for c in cells):
                current.append(cells)
        elif current:
            out.append(current)
            current = []
    return out


def table(text: str, header: list[str]) -> list[list[str]]:
    """The rows (without the header) of the one table of ``text`` with this header."""
    found = [t[1:] for t in tables(text) if t[0] == header]
    assert len(found) == 1, f"no single table {header} in the section"
    return found[0]


def code(cell: str) -> str:
    """The text of a cell that is one code span, as written between the backticks."""
    match = re.fullmatch(r"`(.*)`", cell)
    assert match is not None, f"not a code span: {cell!r}"
    return match.group(1)


# ---------------------------------------------------------------------------------------
# The grammar of move text


def grammar() -> dict[str, str]:
    """The rules of the ```ebnf block of "Move text": name -> its expression."""
    block = re.search(r"```ebnf\n(.*?)```", section("Move text"), re.S)
    assert block is not None
    rules = {}
    for line in block.group(1).splitlines():
        name, sep, expr = line.partition("::=")
        assert sep, f"not a rule: {line!r}"
        rules[name.strip()] = expr.strip()
    return rules


_TOKEN = re.compile(
    r'\s*(?:(?P<lit>"[^"]*")|(?P<cls>\[[^\]]*\])|(?P<name>[a-z][a-z-]*)|(?P<op>[|?*+()]))'
)


def regex_of(rules: dict[str, str], name: str) -> str:
    """A Python regular expression for rule ``name`` of the W3C-EBNF ``rules``."""
    out = []
    expr = rules[name]
    pos = 0
    while pos < len(expr.rstrip()):
        match = _TOKEN.match(expr, pos)
        assert match is not None, f"cannot read {expr[pos:]!r} in rule {name}"
        pos = match.end()
        if match["lit"]:
            out.append(re.escape(match["lit"][1:-1]))
        elif match["cls"]:
            out.append(match["cls"])
        elif match["name"]:
            out.append(f"(?:{regex_of(rules, match['name'])})")
        else:
            out.append(match["op"])
    return "".join(out)


def compiled(rule: str) -> re.Pattern[str]:
    return re.compile(regex_of(grammar(), rule))


def language(rule: str, alphabet: str, lengths: range) -> set[str]:
    """Every string over ``alphabet`` of the given lengths that ``rule`` matches."""
    pattern = compiled(rule)
    return {
        "".join(chars)
        for n in lengths
        for chars in itertools.product(alphabet, repeat=n)
        if pattern.fullmatch("".join(chars))
    }


def test_the_grammar_names_every_end_and_tile_and_nothing_else():
    assert language("end", string.ascii_letters + string.digits, range(1, 3)) == set(END_NAMES)
    tiles = {str(t) for t in bones.TILES}
    assert language("tile", "0123456789-", range(1, 4)) == tiles
    assert language("double", "0123456789-", range(1, 4)) == {t for t in tiles if t[0] == t[2]}
    assert all(t.high >= t.low for t in bones.TILES)  # the grammar's order: high first


ACTION_SPACES = [
    ("straight", 2, {}),
    ("straight", 4, {"spinner_rule": "all_doubles", "muggins_claim": True}),
    ("straight", 2, {"may_draw_with_playable": True}),
    ("kozel", 2, {}),
    ("kozel", 4, {}),
    ("multiplayer", 2, {"voluntary_pass": True}),
    ("draw", 3, {}),
    ("block", 4, {}),
]


def test_every_move_of_every_variant_matches_the_grammar():
    move = compiled("move")
    seen = set()
    for variant, players, options in ACTION_SPACES:
        space = ActionSpace(variant, players, **options)
        for index in range(space.size):
            text = str(space.move(index))
            assert move.fullmatch(text), f"{variant}: {text!r} does not match the grammar"
            seen.add(text)
    # every kind of move was there: leads, every end, double-doubles, claims, keywords
    assert {"draw", "pass", "muggins", "6-4", "5-5!", "2-2@W+5-5@E", "4-2@S7"} <= seen
    assert {t.split("@")[1].rstrip("!") for t in seen if "@" in t and "+" not in t} == set(
        END_NAMES
    )


def test_every_text_of_the_grammar_is_a_move_that_reads_back_to_itself():
    move = compiled("move")
    tiles = [str(t) for t in bones.TILES]
    doubles = [t for t in tiles if t[0] == t[2]]
    texts = ["draw", "pass", "muggins"]
    for tile, claim in itertools.product(tiles, ("", "!")):
        texts += [tile + claim] + [f"{tile}@{end}{claim}" for end in END_NAMES]
    checked = 0
    for text in texts:
        assert move.fullmatch(text)
        assert str(bones.Move.parse(text)) == text
        checked += 1
    # double-doubles: two different doubles at two different ends, in END_NAMES order
    order = {name: i for i, name in enumerate(END_NAMES)}
    for a, b in itertools.permutations(doubles, 2):
        for e1, e2 in itertools.permutations(END_NAMES, 2):
            for claim in ("", "!"):
                text = f"{a}@{e1}+{b}@{e2}{claim}"
                assert move.fullmatch(text)
                canonical = text if order[e1] < order[e2] else f"{b}@{e2}+{a}@{e1}{claim}"
                assert str(bones.Move.parse(text)) == canonical
                checked += 1
    assert checked > 20_000
    for bad in ("4-6@W", "6-4@w", "6-4@X", "6-4@N8", "Draw", "draw!", "6-4@W!!", "7-1", "6-4 "):
        assert not move.fullmatch(bad), bad


def _move_tables():
    text = section("Move text")
    return (
        table(text, ["text", "what it is"]),
        table(text, ["answer", "read as"]),
        table(text, ["answer", "refused because"]),
    )


def test_the_examples_of_move_text_are_canonical_and_read_back():
    move = compiled("move")
    canonical, _, _ = _move_tables()
    assert len(canonical) >= 10
    for cell, _meaning in canonical:
        text = code(cell)
        assert move.fullmatch(text), text
        assert str(bones.Move.parse(text)) == text


def test_the_runner_reads_every_accepted_spelling_and_refuses_the_others():
    _, accepted, refused = _move_tables()
    assert len(accepted) >= 8 and len(refused) >= 8
    for answer_cell, canonical_cell in accepted:
        answer, canonical = code(answer_cell), code(canonical_cell)
        assert answer != canonical
        assert str(bones.Move.parse(answer)) == canonical, answer
        legal = (bones.Move.parse("pass"), bones.Move.parse(canonical))
        got = answer_move({"type": "move", "id": 3, "move": answer}, 3, legal)
        assert got is legal[1]
    every_move = tuple(
        bones.Move.parse(t) for t in ("6-4@W", "6-4@W!", "draw", "2-2@W+5-5@E", "6-4@S", "pass")
    )
    for answer_cell, _why in refused:
        answer = code(answer_cell)
        with pytest.raises(ValueError, match="not a move"):
            bones.Move.parse(answer)
        with pytest.raises(Fault) as info:
            answer_move({"type": "move", "id": 3, "move": answer}, 3, every_move)
        assert info.value.kind == "illegal"
    with pytest.raises(Fault) as info:
        answer_move({"type": "move", "id": 3, "move": 7}, 3, every_move)
    assert info.value.kind == "bad_frame"


def test_the_minimal_example_bot_reads_moves_with_the_documented_grammar():
    # its regular expression is the document's grammar, written by hand
    source = (ROOT / "examples" / "python" / "minimal_bot.py").read_text()
    namespace: dict = {}
    exec(compile(source.split("\ndef read_exactly")[0], "minimal_bot.py", "exec"), namespace)
    mine, doc = namespace["MOVE"], compiled("move")
    tiles = [str(t) for t in bones.TILES]
    texts = ["draw", "pass", "muggins", "Draw", "draw!", "2-2+5-5@E", "2-2@W+5-5"]
    texts += [f"{t}{e}{c}" for t in tiles for e in ["", "@X", *(f"@{n}" for n in END_NAMES)]
              for c in ("", "!", "!!")]  # fmt: skip
    texts += ["2-2@W+5-5@E", "2-2@W+5-5@E!", "4-6@W", "6-4@w"]
    for text in texts:
        assert bool(mine.fullmatch(text)) == bool(doc.fullmatch(text)), text


# ---------------------------------------------------------------------------------------
# Types on the wire


def _parse_type(text: str):
    """A checker for a type of the document's notation: ``int``, ``str``, ``bin``,
    ``bool``, ``nil``, ``map``, ``absent``, ``[T]``, ``[T1, T2, ...]``, ``A or B``."""
    text = text.strip()
    parts = _split(text, " or ")
    if len(parts) > 1:
        checks = [_parse_type(p) for p in parts]
        return lambda v: any(c(v) for c in checks)
    if text.startswith("[") and text.endswith("]"):
        items = [_parse_type(p) for p in _split(text[1:-1], ",")]
        if len(items) == 1:
            return lambda v: type(v) is list and all(items[0](x) for x in v)
        return lambda v: (
            type(v) is list
            and len(v) == len(items)
            and all(c(x) for c, x in zip(items, v, strict=True))
        )
    simple = {"int": int, "str": str, "bin": bytes, "bool": bool, "map": dict}
    if text == "nil":
        return lambda v: v is None
    if text == "absent":
        return lambda v: v is _ABSENT
    assert text in simple, f"unknown type {text!r} in docs/protocol.md"
    kind = simple[text]
    return lambda v: type(v) is kind  # an int is never a bool, nor a bool an int


_ABSENT = object()


def _split(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    return [*parts, text[start:]]


def field_types() -> dict[tuple[str, str], dict[str, object]]:
    """(from, message) -> {field path: (type text, checker)} of the fields table."""
    rows = table(
        section("Every field, with its msgpack type"),
        ["from", "message", "field", "type", "values"],
    )
    out: dict[tuple[str, str], dict[str, object]] = {}
    for sender, message, fld, kind, _values in rows:
        fields = out.setdefault((sender, code(message)), {})
        if fld:
            fields[code(fld)] = (kind, _parse_type(kind))
    return out


def observation_types() -> list[tuple[str, object]]:
    rows = table(section("The observation"), ["#", "field", "type", "values"])
    assert [int(r[0]) for r in rows] == list(range(19))
    return [(code(r[1]), _parse_type(r[2])) for r in rows]


def test_the_type_notation_is_read_as_documented():
    check = _parse_type("[[str, int, str or nil, int, int]]")
    assert check([["play", 0, "6-4", 10, 10], ["draw", 1, None, 2, 0]])
    assert not check([["play", 0, "6-4", 10]])
    assert not check([["play", False, "6-4", 10, 10]])  # a bool is not an int
    assert _parse_type("int or nil")(None) and not _parse_type("int")(True)


# Games covering every built-in variant and the options that change the wire: int keys
# in options, claims and muggins, voluntary draws and passes, seven spinners, double-
# doubles, closed ends, four players in partnerships, a clock.
GAMES = [
    ("straight", 2, {"muggins_claim": True}, None),
    ("straight", 4, {"spinner_rule": "all_doubles", "may_draw_with_playable": True}, None),
    ("straight", 3, {"next_leader": "last_bone"}, (30.0, 0.5)),
    ("kozel", 2, {}, None),
    ("kozel", 4, {"hand_size": "classic"}, None),
    ("draw", 3, {"hand_size": {3: 6}}, None),
    ("multiplayer", 2, {"voluntary_pass": True, "table_width": 3, "table_height": 3}, None),
    ("block", 4, {}, None),
]


def _record_games(command: list[str]) -> list[tuple[str, dict]]:
    """Every frame, decoded, of the GAMES with the bot ``command`` at seat 0 against
    in-process random bots: ``(direction, message)``."""
    frames: list[tuple[str, bytes]] = []
    for i, (variant, players, options, clock) in enumerate(GAMES):
        with ExternalBot(
            command, seed=2**63 - 1 - i, trace=lambda d, f: frames.append((d, f))
        ) as ext:
            ext.clock = clock
            for seed in range(2):
                game = bones.new_game(variant, players, seed, **options)
                bots = [ext] + [make_bot("random", seed=s) for s in range(1, players)]
                for seat, bot in enumerate(bots):
                    bot.start_game(seat, variant, players, dict(options))
                while True:
                    play_round(game.round, bots)
                    if game.next_round() is None:
                        break
                for bot in bots:
                    bot.end_game(tuple(game.scores), tuple(game.winners))
                ext.ping()
    return [(d, msgpack.unpackb(f[4:], raw=False, strict_map_key=False)) for d, f in frames]


@pytest.fixture(scope="module")
def recordings():
    """The frames of GAMES with the minimal example (answers by text), and the first
    frames of the random example (answers by index)."""
    return _record_games(MINIMAL), _record_games([*RANDOM, "3"])[:400]


@pytest.fixture(scope="module")
def recorded(recordings):
    return recordings[0] + recordings[1]


def _check_map(value: dict, fields: dict, where: str, prefix: str = "") -> None:
    nested = {p.partition(".")[0] for p in fields if "." in p}
    names = {p for p in fields if "." not in p}
    for name in names:
        kind, check = fields[name]
        got = value.get(name, _ABSENT)
        assert check(got), f"{where}: {prefix}{name} is {got!r}, not {kind}"
        if name in nested:
            sub = {p.partition(".")[2]: t for p, t in fields.items() if p.startswith(name + ".")}
            assert set(got) == set(sub), f"{where}: {name} has the keys {sorted(got)}"
            _check_map(got, sub, where, prefix=name + ".")
    extra = set(value) - names - {"type"}
    assert not extra, f"{where}: fields {extra} are not in docs/protocol.md"


def test_every_field_of_every_frame_has_its_documented_type(recorded):
    documented = field_types()
    obs_fields = observation_types()
    seen: dict[tuple[str, str], int] = {}
    for direction, message in recorded:
        sender = "runner" if direction == "send" else "bot"
        kind = message["type"]
        assert (sender, kind) in documented, f"{sender} message {kind!r} is not documented"
        seen[sender, kind] = seen.get((sender, kind), 0) + 1
        _check_map(message, documented[sender, kind], f"{sender} {kind}")
        if "observation" in message:
            obs = msgpack.unpackb(message["observation"], raw=False, strict_map_key=False)
            assert len(obs) == len(obs_fields)
            for (name, check), value in zip(obs_fields, obs, strict=True):
                assert check(value), f"observation {name} is {value!r}"
    assert set(seen) == set(documented), f"never seen: {set(documented) - set(seen)}"


def _values(recorded, kind, sender="runner"):
    want = "send" if sender == "runner" else "recv"
    return [m for d, m in recorded if d == want and m["type"] == kind]


def test_the_documented_values_hold(recorded):
    starts = _values(recorded, "game_start")
    assert all(0 <= m["seed"] <= 2**63 - 1 for m in starts)
    assert any(m["seed"] >= 2**32 for m in starts)
    assert any(isinstance(k, int) for m in starts for v in m["options"].values()
               if isinstance(v, dict) for k in v)  # fmt: skip
    for m in starts:
        assert 2 <= m["players"] <= 4 and 0 <= m["seat"] < m["players"]
        assert m["seat"] in m["sides"][m["side"]]
        assert all(s == sorted(s) for s in m["sides"])
        tc = m["time_control"]
        assert tc["move_ms"] is None or tc["move_ms"] >= 1
    assert any(m["time_control"]["game_ms"] == 30000 for m in starts)
    kinds = {}
    for m in _values(recorded, "event"):
        kinds.setdefault(m["kind"], []).append(m)
        assert 0 <= m["count"] <= 255 and m["points"] >= 0
    assert set(kinds) == {"play", "draw", "pass", "muggins"}
    move = compiled("move")
    assert all(move.fullmatch(m["move"]) and m["move"] not in ("draw", "pass", "muggins")
               for m in kinds["play"])  # fmt: skip
    assert all(m["move"] is None and m["count"] >= 1 and m["points"] == 0 for m in kinds["draw"])
    assert all((m["move"], m["count"], m["points"]) == (None, 0, 0) for m in kinds["pass"])
    assert all(m["move"] == "muggins" and m["count"] == 0 for m in kinds["muggins"])
    requests = _values(recorded, "move_request")
    assert all(m["legal"] and len(set(m["legal"])) == len(m["legal"]) for m in requests)
    assert all(move.fullmatch(t) for m in requests for t in m["legal"])
    assert all(m["time_left_ms"] is None or m["time_left_ms"] >= 1 for m in requests)
    for m in _values(recorded, "round_end"):
        r = m["result"]
        assert r["reason"] in ("out", "blocked", "target") and r["winners"] == sorted(r["winners"])
        assert all(v >= 0 for v in r["values"])
    assert any(p < 0 for m in _values(recorded, "game_end") for p in m["scores"])
    assert all(m["winners"] == sorted(m["winners"]) for m in _values(recorded, "game_end"))
    # the observation: the things its table says, in real frames
    observations = [
        msgpack.unpackb(m["observation"], raw=False, strict_map_key=False)
        for m in requests + _values(recorded, "round_end")
    ]
    assert all(o[0] == 3 and o[1] == "observation" for o in observations)
    assert any(o[17] for o in observations)  # a closed end (a tiny bounded table)
    assert any("N7" in dict(o[10]) or "S7" in dict(o[10]) or "N2" in dict(o[10])
               for o in observations)  # fmt: skip
    assert all(all(len(e) == 5 for e in o[13]) for o in observations)


def test_request_ids_count_from_1_for_each_process(recordings):
    minimal = recordings[0]  # one process per game of GAMES
    kinds = ("move_request", "ping")
    ids = [m["id"] for d, m in minimal if d == "send" and m["type"] in kinds]
    assert ids[0] == 1
    for prev, cur in itertools.pairwise(ids):
        assert cur == prev + 1 or cur == 1
    assert ids.count(1) == len(GAMES)
    answers = [m["id"] for d, m in minimal if d == "recv" and m["type"] in ("move", "pong")]
    assert answers == ids  # each answer carries its request's id


# ---------------------------------------------------------------------------------------
# Seeds and ids


def test_seed_limits(tmp_path):
    from bones.match.schedule import bot_seed

    assert MAX_SEED == 2**63 - 1
    # bones match: the seeds of the bots, keyed (a secret) or not (old journals)
    seeds = [bot_seed(g, s, k) for g in range(100) for s in range(4) for k in ("5e" * 32, None)]
    assert all(0 <= x <= MAX_SEED for x in seeds)
    assert sum(x >= 2**32 for x in seeds) > 0.99 * len(seeds)
    sent: list[bytes] = []
    with ExternalBot(MINIMAL, seed=2**63 - 1, trace=lambda d, f: sent.append(f)) as ext:
        ext.start_game(0, "straight", 2, {})
        ext.ping()
        start = next(f for f in sent if b"game_start" in f)
        assert b"\xa4seed\xcf\x7f\xff\xff\xff\xff\xff\xff\xff" in start  # uint 64
        for bad in (2**63, -1, True, 1.0, "3"):
            with pytest.raises(ValueError, match=r"seed must be an int from 0 to 2\*\*63 - 1"):
                ext.seed = bad
        assert ext.seed == 2**63 - 1
        ext.seed = 0
        assert ext.seed == 0
    for bad in (2**64, -5):
        with pytest.raises(ValueError, match="seed must be"):
            ExternalBot(MINIMAL, seed=bad)
        with pytest.raises(ValueError, match="seed must be"):
            make_bot("cmd:" + shlex.join(MINIMAL), seed=bad)


def test_a_late_pong_is_ignored_and_a_move_for_another_id_is_a_bad_frame():
    rnd = bones.Round.deal("straight", players=2, seed=3)
    while rnd.to_move != 0:
        rnd.play(rnd.legal_moves[0])
    obs = rnd.observation(0)
    assert answer_move({"id": 5, "index": 0}, 5, obs.legal_moves) is obs.legal_moves[0]
    for wrong in (4, 5.0, "5", None, 2**64):
        with pytest.raises(Fault) as info:
            answer_move({"id": wrong, "index": 0}, 5, obs.legal_moves)
        assert info.value.kind == "bad_frame"


# ---------------------------------------------------------------------------------------
# Variants a bot does not play


def test_a_match_refuses_a_bot_whose_hello_leaves_out_the_variant(tmp_path, capsys):
    from bones.cli import main
    from bones.match.runner import MatchConfig, MatchError, run_match

    text = section("Variants a bot does not play")
    line = re.search(r"```text\n(bones: error: .*)\n```", text).group(1)
    spec = "cmd:" + shlex.join([*MINIMAL, "--variants", "draw", "--name", "mybot"])
    path = tmp_path / "never.jsonl"
    assert main(["match", spec, "greedy", "--games", "2", "--journal", str(path)]) == 2
    assert capsys.readouterr().err.strip() == line.replace("cmd:./mybot", spec)
    assert not path.exists()
    none = "cmd:" + shlex.join([*MINIMAL, "--variants", ","])  # []: plays nothing
    with pytest.raises(MatchError, match="does not play draw; its hello lists: none"):
        run_match(MatchConfig(seed=1, bots=(none, "greedy"), variant="draw", games=2), path, jobs=1)
    # a variant in the list plays
    summary = run_match(
        MatchConfig(seed=1, bots=(spec, "greedy"), variant="draw", games=2, secret="5e" * 32),
        path,
        jobs=1,
        progress=False,
    )
    assert summary["played"] == 2
    # ExternalBot in Python does not check: it says so in info.supports
    with ExternalBot([*MINIMAL, "--variants", "draw"]) as ext:
        assert ext.info is not None and ext.info.variants == ("draw",)
        assert not ext.info.supports("straight") and ext.info.supports("draw")
        ext.start_game(0, "straight", 2, {})
        ext.ping()


def test_a_registered_bot_is_refused_with_the_documented_line(tmp_path, capsys, fresh_registry):
    """The line for a bot the runner knows (checked from its registration)."""
    from bones.bot import BotSpec
    from bones.cli import main
    from bones.plugins import hookimpl
    from bones.plugins.builtin_bots import Greedy
    from bones.plugins.manager import get_plugin_manager

    text = " ".join(section("Variants a bot does not play").split())
    line = re.search(r"registration .*?before any process starts: `(bones: error: [^`]*)`", text)
    assert line is not None, text

    class DrawOnly:
        @hookimpl
        def register_bots(self, register):
            register(BotSpec("mybot", Greedy, "draw only", variants=("draw",)))

    get_plugin_manager().register(DrawOnly(), name="draw-only")
    fresh_registry.reset(plugins=False)
    path = tmp_path / "never.jsonl"
    assert main(["match", "mybot", "greedy", "--games", "2", "--journal", str(path)]) == 2
    assert capsys.readouterr().err.strip() == line.group(1)
    assert not path.exists()


# ---------------------------------------------------------------------------------------
# cmd: command lines


def test_cmd_lines_split_as_documented():
    text = section("`cmd:` command lines")
    split = table(text, ["spec", "arguments"])
    refused = table(text, ["spec", "refused because"])
    assert len(split) >= 10 and len(refused) >= 6
    for spec_cell, args_cell in split:
        spec, args = code(spec_cell), json.loads(code(args_cell))
        assert command_of(spec) == args, spec
    assert any(" " in arg for _, cell in split for arg in json.loads(code(cell)))
    for spec_cell, _why in refused:
        with pytest.raises(OptionError, match=r"bot spec .*cmd:"):
            command_of(code(spec_cell))


def test_bones_match_refuses_a_bad_cmd_line_with_status_2(tmp_path, capsys):
    from bones.cli import main

    path = tmp_path / "never.jsonl"
    assert main(["match", "cmd:./mybot 2>bot.log", "greedy", "--journal", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bones: error: bot spec 'cmd:./mybot 2>bot.log': '>' is not quoted")
    assert "cmd:sh -c" in err and not path.exists()
    assert main(["match", "cmd:SEED=4 ./mybot", "greedy", "--journal", str(path)]) == 2
    assert "cmd:env SEED=4 ./mybot" in capsys.readouterr().err


def test_a_quoted_argument_with_a_space_reaches_the_bot_as_one(tmp_path):
    script = tmp_path / "args bot.py"
    script.write_text(
        "import sys, runpy\n"
        f"print(repr(sys.argv[1:]), file=sys.stderr)\n"
        f"sys.argv = [{str(MINIMAL[1])!r}]\n"
        f"runpy.run_path({str(MINIMAL[1])!r}, run_name='__main__')\n"
    )
    spec = f"cmd:{shlex.quote(sys.executable)} '{script}' \"deep blue\" a\\ b ''"
    bot = make_bot(spec)
    try:
        bot.ping()
    finally:
        bot.close()
    assert "['deep blue', 'a b', '']" in bot.stderr_text()


# ---------------------------------------------------------------------------------------
# The minimal example


def _frame(message) -> bytes:
    body = msgpack.packb(message, use_bin_type=True)
    return len(body).to_bytes(4, "big") + body


def test_the_minimal_example_answers_by_text_and_reads_frames_in_any_pieces():
    import subprocess
    import time

    from bones.protocol import read_frame

    proc = subprocess.Popen(MINIMAL, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        pings = b"".join(_frame({"type": "ping", "id": i}) for i in range(1, 201))
        proc.stdin.write(_frame({"type": "hello", "protocol": 1}) + pings)
        proc.stdin.flush()
        hello = read_frame(proc.stdout)
        assert hello == {
            "type": "hello",
            "protocol": 1,
            "name": "example-minimal",
            "variants": None,
        }
        assert [read_frame(proc.stdout)["id"] for _ in range(200)] == list(range(1, 201))
        cases = [
            (["6-4@W", "6-4@W!", "muggins"], "muggins"),
            (["6-4@W", "6-6@E", "6-1@E"], "6-6@E"),
            (["6-4@W", "6-4@W!"], "6-4@W!"),
            (["6-5@W", "5-5@W+6-6@E"], "5-5@W+6-6@E"),
            (["pass", "draw"], "draw"),
        ]
        for rid, (legal, best) in enumerate(cases, 300):
            request = _frame({"type": "move_request", "id": rid, "legal": legal, "x": {}})
            for byte in request:  # a byte per write
                proc.stdin.write(bytes([byte]))
                proc.stdin.flush()
                time.sleep(0.0002)
            assert read_frame(proc.stdout) == {"type": "move", "id": rid, "move": best}
        options = {"type": "game_start", "options": {"hand_size": {3: 6}}}  # int keys
        proc.stdin.write(_frame(options) + _frame({"type": "ping", "id": 7}) + b"\x00\x00")
        proc.stdin.close()
        assert read_frame(proc.stdout) == {"type": "pong", "id": 7}
        assert read_frame(proc.stdout) is None  # it stops at the cut frame, silently
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()


def test_the_links_into_protocol_md_reach_its_headings():
    def slug(heading: str) -> str:  # GitHub's: lower case, no punctuation, "-" for " "
        return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

    headings = {slug(h) for h in re.findall(r"^#+ (.*)$", DOC, re.M)}
    links = re.findall(r"\]\(#([^)]+)\)", DOC)
    for path in (ROOT / "docs").glob("*.md"):
        links += re.findall(r"\]\(protocol\.md#([^)]+)\)", path.read_text(encoding="utf-8"))
    assert len(links) > 20
    assert not [link for link in links if link not in headings]


# ---------------------------------------------------------------------------------------
# Train games: their observation, their move text


def train_observation_types() -> list[tuple[str, object]]:
    rows = table(section("The train observation"), ["#", "field", "type", "values"])
    assert [int(r[0]) for r in rows] == list(range(25))
    return [(code(r[1]), _parse_type(r[2])) for r in rows]


def test_the_train_observation_table_names_the_fields_in_order():
    from bones.trains_records import TRAIN_KIND, TRAIN_OBSERVATION_FIELDS, TRAIN_SCHEMA_VERSION

    names = [name for name, _ in train_observation_types()]
    assert names == ["version", "kind", *TRAIN_OBSERVATION_FIELDS]
    rows = table(section("The train observation"), ["#", "field", "type", "values"])
    assert rows[0][3].startswith(f"`{TRAIN_SCHEMA_VERSION}`") and rows[1][3] == f'`"{TRAIN_KIND}"`'


TRAIN_GAMES = [
    ("mexican-train", 3, {"set": "double-6"}),
    ("chicken-foot", 2, {"set": "double-6", "engine_toes": 4}),
    ("mexican-train", 5, {"set": "double-6", "first_turn_own_train": True, "hand_size": {5: 4}}),
]


def _record_train_games(command: list[str]) -> list[tuple[str, dict]]:
    """Every frame, decoded, of whole TRAIN_GAMES with the bot ``command`` at seat 0."""
    frames: list[tuple[str, bytes]] = []
    for i, (variant, players, options) in enumerate(TRAIN_GAMES):
        with ExternalBot(command, seed=i, trace=lambda d, f: frames.append((d, f))) as ext:
            game = bones.new_game(variant, players, 7 + i, **options)
            bots = [ext] + [make_bot("greedy", seed=s) for s in range(1, players)]
            for seat, bot in enumerate(bots):
                bot.start_game(seat, variant, players, dict(options))
            while True:
                play_round(game.round, bots)
                if game.next_round() is None:
                    break
            for bot in bots:
                bot.end_game(tuple(game.scores), tuple(game.winners))
    return [(d, msgpack.unpackb(f[4:], raw=False, strict_map_key=False)) for d, f in frames]


@pytest.fixture(scope="module")
def train_recorded():
    return _record_train_games(MINIMAL) + _record_train_games([*RANDOM, "5"])


def test_every_field_of_every_train_frame_has_its_documented_type(train_recorded):
    from bones.observation import TrainObservation

    documented = field_types()
    obs_fields = train_observation_types()
    train_move = compiled("train-move")
    seen = set()
    for direction, message in train_recorded:
        sender = "runner" if direction == "send" else "bot"
        kind = message["type"]
        seen.add((sender, kind))
        _check_map(message, documented[sender, kind], f"{sender} {kind}")
        if "observation" in message:
            obs = msgpack.unpackb(message["observation"], raw=False, strict_map_key=False)
            assert obs[1] == "train_observation" and len(obs) == len(obs_fields)
            for (name, check), value in zip(obs_fields, obs, strict=True):
                assert check(value), f"train observation {name} is {value!r}"
            decoded = TrainObservation.from_msgpack(message["observation"])
            assert decoded.to_msgpack() == message["observation"]
            if kind == "move_request":
                assert message["legal"] == obs[17] and message["legal"]
                assert all(train_move.fullmatch(t) for t in message["legal"])
            if kind == "round_end":
                assert obs[21] == message["result"] and obs[8] is None
        if kind == "event" and message["move"] is not None:
            assert message["kind"] == "play" and train_move.fullmatch(message["move"])
        if kind == "event" and message["kind"] == "draw":
            assert (message["move"], message["count"], message["points"]) == (None, 1, 0)
        if kind == "game_start":
            assert message["sides"] == [[s] for s in range(message["players"])]
        if kind == "move" and "move" in message:  # the minimal bot answers by text
            assert train_move.fullmatch(message["move"])
    assert {("runner", k) for k in ("game_start", "round_start", "event", "move_request",
                                    "round_end", "game_end")} <= seen  # fmt: skip
    layouts = {
        msgpack.unpackb(m["observation"], raw=False, strict_map_key=False)[3]
        for _, m in train_recorded
        if "observation" in m
    }
    assert layouts == {"trains", "chicken_foot"}


def test_the_train_grammar_reads_back_and_the_examples_hold():
    from bones.core.trains import TrainMove

    move, train_move = compiled("move"), compiled("train-move")
    numbers = [str(n) for n in range(13)]
    tiles = [f"{a}-{b}" for a in numbers for b in numbers if int(a) >= int(b)]
    targets = ["M", *(f"P{s}" for s in range(8)), *tiles]
    checked = 0
    for tile in tiles:
        for target in targets:
            text = f"{tile}@{target}"
            assert train_move.fullmatch(text) and not move.fullmatch(text)
            assert str(TrainMove.parse(text)) == text
            checked += 1
    assert checked == 91 * 100
    for bad in ("12-5", "12-5@P8", "13-5@M", "12-5@M!", "6-4@W", "12-5@m", "012-5@M", "draw"):
        assert not train_move.fullmatch(bad), bad
    text = section("Train move text")
    canonical = table(text, ["train move", "what it is"])
    accepted = table(text, ["train answer", "read as"])
    refused = table(text, ["train answer", "refused because"])
    for cell, _ in canonical:
        assert train_move.fullmatch(code(cell)) and str(TrainMove.parse(code(cell))) == code(cell)
    for answer, canonical_cell in accepted:
        want = TrainMove.parse(code(canonical_cell))
        assert TrainMove.parse(code(answer)) is want
        assert answer_move({"id": 1, "move": code(answer)}, 1, (want,)) is want
    legal = (TrainMove.parse("12-5@M"), TrainMove.parse("6-4@P0"))
    for answer, _ in refused:
        with pytest.raises(ValueError, match="not a train move"):
            TrainMove.parse(code(answer))
        with pytest.raises(Fault) as info:
            answer_move({"id": 1, "move": code(answer)}, 1, legal)
        assert info.value.kind == "illegal"


def test_the_documented_train_observation_is_a_real_one():
    from bones.observation import TrainObservation

    block = section("The train observation").split("A real one, decoded")[1]
    listing = re.search(r"```text\n(.*?)```", block, re.S).group(1)
    values = []
    for line in listing.splitlines():
        _name, value = line.split(maxsplit=1)
        values.append(json.loads(value.replace("nil", "null")))
    rnd = bones.Round.deal("mexican-train", players=3, seed=4, set="double-6", hand_size=5)
    for _ in range(4):
        rnd.play(rnd.legal_moves[0])
    data = rnd.observation(0).to_msgpack()
    assert msgpack.packb(values) == data
    assert TrainObservation.from_msgpack(data) == rnd.observation(0)


def test_the_minimal_example_reads_train_moves_with_the_documented_grammar():
    source = (ROOT / "examples" / "python" / "minimal_bot.py").read_text()
    namespace: dict = {}
    exec(compile(source.split("\ndef read_exactly")[0], "minimal_bot.py", "exec"), namespace)
    mine, doc = namespace["TRAIN_MOVE"], compiled("train-move")
    numbers = [str(n) for n in range(15)] + ["01", "x"]
    texts = [f"{a}-{b}@{t}" for a in numbers for b in numbers[:6]
             for t in ("M", "P0", "P7", "P8", "m", "9-9", "13-1", "W")]  # fmt: skip
    for text in texts:
        assert bool(mine.fullmatch(text)) == bool(doc.fullmatch(text)), text
