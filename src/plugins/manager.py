"""The plugin manager: built-in plugins first, then installed third-party ones.

The built-in plugin modules are registered exactly as a third-party plugin would be; then
every entry point of the ``bones`` group is loaded.  A third-party plugin that fails to
import or to register is reported (a :class:`PluginWarning`, and ``bones plugins``) and
skipped; it never takes the engine down.  ``BONES_DISABLE_PLUGIN_AUTOLOAD`` set to a
non-empty value (as pytest's ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``) loads no entry point:
the built-in plugins and ``--plugin`` modules only (bones' test suite sets it).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pluggy

from . import hookspecs

__all__ = [
    "AUTOLOAD_ENV",
    "BUILTIN_PLUGINS",
    "ENTRY_POINT_GROUP",
    "BonesPluginManager",
    "PluginWarning",
    "get_plugin_manager",
    "on_register",
    "register_modules",
    "reset_plugin_manager",
]

#: The entry-point group installed plugins use (``[project.entry-points.bones]``).
ENTRY_POINT_GROUP = "bones"

#: Set to a non-empty value, no plugin is loaded from the entry points.
AUTOLOAD_ENV = "BONES_DISABLE_PLUGIN_AUTOLOAD"

#: Plugin modules that ship with bones, registered before any third-party plugin.
BUILTIN_PLUGINS = (
    "bones.plugins.builtin_families",
    "bones.plugins.builtin_variants",
    "bones.plugins.train_variants",
    "bones.plugins.builtin_bots",
    "bones.plugins.search_bots",
)


class PluginWarning(UserWarning):
    """A plugin could not be loaded or registered and was skipped."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class BonesPluginManager(pluggy.PluginManager):
    """A ``pluggy.PluginManager`` for the ``bones`` project that remembers broken plugins.

    ``load_errors`` maps the entry-point name of each plugin that could not be loaded to
    ``{"error": ..., "dist": ..., "version": ..., "value": ...}``.
    """

    def __init__(self) -> None:
        super().__init__("bones")
        self.add_hookspecs(hookspecs)
        self.load_errors: dict[str, dict[str, Any]] = {}

    def report(self, name: str, exc: BaseException, **origin: Any) -> str:
        """Record and warn that plugin ``name`` was skipped; return the one-line error."""
        error = _one_line(exc)
        self.load_errors[name] = {"error": error, **origin}
        warnings.warn(f"bones plugin {name!r} skipped: {error}", PluginWarning, stacklevel=3)
        return error

    def load_entry_point_plugins(self, group: str = ENTRY_POINT_GROUP) -> int:
        """Load every installed plugin of ``group``; each failure is reported and skipped.

        Each entry point goes through pluggy's own ``load_setuptools_entrypoints`` (one name
        at a time, so that one broken plugin cannot stop the others).  Returns the number
        of plugins loaded.
        """
        loaded = 0
        seen: dict[str, str] = {}
        for dist in list(importlib.metadata.distributions()):
            # a distribution's name is in its METADATA, whose parsing costs far more than
            # reading its entry points: read only for those that have a bones plugin
            dist_name = None
            for ep in dist.entry_points:
                if ep.group != group:
                    continue
                if dist_name is None:
                    dist_name = dist.metadata["Name"]
                origin = {"dist": dist_name, "version": dist.version, "value": ep.value}
                if ep.name in seen:
                    if seen[ep.name] != dist_name:
                        self.report(
                            f"{ep.name} ({dist_name})",
                            ValueError(
                                f"entry point name {ep.name!r} is already used by {seen[ep.name]}"
                            ),
                            **origin,
                        )
                    continue
                seen[ep.name] = dist_name
                if self.get_plugin(ep.name) is not None or self.is_blocked(ep.name):
                    continue
                try:
                    loaded += self.load_setuptools_entrypoints(group, name=ep.name)
                except Exception as exc:  # a plugin must not take bones down
                    if self.get_plugin(ep.name) is not None:
                        self.unregister(name=ep.name)
                    self.report(ep.name, exc, **origin)
        return loaded

    def distinfo(self, plugin: object) -> tuple[str, str] | None:
        """``(dist name, version)`` of a plugin loaded from an entry point, else ``None``."""
        for candidate, dist in self.list_plugin_distinfo():
            if candidate is plugin:
                return dist.project_name, dist.version
        return None


