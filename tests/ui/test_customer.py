"""One customer, one screen (issue #26, item 4): `H` on a charge, `:customer` in the jump line."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from paytui.api.models import RefundRequest
from paytui.api.queries import ChargeQuery
from paytui.customer import CustomerKey, customer_key
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.customer import CustomerScreen
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import screen_text, settle
from tests.ui.test_charge_detail import AppFactory, find, open_detail


def test_what_a_caller_gives() -> None:
    assert customer_key("  Edsger   Dijkstra ") == CustomerKey("name", "Edsger Dijkstra")
    assert customer_key("1111") == CustomerKey("last4", "1111")
    assert customer_key("Ada.Lovelace@Example.com") == CustomerKey(
        "email", "ada.lovelace@example.com"
    )
    assert customer_key("12345") == CustomerKey("name", "12345")  # not a last four


def customer(app: Any) -> CustomerScreen:
    screen = app.screen
    assert isinstance(screen, CustomerScreen)
    return screen


async def test_h_on_a_row_and_the_jump_line(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        sale = await find(
            app,
            ChargeQuery(contact_name="Edsger Dijkstra", charge_type="sale", status="success"),
            lambda c: c.chargebacks is None and c.return_info is None,
        )
        await client.create_refund(RefundRequest(charge_id=sale.charge_id, total_amount="1.00"))
        # Every charge of the name the service lists, read here too.
        theirs = [
            c.charge_id
            async for page in client.search_charges(
                ChargeQuery(contact_name="Edsger Dijkstra"), page_size=100
            )
            for c in page.items
        ]

        await pilot.press("colon", *"customer edsger.dijkstra@example.com", "enter")
        await settle(app, pilot)
        screen = customer(app)
        assert screen.view is not None and screen.view.name == "Edsger Dijkstra"
        rows = screen.view.rows
        charges = [row.item_id for row in rows if row.kind == "charge"]
        assert sorted(charges) == sorted(theirs) and screen.view.charges == len(theirs)
        refunds = [row for row in rows if row.kind == "refund"]
        assert any(r.charge_id == sale.charge_id and r.amount == Decimal("1.00") for r in refunds)
        assert screen.view.refunded >= Decimal("1.00")
        assert all(row.charge_id in theirs for row in rows if row.kind != "token")
        text = screen_text(app)
        assert "Customer with the email edsger.dijkstra@example.com (Edsger Dijkstra)" in text
        assert f"{len(theirs)} charges" in text and "refunded" in text and " token" in text

        # enter on a row opens its charge; H there opens the same customer, by name.
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        await pilot.press("H")
        await settle(app, pilot)
        assert customer(app).key == CustomerKey("name", "Edsger Dijkstra")
        assert customer(app).view is not None and customer(app).view.charges == len(theirs)


async def test_h_on_the_list_and_an_unknown_email(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        first = table.charge_at(0)
        assert first is not None and first.contact_name
        await pilot.press("g", "H")
        await settle(app, pilot)
        view = customer(app).view
        assert view is not None and view.key == CustomerKey("name", first.contact_name)
        assert first.charge_id in [row.item_id for row in view.rows if row.kind == "charge"]
        await pilot.press("escape")
        await settle(app, pilot)

        await pilot.press("colon", *"customer nobody@example.com", "enter")
        await settle(app, pilot)
        assert customer(app).view is not None and customer(app).view.rows == []
        assert "no customer with the email nobody@example.com" in screen_text(app)


async def test_a_card_s_last_four(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        detail = await open_detail(
            app, pilot, (await find(app, ChargeQuery(last4="4444"))).charge_id
        )
        assert detail.charge is not None
        await pilot.press("colon", *"customer 4444", "enter")
        await settle(app, pilot)
        view = customer(app).view
        assert view is not None and view.charges > 0
        assert all(row.kind != "charge" or row.note.endswith("4444") for row in view.rows)
