"""A list table filled before it has a size (its screen built ahead, not yet shown: the app's
warm-up) opens at its first rows, with the cursor in view once it is shown."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.screen import Screen

from paytui.ui.widgets.nav_table import NavTable


class Ahead(Screen[None]):
    def compose(self) -> ComposeResult:
        yield NavTable(cursor_type="row")


async def _built_ahead(row: int) -> tuple[float, float]:
    """A screen mounted but not shown (as `PaytuiApp.build_ahead` does), its table filled and
    its cursor put on `row`, then shown: the table's (scroll_y before, after)."""
    app: App[None] = App()
    async with app.run_test(size=(40, 12)) as pilot:
        screen = Ahead()
        app._register(app, screen)
        await pilot.pause()
        table = screen.query_one(NavTable)
        table.add_column("n")
        table.add_rows([[str(n)] for n in range(30)])
        table.move_cursor(row=row, animate=False)
        await pilot.pause()
        assert table.size.height == 0  # not laid out: not shown
        before = table.scroll_y
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.pause()
        assert table.size.height == 12
        return before, table.scroll_y


async def test_a_cursor_placed_before_the_table_has_a_size_does_not_scroll_it() -> None:
    assert await _built_ahead(1) == (0, 0)  # the first rows stay in view


async def test_a_cursor_far_down_is_scrolled_into_view_once_the_table_is_shown() -> None:
    _, after = await _built_ahead(25)
    # The header takes a line: rows 0..10 show at scroll 0; row 25 needs at least 15.
    assert after >= 15
