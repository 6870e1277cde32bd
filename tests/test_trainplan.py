"""The train planner (bones.core.trainplan): the best chain of a hand on one open end,
checked against a brute-force search of every chain on small hands, bounded on large
ones, and refusing bad input."""

from __future__ import annotations

import doctest
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bones.core.trainplan import BUDGET, best_chain
from bones.core.wideset import SetTile


def tiles_of(set_max: int) -> list[tuple[int, int]]:
    return [(a, b) for b in range(set_max + 1) for a in range(b, set_max + 1)]


def text(t: tuple[int, int]) -> str:
    return f"{max(t)}-{min(t)}"


def pips(t: tuple[int, int], zero_double: int) -> int:
    return zero_double if t == (0, 0) else t[0] + t[1]


def brute_force(hand: list[tuple[int, int]], open_number: int, zero_double: int):
    """The longest, then heaviest, chain by trying every order of every subset that can
    be laid: (length, pips)."""
    best = (0, 0)

    def extend(end: int, left: list[tuple[int, int]], length: int, weight: int) -> None:
        nonlocal best
        best = max(best, (length, weight))
        for i, t in enumerate(left):
            if end in t:
                rest = left[:i] + left[i + 1 :]
                extend(t[0] + t[1] - end, rest, length + 1, weight + pips(t, zero_double))

    extend(open_number, hand, 0, 0)
    return best


def check_chain(chain, hand_texts: set[str], open_number: int) -> None:
    """Each tile from the hand, once, each showing the number the last one left."""
    end = open_number
    seen = set()
    for tile in chain:
        assert isinstance(tile, SetTile)
        assert str(tile) in hand_texts and str(tile) not in seen
        seen.add(str(tile))
        assert end in (tile.high, tile.low)
        end = tile.high + tile.low - end


@st.composite
def hands(draw, most: int = 9):
    set_max = draw(st.sampled_from([3, 6, 9, 12]))
    pool = tiles_of(set_max)
    hand = draw(st.lists(st.sampled_from(pool), max_size=most, unique=True))
    open_number = draw(st.integers(0, set_max))
    zero_double = draw(st.sampled_from([0, 50]))
    return hand, open_number, zero_double


@settings(max_examples=400, deadline=None)
@given(hands())
def test_agrees_with_brute_force(case):
    hand, open_number, zero_double = case
    chain, weight, exact, nodes = best_chain([text(t) for t in hand], open_number, zero_double)
    assert exact and 1 <= nodes <= BUDGET
    check_chain(chain, {text(t) for t in hand}, open_number)
    assert (len(chain), weight) == brute_force(hand, open_number, zero_double)
    assert weight == sum(pips((t.high, t.low), zero_double) for t in chain)


def test_a_double_is_satisfied_by_the_next_tile_and_may_end_the_chain():
    chain, weight, exact, _ = best_chain(["12-5", "5-5", "5-3", "3-3"], 12)
    assert [str(t) for t in chain] == ["12-5", "5-5", "5-3", "3-3"] and exact
    assert weight == 17 + 10 + 8 + 6
    # the open number's own double goes first
    chain, _, _, _ = best_chain(["9-9", "9-1", "12-9"], 9)
    assert [str(t) for t in chain] == ["9-9", "12-9"]  # heavier than 9-1 at equal length


def test_longest_beats_heaviest():
    chain, weight, _, _ = best_chain(["12-11", "6-1", "1-2", "2-0"], 6)
    assert [str(t) for t in chain] == ["6-1", "2-1", "2-0"] and weight == 12
    chain, weight, _, _ = best_chain(["6-1", "6-5", "12-11"], 6)
    assert [str(t) for t in chain] == ["6-5"] and weight == 11


def test_nothing_to_lay():
    assert best_chain([], 4) == ((), 0, True, 1)
    assert best_chain(["3-2", "1-1"], 4) == ((), 0, True, 1)


@pytest.mark.parametrize("seed", range(40))
def test_standard_hands_are_solved_exactly(seed):
    """Every standard hand size (15 tiles of double-12 at most) within the default
    budget: the answer is the best chain, not the best found."""
    rng = random.Random(seed)
    deck = tiles_of(12)
    rng.shuffle(deck)
    _, _, exact, nodes = best_chain([text(t) for t in deck[:15]], rng.randrange(13))
    assert exact and nodes < BUDGET


@pytest.mark.parametrize("seed", range(10))
def test_large_hands_stop_at_the_budget(seed):
    rng = random.Random(seed)
    deck = tiles_of(12)
    rng.shuffle(deck)
    hand = [text(t) for t in deck[:24]]
    chain, _, exact, nodes = best_chain(hand, 12)
    assert nodes <= BUDGET
    check_chain(chain, set(hand), 12)
    small, _, small_exact, small_nodes = best_chain(hand, 12, budget=5)
    assert small_nodes <= 5 and (small_exact or small_nodes == 5)
    check_chain(small, set(hand), 12)
    # the whole set: a long chain, still within the budget
    everything = [text(t) for t in tiles_of(12)]
    chain, _, _, nodes = best_chain(everything, 12)
    assert nodes <= BUDGET and len(chain) >= 20
    check_chain(chain, set(everything), 12)


def test_a_larger_budget_never_finds_less():
    rng = random.Random(7)
    for _ in range(20):
        deck = tiles_of(12)
        rng.shuffle(deck)
        hand = [text(t) for t in deck[:22]]
        low = best_chain(hand, 12, budget=50)
        high = best_chain(hand, 12, budget=5000)
        assert (len(high[0]), high[1]) >= (len(low[0]), low[1])


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="twice"):
        best_chain(["3-2", "2-3"], 3)
    with pytest.raises(ValueError, match="open_number"):
        best_chain(["3-2"], 13)
    with pytest.raises(ValueError, match="budget"):
        best_chain(["3-2"], 3, budget=0)
    with pytest.raises(ValueError, match="zero_double"):
        best_chain(["3-2"], 3, zero_double=-1)
    with pytest.raises(ValueError):
        best_chain(["13-2"], 3)
    with pytest.raises(TypeError):
        best_chain([3], 3)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.text(max_size=5), st.integers(), st.none()), max_size=6),
    st.integers(-3, 15),
    st.integers(-2, 60),
    st.integers(-2, 100),
)
def test_fuzz_only_clear_errors(hand, open_number, zero_double, budget):
    try:
        chain, weight, _, nodes = best_chain(hand, open_number, zero_double, budget)
    except (ValueError, TypeError) as exc:
        assert str(exc)
    else:
        assert 1 <= nodes <= max(budget, 1) and weight >= 0
        check_chain(chain, {str(SetTile.parse(h)) for h in hand}, open_number)


def test_the_example_of_docs_bots_md():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "bots.md").read_text("utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "best_chain" in b)
    test = doctest.DocTestParser().get_doctest(block, {}, "bots.md", None, 0)
    assert test.examples and doctest.DocTestRunner().run(test).failed == 0
