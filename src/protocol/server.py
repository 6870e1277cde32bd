"""The bot's side of the bones-bot protocol: :func:`serve` runs any :class:`bones.Bot` as a
protocol process on stdin/stdout (docs/protocol.md).

``python -m bones.protocol.server SPEC`` serves the bot of a spec string (``greedy``,
``random:seed=3``): a fresh bot is made for every game, with the ``seed`` of
``game_start`` unless the spec names one, as the runner does in process.  The bot's own
prints (``sys.stdout`` and file descriptor 1) go to stderr, so they cannot corrupt the
frames.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

import msgpack

from ..api import family_of_bytes
from ..bot import Bot, check_spec, make_bot
from ..core.moves import Move
from ..core.tiles import Tile
from ..errors import OptionError
from ..family import Family
from ..observation import SCHEMA_VERSION, Observation
from ..plugins.manager import register_modules
from ..records import Event, RoundResult
from ..registry import family as lookup_family
from ..registry import family_of
from .frames import MAX_FRAME, FrameReader, ProtocolError

__all__ = ["decode_observation", "main", "private_stdout", "serve", "serve_spec"]

PROTOCOL = 1

_MOVES: dict[str, Any] = {}
_TILES: dict[str, Any] = {}
_FAMILY_MOVES: dict[str, dict[str, Any]] = {}  # family -> text -> its move
_CACHE_LIMIT = 4096


def _parsed(cache: dict[str, Any], parse: Callable[[str], Any], text: str) -> Any:
    """``parse(text)``, remembered in ``cache`` (bounded: a bot may see any text)."""
    value = cache.get(text)
    if value is None:
        value = parse(text)
        if len(cache) < _CACHE_LIMIT:
            cache[text] = value
    return value


def _move(text: str) -> Any:
    return _parsed(_MOVES, Move.parse, text)


def _tile(text: str) -> Any:
    return _parsed(_TILES, Tile.parse, text)


# The layout and the log of the last observation decoded, raw and decoded: during a round
# the next observation's start with them, and only what follows is decoded.
_LAYOUT: list[Any] = [[], ()]
_EVENTS: list[Any] = [[], ()]


def _grown(kept: list[Any], raw: list[Any], decode: Callable[[Any], Any]) -> tuple[Any, ...]:
    """``tuple(map(decode, raw))``, reusing ``kept`` (the last raw list and its decoded
    tuple) when ``raw`` starts with that list; ``kept`` becomes ``raw``'s."""
    done_raw, done = kept
    n = len(done_raw)
    if len(raw) >= n and raw[:n] == done_raw:
        if len(raw) > n:
            done += tuple([decode(item) for item in raw[n:]])
    else:
        done = tuple([decode(item) for item in raw])
    kept[0], kept[1] = raw, done
    return done


def _layout_move(text: str) -> Any:
    return _MOVES.get(text) or _move(text)


def _event(raw: list[Any]) -> Event:
    kind, seat, move, count, points = raw
    move = None if move is None else _MOVES.get(move) or _move(move)
    return tuple.__new__(Event, (kind, seat, move, count, points))


def decode_observation(data: bytes, strict: bool = False, family: Family | None = None) -> Any:
    """The :class:`bones.Observation` in ``data`` (an observation's ``to_msgpack()``
    bytes) of ``family`` (None: the family whose bytes they are).

    The bot's side trusts its runner: by default the bytes are decoded by the family's
    ``fast_decode`` where it has one, without the checks of ``from_msgpack`` (the line
    games' resolves the variant's options and rebuilds the layout: about 200 us, against
    a few us here); ``strict=True`` uses ``from_msgpack``.  Both give equal observations
    (tests/test_protocol.py checks it).  Bad bytes raise ProtocolError.
    """
    if family is None:
        try:
            family = lookup_family(family_of_bytes(data, "observation"))
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None
    if not strict and family.has("fast_decode"):
        return family.part("fast_decode")(data)
    try:
        return family.part("observation").from_msgpack(data)
    except ValueError as exc:
        raise ProtocolError(str(exc)) from None


