"""The game-level rules API: what a variant says about a game made of rounds.

A :class:`~bones.Round` plays one round; a :class:`~bones.Game` strings rounds together.
Everything between the two that differs from one rule family to another -- how a
finished round changes the game scores, what is carried from one round to the next
(Kozel's accounts), when the game is over and who won, who leads the next round, the
options each round is dealt with -- is answered by the variant's :class:`GameRules`
(``Variant.game_rules``).  The game itself only deals, records and serialises.

This module imports neither the core nor the plugin machinery: a rule set is plain
Python over plain records, so it can be written and tested without dealing a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, Protocol

from ..errors import brief
from ..records import RoundResult

__all__ = [
    "MAX_AWARD",
    "MAX_START",
    "STATE_FIELDS",
    "FinishedRound",
    "GameRecord",
    "GameRules",
    "Settlement",
    "bad",
    "ints",
    "lightest_winner",
    "others",
    "target_winners",
]

#: The largest |score| a game may start from (``Game.from_round`` takes any up to it).
MAX_START = 1_000_000
#: A round's award or hand value: the set has 168 pips (a lone 0-0: 25).
MAX_AWARD = 200
#: The fields of a Game message a rule set may keep its carried state in
#: (:attr:`GameRules.state_field`).  ``"kozel"`` is the name schema version 1 gives the
#: Kozel accounts; every game writes it (nil when unused), as version 1 always has, so
#: that saved games and new ones read the same both ways.  ``"state"`` is for any other
#: rule set, written only when the rule set has a state.
STATE_FIELDS = ("kozel", "state")


def bad(what: str) -> ValueError:
    """The error a loader check raises: ``ValueError("Game msgpack: <what>")``."""
    return ValueError(f"Game msgpack: {what}")


def ints(value: Any, key: str, length: int | None, low: int, high: int) -> tuple[int, ...]:
    """``value`` as a tuple of ints (of ``length`` entries, each from ``low`` to ``high``),
    or :func:`bad` naming ``key``: for decoding untrusted state."""
    if not isinstance(value, list) or any(
        isinstance(v, bool) or not isinstance(v, int) for v in value
    ):
        raise bad(f"field {key!r} must be a list of ints; got {brief(value)}")
    if length is not None and len(value) != length:
        raise bad(f"field {key!r} must have {length} entries; got {len(value)}")
    if any(not low <= v <= high for v in value):
        raise bad(f"field {key!r} must hold ints from {low} to {high}; got {brief(value)}")
    return tuple(value)


def target_winners(scores: Sequence[int], target: int, exact: bool = False) -> tuple[int, ...]:
    """The sides that win on ``scores``: the highest of those at or above ``target`` (at it
    exactly with ``exact``); several on a tie; ``()`` while nobody has reached it."""
    reached = [i for i, s in enumerate(scores) if (s == target if exact else s >= target)]
    if not reached:
        return ()
    best = max(scores[i] for i in reached)
    return tuple(i for i in reached if scores[i] == best)


def others(sides: Sequence[int], n: int) -> tuple[int, ...]:
    """The sides below ``n`` that are not in ``sides`` (the losers of ``sides``' win)."""
    return tuple(i for i in range(n) if i not in sides)


def lightest_winner(
    result: RoundResult, sides: Sequence[Sequence[int]], seat_values: Sequence[int]
) -> int | None:
    """The lightest player of the winning side(s), ties to the lower seat; ``None``
    without a winner."""
    seats = sorted(seat for side in result.winners for seat in sides[side])
    if not seats:
        return None
    return min(seats, key=lambda seat: (seat_values[seat], seat))


class FinishedRound(Protocol):
    """What a rule set may read of a finished round (a :class:`~bones.Round`)."""

    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def hand_sizes(self) -> tuple[int, ...]: ...
    @property
    def leader(self) -> int: ...
    @property
    def sides(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def events(self) -> tuple[Any, ...]: ...
    def hand_pips(self, seat: int) -> int: ...
    def side_of(self, seat: int) -> int: ...


class Settlement(NamedTuple):
    """What recording one round does: the new ``scores`` and carried ``state``, and
    ``winners`` (``None`` while the game goes on) and ``losers`` once it is over."""

    scores: tuple[int, ...]
    state: Any = None
    winners: tuple[int, ...] | None = None
    losers: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameRecord:
    """A game as the loader read it, for :meth:`GameRules.check`: the recorded
    ``results`` and ``history`` (scores after each), ``scores``, the carried ``state``,
    ``over``, ``winners``, ``losers``, the current ``round`` (the last one once the game
    is over), its ``index`` and ``deal_scores`` (the scores it was dealt with)."""

    results: tuple[RoundResult, ...]
    history: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    state: Any
    over: bool
    winners: tuple[int, ...]
    losers: tuple[int, ...]
    round: FinishedRound
    index: int
    deal_scores: tuple[int, ...]


class GameRules:
    """The game-level rules of a variant; subclass it to define a whole game.

    A :class:`~bones.Game` makes one instance from the resolved options
    (``Variant.resolve``: every option plus ``players``), kept as :attr:`options`, and
    asks it:

    * :meth:`initial_state` -- the state carried between rounds at the start (immutable
      data; ``None`` when the rules carry nothing);
    * :meth:`deal_options` -- extra options for dealing round ``index``;
    * :meth:`settle` (required) -- what a finished round does to the scores and the state,
      and whether the game is over and who won and lost;
    * :meth:`seat_value` and :meth:`next_leader` -- who leads the next round;
    * :meth:`encode_state` / :meth:`decode_state` -- the state in the game's msgpack
      (field :attr:`state_field`), decoded with strict checks;
    * :meth:`leader_options` and :meth:`check` -- what the loader accepts.

    Every method must be a pure function of its arguments and :attr:`options`: the game
    calls them again to check a loaded game.  The defaults carry no state and let the
    winner lead (the out-player; after a block the lightest player of the winning side;
    without a winner the player who placed the last tile).
    """

    #: The Game message field that holds the encoded state (one of :data:`STATE_FIELDS`).
    state_field: ClassVar[str] = "state"

    #: The largest award or hand value of one round (what the loader accepts); a rule set
    #: on a larger set than the double-six one says so.
    max_award: ClassVar[int] = MAX_AWARD

    #: Which way the game scores go, for :meth:`standings`: 1 a higher total finishes
    #: ahead (points), -1 a lower one (penalties), 0 the scores say nothing of the order.
    score_order: int = 0
    #: What the game scores count, for a match's margins: ``"points"``, or ``"pips"``
    #: where the scores are penalties (the train games).
    score_unit: ClassVar[str] = "points"

    def __init__(self, options: Mapping[str, Any]) -> None:
        self._options = dict(options)  # a plain dict: a Game and its rules pickle and copy

    @property
    def options(self) -> Mapping[str, Any]:
        """The resolved options the rules were made from (read-only)."""
        return MappingProxyType(self._options)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    # -- carried state ------------------------------------------------------------------

    def initial_state(self, scores: tuple[int, ...]) -> Any:
        """The state before the first round, the game starting from ``scores``."""
        return None

    def encode_state(self, state: Any) -> Any:
        """``state`` as msgpack-ready data (``None``: nothing is written)."""
        return None

    def decode_state(self, raw: Any, *, scores: tuple[int, ...], rounds: int) -> Any:
        """The state :meth:`encode_state` wrote (``raw``, untrusted: ``None`` when the
        field is missing) for a game at ``scores`` after ``rounds`` recorded rounds;
        :func:`bad` naming what is wrong."""
        if raw is not None:
            raise bad(f"field {self.state_field!r} must be nil for these rules")
        return None

    # -- rounds -------------------------------------------------------------------------

    def deal_options(self, index: int) -> Mapping[str, Any]:
        """Options added to the game's own when round ``index`` (0-based) is dealt."""
        return {}

    def settle(
        self,
        rnd: FinishedRound,
        result: RoundResult,
        scores: tuple[int, ...],
        state: Any,
        *,
        index: int,
    ) -> Settlement:
        """Record round ``index`` (``rnd``, finished with ``result``) on the game
        ``scores`` and carried ``state`` before it."""
        raise NotImplementedError(f"{type(self).__name__} must define settle()")

    def seat_value(self, rnd: FinishedRound, seat: int) -> int:
        """What ``seat``'s hand counts for :meth:`next_leader`: its pips."""
        return rnd.hand_pips(seat)

    def next_leader(
        self,
        result: RoundResult,
        *,
        sides: Sequence[Sequence[int]],
        seat_values: Sequence[int],
        prev_leader: int,
        lot: int,
    ) -> tuple[int | None, Mapping[str, Any]]:
        """Who leads the round after ``result``: ``(leader, extra deal options)``.

        ``leader=None`` asks the round for the variant's round-1 rule.  ``seat_values``:
        :meth:`seat_value` of each seat; ``prev_leader``: who led the round; ``lot``: a
        seat drawn by lot for the next round from the game's seed (use it only where the
        rules say random)."""
        if result.reason == "out":
            return result.last_seat, {}
        winner = lightest_winner(result, sides, seat_values)
        return (result.last_seat if winner is None else winner), {}

    def standings(
        self, scores: Sequence[int], winners: Sequence[int], losers: Sequence[int]
    ) -> tuple[tuple[int, int], ...]:
        """Per side, where it finished a game over with ``scores``, ``winners`` and
        ``losers``: a key, the higher finishing ahead and equal keys equal.  The winners
        come first and the losers last whatever the scores (a rule such as Kozel's goats
        decides that); within each of the three, the scores in :attr:`score_order`."""
        won, lost = set(winners), set(losers)
        return tuple(
            (2 if side in won else 0 if side in lost else 1, self.score_order * score)
            for side, score in enumerate(scores)
        )

    # -- loading ------------------------------------------------------------------------

    def leader_options(self, index: int) -> tuple[Mapping[str, Any], ...]:
        """Every set of extra options :meth:`next_leader` may have given round ``index``
        (the loader accepts a round dealt with any of them)."""
        return ({},)

    def check(self, record: GameRecord) -> None:
        """Raise :func:`bad` for a loaded game no play under these rules produces (the
        game has already checked what holds for every game: the history's length, the
        scores against the last entry, the current round against the seed).  The
        default checks nothing more."""
