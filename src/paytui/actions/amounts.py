"""Amounts a person types: parsed to `Decimal` with a message fit to show next to the field.

`paytui.api.money` knows the wire; this module knows people. It is strict where a mistake would
move the wrong amount of money (exponents, a third decimal place, a stray comma) and lenient where
the meaning is unambiguous (thousands separators in the right places, surrounding blanks,
"12.500" which is exactly 12.50). Never float: the text goes straight to `Decimal`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from paytui.actions.errors import ActionError
from paytui.api.money import format_amount, has_cents_only, quantize

__all__ = [
    "MAX_AMOUNT",
    "AmountError",
    "check_amount",
    "format_amount",
    "parse_amount",
]

#: Anything above this is a typo (or a test of our nerves), not a payment.
MAX_AMOUNT = Decimal("1000000000")
#: Longer input cannot be a sensible amount; refusing early keeps Decimal away from megabytes.
_MAX_TEXT = 32

# Digits with correctly placed thousands separators, or plain digits; an optional fraction.
# ".5" is accepted (it can only mean 0.50); "5." too. Signs are handled before this.
_AMOUNT = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+", re.ASCII)


class AmountError(ActionError, ValueError):
    """A refused amount; `message` is a short sentence for the user, shown next to the field.

    An `ActionError` too: when the executor refuses an amount, nothing was sent.
    """


def _shown(text: str) -> str:
    """The user's text quoted back, cut short so a pasted novel does not fill the screen."""
    short = text if len(text) <= 20 else text[:19] + "…"
    return f"'{short}'"


def check_amount(
    amount: Decimal,
    *,
    maximum: Decimal | None = None,
    allow_zero: bool = False,
    maximum_reason: str = "left to refund",
) -> Decimal:
    """Validate an amount that is already a Decimal; returns it quantized to cents.

    The executor calls this on what it is about to send, so a caller that skipped `parse_amount`
    (or built a Decimal by hand) still cannot send 1E+3 or 0.001.
    """
    if not isinstance(amount, Decimal):
        raise AmountError(f"Not an amount: {type(amount).__name__}")
    if not amount.is_finite():
        raise AmountError(f"Not a number: {_shown(str(amount))}")
    if amount < 0 or (amount == 0 and not allow_zero):
        raise AmountError("Must be more than 0" if not allow_zero else "Cannot be negative")
    if amount > MAX_AMOUNT:
        raise AmountError(f"At most {format_amount(MAX_AMOUNT)}")
    if not has_cents_only(amount):  # "12.500" has: it is exactly 12.50
        raise AmountError("At most two decimal places")
    if maximum is not None and amount > maximum:
        raise AmountError(f"More than the {format_amount(maximum)} {maximum_reason}")
    return quantize(amount)


def parse_amount(
    text: str,
    *,
    maximum: Decimal | None = None,
    allow_zero: bool = False,
    maximum_reason: str = "left to refund",
) -> Decimal:
    """The amount in `text` as a two-place Decimal, or `AmountError` saying what is wrong.

    Accepts "12", "12.5", "12.50", "1,234.50", ".50". Refuses exponents, NaN/Infinity, signs
    (a negative amount is never what a refund or fee field means), more than two places, more
    than `MAX_AMOUNT`, and more than `maximum` ("More than the 12.50 left to refund").
    """
    stripped = text.strip()
    if not stripped:
        raise AmountError("Enter an amount")
    if len(stripped) > _MAX_TEXT:
        raise AmountError(f"Not a number: {_shown(stripped)}")
    if stripped[0] in "+-":
        body = stripped[1:].strip()
        if stripped[0] == "-" and _AMOUNT.fullmatch(body):
            raise AmountError("Must be more than 0" if not allow_zero else "Cannot be negative")
        raise AmountError(f"Not a number: {_shown(stripped)}")
    if not _AMOUNT.fullmatch(stripped):
        raise AmountError(f"Not a number: {_shown(stripped)}")
    try:
        amount = Decimal(stripped.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid literals
        raise AmountError(f"Not a number: {_shown(stripped)}") from None
    return check_amount(
        amount, maximum=maximum, allow_zero=allow_zero, maximum_reason=maximum_reason
    )
