"""``bones journal check`` and ``bones journal repair`` (issue 42): a journal with a bad
line in its middle is repaired, every intact signed record kept, the bad lines set aside
in a side file, and ``--resume`` then finishes the match; the side file, which the
repair reads back, is never trusted."""

from __future__ import annotations

import json
import random

import pytest

from bones.cli import main
from bones.match.journal import JournalError, read_journal
from bones.match.repair import check, read_side_file, repair, side_file

ARGS = ["greedy", "random", "--games", "20", "--seed", "4", "--jobs", "1", "--progress", "never"]


@pytest.fixture
def damaged(tmp_path, capsys):
    """A 20-game journal whose 7th line (game record) is cut in its middle, and the
    intact lines."""
    path = tmp_path / "m.jsonl"
    assert main(["match", *ARGS, "--journal", str(path)]) == 0
    capsys.readouterr()
    lines = path.read_bytes().splitlines(keepends=True)
    good = lines[:6] + lines[7:]
    path.write_bytes(b"".join(lines[:6] + [lines[6][:80] + b"\n"] + lines[7:]))
    return path, good


def test_every_reader_names_the_commands_that_go_past_a_bad_line(damaged, capsys):
    path, _ = damaged
    for argv in (["report", str(path)], ["games", str(path)], ["ratings", str(path)],
                 ["match", "--resume", "--journal", str(path)]):  # fmt: skip
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{path}: line 7 is corrupt (not a JSON object)" in err
        assert f"'bones journal check {path}' lists every bad line" in err
        assert f"'bones journal repair {path}' sets them aside" in err


def test_check_repair_and_resume_keep_every_good_game(damaged, capsys):
    path, good = damaged
    assert main(["journal", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: 1 bad line(s) of 21:\n  line 7: corrupt (not a JSON object)" in out
    assert f"bones journal repair {path} keeps the 19 good games" in out
    assert main(["journal", "repair", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"Repaired: 19 games kept, 1 line(s) set aside in {path}.bad" in out
    # every other line as it was, byte for byte: the signed records keep their MACs
    assert path.read_bytes() == b"".join(good)
    (entry,) = read_side_file(side_file(str(path)))
    assert entry["line"] == 7 and entry["why"].startswith("corrupt")
    before = {r["id"]: r for r in read_journal(path).records}
    assert main(["match", "--resume", "--journal", str(path), "--progress", "never"]) == 0
    assert "Games: 20 of 20" in capsys.readouterr().out
    after = read_journal(path)
    assert not after.warnings and len(after.records) == 20
    assert all(after.records[gid] == rec for gid, rec in before.items())
    assert main(["journal", "check", str(path)]) == 0
    assert "no bad line (20 games); " in capsys.readouterr().out


def test_records_with_wrong_fields_or_a_forged_mac_are_bad_lines(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert main(["match", *ARGS, "--journal", str(path)]) == 0
    lines = path.read_text().splitlines(keepends=True)
    rec = json.loads(lines[3])
    rec["ranks"] = "x"  # a wrong field
    lines[3] = json.dumps(rec, separators=(",", ":")) + "\n"
    lines[5] = lines[5].replace('"seconds":', '"seconds":1e-9,"x":')  # its MAC no longer fits
    lines.insert(8, '{"type":"weird"}\n')
    path.write_text("".join(lines))
    found = check(path)
    numbers = [n for n, _ in found.bad]
    assert numbers == [4, 6, 9], found.bad
    assert "field 'ranks'" in found.bad[0][1]
    assert found.bad[1][1] == "a game record without a valid MAC"
    assert found.bad[2][1].startswith("unknown entry type")
    repair(path)
    assert len(read_journal(path).records) == 18  # the two bad records are played again


def test_a_sound_journal_is_left_as_it_is(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert main(["match", *ARGS, "--journal", str(path)]) == 0
    data = path.read_bytes()
    assert main(["journal", "repair", str(path)]) == 0
    assert "no bad line (20 games)" in capsys.readouterr().out
    assert path.read_bytes() == data and not (tmp_path / "m.jsonl.bad").exists()


@pytest.mark.parametrize("content", [b"", b"\x00\xff\n", b'{"type":"match"}\n'])
def test_check_and_repair_refuse_what_is_not_a_journal(tmp_path, capsys, content):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    for action in ("check", "repair"):
        assert main(["journal", action, str(path)]) == 2
        assert capsys.readouterr().err.startswith(f"bones: error: {path}")
    assert path.read_bytes() == content


def test_a_malformed_side_file_is_refused_not_trusted(damaged, capsys):
    """Fuzz: whatever the side file holds, check and repair say which line of it is not
    one they wrote (exit 2), and repair changes nothing then."""
    path, _ = damaged
    side = side_file(str(path))
    rng = random.Random(42)
    good = json.dumps({"type": "set-aside", "line": 3, "why": "x", "text": "y"}) + "\n"
    samples = [
        b"\x00\xff\xfe\n",
        b"[]\n",
        b'{"type": "set-aside"}\n',
        b'{"type": "set-aside", "line": 0, "why": "", "text": ""}\n',
        b'{"type": "set-aside", "line": true, "why": "", "text": ""}\n',
        b"[" * 100_000 + b"\n",
        good.encode() + b'{"line": 1}\n',
    ]
    samples += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))) for _ in range(30)]
    data = path.read_bytes()
    for sample in samples:
        with open(side, "wb") as f:
            f.write(sample)
        for action in ("check", "repair"):
            code = main(["journal", action, str(path)])
            err = capsys.readouterr().err
            if code == 2:
                assert f"{side}: line " in err and "is not a line set aside" in err
            else:  # random bytes that happen to be one JSON object a line: impossible here
                pytest.fail(f"{sample!r} was read as a side file")
        assert path.read_bytes() == data
    with pytest.raises(JournalError, match="not a line set aside"):
        list(read_side_file(side))


def test_repair_of_a_missing_file_makes_none(tmp_path, capsys):
    path = tmp_path / "none.jsonl"
    assert main(["journal", "repair", str(path)]) == 2
    assert "none.jsonl: no such file" in capsys.readouterr().err
    assert not path.exists()


def test_a_journal_whose_every_record_is_bad_keeps_its_header(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert main(["match", *ARGS[:2], "--games", "2", *ARGS[4:], "--journal", str(path)]) == 0
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + b"".join(b"{" + x[1:40] + b"\n" for x in lines[1:]))
    assert main(["journal", "repair", str(path)]) == 0
    assert path.read_bytes() == lines[0]
    assert main(["match", "--resume", "--journal", str(path), "--progress", "never"]) == 0
    assert len(read_journal(path).records) == 2
