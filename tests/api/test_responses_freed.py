"""A response the client has read is freed when its reader drops it, not by the cyclic garbage
collector (`paytui.api.responses.unbind`): the dashboard holds full collections back while the
person works (`paytui.collector`), and a page's body kept by a cycle until then was 15 MB a
refresh of the pulse at 100,000 charges (`pulse_refresh_rss_ratio`, docs/performance.md)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.api.queries import ChargeQuery, RefundQuery

__all__: list[str] = []


@pytest.fixture
def garbage_kept() -> Iterator[list[object]]:
    """The cyclic collector off and told to keep what it finds (`gc.garbage`) until the test
    has looked; everything as it was afterwards."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


async def test_pages_and_a_charge_read_leave_no_response_to_the_cyclic_collector(
    api_client: PaymentClient, garbage_kept: list[object]
) -> None:
    await api_client.authenticate()
    page = await api_client.search_charges_page(ChargeQuery(), limit=20)
    assert page.items
    await api_client.search_charges_page(ChargeQuery(), limit=20, offset=20, offload=True)
    await api_client.search_refunds_page(RefundQuery(), limit=5)
    charge = await api_client.get_charge(page.items[0].charge_id)
    assert charge.charge_id == page.items[0].charge_id
    del page, charge

    gc.collect()
    cycled = [type(item).__name__ for item in garbage_kept if isinstance(item, httpx.Response)]
    assert cycled == []
