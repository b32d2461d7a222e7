"""Fresh after every action: lists and details on the screen stack read the changed charge again
(the app's `charges_changed` signal), without ctrl+r (issue 15, part 4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from paytui.api.queries import ChargeQuery
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.confirm import MoneyActionModal
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import settle

pytestmark = pytest.mark.asyncio

AppFactory = Callable[..., PaytuiApp]


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


async def send_dialog(app: PaytuiApp, pilot: Any) -> MoneyActionModal:
    dialog = app.screen
    assert isinstance(dialog, MoneyActionModal) and dialog.step == "form"
    await pilot.press("enter", "enter")  # review, then send
    await settle(app, pilot)
    await settle(app, pilot)
    assert dialog.step == "result" and dialog.outcome is not None and dialog.outcome.succeeded
    return dialog


async def test_a_captured_authorization_leaves_the_open_authorizations_view(
    app_factory: AppFactory, journal: Path
) -> None:
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("O")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        table = screen.query_one(ChargeTable)
        total = table.total
        first = table.cursor_charge
        assert total and first is not None and first.is_open_authorization
        await pilot.press("c")
        await settle(app, pilot)
        await send_dialog(app, pilot)
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        assert table.total == total - 1  # read again on its own, no ctrl+r
        current = table.cursor_charge
        assert current is not None and current.charge_id != first.charge_id


async def test_a_partial_refund_updates_the_detail_and_what_is_left(
    app_factory: AppFactory, journal: Path
) -> None:
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        page = await client.search_charges_page(
            ChargeQuery(charge_type="sale", status="success"), limit=1
        )
        sale = page.items[0]
        detail = ChargeDetailScreen(sale.charge_id)
        await app.push_screen(detail)
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MoneyActionModal)
        left_before = dialog.remaining  # type: ignore[attr-defined]
        dialog.query_one("#amount", Input).value = "1.00"
        await send_dialog(app, pilot)
        await settle(app, pilot)
        # The dialog's own "Left" is what is left now, not before the refund.
        assert dialog.remaining == left_before - 1  # type: ignore[attr-defined]
        info = str(dialog.query_one("#dialog-info").render())
        assert f"{left_before - 1:,.2f}" in info
