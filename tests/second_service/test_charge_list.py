"""The dashboard's charge list against the second service (issue 23, point 2)."""

from __future__ import annotations

from collections.abc import Callable

from paytui.ui.widgets.charge_table import ChargeTable
from tests.second_service.app import SecondService
from tests.second_service.data import CHARGE_COUNT
from tests.ui.conftest import make_app, screen_text, settle


async def test_the_list_reaches_every_row_without_a_total(
    second_service: Callable[..., SecondService],
) -> None:
    """No count in the answer: the list grows as pages arrive and `G` reaches the 126th charge.
    (Before: it stopped at the first page and one row, the rest unreachable.)"""
    service = second_service(count_key=None)
    app = make_app(
        service.transport, client_id=service.client_id, client_secret=service.client_secret
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        assert table.total == ChargeTable.PAGE_SIZE + 1  # the first page, and "maybe more"
        # Each `G` goes to the last row known, which reads the page after it.
        for _ in range(-(-CHARGE_COUNT // ChargeTable.PAGE_SIZE)):
            await pilot.press("G")
            await settle(app, pilot)
        assert table.total == CHARGE_COUNT
        assert table.cursor_row == CHARGE_COUNT - 1
        assert table.cursor_charge is not None
        assert table.cursor_charge.charge_id == service.store.charges[-1].charge_id


async def test_a_list_whose_service_ignores_paging_claims_no_row_it_cannot_reach(
    second_service: Callable[..., SecondService],
) -> None:
    """The service answers the first 25 rows whatever is asked, with a count of 126: the list
    does not offer 126 rows of which 101 never load. `G` stops at the 25th row, the status line
    says why, and "Showing" does not claim the count as reachable."""
    service = second_service(paging="ignore")
    app = make_app(
        service.transport, client_id=service.client_id, client_secret=service.client_secret
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        for _ in range(2):
            await pilot.press("G")
            await settle(app, pilot)
        text = screen_text(app)
        first = service.store.charges[:25]
        assert table.total == len(first)
        assert table.cursor_charge is not None
        assert table.cursor_charge.charge_id == first[-1].charge_id
        assert "ignores paging" in " ".join(text.split())
        assert f"of {CHARGE_COUNT}" not in text
