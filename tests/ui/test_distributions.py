"""Distributions (`4`): the list with totals by category, paging, the detail and its items."""

from __future__ import annotations

from typing import Any

import httpx

from paytui.sandbox.faults import Faults
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.distribution_detail import DistributionDetailScreen
from paytui.ui.screens.distributions import PAGE_SIZE, DistributionsScreen
from paytui.ui.widgets.nav_table import NavTable
from tests.ui.conftest import (
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
    make_app,
    screen_text,
    settle,
)


async def open_distributions(app: PaytuiApp, pilot: Any) -> DistributionsScreen:
    await settle(app, pilot)
    await pilot.press("4")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, DistributionsScreen)
    return screen


async def test_list_newest_first_with_a_chargebacks_column(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_distributions(app, pilot)
        assert screen.state == "results"
        table = screen.query_one(NavTable)
        labels = [str(column.label) for column in table.ordered_columns]
        assert labels[3:9] == ["Sales", "Refunds", "Chargebacks", "Returns", "Fees", "Net"]
        assert table.row_count == PAGE_SIZE
        stamps = [d.distribution_timestamp for d in screen.distributions]
        assert stamps == sorted(stamps, reverse=True)
        text = screen_text(app)
        assert "Chargebacks" in text and "Net" in text
        assert f"Showing {PAGE_SIZE} of" in text

        # Scrolling to the end reads the next page under the rows already shown.
        first_ids = [d.distribution_id for d in screen.distributions]
        await pilot.press("G")
        await settle(app, pilot)
        ids = [d.distribution_id for d in screen.distributions]
        assert ids[:PAGE_SIZE] == first_ids and len(ids) > PAGE_SIZE
        assert len(set(ids)) == len(ids)  # the next page, not the same one again
        assert table.row_count == len(ids)
        assert f"Showing {len(ids)} of" in screen_text(app)


async def test_a_chargeback_shows_in_its_distribution(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """Some distribution in the seeded data carries a chargeback total above zero."""
    from paytui.api.client import PaymentClient

    async with PaymentClient(
        "http://sandbox",
        client_id="paytui-demo",
        client_secret="paytui-demo-secret",
        transport=sandbox_transport,
    ) as client:
        found = None
        offset = 0
        while found is None:
            page = await client.list_distributions_page(limit=500, offset=offset)
            found = next(
                (
                    d
                    for d in page.items
                    if d.total_amounts is not None and (d.total_amounts.chargebacks or 0) > 0
                ),
                None,
            )
            if not page.has_more:
                break
            offset = page.next_offset
    assert found is not None
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.push_screen(DistributionDetailScreen(found.distribution_id))
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, DistributionDetailScreen)
        assert any(item.category == "chargebacks" for item in detail.items)
        assert "chargebacks" in screen_text(app)


async def test_open_distribution_then_an_item_opens_its_charge(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from paytui.ui.screens.charge_detail import ChargeDetailScreen

    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_distributions(app, pilot)
        first = screen.distributions[0]
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, DistributionDetailScreen)
        assert detail.distribution_id == first.distribution_id
        assert detail.items
        text = screen_text(app)
        for category in ("sales", "refunds", "chargebacks", "returns", "fees", "net"):
            assert category in text
        item = detail.items[0]
        await pilot.press("enter")
        await settle(app, pilot)
        charge_screen = app.screen
        assert isinstance(charge_screen, ChargeDetailScreen)
        assert charge_screen.charge_id == item.charge_id
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is detail


async def test_error_and_retry(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults
) -> None:
    sandbox_faults.update({"fail_status": 500, "fail_path_prefix": "/v2/distributions"})
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_distributions(app, pilot)
        assert screen.state == "error"
        assert "ctrl+r" in screen_text(app)
        sandbox_faults.update({"fail_status": None, "fail_path_prefix": None})
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert screen.state == "results"


async def test_limited_client_gets_a_clear_error(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(
        sandbox_transport, client_id=LIMITED_CLIENT_ID, client_secret=LIMITED_CLIENT_SECRET
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_distributions(app, pilot)
        assert screen.state == "error"
        assert "Not allowed (403)" in screen_text(app)


async def test_detail_error_and_retry(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_distributions(app, pilot)
        first = screen.distributions[0]
        sandbox_faults.update({"fail_status": 500, "fail_path_prefix": "/v2/distributions/"})
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, DistributionDetailScreen)
        assert detail.has_class("-error")
        text = screen_text(app)
        assert "ctrl+r" in text
        assert first.distribution_id in text  # the list's summary still shows
        sandbox_faults.update({"fail_status": None, "fail_path_prefix": None})
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert not detail.has_class("-error")
        assert detail.items
