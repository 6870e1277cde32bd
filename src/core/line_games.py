"""The line games (the double-six set) as a family: which msgpack bytes hold one of its
rounds or observations, and its random playouts.  Parts the ``line`` family names
(bones.plugins.builtin_families; its ``deal`` and ``from_deal`` are ``Round.deal`` and
``Round.from_deal`` of bones.core.round); the train games' are in
:mod:`bones.core.train_games`, with the same signatures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records import msgpack_head
from ..variant import Variant
from .playout import random_playouts

__all__ = ["is_observation_bytes", "is_round_bytes", "playouts"]


def is_round_bytes(data: object) -> bool:
    """Whether ``data`` starts like ``Round.to_msgpack``'s bytes: ``[version, "round", ...]``."""
    head = msgpack_head(data)
    return head is not None and type(head[0]) is int and head[1] == "round"


def is_observation_bytes(data: object) -> bool:
    """Whether ``data`` starts like ``Observation.to_msgpack``'s bytes: ``[version,
    "observation", ...]``."""
    head = msgpack_head(data)
    return head is not None and type(head[0]) is int and head[1] == "observation"


def playouts(
    variant: Variant, players: int, rounds: int, seed: int, options: Mapping[Any, Any]
) -> dict[str, Any]:
    """``rounds`` random playouts in the core, the GIL released: ``{"rounds", "moves",
    "blocked", "seconds"}``."""
    return dict(random_playouts(variant.name, players, rounds, seed=seed, **options))
