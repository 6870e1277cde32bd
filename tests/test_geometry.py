"""Table geometry (docs/geometry.md, RULES.md §3.4 G1-G4), checked over random games of
every variant with hypothesis.

At every step: no two tiles overlap, every tile lies on the bounded table, each placed
tile shows the end's number on its first half and that half touches a tile half showing
the same number (except a tile past a wall of spinner arms, docs/geometry.md), a closed end
is never played on and stays closed.  Undo restores the
geometry exactly, msgpack and replays give the same layout, and an observation computes
the same placements from its public layout.
"""

from __future__ import annotations

import doctest
import random
from pathlib import Path

import msgpack
import pytest
from helpers import CASES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bones
from bones import Game, Placement, Round, new_game
from bones.core.round import layout_geometry

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
STEP = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}


def box(p: Placement) -> tuple[int, int, int, int]:
    """The cells a tile covers as (x0, y0, x1, y1): 4 units along its angle, 2 across."""
    if p.angle in (0, 180):
        return (p.x - 2, p.y - 1, p.x + 2, p.y + 1)
    return (p.x - 1, p.y - 2, p.x + 1, p.y + 2)


def halves(p: Placement) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(centre x, centre y, pips) of the first and the second half."""
    dx, dy = STEP[p.angle]
    return (p.x - dx, p.y - dy, p.first), (p.x + dx, p.y + dy, p.second)


def touch(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Whether two 2x2 halves share an edge of positive length."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return (dx == 2 and dy < 2) or (dy == 2 and dx < 2)


def overlap(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check_layout(r: Round) -> None:
    """The layout's invariants.  Only when every double spins can arms wall an end in; the
    tile then goes on straight ahead past the wall (docs/geometry.md), apart from the line."""
    may_jump = r.options.get("spinner_rule") == "all_doubles"
    placed = r.placements
    assert len(placed) == sum(2 if m.is_double_double else 1 for m in r.layout)
    assert [p.move for p in placed] == [
        m for m in r.layout for _ in range(2 if m.is_double_double else 1)
    ]
    assert placed == () or (placed[0].x, placed[0].y) == (0, 0)
    boxes = [box(p) for p in placed]
    for i, b in enumerate(boxes):
        assert not any(overlap(b, other) for other in boxes[:i]), f"tile {i} overlaps"
    if r.table is not None:
        x0, y0, x1, y1 = r.table
        assert all(x0 <= b[0] and b[2] <= x1 and y0 <= b[1] and b[3] <= y1 for b in boxes)
    for k, p in enumerate(placed):
        assert {p.first, p.second} == {p.tile.high, p.tile.low}
        if k and not p.move.is_lead and not may_jump:
            first = halves(p)[0]
            assert any(
                touch(first, half) and half[2] == p.first for q in placed[:k] for half in halves(q)
            ), f"{p} touches no half showing {p.first}"


def options_for(variant: str, draw: st.DrawFn) -> dict[str, object]:
    if variant == "multiplayer":
        return {
            "table_width": draw(st.integers(2, 9)),
            "table_height": draw(st.integers(2, 6)),
            "end_when_closed": draw(st.booleans()),
        }
    if variant == "straight":
        return {"spinner_rule": draw(st.sampled_from(["first_double", "none", "all_doubles"]))}
    return {}


@st.composite
def games(draw: st.DrawFn) -> tuple[str, int, int, int, dict[str, object]]:
    variant, players = draw(st.sampled_from(CASES))
    return variant, players, draw(SEEDS), draw(SEEDS), options_for(variant, draw)


@SETTINGS
@given(game=games())
def test_random_games_keep_the_geometry_sound(game):
    variant, players, seed, choice_seed, options = game
    r = Round.deal(variant, players=players, seed=seed, **options)
    rng = random.Random(choice_seed)
    history = [(r.placements, r.closed_ends, tuple(r.legal_moves))]
    while not r.is_over:
        closed = set(r.closed_ends)
        ends = dict(r.ends)
        move = rng.choice(list(r.legal_moves))
        assert move.end not in closed  # G1: a closed end offers no placement
        before = len(r.placements)
        r.play(move)
        assert closed <= set(r.closed_ends)  # G3: closed for the rest of the round
        new = r.placements[before:]
        if not move.is_lead:
            assert new[0].first == ends[move.end]  # the first half shows the end's number
        check_layout(r)
        history.append((r.placements, r.closed_ends, tuple(r.legal_moves)))
    if r.table is None:
        assert r.closed_ends == ()  # G4
    # the same moves give the same layout: a replay, msgpack, a copy, an observation
    again = Round.from_msgpack(r.to_msgpack())
    assert again.placements == r.placements and again.closed_ends == r.closed_ends
    assert r.copy().placements == r.placements
    for seat in range(players):
        obs = r.observation(seat)
        assert obs.placements == r.placements and obs.closed_ends == r.closed_ends
        assert obs.table == r.table
    # undo restores the geometry exactly, step by step
    while r.moves:
        history.pop()
        r.undo()
        assert (r.placements, r.closed_ends, tuple(r.legal_moves)) == history[-1]


@SETTINGS
@given(game=games())
def test_replayed_moves_give_the_same_layout(game):
    variant, players, seed, choice_seed, options = game
    r = Round.deal(variant, players=players, seed=seed, **options)
    rng = random.Random(choice_seed)
    hands = [r.hand(s) for s in range(players)]
    stock = r.stock
    while not r.is_over:
        r.play(rng.choice(list(r.legal_moves)))
    replayed = Round.from_deal(
        variant, hands, stock, leader=r.leader, lead_tile=r.lead_tile, moves=r.moves, **options
    )
    assert replayed.placements == r.placements
    assert replayed.closed_ends == r.closed_ends
    geometry = layout_geometry(variant, players, options, r.layout)
    assert geometry == (r.placements, r.table, r.closed_ends)


def test_the_lead_and_the_line():
    r = Round.from_deal(
        "multiplayer", [["6-4", "4-2", "1-0"], ["4-4", "3-3"]], leader=0, partial=True
    )
    r.play("6-4")
    r.play("4-4@E")  # a double crosswise
    r.play("4-2@E")
    lead, double, tile = r.placements
    assert (lead.x, lead.y, lead.angle, lead.first, lead.second) == (0, 0, 0, 6, 4)
    assert (double.x, double.y, double.angle) == (3, 0, 90)
    assert (tile.x, tile.y, tile.angle, tile.first, tile.second) == (6, 0, 0, 4, 2)
    assert r.table == (-16, -10, 16, 10)  # 8 x 5 tile lengths, in quarter tiles


def test_the_spinner_has_four_arms():
    r = Round.from_deal(
        "straight",
        [["5-5", "5-1", "3-1", "0-0"], ["5-0", "5-3", "5-2", "6-6"]],
        leader=0,
        partial=True,
    )
    for move in ("5-5", "5-0@W", "5-1@E", "5-3@N", "3-1@N", "5-2@S"):
        r.play(move)
    spots = {str(p.move): (p.x, p.y, p.angle) for p in r.placements}
    assert spots["5-5"] == (0, 0, 90)
    assert spots["5-0@W"] == (-3, 0, 180)
    assert spots["5-1@E"] == (3, 0, 0)
    assert spots["5-3@N"] == (0, -4, 270)
    assert spots["3-1@N"] == (0, -8, 270)
    assert spots["5-2@S"] == (0, 4, 90)
    assert r.table is None and r.closed_ends == ()


def test_the_line_turns_at_the_table_edge():
    # a 2 x 2 table (x and y from -4 to 4): the second tile east has no room straight on
    r = Round.from_deal(
        "multiplayer", [["6-4", "2-1"], ["4-2", "0-0"]], leader=0, partial=True,
        table_width=2, table_height=2,
    )  # fmt: skip
    r.play("6-4")
    r.play("4-2@E")
    tile = r.placements[1]
    # both turns have room; the free areas tie, so clockwise: south (y grows downward)
    assert (tile.x, tile.y, tile.angle, tile.first) == (3, 1, 90, 4)


@pytest.mark.parametrize(
    "layout",
    [
        ["6-4@W"],  # no lead
        ["6-4", "3-2@W"],  # does not match
        ["6-4", "6-4@W"],  # twice
        ["6-4", "draw"],  # not a placement
        ["6-4", "5-4@N2"],  # no such end
    ],
)
def test_a_layout_that_cannot_be_built_is_a_value_error(layout):
    with pytest.raises(ValueError):
        layout_geometry("multiplayer", 2, {}, layout)


@settings(max_examples=300, deadline=None)
@given(
    layout=st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from(["", "@W", "@E"])),
        max_size=30,
    ),
    width=st.integers(2, 6),
)
def test_any_layout_is_placed_soundly_or_refused(layout, width):
    texts = [f"{a}-{b}{end if i else ''}" for i, (a, b, end) in enumerate(layout)]
    options = {"table_width": width, "table_height": 2}
    try:
        placements, table, _ = layout_geometry("multiplayer", 2, options, texts)
    except ValueError:
        return
    boxes = [box(p) for p in placements]
    assert not any(overlap(a, b) for i, a in enumerate(boxes) for b in boxes[:i])
    assert all(table[0] <= b[0] and b[2] <= table[2] for b in boxes)


def test_options_out_of_range_are_refused():
    for bad in ({"table_width": 1}, {"table_height": 57}, {"geometry": "round"}):
        with pytest.raises(bones.OptionError):
            Round.deal("multiplayer", **bad)


def test_a_game_saved_before_the_bounded_table_stays_unbounded():
    game = new_game("multiplayer", seed=3, geometry="unbounded")
    doc = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    old_round = msgpack.unpackb(doc["round"], raw=False, strict_map_key=False)
    old_round[0] = 1  # round msgpack version 1, when no geometry option was written
    del old_round[11]  # nor whether the opening rule opened it
    old_round[4] = {}
    doc["options"] = {}
    doc["round"] = msgpack.packb(old_round, use_bin_type=True)
    loaded = Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))
    assert loaded.round.options["geometry"] == "unbounded"
    assert loaded.options == {"geometry": "unbounded"}


def test_the_search_bot_sees_closed_ends():
    # full deals on a 3 x 2 table, which closes an end in nearly every round: whenever an
    # end is closed, the search bot's move is legal and never on a closed end
    bot = bones.make_bot("montecarlo:simulations=40")
    seen = 0
    for seed in range(12):
        r = Round.deal("multiplayer", seed=seed, table_width=3, table_height=2)
        rng = random.Random(seed)
        while not r.is_over:
            obs = r.observation(r.to_move)
            if obs.closed_ends:
                move = bot.choose(obs, obs.legal_moves)
                assert move in obs.legal_moves
                assert move.end is None or str(move.end) not in obs.closed_ends
                seen += 1
                r.play(move)
            else:
                r.play(rng.choice(list(r.legal_moves)))
    assert seen > 10


def test_the_examples_in_docs_geometry_md_run():
    path = Path(__file__).resolve().parent.parent / "docs" / "geometry.md"
    result = doctest.testfile(str(path), module_relative=False, verbose=False)
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=SEEDS)
def test_a_sampled_deal_shows_the_same_closed_ends(seed, choice_seed):
    # a 3 x 2 table closes an end in nearly every round; the sampler rebuilds the table
    # from the public layout and the sampled round must show this seat what it saw
    r = Round.deal("multiplayer", seed=seed, table_width=3, table_height=2)
    rng = random.Random(choice_seed)
    checked = 0
    while not r.is_over and checked < 3:
        r.play(rng.choice(list(r.legal_moves)))
        if r.closed_ends and not r.is_over:
            obs = r.observation(r.to_move)
            assert obs.closed_ends
            assert obs.sample(seed % 1000).observation(obs.seat) == obs
            checked += 1


def test_an_observation_with_closed_ends_the_layout_does_not_close_is_refused():
    hands = [["4-0", "5-2", "6-1", "4-3"], ["2-0", "6-5", "1-1"]]
    r = Round.from_deal(
        "multiplayer", hands, ["3-3", "5-5", "5-0"], leader=0, partial=True,
        moves=["4-0", "2-0@E", "5-2@E", "6-5@E"], table_width=4, table_height=2,
    )  # fmt: skip
    fields = msgpack.unpackb(r.observation(0).to_msgpack(), raw=False, strict_map_key=False)
    assert fields[17] == ["E"]
    for wrong in ([], ["W"], ["W", "E"]):
        fields[17] = wrong
        with pytest.raises(ValueError, match="closed_ends"):
            bones.Observation.from_msgpack(msgpack.packb(fields, use_bin_type=True))


def test_a_version_1_observation_of_multiplayer_is_unbounded():
    # saved before the bounded table: no closed_ends field, and the game was unbounded,
    # so a layout that a bounded table would have closed still loads, with no closed end
    hands = [["4-0", "5-2", "6-1", "4-3"], ["2-0", "6-5", "1-1"]]
    r = Round.from_deal(
        "multiplayer", hands, ["3-3", "5-5", "5-0"], leader=0, partial=True,
        moves=["4-0", "2-0@E", "5-2@E", "6-5@E"], table_width=4, table_height=2,
        geometry="unbounded",
    )  # fmt: skip
    fields = msgpack.unpackb(r.observation(0).to_msgpack(), raw=False, strict_map_key=False)
    fields[0] = 1
    fields[5] = {"table_width": 4, "table_height": 2}
    del fields[17:]  # closed_ends and opening
    obs = bones.Observation.from_msgpack(msgpack.packb(fields, use_bin_type=True))
    assert obs.options["geometry"] == "unbounded" and obs.closed_ends == ()
    assert "6-1@E" in {str(m) for m in obs.legal_moves}


def test_a_turn_goes_toward_the_larger_free_area():
    # a 5 x 3 table (x -10..10, y -6..6): the W line has snaked around the south half, so
    # when E meets the right edge the north has more free table and E turns north, though
    # the clockwise turn (south) had room too
    moves = (
        "6-6 6-4@W 4-1@W 2-1@W 2-0@W 0-0@W 6-0@W 6-3@W 5-3@W 5-2@W 6-2@W 6-5@W 5-0@W 3-0@W "
        "3-3@W 3-2@W 6-1@E 5-1@E"
    ).split()
    r = Round.deal("multiplayer", seed=674, table_width=5, table_height=3)
    for move in moves[:-1]:
        r.play(move)
    before = r.placements
    end = before[-1]  # 6-1@E, heading east: the next tile touches at x + 2
    assert (end.angle, end.first == end.second) == (0, False)
    south = (end.x + 2, end.y - 1, end.x + 4, end.y + 3)  # the clockwise turn's box
    x0, y0, x1, y1 = r.table
    assert x0 <= south[0] and south[2] <= x1 and y0 <= south[1] and south[3] <= y1
    assert not any(overlap(south, box(p)) for p in before)
    r.play(moves[-1])
    assert r.placements[-1].angle == 270  # north, toward the larger free area


def test_on_a_tie_the_line_turns_clockwise():
    r = Round.from_deal(
        "multiplayer", [["4-0", "5-2"], ["2-0", "6-5"]], leader=0, partial=True,
        moves=["4-0", "2-0@E", "5-2@E"], table_width=4, table_height=2,
    )  # fmt: skip
    assert r.placements[-1].angle == 90  # heading east at the edge: south
