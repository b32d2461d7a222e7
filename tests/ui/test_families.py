"""Browse the families whose shapes the spec does not show (merchants, customers, partners,
devices): read through the generic client, offered only to a token that may read them."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from textual.widgets import Input

from paytui.api.families import FAMILIES, GenericObject
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.families import FamilyBrowserScreen, row_cells
from paytui.ui.widgets.fit_table import FitNavTable
from paytui.ui.widgets.json_view import JsonView
from tests.ui.conftest import (
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
    make_app,
    screen_text,
    settle,
)


def test_any_object_reads_and_its_columns_are_guessed_only_from_what_it_has() -> None:
    device = GenericObject.model_validate(
        {"device_id": "dv_1", "model": "T2", "status": "online", "odd": {"x": [1]}}
    )
    cells = [cell.plain for cell in row_cells(device, FAMILIES["devices"])]
    assert cells[:3] == ["dv_1", "T2", "online"] and cells[3] == "—"
    person = GenericObject.model_validate({"id": 7, "first_name": "Ada", "last_name": "L"})
    assert person.id_in(FAMILIES["customers"]) == "7" and person.label() == "Ada L"
    assert FAMILIES["partners"].readable_with(frozenset({"urn:v2:partners:read"}))
    assert not FAMILIES["devices"].readable_with(frozenset({"urn:v2:partners:read"}))


async def test_browse_devices_then_read_one(app_factory: Callable[..., PaytuiApp]) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await app.run_action("browse('devices')")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, FamilyBrowserScreen)
        table = screen.query_one(FitNavTable)
        assert table.row_count == 4
        view = screen.query_one(JsonView)
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert "read alone" in str(view.border_title)
        assert "dv_00000000000000000002" in str(view.border_title)


async def test_the_palette_offers_only_what_the_token_may_read(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from paytui.ui.palette_commands import PaytuiCommands

    app = make_app(
        sandbox_transport, client_id=LIMITED_CLIENT_ID, client_secret=LIMITED_CLIENT_SECRET
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        await client.authenticate()
        provider = PaytuiCommands(app.screen)
        names = [name for name, _, _ in provider._commands()]
        assert "Browse merchants" in names  # urn:v2:merchants:read
        assert not any(name in names for name in ("Browse customers", "Browse devices"))


async def test_edit_a_customers_contact_from_the_browser(
    app_factory: Callable[..., PaytuiApp],
) -> None:
    """`h` on Browse customers: the contact as the service has it, the review of exactly what
    changes, sent once through the executor (History has it); the key is a customer's only."""
    from paytui.actions.ops.customer import contact_of
    from paytui.ui.screens.modals.customer_contact import EditContactModal

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await app.run_action("browse('devices')")
        await settle(app, pilot)
        assert app.screen.check_action("edit_contact", ()) is False  # not shown on devices
        app.pop_screen()
        await app.run_action("browse('customers')")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, FamilyBrowserScreen)
        assert screen.check_action("edit_contact", ()) is True
        await pilot.press("down", "h")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, EditContactModal)
        customer_id = modal.charge_id
        assert modal.query_one("#email", Input).value == "grace.hopper@example.com"
        await pilot.press("tab", *"+1 555 0107", "enter")
        await settle(app, pilot)
        review = screen_text(app)
        assert "phone: (none) → +1 555 0107" in review and "email:" not in review
        await pilot.press("enter")
        await settle(app, pilot)
        assert modal.outcome is not None and modal.outcome.succeeded
        client = await app.get_client()
        found = contact_of(await client.get_object("customers", customer_id))
        assert found == {"email": "grace.hopper@example.com", "phone": "+1 555 0107"}
        executor = await app.actions.executor()
        (entry,) = executor.journal.list(limit=5)
        assert (entry.operation, entry.charge_id) == ("update_customer", customer_id)
