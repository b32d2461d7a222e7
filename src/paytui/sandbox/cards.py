"""The sandbox's card and bank-account number rules (shared with the forms: `paytui.cards`)."""

from __future__ import annotations

from paytui.cards import (
    bank_account_number_valid,
    card_brand,
    luhn_valid,
    mask_last4,
    mask_number,
    normalize_number,
    routing_number_valid,
)

DECLINED_CARD = "4000000000000002"
"""The sandbox card that is processed but declined (answers status `declined`)."""

__all__ = [
    "DECLINED_CARD",
    "bank_account_number_valid",
    "card_brand",
    "luhn_valid",
    "mask_last4",
    "mask_number",
    "normalize_number",
    "routing_number_valid",
]
