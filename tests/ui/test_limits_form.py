"""Text lengths (paytui.limits): the same limits refused by the request models, the sandbox (422)
and the new-charge form (a message on the field, nothing sent, what was typed kept)."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from paytui.limits import LIMITS
from paytui.ui.app import PaytuiApp
from tests.ui.test_new_charge import charge_count, open_form, send, set_values

CARD = "4111111111111111"


async def test_the_form_says_which_field_is_too_long_and_sends_nothing(
    app_factory: Callable[..., PaytuiApp], sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    before = await charge_count(sandbox_transport)
    app = app_factory()
    long_name = "A" * (LIMITS["first_name"] + 1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(app, pilot)
        await set_values(
            pilot, screen, amount="5", card=CARD, expiry="2030-01", first=long_name, po="p" * 65
        )
        await send(app, pilot)
        assert app.screen is screen
        assert "at most 100" in str(screen.query_one("#err-first").render())
        assert "at most 64" in str(screen.query_one("#err-po").render())
    assert await charge_count(sandbox_transport) == before
