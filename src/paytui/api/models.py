"""Pydantic v2 models of the payment service's resources and requests.

Response models read **tolerantly** (`docs/api-assumptions.md`): the real service may add fields,
so every response model keeps unknown fields (``extra="allow"``; they come back out of
``model_dump``), optional fields default to None, legacy forms (tags as a comma-separated string,
an attribute value as a bare string) are normalised, and a payment method of an unknown `method`
is kept as a generic model instead of failing the whole charge.

Request models are strict (``extra="forbid"``) because they are built by our own code, and a typo
there should fail loudly. Card and bank account numbers are `SecretStr`: they show as
``**********`` in repr, str, logs and ``model_dump_json()``; only `RequestModel.to_body` (used
when the client builds the HTTP body) writes the real value.

Why one module of more than 800 lines: it is the one concept "the service's shapes"; every model
refers to the shared tolerant bases and money/timestamp validators here, and one file read top to
bottom is the spec's object list. Split it when a family (plugin sessions, accounts) gains
behaviour of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    PrivateAttr,
    SecretStr,
    SerializationInfo,
    Tag,
    ValidatorFunctionWrapHandler,
    model_validator,
)
from pydantic import ValidationError as ShapeError

from paytui.api.money import Amount, Money, to_decimal
from paytui.api.rows import (
    ChargeReads,
    is_authorization,
    last4_of,
    parse_attributes_value,
    parse_tags_value,
    payment_method_kind,
)
from paytui.limits import check_attributes, check_tags, check_text

# --------------------------------------------------------------------------------------------
# Field types shared by the models
# --------------------------------------------------------------------------------------------


def _ensure_utc(value: datetime) -> datetime:
    """The wire is UTC; a timestamp without an offset is read as UTC rather than local time."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def format_timestamp(value: datetime) -> str:
    """The wire form: UTC, milliseconds, ``Z`` (``2022-02-11T19:45:03.115Z``)."""
    utc = _ensure_utc(value).astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


#: A tz-aware timestamp, written back exactly in the service's own format.
Timestamp = Annotated[
    datetime,
    AfterValidator(_ensure_utc),
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
]


Tags = Annotated[list[str], BeforeValidator(parse_tags_value)]
Attributes = Annotated[dict[str, list[str]], BeforeValidator(parse_attributes_value)]
#: A plain number that is not money (fraud score): still exact, still never a float.
Number = Annotated[Decimal, BeforeValidator(to_decimal)]

#: Serialization context key under which `SecretValue` writes the real value.
REVEAL_SECRETS = "reveal_secrets"


def _serialize_secret(value: SecretStr, info: SerializationInfo) -> str:
    context = info.context
    if isinstance(context, Mapping) and context.get(REVEAL_SECRETS):
        return value.get_secret_value()
    return str(value)


#: A card or account number in a request: masked everywhere except the HTTP body.
SecretValue = Annotated[SecretStr, PlainSerializer(_serialize_secret, return_type=str)]


class ResponseModel(BaseModel):
    """Base of everything read from the service: unknown fields are kept, not rejected."""

    # Built on first use, like the request models: the first page needs the charge's readers
    # only, and building the other twenty-odd at import cost about 100 ms of start-up (#29).
    model_config = ConfigDict(
        extra="allow", validate_by_name=True, serialize_by_alias=True, defer_build=True
    )


