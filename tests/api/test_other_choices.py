"""Choices the spec leaves open, made otherwise by another service: read, never refused.

A refund or plugin session keyed ``id`` (not ``refund_id`` / ``session_id``) is the service's
answer to an action it took: reading it as malformed would turn a done refund into "unknown".
"""

from __future__ import annotations

import httpx

from paytui.api.client import PaymentClient
from paytui.api.models import RefundRequest
from paytui.api.queries import ChargeQuery

CHARGE_ID = "6206bcbf973c0193850fb6c7"
REFUND_ID = "6206bcbf973c0193850fb6d8"
SESSION_ID = "6206bcbf973c0193850fb6e9"


def _service(request: httpx.Request) -> httpx.Response:
    if request.method == "POST" and request.url.path == "/v2/refunds":
        body = {"id": REFUND_ID, "charge_id": CHARGE_ID, "total_amount": 5, "status": "success"}
        return httpx.Response(201, json=body)
    if request.url.path == f"/v2/plugins/{SESSION_ID}":
        return httpx.Response(200, json={"id": SESSION_ID, "type": "payment"})
    return httpx.Response(404, json={"message": "not here"})


async def test_a_refund_and_a_plugin_session_keyed_id_are_read() -> None:
    transport = httpx.MockTransport(_service)
    async with PaymentClient("http://api.test", token="t", transport=transport) as client:
        refund = await client.create_refund(RefundRequest(charge_id=CHARGE_ID, total_amount=5))
        session = await client.get_plugin_session(SESSION_ID)
    assert refund.refund_id == REFUND_ID and refund.charge_id == CHARGE_ID
    assert session.session_id == SESSION_ID
    assert "id" not in (refund.model_extra or {})  # read once, as the id


async def test_status_voided_is_a_search_the_sandbox_answers(demo_client: PaymentClient) -> None:
    page = await demo_client.search_charges_page(ChargeQuery(status="voided"), limit=5)
    assert page.items == []  # the sandbox voids nothing; the search is not refused
