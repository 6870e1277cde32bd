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
from typing import Any, NamedTuple, TextIO

import msgpack

from ..errors import BonesError
from ..records import unpack_message
from .replay import explain_events
from .svg import points_text
from .terminal import board_text
from .trains_text import (
    explain_train_log,
    train_board_text,
    train_round_text,
    train_view_lines,
)

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
        from ..registry import family_of

        self.game = game
        self.seats = list(seats)
        self.out = out
        self.face: Terminal = family_of(game.variant).part("terminal")
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

    @property
    def viewer(self) -> int | None:
        """The seat whose own draws the text shows: the person at the keyboard when
        there is only one, nobody otherwise."""
        humans = [s for s, spec in enumerate(self.seats) if spec == HUMAN]
        return humans[0] if len(humans) == 1 else None

    def tell(self, mark: Mark) -> None:
        """Explain what happened in the round since ``mark`` to the player and hand the
        new events to the bots."""
        rnd = self.game.round
        for line in self.face.explain(rnd, mark, self.names, self.viewer):
            self.say(f"  {line}")
        for event in rnd.events[mark.events :]:
            for bot in self.bots.values():
                bot.observe(event)

    def scores(self) -> str:
        return self.face.scores(self.game, self.names)


def _describe(obs: Any, move: Any) -> str:
    points = obs.points_after(move)
    return f"{move}" + (f"  (scores {points})" if points else "")


def _ask_human(table: _Table, seat: int, ask: Callable[[str], str]) -> Any:
    """Show seat ``seat`` its view and read a move number until one is valid."""
    obs = table.game.round.observation(seat)
    say = table.say
    say()
    for line in table.face.view(obs, table.names, table.scores()):
        say(line)
    say(f"your hand ({table.names[seat]}): {' '.join(str(t) for t in obs.hand)}")
    legal = list(obs.legal_moves)
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
    drawn = sum(e.count for e in rnd.events if e.kind == "draw")
    table.tell(Mark(0, rnd.stock_size + drawn, 0, ()))  # the deal: nothing told yet
    while not rnd.is_over:
        seat = rnd.to_move
        if seat in table.bots:
            obs = rnd.observation(seat)
            legal = obs.legal_moves
            move = table.bots[seat].choose(obs, legal)
            if move not in legal:
                raise BotError(seat, f"choose() returned {move!r}, which is not legal")
        else:
            move = _ask_human(table, seat, ask)
        mark = table.face.mark(rnd, table.viewer)
        rnd.play(move)
        table.tell(mark)
    result = rnd.result
    for seat, bot in table.bots.items():
        bot.end_round(result, rnd.observation(seat))
    table.say()
    table.say(table.face.board(rnd, table.names))
    won = "; ".join(" + ".join(table.names[s] for s in rnd.sides[w]) for w in result.winners)
    points = points_text(rnd.sides, result.points, table.names)
    what = table.face.points
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
    """What a game's scores are (points, or penalties with the lowest winning)."""
    face: Terminal = game_family_terminal(game)
    return face.totals


def game_family_terminal(game: Any) -> Terminal:
    """The ``terminal`` part of the family of ``game``'s variant."""
    from ..registry import family_of

    face: Terminal = family_of(game.variant).part("terminal")
    return face


class Mark(NamedTuple):
    """Where a round stood before a move, for telling what the move did: its public
    ``events`` and ``stock`` then, and (the train games) the entries of the log the
    viewer saw (``log``) and which trains were public (``public``)."""

    events: int
    stock: int
    log: int
    public: Any


