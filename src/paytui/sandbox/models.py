"""Request models of the sandbox (its own, independent of `paytui.api`).

They accept what the contract says clients may send (tags as an array or the legacy
comma-separated string, attribute values as a list or a bare string) and normalise it, so the
business code only sees one form. Cross-field rules (Luhn, expiry, which method allows which
charge type) are business rules and live in `ledger.py`, where they can name the exact field.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

from paytui.limits import check_attributes, check_tags, check_text, check_texts
from paytui.plugin_rules import DEFAULT_MAX_ATTEMPTS, check_colour
from paytui.sandbox.wire import AmountError, cents_from_decimal


def _tags(value: Any) -> list[str]:
    """A comma-separated string (the legacy form) or an array of strings; trimmed, deduplicated."""
    if value is None:
        return []
    if isinstance(value, str):
        items: list[Any] = value.split(",")
    elif isinstance(value, list):
        items = value
    else:
        raise ValueError("must be an array of strings or a comma-separated string")
    seen: dict[str, None] = {}
    for item in items:
        if not isinstance(item, str):
            raise ValueError("every tag must be a string")
        if item.strip():
            seen[item.strip()] = None
    return list(seen)


def _attributes(value: Any) -> dict[str, list[str]]:
    """`{key: [strings]}`; a bare string value is accepted as a one-item list."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("must be an object mapping keys to lists of strings")
    result: dict[str, list[str]] = {}
    for key, raw in value.items():
        values = [raw] if isinstance(raw, str) else raw
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ValueError(f"value of {key!r} must be a string or a list of strings")
        if not key:
            raise ValueError("attribute keys must not be empty")
        result[key] = values
    return result


