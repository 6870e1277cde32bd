"""Which core an environment's variant runs on: the double-six core (``bones.core.round``)
or the train games' (``bones.core.trains``: Mexican Train, Chicken Foot and any plugin
variant on their bases).  VectorEnv and PettingZoo play both; OpenSpiel refuses a train
variant at construction with an OptionError that says why (docs/envs.md, "Which games")."""

from __future__ import annotations

from typing import Any

from ..variant import Variant


def train_variant(variant: Any) -> Variant | None:
    """The :class:`bones.Variant` of ``variant`` (a name or a Variant) if it is of a train
    family (``bones.variant.TRAIN_BASES``), else None; an unknown name is left to the
    environment's own check, which names it."""
    from ..registry import variant as lookup
    from ..variant import TRAIN_BASES

    if isinstance(variant, Variant):
        spec = variant
    elif isinstance(variant, str):
        try:
            spec = lookup(variant)
        except Exception:  # noqa: BLE001  (an unknown name: the api's own check names it)
            return None
    else:
        return None
    return spec if spec.base in TRAIN_BASES else None


def double_six_only(variant: Any, api: str) -> None:
    """Raise :class:`bones.core.rules.OtherCore` (an OptionError) naming ``variant`` and
    ``api`` if ``variant`` is of a train family, which ``api`` does not support."""
    from ..core.rules import OtherCore

    spec = train_variant(variant)
    if spec is not None:
        raise OtherCore(spec, api)
