"""A game family: the engine that plays a group of rule bases, as one registered object.

bones plays two families: ``line`` (one line of tiles on the double-six set: Straight,
Multiplayer, Kozel, Block, Draw, Fives-and-Threes) and ``trains`` (Mexican Train and
Chicken Foot on double-6, double-9 and double-12 sets).  Each is a :class:`Family`,
registered by a plugin through the ``register_families`` hook exactly as a third party
would register one of its own (docs/plugins.md, "Game families").  A variant names its
rule ``base``; the family that runs that base is the only thing that knows which round,
observation, move, sampler, search kernels, action space, tensors, records and pictures
go with it.  Every other module asks the family (``bones.registry.family_of``) instead of
asking which family it holds.

A family names its parts as ``"module:attribute"`` strings, imported on first use: the
registry must not import the compiled core (nor the drawing layer) to list what plugins
registered, and a family whose parts cannot be imported fails with an error that names
the family and the part, not at start-up.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import BonesError

__all__ = ["DEFAULT_PARTS", "PARTS", "REQUIRED_PARTS", "Family", "FamilyError"]

#: Every part a family may name, and what it is (docs/plugins.md lists the signatures).
PARTS: Mapping[str, str] = MappingProxyType(
    {
        "round": "the round class: deal, from_deal, from_msgpack, the bones.Round interface",
        "observation": "the observation class: from_msgpack, the bones.Observation interface",
        "move": "the move class: parse(text), the bones.Move interface",
        "tile": "the tile class: parse(text)",
        "deal": "deal(variant, players, seed, leader, lead_tile, scores, **options) -> round",
        "from_deal": "from_deal(variant, hands, stock, leader, lead_tile, scores, moves, seed, "
        "partial, **options) -> round (variant: a name or a Variant)",
        "result": "the RoundResult class of its rounds: (reason, winners, points, values, "
        "last_seat)",
        "is_round_bytes": "is_round_bytes(data) -> bool: whether msgpack bytes hold its round",
        "is_observation_bytes": "is_observation_bytes(data) -> bool: likewise an observation",
        "fast_decode": "fast_decode(data) -> observation: the protocol's bot side, trusting "
        "its runner (optional: from_msgpack otherwise)",
        "encoder": "encoder() -> an object whose encode(observation) gives (bytes, legal move "
        "texts) for the protocol's runner side (optional: to_msgpack otherwise)",
        "expert": "expert(observation, legal_moves, *, weights=None) -> move",
        "montecarlo": "montecarlo(observation, legal_moves, *, simulations, seed) -> (move, seed)",
        "pimc": "pimc(observation, legal_moves, *, samples, time_ms, policy, seed, threads, "
        "exact, weights, infer, gate) -> (move, seed, samples used)",
        "ismcts": "ismcts(observation, legal_moves, *, iterations, time_ms, policy, c, seed, "
        "threads, weights) -> (move, seed, iterations used)",
        "playouts": "playouts(variant, players, rounds, seed, options) -> {rounds, moves, "
        "blocked, seconds}: random playouts in its core (bones bench)",
        "action_space": "the ActionSpace class of its variants (learning agents)",
        "tensor_spec": "the TensorSpec class of its variants (observation tensors)",
        "vector": "vector(variant, players, n, seed, options) -> VectorParts: VectorEnv's core, "
        "action space, tensor spec, options and round_of(i) (bones.envs.vector)",
        "openspiel": "the bones.envs.openspiel game class that plays its variants (optional)",
        "svg": "svg(obj, **options) -> str: a round, observation or game as SVG",
        "terminal": "a bones.render.play.Terminal: the family in the terminal (bones play)",
        "replay_steps": "replay_steps(record) -> steps: a recorded game's replay",
    }
)

#: The parts a family may leave out and get a plain one for: text from the interface alone.
DEFAULT_PARTS: Mapping[str, str] = MappingProxyType(
    {"terminal": "bones.render.play:PLAIN_TERMINAL"}
)

#: What every family must name: a round that can be dealt, played and observed.
REQUIRED_PARTS = ("round", "observation", "move", "tile", "result", "deal", "from_deal")

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*\Z")


class FamilyError(BonesError):
    """A family lacks a part, or a part of it cannot be imported: the message names the
    family, the part and what went wrong."""


@dataclass(frozen=True)
class Family:
    """A game family.  ``name`` (lowercase, e.g. ``"trains"``), a one-line
    ``description``, the rule ``bases`` it runs (each variant's ``Variant.base`` is one of
    them, and no two families share one), its ``parts`` (part name -> ``"module:attr"``,
    :data:`PARTS`; at least :data:`REQUIRED_PARTS`) and the ``plugin`` that registered it
    (filled in by the registry).

    ``family.part("pimc")`` imports a part once and returns it (a part of
    :data:`DEFAULT_PARTS` it leaves out: the plain one); ``family.has("svg")`` says
    whether the family names one.
    """

    name: str
    description: str
    bases: tuple[str, ...]
    parts: Mapping[str, str] = field(hash=False, compare=False)
    plugin: str = ""
    _loaded: dict[str, Any] = field(
        default_factory=dict, init=False, repr=False, hash=False, compare=False
    )
    _lock: Any = field(
        default_factory=threading.Lock, init=False, repr=False, hash=False, compare=False
    )

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise TypeError(
                f"a family name is lowercase letters, digits and '_'; got {self.name!r}"
            )
        bases = self.bases
        if isinstance(bases, str) or not bases or not all(isinstance(b, str) for b in bases):
            raise TypeError(f"family {self.name!r}: bases must be a non-empty tuple of names")
        object.__setattr__(self, "bases", tuple(bases))
        if not isinstance(self.parts, Mapping):
            raise TypeError(
                f"family {self.name!r}: parts must be a mapping of part -> 'module:attr'"
            )
        for part, target in self.parts.items():
            if part not in PARTS:
                raise TypeError(
                    f"family {self.name!r}: unknown part {part!r}; parts are {', '.join(PARTS)}"
                )
            if not isinstance(target, str) or not _TARGET.match(target):
                raise TypeError(
                    f"family {self.name!r}: part {part!r} must be 'module:attribute'; "
                    f"got {target!r}"
                )
        missing = [p for p in REQUIRED_PARTS if p not in self.parts]
        if missing:
            raise TypeError(f"family {self.name!r}: missing part(s) {', '.join(missing)}")
        object.__setattr__(self, "parts", MappingProxyType(dict(self.parts)))

    def has(self, part: str) -> bool:
        """Whether the family names ``part``."""
        return part in self.parts

    def part(self, part: str) -> Any:
        """The object the family names as ``part``, imported on first use; FamilyError
        naming the family and the part if it names none or it cannot be imported."""
        found = self._loaded.get(part)
        if found is not None:
            return found
        target = self.parts.get(part) or DEFAULT_PARTS.get(part)
        if target is None:
            what = PARTS.get(part, "no such part")
            raise FamilyError(f"the {self.name} family has no {part!r} ({what})")
        module, _, path = target.partition(":")
        with self._lock:
            try:
                found = importlib.import_module(module)
                for attr in path.split("."):  # "Round.deal": an attribute of an attribute
                    found = getattr(found, attr)
            except Exception as exc:  # a plugin's broken part must say whose it is
                raise FamilyError(
                    f"the {self.name} family's {part!r} ({target}) cannot be loaded: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            self._loaded[part] = found
        return found

    def to_dict(self) -> dict[str, Any]:
        """The family as plain data (``bones plugins --json``)."""
        return {
            "name": self.name,
            "description": self.description,
            "bases": list(self.bases),
            "parts": dict(self.parts),
            "plugin": self.plugin,
        }
