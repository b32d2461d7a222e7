"""The dashboard's charge list against the second service (issue 23, point 2)."""

from __future__ import annotations

from collections.abc import Callable

from paytui.ui.widgets.charge_table import ChargeTable
from tests.second_service.app import SecondService
from tests.second_service.data import CHARGE_COUNT
from tests.ui.conftest import make_app, settle


async def test_the_list_reaches_every_row_without_a_total(
    second_service: Callable[..., SecondService],
) -> None:
    """No count in the answer: the list grows as pages arrive and `G` reaches the 126th charge.
    (Before: it stopped at 101 rows, the first page and one, the rest unreachable.)"""
    service = second_service(count_key=None)
    app = make_app(
        service.transport, client_id=service.client_id, client_secret=service.client_secret
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        assert table.total == ChargeTable.PAGE_SIZE + 1  # the first page, and "maybe more"
        for _ in range(2):
            await pilot.press("G")
            await settle(app, pilot)
        assert table.total == CHARGE_COUNT
        assert table.cursor_row == CHARGE_COUNT - 1
        assert table.cursor_charge is not None
        assert table.cursor_charge.charge_id == service.store.charges[-1].charge_id
