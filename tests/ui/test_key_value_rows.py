"""`KeyValueRows` draws the field panels as Rich's `Table.grid` would, cell for cell and style
for style: checked against the grid it replaced, at widths from "no room beside the names" to
wide, with wrapping, newlines, wide characters and styled values."""

from __future__ import annotations

import pytest
from rich.console import Console, RenderableType
from rich.style import Style
from rich.text import Text

from paytui.ui.widgets.charge_panels import KeyValueRows, _grid

ROWS = [
    (Text("Charge id"), Text("4077b2bbacf782a5a9c450b3")),
    (Text("Status"), Text("success", style="green")),
    (Text("Result text"), Text("Approved, and a reason long enough to wrap onto more lines")),
    (Text("Authorization code"), Text("—", style="dim")),
    (Text(""), Text("")),
    (Text("Merchant"), Text("商户名称 🙂 with wide characters")),
    (Text("Lines"), Text("first line\nsecond line")),
    (Text("Id"), Text("x" * 70)),
]


def _drawn(renderable: RenderableType, width: int) -> list[list[tuple[str, Style]]]:
    """Each line as (character, style) pairs: what a terminal shows, however it is cut into
    segments."""
    console = Console(width=width, color_system="truecolor", force_terminal=True)
    lines = console.render_lines(renderable, console.options, pad=True)
    return [[(c, s.style or Style()) for s in line for c in s.text] for line in lines]


@pytest.mark.parametrize("width", [8, 19, 20, 21, 24, 40, 80, 120])
def test_drawn_as_the_grid_it_replaced(width: int) -> None:
    assert _drawn(KeyValueRows(ROWS), width) == _drawn(_grid(ROWS), width)


def test_no_rows_draw_nothing_as_the_grid() -> None:
    assert _drawn(KeyValueRows([]), 40) == _drawn(_grid([]), 40)
