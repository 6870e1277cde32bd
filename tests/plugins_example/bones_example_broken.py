"""A plugin whose import fails: bones must report it and carry on without it."""

raise ImportError("bones_example_broken needs a package that is not installed")
