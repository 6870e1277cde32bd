"""``python -m bones``: the command line (see ``bones --help``)."""

from .cli import main

raise SystemExit(main())
