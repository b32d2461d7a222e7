"""Client credentials in either style (HTTP Basic or form fields), and short-lived tokens.

A MockTransport stands in for a token endpoint that makes the other choice the spec leaves open
(shared/spec/api-facts.md: public clients send the id and secret either way; accept both).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from paytui.api.auth import ClientCredentialsAuth
from paytui.api.client import PaymentClient
from paytui.api.errors import AuthenticationError

CHARGE_ID = "6206bcbf973c0193850fb6c7"
CHARGE = {"charge_id": CHARGE_ID, "total_amount": 25.1, "status": "success"}
SECRET = "hunter2-very-secret"
TOKEN_PATH = "/v2/services/oauth2/token"


class TokenService:
    """A token endpoint that takes the credentials only one way (``basic`` or ``form``)."""

    def __init__(self, accepts: str, expires_in: int = 3600) -> None:
        self.accepts = accepts
        self.expires_in = expires_in
        self.token_requests: list[httpx.Request] = []
        self.api_requests: list[httpx.Request] = []
        self.issued = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != TOKEN_PATH:
            self.api_requests.append(request)
            return httpx.Response(200, json=CHARGE)
        self.token_requests.append(request)
        form = dict(httpx.QueryParams(request.content.decode()))
        basic = request.headers.get("Authorization", "").startswith("Basic ")
        if self.accepts == "form":
            good = not basic and form.get("client_secret") == SECRET
        elif self.accepts == "basic":
            good = basic and "client_secret" not in form
        else:
            good = False
        if not good:
            description = "client authentication failed"
            return httpx.Response(
                401, json={"error": "invalid_client", "error_description": description}
            )
        self.issued += 1
        body = {"access_token": f"tok-{self.issued}", "expires_in": self.expires_in}
        return httpx.Response(200, json=body)

    def styles(self) -> list[str]:
        return [
            "basic" if r.headers.get("Authorization", "").startswith("Basic ") else "form"
            for r in self.token_requests
        ]


def client_for(service: TokenService, **kwargs: Any) -> PaymentClient:
    return PaymentClient(
        "http://api.test",
        client_id="acme",
        client_secret=SECRET,
        transport=httpx.MockTransport(service),
        **kwargs,
    )


async def test_a_form_only_token_endpoint_is_tried_once_and_remembered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    service = TokenService(accepts="form")
    async with client_for(service) as client:
        await client.get_charge(CHARGE_ID)
        await client.get_charge(CHARGE_ID)
        assert service.styles() == ["basic", "form"]
        # The token is refused later (401 on a call): the next fetch goes straight to the form.
        await client._auth.invalidate(client._auth.current)  # type: ignore[union-attr]
        await client.get_charge(CHARGE_ID)
    assert service.styles() == ["basic", "form", "form"]
    form = dict(httpx.QueryParams(service.token_requests[1].content.decode()))
    assert form == {
        "grant_type": "client_credentials",
        "client_id": "acme",
        "client_secret": SECRET,
    }
    assert len(service.api_requests) == 3
    assert SECRET not in caplog.text


async def test_a_basic_only_endpoint_is_asked_once_per_token() -> None:
    service = TokenService(accepts="basic")
    async with client_for(service) as client:
        await client.get_charge(CHARGE_ID)
    assert service.styles() == ["basic"]


async def test_both_styles_refused_is_one_error_without_the_secret() -> None:
    service = TokenService(accepts="neither")
    async with client_for(service) as client:
        with pytest.raises(AuthenticationError) as info:
            await client.get_charge(CHARGE_ID)
    assert service.styles() == ["basic", "form"]
    assert "tried form fields after HTTP Basic)" in str(info.value)
    assert SECRET not in str(info.value) and SECRET not in repr(info.value.body)
    assert not service.api_requests


@pytest.mark.parametrize(("pinned", "accepts"), [("form", "form"), ("basic", "form")])
async def test_a_pinned_style_is_the_only_one_sent(pinned: str, accepts: str) -> None:
    service = TokenService(accepts=accepts)
    async with client_for(service, token_auth=pinned) as client:
        if pinned == accepts:
            await client.get_charge(CHARGE_ID)
        else:
            with pytest.raises(AuthenticationError):
                await client.get_charge(CHARGE_ID)
    assert service.styles() == [pinned]


async def test_the_sandbox_takes_form_fields(sandbox_transport: httpx.ASGITransport) -> None:
    from tests.fixtures_api import DEMO_ID, DEMO_SECRET, SANDBOX_URL

    async with PaymentClient(
        SANDBOX_URL,
        client_id=DEMO_ID,
        client_secret=DEMO_SECRET,
        token_auth="form",
        transport=sandbox_transport,
    ) as client:
        info = await client.authenticate()
    assert info.access_token.get_secret_value()


async def test_a_30_second_token_is_reused_within_its_life() -> None:
    service = TokenService(accepts="basic", expires_in=30)
    async with client_for(service) as client:
        for _ in range(5):
            await client.get_charge(CHARGE_ID)
    assert len(service.token_requests) == 1
    assert len(service.api_requests) == 5


async def test_a_short_token_is_refreshed_a_quarter_of_its_life_before_it_ends() -> None:
    service = TokenService(accepts="basic", expires_in=40)
    now = [datetime(2030, 1, 1, tzinfo=UTC)]
    http = httpx.AsyncClient(base_url="http://api.test", transport=httpx.MockTransport(service))
    auth = ClientCredentialsAuth(http, "acme", SECRET, clock=lambda: now[0])
    async with http:
        first = await auth.token()
        now[0] += timedelta(seconds=29)  # 11 s left, margin 10 s: still good
        assert await auth.token() is first
        now[0] += timedelta(seconds=2)  # 9 s left: fetched again
        assert await auth.token() is not first
    assert len(service.token_requests) == 2
