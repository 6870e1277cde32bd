"""The hooks a bones plugin can implement.

A plugin is any module or object with functions marked ``@bones.plugins.hookimpl`` whose
names are hooks below.  Installed packages expose plugins through the ``bones`` entry-point
group; the built-in variants and bots are registered the same way.  See ``docs/plugins.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from ..bot import BotSpec
    from ..family import Family
    from ..variant import Variant

__all__ = ["hookimpl", "hookspec"]

hookspec = pluggy.HookspecMarker("bones")
hookimpl = pluggy.HookimplMarker("bones")


@hookspec
def register_families(register: Callable[[Family], None]) -> None:
    """Register game families.

    Call ``register(family)`` once per :class:`bones.family.Family` the plugin provides: a
    name, the rule bases it runs and its parts (its round, observation and move classes,
    how to deal a round, and optionally its search kernels, action space, tensors and
    pictures) as ``"module:attribute"`` strings, imported on first use.  A name or a base
    that another family has already, or anything that is not a ``Family``, gets the plugin
    reported and skipped as a whole.  Families are collected before variants, so a plugin
    can register a family and the variants it runs in the same module
    (docs/plugins.md, "Game families")::

        @hookimpl
        def register_families(register):
            register(Family("tiny", "a toy line game", ("tiny",), {
                "round": "tiny.engine:TinyRound", ...}))
    """


@hookspec
def register_variants(register: Callable[[Variant], None]) -> None:
    """Register rule variants.

    Call ``register(variant)`` once per :class:`bones.Variant` the plugin provides.  The
    name must be unique among all installed plugins; a plugin that registers a name that
    is already taken, or anything that is not a ``Variant``, is reported and skipped as a
    whole.  The usual way to make one is to derive it from a built-in::

        @hookimpl
        def register_variants(register):
            register(bones.variant("straight").with_defaults("muggins", spinner_rule="none"))
    """


@hookspec
def register_bots(register: Callable[[BotSpec], None]) -> None:
    """Register bots.

    Call ``register(spec)`` once per :class:`bones.BotSpec` the plugin provides.  The
    name must be unique among all installed plugins; a plugin that registers a name that
    is already taken, or anything that is not a ``BotSpec``, is reported and none of its
    bots are registered.  Usually the factory is the :class:`bones.Bot` subclass::

        @hookimpl
        def register_bots(register):
            register(bones.BotSpec("lightest", Lightest, "plays the lightest tile", {}))
    """
