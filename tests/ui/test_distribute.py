"""`D` on a charge's detail adds it to its account's open distribution, which `4` then shows:
the last step of the new-user journey (a fresh capture found inside a distribution)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx

from paytui.api.client import PaymentClient
from paytui.api.models import ChargeRequest
from paytui.ui import messages
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from tests.ui.conftest import make_app, screen_text, settle

CARD = {
    "method": "card",
    "card_number": "4111111111111111",
    "expiration_date": "2030-12",
    "contact": {"first_name": "Ada", "last_name": "Lovelace"},
}


def api(transport: httpx.AsyncBaseTransport, **kwargs: Any) -> PaymentClient:
    return PaymentClient(
        "http://sandbox",
        client_id=kwargs.get("client_id", "paytui-demo"),
        client_secret=kwargs.get("client_secret", "paytui-demo-secret"),
        transport=transport,
    )


async def fresh_capture(transport: httpx.AsyncBaseTransport) -> str:
    """An authorization captured just now: in no distribution yet."""
    async with api(transport) as client:
        account = (await client.list_accounts_page(status="approved", limit=1)).items[0]
        auth = await client.create_charge(
            ChargeRequest.model_validate(
                {
                    "account_id": account.account_id,
                    "total_amount": Decimal("42.10"),
                    "charge_type": "authorization",
                    "payment_method": CARD,
                }
            )
        )
        capture = await client.capture(auth.charge_id)
        fresh = await client.get_charge(capture.charge_id, expand="distributions")
        assert not fresh.distributions
        return capture.charge_id


async def test_distribute_then_find_the_charge_on_the_distributions_screen(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    charge_id = await fresh_capture(sandbox_transport)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.post_message(messages.OpenCharge(charge_id))
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert "This charge is in no distribution yet" in screen_text(app)
        await pilot.press("D")
        await pilot.press("D")  # a second press while the first is in flight sends nothing more
        await settle(app, pilot)
        await settle(app, pilot)

        async with api(sandbox_transport) as client:
            charge = await client.get_charge(charge_id, expand="distributions")
        assert charge.distributions and len(charge.distributions) == 1
        distribution = charge.distributions[0]
        assert [item.charge_id for item in distribution.items] == [charge_id]
        assert distribution.distribution_id in screen_text(app)

        await pilot.press("4")
        await settle(app, pilot)
        assert distribution.distribution_id[:10] in screen_text(app)


async def test_distribute_is_greyed_out_without_its_scope(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    charge_id = await fresh_capture(sandbox_transport)

    class NarrowClient(PaymentClient):
        """The demo client, but its token holds every scope except distribute."""

        @property
        def granted_scopes(self) -> frozenset[str] | None:
            scopes = super().granted_scopes
            return None if scopes is None else scopes - {"urn:v2:charges:distribute:create"}

    async def factory() -> PaymentClient:
        client = NarrowClient(
            "http://sandbox",
            client_id="paytui-demo",
            client_secret="paytui-demo-secret",
            transport=sandbox_transport,
        )
        await client.authenticate()
        return client

    from tests.ui.conftest import frozen_clock

    app = PaytuiApp(factory, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.post_message(messages.OpenCharge(charge_id))
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeDetailScreen)
        assert screen.check_action("distribute", ()) is None
        await pilot.press("D")
        await settle(app, pilot)
    async with api(sandbox_transport) as client:
        assert not (await client.get_charge(charge_id, expand="distributions")).distributions
