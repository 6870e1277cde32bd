"""A bones plugin of misbehaving bots and a broken variant, for the hardening tests of the
match runner (tests/test_match_hardening.py, tests/test_fair_play.py).

Loaded with ``plugins=("hardening_plugin",)`` (``--plugin hardening_plugin`` with
``tests/`` on ``PYTHONPATH``): in the test process and in every worker.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import bones
from bones.bot import Bot, BotSpec
from bones.core.moves import Move
from bones.plugins import hookimpl
from bones.variant import Option

HOOKS = ("init", "start_game", "start_round", "observe", "choose", "end_round", "end_game", "del")


def _hang(swallow: bool) -> None:
    """Sleep for an hour; with ``swallow``, every exception (the runner's alarm included)
    is caught and the sleep goes on."""
    deadline = time.monotonic() + 3600
    while time.monotonic() < deadline:
        if not swallow:
            time.sleep(3600)
        try:
            time.sleep(3600)
        except BaseException:  # noqa: BLE001, S110  (the point of this bot)
            pass


class HangBot(Bot):
    """Plays the first legal move, but hangs in the hook ``hook`` (``swallow``: catching
    every exception, the alarm included)."""

    name = "t-hang"

    def __init__(self, seed: int = 0, hook: str = "choose", swallow: bool = False) -> None:
        super().__init__(seed, hook=hook, swallow=swallow)
        self.hook = hook
        self.swallow = swallow
        if hook == "init":
            _hang(swallow)

    def _maybe(self, hook: str) -> None:
        if self.hook == hook:
            _hang(self.swallow)

    def start_game(self, seat, variant, players, options):
        self._maybe("start_game")

    def start_round(self, observation):
        self._maybe("start_round")

    def observe(self, event):
        self._maybe("observe")

    def choose(self, observation, legal_moves):
        self._maybe("choose")
        return legal_moves[0]

    def end_round(self, result, observation):
        self._maybe("end_round")

    def end_game(self, scores, winners):
        self._maybe("end_game")

    def __del__(self):
        if getattr(self, "hook", None) == "del":
            _hang(self.swallow)


class CustomExit(BaseException):
    """A BaseException of a bot's own."""


class RaiseBot(Bot):
    """Raises (or exits) in choose: ``what`` is exit0 (``sys.exit(0)``), exit3, keyboard
    (``KeyboardInterrupt``), generatorexit, custom (a BaseException subclass), os_exit
    (``os._exit(0)``: the process ends at once) or kill (SIGKILL to itself)."""

    name = "t-raise"

    def __init__(self, seed: int = 0, what: str = "exit0") -> None:
        super().__init__(seed, what=what)
        self.what = what

    def choose(self, observation, legal_moves):
        what = self.what
        if what == "exit0":
            sys.exit(0)
        if what == "exit3":
            sys.exit(3)
        if what == "keyboard":
            raise KeyboardInterrupt
        if what == "generatorexit":
            raise GeneratorExit
        if what == "custom":
            raise CustomExit("mine")
        if what == "os_exit":
            os._exit(0)
        if what == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        return legal_moves[0]


class FakeMove:
    """Claims to be a Move (``isinstance`` believes its ``__class__``) and equal to
    everything."""

    __class__ = Move  # type: ignore[assignment]

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


class Unprintable:
    """Its ``__eq__``, ``__hash__``, ``__str__`` and ``__repr__`` raise SystemExit."""

    def __eq__(self, other):
        raise SystemExit("eq")

    def __hash__(self):
        raise SystemExit("hash")

    def __str__(self):
        raise SystemExit("str")

    def __repr__(self):
        raise SystemExit("repr")


class AnswerBot(Bot):
    """Answers garbage from choose: ``kind`` none, str, int, fake (a Move look-alike equal
    to everything), unprintable (an object whose methods raise SystemExit)."""

    name = "t-answer"

    def __init__(self, seed: int = 0, kind: str = "none") -> None:
        super().__init__(seed, kind=kind)
        self.kind = kind

    def choose(self, observation, legal_moves):
        return {
            "none": None,
            "str": str(legal_moves[0]),
            "int": 7,
            "fake": FakeMove(),
            "unprintable": Unprintable(),
        }[self.kind]


class PrintBot(Bot):
    """Prints on every move: to ``sys.stdout`` and straight to file descriptor 1."""

    name = "t-print"

    def choose(self, observation, legal_moves):
        print("PRINTED BY A BOT")
        os.write(1, b"WRITTEN TO FD 1 BY A BOT\n")
        return legal_moves[0]


def boom_scorer(layout, move, count):
    """All Fives, but it raises as soon as the count is 10."""
    if count == 10:
        raise RuntimeError("boom at 10")
    return count // 5 if count > 0 and count % 5 == 0 else 0


def _choice(*values: object) -> Option:
    return Option("x", values[0], values)


@hookimpl
def register_bots(register):
    def opt(name, default, choices):
        return {name: Option(name, default, choices)}

    register(
        BotSpec(
            "t-hang",
            HangBot,
            "hangs in a hook",
            {**opt("hook", "choose", HOOKS), **opt("swallow", False, (False, True))},
        )
    )
    register(
        BotSpec(
            "t-raise",
            RaiseBot,
            "raises a BaseException or exits",
            opt(
                "what",
                "exit0",
                ("exit0", "exit3", "keyboard", "generatorexit", "custom", "os_exit", "kill"),
            ),
        )
    )
    register(
        BotSpec(
            "t-answer",
            AnswerBot,
            "answers garbage",
            opt("kind", "none", ("none", "str", "int", "fake", "unprintable")),
        )
    )
    register(BotSpec("t-print", PrintBot, "prints"))


@hookimpl
def register_variants(register):
    straight = bones.variant("straight")
    register(straight.with_defaults("t-boom", move_scorer=boom_scorer))
