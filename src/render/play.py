"""``bones play``: a game against bots in the terminal.

The human seats see what their observation holds (their hand, the board drawn from the
placements, the open and closed ends, the hand sizes, the boneyard's size and the
scores), choose among their numbered legal moves, and read one line for every move,
draw and pass of the others, saying why.  Ctrl-C (or end of input) saves the game to a
file that ``bones play --resume FILE`` continues.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import msgpack

from ..core.observation import TrainObservation
from ..core.trains import TrainRound
from ..errors import BonesError
from ..records import unpack_message
from .replay import explain_events
from .svg import points_text
from .terminal import board_text
from .trains_text import explain_train_log, train_board_text, train_view_lines

__all__ = ["HUMAN", "PlayError", "free_path", "load_game", "play_game", "save_game"]

#: The seat spec of a person at the keyboard.
HUMAN = "human"
SAVE_SCHEMA = "bones.play"
SAVE_VERSION = 1


class PlayError(BonesError):
    """A saved game that cannot be resumed, or seats that cannot play."""


def save_game(path: str, game: Any, seats: Sequence[str]) -> None:
    """Write ``game`` and its ``seats`` to ``path`` (a new file then a rename: a save
    interrupted half-way never replaces the previous one)."""
    data = msgpack.packb(
        {
            "schema": SAVE_SCHEMA,
            "version": SAVE_VERSION,
            "seats": list(seats),
            "game": game.to_msgpack(),
        },
        use_bin_type=True,
    )
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def load_game(path: str) -> tuple[Any, list[str]]:
    """The game and seats that :func:`save_game` wrote; :class:`PlayError` saying what is
    wrong for a missing, truncated or foreign file."""
    from ..game import Game

    try:
        with open(path, "rb") as f:
            data = f.read(32 << 20)
    except OSError as exc:
        raise PlayError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        doc = unpack_message(
            data, "not a saved bones game", max_depth=2, max_bin_len=16 << 20, max_str_len=4096
        )
    except ValueError as exc:
        raise PlayError(f"{path}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SAVE_SCHEMA:
        raise PlayError(f"{path}: not a saved bones game (no {SAVE_SCHEMA!r} schema)")
    if doc.get("version") != SAVE_VERSION:
        raise PlayError(f"{path}: saved game version {doc.get('version')!r}, not {SAVE_VERSION}")
    seats = doc.get("seats")
    raw = doc.get("game")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise PlayError(f"{path}: the seats must be a list of bot specs")
    if not isinstance(raw, bytes):
        raise PlayError(f"{path}: the game is missing")
    try:
        game = Game.from_msgpack(raw)
    except ValueError as exc:
        raise PlayError(f"{path}: {exc}") from None
    if len(seats) != game.players:
        raise PlayError(f"{path}: {len(seats)} seats for a game of {game.players} players")
    return game, seats


class _Table:
    """The bots, the names and the output of one session."""

    def __init__(self, game: Any, seats: Sequence[str], out: TextIO) -> None:
        from ..bot import make_bot
        from ..match.schedule import bot_seed, new_secret

        secret = new_secret()  # the bots' seeds tell them nothing about the deal
        self.game = game
        self.seats = list(seats)
        self.out = out
        self.names = [
            f"seat {s} (you)" if spec == HUMAN else f"seat {s} ({spec})"
            for s, spec in enumerate(seats)
        ]
        self.bots: dict[int, Any] = {}
        for seat, spec in enumerate(seats):
            if spec != HUMAN:
                try:
                    self.bots[seat] = make_bot(spec, seed=bot_seed(game.seed, seat, secret))
                except (ValueError, BonesError) as exc:
                    raise PlayError(f"seat {seat}: {exc}") from None
        for seat, bot in self.bots.items():
            bot.start_game(seat, game.variant, game.players, dict(game.options))

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def tell(
        self, events: Sequence[Any], stock: int, log: Sequence[Any] = (), public: Any = ()
    ) -> None:
        """Explain ``events`` to the player and hand them to the bots.  A train round is
        explained from ``log`` (its log's new entries), ``public``: the trains' markers
        before them."""
        rnd = self.game.round
        if isinstance(rnd, TrainRound):
            lines = explain_train_log(log, self.names, rnd.layout_name, rnd.players, stock, public)
        else:
            lines = explain_events(events, self.names, rnd.ends, rnd.closed_ends, stock)
        for line in lines:
            self.say(f"  {line}")
        for event in events:
            for bot in self.bots.values():
                bot.observe(event)

    def train_log(self, rnd: TrainRound) -> tuple[Any, ...]:
        """The round's log as the person at the keyboard may see it: their own drawn tiles
        when they are the only one, nobody's otherwise."""
        humans = [s for s, spec in enumerate(self.seats) if spec == HUMAN]
        return rnd.log_of(humans[0]) if len(humans) == 1 else rnd.log

    def scores(self) -> str:
        rnd = self.game.round
        if isinstance(rnd, TrainRound):  # penalties: the game's totals so far
            totals = ", ".join(
                f"{n}: {v}" for n, v in zip(self.names, self.game.scores, strict=True)
            )
            return f"penalty totals: {totals} (lowest total wins)"
        parts = []
        for side, members in enumerate(rnd.sides):
            parts.append(f"{' + '.join(self.names[s] for s in members)}: {rnd.scores[side]}")
        return "scores: " + ", ".join(parts)


def _describe(obs: Any, move: Any) -> str:
    points = obs.points_after(move)
    return f"{move}" + (f"  (scores {points})" if points else "")


def _ask_human(table: _Table, seat: int, ask: Callable[[str], str]) -> Any:
    """Show seat ``seat`` its view and read a move number until one is valid."""
    obs = table.game.round.observation(seat)
    say = table.say
    say()
    if isinstance(obs, TrainObservation):
        lines = train_view_lines(obs, table.names)
        say(lines[0])
        say(lines[1])
        say(table.scores())
        say(lines[2])
    else:
        say(board_text(obs.placements, obs.closed_ends))
        ends = ", ".join(f"{n}={v}" for n, v in obs.ends if n not in obs.closed_ends) or "none"
        say(f"open ends: {ends}   count {obs.count}   boneyard {obs.stock_size}")
        say(table.scores())
        others = ", ".join(
            f"{table.names[s]} {_tiles(obs.hand_sizes[s])}" for s in range(obs.players) if s != seat
        )
        say(f"hands: {others}")
    say(f"your hand ({table.names[seat]}): {' '.join(str(t) for t in obs.hand)}")
    # a train observation lists its moves as text: the round's are the move objects
    legal = list(
        table.game.round.legal_moves if isinstance(obs, TrainObservation) else obs.legal_moves
    )
    say("your moves (Enter plays the only one):" if len(legal) == 1 else "your moves:")
    for i, move in enumerate(legal, 1):
        say(f"  {i}) {_describe(obs, move)}")
    while True:
        text = ask(f"move [1-{len(legal)}], or q to save and quit: ").strip()
        if text.lower() in ("q", "quit"):
            raise KeyboardInterrupt
        if not text and len(legal) == 1:
            return legal[0]
        if text.isdigit() and 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]
        typed = _spelling(text)
        matches = [m for m in legal if _spelling(str(m)) == typed] or _by_tile(legal, text)
        if len(matches) == 1:
            return matches[0]
        if matches:
            where = ", ".join(str(m) for m in matches)
            say(f"{text} goes on more than one end: type one of {where} (or its number)")
            continue
        say(f"{text!r} is not one of your moves: type a number from 1 to {len(legal)}")


