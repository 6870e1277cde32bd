"""The exact sampler of hidden deals (bones.core.sampler).

* consistency: over random positions of every variant and player count, every sample is
  a full deal whose replay gives the seat exactly the same observation;
* exactness: on small positions the sampler's count equals a brute-force enumeration of
  every full deal, and its sampled frequencies pass a chi-square test against it.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

import bones
from bones.core.sampler import DealSampler, count_deals, sample_round

CONFIGS = [
    ("straight", 2, {}),
    ("straight", 3, {}),
    ("straight", 4, {}),
    ("straight", 3, {"first_leader": "highest_double"}),
    ("straight", 2, {"may_draw_with_playable": True}),
    ("straight", 2, {"muggins_claim": True}),
    ("multiplayer", 2, {}),
    ("multiplayer", 2, {"voluntary_pass": True}),
    ("multiplayer", 2, {"opening_tile_forced": False}),
    ("kozel", 2, {}),
    ("kozel", 3, {"opening_tile_forced": False}),
    ("kozel", 4, {}),
    ("kozel", 4, {"hand_size": "classic"}),
    ("kozel", 2, {"redeal_bad_hand": True, "no_zero_double_lead": True}),
    ("block", 2, {}),
    ("block", 4, {}),
    ("draw", 2, {}),
    ("draw", 3, {"stock_reserve": 2}),
    ("draw", 4, {}),
]


def random_position(variant, players, seed, stop, **options):
    """A round dealt from seed, played at random until a coin with P(stop) says stop."""
    rnd = bones.Round.deal(variant, players=players, seed=seed, **options)
    rng = random.Random(seed)
    while not rnd.is_over and rng.random() > stop:
        rnd.play(rng.choice(list(rnd.legal_moves)))
    return rnd


def hidden_of(rnd, seat):
    """What the seat cannot see now: other hands and the boneyard as a set."""
    hands = tuple(
        frozenset(map(str, rnd.hand(s))) if s != seat else None for s in range(rnd.players)
    )
    return hands, frozenset(map(str, rnd.stock))


@pytest.mark.parametrize("variant,players,options", CONFIGS)
def test_samples_replay_to_the_same_observation(variant, players, options):
    for seed in range(12):
        rnd = random_position(variant, players, seed, (0.03, 0.08, 0.2)[seed % 3], **options)
        seat = seed % players
        obs = rnd.observation(seat)
        table = {t for m in rnd.layout for t in (m.tile, m.tile2) if t is not None}
        for source, who in ((obs, None), (rnd, seat)):
            sampler = DealSampler(source, who)
            for sample in sampler.samples(4, seed):
                assert sample.observation(seat) == obs
                assert sample.hand(seat) == rnd.hand(seat)
                assert sample.hand_sizes == rnd.hand_sizes
                assert sample.stock_size == rnd.stock_size
                tiles = [t for s in range(players) for t in sample.hand(s)] + list(sample.stock)
                assert len(tiles) == len(set(tiles))
                assert not set(tiles) & table
                if variant != "block":
                    assert len(tiles) + len(table) == 28
                assert not sample.is_partial


def test_voids_are_respected():
    """A seat that passed with the ends showing {a, b} holds no a or b afterwards (Block:
    nothing is ever drawn), in every sample."""
    checked = 0
    for seed in range(40):
        rnd = random_position("block", 4, seed, 0.08)
        obs = rnd.observation(0)
        voids = {s: set() for s in range(4)}
        for event in rnd.events:
            if event.kind == "pass":
                voids[event.seat] |= _ends_at(rnd, event)
        for sample in DealSampler(obs).samples(5, seed):
            for s in range(1, 4):
                for tile in sample.hand(s):
                    assert not {tile.high, tile.low} & voids[s]
                    checked += 1
    assert checked > 100


def _played(rnd, seat):
    return [e.move.tile for e in rnd.events if e.kind == "play" and e.seat == seat]


def _ends_at(rnd, event):
    """The open numbers at a pass event (replayed from the public events)."""
    index = rnd.events.index(event)
    layout = [e.move for e in rnd.events[:index] if e.kind == "play"]
    ends = set()
    line: list[int] = []
    for move in layout:
        tile = move.tile
        if not line:
            line = [tile.high, tile.low]
        elif move.end == "W":
            line[0] = tile.low if tile.high == line[0] else tile.high
        else:
            line[1] = tile.low if tile.high == line[1] else tile.high
    ends.update(line)
    return ends


# ---------------------------------------------------------------------------------------
# Brute force


def brute_force(rnd, seat, opening, redeal=False):
    """Every full deal consistent with what seat sees: {hidden state: full deals}.
    ``redeal``: leave out deals with a hand Kozel's redeal_bad_hand would redeal."""
    obs = rnd.observation(seat)
    players = rnd.players
    table = {t for m in rnd.layout for t in (m.tile, m.tile2) if t is not None}
    mine = set(rnd.hand(seat))
    unseen = [t for t in bones.TILES if t not in table and t not in mine]
    sizes = rnd.hand_sizes
    played = {
        s: [
            t
            for e in rnd.events
            if e.kind == "play" and e.seat == s
            for t in (e.move.tile, e.move.tile2)
            if t is not None
        ]
        for s in range(players)
    }
    drawn = Counter()
    draw_order = []
    for e in rnd.events:
        if e.kind == "draw":
            drawn[e.seat] += e.count
            draw_order += [e.seat] * e.count
    others = [s for s in range(players) if s != seat]
    found = Counter()
    stock_n = rnd.stock_size

    def partitions(pool, seats):
        if not seats:
            yield {}
            return
        s = seats[0]
        for hand in itertools.combinations(pool, sizes[s]):
            rest = [t for t in pool if t not in hand]
            for more in partitions(rest, seats[1:]):
                yield {s: hand, **more}

    for split in partitions(unseen, others):
        held = {s: list(split.get(s, ())) for s in others}
        held[seat] = list(mine)
        rest = [t for t in unseen if all(t not in split[s] for s in others)]
        possessed = {s: held[s] + played[s] for s in range(players)}
        choices = [itertools.permutations(possessed[s], drawn[s]) for s in range(players)]
        for draws in itertools.product(*choices):
            hands0 = [[t for t in possessed[s] if t not in draws[s]] for s in range(players)]
            if redeal and any(_bad_hand(h) for h in hands0):
                continue
            cursor = Counter()
            stock = []
            for s in draw_order:
                stock.append(draws[s][cursor[s]])
                cursor[s] += 1
            stock += rest
            try:
                replay = bones.Round.from_deal(
                    rnd.variant,
                    hands0,
                    stock=stock if _draws(rnd) else (),
                    leader=None if opening else rnd.leader,
                    scores=None,
                    moves=rnd.moves,
                    **obs.options,
                )
            except ValueError:
                continue
            if _same_record(replay.observation(seat), obs):
                found[hidden_of(replay, seat)] += math.factorial(stock_n)
    return found


