"""FitTable: the row under the cursor is known by row, also before its columns are laid out; a
change draws again only the cells it changed."""

from __future__ import annotations

from typing import Any

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from paytui.ui.widgets.fit_table import FitColumn, FitTable
from tests.ui.conftest import paint, screen_text


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        table = FitTable([FitColumn("id", "Id"), FitColumn("name", "Name", priority=1)])
        table.display = False  # no width yet: no layout, no column
        yield table


async def test_cursor_key_with_no_cell_to_ask() -> None:
    """A fuzz run hit CellDoesNotExist: rows added before a layout have no cell to ask."""
    app = _Host()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(FitTable)
        assert table.cursor_key() is None
        table.add_row("t1", "Ada", key="k1")
        table.add_row("t2", "Grace", key="k2")
        await pilot.pause()
        assert not table.columns  # rows, but no column to hold a cell
        assert table.cursor_key() == "k1"
        table.move_cursor(row=1)
        assert table.cursor_key() == "k2"
        table.display = True
        await pilot.pause()
        await pilot.pause()
        assert table.shown_columns == ["id", "name"]
        assert table.cursor_key() == "k2"


class _Listed(App[None]):
    def compose(self) -> ComposeResult:
        yield FitTable(
            [FitColumn("id", "Id"), FitColumn("name", "Name"), FitColumn("state", "State")],
            cursor_type="row",
        )

    def on_mount(self) -> None:
        table = self.query_one(FitTable)
        for n in range(40):
            table.add_row(f"t{n}", f"name {n}", "?", key=f"k{n}")


async def test_a_change_draws_again_only_the_cells_it_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`DataTable` draws every visible cell again after any change to the table: on Today at
    100,000 charges each refund state set, or page of rows added below the screen, cost a
    screenful of cells on the event loop. A FitTable draws again the cells whose value changed
    (counted as calls of `DataTable`'s own cell rendering), and the screen shows the change."""
    app = _Listed()
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        table = app.query_one(FitTable)
        paint(app)
        drawn: list[tuple[int, int]] = []
        real = DataTable._render_cell

        def counted(
            self: DataTable[Any], row: int, column: int, style: Style, width: int, *a: Any, **k: Any
        ) -> Any:
            if row >= 0 and column >= 0:
                drawn.append((row, column))
            return real(self, row, column, style, width, *a, **k)

        monkeypatch.setattr(DataTable, "_render_cell", counted)
        paint(app)
        assert drawn == []  # nothing changed: nothing drawn again
        table.set_cell("k3", "state", "Paid")  # as wide as the column: no new layout
        paint(app)
        assert drawn == [(3, 2)]
        lines = {line.split()[0]: line.split()[1:] for line in screen_text(app).splitlines()}
        assert lines["t3"] == ["name", "3", "Paid"]
        assert lines["t4"] == ["name", "4", "?"]
        drawn.clear()
        table.add_row("t40", "name 40", "?", key="k40")  # below the screen
        paint(app)
        assert drawn == []
        table.move_cursor(row=1)  # the cursor's rows: their look changed
        paint(app)
        assert sorted({row for row, _ in drawn}) == [0, 1]
