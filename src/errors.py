"""Exceptions raised by bones; each is a ValueError so callers can catch bad input broadly."""

import reprlib


class BonesError(Exception):
    """Base class of every bones error."""


class IllegalMove(BonesError, ValueError):
    """A move that is not legal in the current position; the message lists the legal ones."""


class OptionError(BonesError, ValueError):
    """An unknown variant, an unknown option or a value outside the option's choices."""


# brief lives here, below every other module, because error messages everywhere use it
# (bones.variant re-exports it).
_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlong = 40
for _attr in ("maxlist", "maxtuple", "maxdict", "maxset", "maxfrozenset"):
    setattr(_REPR, _attr, 8)


def brief(value: object) -> str:
    """``repr(value)`` cut to a bounded size and depth, for error messages about values
    that may come from untrusted bytes (a deep or huge value must not blow up a message)."""
    try:
        return _REPR.repr(value)
    except Exception:  # a hostile __repr__
        return f"<{type(value).__name__}>"
