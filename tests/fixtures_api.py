"""API client fixtures (owned by the api layer).

- `demo_client` / `limited_client`: a `PaymentClient` over the in-process sandbox
  (`sandbox_transport`, base URL ``http://sandbox``) with the demo (every scope) or the limited
  (accounts:read, merchants:read) credentials.
- `sandbox_server`: the same sandbox app (same `sandbox_db`, same `sandbox_faults`) served by
  uvicorn on a free loopback port in a background thread; yields its base URL.
- `api_client`: parametrised over both, so an integration test runs in-process *and* over a real
  socket (where timeouts, dropped connections and pooling are real).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import httpx

    from paytui.api.client import PaymentClient
    from paytui.sandbox.faults import Faults

SANDBOX_URL = "http://sandbox"
DEMO_ID, DEMO_SECRET = "paytui-demo", "paytui-demo-secret"
LIMITED_ID, LIMITED_SECRET = "paytui-limited", "paytui-limited-secret"


def _no_sleep_retries(client: PaymentClient) -> PaymentClient:
    """Keep GET retries but make their backoff tiny, so fault tests stay fast."""
    client.backoff_base = 0.01
    client.max_delay = 0.05
    return client


@pytest.fixture
async def demo_client(sandbox_transport: httpx.ASGITransport) -> AsyncIterator[PaymentClient]:
    from paytui.api.client import PaymentClient

    client = PaymentClient(
        SANDBOX_URL, client_id=DEMO_ID, client_secret=DEMO_SECRET, transport=sandbox_transport
    )
    async with _no_sleep_retries(client):
        yield client


@pytest.fixture
async def limited_client(sandbox_transport: httpx.ASGITransport) -> AsyncIterator[PaymentClient]:
    from paytui.api.client import PaymentClient

    client = PaymentClient(
        SANDBOX_URL, client_id=LIMITED_ID, client_secret=LIMITED_SECRET, transport=sandbox_transport
    )
    async with _no_sleep_retries(client):
        yield client


@pytest.fixture
def sandbox_server(sandbox_db: Path, sandbox_faults: Faults) -> Iterator[str]:
    """uvicorn on 127.0.0.1:<free port> in a thread; the base URL while the test runs."""
    import uvicorn

    from paytui.sandbox.app import create_app
    from tests.fixtures_sandbox import STILL_BOARDING

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))  # the kernel picks a free port; no race with another process
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(sandbox_db, faults=sandbox_faults, boarding_interval=STILL_BOARDING),
        log_level="error",
        lifespan="off",
        access_log=False,
        http="h11",  # as the served sandbox: it hears a hang-up mid-request (`client_watch`)
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="sandbox-uvicorn", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the loopback sandbox did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(params=["asgi", "loopback"])
async def api_client(request: pytest.FixtureRequest) -> AsyncIterator[PaymentClient]:
    """The demo client in-process and over a real socket (same database, same faults)."""
    from paytui.api.client import PaymentClient

    if request.param == "asgi":
        transport = request.getfixturevalue("sandbox_transport")
        client = PaymentClient(
            SANDBOX_URL, client_id=DEMO_ID, client_secret=DEMO_SECRET, transport=transport
        )
    else:
        base_url = request.getfixturevalue("sandbox_server")
        client = PaymentClient(base_url, client_id=DEMO_ID, client_secret=DEMO_SECRET, timeout=5)
    async with _no_sleep_retries(client):
        yield client
