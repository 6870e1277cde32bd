"""The bot API: the :class:`Bot` base class, :class:`BotSpec`, spec strings and a round driver.

A bot is registered by a plugin through the ``register_bots(register)`` hook (the built-in
``random``, ``heaviest`` and ``greedy`` come from ``bones.plugins.builtin_bots``, registered
like any third-party plugin) and created from a spec string such as ``"greedy"``,
``"random:seed=3"`` or ``"mybot:depth=2,seed=7"`` by :func:`make_bot`.  See docs/bots.md.
:class:`Bot` and :class:`BotError` are defined in :mod:`bones.botbase`, :class:`BotSpec` in
:mod:`bones.registry` (below this module, docs/architecture.md); all three are re-exported.

This module does not import the compiled core at import time, so listing the bots (and
``bones.variants()``, which loads every plugin) stays cheap.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import registry
from .botbase import Bot, BotError
from .errors import OptionError
from .registry import SEED_OPTION, BotSpec, _int_check
from .variant import Option

if TYPE_CHECKING:
    from .api import Move
    from .core.referee import play_round

__all__ = [
    "SEED_OPTION",
    "Bot",
    "BotError",
    "BotSpec",
    "bot_spec",
    "bots",
    "check_spec",
    "command_of",
    "make_bot",
    "move_weight",
    "parse_spec",
    "play_round",
]


# ---------------------------------------------------------------------------------------
# The registry and spec strings


def bots() -> list[str]:
    """The names of all registered bots, sorted."""
    return registry.bots()


def bot_spec(name: str) -> BotSpec:
    """The :class:`BotSpec` registered as ``name``; :class:`OptionError` listing the names."""
    return registry.bot_spec(name)


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)\Z")


def _value(text: str) -> Any:
    """``"3"`` -> 3, ``"0.5"`` -> 0.5, ``"true"``/``"false"`` -> bool, anything else: str."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if _NUMBER.match(text):
        value = float(text)
        if math.isfinite(value):
            return value
    return text


