"""The train games as variants: what ``bones.Round.deal`` and ``Round.from_deal`` of a
variant of the ``trains`` or ``chicken_foot`` family do.

Defined in ``bones.core.train_games`` (issue 25: ``Round.deal`` hands a train variant over
to it, and the core imports only down the layers); this is its public name."""

from .core.train_games import core_arguments, deal, from_deal

__all__ = ["core_arguments", "deal", "from_deal"]
