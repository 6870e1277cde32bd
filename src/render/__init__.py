"""Pictures of the game: SVG boards and positions, the HTML replay of a recorded game,
the HTML match report, the terminal board and ``bones play`` (docs/render.md).

``svg_of(round_or_observation_or_game)`` is what ``_repr_svg_`` shows in a notebook.
"""

from __future__ import annotations

from .svg import Frame, render_frame, svg_of
from .terminal import board_text

__all__ = ["Frame", "board_text", "render_frame", "svg_of"]