class Resource(ResponseModel):
    """A resource the service sends whole (charge, refund, token...): one field of a shape this
    client cannot read is set aside as *unreadable*, with why, instead of sinking the resource.

    Only a required field (the id) still rejects it: without it there is nothing to show. The
    set-aside fields are in `unreadable_fields` (wire name -> reason), for screens to say so.
    """

    _unreadable: dict[str, str] = PrivateAttr(default_factory=dict)
    #: The HTTP status a write was answered with (a 202 is "accepted, not done":
    #: `paytui.actions.answer_status`); None for what was read.
    _http_status: int | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _set_aside_unreadable(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(data)
        except ShapeError as exc:
            if not isinstance(data, Mapping):
                raise
            bad: dict[str, str] = {}
            for error in exc.errors(include_input=False, include_url=False):
                if not error["loc"]:
                    raise
                bad.setdefault(str(error["loc"][0]), error["msg"])
            required = {
                field.alias or name
                for name, field in cls.model_fields.items()
                if field.is_required()
            }
            if bad.keys() & required or not bad.keys() <= data.keys():
                raise
            model = handler({key: value for key, value in data.items() if key not in bad})
            model._unreadable = bad
            return model

    @property
    def http_status(self) -> int | None:
        """The HTTP status of the write that answered this object (None: it was read)."""
        return self._http_status

    @property
    def unreadable_fields(self) -> dict[str, str]:
        """Fields the service sent in a shape this client cannot read: wire name -> why."""
        return dict(self._unreadable)


def check_request_lengths(model: BaseModel) -> None:
    """The length limits of `paytui.limits` on a request's free-text fields (ValueError)."""
    for field in ("reason", "invoice_number", "po_number"):
        message = check_text(field, getattr(model, field, None))
        if message:
            raise ValueError(message)
    message = check_tags(getattr(model, "tags", None)) or check_attributes(
        getattr(model, "attributes", None)
    )
    contact = getattr(model, "contact", None)
    if not message and contact is not None:
        message = check_text("first_name", contact.first_name) or check_text(
            "last_name", contact.last_name
        )
    if message:
        raise ValueError(message)


class RequestModel(BaseModel):
    """Base of everything sent to the service. Free-text fields are held to `paytui.limits`."""

    # Built on first use: no request model is needed to paint the first page (start-up budget).
    # hide_input_in_errors: a refused request must not quote its card number in the message.
    model_config = ConfigDict(
        extra="forbid",
        validate_by_name=True,
        serialize_by_alias=True,
        defer_build=True,
        hide_input_in_errors=True,
    )

    @model_validator(mode="after")
    def _lengths(self) -> RequestModel:
        check_request_lengths(self)
        return self

    def to_body(self) -> dict[str, Any]:
        """The JSON body for the wire: real secret values, aliases, None fields left out."""
        return self.model_dump(
            mode="json", by_alias=True, exclude_none=True, context={REVEAL_SECRETS: True}
        )


# --------------------------------------------------------------------------------------------
# Small shared parts
# --------------------------------------------------------------------------------------------


class Contact(ResponseModel):
    """The cardholder or account holder (also used in requests, hence the extra fields allowed)."""

    first_name: str | None = None
    last_name: str | None = None
    country: str | None = None

    @property
    def name(self) -> str:
        """First and last name as one string, "" when neither is known."""
        return " ".join(part for part in (self.first_name, self.last_name) if part)


class ProcessorMessages(ResponseModel):
    """What the card processor said about address and card verification (passed, unknown...)."""

    avs_response: str | None = None
    cv_response: str | None = None
    message: str | None = None


# --------------------------------------------------------------------------------------------
# Payment method (response form)
# --------------------------------------------------------------------------------------------


class CardPaymentMethod(ResponseModel):
    """A card as the service shows it: brand in `type`, number masked to ``XXXXXXXXXXXX1111``."""

    method: Literal["card"] = "card"
    type: str | None = None
    card_number: str | None = None
    expiration_date: str | None = None
    contact: Contact | None = None
    token_id: str | None = None

    @property
    def last4(self) -> str | None:
        return last4_of(self.card_number)

    @property
    def brand(self) -> str | None:
        return self.type


class BankAccountPaymentMethod(ResponseModel):
    """A bank account as the service shows it: only the last four digits of the number."""

    method: Literal["bank_account"] = "bank_account"
    type: str | None = None
    account_number: str | None = None
    contact: Contact | None = None

    @property
    def last4(self) -> str | None:
        return last4_of(self.account_number)


class UnknownPaymentMethod(ResponseModel):
    """A payment method of a kind this client does not know; kept whole so nothing is lost."""

    method: str | None = None
    type: str | None = None
    contact: Contact | None = None

    @property
    def brand(self) -> str | None:
        return self.type

    @property
    def last4(self) -> str | None:
        extra = self.model_extra or {}
        for key in ("card_number", "account_number"):
            value = extra.get(key)
            if isinstance(value, str) and (found := last4_of(value)):
                return found
        return None


#: The response payment method, chosen by `method`; anything else becomes UnknownPaymentMethod.
PaymentMethod = Annotated[
    Annotated[CardPaymentMethod, Tag("card")]
    | Annotated[BankAccountPaymentMethod, Tag("bank_account")]
    | Annotated[UnknownPaymentMethod, Tag("other")],
    Discriminator(payment_method_kind),
]


# --------------------------------------------------------------------------------------------
# Charges and what hangs off them
# --------------------------------------------------------------------------------------------


class ChargebackItem(ResponseModel):
    chargeback_id: str | None = None
    amount: Amount | None = None
    reason_code: str | None = None
    reason: str | None = None
    status: str | None = None
    chargeback_timestamp: Timestamp | None = None


class Chargebacks(ResponseModel):
    """The chargebacks of a charge (its inner fields are not in the spec; ours are a guess)."""

    total_amount: Amount | None = None
    #: None: the service sent no ``items`` list (its chargebacks are in other keys, or unknown).
    items: list[ChargebackItem] | None = None


class ReturnInfo(ResponseModel):
    """An ACH return of a bank-account charge (the wire key is ``return``)."""

    return_code: str | None = None
    reason: str | None = None
    return_timestamp: Timestamp | None = None


class DistributionItem(ResponseModel):
    """One line of a payout: an amount (always positive) whose `category` gives the direction."""

    item_id: str | None = None
    charge_id: str | None = None
    category: str | None = None
    amount: Amount | None = None


class TotalAmounts(ResponseModel):
    """Totals by category: net = sales - refunds - chargebacks - returns - fees."""

    sales: Amount | None = None
    refunds: Amount | None = None
    chargebacks: Amount | None = None
    returns: Amount | None = None
    fees: Amount | None = None
    net: Amount | None = None


class Distribution(Resource):
    """A payout grouping of charges. `items` is None in list results (only `item_count` given)."""

    distribution_id: str
    account_id: str | None = None
    merchant_id: str | None = None
    status: str | None = None
    distribution_timestamp: Timestamp | None = None
    total_amounts: TotalAmounts | None = None
    items: list[DistributionItem] | None = None
    item_count: int | None = None


class Charge(ChargeReads, Resource):
    """A charge: a sale, authorization, pre-authorization or capture, by card, bank or token."""

    charge_id: str
    charge_timestamp: Timestamp | None = None
    authorization_code: str | None = None
    original_charge_id: str | None = None
    captured_charge_id: str | None = None
    total_amount: Amount | None = None
    reversal_flag: bool | None = None
    payment_method: PaymentMethod | None = None
    processor_messages: ProcessorMessages | None = None
    account_id: str | None = None
    merchant_id: str | None = None
    status: str | None = None
    result_code: str | None = None
    result_text: str | None = None
    last_updated_timestamp: Timestamp | None = None
    chargebacks: Chargebacks | None = None
    #: None: not expanded (ask with expand); []: expanded and in no distribution.
    distributions: list[Distribution] | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)
    invoice_number: str | None = None
    po_number: str | None = None
    line_items: list[dict[str, Any]] | None = None
    convenience_fee: Amount | None = None
    supplemental_fee: Amount | None = None
    tokenize: Any = None
    charge_type: str | None = None
    return_info: ReturnInfo | None = Field(default=None, alias="return")


