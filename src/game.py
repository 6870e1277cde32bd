"""A game: rounds strung together until a side wins (or, in Kozel, becomes the goat).

The :class:`Game` deals every round from the game seed, adds each finished round to the
game scores, applies the game-level rules of the variant (the target, Kozel's recording
rules: the 13 rule, eggs and the goat), picks who leads the next round and serialises
itself to msgpack.  A :class:`~bones.Round` plays one round completely, including the
per-move counts, the immediate target check of All Fives and the round-end award; the
game only adds what the round hands back.  docs/game.md states every rule and decision
made here and the msgpack schema.

The bookkeeping is written as small pure functions (:func:`round5`,
:func:`straight_hand_end`, :func:`target_winners`, :func:`kozel_entry`,
:func:`kozel_record`, :func:`kozel_game_end`, :func:`next_leader`, :func:`round_seed`,
:func:`random_seat`) so each rule can be checked without dealing a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import msgpack

from .core.round import Round, derive_seed
from .errors import OptionError
from .records import Reason, RoundResult, unpack_message
from .registry import variant as _lookup_variant
from .variant import brief

__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "Game",
    "KozelAccounts",
    "KozelRules",
    "kozel_entry",
    "kozel_game_end",
    "kozel_record",
    "new_game",
    "next_leader",
    "random_seat",
    "round5",
    "round_seed",
    "splitmix64",
    "straight_hand_end",
    "target_winners",
]

#: ``schema`` field of a Game's msgpack map.
SCHEMA = "bones.game"
#: ``version`` field of a Game's msgpack map; bump on any incompatible change.
SCHEMA_VERSION = 1

_MASK64 = (1 << 64) - 1
_STREAM_DEAL = 1  # seeds of the deals
_STREAM_LEADER = 2  # random leaders chosen by the game


# ---------------------------------------------------------------------------------------
# Seeds


def splitmix64(x: int) -> int:
    """One step of splitmix64 on a 64-bit unsigned integer (the core's seed mixer)."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _derive(seed: int, stream: int, index: int) -> int:
    """A 63-bit number for ``(seed, stream, index)``: splitmix64 applied three times (in
    the core: a game derives two seeds a round)."""
    return derive_seed(seed, stream, index)  # type: ignore[no-any-return]


def round_seed(seed: int, index: int) -> int:
    """The seed ``Round.deal`` gets for round ``index`` (0-based) of a game seeded ``seed``.

    ``splitmix64(splitmix64(splitmix64(seed) ^ 1) ^ index) >> 1``, all arithmetic modulo
    2**64 (``seed`` is taken modulo 2**64), so a game deals the same rounds everywhere.
    """
    return _derive(seed, _STREAM_DEAL, index)


def random_seat(seed: int, index: int, players: int) -> int:
    """The seat the game draws by lot to lead round ``index`` (stream 2, multiply-shift)."""
    return (_derive(seed, _STREAM_LEADER, index) * players) >> 63


# ---------------------------------------------------------------------------------------
# Straight (All Fives), Multiplayer and Draw: scores and the target


def round5(n: int) -> int:
    """The nearest multiple of five (RULES.md §1.4): remainders 1-2 down, 3-4 up."""
    return 5 * ((n + 2) // 5)


def target_winners(scores: Sequence[int], target: int, exact: bool = False) -> tuple[int, ...]:
    """The sides that win on ``scores``: the highest of those at or above ``target`` (at it
    exactly with ``exact``); several on a tie; ``()`` while nobody has reached it."""
    reached = [i for i, s in enumerate(scores) if (s == target if exact else s >= target)]
    if not reached:
        return ()
    best = max(scores[i] for i in reached)
    return tuple(i for i in reached if scores[i] == best)


def straight_hand_end(
    scores: Sequence[int],
    bonus: Sequence[int],
    *,
    target: int,
    exact_target: bool = False,
    immediate: bool = True,
    penalty: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The game scores after an All Fives hand that ended by a domino or a block.

    ``scores``: the side totals at the end of play (game scores + the counts of the hand,
    i.e. ``round.scores``).  ``bonus``: the hand bonus per side.  With ``exact_target`` a
    bonus that would take a side past ``target`` is void.  ``penalty`` (option
    ``hand_penalty``): per side, its own pips rounded to five (and scaled), subtracted
    after the bonus; with ``immediate`` it is not subtracted when the bonus has already
    ended the game (the target is checked at every scoring event).
    """
    out = list(scores)
    for side, points in enumerate(bonus):
        if exact_target and out[side] + points > target:
            continue  # an overshoot is void
        out[side] += points
    if penalty is not None and not (immediate and target_winners(out, target, exact_target)):
        out = [s - p for s, p in zip(out, penalty, strict=True)]
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Kozel: the 13 rule, eggs and the goat


@dataclass(frozen=True)
class KozelRules:
    """The Kozel recording options (RULES.md §4.9-§4.11, §4.13)."""

    scoring_style: str = "penalty"  # "penalty" | "credit_winner"
    open_threshold: int = 13
    sub13_mode: str = "discard"  # "discard" | "carry"
    threshold_scope: str = "first_entry"  # "first_entry" | "every_entry"
    eggs_pot: str = "total"  # "total" | "one_side" | "off"
    target: int = 101

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> KozelRules:
        """The recording rules of a resolved Kozel option dict."""
        return cls(
            scoring_style=options.get("scoring_style", "penalty"),
            open_threshold=options.get("open_threshold", 13),
            sub13_mode=options.get("sub13_mode", "discard"),
            threshold_scope=options.get("threshold_scope", "first_entry"),
            eggs_pot=options.get("eggs_pot", "total"),
            target=options.get("target", 101),
        )


@dataclass(frozen=True)
class KozelAccounts:
    """Every side's Kozel account: ``scores``, ``opened`` (has recorded an entry), the
    ``hanging`` sub-threshold amounts (``sub13_mode=carry``) and the eggs ``pot``."""

    scores: tuple[int, ...]
    opened: tuple[bool, ...]
    hanging: tuple[int, ...]
    pot: int = 0

    @classmethod
    def empty(cls, sides: int) -> KozelAccounts:
        """Closed accounts at zero and an empty pot."""
        return cls((0,) * sides, (False,) * sides, (0,) * sides, 0)


def kozel_entry(
    score: int, opened: bool, hanging: int, amount: int, rules: KozelRules
) -> tuple[int, bool, int, int]:
    """Write ``amount`` on one account; returns ``(score, opened, hanging, written)``.

    The threshold (``open_threshold``, 13) applies while the account is closed, or at
    every entry with ``threshold_scope=every_entry``.  Below it the amount is discarded,
    or with ``sub13_mode=carry`` it hangs and is added to the next amounts until their sum
    reaches the threshold.  A written entry opens the account for good.
    """
    if opened and rules.threshold_scope != "every_entry":
        return score + amount, True, hanging, amount
    total = hanging + amount if rules.sub13_mode == "carry" else amount
    if total >= rules.open_threshold:
        return score + total, True, 0, total
    return score, opened, total if rules.sub13_mode == "carry" else 0, 0


def kozel_record(
    accounts: KozelAccounts,
    winners: Sequence[int],
    values: Sequence[int],
    rules: KozelRules,
) -> tuple[KozelAccounts, tuple[int, ...]]:
    """Record one Kozel round; returns the new accounts and what each side wrote.

    ``winners``: the winning sides (empty after a fish in which every side tied: eggs).
    ``values``: each side's hand value (lone 0-0 rule included).  Penalty style: every
    losing side writes its own value plus the eggs pot.  ``credit_winner``: every winning
    side is credited with the losers' values summed plus the pot.  Eggs put the sum of
    all values (``eggs_pot=total``), the tied value (``one_side``) or nothing (``off``)
    into the pot; the pot is emptied by the next round that has a loser, even when the
    threshold discards the amount it was added to.
    """
    n = len(accounts.scores)
    if not winners:  # eggs
        extra = {"total": sum(values), "one_side": values[0] if values else 0}
        pot = accounts.pot + extra.get(rules.eggs_pot, 0)
        return KozelAccounts(accounts.scores, accounts.opened, accounts.hanging, pot), (0,) * n
    losers = [side for side in range(n) if side not in winners]
    if not losers:
        return accounts, (0,) * n
    if rules.scoring_style == "credit_winner":
        credit = sum(values[side] for side in losers) + accounts.pot
        amounts = {side: credit for side in winners}
    else:
        amounts = {side: values[side] + accounts.pot for side in losers}
    scores = list(accounts.scores)
    opened = list(accounts.opened)
    hanging = list(accounts.hanging)
    written = [0] * n
    for side, amount in sorted(amounts.items()):
        scores[side], opened[side], hanging[side], written[side] = kozel_entry(
            scores[side], opened[side], hanging[side], amount, rules
        )
    new = KozelAccounts(tuple(scores), tuple(opened), tuple(hanging), 0)
    return new, tuple(written)


def kozel_game_end(
    scores: Sequence[int], rules: KozelRules
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(winners, goats)`` once a side has reached the target, else ``None``.

    Penalty style: the goats are the side(s) with the highest score among those at or
    above the target; the winners are the side(s) with the lowest score (with three
    players a middle player is neither).  ``credit_winner``: the mirror image, the highest
    of those at or above the target win and the lowest-scoring other side(s) are goats.
    """
    reached = [i for i, s in enumerate(scores) if s >= rules.target]
    if not reached:
        return None
    top = max(scores[i] for i in reached)
    first = tuple(i for i in reached if scores[i] == top)
    rest = [i for i in range(len(scores)) if i not in first]
    if not rest:  # cannot happen in a real game: some side records nothing each round
        other: tuple[int, ...] = ()
    else:
        low = min(scores[i] for i in rest)
        other = tuple(i for i in rest if scores[i] == low)
    if rules.scoring_style == "credit_winner":
        return first, other
    return other, first


# ---------------------------------------------------------------------------------------
# Who leads the next round


def _lightest_winner(
    result: RoundResult, sides: Sequence[Sequence[int]], seat_values: Sequence[int]
) -> int | None:
    """The lightest player of the winning side(s), ties to the lower seat; ``None``
    without a winner."""
    seats = sorted(seat for side in result.winners for seat in sides[side])
    if not seats:
        return None
    return min(seats, key=lambda seat: (seat_values[seat], seat))


def next_leader(
    base: str,
    options: Mapping[str, Any],
    result: RoundResult,
    *,
    sides: Sequence[Sequence[int]],
    seat_values: Sequence[int],
    prev_leader: int,
    lot: int,
) -> tuple[int | None, dict[str, Any]]:
    """Who leads the round after ``result``: ``(leader, extra options for Round.deal)``.

    ``leader=None`` asks the round for the variant's round-1 rule.  ``seat_values``: each
    seat's hand value at the end of the round; ``prev_leader``: who led it; ``lot``: the
    seat the game drew by lot for the next round (used only where the rules say random).

    * straight: ``dominoer`` — the player who went out, by lot after a block;
      ``last_bone`` — the player who went out, the holder of the highest double after a
      block (round-1 rule with ``first_leader=highest_double``); ``rotate`` — the seat
      left of the previous leader.
    * multiplayer: ``previous_winner`` — the winner, any tile; no winner → round-1 rule;
      ``opening_rule`` — round-1 rule every round.
    * kozel: ``out_player`` — the player who placed the last tile (the out-player, or
      the fish-maker after a fish or eggs); ``fish_winner`` — after a fish, the lightest
      player of the winning side(s), ties to the lower seat (eggs: the fish-maker);
      ``opening_rule`` — round-1 rule every round.
    * draw: the player who went out; after a block the lightest player of the winning
      side; without a winner the player who placed the last tile.
    """
    players = len(seat_values)
    nl = options.get("next_leader")
    out = result.reason == "out"
    if base == "straight":
        if nl == "rotate":
            return (prev_leader + 1) % players, {}
        if out:
            return result.last_seat, {}
        if nl == "last_bone":
            return None, {"first_leader": "highest_double"}
        return lot, {}
    if base == "multiplayer":
        if nl == "opening_rule":
            return None, {}
        if out:
            return result.last_seat, {}
        return _lightest_winner(result, sides, seat_values), {}
    if base == "kozel":
        if nl == "opening_rule":
            return None, {}
        if out or nl != "fish_winner" or not result.winners:
            return result.last_seat, {}
        return _lightest_winner(result, sides, seat_values), {}
    # draw (block is a one-round game and never asks)
    if out:
        return result.last_seat, {}
    winner = _lightest_winner(result, sides, seat_values)
    return (result.last_seat if winner is None else winner), {}


# ---------------------------------------------------------------------------------------
# The game


def _straight_award(
    result: RoundResult, rules: Mapping[str, Any]
) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """``(bonus, penalty)`` of an All Fives hand: the round's award, and with
    ``hand_penalty`` each side's own pips rounded to five (scaled), taken after the bonus
    so that the target is checked first."""
    if not rules.get("hand_penalty"):
        return tuple(result.points), None
    scale = rules.get("score_scale", 1)
    return tuple(result.points), tuple(round5(v) // scale for v in result.values)


def _plain(value: Any) -> Any:
    """An option value as msgpack writes it back (mappings to dicts, tuples to lists)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError(f"seed must be in [-2**63, 2**64); got {seed}")
    return seed


def _seat_value(rnd: Round, seat: int, lone_zero: int | None) -> int:
    """What seat's hand counts for the next leader: its pips (Kozel: a lone 0-0 counts
    ``lone_zero``)."""
    pips: int = rnd.hand_pips(seat)
    if lone_zero is not None and pips == 0 and rnd.hand_sizes[seat] == 1:
        return lone_zero
    return pips


class Game:
    """A game of a variant: ``round`` (the current :class:`~bones.Round`), ``scores`` (per
    side), ``sides``, ``is_over``, ``winners``, ``losers`` (Kozel: the goats),
    ``results`` (each recorded round's :class:`~bones.RoundResult`) and ``history`` (the
    scores after each recorded round).

    Play the current round to its end, then call :meth:`next_round`: it records the
    result, and deals the next round unless the game is over.  Build one with
    :func:`new_game` (or ``Game(variant, players, seed, **options)``).
    """

    def __init__(self, variant: str, players: int = 2, seed: int = 0, **options: Any) -> None:
        self._setup(variant, players, seed, options)
        self._start(self._deal(0, None, {}, None), None)

    # -- construction -------------------------------------------------------------------

    def _setup(self, variant: Any, players: int, seed: int, options: Mapping[str, Any]) -> None:
        spec = _lookup_variant(variant)
        self._rules: dict[str, Any] = spec.resolve_options(players, options)  # validates
        self._variant: str = spec.name
        self._base: str = spec.base
        self._players: int = players
        self._seed: int = _check_seed(seed)
        self._options: dict[str, Any] = {k: _plain(options[k]) for k in sorted(options)}
        self._index = 0
        self._results: list[RoundResult] = []
        self._history: list[tuple[int, ...]] = []
        self._over = False
        self._winners: tuple[int, ...] = ()
        self._losers: tuple[int, ...] = ()
        self._kozel: KozelAccounts | None = None
        self._kozel_rules = KozelRules.from_options(self._rules)

    def _start(self, first: Round, scores: Sequence[int] | None) -> None:
        self._round = first
        self._sides: tuple[tuple[int, ...], ...] = tuple(tuple(s) for s in first.sides)
        n = len(self._sides)
        if scores is None:
            scores = (0,) * n
        if len(scores) != n:
            raise ValueError(f"scores must give one number per side ({n}); got {list(scores)}")
        self._scores: tuple[int, ...] = tuple(int(s) for s in scores)
        if self._base == "kozel":
            empty = KozelAccounts.empty(n)
            self._kozel = KozelAccounts(
                self._scores, tuple(s > 0 for s in self._scores), empty.hanging, 0
            )

    @classmethod
    def from_round(
        cls,
        variant: str,
        round: Round,
        *,
        seed: int = 0,
        scores: Sequence[int] | None = None,
        **options: Any,
    ) -> Game:
        """A game whose first round is ``round`` (e.g. from ``Round.from_deal``).

        ``scores``: the game scores before that round (give the round the same
        ``scores=``); ``options`` must be the ones the round was made with.  Later rounds
        are dealt from ``seed`` as in :func:`new_game`.  Used for worked examples and to
        continue a game started elsewhere; a Kozel account with a positive score counts
        as open.
        """
        game = cls.__new__(cls)
        game._setup(variant, round.players, seed, options)
        game._start(round, scores)
        return game

    # -- dealing ------------------------------------------------------------------------

    def _deal(
        self,
        index: int,
        leader: int | None,
        extra: Mapping[str, Any],
        scores: Sequence[int] | None,
    ) -> Round:
        options = dict(self._options)
        options.update(extra)
        return Round.deal(
            self._variant,
            players=self._players,
            seed=round_seed(self._seed, index),
            leader=leader,
            scores=None if scores is None else list(scores),
            **options,
        )

    # -- properties ---------------------------------------------------------------------

    @property
    def variant(self) -> str:
        """The variant's name."""
        return self._variant

    @property
    def base(self) -> str:
        """The rule family the variant runs on (``straight``, ``kozel``, ...)."""
        return self._base

    @property
    def players(self) -> int:
        return self._players

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def options(self) -> dict[str, Any]:
        """The options the game was made with (the overrides, not the defaults)."""
        return dict(self._options)

    @property
    def rules(self) -> dict[str, Any]:
        """Every option of the variant, resolved, plus ``players``."""
        return dict(self._rules)

    @property
    def round(self) -> Round:
        """The current round (after the game ends: the last one)."""
        return self._round

    @property
    def round_index(self) -> int:
        """0-based number of the current round."""
        return self._index

    @property
    def scores(self) -> tuple[int, ...]:
        """Per side: the game score (Kozel: the account) after the recorded rounds."""
        return self._scores

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        return self._sides

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def winners(self) -> tuple[int, ...]:
        """Winning side(s) once the game is over (several: a draw); ``()`` before."""
        return self._winners

    @property
    def losers(self) -> tuple[int, ...]:
        """Losing side(s) once the game is over; Kozel: the goats."""
        return self._losers

    @property
    def results(self) -> tuple[RoundResult, ...]:
        return tuple(self._results)

    @property
    def history(self) -> tuple[tuple[int, ...], ...]:
        """The scores after each recorded round."""
        return tuple(self._history)

    @property
    def pot(self) -> int:
        """Kozel: the eggs pot waiting for the next loser (0 elsewhere)."""
        return self._kozel.pot if self._kozel else 0

    @property
    def kozel_accounts(self) -> KozelAccounts | None:
        """Kozel: the accounts (scores, opened, hanging amounts, eggs pot); else ``None``."""
        return self._kozel

    def __repr__(self) -> str:
        state = "over" if self._over else f"round {self._index}"
        return (
            f"<bones.Game {self._variant} players={self._players} seed={self._seed} "
            f"{state} scores={list(self._scores)}>"
        )

    # -- progress -----------------------------------------------------------------------

    def _repr_svg_(self) -> str:
        """The current round and the game scores as SVG (for notebooks; bones.render)."""
        from .render.svg import svg_of

        return svg_of(self)

    def next_round(self) -> Round | None:
        """Record the finished round; deal and return the next one (``None`` once the
        game is over).  ``ValueError`` while the round is still being played or after the
        game is over."""
        if self._over:
            raise ValueError("the game is over; there is no next round")
        rnd = self._round
        if not rnd.is_over:
            raise ValueError("the current round is not over: play it to its end first")
        result = rnd.result
        assert result is not None  # the round is over
        self._record(rnd, result)
        if self._over:
            return None
        index = self._index + 1
        lone = self._rules.get("lone_zero_double") if self._base == "kozel" else None
        values = [_seat_value(rnd, seat, lone) for seat in range(self._players)]
        leader, extra = next_leader(
            self._base,
            self._rules,
            result,
            sides=self._sides,
            seat_values=values,
            prev_leader=rnd.leader,
            lot=random_seat(self._seed, index, self._players),
        )
        self._round = self._deal(index, leader, extra, self._scores)
        self._index = index
        return self._round

    def _record(self, rnd: Round, result: RoundResult) -> None:
        scores, kozel, winners, losers = self._settle(rnd, result, self._scores, self._kozel)
        self._kozel = kozel
        self._add(scores, result, winners, losers)

    def _settle(
        self,
        rnd: Round,
        result: RoundResult,
        before: tuple[int, ...],
        kozel: KozelAccounts | None,
    ) -> tuple[tuple[int, ...], KozelAccounts | None, tuple[int, ...] | None, tuple[int, ...]]:
        """What recording ``result`` (of ``rnd``) does to scores ``before`` (Kozel: to the
        accounts ``kozel``): ``(scores, accounts, winners or None, losers)``; winners
        ``None`` while the game goes on.  Pure: the game itself is not changed."""
        base = self._base
        rules = self._rules
        n = len(self._sides)
        if base == "kozel":
            assert kozel is not None
            kozel, _ = kozel_record(kozel, result.winners, result.values, self._kozel_rules)
            end = kozel_game_end(kozel.scores, self._kozel_rules)
            if end is None:
                return kozel.scores, kozel, None, ()
            return kozel.scores, kozel, end[0], end[1]
        if base == "block":  # one round is the whole game
            winners = tuple(result.winners)
            scores = tuple(s + p for s, p in zip(before, result.points, strict=True))
            return scores, None, winners, tuple(i for i in range(n) if i not in winners)
        exact = base == "straight" and bool(rules.get("exact_target"))
        target = rules["target"]
        if base != "straight":
            scores = tuple(s + p for s, p in zip(before, result.points, strict=True))
        elif result.reason == "target":  # the round ended the game: no hand bonus
            scores = tuple(rnd.scores)
        else:
            bonus, penalty = _straight_award(result, rules)
            scores = straight_hand_end(
                rnd.scores,
                bonus,
                penalty=penalty,
                target=target,
                exact_target=exact,
                immediate=rules.get("target_check") == "immediate",
            )
        winners = target_winners(scores, target, exact)
        if result.reason == "target" and not winners:  # the round says so: trust it
            winners = tuple(i for i, s in enumerate(scores) if s == max(scores))
        if winners:
            return scores, None, winners, tuple(i for i in range(n) if i not in winners)
        return scores, None, None, ()

    def _add(
        self,
        scores: Sequence[int],
        result: RoundResult,
        winners: tuple[int, ...] | None = None,
        losers: tuple[int, ...] = (),
    ) -> None:
        """Append a recorded round; with ``winners`` the game is over."""
        self._scores = tuple(scores)
        self._results.append(result)
        self._history.append(self._scores)
        if winners is not None:
            self._over = True
            self._winners = winners
            self._losers = losers

    # -- msgpack ------------------------------------------------------------------------

    def to_msgpack(self) -> bytes:
        """The whole game as msgpack (schema ``bones.game`` version 1, docs/game.md)."""
        acc = self._kozel
        doc = {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "variant": self._variant,
            "players": self._players,
            "seed": self._seed,
            "options": self._options,
            "round_index": self._index,
            "scores": list(self._scores),
            "kozel": None
            if acc is None
            else {"opened": list(acc.opened), "hanging": list(acc.hanging), "pot": acc.pot},
            "results": [
                [r.reason, list(r.winners), list(r.points), list(r.values), r.last_seat]
                for r in self._results
            ],
            "history": [list(h) for h in self._history],
            "over": self._over,
            "winners": list(self._winners),
            "losers": list(self._losers),
            "round": self._round.to_msgpack(),
        }
        return msgpack.packb(doc, use_bin_type=True)

    @classmethod
    def from_msgpack(cls, data: bytes | bytearray | memoryview) -> Game:
        """The game :meth:`to_msgpack` wrote; ``ValueError`` naming what is wrong for
        bytes that are truncated, malformed, of another schema or version, or that
        describe a game no play could have produced (a round of another variant, scores
        that disagree with the history, a game over without winners, ...)."""
        doc = unpack_message(
            data,
            "Game msgpack",
            max_depth=_MAX_DEPTH,
            max_bytes=_MAX_BYTES,
            max_array_len=_MAX_ROUNDS,
            max_map_len=64,
            max_str_len=256,
            max_bin_len=1 << 16,
            strict_map_key=False,  # hand_size={2: 7} has int keys
        )
        return _load(cls, doc)


# ---------------------------------------------------------------------------------------
# Loading: every field checked, then the whole game checked for consistency

#: The fields of a Game message.
_FIELDS = frozenset(
    {
        "schema",
        "version",
        "variant",
        "players",
        "seed",
        "options",
        "round_index",
        "scores",
        "kozel",
        "results",
        "history",
        "over",
        "winners",
        "losers",
        "round",
    }
)
_MAX_DEPTH = 4  # the map, results, one result, its winners
_MAX_ROUNDS = 100_000  # rounds in one game
_MAX_START = 1_000_000  # |a score| before the first round (Game.from_round takes any)
_ROUND_DRIFT = 6_000  # the most one round can move a score (28 placements' counts + bonus)
# |any score|: within the core's limit (1e9) for every game the loader accepts and then
# plays on, so that a loaded game that plays on can always be saved and loaded again
_MAX_SCORE = _MAX_START + _ROUND_DRIFT * _MAX_ROUNDS
_MAX_BYTES = 16 << 20  # a game of _MAX_ROUNDS rounds is a few MiB
_MAX_AWARD = 200  # a round's award or hand value: the set has 168 pips (a lone 0-0: 25)
_REASONS = ("out", "blocked", "target")


def _bad(what: str) -> ValueError:
    return ValueError(f"Game msgpack: {what}")


def _get(doc: Mapping[Any, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in doc:
        raise _bad(f"missing field {key!r}")
    value = doc[key]
    if isinstance(value, bool) and kind is int:
        raise _bad(f"field {key!r} must be {what}; got {value!r}")
    if not isinstance(value, kind):
        raise _bad(f"field {key!r} must be {what}; got {type(value).__name__}")
    return value


def _ints(
    value: Any, key: str, length: int | None = None, low: int = -_MAX_SCORE, high: int = _MAX_SCORE
) -> tuple[int, ...]:
    if not isinstance(value, list) or any(
        isinstance(v, bool) or not isinstance(v, int) for v in value
    ):
        raise _bad(f"field {key!r} must be a list of ints; got {brief(value)}")
    if length is not None and len(value) != length:
        raise _bad(f"field {key!r} must have {length} entries; got {len(value)}")
    if any(not low <= v <= high for v in value):
        raise _bad(f"field {key!r} must hold ints from {low} to {high}; got {brief(value)}")
    return tuple(value)


def _reach(i: int) -> int:
    """The largest |score| after recorded round ``i`` (0-based)."""
    return _MAX_START + _ROUND_DRIFT * (i + 1)


def _sides_of(value: Any, key: str, n: int) -> tuple[int, ...]:
    """A sorted set of side indices below ``n``."""
    sides = _ints(value, key, None, 0, n - 1)
    if list(sides) != sorted(set(sides)):
        raise _bad(f"field {key!r} must list distinct sides in order; got {list(sides)}")
    return sides


def _result(item: Any, i: int, n: int, players: int) -> RoundResult:
    if not (isinstance(item, list) and len(item) == 5):
        raise _bad(f"results[{i}] must be [reason, winners, points, values, last_seat]")
    reason, winners, points, values, last = item
    if reason not in _REASONS or not isinstance(reason, str):
        raise _bad(f"results[{i}] reason must be one of {', '.join(_REASONS)}; got {brief(reason)}")
    if isinstance(last, bool) or not isinstance(last, int) or not 0 <= last < players:
        raise _bad(f"results[{i}] last_seat must be a seat (0..{players - 1}); got {brief(last)}")
    result = RoundResult(
        cast(Reason, reason),
        _sides_of(winners, f"results[{i}].winners", n),
        _ints(points, f"results[{i}].points", n, -_MAX_AWARD, _MAX_AWARD),
        _ints(values, f"results[{i}].values", n, 0, _MAX_AWARD),
        last,
    )
    if sum(result.values) > _MAX_AWARD:
        raise _bad(f"results[{i}] values add up to more than the pips of a set")
    return result


def _saved_options(variant: str, options: dict[str, Any], raw_round: bytes) -> dict[str, Any]:
    """The game's options as they were played: a game whose round was saved before the
    bounded table (round msgpack version 1 or 2) played every round unbounded."""
    from .core.round import pre_geometry_options

    try:
        version = msgpack.unpackb(raw_round, raw=False, strict_map_key=False)[0]
        legacy = type(version) is int and version in (1, 2)
        return pre_geometry_options(variant, options) if legacy else options
    except Exception:  # bad bytes or an unknown variant: reported by the checks after
        return options


def _load(cls: type[Game], doc: Any) -> Game:
    if not isinstance(doc, dict):
        raise _bad(f"expected a map, got {type(doc).__name__}")
    if doc.get("schema") != SCHEMA:
        raise _bad(f"schema is {brief(doc.get('schema'))}, expected {SCHEMA!r}")
    version = doc.get("version")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise _bad(f"unsupported version {brief(version)} (this bones reads {SCHEMA_VERSION})")
    unknown = [key for key in doc if key not in _FIELDS]
    if unknown:
        raise _bad(f"unknown field {brief(unknown[0])}")
    variant = _get(doc, "variant", str, "a variant name")
    players = _get(doc, "players", int, "an int")
    seed = _get(doc, "seed", int, "an int")
    options = _get(doc, "options", dict, "a map")
    if any(not isinstance(key, str) for key in options):
        raise _bad(f"option names must be strings; got {brief(list(options))}")
    index = _get(doc, "round_index", int, "an int")
    over = _get(doc, "over", bool, "a bool")
    raw_round = _get(doc, "round", bytes, "bytes")
    options = _saved_options(variant, options, raw_round)
    game = cls.__new__(cls)
    try:
        game._setup(variant, players, seed, options)
    except OptionError as exc:  # an unknown variant or option, a value not allowed
        raise OptionError(f"Game msgpack: {exc}") from None
    except ValueError as exc:  # a seed out of range
        raise _bad(str(exc)) from None
    try:
        rnd = Round.from_msgpack(raw_round)
    except Exception as exc:  # the core promises ValueError; never let anything else out
        raise _bad(f"the current round does not load: {exc}") from None
    if rnd.variant != game._variant:
        raise _bad(f"the current round is of variant {rnd.variant!r}, the game {variant!r}")
    if rnd.players != players:
        raise _bad(f"the round has {rnd.players} players, the game {players}")
    n = len(rnd.sides)
    game._round = rnd
    game._sides = tuple(tuple(s) for s in rnd.sides)
    if not 0 <= index < _MAX_ROUNDS:
        raise _bad(f"round_index must be from 0 to {_MAX_ROUNDS - 1}; got {index}")
    game._index = index
    raw_results = _get(doc, "results", list, "a list")
    results = [_result(item, i, n, players) for i, item in enumerate(raw_results)]
    # each recorded round moves a score by at most _ROUND_DRIFT from a bounded start
    reach = _MAX_START + _ROUND_DRIFT * len(results)
    game._scores = _ints(doc.get("scores"), "scores", n, -reach, reach)
    if len(results) != index + (1 if over else 0):
        raise _bad(
            f"{len(results)} results do not fit round_index {index} of a game "
            + ("that is over" if over else "in progress")
        )
    game._results = results
    game._history = [
        _ints(h, f"history[{i}]", n, -_reach(i), _reach(i))
        for i, h in enumerate(_get(doc, "history", list, "a list"))
    ]
    if len(game._history) != len(results):
        raise _bad("history must have one entry per result")
    game._over = over
    game._winners = _sides_of(doc.get("winners"), "winners", n)
    game._losers = _sides_of(doc.get("losers"), "losers", n)
    kozel = doc.get("kozel")
    if game._base == "kozel":
        if not isinstance(kozel, dict) or set(kozel) != {"opened", "hanging", "pot"}:
            raise _bad("field 'kozel' must be a map of opened, hanging and pot for a Kozel game")
        opened = kozel["opened"]
        if not isinstance(opened, list) or len(opened) != n:
            raise _bad(f"kozel.opened must be a list of {n} bools")
        if any(not isinstance(o, bool) for o in opened):
            raise _bad("kozel.opened must be a list of bools")
        hanging = _ints(kozel["hanging"], "kozel.hanging", n, 0, _MAX_START)
        # eggs add at most a round's values to the pot: none before the first round
        pot = _ints([kozel["pot"]], "kozel.pot", 1, 0, _MAX_AWARD * len(results))[0]
        game._kozel = KozelAccounts(game._scores, tuple(opened), hanging, pot)
    elif kozel is not None:
        raise _bad("field 'kozel' must be nil outside Kozel")
    _check_game(game, rnd, raw_round)
    return game


def _check_step(
    game: Game, i: int, before: tuple[int, ...], after: tuple[int, ...], result: RoundResult
) -> None:
    """What recording round ``i`` may do to the scores: Kozel and All Fives without
    ``hand_penalty`` never lower one; in Kozel only the sides that write (penalty: the
    losers; ``credit_winner``: the winners; eggs: nobody) change."""
    base = game._base
    if base == "kozel" or (base == "straight" and not game._rules.get("hand_penalty")):
        if any(a < b for a, b in zip(after, before, strict=True)):
            raise _bad(f"history[{i}] lowers a score, which no round of {game._variant} does")
    if base == "kozel":
        winners = set(result.winners)
        credit = game._kozel_rules.scoring_style == "credit_winner"
        for side, (b, a) in enumerate(zip(before, after, strict=True)):
            writes = bool(winners) and ((side in winners) == credit)
            if a != b and not writes:
                raise _bad(f"history[{i}] changes side {side}, which wrote nothing that round")


def _check_game(game: Game, rnd: Round, raw_round: bytes) -> None:
    """The invariants every played game satisfies; ``ValueError`` naming the first that a
    loaded one breaks, so that a loaded game never disagrees with a played one."""
    base, rules = game._base, game._rules
    results, history, scores = game._results, game._history, game._scores
    index, over = game._index, game._over
    deal = msgpack.unpackb(raw_round, raw=False, strict_map_key=False)  # it loaded: valid
    overrides, deal_scores = _saved_options(game._variant, dict(deal[4]), raw_round), tuple(deal[9])
    # the round was dealt with the game's options (after a block, last_bone adds one)
    expected = dict(game._options)
    if (
        base == "straight"
        and index > 0
        and rules.get("next_leader") == "last_bone"
        and overrides.get("first_leader") == "highest_double"
    ):
        expected["first_leader"] = "highest_double"
    if overrides != expected or any(type(overrides[k]) is not type(v) for k, v in expected.items()):
        raise _bad(
            f"the current round was made with options {brief(overrides)}, "
            f"the game's are {brief(expected)}"
        )
    if results and scores != history[-1]:
        raise _bad("scores must equal the last history entry")
    if over:
        if not rnd.is_over or rnd.result != results[-1]:
            raise _bad("the game is over, but its current round is not the last recorded one")
    elif game._winners or game._losers:
        raise _bad("a game in progress has no winners or losers")
    if index > 0:  # the game dealt this round: from its seed, with the scores before it
        if deal_scores != history[index - 1]:
            raise _bad("the current round was not dealt with the game's scores before it")
        try:
            fresh = Round.deal(
                game._variant,
                game._players,
                round_seed(game._seed, index),
                rnd.leader,
                None,
                list(deal_scores),
                **overrides,
            )
            dealt = msgpack.unpackb(fresh.to_msgpack(), raw=False, strict_map_key=False)
        except Exception as exc:
            raise _bad(f"round {index} cannot be dealt again: {exc}") from None
        if dealt[5:7] != deal[5:7]:
            raise _bad(f"round {index} is not the one the game's seed deals")
    # nobody had won before the last recorded round
    target = rules.get("target", 0)
    exact = base == "straight" and bool(rules.get("exact_target"))
    for i, (result, entry) in enumerate(zip(results, history, strict=True)):
        if over and i == len(results) - 1:
            break
        if base == "block":
            raise _bad("a block game is over after its one round")
        if base == "kozel":
            ended = kozel_game_end(entry, game._kozel_rules) is not None
        else:
            ended = result.reason == "target" or bool(target_winners(entry, target, exact))
        if ended:
            raise _bad(f"the game was already over after round {i}, yet it went on")
        if i > 0:
            _check_step(game, i, history[i - 1], entry, result)
        if base in ("multiplayer", "draw") and i > 0:
            if entry != tuple(a + b for a, b in zip(history[i - 1], result.points, strict=True)):
                raise _bad(f"history[{i}] is not history[{i - 1}] plus round {i}'s points")
    if over and len(results) > 1:
        _check_step(game, len(results) - 1, history[-2], history[-1], results[-1])
    if base in ("multiplayer", "draw") and over and len(results) > 1:
        last = tuple(a + b for a, b in zip(history[-2], results[-1].points, strict=True))
        if last != history[-1]:
            raise _bad("the last history entry is not the one before plus the last points")
    if base == "kozel":
        acc = game._kozel
        assert acc is not None
        kr = game._kozel_rules
        if any(s > 0 and not o for s, o in zip(acc.scores, acc.opened, strict=True)):
            raise _bad("a Kozel side with a positive score must have an open account")
        limit = max(kr.open_threshold, 1) if kr.sub13_mode == "carry" else 1
        if any(h >= limit for h in acc.hanging):
            raise _bad("kozel.hanging amounts must be below the threshold (0 unless carry)")
        if kr.eggs_pot == "off" and acc.pot:
            raise _bad("kozel.pot must be 0 with eggs_pot=off")
        end = kozel_game_end(scores, kr)
        if over != (end is not None) or (end is not None and end != (game._winners, game._losers)):
            raise _bad("over, winners and losers do not follow from the Kozel scores")
        return
    if over:  # record the last round again: the same scores and the same end
        result = results[-1]
        if len(history) > 1:
            before = history[-2]
        elif base == "straight":
            before = deal_scores  # unused: the round's own scores carry the game's
        else:
            before = tuple(a - b for a, b in zip(scores, result.points, strict=True))
        again, _, winners, losers = game._settle(rnd, result, before, None)
        recorded = (game._scores, game._winners, game._losers)
        if winners is None or (again, winners, losers) != recorded:
            raise _bad("scores, winners and losers do not follow from the last round")
    elif base != "block" and target and target_winners(scores, target, exact):
        raise _bad("the scores have reached the target, yet the game is not over")


def new_game(variant: str, players: int = 2, seed: int = 0, **options: Any) -> Game:
    """A new game of ``variant`` for ``players``, dealt from ``seed``.

    The options are checked by ``bones.variant(variant).resolve(players, **options)``
    (:class:`~bones.OptionError` for an unknown variant, option or value); the first
    round is dealt at once.
    """
    return Game(variant, players, seed, **options)
