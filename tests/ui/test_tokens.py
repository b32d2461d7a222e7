"""Pilot tests of the Tokens screen (`2`): list, create (masked card), refusals, update, charge."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.modals.charge_token import ChargeTokenScreen
from paytui.ui.screens.modals.token_form import TokenFormScreen
from paytui.ui.screens.tokens import TokensScreen, TokenViewScreen
from paytui.ui.widgets.card_input import CardInput
from tests.ui.conftest import settle

pytestmark = pytest.mark.asyncio

FULL = "4111111111111111"


def api(transport: httpx.AsyncBaseTransport) -> PaymentClient:
    return PaymentClient(
        "http://sandbox",
        client_id="paytui-demo",
        client_secret="paytui-demo-secret",
        transport=transport,
    )


async def token_count(transport: httpx.AsyncBaseTransport) -> int:
    async with api(transport) as client:
        page = await client.list_tokens_page(limit=1)
    assert page.total is not None
    return page.total


def text_of(app: PaytuiApp) -> str:
    from tests.ui.conftest import screen_text

    return screen_text(app)


async def open_tokens(app: PaytuiApp, pilot: Any) -> TokensScreen:
    await settle(app, pilot)
    await pilot.press("2")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, TokensScreen)
    return screen


async def fill(app: PaytuiApp, pilot: Any, field: str, value: str) -> None:
    from textual.widgets import Input

    widget = app.screen.query_one(f"#{field}", Input)
    widget.value = value
    await pilot.pause()


async def open_form(app: PaytuiApp, pilot: Any) -> TokenFormScreen:
    await pilot.press("N")
    await settle(app, pilot)
    form = app.screen
    assert isinstance(form, TokenFormScreen)
    return form


async def test_list_loads_newest_first_with_expired_marked(
    app_factory: Callable[..., PaytuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tokens(app, pilot)
        assert screen.state == "results"
        assert len(screen.tokens) == 20
        created = [t.created_timestamp for t in screen.tokens]
        assert created == sorted(created, reverse=True)
        text = text_of(app)
        assert "Showing 20 of 20" in text
        assert "expired" in text
        assert "[bold red]Mallory[/]" in text  # markup in a name is data
        await pilot.press("y")
        await pilot.pause()
        first = screen.tokens[0].token_id
        assert app.clipboard == first
        assert any(first in str(n.message) for n in app._notifications)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, TokenViewScreen)
        view = text_of(app)
        assert "Fraud score" in view and "AVS" in view
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TokensScreen)


async def test_create_token_never_shows_the_full_number(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    before = await token_count(sandbox_transport)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_tokens(app, pilot)
        form = await open_form(app, pilot)
        form.query_one("#card", CardInput).focus()
        await pilot.pause()
        for digit in FULL:
            await pilot.press(digit)
            await pilot.pause()
            assert FULL not in text_of(app)
            assert FULL[:8] not in text_of(app)
        assert "•••• •••• •••• 1111" in text_of(app)
        await fill(app, pilot, "expiry", "2029-04")
        await fill(app, pilot, "first", "Ada")
        await fill(app, pilot, "last", "Lovelace")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        text = text_of(app)
        assert FULL not in text
        assert form.result is not None
        assert form.result.token_id in text
        assert "Fraud score" in text and "Token expires" in text
        assert FULL not in repr(form.query_one("#card", CardInput))
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, TokensScreen)
        assert FULL not in text_of(app)
        assert app.screen.current is not None
        assert app.screen.current.token_id == form.result.token_id
    assert await token_count(sandbox_transport) == before + 1
    async with api(sandbox_transport) as client:
        token = await client.get_token(form.result.token_id)
    assert token.last4 == "1111"
    assert token.payment_method.contact.first_name == "Ada"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("number", "expiry", "field", "message"),
    [
        pytest.param("4111111111111112", "2029-04", "card", "Luhn", id="bad-luhn"),
        pytest.param(FULL, "2026-10", "expiry", "expired", id="past-expiry"),
        pytest.param(FULL, "2029-13", "expiry", "YYYY-MM", id="bad-yyyy-mm"),
        pytest.param(FULL, "04/29", "expiry", "YYYY-MM", id="bad-format"),
        pytest.param("9111111111111111", "2029-04", "card", "brand", id="unknown-brand"),
    ],
)
async def test_refusals_send_nothing(
    app_factory: Callable[..., PaytuiApp],
    sandbox_transport: httpx.AsyncBaseTransport,
    number: str,
    expiry: str,
    field: str,
    message: str,
) -> None:
    if message == "brand":
        number = _luhn_fix("911111111111111")  # passes Luhn, but no brand starts with 9
    before = await token_count(sandbox_transport)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_tokens(app, pilot)
        form = await open_form(app, pilot)
        form.query_one("#card", CardInput).type_digits(number)
        await fill(app, pilot, "expiry", expiry)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        error = str(form.query_one(f"#err-{field}").render())
        assert message in error
        assert form.query_one(f"#row-{field}").has_class("-invalid")
        assert "Nothing sent" in text_of(app)
        # Nothing typed is lost.
        assert form.query_one("#card", CardInput).length == len(number)
        from textual.widgets import Input

        assert form.query_one("#expiry", Input).value == expiry
        assert number not in text_of(app)
    assert await token_count(sandbox_transport) == before


def _luhn_fix(prefix: str) -> str:
    from paytui.validation import luhn_valid

    for check in "0123456789":
        if luhn_valid(prefix + check):
            return prefix + check
    raise AssertionError


async def test_update_token(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tokens(app, pilot)
        token_id = screen.tokens[0].token_id
        await pilot.press("u")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, TokenFormScreen) and not form.creating
        await fill(app, pilot, "expiry", "2030-01")
        await fill(app, pilot, "last", "Lamport-Updated")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert form.result is not None
        await pilot.press("escape")
        await settle(app, pilot)
        assert "Lamport-Updated" in text_of(app)
    async with api(sandbox_transport) as client:
        token = await client.get_token(token_id)
    assert token.payment_method.expiration_date == "2030-01"  # type: ignore[union-attr]
    assert token.payment_method.contact.last_name == "Lamport-Updated"  # type: ignore[union-attr]


class LoseAnswers(httpx.AsyncBaseTransport):
    """The service acts, then the answer is lost (for the requests named in `lose`)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.lose: set[str] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if f"{request.method} {request.url.path}" in self.lose:
            await response.aread()
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response


