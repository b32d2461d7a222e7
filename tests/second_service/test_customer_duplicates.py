"""One customer and "charged twice?" against a service that ignores every filter but `status`:
nothing of another customer, and no duplicate, is lent by a filter it ignored (issue #26)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from paytui.customer import CustomerKey, read_customer
from paytui.ui.screens.duplicates import DuplicatesScreen
from tests.second_service.app import SecondService
from tests.second_service.data import CHARGE_COUNT, NAMES
from tests.second_service.fixtures import client_for


async def test_a_customer_s_rows_are_theirs_only(
    second_service: Callable[..., SecondService],
) -> None:
    service = second_service()
    first, last = NAMES[0]
    theirs = [c for c in service.store.charges if (c.first_name, c.last_name) == (first, last)]
    assert 0 < len(theirs) < CHARGE_COUNT
    async with client_for(service) as client:
        view = await read_customer(client, CustomerKey("name", f"{first} {last}"))
    charges = [row.item_id for row in view.rows if row.kind == "charge"]
    assert sorted(charges) == sorted(c.charge_id for c in theirs)
    ids = {c.charge_id for c in theirs}
    refunds = [row for row in view.rows if row.kind == "refund"]
    # The refunds list ignores charge_id too: only those naming one of theirs are counted.
    assert all(row.charge_id in ids for row in refunds)
    expected = [r for r in service.store.refunds if r.charge_id in ids]
    assert len(refunds) == len(expected)
    assert view.refunded == sum((r.amount for r in expected), Decimal(0))
    # It lists no tokens (404): said, and the rest stands.
    assert any(note.startswith("tokens could not be read") for note in view.notes)


async def test_no_duplicate_comes_from_an_ignored_filter(
    second_service: Callable[..., SecondService],
) -> None:
    service = second_service()
    async with client_for(service) as client:
        charge = await client.get_charge(service.store.charges[0].charge_id)
        screen = DuplicatesScreen(charge)
        page = await screen.fetch(client, 0, 100)
    # Every row came back (only `status` is applied); none is the same card, amount and account
    # within ten minutes (the seeded charges are 37 minutes apart).
    assert page.items == []
    assert screen.scanned == CHARGE_COUNT
    assert "last4" in page.ignored_filters or "account_id" in page.ignored_filters


async def test_a_customer_s_charges_in_statuses_paytui_does_not_know_count_with_their_refunds(
    second_service: Callable[..., SecondService],
) -> None:
    # Issue 38: `settled` and `partially_refunded` sales are charged money and carry refunds;
    # a status paytui does not know leaves nothing out of the customer's totals.
    service = second_service(lifecycle_statuses=True)
    first, last = NAMES[0]
    theirs = [c for c in service.store.charges if (c.first_name, c.last_name) == (first, last)]
    assert {"settled", "partially_refunded"} <= {c.status for c in theirs}
    standing = [
        c
        for c in theirs
        if c.charge_type != "authorization" and c.status not in ("chargeback", "return")
    ]
    ids = {c.charge_id for c in standing}
    async with client_for(service) as client:
        view = await read_customer(client, CustomerKey("name", f"{first} {last}"))
    assert view.charged == sum((c.amount for c in standing), Decimal(0))
    expected = [r for r in service.store.refunds if r.charge_id in ids]
    assert expected and view.refunded == sum((r.amount for r in expected), Decimal(0))
