"""Plugin support: ``hookimpl`` marks a plugin's hook implementations (see docs/plugins.md)."""

from .hookspecs import hookimpl

__all__ = ["hookimpl"]
