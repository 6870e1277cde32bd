"""Known, reported issues in code the fuzz targets call: matched findings are counted as
``known`` instead of ``other`` so that a run shows what is new.  Each entry names where
the fix belongs; remove it once the fix has landed (a run then counts them as ``other``
again if they come back).

None is open now.  Fixed since the suite found them (src/core/rules.pyx,
src/core/round.pyx): an unhashable or unsortable option value reaching
``compile_rules``' cache key (TypeError); the cache key conflating ``teams_with_4=1``
with ``True``, ``hand_size=7.0`` with ``7`` and ``{2: 7.0}`` with ``{2: 7}``;
``Round.deal`` raising TypeError/OverflowError for a variant that is not a str or a
player count that is not a small int, and taking ``players=2.0`` as 2.

An entry is ``(decoder, exception type regex, message regex, traceback regex, issue)``,
for example ``("options", "TypeError", r"unhashable type", r"rules[.]pyx", "core: ...")``.
"""

from __future__ import annotations

import re

#: (decoder, exception type, message pattern, traceback pattern, the issue)
KNOWN: tuple[tuple[str, str, str, str, str], ...] = ()


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
