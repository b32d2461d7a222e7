"""The prior-charge finder on the same **card** (not the customer): charges made on the sandbox
at chosen times (its clock set back), so the edges of Visa's Compelling Evidence 3.0 window (120
and 365 days, both included) and its element rule (two elements, one of them IP or device; an
e-mail is named but not counted) are each held by a row that is in and one that is out."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx

from paytui.api.models import (
    ChargeRequest,
    Contact,
    TokenCreatePaymentMethodRequest,
    TokenPaymentMethodRequest,
    TokenRequest,
)
from paytui.evidence.priors import Prior, find_priors

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

#: When the disputed charge is made (the sandbox's clock; the demo's history is months earlier).
DISPUTED_AT = datetime(2027, 6, 1, 12, 0, tzinfo=UTC)
CARD = "4242424242424242"  # a last four the demo does not use
OTHER_CARD = "5105105105105100"
EXPIRY = "2035-12"
HOLDER = Contact(first_name="Zofia", last_name="Nowak")
#: What the merchant stored on the disputed charge.
MINE = {
    "ip_address": ["203.0.113.7"],
    "device_id": ["dev-7f3a"],
    "shipping_address": ["12 Rue de la Paix, Paris"],
    "customer_id": ["C-7007"],
    "email": ["zofia@example.org"],
}


def _only(*keys: str) -> dict[str, list[str]]:
    return {key: list(MINE[key]) for key in keys}


async def _account(client: PaymentClient) -> str:
    page = await client.list_accounts_page(status="approved", limit=1)
    return page.items[0].account_id


class Clocked:
    """Writes on the sandbox at a chosen moment (its store's clock), then back to real time."""

    def __init__(self, transport: httpx.ASGITransport, client: PaymentClient) -> None:
        self.store = transport.app.state.store  # type: ignore[attr-defined]
        self.client = client

    async def token(self, account: str, number: str, at: datetime) -> str:
        self.store.clock = lambda: at
        try:
            token = await self.client.create_token(
                TokenRequest(
                    account_id=account,
                    payment_method=TokenCreatePaymentMethodRequest(
                        card_number=number, expiration_date=EXPIRY, contact=HOLDER
                    ),
                )
            )
        finally:
            self.store.clock = lambda: datetime.now(UTC)
        return token.token_id

    async def sale(
        self, account: str, token_id: str, at: datetime, attributes: Mapping[str, list[str]]
    ) -> str:
        self.store.clock = lambda: at
        try:
            charge = await self.client.create_charge(
                ChargeRequest(
                    account_id=account,
                    total_amount=Decimal("42.00"),
                    payment_method=TokenPaymentMethodRequest(token_id=token_id),
                    attributes=dict(attributes),
                )
            )
        finally:
            self.store.clock = lambda: datetime.now(UTC)
        return charge.charge_id


async def test_priors_of_the_same_card_within_120_to_365_days_each_with_its_matches(
    demo_client: PaymentClient, sandbox_transport: httpx.ASGITransport
) -> None:
    clocked = Clocked(sandbox_transport, demo_client)
    account = await _account(demo_client)
    first = DISPUTED_AT - timedelta(days=400)
    card = await clocked.token(account, CARD, first)
    # The same card tokenized again: its last four, expiry and holder are all shown and equal.
    again = await clocked.token(account, CARD, first)
    other = await clocked.token(account, OTHER_CARD, first)
    day = timedelta(days=1)

    async def sale(token_id: str, before: timedelta, *keys: str) -> str:
        return await clocked.sale(account, token_id, DISPUTED_AT - before, _only(*keys))

    made = {
        # In the window, both ends included, and counted by CE 3.0 (IP or device among two).
        "edge 365 d": await sale(card, 365 * day, "ip_address", "device_id"),
        "edge 120 d": await sale(card, 120 * day, "device_id", "shipping_address"),
        # In the window, not counted: two elements without IP or device; IP and an e-mail.
        "no ip or device": await sale(card, 200 * day, "shipping_address", "customer_id"),
        "ip and e-mail": await sale(card, 250 * day, "ip_address", "email"),
        # The same card on another token (the fingerprint), matching on IP and device.
        "fingerprint": await sale(again, 180 * day, "ip_address", "device_id"),
        # Out: a day outside each end; another card matching on IP and device.
        "366 d": await sale(card, 366 * day, "ip_address", "device_id"),
        "119 d": await sale(card, 119 * day, "ip_address", "device_id"),
        "other card": await sale(other, 150 * day, "ip_address", "device_id"),
    }
    disputed_id = await clocked.sale(account, card, DISPUTED_AT, MINE)
    disputed = await demo_client.get_charge(disputed_id, expand="all")
    assert disputed.token_id == card

    result = await find_priors(demo_client, disputed)

    by_id: dict[str, Prior] = {prior.charge_id: prior for prior in result.priors}
    found = {name for name, charge_id in made.items() if charge_id in by_id}
    assert found == {"edge 365 d", "edge 120 d", "no ip or device", "ip and e-mail", "fingerprint"}
    assert (result.window_from, result.window_to) == (
        DISPUTED_AT - 365 * day,
        DISPUTED_AT - 120 * day,
    )

    def prior(name: str) -> Prior:
        return by_id[made[name]]

    assert prior("edge 365 d").same == ("token", "card")
    assert prior("fingerprint").same == ("card",)  # not the token: the card itself
    assert prior("no ip or device").same == ("token", "card", "customer")
    assert prior("edge 365 d").matches == ("ip", "device")
    assert prior("edge 120 d").matches == ("device", "shipping")
    assert prior("ip and e-mail").matches == ("ip", "email")
    ce3 = {name for name in found if prior(name).ce3}
    assert ce3 == {"edge 365 d", "edge 120 d", "fingerprint"}
    # The two best: CE 3.0's first, most counted elements, then the newest.
    assert [p.charge_id for p in result.best] == [made["edge 120 d"], made["fingerprint"]]
    assert result.ce3_met and result.complete
    assert result.summary().startswith("5 priors found; two match as Compelling Evidence 3.0 asks")


async def test_one_qualifying_prior_of_the_card_is_not_enough_and_says_so(
    demo_client: PaymentClient, sandbox_transport: httpx.ASGITransport
) -> None:
    clocked = Clocked(sandbox_transport, demo_client)
    account = await _account(demo_client)
    card = await clocked.token(account, CARD, DISPUTED_AT - timedelta(days=400))
    only = await clocked.sale(
        account, card, DISPUTED_AT - timedelta(days=130), _only("ip_address", "shipping_address")
    )
    # A charge of the card that is no prior: refunded.
    refunded = await clocked.sale(
        account, card, DISPUTED_AT - timedelta(days=140), _only("ip_address", "device_id")
    )
    await _refund(demo_client, refunded)
    disputed_id = await clocked.sale(account, card, DISPUTED_AT, _only("ip_address", "device_id"))
    disputed: Any = await demo_client.get_charge(disputed_id, expand="all")

    result = await find_priors(demo_client, disputed)

    assert [p.charge_id for p in result.priors] == [only]
    assert result.priors[0].matches == ("ip",)  # no shipping address on the disputed charge
    assert not result.priors[0].ce3 and not result.ce3_met
    assert (
        result.summary()
        == "one prior found; none matches on two elements, one of them IP or device"
    )


async def _refund(client: PaymentClient, charge_id: str) -> None:
    from paytui.api.models import RefundRequest

    await client.create_refund(RefundRequest(charge_id=charge_id, total_amount=Decimal("1.00")))
