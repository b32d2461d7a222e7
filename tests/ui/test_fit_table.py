"""FitTable: the row under the cursor is known by row, also before its columns are laid out; a
change draws again only the cells it changed."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
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


@contextlib.asynccontextmanager
async def listed() -> AsyncIterator[tuple[_Listed, Pilot[None], FitTable]]:
    """`_Listed` running, its forty rows painted once."""
    app = _Listed()
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        table = app.query_one(FitTable)
        paint(app)
        yield app, pilot, table


def cells_drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The (row, column) of each cell a FitTable draws from now on (its cell rendering,
    `_one_line_cell`, which every cell drawn goes through first)."""
    drawn: list[tuple[int, int]] = []
    real = FitTable._one_line_cell

    def counted(self: FitTable, row: int, column: int, *a: Any, **k: Any) -> Any:
        drawn.append((row, column))
        return real(self, row, column, *a, **k)

    monkeypatch.setattr(FitTable, "_one_line_cell", counted)
    return drawn


async def test_a_change_draws_again_only_the_cells_it_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`DataTable` draws every visible cell again after any change to the table: on Today at
    100,000 charges each refund state set, or page of rows added below the screen, cost a
    screenful of cells on the event loop. A FitTable draws again the cells whose value changed
    (counted as calls of its cell rendering, `_one_line_cell`, which every cell drawn goes
    through first), and the screen shows the change."""
    async with listed() as (app, _pilot, table):
        drawn = cells_drawn(monkeypatch)
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


async def test_a_row_moved_keeps_its_cells_lines_at_its_new_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows put in place above others (Today, as each source of its queue arrives) move the
    rows under them: a moved row's cells are not drawn again, only given their new row number,
    and each comes out as a fresh drawing at that number gives it (the mouse's row and column
    included)."""
    async with listed() as (app, pilot, table):
        drawn = cells_drawn(monkeypatch)
        rows: list[tuple[str, Any]] = [("new", ["t9", "name 9", "?"])]
        rows += [(f"k{n}", None) for n in range(40)]
        table.replace_rows(rows)
        await pilot.pause()
        paint(app)
        assert {row for row, _ in drawn} <= {0, 1}  # the new row, the cursor's row
        lines = [line.split() for line in screen_text(app).splitlines()]
        assert lines[1] == ["t9", "name", "9", "?"]
        assert lines[2] == ["t0", "name", "0", "?"]
        monkeypatch.undo()
        compared = 0
        for key, (value, row, kept, one_line) in table._cell_lines.items():
            if one_line and row >= 2:
                column, look, width, cursor, hover = key[2:7]
                fresh = table._one_line_cell(row, column, value, look, width, cursor, hover)
                assert kept == fresh, (row, column)
                metas = {segment.style.meta["row"] for line in kept for segment in line}
                assert metas == {row}
                compared += 1
        assert compared >= 3 * 10


async def test_rows_put_in_place_set_the_cursor_once_not_once_a_new_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`DataTable.add_row` sets the cursor to itself for each row (a reactive that always
    updates: its validator and watchers run each time); a source's hundred rows put in place
    on Today ran them a hundred times in one step of the event loop. `replace_rows` sets it
    once for all its new rows, and the rows show in their order."""
    async with listed() as (app, pilot, table):
        validated: list[object] = []
        real = FitTable.validate_cursor_coordinate

        def counted(self: FitTable, value: Any) -> Any:
            validated.append(value)
            return real(self, value)

        monkeypatch.setattr(FitTable, "validate_cursor_coordinate", counted)
        rows: list[tuple[str, Any]] = [(f"new{n}", [f"n{n}", f"new {n}", "?"]) for n in range(30)]
        rows += [(f"k{n}", None) for n in range(40)]
        table.replace_rows(rows)
        assert len(validated) == 1
        await pilot.pause()
        paint(app)
        assert table.row_count == 70
        lines = [line.split() for line in screen_text(app).splitlines()]
        assert lines[1] == ["n0", "new", "0", "?"]
        assert lines[2] == ["n1", "new", "1", "?"]


async def test_a_cell_set_wider_keeps_its_width_when_its_row_is_kept() -> None:
    """`replace_rows` measures the columns from the rows kept, each kept row's widths from
    before (it is not measured again); a cell set since (`set_cell`, in place) has its row
    measured again: its column keeps the wider value whole, not cut with `…`."""
    async with listed() as (app, pilot, table):
        kept: list[tuple[str, Any]] = [(f"k{n}", None) for n in range(40)]
        table.replace_rows(kept)  # each row measured once
        await pilot.pause()
        table.set_cell("k3", "name", "a much longer name than any")
        await pilot.pause()
        table.replace_rows(kept)
        await pilot.pause()
        await pilot.pause()
        paint(app)
        assert "a much longer name than any" in screen_text(app)


async def test_rows_added_are_not_measured_when_every_column_has_its_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`DataTable` measures every cell of every new row (through Rich) for the width of a
    column sized to its content; a FitTable's columns have the width the fit gave them, so
    its new rows are not measured (on Today at 100,000 charges, a source's hundred rows cost
    a step of the event loop in it), and they are shown all the same."""
    from textual.widgets import _data_table

    async with listed() as (app, pilot, table):
        measured: list[object] = []
        real = _data_table.measure

        def counted(console: Any, renderable: Any, *a: Any, **k: Any) -> int:
            measured.append(renderable)
            return real(console, renderable, *a, **k)

        monkeypatch.setattr(_data_table, "measure", counted)
        table.add_row("t40", "name 40", "?", key="k40")
        await pilot.pause()
        assert table.virtual_size.height == 41 + 1  # the rows and the header
        table.move_cursor(row=40)
        await pilot.pause()
        paint(app)
        assert measured == []
        assert "t40" in screen_text(app)


