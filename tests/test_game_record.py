"""The plain-text game record (bones.match.gamerecord): written from a journal's game by
``bones games --record`` / ``bones show --record``, read back exactly by ``bones show``
and ``bones replay``, for every variant; every edit gives a clear error naming the line,
or (an edit that changes nothing the record says) the identical game."""

from __future__ import annotations

import random
import re

import pytest

import bones
from bones.cli import main
from bones.match.gamerecord import (
    RecordError,
    _play,
    _text,
    read_text_record,
    render,
    write_text_record,
)
from bones.match.journal import JournalError, read_journal

#: The fields of a journal's record that a text record keeps.
KEYS = ("id", "deal", "seating", "variant", "players", "options", "seed", "seats", "sides",
        "rounds", "scores", "winners", "losers", "forfeit", "ranks")  # fmt: skip


def same_game(a, b):
    return {k: a.get(k) for k in KEYS} == {k: b.get(k) for k in KEYS}


_JOURNALS: dict[str, str] = {}
#: the deals and the bots' seeds of every match here: the same games at every run
SEEDED = ["--seed", "1", "--secret", "5e" * 32]


def journal_of(tmp_path_factory, variant):
    """A journal of two games of greedy and random in ``variant`` (its fewest players)."""
    if variant not in _JOURNALS:
        players = min(bones.variant(variant).players)
        path = tmp_path_factory.mktemp("rec") / f"{variant}.jsonl"
        code = main(["match", "greedy", "random", "--variant", variant, "--players",
                     str(players), "--games", "2", "--no-duplicate", "--journal", str(path),
                     "--jobs", "1", *SEEDED])  # fmt: skip
        assert code == 0
        _JOURNALS[variant] = str(path)
    return _JOURNALS[variant]


@pytest.mark.parametrize("variant", bones.variants())
def test_every_variant_round_trips(tmp_path_factory, variant):
    journal = journal_of(tmp_path_factory, variant)
    for rec in read_journal(journal).records:
        text = write_text_record(rec)
        back = read_text_record("game.txt", text)
        assert same_game(back, rec)
        assert write_text_record(back) == text  # read back exactly
        # one line per move, numbered from 1 in each round
        moves = [m for r in rec["rounds"] for m in r["moves"].split()]
        played = re.findall(r"^\d+\. seat \d+: (\S+)", text, re.M)
        assert played == moves


def test_cli_show_and_replay_read_a_record(tmp_path_factory, tmp_path, capsys):
    journal = journal_of(tmp_path_factory, "straight")
    assert main(["games", journal, "--game", "1", "--record"]) == 0
    text = capsys.readouterr().out
    assert main(["show", journal, "--game", "1", "--record"]) == 0
    assert capsys.readouterr().out == text
    path = tmp_path / "g1.txt"
    path.write_text("\n  " + text.replace("\n", "\r\n"))  # pasted: indented, CRLF
    assert main(["show", journal, "--game", "1"]) == 0
    from_journal = capsys.readouterr().out
    assert main(["show", str(path)]) == 0
    assert capsys.readouterr().out == from_journal
    assert main(["show", str(path), "--game", "0"]) == 2
    assert "is the record of game 1, not game 0" in capsys.readouterr().err
    assert main(["replay", str(path), "--html", str(tmp_path / "a.html")]) == 0
    assert main(["replay", journal, "--game", "1", "--html", str(tmp_path / "b.html")]) == 0
    capsys.readouterr()
    assert (tmp_path / "a.html").read_text() == (tmp_path / "b.html").read_text()


def test_train_games_through_the_cli(tmp_path_factory, tmp_path, capsys):
    for variant in ("mexican-train", "chicken-foot"):
        journal = journal_of(tmp_path_factory, variant)
        capsys.readouterr()  # the match's table, when this test made the journal
        path = tmp_path / f"{variant}.txt"
        assert main(["games", journal, "--game", "0", "--record"]) == 0
        path.write_text(capsys.readouterr().out)
        assert f'[Variant "{variant}"]' in path.read_text()
        assert main(["show", str(path)]) == 0
        shown = capsys.readouterr().out
        assert main(["show", journal, "--game", "0"]) == 0
        assert capsys.readouterr().out == shown
        # the picture of a train game is the renderer's part (bones.render.replay): the
        # text record is loaded as the journal's game is, so both give the same page
        pages = []
        for source in ([journal, "--game", "0"], [str(path)]):
            html = tmp_path / f"{variant}-{len(pages)}.html"
            try:
                code = main(["replay", *source, "--html", str(html)])
            except AttributeError as exc:  # a train round in the renderer, not yet drawn
                pages.append(f"raised {exc}")
                continue
            pages.append(html.read_text() if code == 0 else f"exit {code}")
        capsys.readouterr()
        assert pages[0] == pages[1]


