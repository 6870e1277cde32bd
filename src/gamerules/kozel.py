"""Kozel (Goat): the 13 rule, eggs and the goat (RULES.md §4.9-§4.11, §4.13).

The carried state is every side's account (:class:`KozelAccounts`); a game's scores are
the accounts' scores.  The bookkeeping is written as small pure functions
(:func:`kozel_entry`, :func:`kozel_record`, :func:`kozel_game_end`) so that each rule can
be checked without dealing a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..records import RoundResult
from .base import (
    MAX_AWARD,
    MAX_START,
    FinishedRound,
    GameRecord,
    GameRules,
    Settlement,
    bad,
    ints,
    lightest_winner,
)

__all__ = [
    "KozelAccounts",
    "KozelGameRules",
    "KozelRules",
    "kozel_entry",
    "kozel_game_end",
    "kozel_record",
]


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


class KozelGameRules(GameRules):
    """Kozel's game: the carried state is the :class:`KozelAccounts` (the scores
    included), stored in the Game message's ``kozel`` field as
    ``{"opened", "hanging", "pot"}``; the losers are the goats."""

    state_field = "kozel"

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.recording = KozelRules.from_options(options)
        # penalties: the goats are the highest; credit_winner: the mirror image
        self.score_order = 1 if self.recording.scoring_style == "credit_winner" else -1

    # -- carried state ------------------------------------------------------------------

    def initial_state(self, scores: tuple[int, ...]) -> KozelAccounts:
        """Accounts at ``scores``; one with a positive score counts as open."""
        n = len(scores)
        return KozelAccounts(tuple(scores), tuple(s > 0 for s in scores), (0,) * n, 0)

    def encode_state(self, state: Any) -> Any:
        acc: KozelAccounts = state
        return {"opened": list(acc.opened), "hanging": list(acc.hanging), "pot": acc.pot}

    def decode_state(self, raw: Any, *, scores: tuple[int, ...], rounds: int) -> KozelAccounts:
        n = len(scores)
        if not isinstance(raw, dict) or set(raw) != {"opened", "hanging", "pot"}:
            raise bad("field 'kozel' must be a map of opened, hanging and pot for a Kozel game")
        opened = raw["opened"]
        if not isinstance(opened, list) or len(opened) != n:
            raise bad(f"kozel.opened must be a list of {n} bools")
        if any(not isinstance(o, bool) for o in opened):
            raise bad("kozel.opened must be a list of bools")
        hanging = ints(raw["hanging"], "kozel.hanging", n, 0, MAX_START)
        # eggs add at most a round's values to the pot: none before the first round
        pot = ints([raw["pot"]], "kozel.pot", 1, 0, MAX_AWARD * rounds)[0]
        return KozelAccounts(scores, tuple(opened), hanging, pot)

    # -- rounds -------------------------------------------------------------------------

    def settle(
        self,
        rnd: FinishedRound,
        result: RoundResult,
        scores: tuple[int, ...],
        state: Any,
        *,
        index: int,
    ) -> Settlement:
        """:func:`kozel_record` on the accounts, then :func:`kozel_game_end`."""
        acc, _ = kozel_record(state, result.winners, result.values, self.recording)
        end = kozel_game_end(acc.scores, self.recording)
        if end is None:
            return Settlement(acc.scores, acc, None, ())
        return Settlement(acc.scores, acc, end[0], end[1])

    def seat_value(self, rnd: FinishedRound, seat: int) -> int:
        """The seat's pips; a 0-0 left alone in a hand counts ``lone_zero_double``."""
        pips = rnd.hand_pips(seat)
        lone = self.options.get("lone_zero_double")
        if lone is not None and pips == 0 and rnd.hand_sizes[seat] == 1:
            return int(lone)
        return pips

    def next_leader(
        self,
        result: RoundResult,
        *,
        sides: Sequence[Sequence[int]],
        seat_values: Sequence[int],
        prev_leader: int,
        lot: int,
    ) -> tuple[int | None, Mapping[str, Any]]:
        """``out_player``: the player who placed the last tile (the out-player, or the
        fish-maker after a fish or eggs); ``fish_winner``: after a fish, the lightest
        player of the winning side(s), ties to the lower seat (eggs: the fish-maker);
        ``opening_rule``: the round-1 rule every round."""
        nl = self.options.get("next_leader")
        if nl == "opening_rule":
            return None, {}
        if result.reason == "out" or nl != "fish_winner" or not result.winners:
            return result.last_seat, {}
        return lightest_winner(result, sides, seat_values), {}

    # -- loading ------------------------------------------------------------------------

    def _check_step(
        self, i: int, before: Sequence[int], after: Sequence[int], result: RoundResult
    ) -> None:
        """No round lowers a score; only the sides that write change (penalty: the
        losers; ``credit_winner``: the winners; eggs: nobody)."""
        if any(a < b for a, b in zip(after, before, strict=True)):
            raise bad(f"history[{i}] lowers a score, which no round of Kozel does")
        winners = set(result.winners)
        credit = self.recording.scoring_style == "credit_winner"
        for side, (b, a) in enumerate(zip(before, after, strict=True)):
            writes = bool(winners) and ((side in winners) == credit)
            if a != b and not writes:
                raise bad(f"history[{i}] changes side {side}, which wrote nothing that round")

    def check(self, record: GameRecord) -> None:
        results, history = record.results, record.history
        kr = self.recording
        last = len(results) - 1
        for i, (result, entry) in enumerate(zip(results, history, strict=True)):
            if i == last and record.over:
                break
            if kozel_game_end(entry, kr) is not None:
                raise bad(f"the game was already over after round {i}, yet it went on")
            if i > 0:
                self._check_step(i, history[i - 1], entry, result)
        if record.over and last > 0:
            self._check_step(last, history[-2], history[-1], results[-1])
        acc: KozelAccounts = record.state
        if any(s > 0 and not o for s, o in zip(acc.scores, acc.opened, strict=True)):
            raise bad("a Kozel side with a positive score must have an open account")
        limit = max(kr.open_threshold, 1) if kr.sub13_mode == "carry" else 1
        if any(h >= limit for h in acc.hanging):
            raise bad("kozel.hanging amounts must be below the threshold (0 unless carry)")
        if kr.eggs_pot == "off" and acc.pot:
            raise bad("kozel.pot must be 0 with eggs_pot=off")
        end = kozel_game_end(record.scores, kr)
        if record.over != (end is not None) or (
            end is not None and end != (record.winners, record.losers)
        ):
            raise bad("over, winners and losers do not follow from the Kozel scores")
