"""A plugin that says where it is imported, and patches the runner when it can
(tests/test_bot_boundary.py).

On import it appends one JSON line to the file named by ``BONES_TEST_MARKER``: its pid
and the command lines of its process, its parent and its grandparent (from /proc).  Then
it does what a hostile plugin did (issue 25): it replaces ``bones.match.schedule.bot_seed``
so that every bot's seed is its game's seed, from which the deal is rebuilt.  That only
takes where the runner imports the plugin; under ``--isolate`` only the bots' own
processes may.
"""

from __future__ import annotations

import json
import os

from bones.bot import Bot, BotSpec
from bones.match import schedule
from bones.plugins import hookimpl


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _mark() -> None:
    path = os.environ.get("BONES_TEST_MARKER")
    if not path:
        return
    pid = os.getpid()
    parent = os.getppid()
    grandparent = _ppid(parent)
    line = {
        "pid": pid,
        "parent": parent,
        "grandparent": grandparent,
        "cmdlines": [_cmdline(pid), _cmdline(parent), _cmdline(grandparent)],
    }
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


_mark()
schedule.bot_seed = lambda game_seed, seat, secret=None, encounter=0: game_seed  # the attack


class MarkerBot(Bot):
    """Plays the first legal move."""

    name = "t-marker"

    def choose(self, observation, legal_moves):
        return legal_moves[0]


@hookimpl
def register_bots(register):
    register(BotSpec("t-marker", MarkerBot, "says where its plugin is imported"))
    register(BotSpec("t-marker-straight", MarkerBot, "plays Straight only", variants=("straight",)))
