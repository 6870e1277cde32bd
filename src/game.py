"""A game: rounds strung together until the variant's game rules say it is over.

The :class:`Game` deals every round from the game seed and records each finished round;
what a round does to the game -- the scores, any state carried between rounds, the end,
who leads next -- is decided by the variant's :class:`~bones.GameRules`
(``Variant.game_rules``, docs/game.md), so that a plugin can define a whole game.  A
:class:`~bones.Round` plays one round completely; the game only deals, records and
serialises itself to msgpack.  docs/game.md states the msgpack schema.

The seeds are small pure functions (:func:`round_seed`, :func:`random_seat`,
:func:`splitmix64`); the rule sets' own bookkeeping lives in :mod:`bones.gamerules`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import msgpack

from .api import Round
from .core.round import derive_seed
from .errors import BonesError, OptionError
from .gamerules import (
    MAX_START,
    STATE_FIELDS,
    GameRecord,
    GameRules,
    Settlement,
    family_rules,
    target_winners,
)
from .gamerules import bad as _bad
from .gamerules import ints as _ints_in
from .records import Reason, RoundResult, unpack_message
from .registry import variant as _lookup_variant
from .variant import brief

__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "Game",
    "new_game",
    "random_seat",
    "round_seed",
    "splitmix64",
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
# The game


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


def _in_order(sides: object, n: int) -> bool:
    """Whether ``sides`` is a tuple of distinct side indices below ``n``, in order."""
    if type(sides) is not tuple:
        return False
    last = -1
    for v in sides:
        if type(v) is not int or not last < v < n:
            return False
        last = v
    return True


class _SeatValues(Sequence[int]):
    """``seat_values`` for ``GameRules.next_leader``: each seat's ``seat_value`` of the
    finished round, asked of the rules when first read (most rules, the train games', lead
    without them; a round of a game costs no hand counted for nothing)."""

    __slots__ = ("_game", "_round", "_values")

    def __init__(self, game: Game, rnd: Round) -> None:
        self._game = game
        self._round = rnd
        self._values: tuple[int, ...] | None = None

    def _all(self) -> tuple[int, ...]:
        if self._values is None:
            game, rnd = self._game, self._round
            self._values = tuple([game._ask("seat_value", rnd, s) for s in range(game._players)])
        return self._values

    def __len__(self) -> int:
        return self._game._players

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _SeatValues):
            other = other._all()
        return isinstance(other, (list, tuple)) and list(self._all()) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self._all()))


class Game:
    """A game of a variant: ``round`` (the current :class:`~bones.Round`), ``scores`` (per
    side), ``sides``, ``is_over``, ``winners``, ``losers``, ``results`` (each recorded
    round's :class:`~bones.RoundResult`), ``history`` (the scores after each recorded
    round) and ``state`` (what the variant's game rules carry between rounds).

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
        self._state: Any = None
        rules_class = spec.game_rules or family_rules(spec.base)  # a Variant always has one
        self._game_rules: GameRules = rules_class(self._rules)

    def _start(self, first: Round, scores: Sequence[int] | None) -> None:
        self._round = first
        self._sides: tuple[tuple[int, ...], ...] = tuple(tuple(s) for s in first.sides)
        n = len(self._sides)
        if scores is None:
            scores = (0,) * n
        if len(scores) != n:
            raise ValueError(f"scores must give one number per side ({n}); got {list(scores)}")
        self._scores: tuple[int, ...] = tuple(int(s) for s in scores)
        self._state = self._ask("initial_state", self._scores)

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
        continue a game started elsewhere; the game rules make the carried state from
        ``scores`` (``GameRules.initial_state``).
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
        options.update(self._ask("deal_options", index))
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
        """The core rule family the variant runs on (``Variant.base``)."""
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
        """Per side: the game score after the recorded rounds."""
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
        """Losing side(s) once the game is over (as the game rules name them)."""
        return self._losers

    @property
    def results(self) -> tuple[RoundResult, ...]:
        return tuple(self._results)

    @property
    def history(self) -> tuple[tuple[int, ...], ...]:
        """The scores after each recorded round."""
        return tuple(self._history)

    @property
    def state(self) -> Any:
        """What the game rules carry between rounds (immutable; ``None`` when they carry
        nothing; see the variant's rules in docs/game.md)."""
        return self._state

    @property
    def game_rules(self) -> GameRules:
        """The variant's :class:`~bones.GameRules`, made from :attr:`rules`."""
        return self._game_rules

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
        # everything is worked out before anything changes: rules that raise leave the
        # game as it was
        scores, state, winners, losers = self._settled(rnd, result)
        index = self._index + 1
        following = None
        if winners is None:
            leader, extra = self._ask(
                "next_leader",
                result,
                sides=self._sides,
                seat_values=_SeatValues(self, rnd),
                prev_leader=rnd.leader,
                lot=random_seat(self._seed, index, self._players),
            )
            if leader is not None and (type(leader) is not int or not 0 <= leader < self._players):
                raise self._broken(f"next_leader gave {brief(leader)}, not a seat or None")
            if not isinstance(extra, Mapping):
                raise self._broken(f"next_leader gave options {brief(extra)}, not a mapping")
            following = self._deal(index, leader, extra, scores)
        self._state = state
        self._add(scores, result, winners, losers)
        if following is None:
            return None
        self._round = following
        self._index = index
        return following

    def _ask(self, hook: str, *args: Any, **kwargs: Any) -> Any:
        """The game rules' ``hook(*args, **kwargs)``; anything it raises but a BonesError
        becomes a :class:`~bones.BonesError` naming the variant, its rules and the hook
        (the original is its ``__cause__``): a plugin's rules that fail never pass for
        an error of the game's."""
        try:
            return getattr(self._game_rules, hook)(*args, **kwargs)
        except BonesError:
            raise
        except Exception as exc:
            text = str(exc)[:200]
            raise self._broken(f"{hook}() raised {type(exc).__name__}: {text}") from exc

    def _broken(self, what: str) -> BonesError:
        rules = type(self._game_rules).__name__
        return BonesError(f"variant {self._variant!r}: its game rules {rules} {what}")

    def _settled(self, rnd: Round, result: RoundResult) -> Settlement:
        """The rules' ``settle`` of the finished round, checked: rules that answer
        nonsense are a :class:`~bones.BonesError` naming them, never a game that cannot
        be saved and loaded again."""
        raw = self._ask("settle", rnd, result, self._scores, self._state, index=self._index)
        if not isinstance(raw, tuple) or len(raw) != 4:
            raise self._broken(f"settle returned {brief(raw)}, not a Settlement")
        scores, state, winners, losers = raw
        n = len(self._sides)
        # the same checks for every rule set, written to cost little: they run every round
        if (
            not (type(scores) is tuple or isinstance(scores, Sequence))
            or len(scores) != n
            or not all([type(v) is int for v in scores])
        ):
            raise self._broken(f"settle gave scores {brief(scores)}, not {n} ints")
        before = self._scores
        if max([abs(scores[i] - before[i]) for i in range(n)]) > _ROUND_DRIFT:
            raise self._broken(f"settle moved a score by more than {_ROUND_DRIFT} in one round")
        if winners is not None and not _in_order(winners, n):
            raise self._broken(f"settle gave winners {brief(winners)}, not sides in order")
        if not _in_order(losers, n):
            raise self._broken(f"settle gave losers {brief(losers)}, not sides in order")
        if winners is None and losers:
            raise self._broken("settle gave losers of a game that goes on")
        return Settlement(tuple(scores), state, winners, tuple(losers))

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
        doc: dict[str, Any] = {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "variant": self._variant,
            "players": self._players,
            "seed": self._seed,
            "options": self._options,
            "round_index": self._index,
            "scores": list(self._scores),
            STATE_FIELDS[0]: None,  # every game writes it (docs/game.md)
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
        state = self._ask("encode_state", self._state)
        if state is not None:
            doc[self._game_rules.state_field] = state
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
        *STATE_FIELDS,
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
_MAX_START = MAX_START  # |a score| before the first round (Game.from_round takes any)
_ROUND_DRIFT = 6_000  # the most one round can move a score (28 placements' counts + bonus)
# |any score|: within the core's limit (1e9) for every game the loader accepts and then
# plays on, so that a loaded game that plays on can always be saved and loaded again
_MAX_SCORE = _MAX_START + _ROUND_DRIFT * _MAX_ROUNDS
_MAX_BYTES = 16 << 20  # a game of _MAX_ROUNDS rounds is a few MiB
_REASONS = ("out", "blocked", "target")


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
    return _ints_in(value, key, length, low, high)


def _reach(i: int) -> int:
    """The largest |score| after recorded round ``i`` (0-based)."""
    return _MAX_START + _ROUND_DRIFT * (i + 1)


def _sides_of(value: Any, key: str, n: int) -> tuple[int, ...]:
    """A sorted set of side indices below ``n``."""
    sides = _ints(value, key, None, 0, n - 1)
    if list(sides) != sorted(set(sides)):
        raise _bad(f"field {key!r} must list distinct sides in order; got {list(sides)}")
    return sides


def _result(item: Any, i: int, n: int, players: int, most: int) -> RoundResult:
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
        _ints(points, f"results[{i}].points", n, -most, most),
        _ints(values, f"results[{i}].values", n, 0, most),
        last,
    )
    if sum(result.values) > most:
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


def _dealt(variant: str, rnd: Any, raw_round: bytes) -> tuple[dict[str, Any], tuple[int, ...], Any]:
    """What round ``rnd`` (whose msgpack, already loaded once, is ``raw_round``) was dealt
    with: the options as given, the scores, and its deal (the hands and the stock)."""
    hands = tuple(tuple(map(str, rnd.dealt_hand(seat))) for seat in range(rnd.players))
    deal = (hands, tuple(map(str, rnd.dealt_stock)))
    overrides = _saved_options(variant, dict(rnd.rules.overrides), raw_round)
    return overrides, tuple(rnd.dealt_scores), deal


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
    most = game._game_rules.max_award
    results = [_result(item, i, n, players, most) for i, item in enumerate(raw_results)]
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
    rules = game._game_rules
    try:
        for field in STATE_FIELDS:  # the rules' own field holds the state, the others nil
            raw = doc.get(field)
            if field == rules.state_field:
                game._state = rules.decode_state(raw, scores=game._scores, rounds=len(results))
            elif raw is not None:
                raise _bad(f"field {field!r} must be nil for variant {game._variant!r}")
        _check_game(game, rnd, raw_round)
    except ValueError:
        raise
    except Exception as exc:  # a plugin's rules that fail on hostile input: still bad input
        name = type(rules).__name__
        raise _bad(f"the game rules {name} cannot read this game: {brief(exc)}") from None
    return game


def _check_game(game: Game, rnd: Round, raw_round: bytes) -> None:
    """The invariants every played game satisfies; ``ValueError`` naming the first that a
    loaded one breaks, so that a loaded game never disagrees with a played one.  What
    holds for every game is checked here, then the rules check the rest
    (``GameRules.check``)."""
    rules = game._game_rules
    results, history, scores = game._results, game._history, game._scores
    index, over = game._index, game._over
    overrides, deal_scores, deal = _dealt(game._variant, rnd, raw_round)
    # the round was dealt with the game's options, the rules' for the round and what the
    # next leader rule may have added
    fixed = {**game._options, **rules.deal_options(index)}
    if not any(
        overrides == expected and all(type(overrides[k]) is type(v) for k, v in expected.items())
        for expected in ({**fixed, **extra} for extra in rules.leader_options(index))
    ):
        raise _bad(
            f"the current round was made with options {brief(overrides)}, "
            f"the game's are {brief(fixed)}"
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
            dealt = _dealt(game._variant, fresh, fresh.to_msgpack())[2]
        except Exception as exc:
            raise _bad(f"round {index} cannot be dealt again: {exc}") from None
        if dealt != deal:
            raise _bad(f"round {index} is not the one the game's seed deals")
    record = GameRecord(
        results=tuple(results),
        history=tuple(history),
        scores=scores,
        state=game._state,
        over=over,
        winners=game._winners,
        losers=game._losers,
        round=rnd,
        index=index,
        deal_scores=deal_scores,
    )
    rules.check(record)


def new_game(variant: str, players: int = 2, seed: int = 0, **options: Any) -> Game:
    """A new game of ``variant`` for ``players``, dealt from ``seed``.

    The options are checked by ``bones.variant(variant).resolve(players, **options)``
    (:class:`~bones.OptionError` for an unknown variant, option or value); the first
    round is dealt at once.
    """
    return Game(variant, players, seed, **options)