class ChargeRow(Charge):
    """A charge as an export or a streamed search reads it (`exporter.charge_pages`): every
    field a column or a filter reads, parsed and validated as `Charge` does (a field of a shape
    it cannot read set aside, the row kept); what neither reads (the processor's messages, the
    distributions, line items) is kept as sent, unparsed, and fields beyond the spec are not
    kept at all. A `Charge`, so every rule on charges applies to it unchanged."""

    model_config = ConfigDict(extra="ignore")

    processor_messages: Any = None
    distributions: Any = None
    line_items: Any = None


#: A refund or plugin session keyed ``id`` (the spec shows neither response): read as its own id.
_REFUND_ID = Field(validation_alias=AliasChoices("refund_id", "id"))
_SESSION_ID = Field(validation_alias=AliasChoices("session_id", "id"))


class Refund(Resource):
    refund_id: str = _REFUND_ID
    charge_id: str | None = None
    account_id: str | None = None
    merchant_id: str | None = None
    total_amount: Amount | None = None
    status: str | None = None
    reason: str | None = None
    refund_timestamp: Timestamp | None = None
    last_updated_timestamp: Timestamp | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)


class Token(Resource):
    """A stored card; `token_id` replaces the card details when charging it later."""

    token_id: str
    account_id: str | None = None
    payment_method: PaymentMethod | None = None
    fraud_score: Number | None = None
    reason: str | None = None
    token_expiration_date: Timestamp | None = None
    created_timestamp: Timestamp | None = None
    processor_messages: ProcessorMessages | None = None

    @property
    def last4(self) -> str | None:
        return self.payment_method.last4 if self.payment_method is not None else None