def _tiles(n: int) -> str:
    return "1 tile" if n == 1 else f"{n} tiles"


def _pips(text: str) -> tuple[str, ...] | None:
    """``"4-6"`` -> ``("4", "6")`` (in order: a tile is the same both ways round)."""
    parts = text.replace(" ", "").split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return tuple(sorted(str(int(p)) for p in parts))


def _spelling(text: str) -> str:
    """A move's text in one spelling: each tile's numbers in order, the rest lower case
    (``12-7@m`` and ``7-12@M`` are one move, ``9-4@4-9`` and ``4-9@9-4`` another)."""
    return re.sub(
        r"\d+\s*-\s*\d+",
        lambda m: "-".join(_pips(m.group()) or ()),
        text.replace(" ", "").lower(),
    )


def _by_tile(legal: Sequence[Any], text: str) -> list[Any]:
    """The placements of the tile typed without an end (``4-4`` for ``4-4@E``)."""
    pips = _pips(text)
    if pips is None:
        return []
    return [
        m for m in legal if m.tile is not None and m.tile2 is None and _pips(str(m.tile)) == pips
    ]


def _play_round(table: _Table, ask: Callable[[str], str]) -> None:
    from ..bot import BotError

    game = table.game
    rnd = game.round
    table.say()
    table.say(
        f"== {game.variant}, round {game.round_index + 1}: {table.names[rnd.leader]} leads; "
        f"{table.scores()}"
    )
    for seat, bot in table.bots.items():
        bot.start_round(rnd.observation(seat))
    log = table.train_log(rnd) if isinstance(rnd, TrainRound) else ()
    drawn = sum(e.count for e in rnd.events if e.kind == "draw")
    table.tell(rnd.events, rnd.stock_size + drawn, log)
    while not rnd.is_over:
        seat = rnd.to_move
        if seat in table.bots:
            obs = rnd.observation(seat)
            # a train observation lists its moves as text; the bots get the move objects
            legal = rnd.legal_moves if isinstance(rnd, TrainRound) else obs.legal_moves
            move = table.bots[seat].choose(obs, legal)
            if move not in legal:
                raise BotError(seat, f"choose() returned {move!r}, which is not legal")
        else:
            move = _ask_human(table, seat, ask)
        seen = len(rnd.events)
        stock = rnd.stock_size
        if isinstance(rnd, TrainRound):
            logged = len(rnd.log)
            public = [t[2] for t in rnd.trains[: rnd.players]]
            rnd.play(move)
            table.tell(rnd.events[seen:], stock, table.train_log(rnd)[logged:], public)
            continue
        rnd.play(move)
        table.tell(rnd.events[seen:], stock)
    result = rnd.result
    for seat, bot in table.bots.items():
        bot.end_round(result, rnd.observation(seat))
    table.say()
    if isinstance(rnd, TrainRound):
        table.say(train_board_text(rnd, table.names))
    else:
        table.say(board_text(rnd.placements, rnd.closed_ends))
    won = "; ".join(" + ".join(table.names[s] for s in rnd.sides[w]) for w in result.winners)
    points = points_text(rnd.sides, result.points, table.names)
    what = "penalties (pips left)" if isinstance(rnd, TrainRound) else "points"
    table.say(f"round over ({result.reason}): won by {won or 'nobody'}; {what}: {points}")
    for seat in range(rnd.players):
        left = " ".join(str(t) for t in rnd.hand(seat)) or "-"
        table.say(f"  {table.names[seat]} holds {left}")


