"""Validation of payment methods in requests, producing the masked response form.

A full card or bank number enters here and leaves only as its last four digits, its length and its
brand; nothing downstream (the database, logs, answers) ever sees more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from paytui.sandbox import cards
from paytui.sandbox.errors import FieldInvalid
from paytui.sandbox.models import Contact, PaymentMethodIn
from paytui.sandbox.wire import EXPIRATION_FORMAT, month_not_past

PM = "payment_method"


@dataclass(frozen=True)
class CheckedMethod:
    """A validated payment method: the response form plus the searchable facts."""

    output: dict[str, Any]
    method: str
    last4: str
    contact_name: str
    declined: bool = False


def contact_out(contact: Contact | None) -> dict[str, str]:
    if contact is None:
        return {}
    return {k: v for k, v in contact.model_dump().items() if v is not None}


def contact_name(contact: dict[str, str]) -> str:
    """The sort key of `sort=contact_name`: "first last", case-folded."""
    return " ".join(
        p for p in (contact.get("first_name"), contact.get("last_name")) if p
    ).casefold()


def check_expiration(value: str | None, field: str, today: datetime) -> str:
    if not value:
        raise FieldInvalid(field, "is required (YYYY-MM)")
    if not EXPIRATION_FORMAT.match(value):
        raise FieldInvalid(field, "must be YYYY-MM with a month from 01 to 12")
    if not month_not_past(value, today):
        raise FieldInvalid(field, "is in the past: the card has expired")
    return value


def check_card(pm: PaymentMethodIn, today: datetime) -> tuple[CheckedMethod, str]:
    """A card method; also answers the expiration date (kept on tokens, not on charges)."""
    number = cards.normalize_number(pm.card_number or "")
    field = f"{PM}.card_number"
    if not number:
        raise FieldInvalid(field, "is required for method card")
    if not number.isdigit() or not 12 <= len(number) <= 19:
        raise FieldInvalid(field, "must be 12 to 19 digits")
    if not cards.luhn_valid(number):
        raise FieldInvalid(field, "is not a valid card number (Luhn check failed)")
    brand = cards.card_brand(number)
    if brand is None:
        raise FieldInvalid(field, "card brand not supported (visa, mastercard, amex, discover)")
    expiration = check_expiration(pm.expiration_date, f"{PM}.expiration_date", today)
    contact = contact_out(pm.contact)
    output = {
        "method": "card",
        "type": brand,
        "card_number": cards.mask_number(number),
        "contact": contact,
    }
    checked = CheckedMethod(
        output, "card", number[-4:], contact_name(contact), declined=number == cards.DECLINED_CARD
    )
    return checked, expiration


def check_bank(pm: PaymentMethodIn) -> CheckedMethod:
    account_type = pm.type or "checking"
    if account_type not in ("checking", "savings"):
        raise FieldInvalid(f"{PM}.type", "must be checking or savings")
    routing = cards.normalize_number(pm.routing_number or "")
    if not cards.routing_number_valid(routing):
        raise FieldInvalid(f"{PM}.routing_number", "must be 9 digits with a valid ABA checksum")
    number = cards.normalize_number(pm.account_number or "")
    if not cards.bank_account_number_valid(number):
        raise FieldInvalid(f"{PM}.account_number", "must be 4 to 17 digits")
    contact = contact_out(pm.contact)
    output = {"method": "bank_account", "account_number": number[-4:], "contact": contact}
    return CheckedMethod(output, "bank_account", number[-4:], contact_name(contact))
