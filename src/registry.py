"""The registry: every game family, variant and bot registered by a plugin, the built-ins
included.

Built lazily from the plugin manager on first use and cached; :func:`reset` forgets it
(tests).  Importing this module does not import the compiled core.

A bot is registered as a :class:`BotSpec`, defined here (its :meth:`BotSpec.supports`
looks variants up in the registry) and re-exported by :mod:`bones.bot`.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .errors import OptionError
from .family import Family
from .plugins.manager import (
    BUILTIN_PLUGINS,
    BonesPluginManager,
    PluginWarning,
    get_plugin_manager,
    on_register,
    reset_plugin_manager,
)
from .variant import Option, Variant, check_base

if TYPE_CHECKING:
    from .botbase import Bot

__all__ = [
    "SEED_OPTION",
    "BotSpec",
    "bot_spec",
    "bots",
    "families",
    "family",
    "family_of",
    "part_of",
    "plugins",
    "reset",
    "variant",
    "variants",
]


def _int_check(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_int_check.expects = "an int"  # type: ignore[attr-defined]

#: The option every bot accepts: the seed of its random generator (``self.rng``).
SEED_OPTION = Option(
    "seed",
    0,
    check=_int_check,
    doc="Seed of the bot's own random generator (self.rng); same seed, same choices",
)


# BotSpec: what a plugin registers for a bot (defined here, with the registry that holds
# them and the variants its supports() looks up; bones.bot re-exports it)


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")


@dataclass(frozen=True)
class BotSpec:
    """A registered bot: its ``name`` (as written in spec strings), the ``factory`` that
    makes one (``factory(seed=..., **options)``, usually the :class:`Bot` subclass
    itself), a one-line ``description``, its ``options`` (name -> :class:`bones.Option`;
    ``seed`` is implicit and reserved), the ``variants`` it plays (``None``: every
    variant), the rule families (``bases``, e.g. ``("straight", "kozel")``) it plays
    (``None``: every family; a bot compiled against one core declares that core's
    families), the ``plugin`` that registered it (filled in by the registry) and an
    optional ``check(variant, options)`` that raises :class:`OptionError` for an option
    that does not apply to a variant the bot plays (:meth:`check_options`)."""

    name: str
    factory: Callable[..., Bot] = field(compare=False)
    description: str = ""
    options: Mapping[str, Option] = field(default_factory=dict, hash=False)
    variants: tuple[str, ...] | None = None
    plugin: str = ""
    bases: tuple[str, ...] | None = None
    check: Callable[[str, Mapping[str, Any]], None] | None = field(
        default=None, compare=False, hash=False, repr=False
    )

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise TypeError(
                f"a bot name is letters, digits, '_', '-' and '.' (not first); got {self.name!r}"
            )
        if not callable(self.factory):
            raise TypeError(f"bot {self.name!r}: factory must be callable")
        options = self.options
        if not isinstance(options, Mapping):
            options = {o.name: o for o in options}  # an iterable of Options is accepted too
        for key, option in options.items():
            if not isinstance(option, Option) or option.name != key:
                raise TypeError(
                    f"bot {self.name!r}: options[{key!r}] must be an Option named {key!r}"
                )
            if key == "seed":
                raise TypeError(f"bot {self.name!r}: option 'seed' is reserved (every bot has it)")
            if option.per_players:
                raise TypeError(f"bot {self.name!r}: option {key!r} cannot be per_players")
            if not option.accepts(option.default):
                raise TypeError(f"bot {self.name!r}: the default of option {key!r} is not allowed")
        object.__setattr__(self, "options", MappingProxyType(dict(options)))
        for attr in ("variants", "bases"):
            names = getattr(self, attr)
            if names is not None:
                if isinstance(names, str):
                    raise TypeError(f"bot {self.name!r}: {attr} must be a tuple of names or None")
                object.__setattr__(self, attr, tuple(names))

    @property
    def all_options(self) -> dict[str, Option]:
        """The bot's options plus ``seed``."""
        return {**self.options, "seed": SEED_OPTION}

    def supports(self, variant: str) -> bool:
        """Whether the bot plays ``variant`` (by name): it is among ``variants`` and its
        rule family among ``bases``."""
        if self.variants is not None and variant not in self.variants:
            return False
        if self.bases is None:
            return True
        return _lookup_variant(variant).base in self.bases

    def check_options(self, variant: str, options: Mapping[str, Any]) -> None:
        """:class:`OptionError` naming the option if one of ``options`` (the bot's, as
        :meth:`resolve` returns them) does not apply to ``variant``, which the bot plays
        (:meth:`supports`); nothing without a ``check``."""
        if self.check is not None:
            self.check(variant, options)

    @property
    def plays(self) -> str:
        """What the bot plays, in words (for error messages and ``bones bots``)."""
        parts = []
        if self.variants is not None:
            parts.append("variants " + ", ".join(self.variants))
        if self.bases is not None:
            parts.append("the rule families " + ", ".join(self.bases))
        return " of ".join(parts) if parts else "all variants"

    def resolve(self, **options: Any) -> dict[str, Any]:
        """Check ``options`` (``seed`` included); return every option's value, defaults
        filled in.  :class:`OptionError` names the option and what is allowed."""
        allowed = self.all_options
        for key in options:
            if key not in allowed:
                raise OptionError(
                    f"bot {self.name!r}: unknown option {key!r}; options are " + ", ".join(allowed)
                )
        out: dict[str, Any] = {}
        for key, option in allowed.items():
            value = options.get(key, option.default)
            if not option.accepts(value):
                raise OptionError(
                    f"bot {self.name!r}: option {key!r} must be {option.allowed}; got {value!r}"
                )
            out[key] = value
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (``bones bots --json``)."""
        return {
            "name": self.name,
            "plugin": self.plugin,
            "description": self.description,
            "variants": None if self.variants is None else list(self.variants),
            "bases": None if self.bases is None else list(self.bases),
            "factory": _qualname(self.factory),
            "options": {k: o.to_dict() for k, o in self.all_options.items()},
        }


def _qualname(fn: object) -> str:
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', repr(fn))}"


@dataclass
class _Shelf:
    """What plugins registered through one hook (variants, or bots)."""

    items: dict[str, Any] = field(default_factory=dict)
    by_plugin: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)  # plugins whose hook has been called


@dataclass
class _Registry:
    families: _Shelf = field(default_factory=_Shelf)
    variants: _Shelf = field(default_factory=_Shelf)
    bots: _Shelf = field(default_factory=_Shelf)
    loaded: bool = False  # the plugin manager is complete (every entry point loaded)


_lock = threading.RLock()
_cache: _Registry | None = None
_building: _Registry | None = None


def _collect(
    pm: BonesPluginManager,
    shelf: _Shelf,
    hook: str,
    kind: type,
    noun: str,
    only: tuple[str, ...] | None = None,
) -> None:
    """Call each plugin's ``hook`` on its own, so a broken plugin is skipped whole: one
    whose hook raises, registers something that is not a ``kind``, a name already taken
    or a variant its rule family cannot run (:func:`~bones.variant.check_base`: an
    unknown or missing option, a value the family does not understand) is reported and
    none of its registrations are kept.

    The built-in plugins run first and each plugin's registrations are added as soon as
    its hook returns, so a plugin may look up a built-in (to derive from it) in its hook or
    at import time.  ``only``: collect just these plugins now.
    """
    impls = [
        i
        for i in getattr(pm.hook, hook).get_hookimpls()
        if not (i.hookwrapper or i.wrapper) and i.plugin_name not in shelf.done
        if only is None or i.plugin_name in only
    ]
    # built-ins first, then registration order (pluggy's call order is the reverse)
    impls.sort(key=lambda i: i.plugin_name not in BUILTIN_PLUGINS)
    for impl in impls:
        plugin = impl.plugin_name
        if plugin in shelf.done:
            continue
        shelf.done.add(plugin)
        found: list[Any] = []

        def register(item: Any, _found: list[Any] = found) -> None:
            if not isinstance(item, kind):
                raise TypeError(
                    f"register() takes a bones.{kind.__name__}, not {type(item).__name__}"
                )
            _found.append(item)

        try:
            impl.function(*[{"register": register}[arg] for arg in impl.argnames])
            names: set[str] = set()
            for item in found:
                if item.name in names:
                    raise OptionError(f"{noun} {item.name!r} is registered twice by {plugin!r}")
                if item.name in shelf.items:
                    raise OptionError(
                        f"{noun} {item.name!r} is registered by both "
                        f"{shelf.items[item.name].plugin!r} and {plugin!r}"
                    )
                names.add(item.name)
                if isinstance(item, Variant):
                    check_base(item)  # only options, and values, its rule family reads
                    _family_of_base(item.base, item.name)  # a family runs its base
                if isinstance(item, Family):
                    _check_bases(item, shelf)
        except Exception as exc:  # a plugin must not take bones down
            lines = str(exc).strip().splitlines()
            error = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
            shelf.errors[plugin] = error
            warnings.warn(f"bones plugin {plugin!r} skipped: {error}", PluginWarning, stacklevel=4)
            continue
        for item in found:
            shelf.items[item.name] = dataclasses.replace(item, plugin=plugin)
        shelf.by_plugin[plugin] = [item.name for item in found]


def _collect_all(
    pm: BonesPluginManager, reg: _Registry, only: tuple[str, ...] | None = None
) -> None:
    _collect(pm, reg.families, "register_families", Family, "family", only)
    _collect(pm, reg.variants, "register_variants", Variant, "variant", only)
    _collect(pm, reg.bots, "register_bots", BotSpec, "bot", only)


def _registry() -> _Registry:
    global _cache, _building
    with _lock:
        if _cache is not None:
            return _cache
        if _building is not None:
            # a plugin asks for a variant while it is imported or while its hook runs
            if not _building.loaded:
                _collect_all(get_plugin_manager(), _building, only=BUILTIN_PLUGINS)
            return _building
        _building = _Registry()
        try:
            pm = get_plugin_manager()
            _building.loaded = True
            _collect_all(pm, _building)
            _cache = _building
        finally:
            _building = None
        return _cache


def current() -> object | None:
    """The complete registry now in use, another object after :func:`reset` (for caches
    keyed on what is registered); None while plugins are still being loaded."""
    reg = _registry()
    return reg if reg is _cache else None


_ON_RESET: list[Callable[[], None]] = []


def on_reset(forget: Callable[[], None]) -> None:
    """Call ``forget()`` whenever the registry is reset: a cache of what the registry
    answered (the faces' dispatch in bones.api) must not outlive it."""
    _ON_RESET.append(forget)


def reset(*, plugins: bool = True) -> None:
    """Forget the cached registry.  With ``plugins=True`` (default) also forget the plugin
    manager, so installed plugins are loaded again; ``plugins=False`` keeps the manager
    (after ``get_plugin_manager().register(obj)`` in a test)."""
    global _cache
    with _lock:
        _cache = None
        _FAMILY_OF.clear()
        _PARTS.clear()
        for forget in _ON_RESET:
            forget()
        if plugins:
            reset_plugin_manager()
    core_rules = sys.modules.get("bones.core.rules")
    if core_rules is not None:  # compiled option sets name variants that may be gone
        core_rules.clear_cache()


def variants() -> list[str]:
    """The names of all registered variants, sorted."""
    return sorted(_registry().variants.items)


def variant(name: str | Variant) -> Variant:
    """The variant registered as ``name``; :class:`OptionError` listing the known names.

    A :class:`Variant` is returned as it is, so callers may take either.
    """
    if isinstance(name, Variant):  # already a variant: handy for callers taking either
        return name
    try:
        return _registry().variants.items[name]
    except (KeyError, TypeError):
        raise OptionError(
            f"unknown variant {name!r}; known variants: {', '.join(variants())}"
        ) from None


def families() -> list[str]:
    """The names of all registered game families, sorted."""
    return sorted(_registry().families.items)


def family(name: str) -> Family:
    """The game family registered as ``name``; :class:`OptionError` listing the known names."""
    try:
        found: Family = _registry().families.items[name]
        return found
    except (KeyError, TypeError):
        raise OptionError(
            f"unknown game family {name!r}; known families: {', '.join(families())}"
        ) from None


def _check_bases(new: Family, shelf: _Shelf) -> None:
    for other in shelf.items.values():
        shared = sorted(set(new.bases) & set(other.bases))
        if shared:
            raise OptionError(
                f"family {new.name!r} claims base {shared[0]!r}, which family "
                f"{other.name!r} ({other.plugin}) runs already"
            )


def _family_of_base(base: str, what: str) -> Family:
    for candidate in _registry().families.items.values():
        if base in candidate.bases:
            return candidate
    raise OptionError(f"{what}: no registered game family runs the rule base {base!r}")


def family_of(variant: str | Variant) -> Family:
    """The game family that plays ``variant`` (a name or a :class:`Variant`): the one
    place that knows which family a variant belongs to (docs/architecture.md).  The
    answer is remembered per variant object (a registry reset makes new ones)."""
    spec = _lookup_variant(variant)
    found = _FAMILY_OF.get(spec)
    if found is None:
        found = _FAMILY_OF[spec] = _family_of_base(spec.base, f"variant {spec.name!r}")
    return found


_FAMILY_OF: dict[Variant, Family] = {}


def part_of(variant: str | Variant, part: str) -> Any:
    """``family_of(variant).part(part)``, remembered per variant (by name or object) and
    part: what ``bones.Round.deal`` calls for every round, so its dispatch costs one
    dictionary look-up (a registry reset forgets it)."""
    key = (variant, part)
    found = _PARTS.get(key)
    if found is None:
        found = family_of(variant).part(part)
        if len(_PARTS) < 4096:  # variant objects are made anew by each reset: bounded
            _PARTS[key] = found
    return found


_PARTS: dict[tuple[str | Variant, str], Any] = {}


#: BotSpec.supports() looks a variant up by name (its parameter hides the function's name)
_lookup_variant = variant


def bots() -> list[str]:
    """The names of all registered bots, sorted."""
    return sorted(_registry().bots.items)


def bot_spec(name: str) -> BotSpec:
    """The bot registered as ``name``; :class:`OptionError` listing the known names."""
    try:
        spec: BotSpec = _registry().bots.items[name]
        return spec
    except (KeyError, TypeError):
        raise OptionError(f"unknown bot {name!r}; known bots: {', '.join(bots())}") from None


def _plugin_error(reg: _Registry, name: str) -> str | None:
    shelves = (reg.families, reg.variants, reg.bots)
    errors = [e for e in (shelf.errors.get(name) for shelf in shelves) if e]
    return "; ".join(errors) if errors else None


def plugins() -> list[dict[str, Any]]:
    """Every plugin: ``name``, ``source`` (``builtin``, ``entry point`` or ``registered``),
    ``module``, ``hooks``, ``unknown_hooks`` (implemented but not bones hooks),
    ``families``, ``variants``, ``bots``, ``dist`` and ``version`` (entry points),
    ``error`` (``None`` unless the plugin was skipped)."""
    reg = _registry()  # first: a plugin may ask for a variant or a bot while it loads
    pm = get_plugin_manager()
    out: list[dict[str, Any]] = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:  # blocked
            continue
        callers = pm.get_hookcallers(plugin) or []
        info = pm.distinfo(plugin)
        source = "builtin" if name in BUILTIN_PLUGINS else "entry point" if info else "registered"
        out.append(
            {
                "name": name,
                "source": source,
                "module": getattr(plugin, "__name__", None)
                or f"{type(plugin).__module__}.{type(plugin).__qualname__}",
                "hooks": sorted(c.name for c in callers),
                "unknown_hooks": sorted(c.name for c in callers if not c.has_spec()),
                "families": list(reg.families.by_plugin.get(name, [])),
                "variants": list(reg.variants.by_plugin.get(name, [])),
                "bots": list(reg.bots.by_plugin.get(name, [])),
                "dist": info[0] if info else None,
                "version": info[1] if info else None,
                "error": _plugin_error(reg, name),
            }
        )
    for name, failed in pm.load_errors.items():
        out.append(
            {
                "name": name,
                "source": "entry point",
                "module": failed.get("value"),
                "hooks": [],
                "unknown_hooks": [],
                "families": [],
                "variants": [],
                "bots": [],
                "dist": failed.get("dist"),
                "version": failed.get("version"),
                "error": failed["error"],
            }
        )
    return out


# a --plugin module registered later (plugins.manager.register_modules) adds variants and
# bots: the registry built before is forgotten, the plugin manager kept
on_register(lambda: reset(plugins=False))
