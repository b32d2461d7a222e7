"""Accounts (`3`): grouping, status filter, account detail and its charges, limited client, watch.

The transport here is built with a huge `boarding_interval`, so the sandbox's own boarding clock
never moves an account during a test; watch-mode tests move one explicitly with
`POST /sandbox/accounts/{id}/advance`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.sandbox.faults import Faults
from paytui.ui import format as fmt
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.account_detail import AccountDetailScreen
from paytui.ui.screens.accounts import CHANGED_STYLE, MERCHANT_ROW, AccountsScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from paytui.ui.widgets.nav_table import NavTable
from paytui.ui.widgets.query_input import QueryInput
from tests.fixtures_sandbox import bound_app, raw_client
from tests.sandbox.helpers import get_token
from tests.ui.conftest import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    HANG_GUARD,
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
    make_app,
    press_settled,
    run_in_palette,
    screen_text,
    settle,
)

STOREFRONT = "Meadow & Pine Storefront"  # seeded `submitted`; the one the sandbox auto-advances


@pytest.fixture
def still_transport(
    request: pytest.FixtureRequest, sandbox_db: Path, sandbox_faults: Faults
) -> httpx.ASGITransport:
    """The seeded sandbox with its boarding clock stopped (nothing moves unless asked)."""
    return httpx.ASGITransport(app=bound_app(request, sandbox_db, sandbox_faults))


async def open_accounts(app: PaytuiApp, pilot: Any) -> AccountsScreen:
    await settle(app, pilot)
    await press_settled(app, pilot, "3")
    screen = app.screen
    assert isinstance(screen, AccountsScreen)
    return screen


def row_keys(table: NavTable) -> list[str]:
    return [str(row.key.value) for row in table.ordered_rows]


def move_to(table: NavTable, key: str) -> None:
    table.move_cursor(row=table.get_row_index(key), animate=False)


def account_named(screen: AccountsScreen, name: str) -> Any:
    return next(a for a in screen.accounts if a.name == name)


@pytest.fixture
def watch_app(still_transport: httpx.AsyncBaseTransport) -> PaytuiApp:
    """An app over the still sandbox whose Accounts watch (`w`) reads every 0.1 s."""
    app = make_app(still_transport)
    app.session.watch_interval = 0.1  # type: ignore[attr-defined]
    return app


async def watch_accounts(app: PaytuiApp, pilot: Any) -> AccountsScreen:
    """Accounts opened and watched (`w`)."""
    screen = await open_accounts(app, pilot)
    await press_settled(app, pilot, "w")
    assert screen.watching
    return screen


async def until(pilot: Any, condition: Callable[[], bool]) -> None:
    """A watch's next reads (its timer's), until `condition` holds. However many periods that
    takes on a loaded machine: only a hang (`HANG_GUARD`) ends the wait without it."""
    async with asyncio.timeout(HANG_GUARD):
        while not condition():
            await pilot.pause(0.05)


def fail(faults: Faults, path: str | None) -> None:
    """The sandbox answers 500 to every request under `path`; None: it answers again."""
    faults.update({"fail_status": None if path is None else 500, "fail_path_prefix": path})


async def test_accounts_grouped_by_merchant_with_every_status(
    still_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(still_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_accounts(app, pilot)
        assert screen.state == "results"
        statuses = {a.status for a in screen.accounts}
        assert statuses == set(fmt.BOARDING_STATUSES)
        table = screen.query_one(NavTable)
        keys = row_keys(table)
        # Every merchant row is followed by its own accounts only.
        current_merchant = None
        for key in keys:
            if key.startswith(MERCHANT_ROW):
                current_merchant = key.removeprefix(MERCHANT_ROW)
                continue
            account = next(a for a in screen.accounts if a.account_id == key)
            assert account.merchant_id == current_merchant
        assert sum(k.startswith(MERCHANT_ROW) for k in keys) == 7
        text = screen_text(app)
        assert "Meadow & Pine Florist" in text
        for status in fmt.BOARDING_STATUSES:
            assert f"{status} · {fmt.boarding_meaning(status)}" in text
        assert "Lakeside Township, MN" in text  # tax authority where set
        assert "Showing 14 of 14" in text
        # Each status its own colour.
        assert len({fmt.BOARDING_STYLES[s] for s in fmt.BOARDING_STATUSES}) == 8


async def test_status_filter_cycles(still_transport: httpx.AsyncBaseTransport) -> None:
    app = make_app(still_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_accounts(app, pilot)
        table = screen.query_one(NavTable)
        await pilot.press("f")  # draft
        assert screen.status_filter == "draft"
        await pilot.press("f", "f", "f", "f")  # submitted, in_review, info_required, approved
        await pilot.pause()
        assert screen.status_filter == "approved"
        accounts = [k for k in row_keys(table) if not k.startswith(MERCHANT_ROW)]
        assert len(accounts) == 7
        assert all(
            next(a for a in screen.accounts if a.account_id == k).status == "approved"
            for k in accounts
        )
        assert "Showing 7 of 14" in screen_text(app)
        await pilot.press("F")
        await pilot.pause()
        assert screen.status_filter is None
        assert len([k for k in row_keys(table) if not k.startswith(MERCHANT_ROW)]) == 14


async def open_account_detail(app: Any, pilot: Any, name: str) -> tuple[Any, AccountDetailScreen]:
    """From the accounts list, `enter` on the account called `name`: (that account, its detail)."""
    screen = await open_accounts(app, pilot)
    account = account_named(screen, name)
    move_to(screen.query_one(NavTable), account.account_id)
    await press_settled(app, pilot, "enter")
    detail = app.screen
    assert isinstance(detail, AccountDetailScreen)
    return account, detail


async def test_open_account_and_jump_to_its_charges(
    still_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(still_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        account, detail = await open_account_detail(app, pilot, "Blue Fern Café POS")
        assert detail.account_id == account.account_id
        assert detail.charges_state == "results"
        assert detail.charges and all(c.account_id == account.account_id for c in detail.charges)
        text = screen_text(app)
        assert "approved · live" in text and "Blue Fern Coffee Roasters" in text
        # The sentence names the key that does it (the footer's), then that key does it.
        assert "/ searches all of this account's charges" in text

        await press_settled(app, pilot, "slash")
        await settle(app, pilot)
        search = app.screen
        assert isinstance(search, ChargeSearchScreen)
        assert search.query_one(QueryInput).value == f"account:{account.account_id}"
        assert search.state == "results"
        table = search.query_one(ChargeTable)
        charge = table.cursor_charge
        assert charge is not None and charge.account_id == account.account_id
        assert search._query is not None and search._query.account_id == account.account_id


async def test_limited_client_sees_accounts_and_a_scope_message(
    still_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(
        still_transport, client_id=LIMITED_CLIENT_ID, client_secret=LIMITED_CLIENT_SECRET
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_accounts(app, pilot)
        assert screen.state == "results"
        assert len(screen.accounts) == 14
        await press_settled(app, pilot, "enter")
        detail = app.screen
        assert isinstance(detail, AccountDetailScreen)
        assert detail.charges_state == "forbidden"
        text = screen_text(app)
        assert "Your token lacks urn:v2:charges:all" in text
        assert "Error" not in text and "403" not in text


async def test_watch_mode_highlights_and_announces_a_change(
    watch_app: PaytuiApp, still_transport: httpx.AsyncBaseTransport
) -> None:
    app = watch_app
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await watch_accounts(app, pilot)
        storefront = account_named(screen, STOREFRONT)
        assert storefront.status == "submitted"
        assert "watching · every 0.1s · last read 18:30:00" in screen_text(app)

        async with raw_client(still_transport, "http://sandbox") as raw:
            token = await get_token(raw, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
            answer = await raw.post(
                f"/sandbox/accounts/{storefront.account_id}/advance",
                headers={"Authorization": f"Bearer {token}"},
            )
            assert answer.status_code == 200, answer.text
        await until(pilot, lambda: storefront.account_id in screen.changed_ids)
        await settle(app, pilot)
        assert screen.changed_ids == {storefront.account_id}
        assert account_named(screen, STOREFRONT).status == "in_review"
        table = screen.query_one(NavTable)
        row = table.get_row(storefront.account_id)
        assert row[0].plain.startswith("◆ ")
        assert any(span.style == CHANGED_STYLE for span in row[2].spans)
        notes = [n.message for n in app._notifications]
        assert any(f"{storefront.account_id} submitted → in_review" in n for n in notes)
        text = screen_text(app)
        assert "in_review · checking" in text

        await pilot.press("w")
        await pilot.pause()
        assert not screen.watching and not screen.changed_ids


async def test_watch_stops_reading_while_accounts_is_left_and_goes_on_back(
    watch_app: PaytuiApp,
) -> None:
    """Issue 44: `w` on Accounts kept re-reading every few seconds after the agent went to the
    charges. Away, the watch's timer is gone (it stays on); back on Accounts it reads again."""
    app = watch_app
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await watch_accounts(app, pilot)
        assert screen.watching and screen.polling
        await press_settled(app, pilot, "1")
        assert isinstance(app.screen, ChargeSearchScreen)
        assert screen.watching and not screen.polling
        await press_settled(app, pilot, "3")
        assert app.screen is screen and screen.watching and screen.polling
        await press_settled(app, pilot, "w")
        assert not screen.polling


