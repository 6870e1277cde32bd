"""Shared test fixtures (keep this file small)."""

from __future__ import annotations

import pytest


@pytest.fixture
def fresh_registry():
    """The variant registry, rebuilt from scratch before and after the test."""
    from bones import registry

    registry.reset()
    yield registry
    registry.reset()
