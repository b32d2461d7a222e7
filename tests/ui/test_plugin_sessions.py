"""Plugin sessions and a new account from the keyboard, on the sandbox (issue 12's "done when"):
a payment session with tokenize and an expiry, its id, the list, the deletion; enrollment with
and without the prepopulate scope; a 9311 account with a tax authority. Assertions are on the
service's state afterwards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input

from paytui.api.client import PaymentClient
from paytui.api.errors import NotFoundError
from paytui.api.models import Account
from paytui.plugin_rules import PREPOPULATE_SCOPE
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.account_detail import AccountDetailScreen
from paytui.ui.screens.modals.confirm import MoneyActionModal
from paytui.ui.screens.modals.new_account import NewAccountModal
from paytui.ui.screens.modals.plugin_session import EnrollmentSessionModal, PaymentSessionModal
from paytui.ui.screens.plugin_sessions import PluginSessionsScreen, SessionViewScreen
from tests.ui.conftest import frozen_clock, screen_text, settle

AppFactory = Callable[..., PaytuiApp]


@pytest.fixture
def plugin_app(sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path) -> AppFactory:
    def build(scopes: list[str] | None = None) -> PaytuiApp:
        async def factory() -> PaymentClient:
            return PaymentClient(
                "http://sandbox",
                client_id=DEMO_CLIENT_ID,
                client_secret=DEMO_CLIENT_SECRET,
                scopes=scopes,
                transport=sandbox_transport,
                max_retries=0,
            )

        return PaytuiApp(factory, journal_path=tmp_path / "journal.sqlite3", clock=frozen_clock)

    return build


async def _account_id(app: PaytuiApp, name: str) -> tuple[str, str]:
    client = await app.get_client()
    page = await client.list_accounts_page(limit=500)
    account = next(a for a in page.items if a.name == name)
    return account.account_id, account.merchant_id or ""


async def _dialog(app: PaytuiApp, pilot: Any) -> MoneyActionModal:
    await settle(app, pilot)
    assert isinstance(app.screen, MoneyActionModal), type(app.screen)
    return app.screen


def _message(dialog: MoneyActionModal) -> str:
    return str(dialog.query_one("#dialog-message").render())


async def test_sessions_and_a_tax_account_from_the_keyboard(plugin_app: AppFactory) -> None:
    app = plugin_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        account_id, _ = await _account_id(app, "Blue Fern Café POS")
        await app.push_screen(AccountDetailScreen(account_id))
        await settle(app, pilot)
        assert "5,000.00, fees included" in screen_text(app)
        await pilot.press("L")
        dialog = await _dialog(app, pilot)
        assert isinstance(dialog, PaymentSessionModal) and dialog.step == "form"
        assert app.focused is dialog.query_one("#charge-type", Input)
        await pilot.press("tab", "space", "tab")  # tokenize on, to the token's expiry
        assert app.focused is dialog.query_one("#token-expiry", Input)
        await pilot.press("2", "0", "3", "1", "minus", "0", "1", "minus", "0", "2")
        assert dialog.query_one("#token-expiry", Input).value == "2031-01-02"
        await pilot.press("enter")  # review
        review = str(dialog.query_one("#dialog-review").render())
        assert "tokenize" in review and "Payments up to 5,000.00" in review
        await pilot.press("enter")  # create
        await settle(app, pilot)
        assert dialog.step == "result", _message(dialog)
        session = dialog.session
        assert session is not None and session.session_id in _message(dialog)
        client = await app.get_client()
        stored = await client.get_plugin_session(session.session_id)
        assert (stored.model_extra or {})["tokenize"] == {
            "token_expiration_date": "2031-01-02T00:00:00.000Z"
        }
        await pilot.press("escape")
        await settle(app, pilot)

        await app.run_action("plugin_sessions")  # the palette's "Plugin sessions"
        await settle(app, pilot)
        assert isinstance(app.screen, PluginSessionsScreen)
        assert session.session_id in screen_text(app)
        await pilot.press("enter")  # the view: every setting, read again
        await settle(app, pilot)
        assert isinstance(app.screen, SessionViewScreen)
        await pilot.press("y")
        assert app.clipboard == session.session_id
        await pilot.press("Y")  # the settings, to hand to the merchant
        assert session.session_id in app.clipboard and app.clipboard != session.session_id
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("delete")
        delete = await _dialog(app, pilot)
        assert delete.step == "review"  # the confirmation names the session
        assert session.session_id in str(delete.query_one("#dialog-review").render())
        await pilot.press("enter")
        await settle(app, pilot)
        assert delete.step == "result", _message(delete)
        with pytest.raises(NotFoundError):
            await client.get_plugin_session(session.session_id)
        await pilot.press("escape")
        await settle(app, pilot)

        # The same app (every scope): enrollment with prepopulation, then a tax account.
        await _enrollment(app, pilot, enabled=True)
        await pilot.press("escape")
        await settle(app, pilot)
        await _tax_account(app, pilot)


async def _enrollment(
    app: PaytuiApp, pilot: Any, enabled: bool, merchant: str | None = None
) -> EnrollmentSessionModal:
    """An enrollment session (from the palette, or for `merchant`); the prepopulate fields
    follow the scope."""
    if merchant is None:
        await app.run_action("new_enrollment_session")
    else:
        await app.push_screen(EnrollmentSessionModal(merchant))
    dialog = await _dialog(app, pilot)
    assert isinstance(dialog, EnrollmentSessionModal)
    product = dialog.query_one("#product-description", Input)
    assert product.disabled is not enabled
    assert PREPOPULATE_SCOPE in str(dialog.query_one("#prepopulate-note").render())
    dialog.query_one("#account-tags", Input).value = "gold, new"
    if enabled:
        product.value = "Bicycles"
    await pilot.press("enter", "enter")
    await settle(app, pilot)
    assert dialog.step == "result", _message(dialog)
    assert dialog.session is not None
    body = dialog.session.model_dump(mode="json")
    assert body["account"]["tags"] == ["gold", "new"]
    assert ("data" in body) is enabled
    return dialog


async def test_enrollment_without_the_prepopulate_scope(plugin_app: AppFactory) -> None:
    app = plugin_app(["urn:v2:plugins:all", "urn:v2:merchants:read"])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        merchants = (await client.list_merchants_page(limit=50)).items
        closed = next(m for m in merchants if m.status == "closed")
        dialog = await _enrollment(app, pilot, enabled=False, merchant=closed.merchant_id)
        # The answer's status: the merchant cannot be edited, said plainly.
        assert "cannot edit this merchant" in _message(dialog)
        assert "closed" in _message(dialog)


async def _tax_account(app: PaytuiApp, pilot: Any) -> None:
    """A 9311 account with its tax authority (refused first with another category)."""
    _, merchant = await _account_id(app, "Lakeside Property Tax")
    await app.run_action("new_account")
    form = await _dialog(app, pilot)
    assert isinstance(form, NewAccountModal)
    for name, value in (
        ("merchant", merchant),
        ("name", "Lakeside Water Levy"),
        ("mcc", "5999"),
        ("tax-authority", "Lakeside Township"),
        ("tax-state", "MN"),
    ):
        form.query_one(f"#{name}", Input).value = value
    form.query_one("#name", Input).focus()
    await pilot.press("enter")
    assert "9311" in str(form.query_one("#tax-authority-error").render())
    assert form.step == "form"  # nothing sent, nothing lost
    form.query_one("#mcc", Input).value = "9311"
    await pilot.press("enter", "enter")
    await settle(app, pilot)
    assert form.step == "result", _message(form)
    made = form.outcome.result if form.outcome else None
    assert isinstance(made, Account)
    # One form of a limit (issue 22, item 15): "10,000.00", as everywhere, never "10000".
    assert made.max_transaction_amount is not None
    assert "processing limit 10,000.00, fees included" in _message(form)
    account = await (await app.get_client()).get_account(made.account_id)
    assert (account.tax_authority, account.merchant_category_code) == (
        "Lakeside Township",
        "9311",
    )


async def test_a_new_account_of_a_known_merchant_starts_on_its_name(
    plugin_app: AppFactory,
) -> None:
    """`A` on an account fills its merchant in: typing at once names the account, and the
    merchant id stays (starting on it made the name replace the id, and the service 404)."""
    app = plugin_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        _, merchant = await _account_id(app, "Lakeside Property Tax")
        app.push_screen(NewAccountModal(merchant))
        form = await _dialog(app, pilot)
        await pilot.press(*"Levy")
        assert form.query_one("#merchant", Input).value == merchant
        assert form.query_one("#name", Input).value == "Levy"