def _parse(spec: str) -> tuple[str, dict[str, tuple[Any, str]]]:
    """``spec`` -> ``(name, {key: (value, text as written)})``."""
    if not isinstance(spec, str):
        raise OptionError(f"a bot spec is a string like 'greedy' or 'random:seed=3'; got {spec!r}")
    name, colon, rest = spec.strip().partition(":")
    name = name.strip()
    if not name:
        raise OptionError(
            f"bot spec {spec!r} has no bot name; write NAME or NAME:KEY=VALUE,KEY=VALUE"
        )
    options: dict[str, tuple[Any, str]] = {}
    if colon:
        for item in rest.split(","):
            key, eq, text = item.partition("=")
            key, text = key.strip(), text.strip()
            if not eq or not key.isidentifier() or not text:
                raise OptionError(
                    f"bot spec {spec!r}: {item.strip()!r} is not KEY=VALUE; write "
                    "NAME or NAME:KEY=VALUE,KEY=VALUE (e.g. random:seed=3)"
                )
            if key in options:
                raise OptionError(f"bot spec {spec!r}: option {key!r} is given twice")
            options[key] = (_value(text), text)
    return name, options


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"name"`` or ``"name:key=value,key=value"`` -> ``(name, {key: value})``.

    Values are read as int, float, bool (``true``/``false``) or else str; they are not
    checked against the bot's options here (:func:`make_bot` does that).  A malformed
    spec raises :class:`OptionError` saying what the grammar is.
    """
    name, options = _parse(spec)
    return name, {k: v for k, (v, _) in options.items()}


def _coerce(option: Option | None, value: Any, text: str) -> Any:
    """Fit a parsed value to the option's type: ``3`` for a float option is ``3.0``; a
    string option keeps the text as written (``"1"`` stays ``"1"``)."""
    default = None if option is None else option.default
    if isinstance(default, float) and _int_check(value):
        return float(value)
    if isinstance(default, str) and not isinstance(value, str):
        return text
    return value


#: spec -> (the registry it was resolved in, its BotSpec, its options resolved, whether it
#: names a seed): a match makes the same bots for every game
_RESOLVED: dict[str, tuple[object, BotSpec, dict[str, Any], bool]] = {}


def _resolve_spec(spec: str, seed: int | None) -> tuple[BotSpec, dict[str, Any]]:
    reg = registry.current()
    known = _RESOLVED.get(spec)
    if known is None or reg is None or known[0] is not reg:
        name, raw = _parse(spec)
        bspec = bot_spec(name)
        allowed = bspec.all_options
        given = {k: _coerce(allowed.get(k), v, text) for k, (v, text) in raw.items()}
        known = (reg, bspec, bspec.resolve(**given), "seed" in given)
        if reg is not None:
            if len(_RESOLVED) >= 256:
                _RESOLVED.clear()
            _RESOLVED[spec] = known
    _, bspec, resolved, seeded = known
    options = dict(resolved)
    if not seeded and seed is not None:
        if not SEED_OPTION.accepts(seed):
            raise OptionError(
                f"bot {bspec.name!r}: option 'seed' must be {SEED_OPTION.allowed}; got {seed!r}"
            )
        options["seed"] = seed
    return bspec, options


#: The prefix of a spec that names an external bot: ``cmd:COMMAND LINE``.
COMMAND_PREFIX = "cmd:"


def command_of(spec: str) -> list[str] | None:
    """The command of an external bot's spec ``cmd:COMMAND LINE`` (split as a shell would,
    with :func:`shlex.split`, but never run by a shell), or ``None`` for any other spec.
    :class:`OptionError` for an empty command, unbalanced quotes, and what only a shell
    would do: an unquoted ``|``, ``&``, ``;``, ``<`` or ``>``, or a first word
    ``NAME=VALUE`` (docs/protocol.md, "cmd: command lines")."""
    if not isinstance(spec, str) or not spec.startswith(COMMAND_PREFIX):
        return None
    line = spec[len(COMMAND_PREFIX) :]
    try:
        command = shlex.split(line)
    except ValueError as exc:
        raise OptionError(f"bot spec {spec!r}: the command line cannot be split: {exc}") from None
    if not command:
        raise OptionError(
            f"bot spec {spec!r} has no command; write cmd:COMMAND LINE (e.g. 'cmd:./mybot --fast')"
        )
    operator = _unquoted_operator(line)
    if operator is not None:  # it would reach the bot as an argument: surely not meant
        raise OptionError(
            f"bot spec {spec!r}: {operator!r} is not quoted, and no shell runs the command "
            f"(it would be an argument of the bot); quote it ('{operator}'), or run a shell: "
            "cmd:sh -c '...'"
        )
    if _ASSIGNMENT.match(command[0]):
        raise OptionError(
            f"bot spec {spec!r}: no shell runs the command, so {command[0]!r} would be run "
            f"as a program; set the environment with cmd:env {shlex.join(command)}"
        )
    return command


_OPERATORS = "|&;<>"
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _unquoted_operator(line: str) -> str | None:
    """The first of ``|&;<>`` outside quotes and not escaped in ``line`` (shlex's POSIX
    quoting: a backslash escapes the next character outside single quotes), or None."""
    quote = ""
    chars = iter(line)
    for char in chars:
        if char == "\\" and quote != "'":
            next(chars, None)
        elif quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in _OPERATORS:
            return char
    return None


def _external_factory(command: list[str]) -> Callable[..., Bot]:
    def factory(seed: int = 0) -> Bot:
        from .protocol.client import ExternalBot

        return ExternalBot(command, seed=seed)

    return factory


def check_spec(spec: str, variant: str | None = None) -> BotSpec:
    """Check a spec string as :func:`make_bot` does (the grammar, the bot, its options)
    without making the bot (no code of the bot runs); its :class:`BotSpec`.  An external
    bot's spec ``cmd:COMMAND LINE`` gives a :class:`BotSpec` named ``cmd`` (its command
    is only split, not run).  With ``variant`` (one the bot plays: check
    :meth:`BotSpec.supports` first), also :meth:`BotSpec.check_options`: an option that
    does not apply to that variant's family is an :class:`OptionError`."""
    command = command_of(spec)
    if command is not None:
        return BotSpec(
            "cmd", _external_factory(command), f"external bot: {shlex.join(command)}", plugin=""
        )
    bspec, options = _resolve_spec(spec, None)
    if variant is not None:
        bspec.check_options(variant, options)
    return bspec


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A new bot from a spec string: ``"greedy"``, ``"random:seed=3"``,
    ``"mybot:depth=2,seed=7"``.

    Options are parsed (see :func:`parse_spec`) and validated against the bot's
    :class:`BotSpec`; ``seed=`` in the string wins over the ``seed`` argument, which wins
    over the default 0.  An unknown bot, an unknown option or a value that is not allowed
    raises :class:`OptionError` with a one-line message saying what is allowed.

    ``"cmd:COMMAND LINE"`` makes a :class:`bones.protocol.ExternalBot` running the
    command (split by :func:`command_of`; no shell), started and handshaken.
    """
    command = command_of(spec)
    if command is not None:
        return _external_factory(command)(seed=0 if seed is None else seed)
    bspec, options = _resolve_spec(spec, seed)
    name = bspec.name
    bot = bspec.factory(**options)
    if not callable(getattr(bot, "choose", None)):
        raise OptionError(f"bot {name!r}: its factory returned {type(bot).__name__}, not a Bot")
    return bot


# ---------------------------------------------------------------------------------------
# Helpers for bots (the round driver, play_round, is bones.core.referee's)


def move_weight(move: Move) -> int:
    """The pips a move places: a double-double counts both tiles; a draw or a pass -1 (so
    that the heaviest move is a placement whenever one is legal)."""
    tile = move.tile
    if tile is None:
        return -1
    tile2 = move.tile2
    return int(tile.pips) + (int(tile2.pips) if tile2 is not None else 0)


def __getattr__(name: str) -> Any:
    # play_round is the core's; importing it on first use keeps this module (and so
    # ``bones.variants()``, which loads the built-in bots) free of the compiled core
    if name == "play_round":
        from .core.referee import play_round

        globals()[name] = play_round
        return play_round
    raise AttributeError(f"module 'bones.bot' has no attribute {name!r}")
