"""Journals (issue 6): a journal is data, never code, and never a traceback.

* ``--resume`` imports only the plugins that are installed or named again with
  ``--plugin``; ``bones show`` imports nothing the file names;
* every malformed journal (bad field types, a resume line for another match, ...) is a
  one-line error, exit 2, from ``--resume``, ``bones show`` and the summary: checked by
  hand-made cases and a fuzz test that mutates valid journals line- and field-wise;
* one runner per journal: a second one (another process) is refused at once;
* the summary streams the journal: its memory does not grow with the games;
* the same command twice continues the match; a game written twice counts once (the
  first record), with a warning; a journal with a gap is filled exactly once;
* pentanomial counts ignore unfinished pairs; the GSPRT bounds with alpha != beta.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bones.cli import main
from bones.match import MatchConfig, read_journal, run_match
from bones.match.report import summarize
from bones.match.stats import SPRT, pentanomial_counts

SECRET = "c3" * 32
TESTS = str(Path(__file__).parent)


def _config(**kw):
    base = dict(bots=("greedy", "random"), games=4, seed=1, secret=SECRET)
    base.update(kw)
    return MatchConfig(**base)


def summarize_journal(*args, **kw):
    from bones.match.report import summarize_journal

    return summarize_journal(*args, **kw)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, out, err, status=2):
    assert code == status, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bones: error: "), err
    return lines[0]


@pytest.fixture(scope="module")
def journal_lines(tmp_path_factory):
    """A small finished journal (4 games, All Fives), as lines."""
    path = tmp_path_factory.mktemp("j") / "m.jsonl"
    run_match(_config(), path, jobs=1)
    return path.read_text(encoding="utf-8").splitlines()


def _signed(rec, header) -> str:
    """``rec``'s journal line signed as its runner signs it (with the header's secret):
    a record the tests make stands for one the runner wrote."""
    from bones.match.journal import encode_record, record_key, sign_record

    secret = json.loads(header)["config"]["secret"]
    return sign_record(
        encode_record({k: v for k, v in rec.items() if k != "mac"}), record_key(secret)
    )


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------------------------
# Plugins named by a journal


def test_resume_does_not_import_what_a_journal_names(tmp_path, capsys, journal_lines):
    marker = tmp_path / "imported"
    (tmp_path / "evil_mod.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\nfrom bones.plugins import hookimpl\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        header = json.loads(journal_lines[0])
        for name in ("os", "evil_mod"):
            header["config"]["plugins"] = [name]
            path = _write(tmp_path / f"{name}.jsonl", [json.dumps(header), *journal_lines[1:]])
            line = _one_line_error(*run(capsys, "match", "--resume", "--journal", path))
            assert f"names the plugin {name!r}, which is not installed" in line
            assert f"name it again with --plugin {name}" in line
            assert not marker.exists()
            # bones show replays with the installed variants only
            code, out, err = run(capsys, "show", path, "--game", "1")
            assert code == 0, err
            assert not marker.exists()
        # named again on the command line: trusted
        code, out, err = run(capsys, "match", "--resume", "--journal", path, "--plugin", "evil_mod")
        assert code == 0, err
        assert marker.exists()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("evil_mod", None)


# ---------------------------------------------------------------------------------------
# Malformed journals


def _mutated(journal_lines, line, change):
    lines = list(journal_lines)
    obj = json.loads(lines[line])
    change(obj)
    lines[line] = json.dumps(obj)
    return lines


CASES = [
    (2, lambda r: r.__setitem__("seat_bots", [0, 7]), "seat_bots"),
    (2, lambda r: r.__setitem__("seat_bots", ["x", 1]), "seat_bots"),
    (2, lambda r: r.pop("sides"), "sides"),
    (2, lambda r: r.__setitem__("sides", [[0], [0]]), "sides"),
    (2, lambda r: r.__setitem__("id", "3"), "'id'"),
    (2, lambda r: r.__setitem__("ranks", [2, "0"]), "ranks"),
    (2, lambda r: r.__setitem__("forfeit", {"seat": 9}), "forfeit"),
    (2, lambda r: r.__setitem__("seats", ["random", "random"]), "which is not the bot of seat"),
    (0, lambda h: h["config"].__setitem__("games", "many"), "'games' must be a whole number"),
    (0, lambda h: h["config"].__setitem__("bots", 3), "'bots'"),
    (0, lambda h: h["config"].__setitem__("sprt", {"elo0": "x"}), "sprt"),
    (0, lambda h: h.__setitem__("config", []), "not a JSON object"),
    (0, lambda h: h.__setitem__("version", 7), "journal version 7"),
]


@pytest.mark.parametrize("line, change, message", CASES)
def test_malformed_journals_are_one_line_errors(
    tmp_path, capsys, journal_lines, line, change, message
):
    path = _write(tmp_path / "bad.jsonl", _mutated(journal_lines, line, change))
    game = json.loads(journal_lines[line]).get("id", 1)  # show reads up to its game
    for argv in (
        ["match", "--resume", "--journal", path],
        ["match", "greedy", "random", "--games", "4", "--seed", "1", "--journal", path],
        ["show", path, "--game", str(game)],
    ):
        text = _one_line_error(*run(capsys, *argv))
        assert message in text, (argv, text)
    with pytest.raises(ValueError, match="bad.jsonl"):
        summarize_journal(path)


def test_a_resume_line_for_other_bots_is_an_error(tmp_path, capsys, journal_lines):
    header = json.loads(journal_lines[0])
    resume = {**header, "type": "resume"}
    resume["config"] = {**header["config"], "bots": ["heaviest", "random"]}
    path = _write(
        tmp_path / "r.jsonl", [*journal_lines[:3], json.dumps(resume), *journal_lines[3:]]
    )
    text = _one_line_error(*run(capsys, "match", "--resume", "--journal", path))
    assert "line 4: a resume line for another match: bots" in text
    last = str(json.loads(journal_lines[-1])["id"])  # a game after the resume line
    text = _one_line_error(*run(capsys, "show", path, "--game", last))
    assert "a resume line for another match" in text


LINE_MUTATIONS = st.sampled_from(["drop", "duplicate", "swap", "cut", "garbage", "blank"])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_fuzzed_journals_never_give_a_traceback(tmp_path_factory, journal_lines, data):
    """Mutate a valid journal line-wise (drop, duplicate, swap, cut, garbage) and
    field-wise (any JSON value for any field of any line, nested config fields too);
    read_journal, the summary, bones show and --resume either work or raise a one-line
    error (a BonesError: JournalError/MatchError, or ReplayError for show)."""
    from bones.errors import BonesError

    lines = list(journal_lines)
    for _ in range(data.draw(st.integers(1, 3))):
        index = data.draw(st.integers(0, len(lines) - 1))
        if data.draw(st.booleans()):
            kind = data.draw(LINE_MUTATIONS)
            if kind == "drop" and len(lines) > 1:
                del lines[index]
            elif kind == "duplicate":
                lines.insert(index, lines[index])
            elif kind == "swap":
                other = data.draw(st.integers(0, len(lines) - 1))
                lines[index], lines[other] = lines[other], lines[index]
            elif kind == "cut":
                lines[index] = lines[index][: data.draw(st.integers(0, len(lines[index])))]
            elif kind == "garbage":
                lines[index] = data.draw(st.text(max_size=20))
            else:
                lines[index] = ""
        else:
            try:
                obj = json.loads(lines[index])
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            target = obj
            if "config" in obj and isinstance(obj["config"], dict) and data.draw(st.booleans()):
                target = obj["config"]
            keys = sorted(target) or ["type"]
            key = data.draw(st.sampled_from(keys + ["extra"]))
            if data.draw(st.integers(0, 4)) == 0:
                target.pop(key, None)
            else:
                target[key] = data.draw(JSON_VALUES)
            lines[index] = json.dumps(obj, separators=(",", ":"))
    path = tmp_path_factory.mktemp("fuzz") / "f.jsonl"
    path.write_text("".join(line.replace("\n", " ") + "\n" for line in lines), encoding="utf-8")

    def tolerated(call):
        try:
            call()
        except BonesError as exc:
            assert "\n" not in str(exc)

    tolerated(lambda: read_journal(path))
    tolerated(lambda: summarize_journal(path, total=4))
    for game in (None, 1):
        tolerated(lambda g=game: _show(path, g))
    tolerated(lambda: run_match(_config(), path, jobs=1, resume=True, progress=False))


def _show(path, game):
    import io

    from bones.match.journal import load_record, show

    show(load_record(path, game), io.StringIO())


# ---------------------------------------------------------------------------------------
# One runner per journal


def _default_sigint():
    """A child started from a shell job in the background inherits SIGINT ignored:
    give it the default, so that Python turns SIGINT into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stop(proc):
    """Ctrl-C, as a user would; a kill if that does not end it within 60 s."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise


def test_a_second_runner_on_a_journal_is_refused(tmp_path):
    journal = str(tmp_path / "busy.jsonl")
    env = {**os.environ, "PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", "")}
    bones = [sys.executable, "-m", "bones", "match"]
    args = ["greedy", "random", "--games", "100000", "--jobs", "1", "--journal", journal]
    first = subprocess.Popen(
        [*bones, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(journal) and b'"type":"game"' in open(journal, "rb").read():
                break
            time.sleep(0.05)
        for extra in ([], ["--resume"]):
            second = subprocess.run(
                [*bones, *args, *extra], capture_output=True, text=True, env=env, timeout=60
            )
            assert second.returncode == 2, second.stderr
            assert second.stderr.strip() == (
                f"bones: error: the journal {journal} is in use by another bones match (it is "
                "locked); wait for it to finish, or choose another --journal"
            )
    finally:
        _stop(first)
    data = read_journal(journal)
    ids = [r["id"] for r in data.records]
    raw = open(journal, "rb").read().count(b'"type":"game"')
    assert raw == len(ids) == len(set(ids))
    assert open(journal, "rb").read().count(b'"type":"match"') == 1


# ---------------------------------------------------------------------------------------
# Streaming


def test_the_summary_streams_the_journal(tmp_path, journal_lines):
    """A 2,000-game journal (copies of real games with new ids): the summary's peak
    Python memory stays far below the journal's size (the old summary held every record:
    several times the file)."""
    header = json.loads(journal_lines[0])
    header["config"]["games"] = 2000
    games = [json.loads(line) for line in journal_lines[1:]]
    path = tmp_path / "big.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for i in range(2000):
            rec = dict(games[i % len(games)])
            rec["id"], rec["group"], rec["deal"] = i, i // 2, i // 2
            f.write(_signed(rec, journal_lines[0]) + "\n")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        summary = summarize_journal(path, total=2000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert summary["counted"] == 2000
    assert peak < size / 10, (peak, size)


# ---------------------------------------------------------------------------------------
# Same command twice, duplicates, gaps


def test_a_game_written_twice_counts_once(tmp_path, capsys, journal_lines):
    first = json.loads(journal_lines[1])
    twin = dict(
        first,
        ranks=list(reversed(first["ranks"])),
        winners=first["losers"],
        losers=first["winners"],
    )
    path = _write(tmp_path / "d.jsonl", [*journal_lines, _signed(twin, journal_lines[0])])
    code, out, err = run(capsys, "match", "--resume", "--journal", path, "--json")
    assert code == 0, err
    assert err.strip().splitlines() == [
        f"bones: warning: {path}: 1 game record(s) written twice (game {first['id']} again at "
        "line 6); the first record of a game counts, later ones are ignored",
        f"bones: {path}: 4 games played; the match is complete: nothing to play, the result "
        "is the journal's",
    ]
    clean = run_match(_config(), tmp_path / "clean.jsonl", jobs=1)
    summary = json.loads(out)
    for s in (summary, clean):
        s.pop("journal")
    assert summary == clean


def test_resume_fills_a_gap_exactly_once(tmp_path, journal_lines):
    """Games 0, 1 and 3 done (as --jobs 2 leaves them): --resume plays game 2 once."""
    kept = [line for line in journal_lines[1:] if json.loads(line)["id"] != 2]
    path = _write(tmp_path / "gap.jsonl", [journal_lines[0], *kept])
    summary = run_match(_config(), path, jobs=2, resume=True)
    ids = [
        json.loads(line)["id"]
        for line in Path(path).read_text().splitlines()[1:]
        if '"game"' in line
    ]
    assert sorted(ids) == [0, 1, 2, 3] and ids[-1] == 2
    whole = run_match(_config(), tmp_path / "whole.jsonl", jobs=1)
    for s in (summary, whole):
        s.pop("journal")
    assert summary == whole


# ---------------------------------------------------------------------------------------
# Statistics


def test_pentanomial_counts_ignore_unfinished_pairs(journal_lines):
    config = json.loads(journal_lines[0])["config"]
    records = [json.loads(line) for line in journal_lines[1:]]
    full = summarize(config, records, total=4)
    half = summarize(config, [r for r in records if r["id"] != 3], total=4)
    counts = full["pairs"][0]["pentanomial"]
    assert sum(counts.values()) == 2
    assert sum(half["pairs"][0]["pentanomial"].values()) == 1  # the pair of games 2, 3 is open
    assert half["pairs"][0]["games"] == 3  # but its finished game still counts as a game
    assert pentanomial_counts([0, 0.5, 1, 1.5, 2, 2]) == [1, 1, 1, 1, 2]


def test_gsprt_bounds_with_alpha_other_than_beta():
    t = SPRT(elo0=0, elo1=5, alpha=0.05, beta=0.2)
    assert t.lower == pytest.approx(math.log(0.2 / 0.95))  # log(beta / (1 - alpha))
    assert t.upper == pytest.approx(math.log(0.8 / 0.05))  # log((1 - beta) / alpha)
    assert t.decide(t.upper) == "H1" and t.decide(t.lower) == "H0"
    assert t.decide((t.lower + t.upper) / 2) is None
    assert SPRT(alpha=0.1, beta=0.01).lower == pytest.approx(math.log(0.01 / 0.9))


# ---------------------------------------------------------------------------------------
# Permissions: the journal holds the match's secret


def _mode(path) -> int:
    return os.stat(path).st_mode & 0o777


def test_a_journal_is_its_owners_only(tmp_path):
    from bones.match.journal import write_private

    config = MatchConfig(seed=1, bots=("random", "greedy"), games=2)
    old = os.umask(0)  # even under a umask that lets everyone read
    try:
        run_match(config, tmp_path / "new.jsonl", jobs=1)
        assert _mode(tmp_path / "new.jsonl") == 0o600
        # a journal made before (0644) is made the owner's only when it is written again
        older = tmp_path / "old.jsonl"
        run_match(config, older, jobs=1)
        os.chmod(older, 0o644)
        run_match(MatchConfig(seed=1, bots=("random", "greedy"), games=4), older, jobs=1)
        assert _mode(older) == 0o600 and len(read_journal(older).records) == 4
        # a copy of a journal (bench/strength.py --archive) too, new or cut
        write_private(tmp_path / "copy.gz", b"x")
        assert _mode(tmp_path / "copy.gz") == 0o600
        os.chmod(tmp_path / "copy.gz", 0o666)
        write_private(tmp_path / "copy.gz", b"y")
        assert _mode(tmp_path / "copy.gz") == 0o600
        assert (tmp_path / "copy.gz").read_bytes() == b"y"
    finally:
        os.umask(old)


# ---------------------------------------------------------------------------------------
# The runner owns its journal: each record it writes carries an HMAC with the secret


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def _forge(path, ids, winner: int = 0) -> None:
    """Append records for the games ``ids`` that nobody played, won by bot ``winner``:
    copies of a real record (the same seating) without its MAC, as a bot that can write
    the journal but does not know the secret would."""
    games = [x for x in _lines(path) if x["type"] == "game"]
    with open(path, "a", encoding="utf-8") as f:
        for gid in ids:
            rec = dict(games[gid % 2])
            rec.pop("mac", None)
            rec.update(id=gid, deal=gid // 2, group=gid // 2)
            sides = [rec["seat_bots"][side[0]] for side in rec["sides"]]
            rec["ranks"] = [2 if bot == winner else 0 for bot in sides]
            rec["winners"] = [s for s, bot in enumerate(sides) if bot == winner]
            rec["losers"] = [s for s, bot in enumerate(sides) if bot != winner]
            rec["forfeit"] = None
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


SIGNED = dict(bots=("random", "greedy"), games=4, seed=1, secret="3c" * 32)


def test_a_resume_ignores_game_records_its_runner_did_not_write(tmp_path):
    import io

    path = tmp_path / "j.jsonl"
    run_match(MatchConfig(**SIGNED), path, jobs=1)
    assert _lines(path)[0]["mac"] == "hmac-sha256"
    assert all(len(x["mac"]) == 64 for x in _lines(path) if x["type"] == "game")
    _forge(path, range(4, 8))  # random "won" the four games not played yet
    stream = io.StringIO()
    more = dict(SIGNED, games=8)
    summary = run_match(MatchConfig(**more), path, jobs=1, stream=stream)
    assert "4 game record(s) without a valid MAC (game 4 at line 6): not written by" in (
        stream.getvalue()
    )
    # the four games were played, and the table is that of the same match played cleanly
    clean = run_match(MatchConfig(**more), tmp_path / "clean.jsonl", jobs=1)
    for s in (summary, clean):
        s.pop("journal")
        s.pop("warnings", None)
    assert summary == clean
    data = read_journal(path)
    assert [r["id"] for r in data.records] == list(range(8))
    assert any("without a valid MAC" in w for w in data.warnings)


def test_a_record_changed_after_it_was_signed_is_ignored(tmp_path):
    from bones.match.journal import without_moves

    path = tmp_path / "j.jsonl"
    run_match(MatchConfig(**SIGNED), path, jobs=1)
    # a copy without the moves (bench/strength.py --archive) still verifies
    (tmp_path / "copy.jsonl").write_bytes(without_moves(path.read_bytes()))
    copy = read_journal(tmp_path / "copy.jsonl")
    assert len(copy.records) == 4 and not copy.warnings
    lines = path.read_text().splitlines()
    rec = json.loads(lines[2])
    rec["ranks"] = rec["ranks"][::-1]  # the result turned round, the MAC kept
    lines[2] = json.dumps(rec, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    data = read_journal(path)
    changed = rec["id"]  # the games are played in a shuffled order
    assert sorted(r["id"] for r in data.records) == [g for g in range(4) if g != changed]
    assert data.warnings == [
        f"{path}: 1 game record(s) without a valid MAC (game {changed} at line 3): not written by "
        "this match's runner (each record it writes carries an HMAC with the match's "
        "secret); they are ignored"
    ]


def test_a_journal_from_before_records_were_signed_still_resumes(tmp_path):
    """Records without a MAC count in a journal whose header does not announce MACs (a
    bones before them), with a warning on --resume; the records the resume writes are
    signed, and from its resume line on a record without a MAC is not counted."""
    import io

    path = tmp_path / "old.jsonl"
    run_match(MatchConfig(**SIGNED), path, jobs=1)
    old = []
    for x in _lines(path):
        x.pop("mac", None)
        old.append(json.dumps(x, separators=(",", ":")))
    path.write_text("\n".join(old) + "\n")
    data = read_journal(path)
    assert len(data.records) == 4 and not data.warnings
    stream = io.StringIO()
    run_match(MatchConfig(**dict(SIGNED, games=6)), path, jobs=1, stream=stream)
    assert "4 game record(s) carry no MAC (written by a bones that did not sign" in (
        stream.getvalue()
    )
    lines = _lines(path)
    assert lines[5]["type"] == "resume" and lines[5]["mac"] == "hmac-sha256"
    assert all("mac" in x for x in lines[6:])
    _forge(path, [6, 7])
    data = read_journal(path)
    assert [r["id"] for r in data.records] == list(range(6))
    assert any("2 game record(s) without a valid MAC" in w for w in data.warnings)


_JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities too: written as json.dumps writes them
    | st.text(max_size=20)
)
_JSON_KEYS = st.text(max_size=8) | st.integers() | st.booleans() | st.none() | st.floats()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.recursive(
        _JSON_LEAVES,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.tuples(inner, inner)
            | st.dictionaries(_JSON_KEYS, inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_a_record_is_encoded_as_json_dumps_encodes_it(obj):
    from bones.match import journal

    want = json.dumps(obj, separators=(",", ":"))
    assert journal.encode_record(obj) == want


def test_a_python_without_the_c_encoder_writes_the_same_text(monkeypatch):
    from bones.match import journal

    rec = {"type": "game", "id": 1, "x": [1.5, float("nan"), None, True, 'é\n"'], 2: {}}
    fast = journal.encode_record(rec)
    monkeypatch.setattr(journal, "_C_ENCODE", None)
    assert journal.encode_record(rec) == fast == json.dumps(rec, separators=(",", ":"))


def test_what_json_cannot_encode_is_refused_as_json_refuses_it():
    from bones.match.journal import encode_record

    for bad in ({"a": {1, 2}}, {"a": object()}, {(1, 2): 3}, [b"bytes"]):
        with pytest.raises(TypeError):
            json.dumps(bad)
        with pytest.raises(TypeError):
            encode_record(bad)
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises((ValueError, RecursionError)):  # a record is a tree: never met
        encode_record({"a": cycle})
    assert encode_record({"a": [1, 2]}) == '{"a":[1,2]}'  # nothing kept from the failures
