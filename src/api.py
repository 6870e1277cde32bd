"""The one public face of every game family: ``bones.Round``, ``bones.Observation`` and
``bones.Move``.

Each family has its own compiled classes (the line games' ``bones.core.round.Round``, the
train games' ``bones.core.trains.TrainRound``, ...); these abstract classes are what users
see.  ``isinstance(r, bones.Round)`` is true for a round of any registered family (the
family's own class is recognised through its ``round`` part: :mod:`bones.family`), the
class methods deal and load a round of any variant by asking the variant's family, and
the properties below are the interface every family provides with the same meaning
(docs/api.md says what a field holds where it cannot apply).  A bot or an agent written
against these names plays every variant.
"""

from __future__ import annotations

import abc
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .family import Family, FamilyError
from .records import MAX_MESSAGE_BYTES
from .registry import families, family, family_of, on_reset, part_of
from .variant import Variant as VariantType

if TYPE_CHECKING:
    from .records import Event, RoundResult
    from .variant import Variant

__all__ = ["Move", "Observation", "Round", "family_of_bytes", "family_of_type"]


def _names_part(cls: type, part: str, only: str | None = None) -> bool:
    """Whether ``cls`` (or a class it derives from) is some family's ``part`` (``only``:
    that family's).  A family's part is compared by identity once its module is
    imported; before, no object of it can exist yet."""
    for name in families() if only is None else (only,):
        target = family(name).parts.get(part)
        if target is None:
            continue
        module, _, attr = target.partition(":")
        loaded = sys.modules.get(module)
        if loaded is not None and getattr(loaded, attr, None) in cls.__mro__:
            return True
    return False


def family_of_type(cls: type, part: str = "observation") -> Family:
    """The family whose ``part`` class ``cls`` is (or derives from): what a bot asks of an
    observation whose variant its process may not have registered (a served bot).
    FamilyError when no family's is."""
    found = _OF_TYPE.get((cls, part))
    if found is None:
        for name in families():
            if _names_part(cls, part, name):
                found = _OF_TYPE[(cls, part)] = family(name)
                break
        else:
            raise FamilyError(f"{cls.__name__} is no registered game family's {part}")
    return found


def family_of_bytes(data: object, part: str) -> str:
    """The name of the family whose ``is_round_bytes`` (``part="round"``) or
    ``is_observation_bytes`` (``part="observation"``) claims ``data``; ValueError for
    anything but bytes of at most :data:`bones.records.MAX_MESSAGE_BYTES`, or naming the
    registered families when none claims them."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"{part} msgpack: takes bytes, not {type(data).__name__}")
    if len(data) > MAX_MESSAGE_BYTES:
        raise ValueError(f"{part} msgpack: {len(data)} bytes is more than {MAX_MESSAGE_BYTES}")
    check = f"is_{part}_bytes"
    for name in families():
        fam = family(name)
        if fam.has(check) and fam.part(check)(data):
            return name
    raise ValueError(
        f"not a bones {part}: the bytes are the {part} of no registered game family "
        f"({', '.join(families())}; docs/serialization.md)"
    )


#: The caches of the faces' dispatch: a variant's ``deal``, the class that loads bytes
#: starting with a given head (a registry reset forgets them: bones.registry.on_reset).
_DEALS: dict[Any, Any] = {}
_LOADERS: dict[tuple[str, bytes], Any] = {}
_OF_TYPE: dict[tuple[type, str], Family] = {}
_HEAD = 8  # bytes of a message that tell its family: the array header and first items


def _part(variant: Any, part: str, cache: dict[Any, Any]) -> Any:
    found = part_of(variant, part)
    if len(cache) < 4096:  # bounded: Variant objects are keys too
        cache[variant] = found
    return found


def _loader(data: object, part: str) -> Any:
    """The class (a family's ``round`` or ``observation`` part) that reads ``data``:
    the family whose detector claims it, remembered by the message's first bytes (every
    message of one family and schema starts alike, so a loop of loads asks once)."""
    head = bytes(data[:_HEAD]) if isinstance(data, (bytes, bytearray, memoryview)) else b""
    found = _LOADERS.get((part, head))
    if found is None:
        found = family(family_of_bytes(data, part)).part(part)
        if head and len(_LOADERS) < 256:
            _LOADERS[(part, head)] = found
    return found


def _forget() -> None:
    _DEALS.clear()
    _LOADERS.clear()
    _OF_TYPE.clear()


on_reset(_forget)


class _Face(abc.ABC):  # noqa: B024  (its subclasses declare the abstract interface)
    """What the three faces share: a family's class is a virtual subclass."""

    _part = ""
    __slots__ = ()

    @classmethod
    def __subclasshook__(cls, subclass: type) -> bool:
        if cls._part and cls.__dict__.get("_part") == cls._part:
            return _names_part(subclass, cls._part) or NotImplemented
        return NotImplemented


