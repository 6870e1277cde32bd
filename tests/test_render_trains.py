"""Pictures of the train games: the SVG of a round and of a seat's view (well-formed, every
placed tile once, no two tile boxes overlapping, the hidden tiles absent, the pending
double and the markers shown), the terminal board, ``bones show``/``replay`` of a train
journal and ``bones play`` of a train variant."""

from __future__ import annotations

import random
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

import bones
from bones.cli import main
from bones.core.trains import TrainRound
from bones.match.journal import read_journal
from bones.render import svg_of
from bones.render.play import load_game, play_game
from bones.render.replay import replay_html, replay_steps
from bones.render.trains_text import train_board_text

SVG = "{http://www.w3.org/2000/svg}"


def positions():
    """Random positions of both games, at every stage: the deal, a pending double (or
    toes due), mid-round, the end; a few hundred in all."""
    out = []
    for layout, set_max, players in (("trains", 12, 4), ("trains", 9, 8), ("chicken_foot", 9, 4),
                                     ("chicken_foot", 12, 3), ("trains", 6, 2)):  # fmt: skip
        for seed in range(12):
            hand = 7 if set_max == 6 else None
            rnd = TrainRound.deal(layout, set_max=set_max, players=players, hand_size=hand,
                                  seed=seed)  # fmt: skip
            rng = random.Random(seed)
            out.append(rnd.copy())
            while not rnd.is_over:
                rnd.play(rng.choice(rnd.legal_moves))
                if rnd.pending is not None or rng.random() < 0.08:
                    out.append(rnd.copy())
            out.append(rnd)
    return out


POSITIONS = positions()


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def board_tiles(root: ET.Element) -> list[ET.Element]:
    board = root.find(f".//{SVG}g[@class='board']")
    assert board is not None
    return [g for g in board.iter(f"{SVG}g") if g.get("class", "").split()[:1] == ["tile"]]


def box(g: ET.Element) -> tuple[float, float, float, float]:
    rect = g.find(f"{SVG}rect")
    assert rect is not None
    x, y = float(rect.get("x")), float(rect.get("y"))
    return x, y, x + float(rect.get("width")), y + float(rect.get("height"))


def overlaps(a, b) -> bool:
    return a[0] < b[2] - 0.01 and b[0] < a[2] - 0.01 and a[1] < b[3] - 0.01 and b[1] < a[3] - 0.01


def test_every_position_draws_each_tile_once_without_overlap():
    assert any(r.pending is not None for r in POSITIONS if r.layout_name == "trains")
    assert any(r.pending is not None for r in POSITIONS if r.layout_name == "chicken_foot")
    for rnd in POSITIONS:
        root = parse(svg_of(rnd))
        tiles = board_tiles(root)
        engines = [g for g in tiles if "engine" in g.get("class").split()]
        assert [g.get("data-tile") for g in engines] == [f"{rnd.engine}-{rnd.engine}"]
        placed = Counter(g.get("data-tile") for g in tiles if g not in engines)
        assert placed == Counter(t for _, t, _ in rnd.placements), str(rnd)
        boxes = [box(g) for g in tiles]
        for i in range(len(boxes)):
            for j in range(i):
                assert not overlaps(boxes[i], boxes[j]), (str(rnd), tiles[i].get("data-tile"),
                                                          tiles[j].get("data-tile"))  # fmt: skip
        # every hand face up, with its tiles
        for seat in range(rnd.players):
            hand = root.find(f".//{SVG}g[@class='hand'][@data-seat='{seat}']")
            assert hand.get("data-visible") == "yes"
            shown = [g.get("data-tile") for g in hand.iter(f"{SVG}g") if g.get("data-tile")]
            assert shown == [str(t) for t in rnd.hand(seat)]