def test_forfeit_and_void_records(tmp_path, capsys):
    journal = str(tmp_path / "ff.jsonl")
    assert main(["match", "t-answer:kind=int", "random", "--plugin", "hardening_plugin",
                 "--games", "2", "--journal", journal, "--jobs", "1", *SEEDED]) == 0  # fmt: skip
    capsys.readouterr()
    for rec in read_journal(journal).records:
        text = write_text_record(rec)
        assert '[ForfeitReason "illegal"]' in text and "forfeits" in text
        assert same_game(read_text_record("f.txt", text), rec)
    void = dict(read_journal(journal).records[0])
    void.update(rounds=[], forfeit=None, winners=[], losers=[], ranks=None, scores=None,
                error="the engine failed")  # fmt: skip
    text = write_text_record(void)
    assert '[Void "the engine failed"]' in text and '[Result "void"]' in text
    back = read_text_record("v.txt", text)
    assert back["error"] == "the engine failed" and back["rounds"] == []


def errors_of(text):
    try:
        read_text_record("r.txt", text)
    except RecordError as exc:
        return str(exc)
    return None


def line_of(text, needle):
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_edits_name_their_line(tmp_path_factory):
    journal = journal_of(tmp_path_factory, "straight")
    rec = read_journal(journal).records[0]
    text = write_text_record(rec)
    lines = text.splitlines()
    move = next(i for i, line in enumerate(lines) if line.startswith("3. seat"))
    # an illegal move: a tile nobody holds twice
    first = next(m.group(1) for line in lines if (m := re.match(r"1\. seat \d+: (\S+)", line)))
    edited = lines.copy()
    edited[move] = re.sub(r": \S+", f": {first.split('@')[0]}@E", edited[move], count=1)
    message = errors_of("\n".join(edited))
    assert message.startswith(f"r.txt: line {move + 1}: round 1 move 3") and "not legal" in message
    # a move by the wrong seat
    edited = lines.copy()
    seat = int(re.match(r"3\. seat (\d+)", lines[move]).group(1))
    edited[move] = lines[move].replace(f"seat {seat}", f"seat {1 - seat}", 1)
    assert f"line {move + 1}: round 1 move 3: seat {seat} is to move" in errors_of(
        "\n".join(edited)
    )
    # a hand that is not the deal
    hand = line_of(text, "hand 0 (")
    edited = lines.copy()
    edited[hand - 1] = edited[hand - 1][:-3] + "9-9"
    assert f"line {hand}: the engine says 'hand 0" in errors_of("\n".join(edited))
    # a count that is not the engine's
    edited = lines.copy()
    edited[move] = re.sub(r"count (\d+)", lambda m: f"count {int(m.group(1)) + 1}", lines[move])
    assert f"line {move + 1}: the engine says" in errors_of("\n".join(edited))
    # tags
    seed = line_of(text, "[Seed ")
    edited = lines.copy()
    edited[seed - 1] = '[Seed "12"]'
    assert f"line {seed}: tag Seed must be the game's seed" in errors_of("\n".join(edited))
    edited = lines.copy()
    edited[seed - 1] = "[Seed 12"
    assert f"line {seed}: not a tag line" in errors_of("\n".join(edited))
    edited = lines.copy()
    del edited[seed - 1]
    assert "no [Seed] tag" in errors_of("\n".join(edited))
    edited = lines.copy()
    edited[seed - 1] = "[Sede 12]"
    assert f"line {seed}: unknown tag Sede" in errors_of("\n".join(edited))
    options = line_of(text, "[Options ")
    edited = lines.copy()
    edited[options - 1] = '[Options {"nope": 1}]'
    message = errors_of("\n".join(edited))
    assert "line 3: the Variant, Players, Options and Seed tags give no game" in message
    assert "nope" in message
    # the digest, the end and the start
    digest = line_of(text, "[Digest ")
    edited = lines.copy()
    edited[digest - 1] = '[Digest "00"]'
    assert f"line {digest}: the Digest does not match" in errors_of("\n".join(edited))
    assert "the record ends early; next: 'Game scores after round" in errors_of(
        "\n".join(lines[:-1])
    )
    # cut before the last move (automatic draws and passes may follow it): the round is
    # not over, whatever the deal
    last = max(n for n, line in enumerate(lines) if re.match(r"\d+\. seat", line))
    assert "is not over at the end of the record" in errors_of("\n".join(lines[:last]))
    assert "more than the game" in errors_of(text + "\nhello\n")
    assert errors_of("hello\n" + text).startswith("r.txt: line 1: a game record starts with")
    assert errors_of("") is not None


