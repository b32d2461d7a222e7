"""The charge list's row painter gives exactly the segments Rich gives for the same line.

`row_segments` builds a row's segments without building and rendering a Rich `Text` (most of a
search's paint). What it must not change is what is painted: for random rows (styled, unstyled
and multi-style cells, wide characters, cut and padded cells, marked rows, every width the
columns are laid out at) it is compared with the line built as one `Text` and rendered by
Rich (`rich_row_segments`, the path a row with styled parts inside a cell still takes).
"""

from __future__ import annotations

import random

from rich.console import Console
from rich.style import Style
from rich.text import Text

from paytui.ui import format as fmt
from paytui.ui.marks import MARK
from paytui.ui.widgets.charge_table import (
    layout_columns,
    rich_row_segments,
    row_segments,
    state_text,
)

WORDS = ["", "a", "Karen Spärck Jones", "x" * 40, "漢字テスト漢字テスト漢字", "visa 4242", "—"]
STYLES: list[str | Style] = ["", "", "bold", "red", Style(color="green"), Style(italic=True)]
_CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True)


def test_rows_paint_as_rich_would() -> None:
    rng = random.Random(7)
    kinds = {"plain": 0, "styled": 0, "spans": 0}
    for width in (60, 80, 120, 160):
        widths = layout_columns(width - 1)
        for _ in range(120):
            plain_row = rng.random() < 0.2
            cells: list[Text] = []
            for _ in widths:
                if not plain_row and rng.random() < 0.1:
                    words = rng.sample(["Disputed", "Refunded", "Captured"], rng.randint(0, 2))
                    cells.append(state_text(words))
                else:
                    style = "" if plain_row else rng.choice(STYLES)
                    cells.append(Text(rng.choice(WORDS), style=style))
            base = rng.choice([Style(), Style(bgcolor="blue"), Style(color="white", bold=True)])
            marked = rng.random() < 0.2
            row_base = base + fmt.tone("bold accent") if marked else base
            lead = MARK if marked else " "
            expected = rich_row_segments(cells, widths, row_base, _CONSOLE, lead)
            assert row_segments(cells, widths, row_base, _CONSOLE, lead=lead) == expected
            if any(cell.spans for cell in cells):
                kinds["spans"] += 1
            elif any(cell.style for cell in cells):
                kinds["styled"] += 1
            else:
                kinds["plain"] += 1
    assert min(kinds.values()) > 20, kinds  # every path was taken
