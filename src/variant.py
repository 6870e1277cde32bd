"""Rules as data: a variant is a named, immutable set of options over one core rule family.

A :class:`Variant` names the core rule family that executes it (``base``), the player
counts it allows and its :class:`Option` table.  :meth:`Variant.resolve` checks a player
count and a set of overrides once, in Python, and returns a plain dict with every option
filled in; that dict is what the core compiles into the struct it reads in its hot loops.

This module imports neither the core nor the plugin machinery, so it is usable on its own.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import OptionError, brief
from .gamerules import GameRules, family_rules
from .gamerules.trains import SET_MAX  # defined below this module: the train game reads it

__all__ = [
    "BASES",
    "BASE_OPTIONS",
    "DOUBLE_SIX_BASES",
    "MAX_INT_OPTION",
    "MAX_TILES",
    "SET_MAX",
    "SET_TILES",
    "STANDARD_HANDS",
    "TRAIN_BASES",
    "Option",
    "Variant",
    "at_least",
    "check_base",
    "max_players",
    "show",
]

#: The rule families of the train games, played on the wide-set core (``bones.core.trains``)
#: with double-6, double-9 or double-12 sets, 2 to 8 players and an engine double per round.
TRAIN_BASES = ("trains", "chicken_foot")

#: The rule families of the double-six core (``bones.core.round``).
DOUBLE_SIX_BASES = ("straight", "multiplayer", "kozel", "block", "draw")

#: The core rule families a variant can run on.
BASES = DOUBLE_SIX_BASES + TRAIN_BASES

#: The base of a plugin family's variants (docs/plugins.md, "Game families"): a name; the
#: registry refuses a variant whose base no registered family runs.
_PLUGIN_BASE = re.compile(r"[a-z][a-z0-9_]*\Z")

#: Tiles in a double-six set; ``players * hand_size`` may not exceed it.
MAX_TILES = 28

#: Tiles in each of those sets: one per pair of numbers from 0 to the highest.
SET_TILES: Mapping[str, int] = MappingProxyType(
    {name: (top + 1) * (top + 2) // 2 for name, top in SET_MAX.items()}
)

#: The standard deal of the train families (``hand_size="standard"``): tiles per player,
#: by set and player count (docs/rules.md gives the sources).
STANDARD_HANDS: Mapping[str, Mapping[str, Mapping[int, int]]] = MappingProxyType(
    {
        "trains": MappingProxyType(
            {
                "double-12": MappingProxyType({2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10}),
                "double-9": MappingProxyType({2: 10, 3: 10, 4: 10, 5: 8, 6: 8, 7: 6, 8: 6}),
                "double-6": MappingProxyType({2: 7, 3: 6, 4: 5, 5: 4, 6: 4, 7: 3, 8: 3}),
            }
        ),
        "chicken_foot": MappingProxyType(
            {
                "double-12": MappingProxyType({2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10}),
                "double-9": MappingProxyType({2: 9, 3: 7, 4: 7, 5: 7, 6: 7, 7: 6, 8: 6}),
                "double-6": MappingProxyType({2: 7, 3: 6, 4: 5, 5: 4, 6: 4, 7: 3, 8: 3}),
            }
        ),
    }
)


def max_players(base: str) -> int:
    """The most players a rule family seats: 4 for the double-six bases, else 8 (the
    train games, and a plugin's family, whose own deal checks its count)."""
    return 4 if base in DOUBLE_SIX_BASES else 8


def set_size(base: str, options: Mapping[str, Any]) -> int:
    """Tiles a deal of ``base`` with resolved ``options`` can hand out: the double-six set,
    or for the train games the chosen set less the round's engine double."""
    if base in TRAIN_BASES:
        return SET_TILES[options["set"]] - 1
    if base in DOUBLE_SIX_BASES:
        return MAX_TILES
    return MAX_INT_OPTION  # a plugin family's set: its own deal checks the hands


#: The largest value a free integer option (``target``, ``open_threshold``) may take: the
#: core keeps scores and the target in 32-bit fields, and a game needs room to pass it.
MAX_INT_OPTION = 1_000_000
#: The bounded table's sides, in tile lengths (docs/geometry.md): the grid's coordinates
#: (a quarter tile each) must fit the core's signed bytes.
MIN_TABLE = 2
MAX_TABLE = 56

#: ``(layout, move, count) -> points``: replaces the built-in per-move scoring (slow path);
#: ``layout`` is the tuple of placements before ``move``, public information only.
MoveScorer = Callable[[Any, Any, int], int]


def show(value: object) -> str:
    """Render an option value the way the docs and ``bones variants`` write it.

    Strings are written bare, booleans and numbers as Python writes them, and a
    per-player-count mapping as ``{2: 7, 3: 5, 4: 5}``.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _same(a: object, b: object) -> bool:
    """Equality that keeps ``True`` apart from ``1`` (an option is a bool or an int, never both)."""
    return type(a) is type(b) and a == b


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def at_least(minimum: int) -> Callable[[object], bool]:
    """A check for a free integer option: ``Option(..., check=at_least(1))``.

    The check carries its description (``"an int >= 1"``), which the option uses as its
    ``expects`` unless one is given.
    """

    def check(value: object) -> bool:
        return _is_int(value) and value >= minimum  # type: ignore[operator]

    check.__name__ = f"int_at_least_{minimum}"
    check.expects = f"an int >= {minimum}"  # type: ignore[attr-defined]
    return check


def between(low: int, high: int) -> Callable[[object], bool]:
    """A check for a free integer option with both bounds: ``check=between(2, 56)``."""

    def check(value: object) -> bool:
        return _is_int(value) and low <= value <= high  # type: ignore[operator]

    check.__name__ = f"int_from_{low}_to_{high}"
    check.expects = f"an int from {low} to {high}"  # type: ignore[attr-defined]
    return check


def _frozen(mapping: Mapping[Any, Any] | None) -> Mapping[Any, Any]:
    """A read-only copy (nested mappings too)."""
    return MappingProxyType(
        {k: _frozen(v) if isinstance(v, Mapping) else v for k, v in (mapping or {}).items()}
    )


@dataclass(frozen=True)
class Option:
    """One named rule option of a variant.

    ``choices`` is the tuple of allowed values, the default first; ``None`` means a free
    value accepted by ``check`` (described in words by ``expects``, e.g. ``"an int >= 1"``).
    ``per_players`` marks an option (``hand_size``) whose value may also be a mapping
    ``{players: value}`` or the name of one of its ``presets``; :meth:`Variant.resolve`
    turns it into the plain value for the player count.  ``doc`` is one line from
    RULES.md and ``source`` its source tags there.
    """

    name: str
    default: Any = field(hash=False)
    choices: tuple[Any, ...] | None = None
    doc: str = ""
    source: str = ""
    check: Callable[[object], bool] | None = field(default=None, compare=False)
    expects: str | None = None
    presets: Mapping[str, Any] = field(default_factory=dict, hash=False)
    per_players: bool = False

    def __post_init__(self) -> None:
        if self.choices is None and self.check is None:
            raise TypeError(f"option {self.name!r}: give choices or a check")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))
        if self.expects is None and self.check is not None:
            object.__setattr__(self, "expects", getattr(self.check, "expects", None))
        object.__setattr__(self, "presets", _frozen(self.presets))
        if isinstance(self.default, Mapping):
            object.__setattr__(self, "default", _frozen(self.default))

    # -- descriptions -------------------------------------------------------------------

    @property
    def allowed(self) -> str:
        """The allowed values in words, as error messages and ``bones variants`` write them."""
        if self.choices is not None:
            text = ", ".join(repr(c) for c in self.choices)
            plain = f"one of {text}" if len(self.choices) > 1 else f"{text}"
        else:
            plain = self.expects or "a value accepted by " + getattr(self.check, "__name__", "?")
        if self.per_players:
            plain += ", a dict {players: value}"
            if self.presets:
                plain += " or a preset (" + ", ".join(repr(p) for p in self.presets) + ")"
        return plain

    def accepts(self, value: object) -> bool:
        """Whether ``value`` (already resolved for a player count) is allowed."""
        if self.choices is not None:
            return any(_same(value, c) for c in self.choices)
        assert self.check is not None
        try:
            return bool(self.check(value))
        except Exception:  # a check that cannot handle the type rejects it
            return False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (mapping keys become strings)."""
        return {
            "name": self.name,
            "default": _jsonable(self.default),
            "choices": None if self.choices is None else [_jsonable(c) for c in self.choices],
            "expects": self.expects,
            "presets": {k: _jsonable(v) for k, v in self.presets.items()},
            "per_players": self.per_players,
            "doc": self.doc,
            "source": self.source,
        }

    # -- resolution ---------------------------------------------------------------------

    def per_player(self, value: object, most: int = 4) -> dict[int, Any] | None:
        """For a per-player option, ``value`` (a dict or a preset name) as ``{players:
        value}``; ``None`` for a plain value; :class:`OptionError` for a dict whose keys
        are not distinct player counts (2 to ``most``, ints or digit strings)."""
        if not self.per_players:
            return None
        if isinstance(value, str) and value in self.presets:
            value = self.presets[value]
        if not isinstance(value, Mapping):
            return None
        per = _int_keys(value)
        if per is None or len(per) != len(value) or any(not 2 <= n <= most for n in per):
            raise OptionError(
                f"option {self.name!r} as a dict must map player counts (2 to {most}, as ints or "
                f"digit strings) to values; got {_shown(value)}"
            )
        return per

    def resolve(self, variant: str, value: object, players: int, most: int = 4) -> Any:
        """The plain value for ``players``; :class:`OptionError` if it is not allowed.

        A per-player dict is checked whole: every value in it must be allowed, not only
        the one for ``players`` (what is stored with a round or a game must load again)."""
        original = value
        try:
            per = self.per_player(value, most)
        except OptionError as exc:
            raise OptionError(f"{variant}: {exc}") from None
        if per is not None:
            for count, item in sorted(per.items()):
                if not self.accepts(item):
                    raise OptionError(
                        f"{variant}: option {self.name!r} must be {self.allowed}; got "
                        f"{brief(item)} for {count} players in {_shown(original)}"
                    )
            if players not in per:
                raise OptionError(
                    f"{variant}: option {self.name!r} gives no value for {players} "
                    f"players; got {_shown(original)}"
                )
            value = per[players]
        if not self.accepts(value):
            raise OptionError(
                f"{variant}: option {self.name!r} must be {self.allowed}; got {brief(original)}"
            )
        return value


def _shown(value: object) -> str:
    """:func:`show` for a small flat mapping, else :func:`brief`."""
    if (
        isinstance(value, Mapping)
        and len(value) <= 8
        and all(isinstance(v, (int, str)) and len(repr(v)) <= 40 for v in value.values())
        and all(isinstance(k, (int, str)) and len(repr(k)) <= 40 for k in value)
    ):
        return show(value)
    return brief(value)


def _int_keys(mapping: Mapping[Any, Any]) -> dict[int, Any] | None:
    """``{"2": 7}`` (as JSON gives it) -> ``{2: 7}``; ``None`` if a key is not a count.

    A key is an int (not a bool) or a string of decimal digits; anything else (a float,
    ``inf``, a list, ``"2.5"``) makes the whole mapping invalid."""
    out: dict[int, Any] = {}
    for key, value in mapping.items():
        if _is_int(key):
            count = key
        elif isinstance(key, str) and 0 < len(key) <= 4 and key.isascii() and key.isdigit():
            count = int(key)
        else:
            return None
        out[count] = value
    return out


def _jsonable(value: object) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------
# What each core rule family reads


@dataclass(frozen=True)
class Domain:
    """The values a core rule family understands for one option: ``choices`` (compared
    type-strictly) and/or the ints from ``low`` to ``high`` (``high=0``: no ints).
    ``required``: the family (or the game) reads the option unconditionally, so a variant
    on that family must declare it."""

    choices: tuple[Any, ...] | None = None
    low: int = 0
    high: int = 0
    required: bool = False

    def accepts(self, value: object) -> bool:
        if self.choices is not None and any(_same(value, c) for c in self.choices):
            return True
        if self.choices is not None and not self.high:
            return False
        return _is_int(value) and self.low <= value <= self.high  # type: ignore[operator]

    @property
    def allowed(self) -> str:
        span = f"an int from {self.low} to {self.high}"
        if self.choices is None:
            return span
        picks = "one of " + ", ".join(repr(c) for c in self.choices)
        return f"{picks} or {span}" if self.high else picks


def _pick(*choices: Any, required: bool = False) -> Domain:
    return Domain(choices=tuple(choices), required=required)


def _span(low: int, high: int, *, required: bool = False) -> Domain:
    return Domain(low=low, high=high, required=required)


_BOOL = _pick(False, True)
_HAND = _span(1, MAX_TILES, required=True)  # players * hand_size <= 28 is checked too
_TARGET = _span(1, MAX_INT_OPTION)
_RESERVE = _pick(0, 1, 2, required=True)
#: A train game's deal: "standard" (by set and players, STANDARD_HANDS) or tiles per player.
_TRAIN_HAND = Domain(choices=("standard",), low=1, high=SET_TILES["double-12"] - 1, required=True)
_SET = _pick("double-12", "double-9", "double-6", required=True)
_ZERO_DOUBLE = _pick(0, 50)

#: Per core rule family: every option it (or :class:`~bones.Game`) reads and the values it
#: understands.  A registered variant may declare only these options, must declare the
#: ``required`` ones, and every value it allows must lie in the family's domain
#: (:func:`check_base`); :meth:`Variant.resolve` checks resolved values against it too,
#: so nothing that resolves can overflow the core's fields.
BASE_OPTIONS: Mapping[str, Mapping[str, Domain]] = MappingProxyType(
    {
        "straight": MappingProxyType(
            {
                "hand_size": _HAND,
                "spinner_rule": _pick("first_double", "none", "all_doubles"),
                "spinner_sides_first": _BOOL,
                "boneyard_reserve": _pick(0, 1, 2, "all", required=True),
                "may_draw_with_playable": _BOOL,
                "first_leader": _pick("random", "highest_double", required=True),
                "next_leader": _pick("dominoer", "last_bone", "rotate"),
                "blocked_award": _pick("opponents_total", "difference"),
                "partner_pips_on_domino": _pick("ignore", "subtract"),
                "score_scale": _pick(1, 5),
                "target": _span(1, MAX_INT_OPTION, required=True),
                "exact_target": _BOOL,
                "target_check": _pick("immediate", "end_of_hand"),
                "hand_penalty": _BOOL,
                "muggins_claim": _BOOL,
                "teams_with_4": _BOOL,
                "count_rule": _pick("fives", "fives_and_threes"),
                "hand_award": _pick("pips", "one_point"),
                "partnership_out": _pick("first_partner", "both_partners"),
            }
        ),
        "multiplayer": MappingProxyType(
            {
                "tile_ranking": _pick("pip_sum", "lexicographic"),
                "opening_tile_forced": _BOOL,
                "next_leader": _pick("previous_winner", "opening_rule"),
                "stock_reserve": _RESERVE,
                "voluntary_pass": _BOOL,
                "stock_pips_to_winner": _BOOL,
                "blocked_tie": _pick("lightest_tile", "no_winner"),
                "geometry": _pick("bounded", "unbounded"),
                "table_width": _span(MIN_TABLE, MAX_TABLE),
                "table_height": _span(MIN_TABLE, MAX_TABLE),
                "end_when_closed": _BOOL,
                "target": _span(1, MAX_INT_OPTION, required=True),
                "hand_size": _HAND,
            }
        ),
        "kozel": MappingProxyType(
            {
                "hand_size": _HAND,
                "teams_with_4": _BOOL,
                "opening_order": _pick("highest_double", "one_one_first", "lowest_double_first"),
                "nondouble_ranking": _pick("pip_sum", "lexicographic"),
                "opening_tile_forced": _BOOL,
                "no_zero_double_lead": _BOOL,
                "redeal_bad_hand": _BOOL,
                "next_leader": _pick("out_player", "fish_winner", "opening_rule"),
                "double_double": _BOOL,
                "lone_zero_double": _pick(25, 0, 10),
                "scoring_style": _pick("penalty", "credit_winner"),
                "open_threshold": _span(0, MAX_INT_OPTION),
                "sub13_mode": _pick("discard", "carry"),
                "threshold_scope": _pick("first_entry", "every_entry"),
                "fish_winner": _pick("lowest_value", "blocker"),
                "eggs_pot": _pick("total", "one_side", "off"),
                "structural_fish_early": _BOOL,
                "target": _TARGET,
            }
        ),
        "block": MappingProxyType({"hand_size": _HAND, "teams_with_4": _pick(True)}),
        "trains": MappingProxyType(
            {
                "set": _SET,
                "hand_size": _TRAIN_HAND,
                "zero_double": _ZERO_DOUBLE,
                "first_turn_own_train": _BOOL,
            }
        ),
        "chicken_foot": MappingProxyType(
            {
                "set": _SET,
                "hand_size": _TRAIN_HAND,
                "zero_double": _ZERO_DOUBLE,
                "engine_toes": _pick(4, 6),
            }
        ),
        "draw": MappingProxyType(
            {
                "hand_size": _HAND,
                "stock_reserve": _RESERVE,
                "teams_with_4": _BOOL,
                "blocked_award": _pick("opponents_total", "difference"),
                "target": _span(1, MAX_INT_OPTION, required=True),
            }
        ),
    }
)


def check_base(variant: Variant) -> None:
    """Check that ``variant`` declares only options its rule family reads, every option
    the family needs, and only values the family understands; :class:`OptionError`
    naming the variant and the option otherwise.  The registry runs it on every variant a
    plugin registers (the plugin is reported and skipped when it fails)."""
    known = BASE_OPTIONS.get(variant.base)
    head = f"variant {variant.name!r} (base {variant.base!r})"
    if known is None:  # a plugin family's base: the registry checks a family runs it
        return
    for name in variant.options:
        if name not in known:
            raise OptionError(
                f"{head}: unknown option {name!r}; the {variant.base} family reads "
                + ", ".join(known)
            )
    missing = [name for name, domain in known.items() if domain.required]
    missing = [name for name in missing if name not in variant.options]
    if missing:
        raise OptionError(
            f"{head}: missing option {missing[0]!r}, which the {variant.base} family needs"
        )
    for name, option in variant.options.items():
        domain = known[name]
        values: list[Any] = list(option.choices or ())
        if option.per_players:
            values += [v for preset in option.presets.values() for v in preset.values()]
        if not option.per_players or not isinstance(option.default, (str, Mapping)):
            values.append(option.default)  # a preset name or a per-player dict: below
        for value in values:
            if not domain.accepts(value):
                raise OptionError(
                    f"{head}: option {name!r} allows {brief(value)}, but the {variant.base} "
                    f"family understands {domain.allowed}"
                )
    for players in variant.players:  # every default, resolved, against the domains too
        variant.resolve(players)


@dataclass(frozen=True)
class Variant:
    """A named rule set: a core rule family (``base``) plus option values.

    ``players``: the allowed player counts.  ``options``: name -> :class:`Option`.
    ``move_scorer``: optional ``(layout, move, count) -> int`` replacing the built-in
    per-move scoring; it is called from Python after every placement, so it is the slow
    path (the built-in variants never use it).  ``game_rules``: the
    :class:`~bones.GameRules` subclass that makes rounds a game (round scoring, the end,
    the next leader, the state carried between rounds); left out, the rule family's own
    (``bones.gamerules.FAMILY_RULES``).  ``plugin``: the name of the plugin that
    registered the variant, filled in by the registry.
    """

    name: str
    base: str
    description: str
    players: tuple[int, ...]
    options: Mapping[str, Option] = field(hash=False)
    move_scorer: MoveScorer | None = field(default=None, compare=False)
    plugin: str | None = None
    game_rules: type[GameRules] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError("a variant needs a non-empty name")
        if self.base not in BASES and not (
            isinstance(self.base, str) and _PLUGIN_BASE.match(self.base)
        ):
            raise OptionError(
                f"{self.name}: base must be one of {', '.join(map(repr, BASES))} or a "
                f"plugin family's base (lowercase letters, digits, '_'); got {self.base!r}"
            )
        players = tuple(self.players)
        most = max_players(self.base)
        if not players or any(not _is_int(n) or not 2 <= n <= most for n in players):
            raise OptionError(
                f"{self.name}: players must be counts from 2 to {most}; got {players!r}"
            )
        object.__setattr__(self, "players", players)
        options = self.options
        if not isinstance(options, Mapping):
            options = {o.name: o for o in options}  # an iterable of Options is accepted too
        for key, option in options.items():
            if not isinstance(option, Option) or option.name != key:
                raise TypeError(f"{self.name}: options[{key!r}] must be an Option named {key!r}")
        object.__setattr__(self, "options", MappingProxyType(dict(options)))
        object.__setattr__(self, "_resolved", {})  # resolve()'s answers, see _resolve_key
        if self.move_scorer is not None and not callable(self.move_scorer):
            raise TypeError(f"{self.name}: move_scorer must be callable")
        if self.game_rules is None:
            object.__setattr__(self, "game_rules", family_rules(self.base))
        elif not (isinstance(self.game_rules, type) and issubclass(self.game_rules, GameRules)):
            raise TypeError(
                f"{self.name}: game_rules must be a subclass of bones.GameRules; "
                f"got {brief(self.game_rules)}"
            )
        for n in self.players:  # every default must be valid for every allowed count
            self.resolve(n)

    def resolve(self, players: int, **overrides: Any) -> dict[str, Any]:
        """Check ``players`` and ``overrides``; return every option's value plus ``players``.

        ``hand_size`` comes back as the int for this player count.  Raises
        :class:`~bones.errors.OptionError` naming the variant, the option and the allowed
        values for an unknown option, a value outside the choices, a player count the
        variant does not allow, or a deal that needs more tiles than the set has.
        """
        if not _is_int(players) or players not in self.players:
            raise OptionError(
                f"{self.name}: players must be one of {', '.join(map(str, self.players))}; "
                f"got {players!r}"
            )
        unknown = [k for k in overrides if k not in self.options]
        if unknown:
            raise OptionError(
                f"{self.name}: unknown option {unknown[0]!r}; options are "
                + (", ".join(self.options) or "(none)")
            )
        resolved: dict[str, Any] = {}
        most = max_players(self.base)
        for name, option in self.options.items():
            value = overrides.get(name, option.default)
            resolved[name] = option.resolve(self.name, value, players, most)
        family = BASE_OPTIONS.get(self.base, {})  # a plugin family's: its deal checks
        tiles = set_size(self.base, resolved)
        standard = STANDARD_HANDS[self.base][resolved["set"]] if self.base in TRAIN_BASES else {}
        for name, value in resolved.items():
            domain = family.get(name)
            if domain is None:
                continue
            option = self.options[name]
            per = option.per_player(overrides.get(name, option.default), most) or {players: value}
            for count, item in sorted(per.items()):
                if not domain.accepts(item):
                    raise OptionError(
                        f"{self.name}: option {name!r} must be {domain.allowed} (what the "
                        f"{self.base} rule family understands); got {brief(item)}"
                        + ("" if count == players else f" for {count} players")
                    )
                if name == "hand_size" and item == "standard":
                    item = standard[count]
                if name == "hand_size" and count * item > tiles:
                    raise OptionError(
                        f"{self.name}: option 'hand_size' {item} with {count} players needs "
                        f"{count * item} tiles; the set has {tiles}"
                        + (" besides the engine double" if standard else "")
                    )
        if resolved.get("hand_size") == "standard":
            resolved["hand_size"] = standard[players]
        resolved["players"] = players
        return resolved

    def _resolve_cached(self, players: int, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`resolve`, remembered for each distinct ``(players, overrides)`` (a match
        resolves the same options for every game).  The key holds every value's type as
        well, so that ``True`` is never taken for ``1`` nor ``7.0`` for ``7``."""
        try:
            key = (
                type(players),
                players,
                tuple(sorted((k, type(v), v) for k, v in overrides.items())),
            )
            hash(key)
        except TypeError:  # an unhashable value (a per-player dict): not remembered
            return self.resolve(players, **overrides)
        cache: dict[Any, dict[str, Any]] = self._resolved  # type: ignore[attr-defined]
        hit = cache.get(key)
        if hit is None:
            hit = self.resolve(players, **overrides)
            if len(cache) < 256:
                cache[key] = hit
        return dict(hit)

    def resolve_options(self, players: object, options: Mapping[Any, Any]) -> dict[str, Any]:
        """:meth:`resolve` for overrides held in a mapping that may come from untrusted
        bytes: a key that is not a str, or that is not an option (``players`` included),
        is an :class:`OptionError` like any unknown option, never a ``TypeError``."""
        for key in options:
            if not isinstance(key, str) or key not in self.options:
                raise OptionError(
                    f"{self.name}: unknown option {brief(key)}; options are "
                    + (", ".join(self.options) or "(none)")
                )
        return self._resolve_cached(players, options)  # type: ignore[arg-type]

    def with_defaults(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        players: Iterable[int] | None = None,
        move_scorer: MoveScorer | None = None,
        game_rules: type[GameRules] | None = None,
        **defaults: Any,
    ) -> Variant:
        """A derived variant: same base and options, new name and new defaults.

        ``players`` may narrow the allowed counts; ``move_scorer`` installs the slow-path
        per-move scorer; ``game_rules`` replaces the game rules (kept otherwise).  Each
        new default is checked like an override (a per-player option is checked for every
        allowed count) and moved to the front of its choices.
        """
        unknown = [k for k in defaults if k not in self.options]
        if unknown:
            raise OptionError(
                f"{self.name}: unknown option {unknown[0]!r}; options are "
                + ", ".join(self.options)
            )
        options = dict(self.options)
        for key, value in defaults.items():
            old = options[key]
            choices = old.choices
            if choices is not None and any(_same(value, c) for c in choices):
                choices = (value,) + tuple(c for c in choices if not _same(value, c))
            options[key] = dataclasses.replace(old, default=value, choices=choices)
        return Variant(
            name=name or self.name,
            base=self.base,
            description=self.description if description is None else description,
            players=self.players if players is None else tuple(players),
            options=options,
            move_scorer=self.move_scorer if move_scorer is None else move_scorer,
            plugin=None,
            game_rules=self.game_rules if game_rules is None else game_rules,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description of the variant and its options."""
        return {
            "name": self.name,
            "base": self.base,
            "description": self.description,
            "players": list(self.players),
            "plugin": self.plugin,
            "move_scorer": None if self.move_scorer is None else _qualname(self.move_scorer),
            "game_rules": _qualname(self.game_rules),
            "options": {k: o.to_dict() for k, o in self.options.items()},
        }


def _qualname(fn: object) -> str:
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', repr(fn))}"
