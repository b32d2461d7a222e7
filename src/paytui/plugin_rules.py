"""The rules of plugin sessions and account creation, shared by the client and the sandbox.

The spec leaves several shapes "not shown"; paytui decides them once, here (and in
docs/api-assumptions.md), so the forms, the client's request models and the sandbox can never
disagree. Neither layer may import the other, so the rules live beside `boarding` and `limits`.

- The account's processing limit is its ``max_transaction_amount`` (the spec's words for the
  payment plugin's default: "the max_transaction_amount limit of the merchant account"). In the
  sandbox an account that does not show one has `DEFAULT_ACCOUNT_LIMIT`; the client assumes no
  default (the spec shows none) and leaves such a session to the service.
- The limit applies **fees included**: a payment through a session may be as large as the
  session's ``max_transaction_amount`` and the session's fixed fees (``convenience_fee.amount``
  and ``tax_amount``) come on top, so ``max_transaction_amount + fees`` must fit within the
  account's limit. The default cap is the limit minus those fees.
- ``tax_authority`` / ``tax_authority_state`` belong to merchant category 9311 only.

Pure functions of plain values; no I/O, no pydantic, no Textual.
"""

from __future__ import annotations

import re
from decimal import Decimal

__all__ = [
    "DEFAULT_ACCOUNT_LIMIT",
    "DEFAULT_MAX_ATTEMPTS",
    "PAYMENT_METHODS",
    "PLUGINS_SCOPE",
    "PREPOPULATE_SCOPE",
    "SESSION_CHARGE_TYPES",
    "TAX_MCC",
    "check_cap",
    "check_colour",
    "check_tax_fields",
    "default_cap",
    "session_fees",
]

#: The scope of POST / GET / DELETE on /plugins.
PLUGINS_SCOPE = "urn:v2:plugins:all"
#: The scope that allows pre-populating data.account in POST /plugins/enrollment.
PREPOPULATE_SCOPE = "urn:v2:plugins:enrollment:create:prepopulate-processing-info"
#: What a payment plugin session may do with a payment (spec: `sale` is the default).
SESSION_CHARGE_TYPES: tuple[str, ...] = ("sale", "authorization")
#: The payment methods a session may accept (the request forms the spec shows).
PAYMENT_METHODS: tuple[str, ...] = ("card", "bank_account")
#: max_attempts when the request leaves it out (spec: changed from 0 to 2).
DEFAULT_MAX_ATTEMPTS = 2
#: The sandbox's processing limit of an account that does not show its own (server side only).
DEFAULT_ACCOUNT_LIMIT = Decimal("10000.00")
#: The merchant category of tax payments, the only one with a tax authority.
TAX_MCC = "9311"

_COLOUR = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_STATE = re.compile(r"^[A-Z]{2}$")


def check_colour(value: str) -> str | None:
    """A colour is CSS hex, ``#rgb`` or ``#rrggbb``; None when fine, else why not."""
    if _COLOUR.match(value):
        return None
    return "must be a colour as #rgb or #rrggbb"


def session_fees(convenience_fee: Decimal | None, tax_amount: Decimal | None) -> Decimal:
    """The fixed fees a session adds to every payment (missing ones count 0)."""
    return (convenience_fee or Decimal(0)) + (tax_amount or Decimal(0))


def default_cap(limit: Decimal, fees: Decimal) -> Decimal:
    """The session's max_transaction_amount when none is given: what fits with the fees."""
    return max(limit - fees, Decimal(0))


def check_cap(cap: Decimal, fees: Decimal, limit: Decimal) -> str | None:
    """A session cap above 0 that, fees included, fits within the account's limit."""
    if cap <= 0:
        return "must be above 0"
    if cap + fees > limit:
        if fees:
            return (
                f"with the fees ({fees}) it must be at most the account limit {limit}:"
                f" at most {default_cap(limit, fees)}"
            )
        return f"must be at most the account limit {limit}"
    return None


def check_tax_fields(
    category: str | None, authority: str | None, state: str | None
) -> tuple[str, str] | None:
    """(field, why) when the tax fields do not fit the merchant category, else None.

    Only category 9311 has a tax authority; a state without an authority names nothing; the
    state is a two-letter code (``MN``)."""
    if authority is None and state is None:
        return None
    if category != TAX_MCC:
        field = "tax_authority" if authority is not None else "tax_authority_state"
        return field, f"applies only to merchant category code {TAX_MCC}"
    if authority is None or not authority.strip():
        return "tax_authority", "is required when tax_authority_state is given"
    if state is not None and not _STATE.match(state):
        return "tax_authority_state", "must be a two-letter state code such as MN"
    return None