class Account(Resource):
    """A payment account (``pa_...``). Its `status` is shown as sent: the spec shows no boarding
    status values, so the client never refuses an action for one (the service does)."""

    account_id: str
    merchant_id: str | None = None
    name: str | None = None
    status: str | None = None
    status_message: str | None = None
    merchant_category_code: str | None = None
    tax_authority: str | None = None
    tax_authority_state: str | None = None
    #: The processing limit (fees included); None: the account does not show one.
    max_transaction_amount: Money | None = None
    created_timestamp: Timestamp | None = None
    last_updated_timestamp: Timestamp | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)


class Merchant(Resource):
    merchant_id: str
    name: str | None = None
    status: str | None = None
    created_timestamp: Timestamp | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)


class PluginSession(Resource):
    """A plugin session as the service answers it: its settings are echoed (kept as they come,
    unknown ones as extras); `status` is set when the merchant's state forbids editing."""

    session_id: str = _SESSION_ID
    type: str | None = None
    url: str | None = None
    created_timestamp: Timestamp | None = None
    status: str | None = None
    account_id: str | None = None
    merchant_id: str | None = None
    max_transaction_amount: Money | None = None
    attributes: Attributes = Field(default_factory=dict)
    tags: Tags = Field(default_factory=list)


T = TypeVar("T")


class UnreadableItem(BaseModel):
    """One item of a list page that could not be read (a field of an impossible shape): the rest
    of the page still shows, and this one shows as an "unreadable row" with its id."""

    model_config = ConfigDict(defer_build=True)  # built with the first list read

    #: Where it stood in the page as sent (0-based), so rows keep their places.
    position: int
    id: str | None = None
    reason: str = ""


def trust_note(
    filtered_here: Sequence[str], unproven: Mapping[str, Sequence[str]], sort_ignored: bool
) -> str | None:
    """One line on how far a list's rows are the service's answer: "Filtered here: name (the
    service did not apply them) · 3 rows not proven to match (tag not shown) · sort ignored"."""
    from paytui.api.queries import HERE_FILTERS

    parts: list[str] = []
    ignored = [name for name in filtered_here if name not in HERE_FILTERS]
    own = [name for name in filtered_here if name in HERE_FILTERS]
    if ignored:
        names = ", ".join(ignored)
        parts.append(f"Filtered here: {names} (the service did not apply them)")
    if own:
        # paytui's own filters (refunded:, dispute:, -tag:, -status:): the service has none.
        parts.append(f"Filtered here: {', '.join(own)} (paytui's filters)")
    if unproven:
        names = ", ".join(dict.fromkeys(name for names in unproven.values() for name in names))
        count = len(unproven)
        rows = "1 row" if count == 1 else f"{count} rows"
        parts.append(f"{rows} not proven to match ({names} not shown by the service)")
    if sort_ignored:
        parts.append("the service ignored the sort: rows are in its order")
    return " · ".join(parts) or None


def row_id(item: Any) -> str:
    """A list row's own id (`charge_id`, `refund_id`...): the key of `Page.unproven`."""
    fields = getattr(type(item), "model_fields", {})
    # The row's own id first: a refund also names its charge, a charge its account.
    for name in ("refund_id", "session_id", "token_id", "distribution_id", "charge_id"):
        value = getattr(item, name, None) if name in fields else None
        if isinstance(value, str) and value:
            return value
    for name in ("account_id", "id"):
        value = getattr(item, name, None)
        if isinstance(value, str) and value:
            return value
    return str(id(item))


