"""Broken servers: every odd answer becomes one of the client's own errors, never a crash or a
hang. Deep nesting, huge numbers, bad bytes, NaN, redirects, one bad item in a page, a server
that trickles its body, and a Retry-After of days.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from decimal import Decimal

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.api.errors import (
    MalformedResponseError,
    RateLimitedError,
    RedirectError,
    RequestTimeoutError,
    ServerError,
)
from paytui.api.models import Charge, UnreadableItem
from tests.api.test_client import CHARGE, CHARGE_ID, Recorder, charge_request, make_client

DEEP = b"[" * 100_000 + b"]" * 100_000


def raw(status: int, content: bytes, **headers: str) -> httpx.Response:
    return httpx.Response(status, content=content, headers=headers)


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(DEEP, id="nested-100000-deep"),
        pytest.param(b'{"charge_id": "' + b"\xff\xfe" + b'"}', id="not-utf8"),
        pytest.param(b'{"charge_id": "c", "total_amount": ' + b"9" * 5000 + b"}", id="huge-int"),
        pytest.param(b'{"charge_id": "c", "tags": ' + DEEP + b"}", id="nested-field"),
        pytest.param(b"<html>proxy</html>", id="html"),
    ],
)
async def test_an_unreadable_answer_is_a_malformed_response(content: bytes) -> None:
    async with make_client(Recorder(raw(200, content))) as client:
        with pytest.raises(MalformedResponseError):
            await client.get_charge(CHARGE_ID)


async def test_an_error_body_nested_too_deeply_still_gives_the_status() -> None:
    async with make_client(Recorder(raw(500, DEEP))) as client:
        with pytest.raises(ServerError) as info:
            await client.capture(CHARGE_ID)
    assert info.value.status == 500 and info.value.outcome_unknown


async def test_an_amount_with_an_exponent_is_read_exactly() -> None:
    body = b'{"charge_id": "c", "total_amount": 1E+26}'
    async with make_client(Recorder(raw(200, body))) as client:
        charge = await client.get_charge("c")
    assert charge.total_amount == Decimal("1E+26")


async def test_a_redirect_is_a_clear_error_naming_where_it_pointed() -> None:
    answer = raw(302, b"", Location="https://login.example/sso")
    async with make_client(Recorder(answer)) as client:
        with pytest.raises(RedirectError) as info:
            await client.get_charge(CHARGE_ID)
    assert info.value.status == 302
    assert "redirected to https://login.example/" in str(info.value)
    assert "base URL" in str(info.value)


async def test_one_unreadable_item_does_not_sink_the_page() -> None:
    good = {**CHARGE, "charge_id": "a"}
    # One odd field only makes that field unreadable (tests/api/test_trust.py); no id does more.
    bad = {"id": "b", "total_amount": 1, "convenience_fee": {"amount": 1}}
    last = {**CHARGE, "charge_id": "c"}
    answer = httpx.Response(200, json={"data": [good, bad, last], "total": 3})
    async with make_client(Recorder(answer)) as client:
        page = await client.search_charges_page(limit=50)
    assert [c.charge_id for c in page.items] == ["a", "c"]
    assert len(page.unreadable) == 1
    unreadable = page.unreadable[0]
    assert (unreadable.position, unreadable.id) == (1, "b")
    assert "charge_id" in unreadable.reason
    rows = page.rows()
    assert isinstance(rows[1], UnreadableItem) and isinstance(rows[2], Charge)
    assert page.next_offset == 3 and page.has_more is False


# -- hangs ---------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def trickling_server() -> AsyncIterator[str]:
    """A real HTTP server on 127.0.0.1 that sends its headers, then one body byte at a time with
    a pause between them, longer in total than any deadline the tests use (but each pause shorter
    than the per-read timeout, so only an overall deadline can end it)."""
    stop = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await reader.readuntil(b"\r\n\r\n")
            body = b'{"charge_id": "' + b"x" * 400 + b'"}'
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
            )
            for byte in body:
                if stop.is_set():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.2)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        server.close()
        await server.wait_closed()


async def test_a_trickling_server_ends_as_a_timeout() -> None:
    async with trickling_server() as url:
        client = PaymentClient(url, token="t", timeout=5.0, deadline=1.0, max_retries=0)
        async with client:
            with pytest.raises(RequestTimeoutError) as info:
                await client.get_charge(CHARGE_ID)
    assert "no complete answer" in str(info.value)


async def test_a_money_request_hitting_the_deadline_is_outcome_unknown() -> None:
    async with trickling_server() as url:
        client = PaymentClient(url, token="t", timeout=5.0, deadline=1.0, max_retries=0)
        async with client:
            with pytest.raises(RequestTimeoutError) as info:
                await client.create_charge(charge_request())
    assert info.value.request_sent is True
    assert "outcome unknown" in str(info.value)


async def test_retry_after_of_days_waits_at_most_the_budget_then_says_when() -> None:
    slow = httpx.Response(429, json={"message": "slow"}, headers={"Retry-After": "999999"})
    rec = Recorder(slow)
    async with make_client(rec, max_retries=3) as client:
        with pytest.raises(RateLimitedError) as info:
            await client.get_charge(CHARGE_ID)
    assert sum(client.sleeps) <= client.max_wait  # type: ignore[attr-defined]
    assert len(rec.api_requests) == 2  # one wait of the capped length, then it gives up
    assert info.value.retry_after == 999999


async def test_waiting_for_retry_after_can_be_cancelled() -> None:
    slow = httpx.Response(503, json={"message": "later"}, headers={"Retry-After": "20"})
    client = PaymentClient(
        "http://api.test", token="t", transport=httpx.MockTransport(Recorder(slow))
    )
    started = asyncio.Event()

    async def sleep(seconds: float) -> None:
        started.set()
        await asyncio.Event().wait()  # never set: only cancellation ends it

    client.sleep = sleep
    async with client:
        task = asyncio.create_task(client.get_charge(CHARGE_ID))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
