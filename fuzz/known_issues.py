"""Known, reported issues in code the fuzz targets call: matched findings are counted as
``known`` instead of ``other`` so that a run shows what is new.  Each entry names where
the fix belongs; remove it once the fix has landed (a run then counts them as ``other``
again if they come back).

Fixed since the suite found them (src/core/rules.pyx, src/core/round.pyx): an unhashable
or unsortable option value reaching ``compile_rules``' cache key (TypeError); the cache
key conflating ``teams_with_4=1`` with ``True`` and ``hand_size=7.0`` with ``7``;
``Round.deal`` raising TypeError/OverflowError for a variant that is not a str or a
player count that is not a small int, and taking ``players=2.0`` as 2.
"""

from __future__ import annotations

import re

#: (decoder, exception type, message pattern, traceback pattern, the issue)
KNOWN: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "options",
        "Broken",
        r"disagree \(refused: \[True, False, True\]\); players is a int",
        r"target_options",
        "core: compile_rules' cache key keeps the values of a dict option (hand_size="
        "{2: 7}) without their types, so once {2: 7} is compiled Round.deal takes "
        "{2: 7.0}, {2.0: 7} or (after {2: 1}) {2: True} from the cache, which resolve() "
        "refuses (src/core/rules.pyx, _freeze)",
    ),
)


def known(decoder: str, exc: BaseException, tb: str) -> str | None:
    """The known issue ``exc`` (with traceback text ``tb``) matches, else ``None``."""
    name = type(exc).__name__
    for dec, kind, message, where, issue in KNOWN:
        if (
            dec == decoder
            and re.fullmatch(kind, name)
            and re.search(message, str(exc))
            and re.search(where, tb)
        ):
            return issue
    return None
