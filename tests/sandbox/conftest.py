"""Helpers for the sandbox's own tests: raw httpx clients over the in-process transport."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from paytui.sandbox import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
)
from tests.fixtures_sandbox import raw_client
from tests.sandbox.helpers import BASE, get_token


@pytest.fixture
async def anon(sandbox_transport: httpx.ASGITransport) -> AsyncIterator[httpx.AsyncClient]:
    """A client without credentials."""
    async with raw_client(sandbox_transport, BASE) as http:
        yield http


@pytest.fixture
async def api(anon: httpx.AsyncClient) -> httpx.AsyncClient:
    """The same client, authenticated as the demo client (every scope)."""
    token = await get_token(anon, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    anon.headers["Authorization"] = f"Bearer {token}"
    return anon


@pytest.fixture
async def limited(sandbox_transport: httpx.ASGITransport) -> AsyncIterator[httpx.AsyncClient]:
    async with raw_client(sandbox_transport, BASE) as http:
        token = await get_token(http, LIMITED_CLIENT_ID, LIMITED_CLIENT_SECRET)
        http.headers["Authorization"] = f"Bearer {token}"
        yield http


@pytest.fixture
async def account_id(api: httpx.AsyncClient) -> str:
    """An approved account of the demo data."""
    response = await api.get("/v2/accounts", params={"status": "approved", "limit": 500})
    accounts = response.json()["data"]
    return str(next(a["account_id"] for a in accounts if a["name"] == "Blue Fern Café POS"))
