"""No local gate the spec does not show: a payment plugin session is not refused for the account's
boarding status nor for an assumed default limit; the service decides and its answer is shown.

A MockTransport stands in for a service that makes other choices than the sandbox: boarding
statuses of its own, no ``max_transaction_amount`` on the account, a session keyed ``id``.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from paytui.actions.journal import Journal
from paytui.api.client import PaymentClient
from paytui.api.models import PluginSession
from paytui.api.plugins import PaymentPluginSessionRequest
from tests.actions.support import BASE_URL, FakeClock, clocked_executor, made_for

ACCOUNT_ID = "pa_0123456789abcdefghij"
SESSION_ID = "6206bcbf973c0193850fb6c7"


class OtherService:
    """Accounts in a status the sandbox does not have and with no limit; sessions keyed `id`."""

    def __init__(self, status: str, refuse: str | None = None) -> None:
        self.status = status
        self.refuse = refuse
        self.posts: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/oauth2/token"):
            return httpx.Response(200, json={"access_token": "t", "expires_in": 3600})
        if request.method == "GET" and path == f"/v2/accounts/{ACCOUNT_ID}":
            return httpx.Response(200, json={"account_id": ACCOUNT_ID, "status": self.status})
        if request.method == "POST" and path == "/v2/plugins/payment":
            body = json.loads(request.content)
            self.posts.append(body)
            if self.refuse is not None:
                return httpx.Response(409, json={"error": "conflict", "message": self.refuse})
            return httpx.Response(201, json={"id": SESSION_ID, "type": "payment", **body})
        return httpx.Response(404, json={"error": "not_found", "message": f"no {path}"})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def _create(
    service: OtherService, journal: Journal, clock: FakeClock, request: PaymentPluginSessionRequest
) -> Any:
    client = PaymentClient(
        BASE_URL, client_id="c", client_secret="s", transport=httpx.MockTransport(service)
    )
    async with client:
        executor = clocked_executor(client, journal, clock)
        try:
            return await executor.run("plugin_session", *made_for(request))
        finally:
            await executor.aclose()


async def test_a_session_above_10000_on_an_account_showing_no_limit_is_sent(
    journal: Journal, clock: FakeClock
) -> None:
    request = PaymentPluginSessionRequest(
        account_id=ACCOUNT_ID, max_transaction_amount=Decimal("25000")
    )
    service = OtherService("approved")  # approved, but no limit shown: no 10,000 assumed
    made = await _create(service, journal, clock, request)
    assert made.state == "succeeded", made.message
    assert isinstance(made.result, PluginSession)
    assert made.result.session_id == SESSION_ID  # keyed `id`: read, not "malformed"
    assert made.result_id == SESSION_ID
    assert [p["max_transaction_amount"] for p in service.posts] == [25000]


async def test_a_status_outside_the_sandboxs_list_is_the_services_to_judge(
    journal: Journal, clock: FakeClock
) -> None:
    service = OtherService(
        "pending_underwriting", refuse="account pending_underwriting cannot take payments yet"
    )
    made = await _create(
        service, journal, clock, PaymentPluginSessionRequest(account_id=ACCOUNT_ID)
    )
    assert made.state == "failed"
    assert "cannot take payments yet" in (made.message or "")
    assert len(service.posts) == 1
