"""The steps of a replay and the replayed record they start from, shared by the replays of
the double-six games (:mod:`bones.render.replay`) and of the train games
(:mod:`bones.render.trains_replay`), which the first hands train records to.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .svg import Frame
    from .trains_svg import TrainFrame

__all__ = ["Step", "replayed"]


class Step(NamedTuple):
    """One position of a replay: which round (1-based) and ply (0: the deal), what
    happened (``lines``), the picture's ``frame`` and the tiles on the table; ``move``:
    the move of the record that led here (empty for a deal).  A frame of any family has
    ``placements`` (the tiles on the table), ``bounds()``, ``page_parts(bounds, size)``
    and ``svg()`` (bones.render.svg.Frame, bones.render.trains_svg.TrainFrame)."""

    round: int
    ply: int
    lines: tuple[str, ...]
    frame: Frame | TrainFrame
    move: str = ""

    @property
    def tiles(self) -> int:
        return len(self.frame.placements)


def _field(record: Mapping[str, Any], key: str) -> Any:
    from ..match.journal import JournalError

    try:
        return record[key]
    except (KeyError, TypeError):
        raise JournalError(f"not a game record: missing field {key!r}") from None


def replayed(
    record: Mapping[str, Any], seat: int | None
) -> tuple[Any, list[str], tuple[str, ...], list[Any]]:
    """What a replay of ``record`` starts from, once :func:`bones.match.journal.show` has
    checked that the record replays: the game dealt again from its seed, the seats' bots,
    their names as the lines write them and the recorded rounds.  JournalError for a
    ``seat`` the game does not have or a game that recorded no round."""
    from ..game import new_game
    from ..match.journal import JournalError, show

    show(record, io.StringIO())  # raises if the record does not replay
    players = int(_field(record, "players"))
    seats = list(_field(record, "seats"))
    names = tuple(f"seat {s} ({seats[s]})" for s in range(players))
    if seat is not None and not 0 <= seat < players:
        raise JournalError(f"seat {seat}: the game has seats 0 to {players - 1}")
    game = new_game(
        _field(record, "variant"),
        players,
        int(_field(record, "seed")),
        **_field(record, "options"),
    )
    rounds = list(_field(record, "rounds"))
    if not rounds:
        why = record.get("error") or (record.get("forfeit") or {}).get("detail") or "none"
        raise JournalError(f"game {record.get('id', '?')} recorded no round to replay ({why})")
    return game, seats, names, rounds