def _json_number(value: Any) -> Any:
    """A JSON number only: a string or a bool is not an amount (strict models)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError("must be a number")
    return Decimal(str(value)) if isinstance(value, float) else Decimal(value)


def _two_decimals(value: Decimal) -> Decimal:
    try:
        cents_from_decimal(value)
    except AmountError as exc:
        raise ValueError(str(exc)) from exc
    return value


Tags = Annotated[list[str], BeforeValidator(_tags)]
Attributes = Annotated[dict[str, list[str]], BeforeValidator(_attributes)]
Money = Annotated[Decimal, AfterValidator(_two_decimals)]


def _check_lengths(model: BaseModel) -> None:
    """The documented text limits (paytui.limits): a 422 naming the field, never a stored MB."""
    for field in ("reason", "invoice_number", "po_number", "first_name", "last_name"):
        message = check_text(field, getattr(model, field, None))
        if message:
            raise ValueError(message)
    message = check_tags(getattr(model, "tags", None)) or check_attributes(
        getattr(model, "attributes", None)
    )
    if message:
        raise ValueError(message)


class _Checked(BaseModel):
    """Free-text fields are held to the documented limits (`paytui.limits`)."""

    @model_validator(mode="after")
    def _lengths(self) -> _Checked:
        _check_lengths(self)
        return self


class _Lenient(_Checked):
    """Unknown fields are ignored, as the real service is expected to do."""

    model_config = ConfigDict(extra="ignore")


class Contact(_Lenient):
    first_name: str | None = None
    last_name: str | None = None
    country: str | None = None


class PaymentMethodIn(_Lenient):
    method: str | None = None
    type: str | None = None
    card_number: str | None = None
    expiration_date: str | None = None
    cvv: str | None = None
    routing_number: str | None = None
    account_number: str | None = None
    contact: Contact | None = None
    token_id: str | None = None
    reason: str | None = None


class ChargeCreate(_Lenient):
    account_id: str
    total_amount: Money
    payment_method: PaymentMethodIn
    charge_type: str | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)
    invoice_number: str | None = None
    po_number: str | None = None
    line_items: list[dict[str, Any]] | None = None
    convenience_fee: Money | None = None
    supplemental_fee: Money | None = None
    tokenize: bool | None = None


class CaptureIn(_Lenient):
    convenience_fee: Money | None = None
    supplemental_fee: Money | None = None


class ChargePatch(_Lenient):
    tags: Tags | None = None
    attributes: Attributes | None = None


class ChargebackIn(_Lenient):
    """`POST /sandbox/charges/{id}/chargeback` (sandbox only): a case to practise on."""

    reason_code: str = "13.1"
    reason: str | None = None
    #: The amount disputed (the charge's whole amount when left out).
    total_amount: Money | None = None
    #: The chargeback's date (now when left out): ISO 8601, a date or a timestamp.
    chargeback_date: str | None = None
    #: `chargeback` (the first), `pre_arbitration` or `arbitration`.
    stage: Literal["chargeback", "pre_arbitration", "arbitration"] = "chargeback"
    status: Literal["open", "won", "lost"] = "open"


class DistributeIn(_Lenient):
    distribution_id: str | None = None


class RefundCreate(_Lenient):
    charge_id: str
    total_amount: Money | None = None
    reason: str | None = None
    tags: Tags = Field(default_factory=list)
    attributes: Attributes = Field(default_factory=dict)


class TokenCreate(_Lenient):
    account_id: str
    payment_method: PaymentMethodIn
    token_expiration_date: str | None = None


class TokenPaymentMethodUpdate(_Lenient):
    expiration_date: str | None = None
    contact: Contact | None = None


class TokenUpdate(_Lenient):
    payment_method: TokenPaymentMethodUpdate | None = None
    token_expiration_date: str | None = None


class AccountCreate(_Lenient):
    merchant_id: str
    name: str = Field(min_length=1)
    merchant_category_code: str = Field(default="5999", pattern=r"^\d{4}$")
    tax_authority: str | None = None
    tax_authority_state: str | None = None
    #: The processing limit, fees included (default `plugin_rules.DEFAULT_ACCOUNT_LIMIT`).
    max_transaction_amount: Money | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)

    @model_validator(mode="after")
    def _texts(self) -> AccountCreate:
        if message := check_texts([("name", self.name), ("tax_authority", self.tax_authority)]):
            raise ValueError(message)
        return self


class MessageAuthor(_Lenient):
    name: str | None = None
    role: str | None = None


class MessageCreate(_Lenient):
    """A message in a conversation (docs/api-assumptions.md: "Channels, conversations and
    messages"); `attributes` are kept as sent, so a client finds its own message again."""

    conversation_id: str = Field(min_length=1)
    body: str = Field(min_length=1)
    direction: Literal["inbound", "outbound"] | None = None
    author: MessageAuthor | None = None
    attributes: Attributes = Field(default_factory=dict)

    @model_validator(mode="after")
    def _texts(self) -> MessageCreate:
        if not self.body.strip():
            raise ValueError("body: must not be blank")
        if message := check_texts([("message_body", self.body)]):
            raise ValueError(message)
        return self


class ConversationCreate(_Lenient):
    channel_id: str = Field(min_length=1)
    subject: str | None = None
    customer_id: str | None = None
    merchant_id: str | None = None
    charge_id: str | None = None
    participants: list[MessageAuthor] | None = None
    tags: Tags = Field(default_factory=list)
    attributes: Attributes = Field(default_factory=dict)

    @model_validator(mode="after")
    def _texts(self) -> ConversationCreate:
        if message := check_texts([("subject", self.subject)]):
            raise ValueError(message)
        return self


class ConversationPatch(_Lenient):
    subject: str | None = None
    tags: Tags | None = None
    attributes: Attributes | None = None

    @model_validator(mode="after")
    def _texts(self) -> ConversationPatch:
        if message := check_texts([("subject", self.subject)]):
            raise ValueError(message)
        return self


class ConversationClose(_Lenient):
    """The body of `POST /v2/conversations/{id}/close`: nothing is needed (`{}`)."""

    reason: str | None = None


class ChannelCreate(_Lenient):
    name: str = Field(min_length=1)
    type: Literal["email", "sms", "chat"] | None = None

    @model_validator(mode="after")
    def _texts(self) -> ChannelCreate:
        if message := check_texts([("name", self.name)]):
            raise ValueError(message)
        return self


class CustomerPatch(_Checked):
    """`PATCH /v2/customers/{id}`: the contact only (the sandbox's choice; the spec shows no
    shape). Any other field is refused (422 naming it): a change the sandbox would not make is
    never answered as made."""

    model_config = ConfigDict(extra="forbid")

    email: str | None = None
    phone: str | None = None

    @model_validator(mode="after")
    def _contact(self) -> CustomerPatch:
        if self.email is None and self.phone is None:
            raise ValueError("name email and/or phone")
        if self.email is not None and self.email.count("@") != 1:
            raise ValueError("email: not an email address")
        if message := check_texts([("email", self.email), ("phone", self.phone)]):
            raise ValueError(message)
        return self


class _Strict(_Checked):
    """Plugin session parts: every property typed (a string is not a number, a bool or an object);
    unknown properties are ignored, as on charges."""

    model_config = ConfigDict(extra="ignore", strict=True)


def _colour(value: str) -> str:
    message = check_colour(value)
    if message:
        raise ValueError(message)
    return value


Colour = Annotated[str, AfterValidator(_colour)]
#: An amount in a strict model: a JSON number (an int or a float), never a string or a bool.
StrictMoney = Annotated[Decimal, BeforeValidator(_json_number), AfterValidator(_two_decimals)]


class TokenizeIn(_Strict):
    token_expiration_date: str | None = None


class ConvenienceFeeIn(_Strict):
    amount: StrictMoney


class DarkModeIn(_Strict):
    enabled: bool


class LoaderIn(_Strict):
    color: Colour | None = None
    background_color: Colour | None = None


class FieldColourIn(_Strict):
    color: Colour | None = None


class AppearanceIn(_Strict):
    dark_mode: DarkModeIn | None = None
    loader: LoaderIn | None = None
    field: FieldColourIn | None = None


class FieldsIn(_Strict):
    submit_button: str | None = None


def _tokenize_switch(value: Any) -> Any:
    """`true` is tokenization mode with the default expiry; `false` is no tokenization."""
    if value is True:
        return {}
    if value is False:
        return None
    return value


class PaymentSessionCreate(_Strict):
    """Payment plugin session: the spec's table, typed; tags and attributes normalised."""

    account_id: str
    charge_type: Literal["sale", "authorization"] = "sale"
    tokenize: Annotated[TokenizeIn | None, BeforeValidator(_tokenize_switch)] = None
    max_attempts: int = Field(default=DEFAULT_MAX_ATTEMPTS, ge=1)
    max_transaction_amount: StrictMoney | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)
    payment_methods: list[Literal["card", "bank_account"]] | None = None
    invoice_number: str | None = None
    po_number: str | None = None
    convenience_fee: ConvenienceFeeIn | None = None
    tax_amount: StrictMoney | None = None
    captcha: bool | None = None
    fields: FieldsIn | None = None
    appearance: AppearanceIn | None = None
    prefix: str | None = None
    data: dict[str, str] | None = None

    @model_validator(mode="after")
    def _texts(self) -> PaymentSessionCreate:
        caption = self.fields.submit_button if self.fields is not None else None
        values = [("data_value", value) for value in (self.data or {}).values()]
        message = check_texts([("prefix", self.prefix), ("submit_button", caption), *values])
        if message:
            raise ValueError(message)
        return self


