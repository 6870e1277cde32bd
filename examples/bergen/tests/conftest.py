"""Make Bergen available: installed (``pip install ./examples/bergen``) it comes through
its entry point; from a source checkout the plugin module is registered directly, as
``bones --plugin bones_bergen`` does."""

from __future__ import annotations

import sys
from pathlib import Path

import bones
from bones.plugins.manager import register_modules

if "bergen" not in bones.variants():
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    register_modules(["bones_bergen"])
