"""parse_amount: every accepted spelling and every refusal, with the message the user sees."""

from __future__ import annotations

from decimal import Decimal

import pytest

from paytui.actions.amounts import AmountError, check_amount, format_amount, parse_amount


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12", "12.00"),
        ("12.5", "12.50"),
        ("12.50", "12.50"),
        ("1,234.50", "1234.50"),
        ("1,234,567", "1234567.00"),
        ("  7.05 ", "7.05"),
        (".5", "0.50"),
        ("5.", "5.00"),
        ("12.500", "12.50"),
        ("1000000000", "1000000000.00"),
    ],
)
def test_accepts(text: str, expected: str) -> None:
    value = parse_amount(text)
    assert isinstance(value, Decimal)
    assert str(value) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Enter an amount"),
        ("   ", "Enter an amount"),
        ("1,2.3", "Not a number: '1,2.3'"),
        ("12,34", "Not a number: '12,34'"),
        ("1e3", "Not a number: '1e3'"),
        ("1E+3", "Not a number: '1E+3'"),
        ("NaN", "Not a number: 'NaN'"),
        ("Infinity", "Not a number: 'Infinity'"),
        ("inf", "Not a number: 'inf'"),
        ("12.3.4", "Not a number: '12.3.4'"),
        ("abc", "Not a number: 'abc'"),
        ("+5", "Not a number: '+5'"),
        ("$5", "Not a number: '$5'"),
        ("0x10", "Not a number: '0x10'"),
        ("١٢", "Not a number: '١٢'"),  # Arabic-Indic digits: Decimal would take them, we do not
        ("-5", "Must be more than 0"),
        ("0", "Must be more than 0"),
        ("0.00", "Must be more than 0"),
        ("12.505", "At most two decimal places"),
        ("0.001", "At most two decimal places"),
        ("1000000000.01", "At most 1,000,000,000.00"),
        ("9" * 30, "At most 1,000,000,000.00"),
        ("1" * 40, "Not a number: '1111111111111111111…'"),
    ],
)
def test_refuses(text: str, message: str) -> None:
    with pytest.raises(AmountError) as info:
        parse_amount(text)
    assert info.value.message == message
    assert str(info.value) == message


def test_maximum_names_what_is_left() -> None:
    assert parse_amount("12.50", maximum=Decimal("12.50")) == Decimal("12.50")
    with pytest.raises(AmountError, match=r"^More than the 12\.50 left to refund$"):
        parse_amount("12.51", maximum=Decimal("12.5"))
    with pytest.raises(AmountError, match=r"^More than the 1,000\.00 allowed$"):
        parse_amount("1,000.01", maximum=Decimal(1000), maximum_reason="allowed")


def test_zero_only_when_allowed() -> None:
    assert parse_amount("0", allow_zero=True) == Decimal("0.00")
    with pytest.raises(AmountError, match="Cannot be negative"):
        parse_amount("-1", allow_zero=True)


def test_check_amount_guards_hand_built_decimals() -> None:
    assert check_amount(Decimal("1E+3")) == Decimal("1000.00")
    for bad, message in [
        (Decimal("NaN"), "Not a number"),
        (Decimal("-Infinity"), "Not a number"),
        (Decimal("0.015"), "At most two decimal places"),
        (Decimal("-0.01"), "Must be more than 0"),
    ]:
        with pytest.raises(AmountError, match=message):
            check_amount(bad)
    with pytest.raises(AmountError, match="Not an amount: float"):
        check_amount(1.5)  # type: ignore[arg-type]


def test_format_amount_groups_thousands() -> None:
    assert format_amount(Decimal("1234.5")) == "1,234.50"
    assert format_amount(Decimal("12.5")) == "12.50"
