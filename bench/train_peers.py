"""Mexican Train 4 players beside the public pure-Python peers (issue 33), CPU time, in one run.

    python bench/train_peers.py --simulator PATH --bot-challenge PATH
    python bench/train_peers.py --simulator PATH --rounds 2600 --repeats 9

Each PATH is a checkout of a peer, which stays out of this repository:

* ``--simulator``: cudabu/mexican-train-simulator, a pure-Python Mexican Train simulator,
  at 03babd5f697a4310e3ba0de96683b60658a08431 (2026-04-14)::

      git clone https://github.com/cudabu/mexican-train-simulator
      git -C mexican-train-simulator checkout 03babd5f697a4310e3ba0de96683b60658a08431

* ``--bot-challenge``: dcrescim/mexican-train, the "Mexican Train Bot Challenge" engine,
  at 20090c3fbe020f4c453787e8a98ee53e261f0413 (2024-01-02)::

      git clone https://github.com/dcrescim/mexican-train
      git -C mexican-train checkout 20090c3fbe020f4c453787e8a98ee53e261f0413

Four workloads of the same number of rounds (``--rounds``, rounded up to the whole 13-round
games the match plays), 4 players, double-12, 15 tiles each, random legal moves:

* ``match``: the games of ``bones match random random --variant mexican-train --players 4``
  played as its worker plays them (``bench/train_match.py``'s ``match_rounds``);
* ``api``: bones' public API loop over the same games (``train_match.api_rounds``);
* ``simulator``: the simulator's own ``Game.play_game`` with its ``RandomStrategy`` in
  every seat (13 rounds a game, engines 12-12 down to 0-0).  Its deal for 4 players on
  double-12 is 12 tiles; the adapter sets its ``HAND_SIZES`` table to 15 for this run.
  Its rules differ from bones' in a few places: seat 0 leads every round; a player who
  places a double does not move again (the next player must satisfy it, on any train
  showing that number); a round also ends when all 4 players pass in a row, even with
  tiles left in the stock (a player draws one tile before passing);
* ``bot_challenge``: the engine's own ``MexicanTrain.play`` with its ``RandomPlayerAgent``
  in every seat, one seed per round.  A game there is a single round, whose engine is
  the highest double in any hand (played out of that hand, so its owner starts with 14
  tiles), not 12-12 down to 0-0.  On the first turn the random agent places one tile and
  may not end on a double; a player who places a double and holds a tile that satisfies
  it places both; a player who can place after drawing places again in the same turn; at
  most one Mexican train; a round in which nobody can place stops after 1000 turns.  Its
  rounds differ a little from one process to the next, even with the same seeds: its
  choices pass through a ``set`` of tuples holding strings and ``None``, whose hashes
  change between processes (on Python 3.11 ``hash(None)`` is None's address); within one
  process the same seeds replay the same rounds.

The workloads alternate ``--repeats`` times (the order rotates every repeat), each timed
by ``time.process_time``; the report gives rounds per CPU second of each (median and
min..max over the repeats) and the ratios of bones' two loops to each peer, taken within
each repeat (median and min..max).  Each peer's moves come from its own legal-move
generator and its own random player, and its own code refuses a tile that does not fit
(the simulator's ``Train.play``, the engine's ``check_valid_move``).  Before timing,
every peer plays the rounds it is timed on (same seeds, same calls) with checks after each
round, untimed: the tiles are conserved (hands + stock + trains + engine = 91, no tile
twice), every train is a chain from the engine, and the round ended as its rules end one
(one hand emptied, or a block: for the Bot Challenge engine, an empty stock and no
placement left to anyone).  The report gives, per program, the rounds, the rounds won and
blocked (blocked with tiles left in the stock: the simulator's 4 passes in a row), and the
tiles placed per round, which say how long each program's rounds are; bones' come from the
API loop's rounds (``api``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner_cost import _as_worker, _tasks
from train_match import api_rounds, match_rounds

VARIANT, PLAYERS, ROUNDS_PER_GAME, TILES = "mexican-train", 4, 13, 91
HAND_SIZE = 15


@dataclass
class Peer:
    name: str
    repo: str
    commit: str
    marker: str  # a file every checkout of the peer holds, relative to its root
    modules: tuple[str, ...]  # the top-level modules it is imported as


SIMULATOR = Peer(
    "simulator",
    "cudabu/mexican-train-simulator",
    "03babd5f697a4310e3ba0de96683b60658a08431",
    "game.py",
    ("game", "player", "train", "domino", "boneyard", "strategies"),
)
BOT_CHALLENGE = Peer(
    "bot_challenge",
    "dcrescim/mexican-train",
    "20090c3fbe020f4c453787e8a98ee53e261f0413",
    os.path.join("mexican_train", "mexican_train.py"),
    ("mexican_train",),
)


def load(peer: Peer, path: str) -> str:
    """Put the checkout at ``path`` on the import path, checking it is ``peer``'s; returns
    its commit (or ``"unknown"`` without git) for the report."""
    how = f"git clone https://github.com/{peer.repo} DIR && git -C DIR checkout {peer.commit}"
    if not os.path.isdir(path):
        raise SystemExit(f"--{peer.name.replace('_', '-')} {path!r}: no such directory ({how})")
    root = os.path.abspath(path)
    if not os.path.isfile(os.path.join(root, peer.marker)):
        raise SystemExit(
            f"--{peer.name.replace('_', '-')} {path!r} is not a checkout of {peer.repo}: "
            f"it has no {peer.marker} ({how})"
        )
    for name in peer.modules:
        if name in sys.modules:
            raise SystemExit(f"a module {name!r} is already imported; {peer.repo} cannot be")
    sys.path.insert(0, root)
    for name in peer.modules:
        module = importlib.import_module(name)
        where = os.path.abspath(getattr(module, "__file__", "") or "")
        if not where.startswith(root + os.sep):
            raise SystemExit(f"{name!r} was imported from {where}, not from {root}")
    try:
        commit = subprocess.run(
            ["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    if commit != peer.commit:
        print(f"note: {peer.repo} at {commit}, measured at {peer.commit}", file=sys.stderr)
    return commit


def _chain(engine: int, tiles: list[tuple[int, int]]) -> bool:
    """Whether ``tiles`` (each as (near, far) or unordered) is a chain from ``engine``."""
    end = engine
    for a, b in tiles:
        if a == end:
            end = b
        elif b == end:
            end = a
        else:
            return False
    return True


class Counts:
    """What the checking pass found: rounds, rounds won, rounds blocked (and of those, how
    many with tiles left in the stock), tiles placed."""

    def __init__(self) -> None:
        self.rounds = self.won = self.blocked = self.stock_left = self.placed = 0

    def add(self, won: bool, placed: int, stock: int) -> None:
        self.rounds += 1
        self.won += won
        self.blocked += not won
        self.stock_left += not won and stock > 0
        self.placed += placed

    def report(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "won": self.won,
            "blocked": self.blocked,
            "blocked_with_stock_left": self.stock_left,
            "tiles_placed_per_round": round(self.placed / self.rounds, 1),
        }


def _tiles_conserved(pieces: list[tuple[int, int]], what: str) -> None:
    tiles = [(min(t), max(t)) for t in pieces]
    if len(tiles) != TILES or len(set(tiles)) != TILES:
        raise AssertionError(f"{what}: {len(tiles)} tiles, {len(set(tiles))} distinct")


# The simulator -------------------------------------------------------------------------


def simulator_players() -> tuple[list, Callable[[], Any]]:
    """The simulator's random players, one a seat, and a maker of its games."""
    game_module = importlib.import_module("game")
    player_module = importlib.import_module("player")
    strategies = importlib.import_module("strategies")
    game_module.HAND_SIZES[12][PLAYERS] = HAND_SIZE  # issue 33's deal, not the peer's 12

    def make() -> Any:
        players = [player_module.Player(i, [], engine_pip=12) for i in range(PLAYERS)]
        return game_module.Game(players, max_pip=12)

    seats = [strategies.RandomStrategy() for _ in range(PLAYERS)]
    return seats, make


