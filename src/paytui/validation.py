"""Client-side checks of what people type into the payment forms: pure functions, no Textual.

Each check answers ``None`` when the value is fine, or a short sentence to show next to the
field. They mirror the service's own rules (docs/api-assumptions.md) so that a typo is caught
before anything is sent; the service still has the last word.

Full card numbers pass through here as plain strings only for the length of a call; nothing in
this module stores, logs or echoes one (messages never quote the number).
"""

from __future__ import annotations

import re
from datetime import date, datetime

from paytui.cards import card_brand, luhn_valid, routing_number_valid
from paytui.tags import format_attributes, parse_attributes, parse_tags

__all__ = [
    "BRANDS",
    "card_brand",
    "check_bank_account_number",
    "check_card_number",
    "check_country",
    "check_expiration",
    "check_routing_number",
    "digits_only",
    "format_attributes",
    "luhn_valid",
    "mask_card",
    "parse_attributes",
    "parse_tags",
    "routing_number_valid",
]

BRANDS = ("visa", "mastercard", "amex", "discover")
_DIGITS = re.compile(r"^[0-9]+$")
_EXPIRY = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
_COUNTRY = re.compile(r"^[A-Za-z]{2}$")


def digits_only(text: str) -> str:
    """The digits of `text` (spaces and dashes people type between groups dropped)."""
    return "".join(ch for ch in text if "0" <= ch <= "9")


def check_card_number(number: str) -> str | None:
    """Length, Luhn and brand, in that order; the message never contains the number."""
    if not number:
        return "Enter the card number"
    if not _DIGITS.match(number):
        return "Digits only"
    if not 12 <= len(number) <= 19:
        return f"A card number has 12 to 19 digits, not {len(number)}"
    if not luhn_valid(number):
        return "Not a valid card number (Luhn check failed): check the digits"
    if card_brand(number) is None:
        return "Card brand not supported (visa, mastercard, amex, discover)"
    return None


def check_expiration(text: str, today: date | datetime) -> str | None:
    """``YYYY-MM``, a real month, and not before the month of `today` (a card is good through
    the last day of its expiry month)."""
    value = text.strip()
    if not value:
        return "Enter the expiry as YYYY-MM"
    match = _EXPIRY.match(value)
    if match is None:
        return "Use YYYY-MM with a month from 01 to 12 (e.g. 2028-09)"
    year, month = int(match.group(1)), int(match.group(2))
    if (year, month) < (today.year, today.month):
        return "The card has expired (that month is in the past)"
    return None


def check_country(text: str) -> str | None:
    """Empty (not given) or a two-letter ISO country code."""
    value = text.strip()
    if value and not _COUNTRY.match(value):
        return "Two letters, e.g. US"
    return None


def check_routing_number(text: str) -> str | None:
    value = text.strip()
    if not value:
        return "Enter the routing number"
    if len(value) != 9 or not _DIGITS.match(value):
        return "A routing number has 9 digits"
    if not routing_number_valid(value):
        return "Not a valid routing number (ABA checksum failed)"
    return None


def check_bank_account_number(number: str) -> str | None:
    if not number:
        return "Enter the account number"
    if not _DIGITS.match(number) or not 4 <= len(number) <= 17:
        return "An account number has 4 to 17 digits"
    return None


def mask_card(length: int, last4: str) -> str:
    """How a card number being typed looks: a dot per hidden digit in groups of four, the last
    four in clear (``•••• •••• •••• 1111``). Built from the length and last four only."""
    if length <= 0:
        return ""
    shown = last4[-min(4, length) :] if length > 4 else last4[-length:]
    hidden = max(0, length - len(shown))
    chars = "•" * hidden + shown
    # Grouped from the right, so the last four always stand together (amex: ••• •••• •••• 0005).
    head = len(chars) % 4
    groups = [chars[:head]] if head else []
    groups += [chars[i : i + 4] for i in range(head, len(chars), 4)]
    return " ".join(groups)
