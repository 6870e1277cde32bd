"""The two built-in game families, registered through the same hook a third-party plugin
uses (docs/plugins.md, "Game families").

``line``: one line of tiles on the double-six set (Straight, Multiplayer, Kozel, Block,
Draw, Fives-and-Threes), played by ``bones.core.round``.  ``trains``: Mexican Train and
Chicken Foot on double-6, double-9 and double-12 sets, played by ``bones.core.trains``.
Each names its parts as strings: nothing here imports the core.
"""

from __future__ import annotations

from collections.abc import Callable

from ..family import Family
from ..variant import DOUBLE_SIX_BASES, TRAIN_BASES
from .hookspecs import hookimpl

__all__ = ["LINE", "TRAINS", "register_families"]

LINE = Family(
    name="line",
    description="one line of tiles on the double-six set, with ends, a spinner and a table",
    bases=DOUBLE_SIX_BASES,
    parts={
        "round": "bones.core.round:Round",
        "observation": "bones.core.observation:Observation",
        "move": "bones.core.moves:Move",
        "tile": "bones.core.tiles:Tile",
        "result": "bones.records:RoundResult",
        "deal": "bones.core.round:Round.deal",
        "from_deal": "bones.core.round:Round.from_deal",
        "is_round_bytes": "bones.core.line_games:is_round_bytes",
        "is_observation_bytes": "bones.core.line_games:is_observation_bytes",
        "fast_decode": "bones.protocol.server:decode_line_observation",
        "encoder": "bones.protocol.client:ObservationEncoder",
        "playouts": "bones.core.line_games:playouts",
        "expert": "bones.core.policy:choose",
        "montecarlo": "bones.core.search:choose",
        "pimc": "bones.core.search:pimc",
        "ismcts": "bones.core.ismcts:choose",
        "action_space": "bones.core.actions:ActionSpace",
        "tensor_spec": "bones.core.tensor:TensorSpec",
        "vector": "bones.envs.vector:line_vector",
        "openspiel": "bones.envs.openspiel:BonesGame",
        "svg": "bones.render.svg:line_svg_of",
        "replay_steps": "bones.render.replay:line_replay_steps",
        "terminal": "bones.render.play:LINE_TERMINAL",
    },
)

TRAINS = Family(
    name="trains",
    description="personal trains (or a chicken foot) from an engine double, double-6 to 12",
    bases=TRAIN_BASES,
    parts={
        "round": "bones.core.trains:TrainRound",
        "observation": "bones.core.observation:TrainObservation",
        "move": "bones.core.trains:TrainMove",
        "tile": "bones.core.wideset:SetTile",
        "result": "bones.trains_records:TrainResult",
        "deal": "bones.core.train_games:deal",
        "from_deal": "bones.core.train_games:from_deal",
        "is_round_bytes": "bones.core.train_games:is_round_bytes",
        "is_observation_bytes": "bones.core.train_games:is_observation_bytes",
        "playouts": "bones.core.train_games:playouts",
        "expert": "bones.core.trainpolicy:choose",
        "montecarlo": "bones.core.trainsearch:choose",
        "pimc": "bones.core.trainsearch:pimc",
        "ismcts": "bones.core.trainismcts:choose",
        "action_space": "bones.train_actions:TrainActionSpace",
        "tensor_spec": "bones.core.traintensor:TrainTensorSpec",
        "vector": "bones.envs.vector:train_vector",
        "svg": "bones.render.trains_svg:train_svg_of",
        "replay_steps": "bones.render.trains_replay:train_replay_steps",
        "terminal": "bones.render.play:TRAIN_TERMINAL",
    },
)


@hookimpl
def register_families(register: Callable[[Family], None]) -> None:
    """Register the line and train families."""
    register(LINE)
    register(TRAINS)
