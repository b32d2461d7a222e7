"""Every error state of the charge search: a clear message, a notification, and retry that works.

Faults come from the sandbox's switches (`sandbox_faults`); the timeout from a transport that
raises the way httpx does (the in-process ASGI transport has no timeouts of its own).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from paytui.ui.widgets.query_input import QueryInput
from tests.ui.conftest import (
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
    make_app,
    screen_text,
    settle,
)

SIZE = (120, 40)


class TimeoutOnce(httpx.AsyncBaseTransport):
    """The first `count` charge searches time out; then the sandbox answers."""

    def __init__(self, inner: httpx.AsyncBaseTransport, count: int = 1) -> None:
        self.inner = inner
        self.count = count

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/charges" and self.count > 0:
            self.count -= 1
            raise httpx.ReadTimeout("timed out", request=request)
        return await self.inner.handle_async_request(request)


def error_text(app: Any) -> str:
    return screen_text(app)


async def retry_recovers(app: Any, pilot: Any) -> None:
    await pilot.press("ctrl+r")
    await settle(app, pilot)
    screen = app.screen
    assert screen.state == "results", screen_text(app)
    assert screen.query_one(ChargeTable).total == 3015


@pytest.mark.parametrize(
    ("status", "count", "words"),
    [
        # The client renews its token once on a 401 before giving up: two 401s reach the user.
        (401, 2, "Not signed in (401)"),
        (404, 1, "Not found (404)"),
        (500, 1, "Service error (500)"),
    ],
)
async def test_status_errors_show_message_and_retry_works(
    sandbox_transport: httpx.AsyncBaseTransport,
    sandbox_faults: Any,
    status: int,
    count: int,
    words: str,
) -> None:
    sandbox_faults.fail_status = status
    sandbox_faults.fail_path_prefix = "/v2/charges"
    sandbox_faults.fail_count = count
    app = make_app(sandbox_transport)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        assert screen.state == "error"
        text = error_text(app)
        assert words in text and "ctrl+r" in text
        assert any(n.severity == "error" and n.title == words for n in app._notifications)
        await retry_recovers(app, pilot)


async def test_timeout_shows_message_and_retry_works(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(TimeoutOnce(sandbox_transport))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.screen.state == "error"
        assert "Timed out" in error_text(app)
        await retry_recovers(app, pilot)


async def test_forbidden_names_the_missing_scope(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(
        sandbox_transport, client_id=LIMITED_CLIENT_ID, client_secret=LIMITED_CLIENT_SECRET
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.screen.state == "error"
        text = error_text(app)
        assert "Not allowed (403)" in text and "urn:v2:charges" in text
        await pilot.press("ctrl+r")  # retrying cannot grant a scope: still a clear error
        await settle(app, pilot)
        assert app.screen.state == "error"


async def test_bad_credentials_are_a_clear_401(sandbox_transport: httpx.AsyncBaseTransport) -> None:
    app = make_app(sandbox_transport, client_secret="not-the-secret")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.screen.state == "error"
        assert "Not signed in (401)" in error_text(app)
        assert "not-the-secret" not in error_text(app)


async def test_query_text_survives_an_error_and_retry_runs_it(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Any
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("slash")
        sandbox_faults.fail_status = 500
        sandbox_faults.fail_path_prefix = "/v2/charges"
        sandbox_faults.fail_count = 1
        # The search follows the typing: this one meets the failure.
        screen.query_one(QueryInput).insert_text_at_cursor("status:chargeback")
        await settle(app, pilot)
        assert screen.state == "error"
        assert screen.query_one(QueryInput).value == "status:chargeback"
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        table = screen.query_one(ChargeTable)
        assert screen.state == "results" and 0 < table.total < 3015
        assert screen.query_one(QueryInput).value == "status:chargeback"


async def test_a_page_that_fails_later_can_be_retried(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Any
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one(ChargeTable)
        sandbox_faults.fail_status = 500
        sandbox_faults.fail_path_prefix = "/v2/charges"
        sandbox_faults.fail_count = 1
        await pilot.press("G")
        await settle(app, pilot)
        # The end of 3,015 rows straddles two pages: the one that failed may be either.
        assert table.failed_pages
        assert "some rows did not load" in screen_text(app)
        assert "not loaded (ctrl+r)" in screen_text(app)
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert table.cursor_row == 3014 and table.cursor_charge is not None
        assert "some rows did not load" not in screen_text(app)
