"""A read-back never takes a row it could not read for proof that the action did not happen."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.actions.read_backs import Unprovable, scan
from paytui.actions.reconcile import read_back
from paytui.api.client import PaymentClient
from paytui.api.models import Charge, Page, UnreadableItem
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.actions.support import BASE_URL, FakeClock, WireTransport, clocked_executor


async def _pages(*pages: Page[Any]) -> AsyncIterator[Page[Any]]:
    for page in pages:
        yield page


async def test_a_search_with_an_unreadable_row_proves_nothing_by_not_finding() -> None:
    odd = Page[int](
        items=[1, 2], limit=3, offset=0, unreadable=[UnreadableItem(position=2, id="re_odd")]
    )
    with pytest.raises(Unprovable, match="re_odd"):
        async for _ in scan(_pages(odd)):
            pass
    async for item in scan(_pages(odd)):  # found before the end: the unreadable row is moot
        if item == 2:
            break
    assert [item async for item in scan(_pages(odd), unreadable_unprovable=False)] == [1, 2]


class _RefundsUnreadable(httpx.AsyncBaseTransport):
    """The service, except that every refund it lists has an id of an impossible shape (a row
    the client cannot read at all: it has nothing to show it by)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method != "GET" or not request.url.path.startswith("/v2/refunds"):
            return response
        body = json.loads(await response.aread())
        for row in body.get("data", []):
            row["refund_id"] = {"not": "an id"}
        return httpx.Response(response.status_code, json=body, headers={"x-test": "odd"})


async def test_a_refund_that_went_through_but_reads_oddly_is_not_called_not_applied(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Journal, clock: FakeClock, sale: Charge
) -> None:
    wire = WireTransport(sandbox_transport)
    async with PaymentClient(
        BASE_URL, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET, transport=wire
    ) as client:
        outcome = await clocked_executor(client, journal, clock).run(
            "refund", sale.charge_id, refund_op.Params(Decimal("1.00"))
        )
        assert outcome.succeeded
    entry = journal.get(outcome.entry_id)
    assert entry is not None
    async with PaymentClient(
        BASE_URL,
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=_RefundsUnreadable(sandbox_transport),
    ) as odd_client:
        with pytest.raises(Unprovable, match="could not be read"):
            await read_back(odd_client, entry)
