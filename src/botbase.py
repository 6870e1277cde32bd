"""The base of every bot: the :class:`Bot` class and :class:`BotError`.

Kept apart from :mod:`bones.bot` (which re-exports both) so that the modules below the bot
factory, ``bones.protocol.client`` with its ``ExternalBot``, can subclass :class:`Bot`
while :func:`bones.bot.make_bot` makes an ``ExternalBot`` without a circular import.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import BonesError
from .variant import show

if TYPE_CHECKING:
    from .api import Move, Observation  # every family's
    from .records import Event, RoundResult

__all__ = ["Bot", "BotError"]


class BotError(BonesError):
    """A bot failed: it answered something that is not one of the legal moves, or one of
    its hooks raised.  ``seat`` is the seat of the bot, ``message`` says what happened.

    It pickles (``args == (seat, message)``), so it crosses process boundaries intact.
    """

    def __init__(self, seat: int, message: str) -> None:
        super().__init__(seat, message)
        self.seat = seat
        self.message = message

    def __str__(self) -> str:
        return f"bot at seat {self.seat}: {self.message}"


class Bot:
    """Base class of every bot.  Subclasses override :meth:`choose`; the rest are optional
    hooks, called in this order by whoever drives the games::

        start_game(seat, variant, players, options)
          start_round(observation)          # each round: the seat's view at the deal
            observe(event)                  # every public event of the round, in order
            choose(observation, legal_moves)  # whenever it is this seat's turn
          end_round(result, observation)
        end_game(scores, winners)

    ``self.rng`` is a ``random.Random(seed)``: a bot that draws its randomness from it
    makes the same choices from the same seed and the same observations.  :meth:`reset`
    returns the bot to the state it had just after ``__init__`` (by default it forgets
    every attribute and runs ``__init__`` again with the same arguments).
    """

    #: The name the bot is registered under (its spec name, e.g. ``"greedy"``).
    name: ClassVar[str] = ""
    _init_args: tuple[tuple[Any, ...], dict[str, Any]]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        self = super().__new__(cls)
        # the constructor arguments, so that the default reset() can run __init__ again
        self._init_args = (args, dict(kwargs))
        return self

    def __init__(self, seed: int = 0, **options: Any) -> None:
        self.seed = seed
        self.options: dict[str, Any] = dict(options)
        self.rng = random.Random(seed)

    # -- the hooks ------------------------------------------------------------------------

    def start_game(self, seat: int, variant: str, players: int, options: dict[str, Any]) -> None:
        """A game starts: this bot plays ``seat`` of ``variant`` with ``players`` players;
        ``options`` are the game's option overrides."""

    def start_round(self, observation: Observation) -> None:
        """A round was dealt: ``observation`` is this seat's view of it."""

    def observe(self, event: Event) -> None:
        """A public event of the round (a play, a draw with its count, a pass), whoever
        made it, this bot's own moves included, in order."""

    def choose(self, observation: Observation, legal_moves: tuple[Move, ...]) -> Move:
        """Return one of ``legal_moves`` (never empty) for the position in ``observation``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement choose()")

    def end_round(self, result: RoundResult, observation: Observation) -> None:
        """The round is over: its ``result`` and this seat's final view."""

    def end_game(self, scores: tuple[int, ...], winners: tuple[int, ...]) -> None:
        """The game is over: final ``scores`` per side and the winning sides."""

    def reset(self) -> None:
        """Back to the state just after ``__init__`` (same seed).  The default forgets every
        attribute and runs ``__init__`` again with the arguments the bot was created with;
        override it if that is expensive (and reseed ``self.rng``)."""
        init = self.__dict__.get("_init_args") or ((), {"seed": self.seed, **self.options})
        self.__dict__.clear()
        self._init_args = init
        type(self).__init__(self, *init[0], **init[1])

    def __repr__(self) -> str:
        opts = "".join(f",{k}={show(v)}" for k, v in self.options.items())
        return f"<{type(self).__name__} {self.name or '?'}:seed={self.seed}{opts}>"


# ---------------------------------------------------------------------------------------