class Move(_Face):
    """A move of any family: small, hashable, equal by value, with a text form that
    :meth:`parse` reads back (``6-4@W`` in the line games; ``12-7@M``, ``9-3@P0`` in the
    train games)."""

    _part = "move"
    __slots__ = ()

    @property
    @abc.abstractmethod
    def tile(self) -> Any:
        """The tile placed (None for a draw or a pass, where those are moves)."""

    @property
    @abc.abstractmethod
    def tile2(self) -> Any:
        """The second tile of a move that places two (Kozel's double-double), else None."""

    @classmethod
    def parse(cls, text: str, variant: str | Variant = "straight") -> Move:
        """The move written ``text`` in ``variant``'s family (the line games by default);
        ValueError for text that is no move of that family."""
        found: Move = family_of(variant).part("move").parse(text)
        return found

    @staticmethod
    def from_action(index: int, variant: str | Variant, players: int = 2, **options: Any) -> Move:
        """The move of action ``index`` in the fixed action space of ``variant`` with
        ``players`` and ``options`` (its family's ``action_space``; docs/envs.md)."""
        from .registry import variant as lookup

        spec = lookup(variant)
        space = family_of(spec).part("action_space")(spec.name, players, **options)
        found: Move = space.move(index)
        return found


class Observation(_Face):
    """Everything one seat may know of a round of any family, and nothing more."""

    _part = "observation"
    __slots__ = ()

    variant: str  #: the variant's name
    options: dict[str, Any]  #: the round's option overrides
    players: int  #: seats at the table
    seat: int  #: the seat observing
    side: int  #: its side (its partnership, or its own seat where there is none)
    scores: tuple[int, ...]  #: per side, the game's scores before this round
    hand: tuple[Any, ...]  #: the seat's own tiles
    hand_sizes: tuple[int, ...]  #: tiles in each seat's hand
    stock_size: int  #: tiles left to draw (their order is never shown)
    to_move: int | None  #: the seat to move, None once the round is over
    legal_moves: tuple[Move, ...]  #: the seat's legal moves when it is to move, else ()
    events: tuple[Event, ...]  #: every public event of the round so far, in order
    layout: Sequence[Any]  #: the placements on the table in play order (a family's board)
    result: RoundResult | None  #: the round's result once it is over

    @property
    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal moves as indices of the variant's fixed action space, ascending."""

    @abc.abstractmethod
    def points_after(self, move: Move) -> int:
        """What ``move`` would score for this seat's side now (0 where moves score
        nothing until the round ends, as in the train games)."""

    @abc.abstractmethod
    def sample(self, rng: int | random.Random = 0) -> Round:
        """A full round drawn among the deals consistent with this observation, with the
        same moves played: ``obs.sample(seed).observation(obs.seat) == obs``."""

    @abc.abstractmethod
    def to_msgpack(self) -> bytes:
        """The observation as bytes (docs/serialization.md); :meth:`from_msgpack` reads them."""

    @classmethod
    def from_msgpack(cls, data: bytes) -> Observation:
        """The observation of any family in ``data``; ValueError for anything else."""
        found: Observation = _loader(data, "observation").from_msgpack(data)
        return found