_lock = threading.RLock()
_manager: BonesPluginManager | None = None


def get_plugin_manager() -> BonesPluginManager:
    """The process-wide plugin manager (built once; see :func:`reset_plugin_manager`).

    The built-in plugins are registered first; the manager is then already returned to a
    re-entrant call (a third-party plugin that asks for ``bones.variant("straight")``
    while it is being imported) before the entry points are loaded, unless
    :data:`AUTOLOAD_ENV` is set.
    """
    global _manager
    with _lock:
        if _manager is None:
            pm = BonesPluginManager()
            for module_name in BUILTIN_PLUGINS:
                pm.register(importlib.import_module(module_name), name=module_name)
            _manager = pm
            if not os.environ.get(AUTOLOAD_ENV):
                pm.load_entry_point_plugins()
        return _manager


def reset_plugin_manager() -> None:
    """Forget the cached manager: the next call builds a new one (plugins are reloaded)."""
    global _manager
    with _lock:
        _manager = None


#: Called after :func:`register_modules` registered a new module: bones.registry, which
#: caches what the plugins registered, subscribes its reset here (it stands above this
#: module, so this module does not import it: docs/architecture.md).
_on_register: list[Callable[[], None]] = []


def on_register(listener: Callable[[], None]) -> None:
    """Call ``listener()`` whenever :func:`register_modules` registers a new module."""
    _on_register.append(listener)


def register_modules(modules: Sequence[str]) -> None:
    """Import each module and register it as a bones plugin (once), for plugins that are
    not installed as entry points (``--plugin MODULE``); the registry is rebuilt so that
    their variants and bots can be used.  :class:`~bones.errors.OptionError` names a
    module that cannot be imported."""
    if not modules:
        return
    from ..errors import OptionError

    pm = get_plugin_manager()
    changed = False
    for name in modules:
        try:
            module = _import_plugin(name)
        except Exception as exc:  # any import failure is bad input
            raise OptionError(
                f"--plugin {name}: cannot import it ({type(exc).__name__}: {exc}){_hint(name, exc)}"
            ) from None
        if not pm.is_registered(module) and pm.get_plugin(name) is None:
            pm.register(module, name=name)
            changed = True
    if changed:
        for listener in _on_register:
            listener()


def _in_cwd(name: str) -> bool:
    """Whether the current folder holds the top-level module of ``name``."""
    top = name.partition(".")[0]
    return os.path.isfile(f"{top}.py") or os.path.isfile(os.path.join(top, "__init__.py"))


def _import_plugin(name: str) -> Any:
    """Import a ``--plugin`` module; one that is not found on ``sys.path`` is looked for
    in the current folder too, as ``python -m`` would find it (the folder goes at the end
    of ``sys.path``, so it never hides an installed module; worker processes, forked
    later, inherit it)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        top = name.partition(".")[0]
        cwd = os.getcwd()
        if exc.name != top or not _in_cwd(name) or cwd in sys.path or "" in sys.path:
            raise
        sys.path.append(cwd)
        importlib.invalidate_caches()
        return importlib.import_module(name)


def _hint(name: str, exc: BaseException) -> str:
    """What to do about a ``--plugin`` that cannot be imported, when it is clear."""
    if name.endswith(".py") or os.sep in name or "/" in name:
        module = os.path.splitext(os.path.basename(name))[0]
        return (
            f"; --plugin takes a module name, not a file: --plugin {module} (run from the "
            "folder that holds it, or put that folder on PYTHONPATH)"
        )
    if isinstance(exc, ModuleNotFoundError) and exc.name == name.partition(".")[0]:
        return (
            f"; --plugin takes a module importable from sys.path or the current folder "
            f"({os.getcwd()}): run from the folder that holds {exc.name}.py, put that folder on "
            "PYTHONPATH, or install the plugin"
        )
    return ""
