"""An example third-party bones plugin: two variants derived from the built-in Straight."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bones
from bones.plugins import hookimpl

__version__ = "0.1.0"


def fives_and_threes(layout: Any, move: Any, count: int) -> int:
    """Fives and Threes: one point per 5 and one per 3 that divides the count (15 -> 8)."""
    if count <= 0:
        return 0
    return (count // 5 if count % 5 == 0 else 0) + (count // 3 if count % 3 == 0 else 0)


@hookimpl
def register_variants(register: Callable[[bones.Variant], None]) -> None:
    straight = bones.variant("straight")
    register(
        straight.with_defaults(
            "muggins",
            description="Muggins: All Fives without a spinner, to 200",
            spinner_rule="none",
            target=200,
        )
    )
    register(
        straight.with_defaults(
            "fives-and-threes-py",
            description="Fives and Threes' count by a Python move_scorer (the slow path)",
            players=(2, 3, 4),
            move_scorer=fives_and_threes,
            hand_size="pagat",
            target=61,
        )
    )
