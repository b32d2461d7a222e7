"""Card and bank number rules."""

from __future__ import annotations

import pytest

from paytui.sandbox import cards


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        ("4111111111111111", "visa"),
        ("5555555555554444", "mastercard"),
        ("2223003122003222", "mastercard"),
        ("378282246310005", "amex"),
        ("6011111111111117", "discover"),
    ],
)
def test_known_test_cards_pass_luhn_and_have_their_brand(number: str, brand: str) -> None:
    assert cards.luhn_valid(number)
    assert cards.card_brand(number) == brand


@pytest.mark.parametrize("number", ["4111111111111112", "1234567812345678", "41111111111a1111", ""])
def test_luhn_rejects_wrong_numbers(number: str) -> None:
    assert not cards.luhn_valid(number)


def test_unknown_prefix_has_no_brand() -> None:
    assert cards.card_brand("9111111111111111") is None


def test_masking_keeps_only_the_last_four() -> None:
    assert cards.mask_number("4111111111111111") == "XXXXXXXXXXXX1111"
    assert cards.mask_number("378282246310005") == "XXXXXXXXXXX0005"


@pytest.mark.parametrize(
    ("routing", "valid"),
    [("021000021", True), ("011000015", True), ("021000022", False), ("12345678", False)],
)
def test_routing_number_checksum(routing: str, valid: bool) -> None:
    assert cards.routing_number_valid(routing) is valid
