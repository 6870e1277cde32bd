"""Plain records the engine hands out: round results, public events and where tiles lie."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

#: Why a round ended (:attr:`RoundResult.reason`).
Reason = Literal["out", "blocked", "target"]


class Event(NamedTuple):
    """One public event of a round.

    ``kind`` is ``"play"`` (``move`` placed by ``seat``; ``count`` is the layout count after
    it, ``points`` what it scored), ``"draw"`` (``seat`` drew ``count`` tiles, unseen by the
    others), ``"pass"``, or ``"muggins"`` (``seat`` claimed ``points`` that the previous
    player failed to claim; All Fives with ``muggins_claim``).
    """

    kind: str
    seat: int
    move: Any = None
    count: int = 0  # type: ignore[assignment]  # a field, shadowing tuple.count on purpose
    points: int = 0


class Placement(NamedTuple):
    """Where one tile lies on the table (docs/geometry.md).

    The grid unit is a quarter of a tile's length (a tile is 4 units long and 2 wide).
    ``(x, y)`` is the tile's centre, x to the right and y down, the lead's centre at
    (0, 0).  ``angle`` (0, 90, 180 or 270) is the direction from the tile's ``first`` half
    to its ``second`` half: 0 first west, second east; 90 first north, second south; 180
    first east; 270 first south.  ``first`` and ``second`` are the pips shown on those
    halves; along the line, the first half is the one touching the previous tile.
    ``move`` placed ``tile`` (a double-double gives two placements with the same move).
    """

    move: Any
    tile: Any
    x: int
    y: int
    angle: int
    first: int
    second: int


class RoundResult(NamedTuple):
    """How a round ended.

    ``reason``: ``"out"`` (a player emptied the hand), ``"blocked"`` (nobody can place and
    nobody may draw: Kozel's fish) or ``"target"`` (a side reached the game target during
    the round).  ``winners``: side indices (empty when nobody wins).  ``points``: per side,
    what the variant's round scoring awards (see docs/rules.md).  ``values``: per side, the
    hand values left.  ``last_seat``: the seat that placed the last tile.
    """

    reason: Reason
    winners: tuple[int, ...]
    points: tuple[int, ...]
    values: tuple[int, ...]
    last_seat: int


# ---------------------------------------------------------------------------------------
# Reading untrusted msgpack: the bounds every decoder applies before it looks at a field

#: The largest message any decoder reads (a whole game is a few KiB).
MAX_MESSAGE_BYTES = 1 << 20


def unpack_message(
    data: object,
    what: str,
    *,
    max_depth: int,
    max_bytes: int = MAX_MESSAGE_BYTES,
    max_array_len: int = 4096,
    max_map_len: int = 64,
    max_str_len: int = 256,
    max_bin_len: int = 65536,
    strict_map_key: bool = True,
) -> Any:
    """``msgpack.unpackb(data)`` with bounds for untrusted bytes: at most ``max_bytes``
    (:data:`MAX_MESSAGE_BYTES`), the given array, map, string and binary lengths, no
    extension types and at most ``max_depth`` nested containers.  Anything else, and any
    error of the msgpack reader, is a ``ValueError`` starting with ``what``."""
    import msgpack

    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"{what}: takes bytes, not {type(data).__name__}")
    if len(data) > max_bytes:
        raise ValueError(f"{what}: {len(data)} bytes is more than {max_bytes}")
    try:
        obj = msgpack.unpackb(
            bytes(data),
            raw=False,
            strict_map_key=strict_map_key,
            max_str_len=max_str_len,
            max_bin_len=max_bin_len,
            max_array_len=max_array_len,
            max_map_len=max_map_len,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises several unrelated types
        detail = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
        raise ValueError(f"{what}: truncated or malformed msgpack ({detail[0][:200]})") from None
    check_depth(obj, max_depth, what)
    return obj


def msgpack_head(data: object, count: int = 2) -> tuple[Any, ...] | None:
    """The first ``count`` items of the msgpack array at the start of ``data``, read
    without decoding the rest (a family's ``is_round_bytes`` looks at a header this way);
    None for anything that does not start with an array of that many short scalars."""
    import msgpack

    if not isinstance(data, (bytes, bytearray, memoryview)):
        return None
    unpacker = msgpack.Unpacker(
        raw=False,
        max_buffer_size=MAX_MESSAGE_BYTES,
        max_str_len=64,
        max_bin_len=0,
        max_array_len=0,
        max_map_len=0,
        max_ext_len=0,
    )
    try:
        unpacker.feed(bytes(data[:256]))
        if unpacker.read_array_header() < count:
            return None
        return tuple(unpacker.unpack() for _ in range(count))
    except Exception:  # not msgpack, or not an array of scalars: no family's header
        return None


def depth_ok(obj: object, max_depth: int) -> bool:
    """Whether ``obj`` nests lists and maps (keys included) at most ``max_depth`` deep (the
    top container is depth 1); iterative, so a deep value cannot exhaust the stack."""
    if type(obj) is dict and not any(type(v) is dict or type(v) is list for v in obj.values()):
        return max_depth >= 1  # the common case: a flat map (a protocol frame)
    stack: list[tuple[object, int]] = [(obj, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            depth += 1
            if depth > max_depth:
                return False
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth) for item in items)
            if isinstance(value, dict):
                stack.extend((key, depth) for key in value)
    return True


def check_depth(obj: object, max_depth: int, what: str) -> None:
    """``ValueError`` starting with ``what`` if ``obj`` fails :func:`depth_ok`."""
    if not depth_ok(obj, max_depth):
        raise ValueError(f"{what}: nested deeper than {max_depth} levels")
