"""The environments play the double-six games only, for now: a train game's variant is
refused at construction with an OptionError that says so."""

from __future__ import annotations

from typing import Any


def double_six_only(variant: Any, api: str) -> None:
    """Raise :class:`bones.core.rules.OtherCore` (an OptionError) naming ``variant`` and
    ``api`` if ``variant`` is a train game (Mexican Train, Chicken Foot), which ``api``
    does not support yet; anything else is left to ``api``'s own checks."""
    from ..core.rules import OtherCore
    from ..registry import variant as lookup
    from ..variant import TRAIN_BASES

    if not isinstance(variant, str):
        return
    try:
        spec = lookup(variant)
    except Exception:  # noqa: BLE001  (an unknown name: the api's own check names it)
        return
    if spec.base in TRAIN_BASES:
        raise OtherCore(spec, api)