async def test_the_watch_of_a_workspace_not_shown_stops_reading(
    watch_app: PaytuiApp,
) -> None:
    """Workspaces: Accounts watched in one workspace, another shown (`ctrl+t`): the first's
    watch stops polling, not one timer per workspace; shown again (`ctrl+PgUp`), it goes on."""
    app = watch_app
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await watch_accounts(app, pilot)
        assert screen.polling
        await press_settled(app, pilot, "ctrl+t")  # Accounts, in a second workspace (not watching)
        other = app.screen
        assert isinstance(other, AccountsScreen) and other is not screen
        assert screen.watching and not screen.polling and not other.polling
        await press_settled(app, pilot, "ctrl+pageup")
        assert app.screen is screen and screen.polling and not other.polling


async def test_watch_mode_survives_an_error(watch_app: PaytuiApp, sandbox_faults: Faults) -> None:
    app = watch_app
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await watch_accounts(app, pilot)
        fail(sandbox_faults, "/v2/accounts")
        await until(pilot, lambda: screen.error_shown)
        assert screen.error_shown
        assert screen.state == "results"  # the last good list stays
        assert "watch continues" in screen_text(app)
        fail(sandbox_faults, None)
        await until(pilot, lambda: not screen.error_shown)
        assert not screen.error_shown
        assert screen.watching
        await press_settled(app, pilot, "w")


