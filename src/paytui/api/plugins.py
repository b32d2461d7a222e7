"""Requests of plugin sessions and of account creation, typed as the spec's tables give them.

Strict like every request model (`RequestModel`): a typo in our own code fails loudly, and a
value of the wrong type (``tokenize: "yes"``, a colour that is not one, a state of three letters)
never reaches the wire. The shapes the spec leaves "not shown" are decided in `paytui.plugin_rules`
and docs/api-assumptions.md: ``convenience_fee`` is ``{"amount": number}``, ``fields.submit_button``
is the button's caption ("" hides it in embedded mode), colours are ``#rgb`` / ``#rrggbb``, ``data``
maps names to strings.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from paytui.api.models import Attributes, RequestModel, Tags, Timestamp
from paytui.api.money import Money
from paytui.limits import check_texts
from paytui.plugin_rules import (
    check_cap,
    check_colour,
    check_tax_fields,
    default_cap,
    session_fees,
)

if TYPE_CHECKING:
    from paytui.api.models import Account

__all__ = [
    "AccountRequest",
    "Appearance",
    "ConvenienceFee",
    "EnrollmentAccount",
    "EnrollmentData",
    "EnrollmentPluginSessionRequest",
    "PaymentPluginSessionRequest",
    "PluginFields",
    "PrepopulateAccount",
    "Processing",
    "Tokenize",
    "account_limit",
    "cap_problem",
    "session_cap",
]


def _colour(value: str) -> str:
    message = check_colour(value)
    if message:
        raise ValueError(message)
    return value


Colour = Annotated[str, AfterValidator(_colour)]


class Tokenize(RequestModel):
    """Tokenization mode; `token_expiration_date` sets the new token's expiry."""

    token_expiration_date: Timestamp | None = None


class ConvenienceFee(RequestModel):
    """A fixed convenience fee added to each payment (its inner shape is not shown)."""

    amount: Money


class DarkMode(RequestModel):
    enabled: bool


class Loader(RequestModel):
    color: Colour | None = None
    background_color: Colour | None = None


class FieldAppearance(RequestModel):
    color: Colour | None = None


class Appearance(RequestModel):
    dark_mode: DarkMode | None = None
    loader: Loader | None = None
    field: FieldAppearance | None = None


class PluginFields(RequestModel):
    """``submit_button``: the primary button's caption; "" hides it (embedded mode)."""

    submit_button: str | None = None


class PaymentPluginSessionRequest(RequestModel):
    """POST /v2/plugins/payment: every property of the spec's table, typed."""

    account_id: str
    charge_type: Literal["sale", "authorization"] | None = None
    tokenize: Tokenize | None = None
    max_attempts: int | None = Field(default=None, ge=1)
    max_transaction_amount: Money | None = None
    attributes: Attributes | None = None
    tags: Tags | None = None
    payment_methods: list[Literal["card", "bank_account"]] | None = None
    invoice_number: str | None = None
    po_number: str | None = None
    convenience_fee: ConvenienceFee | None = None
    tax_amount: Money | None = None
    captcha: bool | None = None
    fields: PluginFields | None = None
    appearance: Appearance | None = None
    prefix: str | None = None
    data: dict[str, str] | None = None

    @model_validator(mode="after")
    def _texts(self) -> PaymentPluginSessionRequest:
        caption = self.fields.submit_button if self.fields is not None else None
        values = [("data_value", value) for value in (self.data or {}).values()]
        _raise(check_texts([("prefix", self.prefix), ("submit_button", caption), *values]))
        return self


def _raise(message: str | None) -> None:
    if message:
        raise ValueError(message)


class EnrollmentAccount(RequestModel):
    """Attributes and tags applied to the accounts the enrollment creates."""

    attributes: Attributes | None = None
    tags: Tags | None = None


class Processing(RequestModel):
    max_transaction_amount: Money | None = None
    monthly_volume: Money | None = None


class PrepopulateAccount(RequestModel):
    """The processing section the form starts with (needs the prepopulate scope)."""

    product_description: str | None = None
    processing: Processing | None = None

    @model_validator(mode="after")
    def _texts(self) -> PrepopulateAccount:
        _raise(check_texts([("product_description", self.product_description)]))
        return self


class EnrollmentData(RequestModel):
    account: PrepopulateAccount | None = None


class EnrollmentPluginSessionRequest(RequestModel):
    """POST /v2/plugins/enrollment; `attributes` / `tags` go to the merchants created."""

    merchant_id: str | None = None
    attributes: Attributes | None = None
    tags: Tags | None = None
    account: EnrollmentAccount | None = None
    data: EnrollmentData | None = None

    @property
    def prepopulates(self) -> bool:
        """True when it pre-populates data.account (which needs the prepopulate scope)."""
        return self.data is not None and self.data.account is not None


class AccountRequest(RequestModel):
    """POST /v2/accounts: a new payment account of a merchant (it starts boarding)."""

    merchant_id: str
    name: str = Field(min_length=1)
    merchant_category_code: str = Field(pattern=r"^\d{4}$")
    tax_authority: str | None = None
    tax_authority_state: str | None = None
    attributes: Attributes | None = None
    tags: Tags | None = None

    @model_validator(mode="after")
    def _tax(self) -> AccountRequest:
        _raise(check_texts([("name", self.name), ("tax_authority", self.tax_authority)]))
        wrong = check_tax_fields(
            self.merchant_category_code, self.tax_authority, self.tax_authority_state
        )
        if wrong is not None:
            raise ValueError(f"{wrong[0]} {wrong[1]}")
        return self


def account_limit(account: Account | None) -> Decimal | None:
    """The account's processing limit (fees included) when it shows one; None otherwise (the
    spec shows no default: the service applies its own limit and answers a session above it)."""
    return account.max_transaction_amount if account is not None else None


def _fees(request: PaymentPluginSessionRequest) -> Decimal:
    fee = request.convenience_fee.amount if request.convenience_fee is not None else None
    return session_fees(fee, request.tax_amount)


def session_cap(request: PaymentPluginSessionRequest, limit: Decimal | None) -> Decimal | None:
    """The cap a session gets: the one asked for, else what fits in `limit` with the fees;
    None when neither is known (the service sets it from the account's limit)."""
    if request.max_transaction_amount is not None:
        return request.max_transaction_amount
    return default_cap(limit, _fees(request)) if limit is not None else None


def cap_problem(request: PaymentPluginSessionRequest, limit: Decimal | None) -> str | None:
    """Why the session's cap does not fit the limit the account shows, fees included (None: it
    fits, or the account shows no limit: then the service is the judge)."""
    cap = session_cap(request, limit)
    if cap is None:
        return None
    if limit is None:
        message = "must be above 0" if cap <= 0 else None
    else:
        message = check_cap(cap, _fees(request), limit)
    return f"max_transaction_amount {message}" if message else None