def _same_record(a, b):
    """The observations are equal but perhaps in ``opening``: brute_force's ``opening``
    argument stands for it, as the sampler's does."""
    return all(getattr(a, f) == getattr(b, f) for f in a.FIELDS if f != "opening")


def _bad_hand(hand):
    doubles = sum(t.is_double for t in hand)
    numbers = Counter(n for t in hand for n in {t.high, t.low})
    return doubles >= 5 or max(numbers.values(), default=0) >= 6


def _draws(rnd):
    return rnd.variant != "block"


def _size(rnd, seat):
    """How many candidates brute_force would try."""
    table = {t for m in rnd.layout for t in (m.tile, m.tile2) if t is not None}
    unseen = 28 - len(table) - len(rnd.hand(seat))
    sizes = [n for s, n in enumerate(rnd.hand_sizes) if s != seat]
    total = math.factorial(unseen)
    for n in sizes:
        total //= math.factorial(n)
    total //= math.factorial(unseen - sum(sizes))
    drawn = Counter()
    for e in rnd.events:
        if e.kind == "draw":
            drawn[e.seat] += e.count
    for s in range(rnd.players):
        own = rnd.hand_sizes[s] + sum(
            1 + (e.move.tile2 is not None) for e in rnd.events if e.kind == "play" and e.seat == s
        )
        total *= math.perm(own, drawn[s])
    return total


def chi_square_p(observed, expected):
    """P(chi2 >= statistic) for len(expected) - 1 degrees of freedom."""
    stat = sum((observed.get(k, 0) - v) ** 2 / v for k, v in expected.items())
    return _gamma_q((len(expected) - 1) / 2, stat / 2)


def _gamma_q(a, x):
    """The regularised upper incomplete gamma function Q(a, x)."""
    if x <= 0:
        return 1.0
    if x < a + 1:  # series for P
        term = total = 1.0 / a
        n = a
        while abs(term) > 1e-15 * abs(total):
            n += 1
            term *= x / n
            total += term
        return 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a))
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)  # continued fraction for Q
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


