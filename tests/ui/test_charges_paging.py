"""Lazy paging at scale: 100,000 matching charges neither block the screen nor fill memory.

A generated backend (no sandbox) so the size is cheap; the sandbox-backed paging test is in
test_charges_search.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import FakeClient, fake_app, screen_text, settle


class SlowPages(FakeClient):
    """Holds every page after the first until released, to see placeholders and prefetch."""

    def __init__(self, total: int) -> None:
        super().__init__(total)
        self.release = asyncio.Event()
        self.asked: list[int] = []

    async def search_charges_page(self, query: Any = None, *, limit: int = 50, offset: int = 0):
        if offset:
            self.asked.append(offset)
            await self.release.wait()
        return await super().search_charges_page(query, limit=limit, offset=offset)


async def test_hundred_thousand_rows_page_lazily_with_bounded_cache() -> None:
    client = FakeClient(100_000)
    app = fake_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        assert table.total == 100_000
        assert len(client.calls) == 1  # the first page only, not 1,000 of them
        assert "Showing" in screen_text(app) and "of 100,000" in screen_text(app)

        await pilot.press("G")
        await settle(app, pilot)
        assert table.cursor_row == 99_999
        assert table.cursor_charge is not None
        assert table.cursor_charge.charge_id == f"{99_999:024x}"
        assert len(client.calls) <= 3  # page 0, the last page, perhaps its neighbour

        # Walk through many pages: memory stays flat (LRU of MAX_PAGES pages).
        for row in range(99_000, 0, -4_000):  # 25 far jumps: each needs new pages
            table.cursor_row = row
            await settle(app, pilot)
            assert table.cursor_charge is not None
        assert table.cached_pages <= ChargeTable.MAX_PAGES
        assert table.pages_fetched > ChargeTable.MAX_PAGES  # so eviction really happened
        assert all(limit == ChargeTable.PAGE_SIZE for _, limit, _ in client.calls)


async def test_unloaded_rows_show_placeholders_and_prefetch_near_page_end() -> None:
    client = SlowPages(1_000)
    app = fake_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        table.cursor_row = 75  # within PREFETCH_ROWS of page 0's end
        await pilot.pause()
        assert 100 in client.asked  # page 1 asked for early
        await pilot.press("G")
        await pilot.pause()
        assert table.cursor_charge is None
        assert "loading…" in screen_text(app)  # dim placeholders, the screen is not blocked
        client.release.set()
        await settle(app, pilot)
        assert table.cursor_charge is not None
        assert "loading…" not in screen_text(app)
