"""Frames of the bones-bot protocol: a 4-byte big-endian length, then that many bytes of
one msgpack map (docs/protocol.md).

Everything read from the other side is untrusted: a frame is bounded in size before any
byte of it is read (the frame cap is the bound on the buffer, msgpack's
``max_buffer_size``), its body is unpacked with msgpack's length limits (``max_str_len``,
``max_bin_len``, ``max_array_len``, ``max_map_len``, ``max_ext_len=0``), its nesting is
bounded, and it must be exactly one map with text keys.  Every failure is a
:class:`ProtocolError` (a ``ValueError``) that says what was wrong.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from typing import Any, BinaryIO

import msgpack

from ..records import depth_ok

__all__ = [
    "HEADER",
    "MAX_DEPTH",
    "MAX_FRAME",
    "FrameReader",
    "ProtocolError",
    "decode_body",
    "encode_frame",
    "field",
    "read_frame",
    "write_frame",
]

#: Bytes of the length prefix.
HEADER = 4
#: The largest frame body a reader accepts by default (every message is a few KiB at most).
MAX_FRAME = 1 << 20
#: The deepest nesting of arrays and maps in a message (the message map is depth 1).
MAX_DEPTH = 8

# msgpack's own limits for one frame body (besides the frame size, which bounds them all)
_MAX_STR = 1 << 16
_MAX_BIN = 1 << 18
_MAX_ARRAY = 4096
_MAX_MAP = 256

_LENGTH = struct.Struct(">I")
_UNPACK = msgpack.unpackb


class ProtocolError(ValueError):
    """A frame or a message that breaks the protocol: a truncated or oversized frame, bytes
    that are not msgpack, a message that is not a map, a field missing or of the wrong type.
    """


def encode_frame(obj: Any, packer: msgpack.Packer | None = None) -> bytes:
    """The frame of ``obj`` (usually a dict): length prefix and msgpack body."""
    body = packer.pack(obj) if packer is not None else msgpack.packb(obj, use_bin_type=True)
    if len(body) > 0xFFFFFFFF:
        raise ProtocolError(f"a message of {len(body)} bytes does not fit a frame (4 GiB)")
    return _LENGTH.pack(len(body)) + body


def write_frame(stream: BinaryIO | int, obj: Any) -> None:
    """Write the frame of ``obj`` to ``stream`` (a binary file object, flushed, or a file
    descriptor)."""
    data = encode_frame(obj)
    if isinstance(stream, int):
        view = memoryview(data)
        while view:
            view = view[os.write(stream, view) :]
    else:
        stream.write(data)
        stream.flush()


def decode_body(
    body: bytes | bytearray | memoryview, max_depth: int = MAX_DEPTH, strict_map_key: bool = True
) -> dict[str, Any]:
    """The message in a frame body: one msgpack map with text keys, nested at most
    ``max_depth`` deep; anything else is a :class:`ProtocolError`.  ``strict_map_key=False``
    also accepts int keys in nested maps (the runner's options: ``hand_size={3: 5}``)."""
    try:
        obj = _UNPACK(
            body,
            raw=False,
            strict_map_key=strict_map_key,
            max_str_len=_MAX_STR,
            max_bin_len=_MAX_BIN,
            max_array_len=_MAX_ARRAY,
            max_map_len=_MAX_MAP,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises several unrelated types
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise ProtocolError(f"bad msgpack in a frame of {len(body)} bytes ({detail})") from None
    if type(obj) is not dict:
        raise ProtocolError(f"a message must be a msgpack map; got {_kind(obj)}")
    if len(obj) != _map_size(body):
        raise ProtocolError(_repeated(body))
    if not strict_map_key and any(type(key) is not str for key in obj):
        raise ProtocolError("the keys of a message must be strings")
    if not depth_ok(obj, max_depth):
        raise ProtocolError(f"a message nests arrays and maps deeper than {max_depth} levels")
    return obj


def _map_size(body: bytes | bytearray | memoryview) -> int:
    """The number of entries the header of the map at the start of ``body`` says (a
    dict of fewer has a key more than once: msgpack keeps its last value)."""
    first = body[0]
    if first == 0xDE:
        return int.from_bytes(body[1:3], "big")
    if first == 0xDF:
        return int.from_bytes(body[1:5], "big")
    return first & 0x0F  # a fixmap: 0x80 to 0x8f


def _repeated(body: bytes | bytearray | memoryview) -> str:
    """The error of a message map with a repeated key (which key: read again, as pairs)."""
    pairs = _UNPACK(body, raw=False, strict_map_key=False, object_pairs_hook=list)
    seen: set[Any] = set()
    for key, _value in pairs:
        if key in seen:
            return f"a message has the key {key!r} twice (the keys of a map are distinct)"
        seen.add(key)
    return "a message has a key twice (the keys of a map are distinct)"  # pragma: no cover


_KINDS = {
    dict: "a map",
    list: "an array",
    str: "a string",
    bytes: "a bin",
    int: "an int",
    float: "a float",
    bool: "a bool",
    type(None): "nil",
}


def _kind(obj: Any) -> str:
    return _KINDS.get(type(obj), type(obj).__name__)


def _check_length(length: int, max_size: int) -> None:
    if length > max_size:
        raise ProtocolError(
            f"oversized frame: the length prefix says {length} bytes, the limit is {max_size}"
        )
    if length == 0:
        raise ProtocolError("bad length: a frame of 0 bytes (a message is a non-empty map)")


def read_frame(
    stream: BinaryIO | int, max_size: int = MAX_FRAME, strict_map_key: bool = True
) -> dict[str, Any] | None:
    """Read one frame from ``stream`` (a binary file object or a file descriptor) and
    return its message; ``None`` at a clean end of file (no byte of a new frame).

    The length is checked against ``max_size`` before the body is read (a huge prefix
    allocates nothing); a stream that ends inside a frame is a :class:`ProtocolError`.
    This read blocks: the runner side uses :class:`FrameReader` with a deadline instead.
    """
    head = _read_exactly(stream, HEADER)
    if not head:
        return None
    if len(head) < HEADER:
        raise ProtocolError(
            f"truncated frame: the stream ended after {len(head)} of 4 length bytes"
        )
    (length,) = _LENGTH.unpack(head)
    _check_length(length, max_size)
    body = _read_exactly(stream, length)
    if len(body) < length:
        raise ProtocolError(
            f"truncated frame: the stream ended after {len(body)} of {length} body bytes"
        )
    return decode_body(body, strict_map_key=strict_map_key)


def _read_exactly(stream: BinaryIO | int, n: int) -> bytes:
    """Up to ``n`` bytes: fewer only at the end of the stream."""
    parts: list[bytes] = []
    got = 0
    while got < n:
        chunk = os.read(stream, n - got) if isinstance(stream, int) else stream.read(n - got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


class FrameReader:
    """Frames out of a byte stream that arrives in pieces: :meth:`feed` the bytes read (by
    a non-blocking read, for example), then take the complete messages from
    :meth:`messages`.  The length of each frame is checked against ``max_size`` as soon
    as its 4 bytes are in, so an oversized frame is refused before its body is buffered.
    """

    __slots__ = ("_buf", "_pos", "max_depth", "max_size", "strict_map_key")

    def __init__(
        self, max_size: int = MAX_FRAME, max_depth: int = MAX_DEPTH, strict_map_key: bool = True
    ) -> None:
        self.max_size = max_size
        self.max_depth = max_depth
        self.strict_map_key = strict_map_key
        self._buf = bytearray()
        self._pos = 0

    def feed(self, data: bytes) -> None:
        """Add bytes read from the stream."""
        self._buf += data

    @property
    def pending(self) -> int:
        """Bytes buffered that do not yet make a complete frame."""
        return len(self._buf) - self._pos

    def next(self) -> dict[str, Any] | None:
        """The next complete message, or ``None`` if the buffer holds no complete frame
        (yet).  A bad frame raises :class:`ProtocolError`."""
        body = self.next_body()
        if body is None:
            return None
        return decode_body(body, self.max_depth, self.strict_map_key)

    def next_body(self) -> bytes | None:
        """The body of the next complete frame, not decoded (see :func:`decode_body`), or
        ``None``; a bad length raises :class:`ProtocolError`."""
        buf = self._buf
        pos = self._pos
        if len(buf) - pos < HEADER:
            self._compact()
            return None
        (length,) = _LENGTH.unpack_from(buf, pos)
        _check_length(length, self.max_size)
        end = pos + HEADER + length
        if len(buf) < end:
            self._compact()
            return None
        self._pos = end
        return bytes(buf[pos + HEADER : end])

    def messages(self) -> Iterator[dict[str, Any]]:
        """Every complete message buffered, in order."""
        while True:
            message = self.next()
            if message is None:
                return
            yield message

    def _compact(self) -> None:
        if self._pos:
            del self._buf[: self._pos]
            self._pos = 0


# ---------------------------------------------------------------------------------------
# Fields


def field(message: dict[str, Any], name: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``message[name]``, which must be present and of type ``kind`` (an int is never a
    bool); :class:`ProtocolError` naming ``what`` and the field otherwise."""
    if name not in message:
        raise ProtocolError(f"{what}: the field {name!r} is missing")
    value = message[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        wanted = " or ".join(_KINDS.get(k, k.__name__) for k in kinds)
        raise ProtocolError(f"{what}: the field {name!r} must be {wanted}; got {_kind(value)}")
    return value
