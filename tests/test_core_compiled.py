"""The tests run against the compiled Cython core: a pure-Python fallback must never pass
silently."""

from __future__ import annotations

import importlib
import importlib.machinery

import pytest

import bones

EXTENSION_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES) + (".so", ".pyd")


def test_round_is_the_compiled_extension():
    import bones.core.round

    assert bones.core.round.__file__.endswith(EXTENSION_SUFFIXES), bones.core.round.__file__
    assert type(bones.Round.deal("straight", players=2)) is bones.core.round.Round
    assert issubclass(bones.core.round.Round, bones.Round)  # the one face of every family


@pytest.mark.parametrize("name", ["tiles", "moves", "rules", "state", "round", "playout"])
def test_core_modules_are_compiled(name):
    module = importlib.import_module(f"bones.core.{name}")
    assert module.__file__.endswith(EXTENSION_SUFFIXES), module.__file__


def test_public_types_come_from_the_core():
    assert bones.Tile.__module__ == "bones.core.tiles"
    # the faces of every family; a line round's own classes come from the core
    assert bones.Move.__module__ == bones.Round.__module__ == "bones.api"
    assert type(bones.Round.deal("block")).__module__ == "bones.core.round"
    assert type(bones.Round.deal("block").legal_moves[0]).__module__ == "bones.core.moves"