async def test_error_state_and_retry(
    still_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults
) -> None:
    fail(sandbox_faults, "/v2/accounts")
    app = make_app(still_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_accounts(app, pilot)
        assert screen.state == "error"
        assert "ctrl+r" in screen_text(app)
        fail(sandbox_faults, None)
        await press_settled(app, pilot, "ctrl+r")
        assert screen.state == "results"


async def test_status_filter_from_the_command_palette(
    still_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(still_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_accounts(app, pilot)
        await run_in_palette(app, pilot, "show only info_required")
        assert app.screen is screen
        assert screen.status_filter == "info_required"
        assert "Showing 1 of 14" in screen_text(app)


async def test_account_detail_charges_error_and_retry(
    still_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults
) -> None:
    app = make_app(still_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_accounts(app, pilot)
        fail(sandbox_faults, "/v2/charges")
        await press_settled(app, pilot, "enter")
        detail = app.screen
        assert isinstance(detail, AccountDetailScreen)
        assert detail.charges_state == "error"
        text = screen_text(app)
        assert "ctrl+r" in text and "approved · live" in text
        fail(sandbox_faults, None)
        await press_settled(app, pilot, "ctrl+r")
        assert detail.charges_state == "results"


class _IgnoresAccountFilter(httpx.AsyncBaseTransport):
    """A service that ignores `account_id` on a charge search (as a real one may ignore a
    parameter it does not know): every account's charges come back."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/charges" and "account_id" in request.url.params:
            request = httpx.Request(
                request.method,
                request.url.copy_remove_param("account_id"),
                headers=request.headers,
                content=request.content,
            )
        return await self.inner.handle_async_request(request)


async def test_an_account_s_charges_say_when_the_service_ignored_the_account(
    still_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(_IgnoresAccountFilter(still_transport))
    async with app.run_test(size=(120, 40)) as pilot:
        account, detail = await open_account_detail(app, pilot, "Blue Fern Café POS")
        # Another account's charges came back: left out (the filter applied here), and said.
        assert all(c.account_id == account.account_id for c in detail.charges)
        assert "Filtered here: account_id (the service did not apply them)" in screen_text(app)