class Round(_Face):
    """One round of any family, with make/unmake: deal it, read it, play and undo moves."""

    _part = "round"
    __slots__ = ()

    variant: str  #: the variant's name
    options: dict[str, Any]  #: the round's option overrides
    players: int  #: seats at the table
    sides: tuple[tuple[int, ...], ...]  #: the seats of each side
    scores: tuple[int, ...]  #: per side, the game's scores before this round
    hand_sizes: tuple[int, ...]  #: tiles in each seat's hand
    stock_size: int  #: tiles left to draw
    to_move: int | None  #: the seat to move, None once the round is over
    is_over: bool  #: whether the round has ended
    result: RoundResult | None  #: the round's result once it is over
    legal_moves: tuple[Move, ...]  #: the legal moves of the seat to move
    legal_actions: list[int]  #: the same as indices of the variant's action space
    events: tuple[Event, ...]  #: every public event so far, in order
    layout: Sequence[Any]  #: the placements on the table in play order (a family's board)
    rules: Any  #: the compiled rules the family's core reads
    leader: int  #: the seat that led the round
    moves: tuple[Move, ...]  #: the moves made so far, in order (what undo takes back)
    dealt_stock: tuple[Any, ...]  #: the stock as dealt, top first
    dealt_scores: tuple[int, ...]  #: per side, the scores the round was dealt with
    is_partial: bool  #: whether the deal is not a full one (from_deal(partial=True))

    @classmethod
    def deal(
        cls,
        variant: str | Variant,
        players: int = 2,
        seed: int = 0,
        leader: int | None = None,
        lead_tile: object = None,
        scores: Sequence[int] | None = None,
        **options: Any,
    ) -> Round:
        """A random deal of ``variant`` from ``seed`` (the same on every machine), made by
        its family.  ``leader=None`` applies the variant's first-round rule."""
        deal: Callable[..., Round] | None = _DEALS.get(variant)  # all a loop's deal pays
        if deal is None:
            deal = _part(variant, "deal", _DEALS)
        if isinstance(variant, VariantType):  # the cores take a registered variant's name
            variant = variant.name
        if options:  # only then: a call with **{} takes CPython's slower path
            return deal(variant, players, seed, leader, lead_tile, scores, **options)
        return deal(variant, players, seed, leader, lead_tile, scores)

    @classmethod
    def from_deal(
        cls,
        variant: str | Variant,
        hands: Sequence[Iterable[Any]],
        stock: Iterable[Any] = (),
        leader: int | None = None,
        lead_tile: object = None,
        scores: Sequence[int] | None = None,
        moves: Iterable[Any] | None = None,
        seed: int = 0,
        partial: bool = False,
        **options: Any,
    ) -> Round:
        """A round of ``variant`` from an explicit deal (``hands``, one list of tiles per
        seat; ``stock`` top first), ``moves`` replayed; ``partial=True`` allows hands and
        a stock smaller than a full deal (worked examples)."""
        from_deal = part_of(variant, "from_deal")  # OptionError: not a registered variant
        if isinstance(variant, VariantType):
            variant = variant.name
        found: Round = from_deal(
            variant, hands, stock, leader, lead_tile, scores, moves, seed, partial, **options
        )
        return found

    @classmethod
    def from_msgpack(cls, data: bytes) -> Round:
        """The round of any family in ``data`` (its ``to_msgpack`` bytes); ValueError for
        anything else."""
        found: Round = _loader(data, "round").from_msgpack(data)
        return found

    @abc.abstractmethod
    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now."""

    @abc.abstractmethod
    def hand(self, seat: int) -> tuple[Any, ...]:
        """The tiles ``seat`` holds."""

    @abc.abstractmethod
    def dealt_hand(self, seat: int) -> tuple[Any, ...]:
        """The tiles dealt to ``seat``."""

    @abc.abstractmethod
    def hand_pips(self, seat: int) -> int:
        """The pips in ``seat``'s hand."""

    @abc.abstractmethod
    def side_of(self, seat: int) -> int:
        """The side ``seat`` plays for."""

    @abc.abstractmethod
    def copy(self) -> Round:
        """An independent copy (moves and undo history included)."""

    @abc.abstractmethod
    def play(self, move: Move | str | int) -> None:
        """Make a legal move (a move, its text or an action index of the variant's action
        space); IllegalMove, and no change, otherwise."""

    @abc.abstractmethod
    def undo(self) -> None:
        """Take the last move back, restoring the exact state before it."""

    @abc.abstractmethod
    def returns(self) -> tuple[float, ...]:
        """Per seat, its side's gain this round less the other sides' mean (zero-sum)."""

    @abc.abstractmethod
    def action_mask(self, out: Any = None) -> Any:
        """The legal actions as a mask of the action space's size (1: legal)."""

    @abc.abstractmethod
    def observation_tensor(self, seat: int, out: Any = None) -> Any:
        """What ``seat`` may know as float32 values (the family's TensorSpec)."""

    @abc.abstractmethod
    def moves_text(self) -> str:
        """The moves made so far as their texts, space-separated (the match journal)."""

    @abc.abstractmethod
    def to_msgpack(self) -> bytes:
        """The round as bytes; :meth:`from_msgpack` reads them back."""
