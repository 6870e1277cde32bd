"""Fixtures of the benchmark suite: ``python -m pytest bench/ --benchmark-only``.

Not part of the test suite (``testpaths = ["tests"]``).  Everything that needs something
optional skips with the reason: the built core (``bones.core``), the ``bench`` extra's peers
(``open-spiel``, ``dominoes``), the C reference ``../shared/bench/ref_block.c`` and gcc.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads  # noqa: E402

try:
    import pytest_benchmark  # noqa: F401
except ImportError:  # without the plugin every benchmark skips instead of erroring

    @pytest.fixture
    def benchmark():
        pytest.skip("pytest-benchmark is not installed; pip install 'bones[bench]'")

    def pytest_configure(config):
        config.addinivalue_line("markers", "benchmark(group): pytest-benchmark options")


def _need(reason: str | None) -> None:
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def ref_block(tmp_path_factory) -> workloads.RefBlock:
    """The C reference compiled (``gcc -O2``) into a temp dir."""
    # Path(__file__).parents[1].parent / "shared/bench/ref_block.c" unless BONES_REF_BLOCK
    source = workloads.REF_SOURCE
    if not source.is_file():
        pytest.skip(f"C reference not found at {source}")
    try:
        return workloads.RefBlock(tmp_path_factory.mktemp("ref_block"), source)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def core():
    """``bones.core.playout`` (skips until the core is built)."""
    _need(workloads.core_missing())
    import bones.core.playout

    return bones.core.playout


@pytest.fixture(scope="session")
def bones_api():
    """The public ``bones`` package with its built core."""
    _need(workloads.core_missing())
    import bones

    return bones


@pytest.fixture(scope="session")
def pyspiel():
    """``pyspiel`` with OpenSpiel's Python games registered (skips without open-spiel)."""
    _need(workloads.openspiel_missing())
    import pyspiel
    from open_spiel.python import games  # noqa: F401 - registers python_*_dominoes

    return pyspiel


@pytest.fixture(scope="session")
def dominoes_pkg():
    """abw333/dominoes (skips without it)."""
    _need(workloads.dominoes_missing())
    import dominoes

    return dominoes
