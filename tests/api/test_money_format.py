"""`format_amount` and `amount_text`: the one way an amount is shown, whatever a response holds."""

from __future__ import annotations

from decimal import Decimal

import pytest

from paytui.api.models import Charge
from paytui.api.money import amount_text, format_amount, has_cents_only, loads_json


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Decimal("1234.5"), "1,234.50"),
        (Decimal("0"), "0.00"),
        (Decimal("-12.345"), "-12.34"),  # banker's rounding, as ledgers do
        (Decimal("0.005"), "0.00"),
        (Decimal("1E+26"), "100,000,000,000,000,000,000,000,000.00"),
        (Decimal("123456789012345678901234567.891"), "123,456,789,012,345,678,901,234,567.89"),
        (Decimal("1E+30"), "1.00E+30"),
        (Decimal("9.99E+999999"), "9.99E+999999"),
        (Decimal("NaN"), "NaN"),
        (Decimal("sNaN"), "NaN"),
        (Decimal("Infinity"), "∞"),
        (Decimal("-Infinity"), "-∞"),
        (None, "—"),
    ],
)
def test_format_amount_shows_any_value(amount: Decimal | None, shown: str) -> None:
    assert format_amount(amount) == shown


def test_format_amount_without_grouping_is_what_an_amount_field_takes() -> None:
    assert format_amount(Decimal("1234.5"), grouping=False) == "1234.50"


def test_a_huge_amount_in_a_response_is_shown_not_raised() -> None:
    body = loads_json('{"charge_id": "ch_1", "total_amount": 1e26, "status": "success"}')
    charge = Charge.model_validate(body)
    assert format_amount(charge.total_amount) == "100,000,000,000,000,000,000,000,000.00"


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (Decimal("25.50"), "25.5"),
        (Decimal("10.00"), "10"),
        (Decimal("-0"), "0"),
        (Decimal("1E+2"), "100"),
    ],
)
def test_amount_text_is_the_shortest_exact_text(amount: Decimal, text: str) -> None:
    assert amount_text(amount) == text


@pytest.mark.parametrize(
    ("amount", "cents_only"),
    [
        (Decimal("12.5"), True),
        (Decimal("12.500"), True),
        (Decimal("12.505"), False),
        (Decimal("1E+26"), True),
        (Decimal("NaN"), False),
        (Decimal("Infinity"), False),
    ],
)
def test_has_cents_only(amount: Decimal, cents_only: bool) -> None:
    assert has_cents_only(amount) is cents_only
