"""Browse the families whose shapes the spec does not show (merchants, customers, partners,
devices): read through the generic client, offered only to a token that may read them."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from paytui.api.families import FAMILIES, GenericObject
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.families import FamilyBrowserScreen, row_cells
from paytui.ui.widgets.fit_table import FitNavTable
from paytui.ui.widgets.json_view import JsonView
from tests.ui.conftest import LIMITED_CLIENT_ID, LIMITED_CLIENT_SECRET, make_app, settle


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