class EnrollmentAccountIn(_Strict):
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)


class ProcessingIn(_Strict):
    max_transaction_amount: StrictMoney | None = None
    monthly_volume: StrictMoney | None = None


class PrepopulateIn(_Strict):
    product_description: str | None = None
    processing: ProcessingIn | None = None

    @model_validator(mode="after")
    def _texts(self) -> PrepopulateIn:
        if message := check_text("product_description", self.product_description):
            raise ValueError(message)
        return self


class EnrollmentDataIn(_Strict):
    account: PrepopulateIn | None = None


class EnrollmentSessionCreate(_Strict):
    merchant_id: str | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)
    account: EnrollmentAccountIn | None = None
    data: EnrollmentDataIn | None = None


CommitOperation = Literal["capture", "refund", "charge", "update", "distribute"]


class FaultsUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    drop_after_commit: list[CommitOperation] | None = None
    reset_after_commit: list[CommitOperation] | None = None
    late_commit: list[CommitOperation] | None = None
    late_commit_seconds: float | None = Field(default=None, ge=0, le=120)
    delay_seconds: float | None = Field(default=None, ge=0, le=60)
    fail_status: int | None = Field(default=None, ge=400, le=599)
    fail_path_prefix: str | None = None
    fail_count: int | None = Field(default=None, ge=-1)
    fail_method: Literal["GET", "POST", "PATCH", "PUT", "DELETE"] | None = None
    fail_body: str | None = None
