"""The fixed action space of a train game (Mexican Train, Chicken Foot): the counterpart of
``bones.ActionSpace``, which takes the double-six variants only (docs/envs.md).

Every move of a train round is a placement ``tile@target`` (draws and passes are
automatic), so an action is a pair: index ``tile * len(targets) + target``, where ``tile``
is the tile's place among the set's tiles in ``SetTile`` index order and ``target`` the
place of the end among ``targets``: ``P0 .. P{players-1}, M`` (the seats' trains and the
Mexican train) or, in Chicken Foot, every tile of the set (an end is named by the tile it
hangs from).  The layout depends only on the variant's set and the player count, never on
the position, so every seat and every round use the same numbers.
"""

from __future__ import annotations

from typing import Any

from .core.trains import TrainMove, TrainRound
from .core.traintensor import action_mask as train_action_mask
from .core.wideset import SET_TILES, SetTile
from .errors import OptionError
from .registry import variant as lookup
from .train_games import core_arguments
from .variant import TRAIN_BASES, Variant

__all__ = ["TrainActionSpace"]


class TrainActionSpace:
    """The actions of ``variant`` (a train variant's name or :class:`~bones.Variant`) with
    ``players`` seats and ``options`` (``set="double-9"``, ...): ``size`` indices, one per
    (tile, target); ``move(i)``/``index(move)`` convert, ``action_mask(round, out)`` writes
    a round's legal actions.  OptionError for a double-six variant (``bones.ActionSpace``
    is its space) and for players or options the variant does not allow."""

    def __init__(self, variant: str | Variant, players: int = 4, **options: Any) -> None:
        spec = variant if isinstance(variant, Variant) else lookup(variant)
        if spec.base not in TRAIN_BASES:
            raise OptionError(
                f"{spec.name}: a {spec.base} variant is played on the double-six core; "
                "its action space is bones.ActionSpace"
            )
        args = core_arguments(spec, players, options)  # OptionError naming what is wrong
        self.variant: str = spec.name
        self.players: int = int(players)  # checked by core_arguments
        self.layout: str = args["layout"]
        self.set_max: int = args["set_max"]
        #: The set's tiles, in SetTile index order: action ``i`` places ``tiles[i // T]``.
        self.tiles: tuple[SetTile, ...] = tuple(t for t in SET_TILES if t.high <= self.set_max)
        #: The ends, by name: action ``i`` places on ``targets[i % T]``.
        self.targets: tuple[str, ...] = (
            (*(f"P{s}" for s in range(self.players)), "M")
            if self.layout == "trains"
            else tuple(str(t) for t in self.tiles)
        )
        self._tile_at = {t.index: i for i, t in enumerate(self.tiles)}
        self._target_at = {name: i for i, name in enumerate(self.targets)}

    @property
    def size(self) -> int:
        """The number of actions: tiles x targets."""
        return len(self.tiles) * len(self.targets)

    def __len__(self) -> int:
        return self.size

    def move(self, index: int) -> TrainMove:
        """The move of action ``index``: TypeError for a non-int, ValueError outside
        0..size-1."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"an action is an int, not {type(index).__name__}")
        if not 0 <= index < self.size:
            raise ValueError(f"no action {index}: {self.variant} has actions 0..{self.size - 1}")
        tile, target = divmod(index, len(self.targets))
        return TrainMove.parse(f"{self.tiles[tile]}@{self.targets[target]}")

    def index(self, move: TrainMove | str) -> int:
        """The action of ``move`` (a TrainMove or its text): ValueError for a move that is
        not one of this space (a tile beyond the set, a train no seat has)."""
        m = move if isinstance(move, TrainMove) else TrainMove.parse(move)
        tile = self._tile_at.get(m.tile.index)
        target = self._target_at.get(m.target)
        if tile is None or target is None:
            raise ValueError(
                f"{m} is not a move of {self.variant} with the double-{self.set_max} set "
                f"and {self.players} players"
            )
        return tile * len(self.targets) + target

    def legal_actions(self, round: TrainRound) -> list[int]:
        """The indices of ``round``'s legal moves, ascending (empty once it is over)."""
        self._check(round)
        return sorted(self.index(m) for m in round.legal_moves)

    def action_mask(self, round: TrainRound, out: Any) -> None:
        """Write ``round``'s legal actions into ``out``, a writable buffer of ``size`` bytes
        (a numpy bool/int8/uint8 array, a ``bytearray``): 1 where legal, else 0 (written by
        the core, as VectorEnv writes its masks)."""
        self._check(round)
        train_action_mask(round, out)

    def _check(self, round: TrainRound) -> None:
        if not isinstance(round, TrainRound):
            raise TypeError(f"a train game's round is a TrainRound, not {type(round).__name__}")
        mine = (self.layout, self.set_max, self.players)
        theirs = (round.layout_name, round.set_max, round.players)
        if mine != theirs:
            raise ValueError(
                f"this space is for {self.variant} (double-{self.set_max}, {self.players} "
                f"players), not a {round.layout_name} round of double-{round.set_max} with "
                f"{round.players} players"
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrainActionSpace):
            return NotImplemented
        return (self.layout, self.set_max, self.players) == (
            other.layout,
            other.set_max,
            other.players,
        )

    def __hash__(self) -> int:
        return hash((self.layout, self.set_max, self.players))

    def __repr__(self) -> str:
        return f"<TrainActionSpace {self.variant} players={self.players} size={self.size}>"
