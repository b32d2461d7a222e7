"""A token fetched by the client is scrubbed from logs even when it appears bare."""

from __future__ import annotations

import httpx

from paytui.api.client import PaymentClient
from paytui.logs import clear_registered_secrets, redact

TOKEN = "tok-7f3a9c2e55d14b0b8e61"


async def test_fetched_access_token_is_redacted_everywhere() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(
                200, json={"access_token": TOKEN, "expires_in": 3600, "scope": "urn:v2:charges:all"}
            )
        return httpx.Response(200, json={"data": [], "total": 0})

    clear_registered_secrets()
    assert TOKEN in redact(f"odd log line {TOKEN}")  # nothing registered yet
    async with PaymentClient(
        "http://sandbox",
        client_id="id",
        client_secret="secret-value-123",
        transport=httpx.MockTransport(handler),
    ) as client:
        await client.authenticate()
    try:
        assert TOKEN not in redact(f"odd log line {TOKEN}")
    finally:
        clear_registered_secrets()
