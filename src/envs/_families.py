"""The environments play the double-six games only, for now: a train game's variant is
refused at construction with an OptionError that says so (docs/envs.md, "Which games")."""

from __future__ import annotations

from typing import Any


def double_six_only(variant: Any, api: str) -> None:
    """Raise :class:`bones.core.rules.OtherCore` (an OptionError) naming ``variant`` and
    ``api`` if ``variant`` (a name or a :class:`bones.Variant`) is of a train family
    (``bones.variant.TRAIN_BASES``: Mexican Train, Chicken Foot and any plugin variant on
    their bases), which ``api`` does not support yet; anything else is left to ``api``'s
    own checks."""
    from ..core.rules import OtherCore
    from ..registry import variant as lookup
    from ..variant import TRAIN_BASES, Variant

    if isinstance(variant, Variant):
        spec = variant
    elif isinstance(variant, str):
        try:
            spec = lookup(variant)
        except Exception:  # noqa: BLE001  (an unknown name: the api's own check names it)
            return
    else:
        return
    if spec.base in TRAIN_BASES:
        raise OtherCore(spec, api)
