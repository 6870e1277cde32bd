"""Environments for learning agents (docs/envs.md): ``VectorEnv`` (n rounds stepped
together in the core), and the optional adapters ``bones.envs.pettingzoo`` and
``bones.envs.openspiel``.  Needs numpy: ``pip install bones[envs]``."""

from .vector import Step, VectorEnv

__all__ = ["Step", "VectorEnv"]
