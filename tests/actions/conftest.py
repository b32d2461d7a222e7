"""Fixtures of the action tests: the real in-process sandbox behind `support.WireTransport`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.policy import ActionPolicy
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.actions.support import (
    BASE_URL,
    FakeClock,
    WireTransport,
    clocked_executor,
    first_open,
    refunds_of,
)


@pytest.fixture
def wire(sandbox_transport: httpx.AsyncBaseTransport) -> WireTransport:
    return WireTransport(sandbox_transport)


async def _no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture
async def client(wire: WireTransport) -> AsyncIterator[PaymentClient]:
    api = PaymentClient(
        BASE_URL, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET, transport=wire
    )
    api.sleep = _no_sleep  # GET retries without real backoff
    yield api
    await wire.drain()
    await api.aclose()


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "journal.sqlite3"


@pytest.fixture(params=["sqlite", "postgresql"])
def journal_location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A journal on each engine: this person's SQLite file, and a team's PostgreSQL (a schema
    of its own on the server the environment names). A module that means both overrides
    `journal_path` with this, so the same tests run on both."""
    if request.param == "postgresql":
        url: str = request.getfixturevalue("team_journal_url")
        return url
    return tmp_path / "data" / "journal.sqlite3"


@pytest.fixture
def journal(journal_path: Path) -> Iterator[Journal]:
    with Journal(journal_path) as opened:
        yield opened


@pytest.fixture
def policy() -> ActionPolicy:
    return ActionPolicy()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def executor(
    client: PaymentClient, journal: Journal, policy: ActionPolicy, clock: FakeClock
) -> AsyncIterator[ActionExecutor]:
    runner = clocked_executor(client, journal, clock, policy)
    yield runner
    await runner.aclose()


@pytest.fixture
async def authorization(client: PaymentClient) -> Charge:
    """An open (uncaptured, successful) authorization."""
    query = ChargeQuery(charge_type="authorization", captured=False, status="success")
    return await first_open(client, query)


@pytest.fixture
async def sale(client: PaymentClient) -> Charge:
    """A successful card sale with nothing refunded yet."""
    page = await client.search_charges_page(
        ChargeQuery(charge_type="sale", status="success", method="card"), limit=50
    )
    for charge in page.items:
        if charge.reversal_flag or charge.chargebacks:
            continue
        if not (await refunds_of(client, charge.charge_id)):
            return charge
    raise AssertionError("no unrefunded sale in the demo data")
