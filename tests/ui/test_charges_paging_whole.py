"""Paging through a whole sandbox from the keyboard: every charge once, in order, with memory
bounded by the page cache (the rows, and the refunds read of them).

The sandbox holds two and a half times the pages the cache keeps (20 pages of 100, the last one
partial; the cache keeps 8): every page is read once on the way down and most are evicted, which
is the property. The issue's 5,000 charges (50 pages) repeated the same steps for 2.5 times the CPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import make_app, settle

#: More than twice the pages the cache keeps, a whole number of pages plus a partial last one.
TOTAL = ChargeTable.PAGE_SIZE * (2 * ChargeTable.MAX_PAGES + 4) - 37


@pytest.fixture(scope="module")
def big_sandbox_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from paytui.sandbox.seed import build_database

    path = tmp_path_factory.mktemp("sandbox-whole") / "sandbox.sqlite3"
    build_database(path, charges=TOTAL, seed=11, practice=False)  # exactly TOTAL charges
    return path


async def test_walk_every_page_of_the_sandbox_in_order(big_sandbox_db: Path) -> None:
    from paytui.sandbox.embedded import asgi_transport

    app = make_app(asgi_transport(big_sandbox_db))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        table = app.screen.query_one(ChargeTable)
        assert table.total == TOTAL

        seen: list[str] = []
        stamps = []
        read_for_rows_shown: set[str] = set()
        assert TOTAL // ChargeTable.PAGE_SIZE > 2 * ChargeTable.MAX_PAGES  # pages are evicted
        for row in range(TOTAL):
            if row % ChargeTable.PAGE_SIZE == 0:
                # Jump page by page the way `pagedown` does, waiting for the page worker.
                table.cursor_row = row
                await settle(app, pilot)
            charge = table.charge_at(row)
            assert charge is not None, f"row {row} never loaded"
            seen.append(charge.charge_id)
            stamps.append((charge.charge_timestamp, charge.charge_id))
            assert table.cached_pages <= ChargeTable.MAX_PAGES
            # The refunds read are those of rows held: not one for every row ever shown.
            assert set(table.refunds) <= set(table.loaded_ids())
            read_for_rows_shown.update(table.refunds)

        assert len(read_for_rows_shown) > ChargeTable.MAX_PAGES * ChargeTable.PAGE_SIZE
        assert len(set(seen)) == TOTAL  # every charge exactly once: no page skipped or repeated
        assert stamps == sorted(stamps, reverse=True)  # newest first, stable across pages
        assert table.pages_fetched >= TOTAL // ChargeTable.PAGE_SIZE
        assert table.cached_pages <= ChargeTable.MAX_PAGES

        await pilot.press("G")
        await settle(app, pilot)
        assert table.cursor_row == TOTAL - 1
        assert table.cursor_charge is not None and table.cursor_charge.charge_id == seen[-1]
