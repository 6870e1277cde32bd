from typing import SupportsIndex

from .tiles import TileFace

class SetTile(TileFace):
    """One of the 91 tiles of the double-12 set (a double-N set is the subset with halves
    <= N), written with the higher half first (``12-5``)."""

    @staticmethod
    def parse(text: SetTile | str) -> SetTile: ...
    @staticmethod
    def at(index: SupportsIndex) -> SetTile: ...
    def __lt__(self, other: TileFace) -> bool: ...

SET_TILES: tuple[SetTile, ...]

def wide_tiles_of(mask: int) -> tuple[SetTile, ...]: ...