EXACT = [
    ("block", 2, {}),
    ("block", 4, {}),
    ("draw", 2, {}),
    ("draw", 3, {}),
    ("straight", 2, {}),
    ("kozel", 2, {}),
    ("kozel", 4, {}),
    ("multiplayer", 2, {}),
    ("multiplayer", 2, {"voluntary_pass": True}),
    ("straight", 3, {}),
    ("straight", 4, {}),
    ("kozel", 3, {}),
    ("draw", 4, {}),
]


def small_positions(variant, players, options, want):
    out = []
    for seed in range(400):
        rnd = random_position(variant, players, seed, 0.02, **options)
        if rnd.is_over:
            rnd.undo()
        seat = seed % players
        if rnd.is_over or not 20 <= _size(rnd, seat) <= 1500:
            continue
        out.append((rnd, seat))
        if len(out) == want:
            break
    return out


@pytest.mark.parametrize("variant,players,options", EXACT)
def test_count_and_frequencies_match_brute_force(variant, players, options):
    positions = small_positions(variant, players, options, 2)
    assert positions
    for rnd, seat in positions:
        obs = rnd.observation(seat)
        sampler = DealSampler(obs, opening=False)
        exact = brute_force(rnd, seat, opening=False)
        assert sampler.exact
        assert sampler.count == sum(exact.values())
        n = 600
        seen = Counter(hidden_of(s, seat) for s in sampler.samples(n, 12345))
        assert set(seen) <= set(exact)
        total = sum(exact.values())
        expected = {k: n * v / total for k, v in exact.items()}
        if len(expected) > 1:
            assert chi_square_p(seen, expected) > 1e-4


def test_opening_rule_is_a_constraint():
    """Kozel round 1: the leader led the highest double dealt, so nobody was dealt a
    higher one; the counts with and without the rule match brute force."""
    for seed in range(200):
        rnd = random_position("kozel", 2, seed, 0.02)
        if rnd.is_over:
            rnd.undo()
        if rnd.is_over or not 20 <= _size(rnd, 0) <= 1500:
            continue
        for opening in (True, False):
            exact = brute_force(rnd, 0, opening)
            assert count_deals(rnd.observation(0), opening=opening) == sum(exact.values())
        break
    else:
        pytest.fail("no small kozel position")
    lead = rnd.layout[0].tile
    for sample in DealSampler(rnd.observation(0), opening=True).samples(50, 1):
        for s in range(2):
            dealt = set(sample.hand(s)) | set(_played(sample, s))
            higher = [t for t in dealt if t.is_double and t.high > lead.high and lead.is_double]
            assert not higher or s == sample.leader


@pytest.mark.parametrize(
    "variant,players,options",
    [
        ("kozel", 2, {"opening_tile_forced": False}),
        ("kozel", 3, {}),
        ("multiplayer", 2, {"opening_tile_forced": False, "tile_ranking": "lexicographic"}),
        ("straight", 2, {"first_leader": "highest_double"}),
    ],
)
def test_opening_cases_match_brute_force(variant, players, options):
    """With the opening rule, every possible opener is a case (the lead does not show it
    when it is not forced): counts and frequencies against brute force."""
    positions = small_positions(variant, players, options, 2)
    assert positions
    for rnd, seat in positions:
        obs = rnd.observation(seat)
        sampler = DealSampler(obs, opening=True)
        exact = brute_force(rnd, seat, opening=True)
        assert sampler.count == sum(exact.values())
        n = 600
        seen = Counter(hidden_of(s, seat) for s in sampler.samples(n, 5))
        assert set(seen) <= set(exact)
        total = sum(exact.values())
        expected = {k: n * v / total for k, v in exact.items()}
        if len(expected) > 1:
            assert chi_square_p(seen, expected) > 1e-4


def test_sample_round_api():
    rnd = random_position("kozel", 4, 3, 0.1)
    obs = rnd.observation(2)
    a = sample_round(obs, 7)
    assert a == sample_round(obs, 7)
    assert a.observation(2) == obs
    assert sample_round(rnd, random.Random(1), seat=2).observation(2) == obs
    with pytest.raises(TypeError):
        DealSampler("kozel")
    with pytest.raises(TypeError):
        DealSampler(rnd)
    assert DealSampler(obs).run(100, 3) == 100
    with pytest.raises(ValueError, match="not built"):
        DealSampler.__new__(DealSampler).sample(1)


