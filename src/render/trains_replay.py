"""A recorded game of a train variant step by step, for ``bones replay`` and
``bones show --svg`` (the train family's ``replay_steps`` part, which
:func:`bones.render.replay.replay_steps` calls for a train game).

The record is first checked by :func:`bones.match.journal.show`, like any other; each
step's picture is a :class:`~bones.render.trains_svg.TrainFrame` and its lines explain
the placements, draws and passes (with ``seat``: as that seat saw them, other seats'
drawn tiles unseen).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from .trains_svg import frame_of_train_observation, frame_of_train_round
from .trains_text import explain_train_log

__all__ = ["train_replay_steps"]


def _public(rnd: Any) -> list[bool]:
    return [bool(t[2]) for t in rnd.trains[: rnd.players]]


def train_replay_steps(record: Mapping[str, Any], seat: int | None = None) -> list[Any]:
    """The :class:`bones.render.replay.Step` list of a train game's record."""
    from ..api import Round
    from .steps import Step, replayed

    game, seats, names, rounds = replayed(record, seat)
    variant, players = game.variant, game.players

    def picture(rnd: Any, title: str) -> Any:
        if seat is None:
            return frame_of_train_round(rnd, seats, title)
        return frame_of_train_observation(rnd.observation(seat), seats, title)

    def log_of(rnd: Any) -> tuple[Any, ...]:
        return rnd.log if seat is None else rnd.log_of(seat)

    steps: list[Any] = []
    for index, entry in enumerate(rounds):
        moves = Round.from_msgpack(base64.b64decode(entry["round"], validate=True)).moves
        rnd: Any = game.round  # a TrainRound (the Game annotates its rounds as Round)
        e = rnd.engine
        title = (
            f"{variant}, {players} players: game {record.get('id', '?')}, round {index + 1} "
            f"(engine {e}-{e})"
        )
        log = log_of(rnd)
        drawn = sum(1 for entry_ in log if entry_[0] == "draw")
        lines = [f"round {index + 1} dealt, engine {e}-{e}: {names[rnd.leader]} leads"]
        lines += explain_train_log(log, names, rnd.layout_name, players, rnd.stock_size + drawn)
        steps.append(Step(index + 1, 0, tuple(lines), picture(rnd, title)))
        for ply, move in enumerate(moves, 1):
            seen = len(log_of(rnd))
            stock = rnd.stock_size
            public = _public(rnd)
            rnd.play(move)
            new = log_of(rnd)[seen:]
            lines = explain_train_log(new, names, rnd.layout_name, players, stock, public)
            if rnd.result is not None:
                r = rnd.result
                if r.reason == "out":
                    how = f"{names[r.winners[0]]} goes out"
                else:
                    how = "blocked: nobody can play; lowest " + ", ".join(
                        names[w] for w in r.winners
                    )
                lines.append(f"round over ({how}); penalties (pips left) {list(r.points)}")
            steps.append(Step(index + 1, ply, tuple(lines), picture(rnd, title), str(move)))
        if rnd.result is not None and not game.is_over and index < len(rounds) - 1:
            game.next_round()
    return steps


def __getattr__(name: str) -> Any:
    """``is_train_record``, kept for one release: the family registry answers now."""
    if name == "is_train_record":
        import warnings

        warnings.warn(
            "bones.render.trains_replay.is_train_record is deprecated: ask the family "
            "(bones.registry.family_of(record['variant']).name == 'trains')",
            DeprecationWarning,
            stacklevel=2,
        )
        return _is_train_record
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _is_train_record(record: Mapping[str, Any]) -> bool:
    from ..registry import family_of

    try:
        return family_of(record["variant"]).name == "trains"
    except Exception:  # not a record, an unknown variant
        return False