class Trust:
    """What the pages of one list, read one after the other, showed of its filters: the
    line to print (`note`), and whether the rows can be taken as matches (`doubtful`)."""

    def __init__(self) -> None:
        self.filtered_here: dict[str, None] = {}
        self.unproven: dict[str, tuple[str, ...]] = {}
        self.sort_ignored = False
        #: Why the list stopped before its end (`Page.paging_note`), None when it did not.
        self.paging_note: str | None = None
        #: Rows the service sent that could not be read (`Page.unreadable`): never dropped in
        #: silence.
        self.unreadable = 0

    def add(self, page: Page[Any]) -> None:
        self.unreadable += len(page.unreadable)
        self.filtered_here.update(dict.fromkeys(page.ignored_filters))
        self.unproven.update(page.unproven)
        self.sort_ignored = self.sort_ignored or page.sort_ignored
        self.paging_note = self.paging_note or page.paging_note

    @property
    def note(self) -> str | None:
        return trust_note(tuple(self.filtered_here), self.unproven, self.sort_ignored)

    @property
    def doubtful(self) -> bool:
        """Some rows cannot show they match, or they are not in the order asked."""
        return bool(self.unproven) or self.sort_ignored


class Page(BaseModel, Generic[T]):
    """One page of a list. `total` is None when the service did not say how many match.

    `items` holds the items that could be read; `unreadable` the others, by position.
    """

    # Built with the first list read (each `Page[X]` too): `charges show` reads none.
    model_config = ConfigDict(defer_build=True)

    items: list[T]
    total: int | None = None
    limit: int
    offset: int = 0
    has_more: bool = False
    unreadable: list[UnreadableItem] = Field(default_factory=list)
    #: Filters asked for that the rows show the service ignored (by query parameter name): a row
    #: carried a value the filter excludes. They are applied here: such rows are left out of
    #: `items` (`filtered_out` counts them). Empty: nothing seen contradicts the query.
    ignored_filters: tuple[str, ...] = ()
    #: Rows read from the service and left out because a filter shows they do not match.
    filtered_out: int = 0
    #: Rows in `items` that cannot show they match, by id: the filters each lacks the field for
    #: (a service that does not echo `tags`, say). Shown, but never acted on as matches in bulk.
    unproven: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: The service ignored `sort` (the rows are out of the order asked); it cannot be applied
    #: here across pages, so it is said, never pretended.
    sort_ignored: bool = False
    #: Why the list stops at this page although it may not be its end (the service sent the
    #: same rows again: it ignores paging; a next link pointing elsewhere), one line for a
    #: person; None when the list simply ended or goes on (`paytui.api.paging`).
    paging_note: str | None = None

    @property
    def ignored_note(self) -> str | None:
        """One line for the screen and stderr when this page's rows are not simply the service's
        answer to the query: filters applied here, rows not proven, sort ignored (None if so)."""
        return trust_note(self.ignored_filters, self.unproven, self.sort_ignored)

    def proven(self, item_id: str) -> bool:
        """Does the row `item_id` show it matches every filter asked?"""
        return item_id not in self.unproven

    @property
    def next_offset(self) -> int:
        return self.offset + len(self.items) + len(self.unreadable) + self.filtered_out

    def rows(self) -> list[T | UnreadableItem]:
        """Every item in the order sent, unreadable ones in their places."""
        rows: list[T | UnreadableItem] = list(self.items)
        for item in sorted(self.unreadable, key=lambda u: u.position):
            rows.insert(min(item.position, len(rows)), item)
        return rows


class TokenInfo(BaseModel):
    """An access token with what the service granted; the token itself never shows in a repr."""

    model_config = ConfigDict(frozen=True)

    access_token: SecretStr
    expires_at: datetime | None = None
    scopes: frozenset[str] = frozenset()
    token_type: str = "Bearer"

    def expires_within(self, seconds: float, now: datetime | None = None) -> bool:
        """True when the token is (about to be) expired and should be fetched again."""
        if self.expires_at is None:
            return False
        current = now or datetime.now(UTC)
        return (self.expires_at - current).total_seconds() <= seconds


# --------------------------------------------------------------------------------------------
# Requests
# --------------------------------------------------------------------------------------------


class CardPaymentMethodRequest(RequestModel):
    """Pay by card: number, expiry (``YYYY-MM``), cardholder."""

    method: Literal["card"] = "card"
    card_number: SecretValue
    expiration_date: str
    contact: Contact | None = None


class BankAccountPaymentMethodRequest(RequestModel):
    """Pay by bank account (ACH); the routing number is public, the account number is not."""

    method: Literal["bank_account"] = "bank_account"
    type: str = "checking"
    routing_number: str
    account_number: SecretValue
    contact: Contact | None = None


class TokenPaymentMethodRequest(RequestModel):
    """Pay with a stored card token instead of card details."""

    token_id: str


