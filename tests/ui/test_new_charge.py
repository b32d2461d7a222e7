"""Pilot tests of the New charge screen (`n`, the virtual terminal)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input, Select

from paytui.api.client import PaymentClient
from paytui.api.queries import ChargeQuery
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.new_charge import NewChargeScreen
from paytui.ui.widgets.card_input import CardInput
from tests.ui.conftest import screen_text, settle

pytestmark = pytest.mark.asyncio

ACCOUNT = "pa_b4kfel3guxntcchyplvq"  # approved
VISA = "4111111111111111"
DECLINED = "4000000000000002"


def api(transport: httpx.AsyncBaseTransport) -> PaymentClient:
    return PaymentClient(
        "http://sandbox",
        client_id="paytui-demo",
        client_secret="paytui-demo-secret",
        transport=transport,
    )


async def charge_count(transport: httpx.AsyncBaseTransport) -> int:
    async with api(transport) as client:
        page = await client.search_charges_page(ChargeQuery(account_id=ACCOUNT), limit=1)
    assert page.total is not None
    return page.total


async def open_form(app: PaytuiApp, pilot: Any) -> NewChargeScreen:
    await settle(app, pilot)
    await pilot.press("n")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, NewChargeScreen)
    screen.query_one("#account", Input).value = ACCOUNT
    await pilot.pause()
    return screen


async def set_values(pilot: Any, screen: NewChargeScreen, **values: str) -> None:
    for name, value in values.items():
        widget = screen.query_one(f"#{name.replace('_', '-')}")
        if isinstance(widget, Select):
            widget.value = value
        elif isinstance(widget, CardInput):
            widget.clear()
            widget.type_digits(value)
        else:
            widget.value = value  # type: ignore[attr-defined]
        await pilot.pause()


async def send(app: PaytuiApp, pilot: Any) -> None:
    await pilot.press("ctrl+s")
    await settle(app, pilot)
    await settle(app, pilot)


def files_contain(root: Path, needle: str) -> bool:
    data = needle.encode()
    return any(p.is_file() and data in p.read_bytes() for p in root.rglob("*"))


async def test_card_sale_opens_the_new_charge_and_journal_keeps_no_number(
    app_factory: Callable[..., PaytuiApp],
    sandbox_transport: httpx.AsyncBaseTransport,
    isolated_user_dirs: Path,
) -> None:
    before = await charge_count(sandbox_transport)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        screen.query_one("#card", CardInput).focus()
        for digit in VISA:
            await pilot.press(digit)
        await pilot.pause()
        assert VISA not in screen_text(app)
        assert "•••• •••• •••• 1111" in screen_text(app)
        await set_values(
            pilot,
            screen,
            amount="25.50",
            expiry="2029-04",
            first="Ada",
            last="Lovelace",
            invoice="INV-1",
            tags="vt, phone",
            convenience="1.25",
        )
        screen.query_one("#attributes").text = "order=77\nchannel=phone"  # type: ignore[attr-defined]
        await send(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        charge_id = app.screen.charge_id
        assert VISA not in screen_text(app)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        text = screen_text(app)
        assert charge_id in text and "Approved" in text
        assert VISA not in text
        assert screen.query_one("#card", CardInput).length == 0  # the number left memory
        # The next customer starts from an empty form; the account stays.
        for name in ("amount", "expiry", "first", "last", "invoice", "tags", "convenience"):
            assert screen.query_one(f"#{name}", Input).value == "", name
        assert screen.query_one("#attributes").text == ""  # type: ignore[attr-defined]
        assert screen.query_one("#account", Input).value == ACCOUNT
        assert screen.focused is screen.query_one("#amount")
    async with api(sandbox_transport) as client:
        charge = await client.get_charge(charge_id)
    # The fee is added to the amount at create, as at capture (docs/api-assumptions.md).
    assert charge.total_amount == Decimal("26.75") and charge.convenience_fee == Decimal("1.25")
    assert charge.last4 == "1111"
    assert charge.invoice_number == "INV-1"
    assert charge.tags == ["vt", "phone"]
    assert charge.attributes["order"] == ["77"]
    assert "paytui_ref" in charge.attributes  # sent through the executor
    assert await charge_count(sandbox_transport) == before + 1
    assert not files_contain(isolated_user_dirs, VISA)


async def test_bank_account_sale(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        await set_values(pilot, screen, method="bank_account")
        assert not screen.query_one("#row-card").display
        assert screen.query_one("#row-routing").display
        await set_values(
            pilot,
            screen,
            amount="80",
            routing="021000021",
            bank_number="111111111111",
            first="Grace",
            last="Hopper",
        )
        await send(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        charge_id = app.screen.charge_id
    async with api(sandbox_transport) as client:
        charge = await client.get_charge(charge_id)
    assert charge.method == "bank_account"
    assert charge.result_code == "ProcessorPendingACHSale"
    assert charge.total_amount == Decimal("80")


async def test_bad_routing_number_is_refused_and_nothing_sent(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    before = await charge_count(sandbox_transport)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        await set_values(
            pilot,
            screen,
            method="bank_account",
            amount="80",
            routing="021000022",
            bank_number="111111111111",
        )
        await send(app, pilot)
        assert app.screen is screen
        assert "checksum" in str(screen.query_one("#err-routing").render())
        assert "Nothing sent" in screen_text(app)
        assert screen.query_one("#routing", Input).value == "021000022"  # kept
    assert await charge_count(sandbox_transport) == before


async def test_pre_authorization_forces_zero_and_card(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        await set_values(pilot, screen, amount="99", method="token")
        await set_values(pilot, screen, type="pre_authorization")
        amount = screen.query_one("#amount", Input)
        assert amount.value == "0.00" and amount.disabled
        assert screen.query_one("#method", Select).value == "card"
        assert screen.query_one("#row-card").display
        await set_values(pilot, screen, card=VISA, expiry="2029-04")
        await send(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        charge_id = app.screen.charge_id
        # Journaled like every charge, through the app's one executor, at amount 0.
        newest = app.actions.ready.history()[0]
        assert (newest.operation, newest.amount, newest.state) == (
            "charge",
            Decimal("0.00"),
            "succeeded",
        )
        assert newest.result_id == charge_id
    async with api(sandbox_transport) as client:
        charge = await client.get_charge(charge_id)
    assert charge.charge_type == "pre_authorization"
    assert charge.total_amount == Decimal("0")


async def test_declined_card_is_shown_as_declined(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        await set_values(pilot, screen, amount="10", card=DECLINED, expiry="2029-04")
        await send(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        await pilot.press("escape")
        await settle(app, pilot)
        text = screen_text(app)
        assert "Declined" in text
        assert "Card declined" in text
        assert screen.result is not None and screen.result.status == "declined"
        notes = [n for n in app._notifications if n.title == "New charge"]
        assert notes and all(n.severity != "error" for n in notes)


async def test_card_refusals_keep_what_was_typed(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    before = await charge_count(sandbox_transport)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        await set_values(pilot, screen, amount="1.001", card="4111111111111112", expiry="2020-01")
        await send(app, pilot)
        assert "two decimal" in str(screen.query_one("#err-amount").render())
        assert "Luhn" in str(screen.query_one("#err-card").render())
        assert "expired" in str(screen.query_one("#err-expiry").render())
        assert screen.query_one("#amount", Input).value == "1.001"
        assert screen.query_one("#card", CardInput).length == 16
    assert await charge_count(sandbox_transport) == before


async def test_production_asks_for_the_typed_amount_first(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    before = await charge_count(sandbox_transport)
    app = app_factory(environment="production")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        await set_values(pilot, screen, amount="25.50", card=VISA, expiry="2029-04")
        await send(app, pilot)
        assert app.screen is screen
        assert screen.query_one("#row-confirm").display
        assert "25.50" in str(screen.query_one("#err-confirm").render())
        assert await charge_count(sandbox_transport) == before
        await set_values(pilot, screen, confirm="25.50")
        await send(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
    assert await charge_count(sandbox_transport) == before + 1


async def test_read_only_profile_cannot_open_the_forms(
    app_factory: Callable[..., PaytuiApp],
) -> None:
    app = app_factory()
    app.session.read_only = True
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, NewChargeScreen)
        await pilot.press("2")
        await settle(app, pilot)
        for key in ("n", "u", "c"):
            await pilot.press(key)
            await settle(app, pilot)
            assert type(app.screen).__name__ == "TokensScreen"


async def test_expired_token_refusal_lands_on_the_token_field(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    before = await charge_count(sandbox_transport)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        # ct_dccp...: a token of this account whose token expiry (2026-08-06) has passed.
        await set_values(pilot, screen, method="token", amount="5", token="ct_dccp5u1n1l2dzhtql0rw")
        await send(app, pilot)
        assert app.screen is screen
        assert str(screen.query_one("#err-token").render())
        assert screen.query_one("#row-token").has_class("-invalid")
    assert await charge_count(sandbox_transport) == before