def test_rejection_keeps_redeal_uniform():
    """Kozel with redeal_bad_hand: the model ignores the redeal, samples with a bad dealt
    hand are rejected; the frequencies still match brute force."""
    positions = small_positions("kozel", 2, {"redeal_bad_hand": True}, 2)
    assert positions
    for rnd, seat in positions:
        obs = rnd.observation(seat)
        sampler = DealSampler(obs, opening=False)
        assert not sampler.exact
        exact = brute_force(rnd, seat, opening=False, redeal=True)
        n = 600
        seen = Counter(hidden_of(s, seat) for s in sampler.samples(n, 99))
        assert set(seen) <= set(exact)
        total = sum(exact.values())
        expected = {k: n * v / total for k, v in exact.items()}
        if len(expected) > 1:
            assert chi_square_p(seen, expected) > 1e-4
        assert 0.5 < sampler.acceptance <= 1


def _doubles(rnd):
    """The variant's first round opens by doubles (the holder of the best double leads)."""
    options = rnd.observation(0).options
    if rnd.variant == "straight":
        return options.get("first_leader") == "highest_double"
    return rnd.variant in ("kozel", "multiplayer")


@pytest.mark.parametrize("variant,players,options", CONFIGS)
def test_before_the_lead(variant, players, options):
    """At the deal every seat's view samples (the opening cases when the leader came
    from the opening rule), and the opening rule only removes deals."""
    for seed in range(3):
        rnd = bones.Round.deal(variant, players=players, seed=seed, **options)
        for seat in range(players):
            obs = rnd.observation(seat)
            sampler = DealSampler(obs)
            # dealt with leader=None and no scores: the opening rule applied (no fallback)
            assert sampler.opening == _doubles(rnd)
            for sample in sampler.samples(3, seed):
                assert sample.observation(seat) == obs
                assert sample.leader == rnd.leader
            assert sampler.count <= count_deals(obs, opening=False)


def test_voids_in_draw_games_cover_only_tiles_held():
    """A seat forced to draw while {a, b} was open held no a or b then, but may hold one
    drawn later: the samples must include such hands (voids are per batch of tiles)."""
    later = 0
    for seed in range(80):
        rnd = random_position("draw", 2, seed, 0.03)
        if rnd.is_over:
            continue
        replay = rnd.copy()
        while replay.moves:
            replay.undo()
        shown = []  # the open numbers at each forced draw of seat 1
        for move in rnd.moves:
            before = len(replay.events)
            replay.play(move)
            if any(e.kind == "draw" and e.seat == 1 for e in replay.events[before:]):
                shown.append({v for _, v in replay.ends})
        obs = rnd.observation(0)
        for sample in DealSampler(obs).samples(10, seed):
            assert sample.observation(0) == obs
            numbers = {n for t in sample.hand(1) for n in (t.high, t.low)}
            later += any(numbers & m for m in shown)
    assert later > 0


def test_inconsistent_observations_are_value_errors():
    """An observation no full deal explains (built by hand, or of a partial deal) is a
    ValueError naming the problem, never a crash."""
    rnd = random_position("draw", 2, 4, 0.1)
    obs = rnd.observation(0)
    rng = random.Random(0)
    fields = {
        "hand_sizes": lambda: tuple(rng.randint(0, 9) for _ in obs.hand_sizes),
        "stock_size": lambda: rng.randint(0, 28),
        "hand": lambda: tuple(rng.sample(bones.TILES, len(obs.hand))),
        "events": lambda: tuple(rng.sample(obs.events, len(obs.events))),
        "scores": lambda: (0,),
    }
    for _ in range(60):
        name = rng.choice(sorted(fields))
        bad = type(obs)(**{f: getattr(obs, f) for f in obs.FIELDS})
        setattr(bad, name, fields[name]())
        try:
            DealSampler(bad)
        except ValueError:
            pass
    partial = bones.Round.from_deal("draw", [["6-6", "6-5"], ["5-5"]], partial=True)
    with pytest.raises(ValueError, match="full deal"):
        DealSampler(partial.observation(0))


@pytest.mark.parametrize("variant,players", [("straight", 2), ("kozel", 4), ("block", 4)])
def test_observation_sample_is_sample_round(variant: str, players: int) -> None:
    rnd = bones.Round.deal(variant, players=players, seed=11)
    rng = random.Random(3)
    for _ in range(6):
        if rnd.is_over:
            break
        rnd.play(rnd.legal_moves[rng.randrange(len(rnd.legal_moves))])
    obs = rnd.observation(1)
    sample = obs.sample(42)
    assert sample.observation(1) == obs
    assert sample == sample_round(obs, 42)
    assert obs.sample(random.Random(5)).observation(1) == obs