def decode_line_observation(data: bytes) -> Observation:
    """A line game's observation decoded without the checks of
    :meth:`Observation.from_msgpack` (the ``fast_decode`` part of the line family): the
    bot's side of the protocol trusts its runner."""
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
        (version, kind, seat, side, variant, options, players, hand, sizes, stock, ends,
         layout, count, events, scores, to_move, legal, closed, opening) = obj  # fmt: skip
        if version != SCHEMA_VERSION or kind != "observation":
            raise ValueError(f"schema {version!r} {kind!r}")
        get = _MOVES.get
        return Observation(
            seat=seat,
            side=side,
            variant=variant,
            options=dict(options),
            players=players,
            hand=tuple([_TILES.get(t) or _tile(t) for t in hand]),
            hand_sizes=tuple(sizes),
            stock_size=stock,
            ends=tuple([(name, value) for name, value in ends]),
            layout=_grown(_LAYOUT, layout, _layout_move),
            count=count,
            events=_grown(_EVENTS, events, _event),
            scores=tuple(scores),
            to_move=to_move,
            legal_moves=tuple([get(m) or _move(m) for m in legal]),
            closed_ends=tuple(closed),
            opening=opening,
        )
    except Exception as exc:
        raise ProtocolError(f"not a bones observation: {exc}") from None


def _family_named(variant: Any) -> Family | None:
    """The family of the registered variant ``variant`` (None if unknown: the
    observations will say)."""
    try:
        return family_of(variant)
    except Exception:  # noqa: BLE001
        return None


def _keeps(bot: Any, hook: str) -> bool:
    """Whether ``bot``'s ``hook`` is :class:`Bot`'s own, which does nothing."""
    return getattr(type(bot), hook, None) is getattr(Bot, hook, None) and hook not in getattr(
        bot, "__dict__", {}
    )


def _variants_of(spec: Any, text: str | None = None) -> list[str] | None:
    """The ``variants`` of a served bot's hello: nil for a bot that plays every variant,
    else the registered variants it plays (a bot limited to rule families, such as the
    search bots to the double-six ones, lists the variants of those families, so that a
    runner does not send it a train game).  With the spec's ``text``, a variant where one
    of its options is refused (``BotSpec.check_options``: ``pimc:exact=4`` in the train
    games) is left out too, so the runner refuses the match before it starts."""
    from ..registry import variants

    names = variants() if spec.variants is None else list(spec.variants)
    plays = [name for name in names if spec.supports(name)]
    if text is not None and spec.check is not None:
        kept = []
        for name in plays:
            try:
                check_spec(text, name)
            except OptionError:
                continue
            kept.append(name)
        if kept != plays:
            return kept
    if spec.variants is None and spec.bases is None:
        return None
    return plays


def _hello(bot: Bot | str) -> dict[str, Any]:
    from .. import __version__

    if isinstance(bot, str):
        spec = check_spec(bot)
        return {
            "type": "hello",
            "protocol": PROTOCOL,
            "name": spec.name,
            "author": spec.plugin or "",
            "version": __version__,
            "variants": _variants_of(spec, bot),
            "options": {k: o.to_dict() for k, o in spec.all_options.items()},
        }
    name = getattr(bot, "name", "") or type(bot).__name__
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "name": str(name)[:100],
        "author": "",
        "version": __version__,
        "variants": None,
        "options": {},
    }