def test_the_pending_double_and_the_markers_are_shown():
    for rnd in POSITIONS:
        root = parse(svg_of(rnd))
        marks = root.findall(f".//{SVG}rect[@class='pending-mark']")
        slots = root.findall(f".//{SVG}rect[@class='toe-slot']")
        if rnd.pending is None or rnd.is_over:
            assert not marks and not slots
            continue
        assert len(marks) == 1
        if rnd.layout_name == "trains":
            train = root.find(f".//{SVG}g[@data-train='{rnd.pending}']")
            last = [t for _, t, target in rnd.placements if target == rnd.pending][-1]
            assert last.split("-")[0] == last.split("-")[1]  # a double
            assert train.find(f"{SVG}rect[@class='pending-mark']") is not None
            assert "double to satisfy" in "".join(train.itertext())
        else:
            toes = sum(1 for _, _, target in rnd.placements if target == rnd.pending)
            due = rnd.engine_toes if rnd.pending == f"{rnd.engine}-{rnd.engine}" else 3
            assert len(slots) == due - toes > 0
    for rnd in POSITIONS:
        if rnd.layout_name != "trains":
            continue
        root = parse(svg_of(rnd))
        for index, (_, _, public) in enumerate(rnd.trains[: rnd.players]):
            train = root.find(f".//{SVG}g[@data-train='P{index}']")
            assert train.get("data-public") == ("yes" if public else "no")
            assert (train.find(f"{SVG}g[@class='marker']") is not None) == public
        mexican = root.find(f".//{SVG}g[@data-train='M']")
        assert "mexican" in mexican.get("class")
        for target, value in rnd.open_ends:  # the ends open to the seat to move, in green
            end = root.find(f".//{SVG}g[@class='open-end'][@data-target='{target}']")
            assert end.get("data-playable") == "yes" and end.get("data-open") == str(value)


def test_a_seat_view_shows_its_own_hand_only():
    for rnd in POSITIONS[::3]:
        for seat in range(rnd.players):
            obs = rnd.observation(seat)
            svg = svg_of(obs)
            root = parse(svg)
            placed = Counter(
                g.get("data-tile") for g in board_tiles(root) if "engine" not in g.get("class")
            )
            assert placed == Counter(t for _, t, _ in rnd.placements)
            hidden = {str(t) for s in range(rnd.players) if s != seat for t in rnd.hand(s)}
            hidden |= {str(t) for t in rnd.stock}
            shown = {g.get("data-tile") for g in root.iter(f"{SVG}g") if g.get("data-tile")}
            assert not hidden & shown
            texts = {t.text for t in root.iter(f"{SVG}title")}
            assert not hidden & texts
            for s in range(rnd.players):
                hand = root.find(f".//{SVG}g[@class='hand'][@data-seat='{s}']")
                backs = hand.findall(f"{SVG}g[@class='hand-tile back']")
                if s == seat:
                    assert hand.get("data-visible") == "yes" and not backs
                else:
                    assert hand.get("data-visible") == "no"
                    assert len(backs) == rnd.hand_sizes[s]


def test_deterministic_and_dispatched_from_every_entry_point():
    rnd = POSITIONS[30]
    assert svg_of(rnd) == svg_of(rnd.copy()) == rnd._repr_svg_()
    obs = rnd.observation(1)
    assert svg_of(obs) == obs._repr_svg_()
    assert "as seat 1 sees it" in svg_of(obs)
    game = bones.new_game("mexican-train", 3, 5)
    svg = game._repr_svg_()
    assert "bones-trains" in svg and "mexican-train, 3 players: game round 1" in svg
    names = svg_of(rnd, ["a", "b", "c", "d"][: rnd.players])
    assert "seat 0 (a)&apos;s train" in names or "seat 0 (a)'s train" in names
    with pytest.raises(ValueError, match="seat names"):
        svg_of(rnd, ["a"])


