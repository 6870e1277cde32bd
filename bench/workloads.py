"""Workloads shared by the pytest-benchmark suite (``bench/test_*.py``) and ``bench/compare.py``.

Every engine is driven with the same policy: each choice is uniform over the engine's legal
moves, drawn with ``random.Random.randrange(len(moves))``.  Every engine counts *moves* the
same way: tile placements only (the lead included; passes, draws and OpenSpiel's chance
actions of the deal excluded).

* C reference (``../shared/bench/ref_block.c``): its own count, ``moves++`` per placement.
* ``bones.core.playout.random_playouts``: ``"moves"`` counts placements.
* bones Python loop: ``len(r.layout)`` when the round is over.
* OpenSpiel (``python_block_dominoes`` / ``python_team_dominoes``): one player action per
  placement (a player who cannot place is skipped by the game, there is no pass action);
  the 14 / 28 chance actions of the deal are driven by the same ``rng`` but not counted.
* ``dominoes`` (abw333): ``len(game.board)``; ``game.moves`` also holds ``None`` for each pass.

The peers and the core are imported lazily, so this module imports without any of them.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REF_SOURCE = Path(
    os.environ.get("BONES_REF_BLOCK", REPO.parent / "shared" / "bench" / "ref_block.c")
)

#: OpenSpiel game names of the two peers.
OS_BLOCK = "python_block_dominoes"
OS_TEAM = "python_team_dominoes"

#: The clock of every in-process measurement: ``"cpu"`` (this process's CPU time, the
#: default: a shared machine's other processes then steal no time from the measurement) or
#: ``"wall"`` (``time.perf_counter``).  Set with ``use_clock``.
CLOCK = "cpu"
_CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def use_clock(name: str) -> None:
    global CLOCK
    if name not in _CLOCKS:
        raise ValueError(f"clock must be one of {sorted(_CLOCKS)}, not {name!r}")
    CLOCK = name


def now() -> float:
    """The current reading of the selected clock, in seconds."""
    return _CLOCKS[CLOCK]()


#: Mid-game position used by the serialisation benchmarks: a 2-player block round after this
#: many placements (of at most 14).
MIDGAME_PLACEMENTS = 7


# --------------------------------------------------------------------------------------------
# availability


def why_missing(module: str) -> str | None:
    """``None`` when ``module`` imports, else a one-line reason (for skip messages)."""
    try:
        __import__(module)
    except Exception as exc:  # ImportError, or a broken native extension
        return f"{module} not importable ({exc})"
    return None


def core_missing() -> str | None:
    """``None`` when the built bones core is importable."""
    reason = why_missing("bones.core.playout")
    if reason:
        return "bones core not built: " + reason
    try:
        import bones

        bones.Round  # noqa: B018 - the public API must be there too
    except Exception as exc:
        return f"bones.Round not available ({type(exc).__name__}: {exc})"
    return None


def openspiel_missing() -> str | None:
    reason = why_missing("pyspiel") or why_missing("open_spiel.python.games")
    return reason and reason + "; pip install 'bones[bench]'"


def dominoes_missing() -> str | None:
    reason = why_missing("dominoes")
    if reason is None:
        import dominoes

        if not hasattr(dominoes, "Game"):
            reason = "the installed 'dominoes' is not abw333/dominoes (no dominoes.Game)"
    return reason and reason + "; pip install 'bones[bench]'"


# --------------------------------------------------------------------------------------------
# results


@dataclass
class Run:
    """One measured sample: ``moves`` placements in ``rounds`` rounds took ``seconds``."""

    moves: int
    rounds: int
    seconds: float
    blocked: float | None = None  # fraction of rounds that ended blocked, where known

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds if self.seconds > 0 else float("nan")

    @property
    def moves_per_round(self) -> float:
        return self.moves / self.rounds if self.rounds else float("nan")


# --------------------------------------------------------------------------------------------
# the C reference


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


class RefBlock:
    """``ref_block.c`` compiled into ``workdir``: the executable as-is (``gcc -O2``), and a
    shared library exposing ``ref_play_rounds(n)`` (same ``play_round``) for fixed workloads."""

    def __init__(self, workdir: Path, source: Path = REF_SOURCE, cc: str | None = None):
        self.source = Path(source)
        self.cc = cc or os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
        if not self.source.is_file():
            raise FileNotFoundError(f"C reference not found: {self.source}")
        if not self.cc:
            raise FileNotFoundError("no C compiler (gcc/cc) on PATH")
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.exe = self.workdir / "ref_block"
        self._compile(["-O2", "-o", str(self.exe), str(self.source)])
        self._lib = None

    def _compile(self, args: list[str]) -> None:
        proc = subprocess.run([self.cc, *args], capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"compiling {self.source} failed:\n{proc.stderr}")

    def run(self, seconds: float = 1.0) -> Run:
        """One timed run of the executable (``./ref_block SECONDS 1``).  The time is the
        reference's own (wall) clock, or with ``CLOCK == "cpu"`` the child's CPU time (user +
        system from ``getrusage``; includes its start-up, about a millisecond)."""
        before = _children_cpu()
        out = subprocess.run(
            [str(self.exe), f"{seconds:g}", "1"], capture_output=True, text=True, check=True
        ).stdout
        cpu = _children_cpu() - before
        m = re.search(r"run 0: (\d+) rounds, (\d+) moves in ([\d.]+) s .* blocked ([\d.]+)", out)
        if not m:
            raise RuntimeError(f"unexpected ref_block output: {out!r}")
        secs = cpu if CLOCK == "cpu" else float(m[3])
        return Run(int(m[2]), int(m[1]), secs, float(m[4]))

    @property
    def lib(self):
        """ctypes handle; ``lib.ref_play_rounds(n)`` plays ``n`` rounds, returns placements."""
        if self._lib is None:
            import ctypes

            wrapper = self.workdir / "ref_block_lib.c"
            wrapper.write_text(
                "/* fixed-workload entry point around ref_block.c (its main is renamed) */\n"
                "#define main ref_block_main\n"
                f'#include "{self.source.resolve()}"\n'
                "#undef main\n"
                "static int ready = 0;\n"
                "static void init_tables(void) {  /* the table set-up of ref_block.c main */\n"
                "    int k = 0;\n"
                "    for (int a = 0; a < 7; a++)\n"
                "        for (int b = a; b < 7; b++) {\n"
                "            TA[k] = (uint8_t)a; TB[k] = (uint8_t)b; TPIPS[k] = (uint8_t)(a + b);\n"
                "            PIPMASK[a] |= 1u << k; PIPMASK[b] |= 1u << k;\n"
                "            k++;\n"
                "        }\n"
                "    ready = 1;\n"
                "}\n"
                "long long ref_play_rounds(long long n) {\n"
                "    long long points = 0, blocked = 0, moves = 0;\n"
                "    if (!ready) init_tables();\n"
                "    for (long long i = 0; i < n; i++) moves += play_round(&points, &blocked);\n"
                "    return moves;\n"
                "}\n"
            )
            so = self.workdir / "ref_block_lib.so"
            self._compile(["-O2", "-fPIC", "-shared", "-o", str(so), str(wrapper)])
            lib = ctypes.CDLL(str(so))
            lib.ref_play_rounds.argtypes = [ctypes.c_longlong]
            lib.ref_play_rounds.restype = ctypes.c_longlong
            self._lib = lib
        return self._lib


# --------------------------------------------------------------------------------------------
# the bones core


def core_playouts(variant: str, players: int, rounds: int, seed: int = 0, **options: object) -> Run:
    """``random_playouts`` timed from Python (the selected clock around the call)."""
    from bones.core.playout import random_playouts

    t0 = now()
    res = random_playouts(variant, players, rounds, seed, **options)
    dt = now() - t0
    return Run(int(res["moves"]), int(res["rounds"]), dt, res["blocked"] / max(res["rounds"], 1))


#: The train games measured beside the double-six playouts (compare.py, test_trains.py):
#: (key, variant, players) - each with its standard deal and the set's highest engine.
TRAIN_PLAYOUTS = (
    ("core_mexican4", "mexican-train", 4),  # double-12, 15 tiles each
    ("core_chicken4", "chicken-foot", 4),  # double-9, 7 tiles each
)


def train_playouts(variant: str, players: int, rounds: int, seed: int = 0, **options) -> Run:
    """``bones.core.trains.random_playouts`` of a train variant (its standard deal, the
    set's highest engine), timed from Python like ``core_playouts``; ``moves`` counts
    placements."""
    from bones.speed import playouts

    t0 = now()
    res = playouts(variant, players, rounds, seed, **options)
    dt = now() - t0
    return Run(int(res["moves"]), int(res["rounds"]), dt, res["blocked"] / max(res["rounds"], 1))


# --------------------------------------------------------------------------------------------
# Python-driven loops


def bones_loop(variant: str, players: int, rounds: int, seed: int = 0) -> int:
    """The bones Python loop for a fixed number of rounds (pytest-benchmark workloads).

    The same loop as ``bones.speed.python_loop`` (which runs for a time instead): deal
    ``Round.deal(variant, players=, seed=s)`` for ``s = seed, seed + 1, ...``, then
    ``legal_moves`` + ``play`` of a uniformly random one (``random.Random(seed)``) until the
    round is over.  Returns the number of placements (``len(r.layout)`` summed)."""
    import bones

    deal = bones.Round.deal
    randrange = random.Random(seed).randrange
    moves = 0
    for s in range(seed, seed + rounds):
        r = deal(variant, players=players, seed=s)
        while not r.is_over:
            legal = r.legal_moves
            r.play(legal[randrange(len(legal))])
        moves += len(r.layout)
    return moves


def bones_timed_loop(variant: str, players: int, budget: float, seed: int = 0) -> Run:
    """The bones Python loop for about ``budget`` seconds: ``bones.speed.python_loop`` when
    that helper exists, else ``bones_loop`` in chunks of 25 rounds."""
    try:
        from bones.speed import python_loop
    except ImportError:
        return timed_loop(lambda n, s: bones_loop(variant, players, n, s), budget, 25, seed)
    t0 = now()
    res = python_loop(variant, players, seconds=budget, seed=seed)
    dt = now() - t0  # = res["seconds"] (wall, its own) up to a few us, or the CPU time
    return Run(int(res["moves"]), int(res["rounds"]), dt)


def openspiel_loop(game_name: str, rounds: int, seed: int = 0) -> int:
    """OpenSpiel's Python game driven the same way: the deal by uniform chance outcomes,
    then ``legal_actions()`` + ``apply_action`` until terminal.  Returns placements."""
    import pyspiel
    from open_spiel.python import games  # noqa: F401 - registers the python_* games

    game = pyspiel.load_game(game_name)
    randrange = random.Random(seed).randrange
    moves = 0
    for _ in range(rounds):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[randrange(len(outcomes))][0])
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[randrange(len(actions))])
            moves += 1  # every player action is a placement
    return moves


def dominoes_loop(rounds: int, seed: int = 0) -> int:
    """abw333/dominoes (4 players): ``Game.new(starting_player=0)`` then random
    ``valid_moves`` until ``result``.  Returns placements (``len(game.board)``)."""
    import dominoes

    new = dominoes.Game.new
    randrange = random.Random(seed).randrange
    saved = random.getstate()
    random.seed(seed)  # Game.new shuffles with the global random module
    try:
        moves = 0
        for _ in range(rounds):
            g = new(starting_player=0)
            while g.result is None:
                valid = g.valid_moves
                g.make_move(*valid[randrange(len(valid))])
            moves += len(g.board)
    finally:
        random.setstate(saved)
    return moves


# The same loops with the deal left out of the time: each returns ``(placements, seconds
# of the play phase)``.  For information - the targets use the whole-round loops above.


def bones_play_phase(variant: str, players: int, rounds: int, seed: int = 0):
    import bones

    deal = bones.Round.deal
    randrange = random.Random(seed).randrange
    moves, secs = 0, 0.0
    for s in range(seed, seed + rounds):
        r = deal(variant, players=players, seed=s)
        t0 = now()
        while not r.is_over:
            legal = r.legal_moves
            r.play(legal[randrange(len(legal))])
        secs += now() - t0
        moves += len(r.layout)
    return moves, secs


def openspiel_play_phase(game_name: str, rounds: int, seed: int = 0):
    import pyspiel
    from open_spiel.python import games  # noqa: F401

    game = pyspiel.load_game(game_name)
    randrange = random.Random(seed).randrange
    moves, secs = 0, 0.0
    for _ in range(rounds):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[randrange(len(outcomes))][0])
        t0 = now()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[randrange(len(actions))])
            moves += 1
        secs += now() - t0
    return moves, secs


def dominoes_play_phase(rounds: int, seed: int = 0):
    import dominoes

    new = dominoes.Game.new
    randrange = random.Random(seed).randrange
    saved = random.getstate()
    random.seed(seed)
    moves, secs = 0, 0.0
    try:
        for _ in range(rounds):
            g = new(starting_player=0)
            t0 = now()
            while g.result is None:
                valid = g.valid_moves
                g.make_move(*valid[randrange(len(valid))])
            secs += now() - t0
            moves += len(g.board)
    finally:
        random.setstate(saved)
    return moves, secs


def timed_play_phase(play: Callable[[int, int], tuple], budget: float, chunk: int, seed=0) -> Run:
    """Call ``play(chunk, seed)`` until ``budget`` seconds of play phase have been timed."""
    moves = rounds = 0
    secs = 0.0
    while secs < budget:
        m, dt = play(chunk, seed + rounds)
        moves += m
        secs += dt
        rounds += chunk
    return Run(moves, rounds, secs)


def timed_loop(play: Callable[[int, int], int], budget: float, chunk: int, seed: int = 0) -> Run:
    """Call ``play(chunk, seed)`` with fresh seeds until ``budget`` seconds have passed."""
    moves = rounds = 0
    t0 = now()
    while True:
        moves += play(chunk, seed + rounds)
        rounds += chunk
        dt = now() - t0
        if dt >= budget:
            return Run(moves, rounds, dt)


# --------------------------------------------------------------------------------------------
# mid-game positions for the serialisation benchmarks


def bones_midgame(placements: int = MIDGAME_PLACEMENTS, seed: int = 1):
    """A 2-player block ``Round`` after ``placements`` random placements, not over.

    Returns ``(round, deal_seed, moves)``: the first deal seed from ``seed`` on whose random
    game lasts that long, and the moves played (to mirror the position in OpenSpiel)."""
    import bones

    for s in range(seed, seed + 1000):
        rng = random.Random(s)
        r = bones.Round.deal("block", players=2, seed=s)
        while not r.is_over and len(r.layout) < placements:
            legal = r.legal_moves
            r.play(legal[rng.randrange(len(legal))])
        if not r.is_over and len(r.layout) == placements:
            return r, s, list(r.moves)
    raise RuntimeError("no deal reached the mid-game")


def openspiel_mirror(deal_seed: int, moves: list):
    """The OpenSpiel ``python_block_dominoes`` state of the same position as
    ``bones_midgame``: same hands (dealt through the chance actions), same placements."""
    import pyspiel
    from open_spiel.python.games import block_dominoes as bd

    import bones

    game = pyspiel.load_game(OS_BLOCK)
    state = game.new_initial_state()
    r = bones.Round.deal("block", players=2, seed=deal_seed)
    for seat in (0, 1):  # OpenSpiel deals 7 tiles to player 0, then 7 to player 1
        for tile in r.hand(seat):
            state.apply_action(bd._DECK.index((float(tile.low), float(tile.high))))
    for move in moves:
        player = r.to_move
        edge = None if not r.layout else float(dict(r.ends)[move.end])
        tile = (float(move.tile.low), float(move.tile.high))
        wanted = [
            a
            for a in state.legal_actions()
            if bd._ACTIONS[a].tile == tile and bd._ACTIONS[a].edge == edge
        ]
        if state.current_player() != player or len(wanted) != 1:
            raise RuntimeError(f"cannot mirror {move} in OpenSpiel: {state}")
        state.apply_action(wanted[0])
        r.play(move)
    return game, state


def openspiel_midgame(placements: int = MIDGAME_PLACEMENTS, seed: int = 1):
    """An OpenSpiel block state after ``placements`` random placements (no bones needed)."""
    import pyspiel
    from open_spiel.python import games  # noqa: F401

    game = pyspiel.load_game(OS_BLOCK)
    for s in range(seed, seed + 1000):
        rng = random.Random(s)
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        n = 0
        while not state.is_terminal() and n < placements:
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            n += 1
        if not state.is_terminal() and n == placements:
            return game, state
    raise RuntimeError("no deal reached the mid-game")


#: bench/versions.py's core playout workloads: (key, variant, players, options).  The
#: multiplayer default is unbounded before the bounded table and bounded since.
VERSION_PLAYOUTS = (
    ("core_block2", "block", 2, {}),
    ("core_straight4", "straight", 4, {}),
    ("core_multi2", "multiplayer", 2, {"geometry": "unbounded"}),
    ("core_multi2_default", "multiplayer", 2, {}),
)


def search_choice(simulations: int = 2000) -> Callable[[], object]:
    """One Monte Carlo choice (``bones.core.search.choose``) for the seat to move of a
    2-player straight round after 5 random moves, as a zero-argument callable."""
    import bones
    from bones.core.search import choose

    for s in range(1, 1000):
        rng = random.Random(s)
        r = bones.Round.deal("straight", players=2, seed=s)
        for _ in range(5):
            if r.is_over:
                break
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
        if not r.is_over and len(r.legal_moves) > 1:
            obs = r.observation(r.to_move)
            legal = tuple(r.legal_moves)
            return lambda: choose(obs, legal, simulations=simulations, seed=1)
    raise RuntimeError("no position with a choice")


def bones_roundtrip(r) -> Callable[[], object]:
    """``Round.from_msgpack(r.to_msgpack())`` as a zero-argument callable."""
    from_msgpack = type(r).from_msgpack
    to_msgpack = r.to_msgpack
    return lambda: from_msgpack(to_msgpack())


def openspiel_roundtrip(game, state) -> Callable[[], object]:
    """``game.deserialize_state(state.serialize())``: the state-only round trip (the game
    object is known on both sides, as for bones' ``Round.from_msgpack``)."""
    deserialize = game.deserialize_state
    serialize = state.serialize
    return lambda: deserialize(serialize())


def openspiel_roundtrip_with_game(game, state) -> Callable[[], object]:
    """``pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(...))``: also
    re-loads the game from its text (reported for information only)."""
    import pyspiel

    ser, de = pyspiel.serialize_game_and_state, pyspiel.deserialize_game_and_state
    return lambda: de(ser(game, state))


def time_per_call(fn: Callable[[], object], budget: float) -> float:
    """Seconds per call of ``fn``: the median over batches of >= 10 ms each, for about
    ``budget`` seconds (the median resists the other processes of a shared machine)."""
    fn()  # warm
    batch = 1
    while True:  # calibrate a batch of >= 10 ms
        t0 = now()
        for _ in range(batch):
            fn()
        dt = now() - t0
        if dt >= 0.01:
            break
        batch *= 2
    per_call = [dt / batch]
    start = now()
    while now() - start < budget or len(per_call) < 5:
        t0 = now()
        for _ in range(batch):
            fn()
        per_call.append((now() - t0) / batch)
    return statistics.median(per_call)


def record_moves(benchmark, moves: int) -> None:
    """pytest-benchmark: store placements per run and per second (median run) in extra_info."""
    benchmark.extra_info["moves"] = moves
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        median = stats.stats.median
        benchmark.extra_info["moves_per_s"] = round(moves / median) if median else None
