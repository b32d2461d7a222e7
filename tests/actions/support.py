"""Test support of the action tests: a transport that watches, and server-side look-ups.

`WireTransport` wraps the sandbox's ASGI transport and
- records every request (method, path, JSON body) so tests count what was really *sent*;
- calls `on_send(request)` before forwarding, so a test can inspect the journal at the moment
  the request leaves (the intent-before-request property);
- can make POSTs time out client-side after `post_timeout` seconds while the server carries on
  (`abandon=True`, what a real server does when the client hangs up) or is cut off with them
  (`abandon=False`: the request dies before the service commits);
- can fail every GET with a connection error (`fail_gets`), so a read-back fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery, RefundQuery

BASE_URL = "http://sandbox"
PROFILE = "sandbox"
#: How long a test waits for an event before calling it a hang: not a bound on speed (with the
#: machine loaded the event may come minutes later); only a hang fails.
HANG_GUARD = 600.0


@dataclass
class Sent:
    method: str
    path: str
    body: Any


class WireTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent: list[Sent] = []
        self.on_send: Callable[[httpx.Request], None] | None = None
        self.post_timeout: float | None = None
        self.abandon = True
        self.fail_gets = False
        self.background: set[asyncio.Task[Any]] = set()

    def posts(self, path_part: str = "") -> list[Sent]:
        """Requests that change data (POST/PATCH/PUT) whose path contains `path_part`."""
        return [s for s in self.sent if s.method != "GET" and path_part in s.path]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/v2/services"):  # the OAuth token: not interesting
            return await self.inner.handle_async_request(request)
        body = json.loads(request.content) if request.content else None
        self.sent.append(Sent(request.method, request.url.path, body))
        if self.on_send is not None:
            self.on_send(request)
        if request.method == "GET" and self.fail_gets:
            raise httpx.ConnectError("test: reads are down", request=request)
        if request.method != "GET" and self.post_timeout is not None:
            task = asyncio.ensure_future(self._complete(request))
            self.background.add(task)
            task.add_done_callback(self.background.discard)
            done, _ = await asyncio.wait({task}, timeout=self.post_timeout)
            if not done:
                if not self.abandon:
                    task.cancel()
                    # The in-process sandbox keeps a request running when its caller goes (as
                    # a server does): here the request dies with the client, so stop it too.
                    for running in list(getattr(self.inner, "detached", ())):
                        running.cancel()
                raise httpx.ReadTimeout("test: no answer in time", request=request)
            return task.result()
        return await self.inner.handle_async_request(request)

    async def _complete(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        await response.aread()
        return response

    async def drain(self) -> None:
        """Let requests the client gave up on finish (or die) before the test looks."""
        if self.background:
            await asyncio.gather(*self.background, return_exceptions=True)


class ClockedService(httpx.AsyncBaseTransport):
    """The service on the fake clock's time, for the proofs' arithmetic without real waiting.

    A request that commits something (`operation_of`) is held: the client waits
    `gives_up_after` seconds of the clock (its timeout) and gets a `ReadTimeout`; the service
    commits it `commit_after` seconds after it arrived. Every later request first lets the held
    ones that are due commit, so a read-back sees exactly what the service holds at that time.
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        clock: FakeClock,
        *,
        commit_after: float,
        gives_up_after: float,
    ) -> None:
        self.inner = inner
        self.clock = clock
        self.commit_after = commit_after
        self.gives_up_after = gives_up_after
        self.held: list[tuple[Any, httpx.Request]] = []
        self.committed: list[Any] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        from datetime import timedelta

        from paytui.sandbox.faults import operation_of

        await self._commit_due()
        if operation_of(request.method, request.url.path) is None:
            return await self.inner.handle_async_request(request)
        self.held.append((self.clock.now + timedelta(seconds=self.commit_after), request))
        self.clock.now += timedelta(seconds=self.gives_up_after)
        raise httpx.ReadTimeout("test: no answer in time", request=request)

    async def _commit_due(self) -> None:
        due = [request for at, request in self.held if at <= self.clock.now]
        self.held = [(at, request) for at, request in self.held if at > self.clock.now]
        for request in due:
            response = await self.inner.handle_async_request(request)
            await response.aread()
            self.committed.append(self.clock.now)


