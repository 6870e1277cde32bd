"""The built-in train games, registered through the same hook a third-party plugin uses:
``mexican-train`` and ``chicken-foot``.

They run on the wide-set core (``bones.core.trains``): double-6, double-9 or double-12
sets, 2 to 8 players, one round per engine double from the set's highest down to 0-0,
and the lowest total penalty wins.  docs/rules.md states the rules and their sources.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..variant import Option, Variant
from .hookspecs import hookimpl

__all__ = ["CHICKEN_FOOT", "MEXICAN_TRAIN", "TRAIN_VARIANTS", "register_variants"]


def _standard_or_count(value: object) -> bool:
    return value == "standard" or (type(value) is int and value >= 1)


_standard_or_count.expects = '"standard" or an int >= 1'  # type: ignore[attr-defined]


def _hand_size(doc: str) -> Option:
    return Option(
        "hand_size",
        "standard",
        None,
        doc,
        "docs/rules.md, Sources and readings",
        check=_standard_or_count,
        per_players=True,
    )


def _choice(name: str, choices: tuple[Any, ...], doc: str, source: str) -> Option:
    return Option(name, choices[0], choices, doc, source)


MEXICAN_TRAIN = Variant(
    name="mexican-train",
    base="trains",
    description="Mexican Train: personal trains and a public train from an engine double; "
    "lowest total wins",
    players=(2, 3, 4, 5, 6, 7, 8),
    options={
        "set": _choice(
            "set",
            ("double-12", "double-9", "double-6"),
            "The set played with; rounds run from its highest double down to 0-0",
            "[MT-WP],[MT-APP]; [MT-TX],[MT-TGH]",
        ),
        "hand_size": _hand_size(
            "Tiles dealt to each player: 'standard' (double-12: 15 for 2-4 players, 12 for "
            "5-6, 10 for 7-8) or a number"
        ),
        "zero_double": _choice(
            "zero_double",
            (0, 50),
            "What 0-0 counts in a hand at the end of a round",
            "[MT-WH],[MT-TGH]",
        ),
        "first_turn_own_train": _choice(
            "first_turn_own_train",
            (False, True),
            "Until a player has started their own train, they may play only on it",
            "[MT-WH]; [MT-TW]",
        ),
    },
)

CHICKEN_FOOT = Variant(
    name="chicken-foot",
    base="chicken_foot",
    description="Chicken Foot: every double takes three toes before play goes on; lowest "
    "total wins",
    players=(2, 3, 4, 5, 6, 7, 8),
    options={
        "set": _choice(
            "set",
            ("double-9", "double-12", "double-6"),
            "The set played with; rounds run from its highest double down to 0-0",
            "[CF-WP],[CF-RR],[CF-CDD]",
        ),
        "hand_size": _hand_size(
            "Tiles dealt to each player: 'standard' (double-9: 9 for 2 players, 7 for 3-6, "
            "6 for 7-8) or a number"
        ),
        "zero_double": _choice(
            "zero_double",
            (50, 0),
            "What 0-0 counts in a hand at the end of a round",
            "[CF-HT1],[CF-REF],[CF-RR]",
        ),
        "engine_toes": _choice(
            "engine_toes",
            (4, 6),
            "Tiles the engine double takes before play goes anywhere else (4: one on each "
            "side, a cross; 6: three on each side, the double chicken foot)",
            "[CF-WP],[CF-REF],[CF-CDD],[CF-HT2],[CF-OP]; [CF-RR]",
        ),
    },
)

#: The built-in train variants, in registration order.
TRAIN_VARIANTS = (MEXICAN_TRAIN, CHICKEN_FOOT)


@hookimpl
def register_variants(register: Callable[[Variant], None]) -> None:
    """Register the train games."""
    for variant in TRAIN_VARIANTS:
        register(variant)
