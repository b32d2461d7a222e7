"""The power tools from the keyboard, in one app: the `:` jump line, saving and running a saved
search (and renaming and deleting it), `Y` (JSON), copy as curl without the secret, and the theme
remembered in the config."""

from __future__ import annotations

import json
from typing import Any

from textual.widgets import Static

from paytui.config.searches import saved_searches
from paytui.config.store import load_config
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.jump import JumpModal
from paytui.ui.screens.modals.saved_searches import SaveSearchModal
from paytui.ui.widgets.charge_table import ChargeTable
from paytui.ui.widgets.query_input import QueryInput
from tests.ui.conftest import settle


async def _type(pilot: Any, text: str) -> None:
    await pilot.press(*[{" ": "space", ":": "colon"}.get(char, char) for char in text])


async def test_jump_save_run_copy_and_theme(app_factory: Any) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charges = app.screen
        assert isinstance(charges, ChargeSearchScreen)

        # A line that is no jump: one line under the field, what was typed stays.
        await pilot.press("colon")
        assert isinstance(app.screen, JumpModal)
        await _type(pilot, "nope")
        await pilot.press("enter")
        assert isinstance(app.screen, JumpModal)
        assert "No command 'nope'" in str(app.screen.query_one("#jump-error", Static).content)
        assert app.screen.query_one("#jump-line").value == ":nope"
        await pilot.press("escape")

        await pilot.press("colon")
        await _type(pilot, "cha")
        line = app.screen.query_one("#jump-line")
        line.value += "rges status:chargeback"  # the rest at once: typing is proven above
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is charges
        assert charges.query_one(QueryInput).value == "status:chargeback"
        table = charges.query_one(ChargeTable)
        assert table.total > 0 and table.cursor_charge is not None
        assert table.cursor_charge.status == "chargeback"

        # W saves the query under a name (in the config); :saved NAME runs it again.
        await pilot.press("W")
        assert isinstance(app.screen, SaveSearchModal)
        await _type(pilot, "cb")
        await pilot.press("enter")
        await settle(app, pilot)
        assert saved_searches() == {"cb": "status:chargeback"}
        await pilot.press("a")
        await settle(app, pilot)
        assert charges.query_one(QueryInput).value != "status:chargeback"
        await pilot.press("colon")
        app.screen.query_one("#jump-line").value = ":saved cb"
        await pilot.press("enter")
        await settle(app, pilot)
        assert charges.query_one(QueryInput).value == "status:chargeback"
        assert str(charges.query_one("#view-name", Static).content) == "Saved: cb"

        # The palette offers it by name; the list renames (F2) and deletes it.
        from paytui.ui.palette_commands import _power_commands
        from paytui.ui.screens.modals.saved_searches import SavedSearchesModal

        assert "Saved search: cb" in [name for name, _, _ in _power_commands(app)]
        await app.run_action("saved_searches")
        await settle(app, pilot)
        listing = app.screen
        assert isinstance(listing, SavedSearchesModal)
        await pilot.press("f2")
        await settle(app, pilot)
        assert isinstance(app.screen, SaveSearchModal)
        await pilot.press("backspace", "backspace")
        await _type(pilot, "mine")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is listing and saved_searches() == {"mine": "status:chargeback"}
        await pilot.press("delete")
        assert saved_searches() == {}
        await pilot.press("escape")
        await settle(app, pilot)

        # Y: the highlighted charge as JSON; copy as curl: this view's request, no secret.
        await pilot.press("Y")
        copied = json.loads(app.clipboard)
        assert copied["charge_id"] == table.cursor_charge.charge_id
        await app.run_action("copy_curl")
        assert app.clipboard.startswith("curl -sS 'http://sandbox/v2/charges?")
        assert "status=chargeback" in app.clipboard
        assert '-H "Authorization: Bearer $PAYTUI_TOKEN"' in app.clipboard
        # http://sandbox runs inside paytui only: the user is told how to reach one from a shell.
        await pilot.pause()
        assert any("paytui sandbox" in n.message for n in app._notifications)
        client = await app.get_client()
        secret = getattr(client, "client_secret", None)
        assert secret is None or str(secret) not in app.clipboard

        # A theme picked is remembered in the config.
        app.theme = "paytui-high-contrast"
        await settle(app, pilot)
        assert load_config().config.ui.theme == "paytui-high-contrast"

        await pilot.press("colon")
        await _type(pilot, "hi")
        await pilot.press("right", "enter")  # → takes the completion (":history ")
        await settle(app, pilot)
        assert app.current_mode == "history"
