"""Matches between bots: ``bones match`` and ``bones show`` (docs/matches.md).

* :mod:`~bones.match.runner` -- formats, the schedule of duplicate deals, the game driver
  and the executors (:func:`run_match`);
* :mod:`~bones.match.stats` -- Elo, 95% intervals, pentanomial counts, the GSPRT (pure
  functions);
* :mod:`~bones.match.journal` -- the append-only journal, game records and their replay;
* :mod:`~bones.match.report` -- the summary recomputed from the journal, the table;
* :mod:`~bones.match.progress` -- the progress bar.
"""

from __future__ import annotations

from .journal import Journal, JournalError, load_record, read_journal, show
from .report import format_table, summarize
from .runner import FORMATS, MatchConfig, MatchError, plan, play_game, run_match
from .stats import SPRT, elo_from_score, score_from_elo

__all__ = [
    "FORMATS",
    "SPRT",
    "Journal",
    "JournalError",
    "MatchConfig",
    "MatchError",
    "elo_from_score",
    "format_table",
    "load_record",
    "plan",
    "play_game",
    "read_journal",
    "run_match",
    "score_from_elo",
    "show",
    "summarize",
]
