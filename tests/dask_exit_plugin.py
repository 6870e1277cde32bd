"""A bot that ends its own process (tests/test_match_dask.py): ``t-exit`` calls
``os._exit(3)`` on its first move when its seed is a multiple of 8, which kills the Dask
worker that runs the game; otherwise it plays the first legal move."""

from __future__ import annotations

import os

from bones.bot import Bot, BotSpec
from bones.plugins import hookimpl


class ExitBot(Bot):
    name = "t-exit"

    def choose(self, observation, legal_moves):
        if self.seed % 8 == 0:
            os._exit(3)
        return legal_moves[0]


@hookimpl
def register_bots(register):
    register(BotSpec("t-exit", ExitBot, "ends its process on its first move (seed % 8 == 0)"))
