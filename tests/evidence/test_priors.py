"""The prior-charge finder on the demo, checked against the service's own charges; and the
rows it must leave out (refunded, disputed, outside the window), made on the sandbox."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx

from paytui.api.queries import ChargeQuery, RefundQuery
from paytui.evidence.priors import find_priors
from paytui.reason_codes import lookup
from paytui.today.deadlines import brand_of

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

#: The attributes that name the customer in the demo (what "same customer" is told by).
CUSTOMER_KEYS = ("customer_id", "email")


async def _every_charge(client: PaymentClient) -> list[Any]:
    rows: list[Any] = []
    async for page in client.search_charges(ChargeQuery(), page_size=100):
        rows += page.items
    return rows


def _fraud_cases(charges: list[Any]) -> list[Any]:
    cases = []
    for charge in charges:
        items = charge.chargebacks.items if charge.chargebacks is not None else None
        for item in items or []:
            found = lookup(item.reason_code, brand_of(charge))
            if found is not None and found.category == "fraud":
                cases.append(charge)
                break
    return cases


def _customer(charge: Any) -> set[tuple[str, str]]:
    return {(k, v) for k in CUSTOMER_KEYS for v in charge.attributes.get(k, ())}


async def _expected(client: PaymentClient, case: Any, charges: list[Any]) -> set[str]:
    """What qualifies, worked out here from every charge the service lists (not the finder)."""
    start = case.charge_timestamp - timedelta(days=365)
    end = case.charge_timestamp - timedelta(days=120)
    found = set()
    for row in charges:
        if row.charge_id == case.charge_id or not start <= row.charge_timestamp <= end:
            continue
        same_token = case.token_id is not None and row.token_id == case.token_id
        if not (same_token or _customer(case) & _customer(row)):
            continue
        if row.status != "success" or row.chargebacks is not None or row.return_info is not None:
            continue
        if row.charge_type in ("authorization", "pre_authorization"):
            continue
        if not row.total_amount or row.total_amount <= 0:
            continue
        query = RefundQuery(charge_id=row.charge_id)
        refunds = [
            refund
            async for page in client.search_refunds(query)
            for refund in page.items
            if refund.charge_id == row.charge_id
        ]
        if not refunds:
            found.add(row.charge_id)
    return found


async def test_every_fraud_case_of_the_demo_finds_exactly_what_qualifies(
    demo_client: PaymentClient,
) -> None:
    charges = await _every_charge(demo_client)
    cases = _fraud_cases(charges)
    assert len(cases) >= 3
    results = {}
    for case in cases:
        result = await find_priors(demo_client, case)
        found = {prior.charge_id for prior in result.priors}
        assert found == await _expected(demo_client, case, charges), case.charge_id
        assert result.complete and not result.notes[1:], result.notes
        results[case.contact_name] = result
    # Omar Haddad's case: two earlier charges that count (IP and device among the matches),
    # the third of his card too recent (60 days) to be one.
    omar = results["Omar Haddad"]
    assert len(omar.priors) == 2 and omar.ce3_met
    assert all({"ip", "device"} <= set(prior.matches) for prior in omar.best)
    assert omar.summary().startswith("2 priors found; two match as Compelling Evidence 3.0")
    # Kwame Mensah's: none, and it says why.
    kwame = results["Kwame Mensah"]
    assert kwame.priors == [] and kwame.summary().startswith(
        "no prior found: no undisputed, unrefunded charge of the same card or customer"
    )


async def _omar(client: PaymentClient) -> Any:
    page = await client.search_charges_page(ChargeQuery(contact_name="Omar Haddad"), limit=50)
    (case,) = [c for c in page.items if c.status == "chargeback"]
    return case


async def test_a_refunded_or_disputed_prior_is_no_candidate_and_the_rest_is_said(
    demo_client: PaymentClient, api: httpx.AsyncClient
) -> None:
    from paytui.api.models import RefundRequest

    case = await _omar(demo_client)
    before = await find_priors(demo_client, case)
    first, second = (prior.charge_id for prior in before.priors)
    await demo_client.create_refund(RefundRequest(charge_id=first, total_amount=Decimal("1.00")))
    after = await find_priors(demo_client, case)
    assert [prior.charge_id for prior in after.priors] == [second]
    assert after.summary() == (
        f"one prior found; only one matches on two elements with IP or device ({second} of"
        f" {after.priors[0].charge_timestamp:%Y-%m-%d} (IP address, device id, shipping"
        " address, customer account, e-mail)); Compelling Evidence 3.0 asks for two"
    )
    made = await api.post(f"/sandbox/charges/{second}/chargeback", json={"reason_code": "13.1"})
    assert made.status_code == 201, made.text
    none = await find_priors(demo_client, case)
    assert none.priors == [] and none.summary().startswith("no prior found")


async def test_a_prior_that_matches_on_no_ip_or_device_is_named_as_such(
    demo_client: PaymentClient,
) -> None:
    case = await _omar(demo_client)
    for prior in (await find_priors(demo_client, case)).priors:
        await demo_client.update_charge(
            prior.charge_id, attributes={"customer_id": ["C-2002"], "ip_address": ["192.0.2.9"]}
        )
    result = await find_priors(demo_client, case)
    assert len(result.priors) == 2 and not result.ce3_met
    assert result.summary() == "2 priors found; none matches on IP or device"
    assert all(prior.matches == ("account",) for prior in result.priors)
