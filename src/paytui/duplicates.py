""" "Charged twice?": the charges that look like a duplicate of one charge.

A likely duplicate is another charge of the same account, for the same amount, on the same card
(method, brand when both rows give one, last four) whose time is within the window of this one
(`[ui] duplicate_window_minutes`, 10 by default; docs/screens.md). A capture of this
authorization, or the authorization this capture captured, is the same money, not a duplicate.

The search asks the service for exactly those (account, amount, card, time), but every row is
checked here against the charge itself: a filter the service ignored (or a row that cannot show
a field) never makes a charge a "duplicate". No Textual.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from paytui.api.queries import ChargeQuery

__all__ = [
    "DEFAULT_WINDOW",
    "duplicate_query",
    "is_likely_duplicate",
    "same_card",
    "why_not_searchable",
]

#: How far apart (either way) two charges may be and still look like one charged twice.
DEFAULT_WINDOW = timedelta(minutes=10)


def _brand(charge: Any) -> str | None:
    method = getattr(charge, "payment_method", None)
    brand = getattr(method, "type", None)
    return brand if isinstance(brand, str) else None


def same_card(charge: Any, other: Any) -> bool:
    """The same card or bank account as far as both rows show: method and last four equal (and
    known), and the brand equal when both rows give one."""
    method, last4 = getattr(charge, "method", None), getattr(charge, "last4", None)
    if not method or not last4:
        return False
    if getattr(other, "method", None) != method or getattr(other, "last4", None) != last4:
        return False
    brand, other_brand = _brand(charge), _brand(other)
    return brand is None or other_brand is None or brand == other_brand


def why_not_searchable(charge: Any) -> str | None:
    """Why duplicates of `charge` cannot be looked for (a field they are matched on is
    missing), or None."""
    for field, words in (
        ("account_id", "its account"),
        ("total_amount", "its amount"),
        ("charge_timestamp", "its time"),
        ("last4", "its card's last four"),
    ):
        if getattr(charge, field, None) in (None, ""):
            return f"the service did not give {words}"
    return None


def duplicate_query(charge: Any, window: timedelta = DEFAULT_WINDOW) -> ChargeQuery | None:
    """The search for `charge`'s likely duplicates (None: `why_not_searchable`)."""
    if why_not_searchable(charge) is not None:
        return None
    at = charge.charge_timestamp
    method = getattr(charge, "method", None)
    return ChargeQuery(
        account_id=charge.account_id,
        min_amount=charge.total_amount,
        max_amount=charge.total_amount,
        created_from=at - window,
        created_to=at + window,
        method=method if method in ("card", "bank_account") else None,
        last4=charge.last4,
        sort="charge_timestamp",
    )


def _linked(charge: Any, other: Any) -> bool:
    """A capture and the authorization it captured: one payment, not two."""
    ids = {getattr(charge, "charge_id", None), getattr(other, "charge_id", None)}
    links = {
        getattr(charge, "original_charge_id", None),
        getattr(charge, "captured_charge_id", None),
        getattr(other, "original_charge_id", None),
        getattr(other, "captured_charge_id", None),
    }
    return bool(ids & links)


def is_likely_duplicate(charge: Any, other: Any, window: timedelta = DEFAULT_WINDOW) -> bool:
    """Does `other`, as the service showed it, look like `charge` charged again?"""
    if getattr(other, "charge_id", None) == getattr(charge, "charge_id", None):
        return False
    if why_not_searchable(charge) is not None or why_not_searchable(other) is not None:
        return False
    if other.account_id != charge.account_id or other.total_amount != charge.total_amount:
        return False
    if not same_card(charge, other) or _linked(charge, other):
        return False
    apart: timedelta = abs(other.charge_timestamp - charge.charge_timestamp)
    return apart <= window
