"""Card and bank-account number rules: Luhn, brand detection, masking, ABA routing checksum.

One copy for the whole product: the sandbox enforces them, the forms check them before sending.
Standard library only, so either side can import it without pulling in the other's stack. Full
numbers only ever pass through these functions; nothing here stores or logs one.
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"^[0-9]+$")


def normalize_number(value: str) -> str:
    """Drop the spaces and dashes people type between digit groups."""
    return value.replace(" ", "").replace("-", "")


def luhn_valid(number: str) -> bool:
    """True when `number` is all digits and passes the Luhn (mod 10) check."""
    if not _DIGITS.match(number):
        return False
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = ord(char) - 48
        if index % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def card_brand(number: str) -> str | None:
    """The lowercase brand of a card number by its IIN prefix, or None when not supported."""
    if not _DIGITS.match(number):
        return None
    length = len(number)
    if number.startswith("4") and length in (13, 16, 19):
        return "visa"
    two, four, six = int(number[:2]), int(number[:4]), int(number[:6])
    if (51 <= two <= 55 or 222100 <= six <= 272099) and length == 16:
        return "mastercard"
    if two in (34, 37) and length == 15:
        return "amex"
    if (four == 6011 or two == 65 or 644 <= int(number[:3]) <= 649 or 622126 <= six <= 622925) and (
        16 <= length <= 19
    ):
        return "discover"
    return None


def mask_number(number: str) -> str:
    """All but the last four digits replaced by X (`XXXXXXXXXXXX1111`)."""
    return "X" * (len(number) - 4) + number[-4:]


def mask_last4(last4: str, length: int) -> str:
    """The masked form rebuilt from what is stored (last four and length), never the full number."""
    return "X" * (length - 4) + last4


def routing_number_valid(routing: str) -> bool:
    """Nine digits whose ABA checksum (weights 3, 7, 1) is a multiple of ten."""
    if len(routing) != 9 or not _DIGITS.match(routing):
        return False
    digits = [ord(c) - 48 for c in routing]
    weights = (3, 7, 1) * 3
    return sum(d * w for d, w in zip(digits, weights, strict=True)) % 10 == 0


def bank_account_number_valid(number: str) -> bool:
    """Four to seventeen digits: the range US bank account numbers come in."""
    return 4 <= len(number) <= 17 and bool(_DIGITS.match(number))