def free_path(path: str) -> str:
    """``path`` if no file is there, else the first of ``stem-2.ext``, ``stem-3.ext``, ...
    that is free: a saved game is never written over another."""
    if not os.path.lexists(path):
        return path
    stem, ext = os.path.splitext(path)
    n = 2
    while os.path.lexists(f"{stem}-{n}{ext}"):
        n += 1
    return f"{stem}-{n}{ext}"


def play_game(
    game: Any,
    seats: Sequence[str],
    *,
    save_path: str,
    ask: Callable[[str], str] = input,
    out: TextIO = sys.stdout,
    replace: bool = False,
) -> int:
    """Play ``game`` to its end with a person at each ``"human"`` seat and the bot of each
    other spec; returns 0 when the game is over, 130 when it was saved (Ctrl-C, end of
    input or ``q``) to ``save_path`` or, if a file is there already and ``replace`` is
    false (it is not the file this game was resumed from), under a new name
    (:func:`free_path`), which is said."""
    if len(seats) != game.players:
        raise PlayError(f"{len(seats)} seats for a game of {game.players} players")
    table = _Table(game, seats, out)
    try:
        while not game.is_over:
            if not game.round.is_over:
                _play_round(table, ask)
            if game.next_round() is None:
                break
            table.say(f"game {_totals(game)}: {'-'.join(map(str, game.scores))}")
    except (KeyboardInterrupt, EOFError):
        path = save_path if replace else free_path(save_path)
        save_game(path, game, seats)
        table.say()
        if path != save_path:
            table.say(f"{save_path} holds another saved game: it is kept")
        table.say(f"game saved to {path}; continue it with: bones play --resume {path}")
        return 130
    for bot in table.bots.values():
        bot.end_game(game.scores, game.winners)
    names = "; ".join(" + ".join(table.names[s] for s in game.sides[w]) for w in game.winners)
    table.say()
    table.say(f"game over: final {_totals(game)} {'-'.join(map(str, game.scores))}; won by {names}")
    return 0


def _totals(game: Any) -> str:
    """What a game's scores are: points, or in a train game penalties, lowest winning."""
    if isinstance(game.round, TrainRound):
        return "penalty totals (lowest total wins)"
    return "scores"