def clocked_executor(
    client: PaymentClient,
    journal: Any,
    clock: FakeClock,
    policy: Any = None,
    **options: Any,
) -> Any:
    """An executor on the fake clock (a new process: its start is the clock's now); `policy`
    defaults to every scope, not read-only; `options` go to `ActionExecutor` (`client_id`...)."""
    from paytui.actions.executor import ActionExecutor
    from paytui.actions.policy import ActionPolicy

    options = {"profile": PROFILE, "base_url": BASE_URL, **options}
    return ActionExecutor(
        client, journal, policy or ActionPolicy(), clock=clock, sleep=clock.sleep, **options
    )


# ------------------------------------------------------------------ finding things to act on


async def first_open(client: PaymentClient, query: ChargeQuery, skip: int = 0) -> Charge:
    page = await client.search_charges_page(query, limit=50)
    candidates = [c for c in page.items if not c.reversal_flag and not c.chargebacks]
    return candidates[skip]


async def captures_of(client: PaymentClient, auth_id: str) -> list[Charge]:
    """Every capture of an authorization, as the server holds them."""
    page = await client.search_charges_page(ChargeQuery(original_charge_id=auth_id), limit=50)
    return [c for c in page.items if c.original_charge_id == auth_id]


async def refunds_of(client: PaymentClient, charge_id: str) -> list[Any]:
    page = await client.search_refunds_page(RefundQuery(charge_id=charge_id), limit=100)
    return [r for r in page.items if r.charge_id == charge_id]


async def unrefunded_sales(client: PaymentClient, count: int) -> list[Charge]:
    """`count` card sales of the demo data with nothing refunded yet (10.00 or more)."""
    page = await client.search_charges_page(
        ChargeQuery(charge_type="sale", status="success", method="card"), limit=100
    )
    found: list[Charge] = []
    for charge in page.items:
        if charge.reversal_flag or charge.chargebacks or (charge.total_amount or 0) < 10:
            continue
        if not await refunds_of(client, charge.charge_id):
            found.append(charge)
        if len(found) == count:
            return found
    raise AssertionError("not enough unrefunded sales in the demo data")


async def refunded_total(client: PaymentClient, charge_id: str) -> Decimal:
    return sum((r.total_amount for r in await refunds_of(client, charge_id)), Decimal(0))


class FakeClock:
    """The executor's clock and sleep for tests: `sleep` advances the clock at once, so waiting
    out a request deadline costs nothing where nothing real is late."""

    def __init__(self) -> None:
        from datetime import UTC, datetime

        self.now = datetime.now(UTC)
        self.slept: list[float] = []

    def __call__(self) -> Any:
        return self.now

    async def sleep(self, seconds: float) -> None:
        from datetime import timedelta

        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)
        await asyncio.sleep(0)


def refund_intent(journal: Any, charge_id: str, amount: str, settle: float = 12.0) -> Any:
    """A refund's intent as the executor writes it ("pending")."""
    return journal.record_intent(
        profile=PROFILE,
        base_url=BASE_URL,
        operation="refund",
        charge_id=charge_id,
        amount=Decimal(amount),
        request_summary={"total_amount": amount},
        settle_seconds=settle,
    )


def raw_sql(location: Path | str, sql: str) -> None:
    """Statements straight to a journal's database (a file, or a team's PostgreSQL URL), as
    someone going around paytui would."""
    if isinstance(location, Path):
        db = sqlite3.connect(location)
        try:
            db.executescript(sql)
        finally:
            db.close()
        return
    import psycopg

    with psycopg.connect(location, autocommit=True) as db:
        db.execute(sql.encode())


def demo_env(base_url: str) -> dict[str, str]:
    """The environment of a `paytui` process of a test: the demo client on `base_url` (in the
    environment, never argv), no profile or static token of the machine's own."""
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    env = {
        **os.environ,
        "PAYTUI_BASE_URL": base_url,
        "PAYTUI_CLIENT_ID": DEMO_CLIENT_ID,
        "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET,
    }
    env.pop("PAYTUI_PROFILE", None)
    env.pop("PAYTUI_TOKEN", None)
    return env


def made_for(request: Any) -> tuple[str, Any]:
    """The target and parameters of an operation that makes something from a request, for
    `ActionExecutor.run`: a new charge or token (its account), an account (its merchant), a
    plugin session (`session_target`)."""
    from paytui.actions.ops import account, charge, plugins, token
    from paytui.api.models import ChargeRequest, TokenRequest
    from paytui.api.plugins import AccountRequest

    if isinstance(request, ChargeRequest):
        return request.account_id, charge.Params(request)
    if isinstance(request, TokenRequest):
        return request.account_id, token.CreateParams(request)
    if isinstance(request, AccountRequest):
        return request.merchant_id, account.Params(request)
    return plugins.session_target(request), plugins.SessionParams(request)
