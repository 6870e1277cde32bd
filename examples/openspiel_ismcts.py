"""OpenSpiel's ISMCTS playing a bones game against uniform random, on duplicate deals.

    pip install 'bones[openspiel]'
    python examples/openspiel_ismcts.py                       # block, 2 players
    python examples/openspiel_ismcts.py --game bones_straight --players 2 --deals 20

Each deal is played twice with the seats swapped (ISMCTS as seat 0, then as seat 1), so
the luck of the deal cancels.  ISMCTS determinizes with ``resample_from_infostate``, which
bones backs with its exact sampler of the hidden deal (docs/sampler.md).  Prints ISMCTS's
mean return per round with a 95% interval over the deals.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import bones.envs.openspiel  # noqa: F401  (registers bones_<variant>)


def deal(game: pyspiel.Game, rng: random.Random) -> list[int]:
    """The chance outcomes of one deal."""
    state, out = game.new_initial_state(), []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        action = outcomes[rng.randrange(len(outcomes))][0]
        out.append(action)
        state.apply_action(action)
    return out


def play(game, chance: list[int], bot, seat: int, rng: random.Random) -> float:
    """ISMCTS's return as ``seat`` on the deal ``chance``; the other seats play randomly."""
    state = game.new_initial_state()
    for action in chance:
        state.apply_action(action)
    bot.reset()
    while not state.is_terminal():
        if state.current_player() == seat:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state.returns()[seat]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="bones_block")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    game = pyspiel.load_game(args.game, {"players": args.players})
    rng = random.Random(args.seed)
    np_rng = np.random.RandomState(args.seed)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np_rng),
        uct_c=2.0,
        max_simulations=args.simulations,
        random_state=np_rng,
    )
    per_deal = []
    for _ in range(args.deals):
        chance = deal(game, rng)
        per_deal.append(statistics.mean(play(game, chance, bot, s, rng) for s in (0, 1)))
    mean = statistics.mean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / math.sqrt(len(per_deal)) if len(per_deal) > 1 else 0
    print(
        f"{game} ISMCTS({args.simulations} simulations) vs random, {args.deals} duplicate "
        f"deals: mean return {mean:+.2f} per round (95% interval {mean - half:+.2f} .. "
        f"{mean + half:+.2f})"
    )


if __name__ == "__main__":
    main()