def simulator_rounds(games: int) -> tuple[int, float]:
    """(rounds, CPU seconds) of ``games`` games of the simulator's own ``play_game``."""
    seats, make = simulator_players()
    random.seed(1)  # the peer deals and chooses with the global generator
    t0 = time.process_time()
    for _ in range(games):
        make().play_game(seats)
    return games * ROUNDS_PER_GAME, time.process_time() - t0


def simulator_check(games: int) -> dict[str, Any]:
    """The rounds of ``simulator_rounds`` played as ``play_game`` plays them (its body:
    ``setup_round``, ``play_round``, ``end_round`` for each engine), each checked."""
    seats, make = simulator_players()
    random.seed(1)
    counts = Counts()
    for g in range(games):
        game = make()
        for engine in range(game.max_pip, -1, -1):
            game.setup_round(engine)
            winner = game.play_round(seats)
            what = f"simulator game {g} engine {engine}"
            trains = [p.train for p in game.players] + [game.mexican_train]
            placed = [(t.high, t.low) for tr in trains for t in tr.tiles]
            hands = [(t.high, t.low) for p in game.players for t in p.hand]
            stock = [(t.high, t.low) for t in game.boneyard.tiles]
            _tiles_conserved(placed + hands + stock + [(engine, engine)], what)
            for tr in trains:
                if not _chain(engine, [(t.high, t.low) for t in tr.tiles]):
                    raise AssertionError(f"{what}: {tr} is not a chain from {engine}")
            if winner is not None and game.players[winner].hand:
                raise AssertionError(f"{what}: the winner {winner} still holds tiles")
            if winner is None and any(not p.hand for p in game.players):
                raise AssertionError(f"{what}: blocked with an empty hand")
            counts.add(winner is not None, len(placed), len(stock))
            game.end_round()
    return counts.report()


