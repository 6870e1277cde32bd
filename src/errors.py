"""Exceptions raised by bones; each is a ValueError so callers can catch bad input broadly."""


class BonesError(Exception):
    """Base class of every bones error."""


class IllegalMove(BonesError, ValueError):
    """A move that is not legal in the current position; the message lists the legal ones."""


class OptionError(BonesError, ValueError):
    """An unknown variant, an unknown option or a value outside the option's choices."""