class Terminal:
    """A family's face in the terminal (its ``terminal`` part): how a seat's view, the
    board, the scores and the events are written.  ``points`` names what a round's
    result awards, ``totals`` what a game's scores are.  This base writes them from the
    ``bones.Round`` interface alone: a family without a terminal part of its own gets it
    (``PLAIN_TERMINAL``)."""

    points = "points"
    totals = "scores"

    def view(self, obs: Any, names: Sequence[str], scores: str) -> list[str]:
        """The lines shown to the seat of ``obs`` before its hand (``scores``: the scores
        line)."""
        others = ", ".join(
            f"{names[s]} {_tiles(obs.hand_sizes[s])}" for s in range(obs.players) if s != obs.seat
        )
        return [self._line(obs.layout), scores, f"hands: {others}"]

    def board(self, rnd: Any, names: Sequence[str]) -> str:
        """The table of ``rnd`` as text."""
        return self._line(rnd.layout)

    @staticmethod
    def _line(layout: Sequence[Any]) -> str:
        return "table: " + (" ".join(map(str, layout)) or "empty")

    def round_text(self, rnd: Any, names: Sequence[str]) -> str:
        """The whole round as text, its hands and stock included (``bones show``)."""
        return str(rnd)

    def event_text(self, event: Any) -> str:
        """One public event as ``bones show`` lists it."""
        if event.kind == "play":
            return str(event.move)
        if event.kind == "draw":
            return f"draws {event.count}"
        return "passes"

    def scores(self, game: Any, names: Sequence[str]) -> str:
        """The scores line of ``game``."""
        parts = []
        for side, members in enumerate(game.sides):
            parts.append(f"{' + '.join(names[s] for s in members)}: {game.scores[side]}")
        return "scores: " + ", ".join(parts)

    def mark(self, rnd: Any, viewer: int | None) -> Mark:
        """Where ``rnd`` stands now, for :meth:`explain` after the next move."""
        return Mark(len(rnd.events), rnd.stock_size, 0, ())

    def explain(self, rnd: Any, mark: Mark, names: Sequence[str], viewer: int | None) -> list[str]:
        """One line for each move, draw and pass of ``rnd`` since ``mark``."""
        return [f"{names[e.seat]} {self.event_text(e)}" for e in rnd.events[mark.events :]]


class LineTerminal(Terminal):
    """The line games in the terminal: the board of placements, the open ends, the
    sides' scores."""

    def view(self, obs: Any, names: Sequence[str], scores: str) -> list[str]:
        ends = ", ".join(f"{n}={v}" for n, v in obs.ends if n not in obs.closed_ends) or "none"
        others = ", ".join(
            f"{names[s]} {_tiles(obs.hand_sizes[s])}" for s in range(obs.players) if s != obs.seat
        )
        return [
            board_text(obs.placements, obs.closed_ends),
            f"open ends: {ends}   count {obs.count}   boneyard {obs.stock_size}",
            scores,
            f"hands: {others}",
        ]

    def board(self, rnd: Any, names: Sequence[str]) -> str:
        return board_text(rnd.placements, rnd.closed_ends)

    def event_text(self, event: Any) -> str:
        if event.kind == "play":  # with the table's count after it, and what it scored
            points = f", +{event.points}" if event.points else ""
            return f"{event.move}  (count {event.count}{points})"
        return super().event_text(event)

    def scores(self, game: Any, names: Sequence[str]) -> str:
        rnd = game.round  # the round's scores: the points scored in it so far included
        parts = []
        for side, members in enumerate(rnd.sides):
            parts.append(f"{' + '.join(names[s] for s in members)}: {rnd.scores[side]}")
        return "scores: " + ", ".join(parts)

    def explain(self, rnd: Any, mark: Mark, names: Sequence[str], viewer: int | None) -> list[str]:
        events = rnd.events[mark.events :]
        return explain_events(events, names, rnd.ends, rnd.closed_ends, mark.stock)


class TrainTerminal(Terminal):
    """The train games in the terminal: the trains (or the foot), the penalty totals,
    the round's log (the viewer's own draws shown)."""

    points = "penalties (pips left)"
    totals = "penalty totals (lowest total wins)"

    def view(self, obs: Any, names: Sequence[str], scores: str) -> list[str]:
        lines = train_view_lines(obs, names)
        return [lines[0], lines[1], scores, lines[2]]

    def board(self, rnd: Any, names: Sequence[str]) -> str:
        return train_board_text(rnd, names)

    def round_text(self, rnd: Any, names: Sequence[str]) -> str:
        return train_round_text(rnd, names)

    def scores(self, game: Any, names: Sequence[str]) -> str:
        totals = ", ".join(f"{n}: {v}" for n, v in zip(names, game.scores, strict=True))
        return f"penalty totals: {totals} (lowest total wins)"

    @staticmethod
    def _log(rnd: Any, viewer: int | None) -> tuple[Any, ...]:
        log: tuple[Any, ...] = rnd.log if viewer is None else rnd.log_of(viewer)
        return log

    def mark(self, rnd: Any, viewer: int | None) -> Mark:
        public = [t[2] for t in rnd.trains[: rnd.players]]
        return Mark(len(rnd.events), rnd.stock_size, len(self._log(rnd, viewer)), public)

    def explain(self, rnd: Any, mark: Mark, names: Sequence[str], viewer: int | None) -> list[str]:
        log = self._log(rnd, viewer)[mark.log :]
        return explain_train_log(log, names, rnd.layout_name, rnd.players, mark.stock, mark.public)


#: The built-in families' terminal parts, and the plain one of a family without its own.
LINE_TERMINAL = LineTerminal()
TRAIN_TERMINAL = TrainTerminal()
PLAIN_TERMINAL = Terminal()