# The Bot Challenge engine -------------------------------------------------------------


def bot_challenge_parts() -> tuple[Any, Any]:
    game_module = importlib.import_module("mexican_train.mexican_train")
    agents = importlib.import_module("mexican_train.RandomPlayerAgent")
    return game_module.MexicanTrain, agents.RandomPlayerAgent


def _bot_challenge_round(game_class: Any, agent_class: Any, seed: int) -> tuple[Any, Any]:
    game = game_class(random_seed=seed)
    for i in range(PLAYERS):
        game.add_player(agent_class(name=f"seat{i}"))  # its trains are named after players
    return game, game.play()


def bot_challenge_rounds(rounds: int) -> tuple[int, float]:
    """(rounds, CPU seconds) of ``rounds`` games (one round each) of the engine's own
    ``MexicanTrain.play``, seeds 0..rounds-1."""
    game_class, agent_class = bot_challenge_parts()
    t0 = time.process_time()
    for seed in range(rounds):
        _bot_challenge_round(game_class, agent_class, seed)
    return rounds, time.process_time() - t0


def bot_challenge_check(rounds: int) -> dict[str, Any]:
    """The rounds of ``bot_challenge_rounds``, each checked once it is over."""
    game_class, agent_class = bot_challenge_parts()
    counts = Counts()
    for seed in range(rounds):
        game, result = _bot_challenge_round(game_class, agent_class, seed)
        what = f"bot challenge seed {seed}"
        engine = game.board.engine
        placed = [t for tr in game.board.trains for t in tr.dominoes]
        hands = [t for p in game.players for t in p.dominoes]
        _tiles_conserved(placed + hands + list(game.dominoes) + [engine], what)
        for tr in game.board.trains:
            if not _chain(engine[1], tr.dominoes) or tr.dominoes[0][0] != engine[1]:
                raise AssertionError(f"{what}: {tr} is not a chain from {engine}")
        if result is None:
            # its only other ending: 1000 turns; a real block leaves nobody a placement
            if game.dominoes or any(game.board.get_choices(p) for p in game.players):
                raise AssertionError(f"{what}: stopped at 1000 turns with a placement left")
        elif result[0][1] != 0 or sum(len(p.dominoes) == 0 for p in game.players) != 1:
            raise AssertionError(f"{what}: won ({result}) but not by exactly one empty hand")
        won = result is not None
        counts.add(won, len(placed), len(game.dominoes))
    return counts.report()


