"""The evidence pack's tests: the demo's cases on the in-process sandbox, and a raw client for
its sandbox-only practice endpoint (`POST /sandbox/charges/{id}/chargeback`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.fixtures_sandbox import raw_client
from tests.sandbox.helpers import BASE, get_token


@pytest.fixture
async def api(sandbox_transport: httpx.ASGITransport) -> AsyncIterator[httpx.AsyncClient]:
    """A raw client of the same sandbox, as the demo client (every scope)."""
    async with raw_client(sandbox_transport, BASE) as http:
        token = await get_token(http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
        http.headers["Authorization"] = f"Bearer {token}"
        yield http
