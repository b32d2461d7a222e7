"""Paging through a whole 5,000-charge sandbox from the keyboard: every charge once, in order,
with memory bounded by the page cache (the issue's scale; the shared fixture holds 3,000)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import make_app, settle

TOTAL = 5000


@pytest.fixture(scope="module")
def big_sandbox_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from paytui.sandbox.seed import build_database

    path = tmp_path_factory.mktemp("sandbox-5000") / "sandbox.sqlite3"
    build_database(path, charges=TOTAL, seed=11, practice=False)  # exactly TOTAL charges
    return path


async def test_walk_every_page_of_5000_charges_in_order(big_sandbox_db: Path) -> None:
    from paytui.sandbox.embedded import asgi_transport

    app = make_app(asgi_transport(big_sandbox_db))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        table = app.screen.query_one(ChargeTable)
        assert table.total == TOTAL

        seen: list[str] = []
        stamps = []
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

        assert len(set(seen)) == TOTAL  # every charge exactly once: no page skipped or repeated
        assert stamps == sorted(stamps, reverse=True)  # newest first, stable across pages
        assert table.pages_fetched >= TOTAL // ChargeTable.PAGE_SIZE
        assert table.cached_pages <= ChargeTable.MAX_PAGES

        await pilot.press("G")
        await settle(app, pilot)
        assert table.cursor_row == TOTAL - 1
        assert table.cursor_charge is not None and table.cursor_charge.charge_id == seen[-1]