# bones --------------------------------------------------------------------------------


def bones_placed(tasks: list[dict]) -> dict[str, Any]:
    """Rounds, rounds won and tiles placed per round of the API loop over ``tasks``."""
    import bones

    counts = Counts()
    choice = random.Random(0).choice
    for t in tasks:
        game = bones.new_game(t["variant"], int(t["players"]), int(t["seed"]), **t["options"])
        r = game.round
        while r is not None:
            while not r.is_over:
                r.play(choice(r.legal_moves))
            counts.add(any(n == 0 for n in r.hand_sizes), len(r.moves), r.stock_size)
            r = game.next_round()
    return counts.report()


# The run ------------------------------------------------------------------------------


def _spread(values: list[float], digits: int) -> dict[str, Any]:
    return {
        "median": round(statistics.median(values), digits),
        "range": [round(min(values), digits), round(max(values), digits)],
    }


PEERS = {peer.name: peer for peer in (SIMULATOR, BOT_CHALLENGE)}


def measure(paths: dict[str, str], rounds: int, repeats: int) -> dict[str, Any]:
    commits = {PEERS[name].repo: load(PEERS[name], path) for name, path in paths.items()}
    _as_worker()
    tasks = _tasks(VARIANT, PLAYERS, math.ceil(rounds / ROUNDS_PER_GAME))
    games = len(tasks)  # a match plays whole sets of its seatings (2 games for 1 asked)
    workloads: dict[str, Callable[[], tuple[int, float]]] = {
        "match": lambda: match_rounds(tasks),
        "api": lambda: api_rounds(tasks),
    }
    checks = {"api": bones_placed(tasks)}
    if "simulator" in paths:
        checks["simulator"] = simulator_check(games)
        workloads["simulator"] = lambda: simulator_rounds(games)
    if "bot_challenge" in paths:
        checks["bot_challenge"] = bot_challenge_check(games * ROUNDS_PER_GAME)
        workloads["bot_challenge"] = lambda: bot_challenge_rounds(games * ROUNDS_PER_GAME)
    match_rounds(tasks[:2])  # imports and first calls out of the way
    api_rounds(tasks[:2])

    names = list(workloads)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(repeats):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            n, seconds = workloads[name]()
            if n != games * ROUNDS_PER_GAME:
                raise AssertionError(f"{name} played {n} rounds, not {games * ROUNDS_PER_GAME}")
            rates[name].append(n / seconds)
    peers = [name for name in names if name not in ("match", "api")]
    ratios = {
        f"{ours}_over_{peer}": _spread(
            [a / b for a, b in zip(rates[ours], rates[peer], strict=True)], 2
        )
        for ours in ("match", "api")
        for peer in peers
    }
    ratios["match_over_api"] = _spread(
        [a / b for a, b in zip(rates["match"], rates["api"], strict=True)], 3
    )
    return {
        "workload": f"{VARIANT} {PLAYERS}p, double-12, {HAND_SIZE} tiles, random legal moves",
        "rounds_per_repeat": games * ROUNDS_PER_GAME,
        "repeats": repeats,
        "peer_commits": commits,
        "checked": checks,
        "rounds_per_cpu_s": {name: _spread(rates[name], 0) for name in names},
        "ratios": ratios,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulator", metavar="PATH", help="checkout of " + SIMULATOR.repo)
    parser.add_argument("--bot-challenge", metavar="PATH", help="checkout of " + BOT_CHALLENGE.repo)
    parser.add_argument("--rounds", type=int, default=1300, help="rounds per workload and repeat")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    paths = {
        name: path
        for name, path in (("simulator", args.simulator), ("bot_challenge", args.bot_challenge))
        if path is not None
    }
    if not paths:
        parser.error("give at least one peer checkout: --simulator PATH, --bot-challenge PATH")
    if args.rounds < 1 or args.repeats < 1:
        parser.error("--rounds and --repeats must be at least 1")
    print(json.dumps(measure(paths, args.rounds, args.repeats), indent=2), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
