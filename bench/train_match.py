"""The train games' speeds side by side in one run, CPU time: the match path
(``bones match random random``, in process, one job), the public API loop and the core.

    python bench/train_match.py                          # Mexican Train 4p and Chicken Foot 4p
    python bench/train_match.py --games 40 --repeats 5
    python bench/train_match.py --variant mexican-train --players 8

* ``match``: the games of ``bones match random random --variant V --players P --games N``
  played as its worker plays them (``play_games`` on the match's tasks, every hook watched
  and timed, the journal lines made; ``bench/runner_cost.py``'s runner).
* ``api``: the bare public API loop over the same games (issue 33's "API loop": the
  match's games, each ``new_game(V, P, seed, **options)`` with the match's seed, every
  round played by ``play`` of ``rng.choice(round.legal_moves)`` and the next one dealt by
  ``next_round``): the same deals, the same rounds (engines 12-12 down to 0-0) and the
  game's own bookkeeping, which a match cannot do without either.
* ``deal_loop``: as many rounds of ``Round.deal(V, players=P, seed=s)`` (each a first
  round, engine 12-12 or 9-9), each played as in ``api``: the loop this benchmark used
  before, without the game; kept as a stricter figure (``match_over_deal_loop``).
* ``core``: ``bones.core.trains.random_playouts`` of the variant's standard deal.

The workloads alternate ``--repeats`` times and each figure is the fastest repeat (the one
the machine's other load disturbed least); ``match_over_api`` is match / api of those, and
``match_over_api_per_repeat`` the range of that ratio within each repeat's pair.  The cost of
one ``TrainRound.observation`` is also timed at the deal and late in a round (after 60
placements in Mexican Train, 30 in Chicken Foot; issue 33: it no longer grows with the log),
and the parts of one decision alone (``decision_parts_us``).
"""

from __future__ import annotations

import argparse
import json
import random
import time
import timeit

from runner_cost import _as_worker, _tasks, runner


def match_rounds(tasks: list[dict]) -> tuple[int, float]:
    """(rounds, CPU seconds) of the games of ``tasks`` played as a worker of ``bones
    match`` plays them (``bench/runner_cost.py``'s runner)."""
    _moves, rounds, seconds = runner(tasks)
    return rounds, seconds


def api_rounds(tasks: list[dict]) -> tuple[int, float]:
    """(rounds, CPU seconds) of the bare public API loop over the games of ``tasks``."""
    import bones

    games = [(t["variant"], int(t["players"]), int(t["seed"]), dict(t["options"])) for t in tasks]
    new_game = bones.new_game
    choice = random.Random(0).choice
    rounds = 0
    t0 = time.process_time()
    for variant, players, seed, options in games:
        game = new_game(variant, players, seed, **options)
        r = game.round
        while r is not None:
            while not r.is_over:
                r.play(choice(r.legal_moves))
            rounds += 1
            r = game.next_round()
    return rounds, time.process_time() - t0


def deal_rounds(variant: str, players: int, rounds: int) -> tuple[int, float]:
    """(rounds, CPU seconds) of ``rounds`` first rounds dealt by ``Round.deal``, played as
    the API loop plays them."""
    import bones

    deal = bones.Round.deal
    choice = random.Random(0).choice
    t0 = time.process_time()
    for s in range(rounds):
        r = deal(variant, players=players, seed=s)
        while not r.is_over:
            r.play(choice(r.legal_moves))
    return rounds, time.process_time() - t0


def core_rounds(variant: str, players: int, rounds: int) -> tuple[int, float]:
    """(rounds, CPU seconds) of the core's random playouts of the variant's standard deal."""
    import bones
    from bones.core.train_games import core_arguments
    from bones.core.trains import random_playouts

    args = core_arguments(bones.variant(variant), players, {})
    del args["variant"]
    layout, set_max, size = args.pop("layout"), args.pop("set_max"), args.pop("hand_size")
    t0 = time.process_time()
    random_playouts(layout, set_max, players, size, rounds, seed=1, **args)
    return rounds, time.process_time() - t0


