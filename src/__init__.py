"""bones: a fast and faithful domino engine (the line games on the double-six set, and the
train games: Mexican Train and Chicken Foot).

Everything in docs/api.md is importable from here.  The names that live in the compiled
core (and the modules built on it) are imported on first use, so ``bones.variant`` and
``bones.registry`` work without the core being imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import BonesError, IllegalMove, OptionError
from .gamerules import GameRules
from .records import Event, Placement, RoundResult
from .registry import plugins, variant, variants
from .variant import Option, Variant

if TYPE_CHECKING:
    from .api import Move, Observation, Round
    from .bot import Bot, BotSpec, bots, make_bot
    from .core.actions import ActionSpace
    from .core.tensor import TensorSpec
    from .core.tiles import TILES, Tile
    from .game import Game, new_game


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bones")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _version()

# name -> module (relative to this package) that defines it; imported on first access
_LAZY = {
    "Tile": ".core.tiles",
    "TILES": ".core.tiles",
    "Move": ".api",
    "Round": ".api",
    "Observation": ".api",
    "Game": ".game",
    "new_game": ".game",
    "Bot": ".bot",
    "BotSpec": ".bot",
    "bots": ".bot",
    "make_bot": ".bot",
    "ActionSpace": ".core.actions",
    "TensorSpec": ".core.tensor",
}

__all__ = [
    "TILES",
    "ActionSpace",
    "BonesError",
    "Bot",
    "BotSpec",
    "Event",
    "Game",
    "GameRules",
    "IllegalMove",
    "Move",
    "Observation",
    "Option",
    "OptionError",
    "Placement",
    "Round",
    "RoundResult",
    "TensorSpec",
    "Tile",
    "Variant",
    "__version__",
    "bots",
    "make_bot",
    "new_game",
    "plugins",
    "variant",
    "variants",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bones' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