def test_long_trains_wrap():
    longest = max((r for r in POSITIONS if r.layout_name == "trains"),
                  key=lambda r: max(n for _, n, _ in r.trains))  # fmt: skip
    assert max(n for _, n, _ in longest.trains) > 14
    root = parse(svg_of(longest))
    assert float(root.get("width")) < 1000  # wrapped onto more lines, not wider


def test_terminal_board():
    for rnd in POSITIONS[::5]:
        text = train_board_text(rnd)
        for _, tile, _ in rnd.placements:
            a, b = tile.split("-")
            assert f"[{a}|{b}]" in text or f"[{b}|{a}]" in text
        if rnd.layout_name == "trains":
            assert len(text.splitlines()) >= rnd.players + 2
            for line in text.splitlines()[1:-1]:  # touching halves match along each train
                cells = line.split()[3 if line.startswith("M") else 4]
                if cells != "(empty)":
                    halves = cells.rstrip("*").strip("[]").split("][")
                    for left, right in zip(halves, halves[1:], strict=False):
                        assert left.split("|")[1] == right.split("|")[0], line
        else:
            assert text.splitlines()[0].startswith(f"[{rnd.engine}|{rnd.engine}]")
            assert text.count("[") == len(rnd.placements) + 1


@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    root = tmp_path_factory.mktemp("trains")
    paths = {}
    for variant, players in (("mexican-train", 4), ("chicken-foot", 3)):
        path = root / f"{variant}.jsonl"
        argv = ["match", "greedy", "random", "--variant", variant, "--players", str(players)]
        argv += ["--games", "2", "--journal", str(path), "--jobs", "1", "--progress", "never"]
        argv += ["--seed", "1", "--secret", "5e" * 32]  # the same games at every run
        assert main(argv) == 0
        paths[variant] = path
    return paths


def test_show_and_replay_a_train_journal(journals, tmp_path, capsys):
    for variant, path in journals.items():
        record = read_journal(path).records[0]
        gid = str(record["id"])
        capsys.readouterr()
        assert main(["show", str(path), "--game", gid]) == 0
        text = capsys.readouterr().out
        assert "(count" not in text
        assert ("Mexican" in text) == (variant == "mexican-train")
        svg = tmp_path / "x.svg"
        assert main(["show", str(path), "--game", gid, "--svg", str(svg), "--round", "1",
                     "--ply", "5", "--seat", "1"]) == 0  # fmt: skip
        root = parse(svg.read_text())
        assert len(board_tiles(root)) == 6  # the engine and 5 placements
        steps = replay_steps(record)
        assert steps[0].ply == 0 and steps[0].tiles == 0
        assert sum(1 for s in steps if s.ply == 0) == len(record["rounds"])
        assert any("plays" in line for s in steps for line in s.lines)
        assert any("draws" in line for s in steps for line in s.lines)
        page = replay_html(record, 2)
        assert "class='bones-position bones-trains'" in page
        assert page.count('"label":') == len(steps)  # one entry a step, pieces shared
        seen = replay_steps(record, 2)
        assert all("as seat 2" not in s.frame.title or True for s in seen)
        page_path = tmp_path / "x.html"
        assert main(["replay", str(path), "--game", gid, "--html", str(page_path)]) == 0


def test_play_a_train_game_with_a_script(tmp_path):
    for variant, seats in (("mexican-train", ["human", "greedy"]),
                           ("chicken-foot", ["greedy", "human", "random"])):  # fmt: skip
        game = bones.new_game(variant, len(seats), 3)
        out = tmp_path / f"{variant}.txt"
        with open(out, "w") as f:
            rc = play_game(game, seats, save_path=str(tmp_path / "g"), ask=lambda _: "1", out=f)
        assert rc == 0 and game.is_over
        text = out.read_text()
        assert "your moves:" in text and "game over" in text
        assert "open to you:" in text
        human = seats.index("human")
        # the person sees their own drawn tiles, never a bot's
        assert f"seat {human} (you) cannot play and draws " in text
        for line in text.splitlines():
            if "cannot play and draws" in line and "(you)" not in line:
                assert "draws a tile" in line