def observation_us(variant: str, players: int, placements: int) -> float:
    """Microseconds of one ``observation(seat)`` after ``placements`` random placements
    (the first deal from seed 0 that lasts that long)."""
    import bones

    for seed in range(1000):
        r = bones.Round.deal(variant, players=players, seed=seed)
        rng = random.Random(seed)
        while not r.is_over and len(r.moves) < placements:
            r.play(rng.choice(r.legal_moves))
        if not r.is_over:
            seat = r.to_move
            n = 20000
            make = r.observation
            best = min(timeit.repeat(lambda: make(seat), number=n, repeat=5))  # noqa: B023
            return best / n * 1e6
    raise RuntimeError(f"no deal of {variant} lasts {placements} placements")


def parts_us(variant: str, players: int, placements: int) -> dict[str, float]:
    """Microseconds of each part of one decision of the match path, timed alone on one
    position after ``placements`` random placements: the observation, a random bot's
    ``choose`` bare and through the match's guard (timed, watched), ``play`` + ``undo``,
    and the bare loop's ``rng.choice``."""
    import bones
    from bones.core.referee import Guard
    from bones.plugins.builtin_bots import RandomBot

    r = bones.Round.deal(variant, players=players, seed=1)
    rng = random.Random(1)
    while not r.is_over and len(r.moves) < placements:
        r.play(rng.choice(r.legal_moves))
    seat = r.to_move
    obs = r.observation(seat)
    legal = obs.legal_moves
    bot = RandomBot(0)
    guard = Guard(bot, seat, "random", 10.0, False)
    move = legal[0]

    def play_undo() -> None:
        r.play(move)
        r.undo()

    calls = {
        "observation": lambda: r.observation(seat),
        "bot_choose": lambda: bot.choose(obs, legal),
        "guarded_choose": lambda: guard.choose(obs, legal),
        "play_undo": play_undo,
        "rng_choice": lambda: rng.choice(legal),
    }
    n = 20000
    return {
        name: round(min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6, 3)
        for name, call in calls.items()
    }


def measure(variant: str, players: int, games: int, repeats: int) -> dict:
    import bones

    _as_worker()
    tasks = _tasks(variant, players, games)
    match_rounds(tasks[:2])  # imports and first calls out of the way
    api_rounds(tasks[:2])

    late = 60 if bones.variant(variant).base == "trains" else 30  # Chicken Foot: shorter rounds
    best: dict[str, float] = {}
    counts: dict[str, int] = {}
    ratios, deal_ratios = [], []
    for _ in range(repeats):
        rounds, dt = match_rounds(tasks)
        rates = {}
        for name, (n, t) in (
            ("match", (rounds, dt)),
            ("api", api_rounds(tasks)),
            ("deal_loop", deal_rounds(variant, players, rounds)),
            ("core", core_rounds(variant, players, max(rounds, 2000))),
        ):
            rates[name] = n / t
            best[name] = max(best.get(name, 0.0), rates[name])
            counts[name] = n
        ratios.append(rates["match"] / rates["api"])
        deal_ratios.append(rates["match"] / rates["deal_loop"])
    return {
        "workload": f"{variant} {players}p, random bots, {games} games",
        "rounds_per_repeat": counts,
        "match_rounds_per_cpu_s": round(best["match"]),
        "api_rounds_per_cpu_s": round(best["api"]),
        "deal_loop_rounds_per_cpu_s": round(best["deal_loop"]),
        "core_rounds_per_cpu_s": round(best["core"]),
        "match_over_api": round(best["match"] / best["api"], 3),
        "match_over_api_per_repeat": [round(min(ratios), 3), round(max(ratios), 3)],
        "match_over_deal_loop": round(best["match"] / best["deal_loop"], 3),
        "match_over_deal_loop_per_repeat": [round(min(deal_ratios), 3), round(max(deal_ratios), 3)],
        "observation_us_at_deal": round(observation_us(variant, players, 0), 3),
        f"observation_us_after_{late}": round(observation_us(variant, players, late), 3),
        "decision_parts_us": parts_us(variant, players, late // 2),
        "repeats": repeats,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", help="default: mexican-train, chicken-foot")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    for variant in args.variant or ["mexican-train", "chicken-foot"]:
        res = measure(variant, args.players, args.games, args.repeats)
        print(json.dumps(res, indent=2), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
