"""Commit or never: a write whose client stopped waiting is rolled back, not committed late."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import anyio.to_thread
import httpx
import pytest

from paytui.sandbox import client_watch
from paytui.sandbox.client_watch import ClientWatch, watch_receive
from tests.sandbox.helpers import card, charge


@pytest.mark.parametrize("write", ["refund", "refund tags", "token"])
async def test_a_write_held_up_past_the_clients_timeout_is_never_committed(
    write: str,
    api: httpx.AsyncClient,
    account_id: str,
    sandbox_db: Path,
    sandbox_transport: httpx.AsyncBaseTransport,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another writer holds the database while the write waits: the client gives up, the
    writer lets go past the grace, and the write that could now commit is rolled back instead
    — it would otherwise land after the client's read-back had said "did not happen". Every
    action paytui proves by a read-back is covered, not only those the faults know."""
    monkeypatch.setattr(client_watch, "COMMIT_GRACE", 0.0)
    sale = (await charge(api, account_id, 20)).json()
    first = {"charge_id": sale["charge_id"], "total_amount": 1}
    refund = (await api.post("/v2/refunds", json=first)).json()
    requests: dict[str, tuple[str, str, dict[str, Any]]] = {
        "refund": ("POST", "/v2/refunds", {"charge_id": sale["charge_id"], "total_amount": 2}),
        "refund tags": ("PATCH", f"/v2/refunds/{refund['refund_id']}", {"tags": ["late"]}),
        "token": ("POST", "/v2/tokens", {"account_id": account_id, "payment_method": card()}),
    }

    async def state() -> object:
        refunds = await api.get("/v2/refunds", params={"charge_id": sale["charge_id"]})
        tokens = await api.get("/v2/tokens", params={"account_id": account_id, "limit": 500})
        return refunds.json(), tokens.json()["total"]

    before = await state()
    method, url, body = requests[write]
    blocker = sqlite3.connect(sandbox_db, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(httpx.ReadTimeout):
            await api.request(method, url, json=body, timeout=0.2)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    await sandbox_transport.drain()  # type: ignore[attr-defined]
    assert await state() == before
    # A client that waits gets it done as usual.
    done = await api.request(method, url, json=body)
    assert done.status_code in (200, 201)
    assert await state() != before


def test_a_client_closing_its_socket_is_noticed_while_the_endpoint_runs() -> None:
    """Over a real socket: once the body is read, the watch hears the client hang up."""
    import uvicorn

    noticed = threading.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        watch = ClientWatch()
        async with watch_receive(receive, watch) as watched:
            while (await watched()).get("more_body"):
                pass
            if await anyio.to_thread.run_sync(watch.wait, 30):
                noticed.set()
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        port = sock.getsockname()[1]
        while not server.started and thread.is_alive():
            thread.join(0.01)  # until uvicorn listens
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"http://127.0.0.1:{port}/v2/refunds", json={"a": 1}, timeout=0.3)
        assert noticed.wait(30)
    finally:
        server.should_exit = True
        thread.join(10)


async def test_a_write_past_the_deadline_its_client_stated_is_never_committed(
    api: httpx.AsyncClient,
    account_id: str,
    sandbox_db: Path,
    sandbox_transport: httpx.AsyncBaseTransport,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However late the server notices a hang-up (here never: the client keeps waiting), the
    moment the client said it gives up counts as its leaving: a write that arrived in time but
    reaches its commit past that moment is rolled back. A deadline already past on arrival is
    not trusted (the clocks may disagree), nor a value that is not a moment."""
    monkeypatch.setattr(client_watch, "COMMIT_GRACE", 0.0)
    sale = (await charge(api, account_id, 20)).json()
    body = {"charge_id": sale["charge_id"], "total_amount": 1}

    async def refunds() -> int:
        found = await api.get("/v2/refunds", params={"charge_id": sale["charge_id"]})
        return int(found.json()["total"])

    def stating(seconds: float) -> dict[str, str]:
        return {client_watch.GIVE_UP_HEADER: f"{time.time() + seconds:.3f}"}

    blocker = sqlite3.connect(sandbox_db, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")  # another writer: the refund waits for its commit
    try:
        # A second to arrive in (a deadline already past on arrival is not trusted), then
        # the stated deadline passes while the refund waits for the other writer.
        late = asyncio.ensure_future(api.post("/v2/refunds", json=body, headers=stating(1.0)))
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.shield(late), 1.2)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    answer = await late
    assert answer.status_code == 503 and answer.json()["error"] == "client_left"
    await sandbox_transport.drain()  # type: ignore[attr-defined]
    assert await refunds() == 0
    for odd in ("soon", "nan", "inf", f"{time.time() - 60:.3f}"):  # as if not stated
        sent = await api.post("/v2/refunds", json=body, headers={client_watch.GIVE_UP_HEADER: odd})
        assert sent.status_code == 201
    assert (await api.post("/v2/refunds", json=body, headers=stating(10))).status_code == 201
    assert await refunds() == 5