class TokenCreatePaymentMethodRequest(RequestModel):
    """The card to store as a token, with why it is stored (``on_file``)."""

    reason: str = "on_file"
    method: Literal["card"] = "card"
    card_number: SecretValue
    expiration_date: str
    contact: Contact | None = None


def _request_method_kind(value: Any) -> str:
    if isinstance(value, Mapping):
        if "token_id" in value and "method" not in value:
            return "token"
        return str(value.get("method", "card"))
    if isinstance(value, TokenPaymentMethodRequest):
        return "token"
    return str(getattr(value, "method", "card"))


ChargePaymentMethodRequest = Annotated[
    Annotated[CardPaymentMethodRequest, Tag("card")]
    | Annotated[BankAccountPaymentMethodRequest, Tag("bank_account")]
    | Annotated[TokenPaymentMethodRequest, Tag("token")],
    Discriminator(_request_method_kind),
]


ChargeType = Literal["sale", "authorization", "pre_authorization"]
_CHARGE_TYPES: dict[str, ChargeType] = {
    "sale": "sale",
    "authorization": "authorization",
    "pre_authorization": "pre_authorization",
}


def charge_type(value: object) -> ChargeType:
    """A form's choice as a charge type (ValueError for anything else)."""
    found = _CHARGE_TYPES.get(value) if isinstance(value, str) else None
    if found is None:
        raise ValueError(f"not a charge type: {value!r}")
    return found


class ChargeRequest(RequestModel):
    """POST /v2/charges. `charge_type` None is a sale; ``authorization`` holds the amount.

    The spec's plain sale leaves `charge_type` out (it lists only ``authorization`` and
    ``pre_authorization``), so a ``sale`` chosen in a form is sent as no `charge_type` at all.
    """

    account_id: str
    total_amount: Money
    payment_method: ChargePaymentMethodRequest
    charge_type: ChargeType | None = None
    attributes: Attributes | None = None
    tags: Tags | None = None
    invoice_number: str | None = None
    po_number: str | None = None
    line_items: list[dict[str, Any]] | None = None
    convenience_fee: Money | None = None
    supplemental_fee: Money | None = None
    tokenize: Any = None

    @model_validator(mode="after")
    def _plain_sale(self) -> ChargeRequest:
        if self.charge_type == "sale":
            self.charge_type = None
        return self


class RefundRequest(RequestModel):
    """POST /v2/refunds; `total_amount` None refunds whatever is left of the charge."""

    charge_id: str
    total_amount: Money | None = None
    reason: str | None = None
    attributes: Attributes | None = None
    tags: Tags | None = None


class TokenRequest(RequestModel):
    """POST /v2/tokens."""

    account_id: str
    payment_method: TokenCreatePaymentMethodRequest
    #: When the token stops being chargeable (the service defaults to three years).
    token_expiration_date: Timestamp | None = None


class TokenUpdatePaymentMethod(RequestModel):
    expiration_date: str | None = None
    contact: Contact | None = None


class TokenUpdate(RequestModel):
    """PUT /v2/tokens/{id}: new expiry or holder of the stored card, or a new token expiry."""

    payment_method: TokenUpdatePaymentMethod | None = None
    token_expiration_date: Timestamp | None = None


__all__ = [
    "Account",
    "Attributes",
    "BankAccountPaymentMethod",
    "BankAccountPaymentMethodRequest",
    "CardPaymentMethod",
    "CardPaymentMethodRequest",
    "Charge",
    "ChargePaymentMethodRequest",
    "ChargeRequest",
    "ChargeRow",
    "ChargeType",
    "ChargebackItem",
    "Chargebacks",
    "Contact",
    "Distribution",
    "DistributionItem",
    "Merchant",
    "Page",
    "PaymentMethod",
    "PluginSession",
    "ProcessorMessages",
    "Refund",
    "RefundRequest",
    "Resource",
    "ReturnInfo",
    "Tags",
    "Timestamp",
    "Token",
    "TokenCreatePaymentMethodRequest",
    "TokenInfo",
    "TokenPaymentMethodRequest",
    "TokenRequest",
    "TokenUpdate",
    "TokenUpdatePaymentMethod",
    "TotalAmounts",
    "UnknownPaymentMethod",
    "UnreadableItem",
    "charge_type",
    "format_timestamp",
    "is_authorization",
]
