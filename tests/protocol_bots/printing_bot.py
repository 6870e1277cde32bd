"""A bones bot served over the protocol that prints to stdout in every hook (Python's
print, sys.stdout.write and a C-level write to file descriptor 1): the server must keep
its frames clean.  It plays like greedy:seed=SEED.

    python printing_bot.py SEED
"""

import os
import sys

import bones
from bones.protocol.server import private_stdout, serve


class Printing(bones.Bot):
    name = "printing"

    def __init__(self, seed=0):
        super().__init__(seed)
        self.inner = bones.make_bot("greedy", seed=seed)
        print("printing bot: made")

    def start_game(self, seat, variant, players, options):
        print("start_game", seat, variant, players, options)

    def start_round(self, observation):
        sys.stdout.write(f"start_round {observation!r}\n")

    def observe(self, event):
        print("observe", event)
        os.write(1, b"\x00\x00\x00\x05hello from fd 1\n")

    def choose(self, observation, legal_moves):
        print("choose from", len(legal_moves), flush=True)
        os.write(1, b"\xff\xff\xff\xff")
        return self.inner.choose(observation, legal_moves)

    def end_round(self, result, observation):
        print("end_round", result)

    def end_game(self, scores, winners):
        print("end_game", scores, winners)


if __name__ == "__main__":
    frames = private_stdout()  # first: the bot's constructor prints too
    sys.exit(serve(Printing(int(sys.argv[1])), 0, frames))