def test_a_later_round_at_zero_scores_is_not_taken_for_the_opening():
    """A Kozel round after the first can start with every score at 0 (the 13 rule), its
    leader given by the game, not by the opening rule: the sampler must not force the
    opening lead on it (the searches refused such positions, and the bots forfeited)."""
    from bones.core.search import choose

    rnd = bones.Round.from_deal(
        "kozel",
        hands=[
            "0-0 5-0 4-1 5-1 2-2 3-3 5-5".split(),
            "6-0 6-1 4-3 5-3 5-4 6-5 6-6".split(),
        ],
        stock="5-2 3-1 4-4 3-2 6-2 3-0 4-0 6-4 4-2 2-1 1-1 1-0 2-0 6-3".split(),
        leader=1,
    )
    obs = rnd.observation(1)
    legal = tuple(rnd.legal_moves)
    assert len(legal) == 7 and obs.scores == (0, 0)
    sampler = DealSampler(obs)
    assert not sampler.opening and not DealSampler(rnd, 1).opening
    for seed in range(20):
        assert tuple(obs.sample(seed).legal_moves) == legal
    assert choose(obs, legal, simulations=8, seed=1)[0] in legal
    # the first round of a game still follows the opening rule
    first = bones.Round.deal("kozel", players=2, seed=3)
    assert DealSampler(first.observation(first.to_move)).opening


def test_the_opening_is_public_and_exact() -> None:
    """Round.opening: the rule chose the leader (leader=None under a doubles opening), not
    a caller or the previous round; observations carry it and the sampler follows it."""
    assert bones.Round.deal("kozel", seed=1).opening
    assert not bones.Round.deal("kozel", seed=1, leader=1).opening
    dealt = bones.Round.deal("kozel", seed=1)
    assert not bones.Round.deal("kozel", seed=1, lead_tile=dealt.lead_tile).opening
    assert dealt.copy().opening and dealt.observation(1).opening
    assert not bones.Round.deal("straight", seed=1).opening  # first_leader=random
    assert bones.Round.deal("straight", seed=1, first_leader="highest_double").opening
    assert not bones.Round.deal("block", seed=1).opening


def _later_kozel_rounds_at_zero(want: int) -> list[tuple[bones.Round, int]]:
    """Positions of Kozel rounds after the first that start with every score 0 and whose
    lead fits the opening rule: what the scores alone would take for a first round."""
    out = []
    for seed in range(300):
        game = bones.new_game("kozel", players=2, seed=seed)
        bots = [bones.make_bot("greedy", seed=seed + i) for i in range(2)]
        index = 0
        while not game.is_over and len(out) < want:
            rnd = game.round
            while not rnd.is_over:
                seat = rnd.to_move
                obs = rnd.observation(seat)
                if index and not any(rnd.observation(0).scores) and len(rnd.layout) == 2:
                    out.append((rnd.copy(), 1 - seat))
                rnd.play(bots[seat].choose(obs, tuple(rnd.legal_moves)))
            if not game.is_over:
                game.next_round()
            index += 1
        if len(out) >= want:
            return out
    return out


def test_a_later_round_at_zero_is_not_taken_for_the_first() -> None:
    positions = _later_kozel_rounds_at_zero(6)
    assert positions
    guessed = 0
    for rnd, seat in positions:
        assert not rnd.opening
        obs = rnd.observation(seat)
        assert obs.opening is False
        sampler = DealSampler(obs)
        assert sampler.opening == 0 and sampler.count == count_deals(obs, opening=False)
        assert DealSampler(rnd, seat).count == sampler.count
        for sample in sampler.samples(5, 3):
            assert not sample.opening and sample.observation(seat) == obs
        old = bones.Observation.from_msgpack(_older_schema(obs))  # no opening: a guess
        assert old.opening is None
        guessed += DealSampler(old).opening
    assert guessed  # the guess took some of these for first rounds


def _older_schema(obs: bones.Observation) -> bytes:
    import msgpack

    fields = msgpack.unpackb(obs.to_msgpack(), raw=False, strict_map_key=False)
    return msgpack.packb([2, *fields[1:18]], use_bin_type=True)
