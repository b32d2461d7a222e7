"""FitTable: the row under the cursor is known by row, also before its columns are laid out."""

from __future__ import annotations

from textual.app import App, ComposeResult

from paytui.ui.widgets.fit_table import FitColumn, FitTable


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
