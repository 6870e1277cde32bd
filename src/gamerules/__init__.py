"""Game-level rules: what a variant says about a game made of rounds (docs/game.md).

:class:`GameRules` is the API (module :mod:`bones.gamerules.base`); the built-in rule
families' rule sets are :class:`StraightGameRules` (All Fives), :class:`KozelGameRules`
and the target games' :class:`MultiplayerGameRules`, :class:`DrawGameRules` and
:class:`BlockGameRules`.  A :class:`~bones.Variant` without ``game_rules`` gets its
family's (:func:`family_rules`).  Imports neither the core nor the plugin machinery.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .base import (
    MAX_AWARD,
    MAX_START,
    STATE_FIELDS,
    FinishedRound,
    GameRecord,
    GameRules,
    Settlement,
    bad,
    ints,
    lightest_winner,
    others,
    target_winners,
)
from .kozel import KozelGameRules
from .straight import StraightGameRules
from .target import BlockGameRules, DrawGameRules, MultiplayerGameRules, TargetGameRules
from .trains import TrainGameRules

__all__ = [
    "FAMILY_RULES",
    "MAX_AWARD",
    "MAX_START",
    "STATE_FIELDS",
    "BlockGameRules",
    "DrawGameRules",
    "FinishedRound",
    "GameRecord",
    "GameRules",
    "KozelGameRules",
    "MultiplayerGameRules",
    "Settlement",
    "StraightGameRules",
    "TargetGameRules",
    "TrainGameRules",
    "bad",
    "family_rules",
    "ints",
    "lightest_winner",
    "others",
    "target_winners",
]

#: The game rules of each core rule family (``Variant.base``).
FAMILY_RULES: Mapping[str, type[GameRules]] = MappingProxyType(
    {
        "straight": StraightGameRules,
        "multiplayer": MultiplayerGameRules,
        "kozel": KozelGameRules,
        "block": BlockGameRules,
        "draw": DrawGameRules,
        "trains": TrainGameRules,
        "chicken_foot": TrainGameRules,
    }
)


def family_rules(base: str) -> type[GameRules]:
    """The game rules a variant on rule family ``base`` gets unless it names its own; a
    family without an entry in :data:`FAMILY_RULES` gets the plain race to the target
    (:class:`TargetGameRules`)."""
    return FAMILY_RULES.get(base, TargetGameRules)