def test_a_legal_edit_is_caught_by_the_digest(tmp_path_factory):
    """Every line consistent with the engine (as one who rewrote the record would make
    it), but not the game written: the Digest says so."""
    journal = journal_of(tmp_path_factory, "block")
    rec = read_journal(journal).records[0]
    text = write_text_record(rec)
    back = read_text_record("x", text)
    meta = {k: back[k] for k in ("id", "variant", "players", "options", "seed", "deal",
                                 "seating", "seats")}  # fmt: skip
    meta.update(forfeit=None, error=None)
    moves = [[(m, None, None) for m in r["moves"].split()] for r in back["rounds"]]
    # another legal first move of round 1, then play on greedily to the end
    game = bones.new_game(meta["variant"], meta["players"], meta["seed"])
    first = [m for m in game.round.legal_moves if str(m) != moves[0][0][0]]
    rnd = game.round
    rnd.play(first[0])
    while rnd.to_move is not None:
        rnd.play(rnd.legal_moves[0])
    moves = [[(str(m), None, None) for m in rnd.moves]]
    try:
        game2, rounds = _play(meta, moves)
    except RecordError:
        pytest.skip("the rewritten game needs more rounds")
    forged = _text(render(meta, game2, rounds))
    real_digest = re.search(r"\[Digest .*\]", text).group(0)
    forged = re.sub(r"\[Digest .*\]", real_digest, forged)
    message = errors_of(forged)
    assert message is not None and "the Digest does not match the record" in message


EDITS = ("delete", "insert", "replace", "drop_line", "dup_line", "swap_lines", "cut")


def mutate(text, rng):
    if not text:  # cut to nothing by an earlier edit
        return rng.choice(("[", "x", "\n"))
    kind = rng.choice(EDITS)
    lines = text.split("\n")
    if kind in ("delete", "insert", "replace"):
        i = rng.randrange(len(text))
        char = rng.choice('0123456789-@ESWNM[]{}":,.seatP \n\t\\xé')
        if kind == "delete":
            return text[:i] + text[i + 1 :]
        if kind == "insert":
            return text[:i] + char + text[i:]
        return text[:i] + char + text[i + 1 :]
    i = rng.randrange(len(lines))
    if kind == "drop_line":
        del lines[i]
    elif kind == "dup_line":
        lines.insert(i, lines[i])
    elif kind == "swap_lines":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        return text[: rng.randrange(len(text))]
    return "\n".join(lines)


@pytest.mark.parametrize("variant", ["straight", "block", "kozel", "chicken-foot"])
def test_fuzz_edits(tmp_path_factory, variant):
    """Random edits of valid records: a RecordError naming the record and its line, or
    the identical game (an edit of blank space); never anything else."""
    journal = journal_of(tmp_path_factory, variant)
    rng = random.Random(f"fuzz-{variant}")
    records = read_journal(journal).records
    texts = [write_text_record(r) for r in records]
    tries = 60 if variant == "chicken-foot" else 200
    identical = errors = 0
    for _ in range(tries):
        k = rng.randrange(len(records))
        text = texts[k]
        for _ in range(rng.choice((1, 1, 2, 3))):
            text = mutate(text, rng)
        try:
            back = read_text_record("f.txt", text)
        except RecordError as exc:
            message = str(exc)
            assert re.match(r"f\.txt: line \d+: \S", message), message
            errors += 1
            continue
        except JournalError as exc:  # noqa: PT017
            pytest.fail(f"not a RecordError: {exc!r}")
        assert same_game(back, records[k])
        identical += 1
    assert errors > tries // 2