class _Cells(App[None]):
    def compose(self) -> ComposeResult:
        columns = [FitColumn(f"c{i}", f"C{i}") for i in range(2)]
        yield FitTable(columns, cursor_type="row", zebra_stripes=True)


#: Cells of every kind a list shows: styled words, spans, right-aligned amounts, wide and
#: accented characters, an emoji, empty, padded, long enough to be cut; and what the one-line
#: renderer leaves to DataTable (a tab, a newline, a zero-width space, centred).
ONE_LINE_CELLS = [
    Text("chargeback", style="bold"),
    Text("ch_0123456789"),
    Text(""),
    Text("  padded  "),
    Text("1,234.56", justify="right"),
    Text("1,234.56  ", justify="right"),
    Text("x", justify="left"),
    Text("long left " * 5, justify="left", style="bold"),
    Text("due in 2 d 4 h", style="bold red"),
    Text.assemble(("◉ ", "bold"), "ana refunding 40.00"),
    Text.assemble(("red part ", "red"), "and the rest of a long cell"),
    Text("日本語テキスト日本語テキスト"),
    Text("日本語テキスト", justify="right"),
    Text("naïve café"),
    Text("emoji 😀 ok"),
    Text("ok", style="reverse"),
    Text("a" * 40),
]
LEFT_TO_DATATABLE = [
    Text("tab\there"),
    Text("two\nlines"),
    Text("\u200bzero"),
    Text("c", justify="center"),
]


async def test_a_one_line_cell_is_drawn_as_datatable_draws_it() -> None:
    """`FitTable._one_line_cell` (a screenful of Today's cells in a few steps each, not
    through Rich's `Styled`/`Padding`/wrapping) gives the very segments `DataTable` does, in
    every look a cell has (cursor, hover, zebra rows) and at every width (cut with `…`); the
    cells it does not take are left to `DataTable`."""
    app = _Cells()
    async with app.run_test(size=(100, 40)) as pilot:
        table = app.query_one(FitTable)
        for index, cell in enumerate([*ONE_LINE_CELLS, *LEFT_TO_DATATABLE]):
            table.add_row(cell, "x", key=f"k{index}")
        await pilot.pause()
        looks = [table.rich_style, table.get_component_rich_style("datatable--even-row")]
        compared = 0
        for row in range(table.row_count):
            key = table._row_locations.get_key(row)
            assert key is not None
            for column in range(len(table.columns)):
                value = table._data[key][table._column_locations.get_key(column)]
                for width in (3, 4, 7, 12, 20, 45):
                    for cursor, hover in ((False, False), (True, False), (False, True)):
                        for look in looks:
                            ours = table._one_line_cell(
                                row, column, value, look, width, cursor, hover
                            )
                            if row >= len(ONE_LINE_CELLS) and column == 0:
                                assert ours is None
                                continue
                            assert ours is not None
                            table._cell_render_cache.clear()
                            theirs = DataTable._render_cell(
                                table, row, column, look, width, cursor, hover
                            )
                            assert ours == theirs, (value.plain, width, cursor, hover)
                            compared += 1
        assert compared == (len(ONE_LINE_CELLS) * 2 + len(LEFT_TO_DATATABLE)) * 6 * 3 * 2