def _fd_of(stream: Any) -> int | None:
    if isinstance(stream, int):
        return stream
    try:
        return int(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return None


def private_stdout() -> int:
    """Keep this process's stdout for the frames only: a copy of file descriptor 1 is
    returned, and fd 1 and ``sys.stdout`` are pointed at stderr (so that prints, Python's
    or C's, land in the bot's log)."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out_fd


def serve(
    bot: Bot | str,
    stdin: BinaryIO | int | None = None,
    stdout: BinaryIO | int | None = None,
    *,
    strict: bool = False,
    max_frame: int = MAX_FRAME,
) -> int:
    """Run ``bot`` as a protocol process: read the runner's frames from ``stdin``, call the
    bot's hooks, write its answers to ``stdout``; return 0 at ``quit`` or at the end of
    the input.

    ``bot`` is a :class:`bones.Bot` (used for every game) or a spec string (a fresh bot
    per game from :func:`bones.make_bot`, with the seed of ``game_start`` unless the spec
    names one).  ``stdin``/``stdout`` are binary streams or file descriptors; ``None``
    means this process's own, and then the bot's prints are sent to stderr: file
    descriptor 1 and ``sys.stdout`` are pointed at stderr and the frames go to a private
    copy of the original stdout.  ``strict=True`` checks every observation with
    :meth:`Observation.from_msgpack`.  A hook that raises propagates (the process ends,
    the runner sees a crash with the traceback on stderr); a frame that breaks the
    protocol raises :class:`~bones.protocol.ProtocolError`.
    """
    in_fd = _fd_of(0 if stdin is None else stdin)
    out_fd = _fd_of(1 if stdout is None else stdout)
    if out_fd == 1:
        out_fd = private_stdout()
    read: Callable[[int], bytes]
    if in_fd is not None:
        fd = in_fd
        read = lambda n: os.read(fd, n)  # noqa: E731
    else:
        read = stdin.read  # type: ignore[union-attr]
    write: Callable[[bytes], None]
    if out_fd is not None:
        ofd = out_fd

        def write(data: bytes) -> None:
            view = memoryview(data)
            while view:
                view = view[os.write(ofd, view) :]

    else:
        stream: Any = stdout

        def write(data: bytes) -> None:
            stream.write(data)
            stream.flush()

    return _Session(bot, read, write, strict, max_frame).run()


class _Session:
    def __init__(
        self,
        bot: Bot | str,
        read: Callable[[int], bytes],
        write: Callable[[bytes], None],
        strict: bool,
        max_frame: int,
    ) -> None:
        self.spec = bot if isinstance(bot, str) else None
        self.bot: Any = None if isinstance(bot, str) else bot
        self.hello = _hello(bot)
        self.read = read
        self.write = write
        self.strict = strict
        self.reader = FrameReader(max_frame, strict_map_key=False)
        self.packer = msgpack.Packer(use_bin_type=True, autoreset=True)
        self.family: Family | None = None  # the current game's (its moves' grammar)
        self._set_hooks()

    def _set_hooks(self) -> None:
        bot = self.bot
        self.hooks = {
            hook: bot is not None and not _keeps(bot, hook)
            for hook in ("start_game", "start_round", "observe", "end_round", "end_game")
        }

    def send(self, message: dict[str, Any]) -> None:
        body = self.packer.pack(message)
        self.write(len(body).to_bytes(4, "big") + body)

    def observation(self, message: dict[str, Any]) -> Any:
        data = message.get("observation")
        if not isinstance(data, bytes):
            raise ProtocolError(f"{message.get('type')}: 'observation' must be a bin")
        observation = decode_observation(data, self.strict, self.family)
        if self.family is None:  # no game_start: the observation's own family
            self.family = family_of(observation.variant)
        return observation

    def run(self) -> int:
        reader = self.reader
        handlers = {
            "hello": self.on_hello,
            "ping": self.on_ping,
            "game_start": self.on_game_start,
            "round_start": self.on_round_start,
            "event": self.on_event,
            "move_request": self.on_move_request,
            "round_end": self.on_round_end,
            "game_end": self.on_game_end,
        }
        unpack = msgpack.unpackb
        while True:
            # the runner is trusted: its frames are bounded (max_frame) but not checked
            # item by item as the runner checks a bot's
            body = reader.next_body()
            if body is not None:
                try:
                    message = unpack(body, raw=False, strict_map_key=False)
                except Exception as exc:  # msgpack raises several unrelated types
                    raise ProtocolError(f"bad msgpack from the runner: {exc}") from None
                if type(message) is not dict:
                    raise ProtocolError("a message from the runner is not a map")
            else:
                chunk = self.read(1 << 16)
                if not chunk:
                    if reader.pending:
                        raise ProtocolError(
                            f"truncated frame: the input ended {reader.pending} bytes into one"
                        )
                    return 0
                reader.feed(chunk)
                continue
            kind = message.get("type")
            if kind == "quit":
                return 0
            handler = handlers.get(kind) if type(kind) is str else None
            if handler is not None:  # unknown types are ignored
                handler(message)

    # -- the messages ----------------------------------------------------------------------

    def on_hello(self, message: dict[str, Any]) -> None:
        self.send(self.hello)

    def on_ping(self, message: dict[str, Any]) -> None:
        self.send({"type": "pong", "id": message.get("id")})

    def on_game_start(self, message: dict[str, Any]) -> None:
        self.family = _family_named(message.get("variant"))
        if self.spec is not None:
            seed = message.get("seed")
            self.bot = make_bot(self.spec, seed=seed if type(seed) is int else None)
            self._set_hooks()
        if self.hooks["start_game"]:
            options = message.get("options") or {}
            self.bot.start_game(
                message["seat"], message["variant"], message["players"], dict(options)
            )

    def _bot(self) -> Any:
        if self.bot is None:  # a spec, and no game_start yet
            assert self.spec is not None
            self.bot = make_bot(self.spec)
            self._set_hooks()
        return self.bot

    def on_round_start(self, message: dict[str, Any]) -> None:
        bot = self._bot()
        if self.hooks["start_round"]:
            bot.start_round(self.observation(message))

    def on_event(self, message: dict[str, Any]) -> None:
        bot = self._bot()
        if self.hooks["observe"]:
            move = message.get("move")
            bot.observe(
                Event(
                    message["kind"],
                    message["seat"],
                    None if move is None else self.move_of(move),
                    message.get("count", 0),
                    message.get("points", 0),
                )
            )

    def move_of(self, text: Any) -> Any:
        """The move written ``text`` in the current game's grammar."""
        if type(text) is not str:
            raise ProtocolError(f"a move is a str, not {type(text).__name__}")
        try:
            if self.family is None:
                return _move(text)
            cache = _FAMILY_MOVES.setdefault(self.family.name, {})
            return _parsed(cache, self.family.part("move").parse, text)
        except ValueError as exc:
            raise ProtocolError(f"the runner sent a move that is not one: {exc}") from None

    def on_move_request(self, message: dict[str, Any]) -> None:
        bot = self._bot()
        observation = self.observation(message)
        legal = observation.legal_moves  # the moves themselves, as in process
        if self.strict and message.get("legal") != [str(m) for m in legal]:
            raise ProtocolError("move_request: 'legal' differs from the observation's moves")
        if not legal:
            raise ProtocolError("move_request: no legal move")
        move = bot.choose(observation, legal)
        answer: dict[str, Any] = {"type": "move", "id": message.get("id")}
        if type(move) is type(legal[0]) and move in legal:
            answer["index"] = legal.index(move)
        else:  # the runner refuses it, as the in-process driver would
            try:
                answer["move"] = str(move)[:100]
            except Exception:  # noqa: BLE001
                answer["move"] = "?"
        self.send(answer)

    def on_round_end(self, message: dict[str, Any]) -> None:
        bot = self._bot()
        if self.hooks["end_round"]:
            r = message["result"]
            result = (RoundResult if self.family is None else self.family.part("result"))(
                r["reason"],
                tuple(r["winners"]),
                tuple(r["points"]),
                tuple(r["values"]),
                r["last_seat"],
            )
            bot.end_round(result, self.observation(message))

    def on_game_end(self, message: dict[str, Any]) -> None:
        bot = self._bot()
        if self.hooks["end_game"]:
            bot.end_game(tuple(message["scores"]), tuple(message["winners"]))


def serve_spec(
    spec: str,
    strict: bool = False,
    prog: str = "bones serve-bot",
    plugins: Sequence[str] = (),
) -> int:
    """Serve the bot of ``spec`` on this process's stdin/stdout: what ``python -m
    bones.protocol.server SPEC`` and ``bones serve-bot SPEC`` run.  ``plugins``: modules
    to register as bones plugins first (``--plugin``, for bots that are not installed).
    The exit status: 0 (``quit`` or end of input), 2 (a bad spec or plugin, said on stderr
    before any frame), 3 (the runner broke the protocol).  A bot's hook that raises
    propagates (status 1 with the traceback, from the interpreter)."""
    frames = private_stdout()  # before any plugin is imported: nothing else reaches stdout
    try:
        register_modules(plugins)
        check_spec(spec)
    except OptionError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    try:
        return serve(spec, 0, frames, strict=strict)
    except ProtocolError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130


def main(argv: list[str] | None = None) -> int:
    """``python -m bones.protocol.server SPEC [--strict]``."""
    parser = argparse.ArgumentParser(
        prog="python -m bones.protocol.server",
        description="Serve a bones bot over the bones-bot protocol on stdin/stdout "
        "(docs/protocol.md).",
    )
    parser.add_argument("spec", help="a bot spec string: greedy, random:seed=3, ...")
    parser.add_argument(
        "--strict", action="store_true", help="check every observation with from_msgpack"
    )
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="register MODULE as a bones plugin first (repeatable)",
    )
    args = parser.parse_args(argv)
    return serve_spec(args.spec, args.strict, "bones.protocol.server", args.plugin)


if __name__ == "__main__":
    sys.exit(main())