async def test_update_applied_with_its_answer_lost_reads_as_done(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from textual.widgets import Static

    from tests.ui.conftest import make_app

    wire = LoseAnswers(sandbox_transport)
    app = make_app(wire)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tokens(app, pilot)
        token_id = screen.tokens[0].token_id
        wire.lose = {f"PUT /v2/tokens/{token_id}"}
        await pilot.press("u")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, TokenFormScreen)
        await fill(app, pilot, "last", "Lamport-Lost")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        status = str(form.query_one("#form-status", Static).render())
        assert form.result is not None and form.result.token_id == token_id
        assert status.startswith(f"Token {token_id} updated (the answer was lost")
        assert not [n for n in app._notifications if n.severity == "error"]
        entry = (await app.actions.executor()).history(limit=1)[0]
        assert (entry.operation, entry.state) == ("token_update", "succeeded")


async def test_charge_token_as_authorization_opens_detail(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    from paytui.api.queries import ChargeQuery

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tokens(app, pilot)
        token = screen.tokens[0]
        await pilot.press("n")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, ChargeTokenScreen)
        await fill(app, pilot, "amount", "42.50")
        from textual.widgets import Select

        modal.query_one("#type", Select).value = "authorization"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await settle(app, pilot)
        from paytui.ui.screens.charge_detail import ChargeDetailScreen

        assert isinstance(app.screen, ChargeDetailScreen)
        charge_id = app.screen.charge_id
    async with api(sandbox_transport) as client:
        charge = await client.get_charge(charge_id)
        page = await client.search_charges_page(
            ChargeQuery(charge_type="authorization", captured=False), limit=500
        )
    assert charge.charge_type == "authorization"
    assert charge.is_open_authorization
    assert charge.token_id == token.token_id
    assert charge.total_amount == Decimal("42.50")
    assert charge_id in {c.charge_id for c in page.items}


async def test_error_state_then_ctrl_r_retries(
    app_factory: Callable[..., PaytuiApp], sandbox_faults: Any
) -> None:
    sandbox_faults.update({"fail_status": 503, "fail_path_prefix": "/v2/tokens", "fail_count": 1})
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tokens(app, pilot)
        assert screen.state == "error"
        text = text_of(app)
        assert "Service error (503)" in text and "ctrl+r" in text
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert screen.state == "results"
        assert len(screen.tokens) == 20


async def test_pages_load_as_the_cursor_nears_the_end(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    from paytui.ui.screens import tokens

    monkeypatch.setattr(tokens.TokensScreen, "PAGE_SIZE", 8)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tokens(app, pilot)
        assert len(screen.tokens) == 8
        assert "Showing 8 of 20" in text_of(app)
        for _ in range(3):
            await pilot.press("G")
            await settle(app, pilot)
        assert len(screen.tokens) == 20
        ids = [t.token_id for t in screen.tokens]
        assert len(set(ids)) == 20


async def test_card_input_paste_and_clear(app_factory: Callable[..., PaytuiApp]) -> None:
    from textual import events

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_tokens(app, pilot)
        form = await open_form(app, pilot)
        card = form.query_one("#card", CardInput)
        card.focus()
        card.post_message(events.Paste("4111 1111-1111 1111"))
        await pilot.pause()
        assert card.length == 16 and card.last4 == "1111" and card.brand == "visa"
        assert card.secret.get_secret_value() == FULL
        assert FULL not in str(card.secret) and FULL not in text_of(app)
        await pilot.press("backspace")
        assert card.length == 15
        await pilot.press("ctrl+u")
        assert card.length == 0


async def test_new_user_journey_token_authorize_capture(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    """Issue 5's "done when": store 4111…, charge it as an authorization, capture it."""
    from textual.widgets import Select

    from paytui.ui.screens.charge_detail import ChargeDetailScreen

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_tokens(app, pilot)
        form = await open_form(app, pilot)
        form.query_one("#card", CardInput).type_digits(FULL)
        await fill(app, pilot, "expiry", "2029-04")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert form.result is not None
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("n")
        await settle(app, pilot)
        charge_form = app.screen
        assert isinstance(charge_form, ChargeTokenScreen)
        await fill(app, pilot, "amount", "19.99")
        charge_form.query_one("#type", Select).value = "authorization"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        auth_id = app.screen.charge_id
        await pilot.press("c")  # capture, from the detail (issue 4's dialog)
        await settle(app, pilot)
        await pilot.press("enter")  # review
        await pilot.pause()
        await pilot.press("enter")  # capture
        await settle(app, pilot)
        assert FULL not in text_of(app)
    async with api(sandbox_transport) as client:
        auth = await client.get_charge(auth_id)
    assert auth.token_id == form.result.token_id
    assert auth.captured_charge_id is not None
