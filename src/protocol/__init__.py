"""The bones-bot protocol: bots as child processes, in any language (docs/protocol.md).

* :mod:`bones.protocol.frames`: length-prefixed msgpack frames, read with bounds
  (:func:`read_frame`, :func:`write_frame`, :class:`FrameReader`, :class:`ProtocolError`);
* :mod:`bones.protocol.client`: :class:`ExternalBot`, a :class:`bones.Bot` that runs a
  command and speaks the protocol with it, with deadlines kept from outside the bot;
* :mod:`bones.protocol.server`: :func:`serve`, any :class:`bones.Bot` as a protocol
  process (``python -m bones.protocol.server SPEC``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import FAULTS, PROTOCOL, BotInfo, ExternalBot, ExternalBotError
from .frames import MAX_FRAME, FrameReader, ProtocolError, decode_body, read_frame, write_frame

if TYPE_CHECKING:
    from .server import decode_observation, serve

__all__ = [
    "FAULTS",
    "MAX_FRAME",
    "PROTOCOL",
    "BotInfo",
    "ExternalBot",
    "ExternalBotError",
    "FrameReader",
    "ProtocolError",
    "decode_body",
    "decode_observation",
    "read_frame",
    "serve",
    "write_frame",
]


def __getattr__(name: str) -> Any:
    # bones.protocol.server is imported on first use, so that ``python -m
    # bones.protocol.server`` does not find it already imported by this package
    if name in ("serve", "decode_observation"):
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module 'bones.protocol' has no attribute {name!r}")