def test_bones_play_mexican_train_in_a_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect", reason="the terminal test needs pexpect")

    save = str(tmp_path / "g.play")
    argv = ["-m", "bones", "play", "--variant", "mexican-train", "--seats", "human,greedy"]
    child = pexpect.spawn(
        sys.executable,
        [*argv, "--seed", "3", "--save", save],
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 200),
    )
    prompt = r"move \[1-(\d+)\], or q to save and quit: "
    child.expect(prompt)
    shown = child.before
    assert "engine [12|12]" in shown and "Mexican" in shown and "open to you:" in shown
    assert "@P0" in shown and "@M" in shown
    # the first move typed with its tile turned round and in lower case
    move = re.search(r"  1\) (\d+)-(\d+)@(\w+)", shown)
    child.sendline(f"{move.group(2)}-{move.group(1)}@{move.group(3).lower()}")
    child.expect(prompt)
    assert "is not one of your moves" not in child.before
    assert f"seat 0 (you) plays {move.group(1)}-{move.group(2)} on" in child.before
    for _ in range(2):
        child.sendline("1")
        child.expect(prompt)
    child.sendline("q")
    child.expect("game saved to")
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 130
    game, seats = load_game(save)
    assert seats == ["human", "greedy"] and game.variant == "mexican-train"
    assert len(game.round.placements) >= 3


def test_touching_halves_match_along_every_train():
    for rnd in POSITIONS:
        if rnd.layout_name != "trains":
            continue
        root = parse(svg_of(rnd))
        for index in range(rnd.players + 1):
            target = "M" if index == rnd.players else f"P{index}"
            train = root.find(f".//{SVG}g[@data-train='{target}']")
            tiles = [g for g in train.iter(f"{SVG}g") if g.get("class") == "tile"]
            open_v = rnd.engine
            for g in tiles:
                first, second = (int(t.text) for t in g.iter(f"{SVG}text"))
                assert first == open_v, (target, g.get("data-tile"))
                open_v = second
            end = train.find(f"{SVG}g[@class='open-end']")
            assert end.get("data-open") == str(open_v) == str(rnd.trains[index][0])


def test_each_foot_tile_shows_the_number_it_matched_first():
    for rnd in POSITIONS:
        if rnd.layout_name != "chicken_foot":
            continue
        engine = f"{rnd.engine}-{rnd.engine}"
        free = {engine: rnd.engine}
        matched = {}
        for _, tile, target in rnd.placements:
            a, b = (int(v) for v in tile.split("-"))
            matched[tile] = free[target]
            free[tile] = b if a == free[target] else a
        root = parse(svg_of(rnd))
        for g in board_tiles(root):
            tile = g.get("data-tile")
            if tile == engine:
                continue
            first, second = (int(t.text) for t in g.iter(f"{SVG}text"))
            assert (first, second) == (matched[tile], free[tile]), tile


def test_eight_seats_put_the_hands_beside_the_board():
    """Eight hands under nine trains made a picture taller than wide, which a replay
    window shrank to the left 40% of its width with numbers a few pixels high (issue
    42): from five seats on the hands stand beside the board, clear of it."""
    for rnd in POSITIONS:
        root = parse(svg_of(rnd))
        width, height = float(root.get("width")), float(root.get("height"))
        board = [box(g) for g in board_tiles(root)]
        hands = [
            box(g)
            for g in root.iter(f"{SVG}g")
            if g.get("class", "").split()[:1] == ["hand-tile"] and g.find(f"{SVG}rect") is not None
        ]
        if rnd.players > 4:
            assert height < 1.2 * width, (width, height)
            right = max(b[2] for b in board)
            assert all(h[0] > right for h in hands)  # the hands' column
        for h in hands:
            assert not any(overlaps(h, b) for b in board)
            assert h[2] <= width and h[3] <= height
