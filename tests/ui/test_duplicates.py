""" "Charged twice?" (issue #26, item 5): the rule on rows, then `z` on the list and the detail."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from paytui.api.models import CardPaymentMethodRequest, Charge, ChargeRequest
from paytui.duplicates import duplicate_query, is_likely_duplicate, why_not_searchable
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.duplicates import DuplicatesScreen, apart
from tests.ui.conftest import screen_text, settle
from tests.ui.test_charge_detail import AppFactory

AT = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def row(charge_id: str, **fields: object) -> Charge:
    body: dict[str, object] = {
        "charge_id": charge_id,
        "status": "success",
        "charge_type": "sale",
        "account_id": "pa_1",
        "total_amount": "12.34",
        "charge_timestamp": AT.isoformat(),
        "payment_method": {"method": "card", "type": "visa", "card_number": "XXXXXXXXXXXX1111"},
    }
    body.update(fields)
    return Charge.model_validate(body)


def test_the_rule_on_rows() -> None:
    one = row("a")
    window = timedelta(minutes=10)
    assert is_likely_duplicate(
        one, row("b", charge_timestamp=(AT + timedelta(minutes=9)).isoformat())
    )
    assert is_likely_duplicate(
        one, row("b", charge_timestamp=(AT - timedelta(minutes=10)).isoformat())
    )
    assert not is_likely_duplicate(
        one, row("b", charge_timestamp=(AT + timedelta(minutes=11)).isoformat()), window
    )
    assert not is_likely_duplicate(one, row("a"))  # itself
    assert not is_likely_duplicate(one, row("b", total_amount="12.35"))
    assert not is_likely_duplicate(one, row("b", account_id="pa_2"))
    other_card = {"method": "card", "type": "visa", "card_number": "XXXXXXXXXXXX4242"}
    assert not is_likely_duplicate(one, row("b", payment_method=other_card))
    other_brand = {"method": "card", "type": "mastercard", "card_number": "XXXXXXXXXXXX1111"}
    assert not is_likely_duplicate(one, row("b", payment_method=other_brand))
    # The capture of an authorization is the same money.
    assert not is_likely_duplicate(one, row("b", charge_type="capture", original_charge_id="a"))
    # A row that does not show the card cannot be a duplicate of it, nor be searched from.
    assert not is_likely_duplicate(one, row("b", payment_method=None))
    assert why_not_searchable(row("c", payment_method=None)) == (
        "the service did not give its card's last four"
    )
    assert duplicate_query(row("c", payment_method=None)) is None
    query = duplicate_query(one, window)
    assert query is not None and query.last4 == "1111" and query.min_amount == Decimal("12.34")
    assert query.created_from == AT - window and query.created_to == AT + window
    assert apart(timedelta(seconds=-75)) == "-1 min 15 s" and apart(timedelta(seconds=4)) == "+4 s"


def listed(app: object) -> list[str]:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, DuplicatesScreen)
    return [charge.charge_id for charge in screen.items]


async def test_t_on_the_list_and_on_the_detail(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        account = (await client.list_accounts_page(status="approved", limit=1)).items[0]
        visa = CardPaymentMethodRequest(card_number="4111111111111111", expiration_date="2030-12")
        other = CardPaymentMethodRequest(card_number="5555555555554444", expiration_date="2030-12")

        async def sale(amount: str, card: CardPaymentMethodRequest) -> Charge:
            return await client.create_charge(
                ChargeRequest(
                    account_id=account.account_id, total_amount=Decimal(amount), payment_method=card
                )
            )

        first = await sale("12.34", visa)
        await sale("12.34", other)  # another card
        await sale("12.35", visa)  # another amount
        second = await sale("12.34", visa)

        await pilot.press("ctrl+r")
        await settle(app, pilot)
        await pilot.press("g", "z")  # the newest charge: the second one
        await settle(app, pilot)
        assert listed(app) == [first.charge_id]
        text = screen_text(app)
        assert "Charged twice?" in text and "within 10 min" in text
        assert "Showing 1" in text

        await pilot.press("enter")  # opens the first
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert app.screen.charge_id == first.charge_id
        await pilot.press("z")
        await settle(app, pilot)
        assert listed(app) == [second.charge_id]

        # With a window narrower than the time between them, none.
        app.session.duplicate_window = timedelta(microseconds=1)
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("z")
        await settle(app, pilot)
        assert listed(app) == []
        assert "No likely duplicate" in screen_text(app)


def test_the_registry_gates_both_keys_by_what_the_charge_shows() -> None:
    from paytui.actions.registry import why_not

    assert why_not("duplicates", row("a")) is None
    assert why_not("duplicates", row("a", payment_method=None)) == (
        "Cannot look for duplicates: the service did not give its card's last four"
    )
    assert why_not("duplicates", None) == "No charge selected"
    assert why_not("customer", row("a")) is None  # the card's last four
    assert why_not("customer", row("a", payment_method=None)) == (
        "The service gave neither the payer's name nor the card's last four"
    )
