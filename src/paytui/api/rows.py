"""Charges as a listing reads them: light rows, checked by hand once, without pydantic per row.

An export or a streamed search (`paytui export`, `paytui charges search --all`, the charge list's
`x`) reads every charge of a search, 100,000 of them, and writes a few columns of each. A whole
`Charge` (`paytui.api.models`) runs pydantic's validators, the set-aside of unreadable fields and
the private attributes of three models per row. `ChargeLine` holds the same fields, read from
the same JSON (`paytui.api.money.loads_json`: exact decimals) with one plain check a field:

- a row whose every field has the plain shape the service sends (a string or null, an ISO-8601
  timestamp, an amount, a card or bank account, tags, attributes, chargebacks, a return) is
  read here, each field as `Charge` reads it (the same helpers below, which the models use too);
- any other row (a field of an odd shape, a payment method of an unknown kind, a timestamp
  written another way, a required id missing) is read by the model itself (`ChargeRow`): the same
  fields set aside, the same row refused as unreadable, with the same reason. So what is written
  for a row never depends on which reader read it (`tests/api/test_rows.py` holds both to it).

A `ChargeLine` has every attribute of a `Charge` that a column, a filter's proof or a state rule
reads: the same fields, and the same properties (`method`, `last4`, `contact_name`,
`is_authorization`...), written once in `ChargeReads`, which `Charge` inherits too; what no
column or filter reads (the processor's messages, distributions, line items) is kept as sent,
and fields beyond the spec are not kept, as `ChargeRow` does.

No pydantic here: the model is imported only for a row that needs it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from paytui.api.money import to_decimal
from paytui.tags import parse_tags

if TYPE_CHECKING:
    from paytui.api.models import ChargeRow

__all__ = [
    "CHARGE_FIELDS",
    "ChargeLine",
    "ChargeReads",
    "is_authorization",
    "last4_of",
    "parse_attributes_value",
    "parse_tags_value",
    "payment_method_kind",
    "read_amount",
]


# --------------------------------------------------------------------------------------------
# The field rules `Charge` and `ChargeLine` share
# --------------------------------------------------------------------------------------------


def parse_tags_value(value: object) -> object:
    """Tags were a comma-separated string before they became an array; accept both."""
    if value is None:
        return []
    if isinstance(value, str):
        return parse_tags(value)
    if isinstance(value, list | tuple | set | frozenset):
        return [str(item) for item in value if item is not None]
    return value


def parse_attributes_value(value: object) -> object:
    """Attributes map a key to a list of strings; a bare string value means a one-item list."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        result: dict[str, list[str]] = {}
        for key, item in value.items():
            if item is None:
                result[str(key)] = []
            elif isinstance(item, str | int | float | Decimal):
                result[str(key)] = [str(item)]
            elif isinstance(item, list | tuple):
                result[str(key)] = [str(part) for part in item if part is not None]
            else:
                return value  # let pydantic report the odd shape
        return result
    return value


def last4_of(number: str | None) -> str | None:
    """The last four digits of a (masked) card or account number, None with fewer than four."""
    if not number:
        return None
    tail = number[-4:]
    if len(tail) == 4 and tail.isascii() and tail.isdigit():  # the usual XXXXXXXXXXXX1111
        return tail
    digits = "".join(ch for ch in number if ch.isdigit())
    return digits[-4:] if len(digits) >= 4 else None


#: Keys only a card (resp. only a bank account) has: what a method-less payment method is.
CARD_KEYS = frozenset({"card_number", "expiration_date", "token_id"})
BANK_KEYS = frozenset({"account_number", "routing_number"})


def payment_method_kind(value: Any) -> str:
    """By `method`; without one, by the keys only a card or only a bank account has, so a card
    whose `method` the service left out keeps its brand (`type`) and last four."""
    if not isinstance(value, Mapping):
        method = getattr(value, "method", None)
        return str(method) if method in ("card", "bank_account") else "other"
    method = value.get("method")
    if method in ("card", "bank_account"):
        return str(method)
    if method is None:
        keys = value.keys()
        if keys & CARD_KEYS and not keys & BANK_KEYS:
            return "card"
        if keys & BANK_KEYS and not keys & CARD_KEYS:
            return "bank_account"
    return "other"


def is_authorization(charge_type: object, result_code: object, total_amount: object) -> bool:
    """An authorization by the data the spec shows: `charge_type` when sent, else the
    ``Authorized`` result code of a non-zero amount (a pre-authorization is a zero-amount check
    and is never captured). One rule for the model, the detail screen and the search check."""
    if charge_type is not None:
        return charge_type == "authorization"
    if result_code != "Authorized":
        return False
    try:
        return to_decimal(total_amount) > 0
    except ValueError:
        return False


# --------------------------------------------------------------------------------------------
# What a charge says beyond its fields: one set of properties for `Charge` and `ChargeLine`
# --------------------------------------------------------------------------------------------


if TYPE_CHECKING:

    class _ContactReads(Protocol):
        @property
        def name(self) -> str: ...

    class _MethodReads(Protocol):
        """A payment method as `ChargeReads` reads it (a model's or a line's)."""

        @property
        def method(self) -> str | None: ...
        @property
        def last4(self) -> str | None: ...
        @property
        def contact(self) -> _ContactReads | None: ...


class ChargeReads:
    """The properties of a charge that columns, filters and state rules read, over its fields:
    one definition for the model (`paytui.api.models.Charge`) and the light row (`ChargeLine`).
    Plain Python (no pydantic), so `ChargeLine` stays light; no slots of its own."""

    __slots__ = ()

    if TYPE_CHECKING:  # the fields these read, as both classes define them
        payment_method: _MethodReads | None
        charge_type: str | None
        result_code: str | None
        total_amount: Decimal | None
        status: str | None
        captured_charge_id: str | None

    @property
    def method(self) -> str | None:
        """``card`` or ``bank_account`` (a token charge is ``card``), or None when unknown."""
        return self.payment_method.method if self.payment_method is not None else None

    @property
    def last4(self) -> str | None:
        """Last four digits of the card or bank account, for lists and search."""
        return self.payment_method.last4 if self.payment_method is not None else None

    @property
    def contact_name(self) -> str:
        """The payer's name ("" when the service did not give one)."""
        method = self.payment_method
        if method is None or method.contact is None:
            return ""
        return method.contact.name

    @property
    def token_id(self) -> str | None:
        """The stored card's token a card charge was made with (a card's only: a payment
        method of another kind is never read as a card, `payment_method_kind`)."""
        method = self.payment_method
        if method is None or method.method != "card":
            return None
        token: str | None = getattr(method, "token_id", None)
        return token

    @property
    def is_authorization(self) -> bool:
        """An authorization, by the data the spec shows (`is_authorization`)."""
        return is_authorization(self.charge_type, self.result_code, self.total_amount)

    @property
    def is_open_authorization(self) -> bool:
        """A successful authorization not *known* to be captured: the one a user may capture.

        Known captured: the sandbox's `captured_charge_id` (a shortcut the spec does not show).
        Whether the real service captured it is only proven by a capture whose
        `original_charge_id` names it (`paytui.api.captures.find_capture`).
        """
        if self.status != "success" or self.captured_charge_id is not None:
            return False
        return self.is_authorization


# --------------------------------------------------------------------------------------------
# The plain shapes, checked by hand
# --------------------------------------------------------------------------------------------


class _Odd(Exception):
    """A field not in its plain shape: the row is read by the model instead."""


_ODD = _Odd()
#: The timestamps read here: ``2026-01-31T10:00:00.123Z``, an offset, or none (read as UTC).
#: Any other form is the model's to read (or set aside).
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)?")


def _text(value: object) -> str | None:
    if value is None or type(value) is str:
        return value
    raise _ODD


def _amount(value: object) -> Decimal | None:
    if value is None:
        return None
    if type(value) is Decimal:
        if value.is_finite():
            return value
        raise _ODD
    if type(value) is int or type(value) is str:
        try:
            return to_decimal(value)
        except ValueError:
            raise _ODD from None
    raise _ODD


def read_amount(value: object) -> Decimal | None:
    """An amount in the plain shape a charge's are read in here (`_amount`: a row's refund
    total read with the standard library, `paytui.commands.plainly`), None for null;
    `ValueError` for any other shape (the model's to read)."""
    try:
        return _amount(value)
    except _Odd:
        raise ValueError("not a plain amount") from None


def _time(value: object) -> datetime | None:
    if value is None:
        return None
    if type(value) is not str or _TIMESTAMP.fullmatch(value) is None:
        raise _ODD
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise _ODD from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _mapping(value: object) -> Mapping[str, Any]:
    if type(value) is dict or isinstance(value, Mapping):
        return value
    raise _ODD


class Contact:
    __slots__ = ("country", "first_name", "last_name")

    def __init__(self, raw: object) -> None:
        data = _mapping(raw)
        self.first_name = _text(data.get("first_name"))
        self.last_name = _text(data.get("last_name"))
        self.country = _text(data.get("country"))

    @property
    def name(self) -> str:
        """First and last name as one string, "" when neither is known."""
        return " ".join(part for part in (self.first_name, self.last_name) if part)


class PaymentMethodLine:
    """A card or a bank account as the service shows it (`CardPaymentMethod`,
    `BankAccountPaymentMethod`); a method of another kind is the model's to read."""

    __slots__ = (
        "account_number",
        "card_number",
        "contact",
        "expiration_date",
        "method",
        "token_id",
        "type",
    )

    def __init__(self, raw: object) -> None:
        data = _mapping(raw)
        kind = payment_method_kind(data)
        # Another kind's number beside this one's is kept by the model as an extra field (and
        # read by the masked number's length): the model's to read.
        other_keys = BANK_KEYS if kind == "card" else CARD_KEYS
        if kind == "other" or data.get("method", kind) != kind or data.keys() & other_keys:
            raise _ODD
        self.method = kind
        self.type = _text(data.get("type"))
        contact = data.get("contact")
        self.contact = None if contact is None else Contact(contact)
        if kind == "card":
            self.card_number = _text(data.get("card_number"))
            self.expiration_date = _text(data.get("expiration_date"))
            self.token_id = _text(data.get("token_id"))
            self.account_number = None
        else:
            self.account_number = _text(data.get("account_number"))
            self.card_number = self.expiration_date = self.token_id = None

    @property
    def last4(self) -> str | None:
        return last4_of(self.card_number if self.method == "card" else self.account_number)

    @property
    def brand(self) -> str | None:
        return self.type


class ChargebackLine:
    __slots__ = (
        "amount",
        "chargeback_id",
        "chargeback_timestamp",
        "reason",
        "reason_code",
        "status",
    )

    def __init__(self, raw: object) -> None:
        data = _mapping(raw)
        self.chargeback_id = _text(data.get("chargeback_id"))
        self.amount = _amount(data.get("amount"))
        self.reason_code = _text(data.get("reason_code"))
        self.reason = _text(data.get("reason"))
        self.status = _text(data.get("status"))
        self.chargeback_timestamp = _time(data.get("chargeback_timestamp"))


class ChargebacksLine:
    __slots__ = ("items", "total_amount")

    def __init__(self, raw: object) -> None:
        data = _mapping(raw)
        self.total_amount = _amount(data.get("total_amount"))
        items = data.get("items")
        if items is not None and type(items) is not list:
            raise _ODD
        self.items = None if items is None else [ChargebackLine(item) for item in items]


class ReturnLine:
    __slots__ = ("reason", "return_code", "return_timestamp")

    def __init__(self, raw: object) -> None:
        data = _mapping(raw)
        self.return_code = _text(data.get("return_code"))
        self.reason = _text(data.get("reason"))
        self.return_timestamp = _time(data.get("return_timestamp"))


#: A charge's fields: wire name -> attribute name (``return`` is `return_info`), the one list.
#: `ChargeLine`'s slots and `model_fields_set`, and the charge detail's panels (the fields with a
#: home there, `charge_panels.KNOWN_FIELDS`) read it; `Charge` declares each field with its type,
#: and `tests/api/test_rows.py` holds its fields to this list.
CHARGE_FIELDS = {
    name: name
    for name in (
        "charge_id",
        "charge_timestamp",
        "authorization_code",
        "original_charge_id",
        "captured_charge_id",
        "total_amount",
        "reversal_flag",
        "payment_method",
        "processor_messages",
        "account_id",
        "merchant_id",
        "status",
        "result_code",
        "result_text",
        "last_updated_timestamp",
        "chargebacks",
        "distributions",
        "attributes",
        "tags",
        "invoice_number",
        "po_number",
        "line_items",
        "convenience_fee",
        "supplemental_fee",
        "tokenize",
        "charge_type",
    )
} | {"return": "return_info"}


#: The fields whose wire name is their own.
_NAMED_FIELDS = {name for name in CHARGE_FIELDS if name != "return"}


def _tags(value: object) -> list[str]:
    if type(value) is list and all(type(tag) is str for tag in value):
        return list(value)  # a copy, as the model keeps
    tags = parse_tags_value(value)
    if type(tags) is list:
        return tags
    raise _ODD


def _attributes(value: object) -> dict[str, list[str]]:
    if type(value) is dict and all(
        type(key) is str and type(item) is list and all(type(part) is str for part in item)
        for key, item in value.items()
    ):
        return {key: list(item) for key, item in value.items()}
    attributes = parse_attributes_value(value)
    if type(attributes) is dict and attributes is not value:  # not the odd shape given back
        return attributes
    raise _ODD


class ChargeLine(ChargeReads):
    """A charge read for a listing (see the module's docstring); `read` builds one."""

    __slots__ = (*CHARGE_FIELDS.values(), "model_fields_set")

    #: What `paytui.api.models.row_id` looks for: the row's own id is its `charge_id`.
    model_fields = dict.fromkeys(CHARGE_FIELDS.values())

    charge_id: str
    charge_timestamp: datetime | None
    authorization_code: str | None
    original_charge_id: str | None
    captured_charge_id: str | None
    total_amount: Decimal | None
    reversal_flag: bool | None
    payment_method: PaymentMethodLine | None
    processor_messages: Any
    account_id: str | None
    merchant_id: str | None
    status: str | None
    result_code: str | None
    result_text: str | None
    last_updated_timestamp: datetime | None
    chargebacks: ChargebacksLine | None
    distributions: Any
    attributes: dict[str, list[str]]
    tags: list[str]
    invoice_number: str | None
    po_number: str | None
    line_items: Any
    convenience_fee: Decimal | None
    supplemental_fee: Decimal | None
    tokenize: Any
    charge_type: str | None
    return_info: ReturnLine | None
    #: The fields the service sent (by field name), as pydantic's `model_fields_set`: a filter
    #: is proven only on a field that was sent (`paytui.api.queries`).
    model_fields_set: set[str]

    @classmethod
    def model_validate(cls, raw: Any) -> ChargeLine | ChargeRow:
        """One row of a page, as the client's page reader calls a model: read here when every
        field has its plain shape, else by `ChargeRow` (its fields set aside, or the row refused
        with pydantic's `ValidationError`, as for any model)."""
        line = cls.read(raw)
        if line is not None:
            return line
        from paytui.api.models import ChargeRow

        return ChargeRow.model_validate(raw)

    @classmethod
    def read(cls, raw: Any) -> ChargeLine | None:
        """`raw` (a decoded JSON object) as a line; None when a field is not in its plain
        shape (the model is then the one to read it)."""
        if type(raw) is not dict or "return_info" in raw:
            return None
        line = cls.__new__(cls)
        get = raw.get
        text = _text
        try:
            charge_id = get("charge_id")
            if type(charge_id) is not str:
                return None
            line.charge_id = charge_id
            line.authorization_code = text(get("authorization_code"))
            line.original_charge_id = text(get("original_charge_id"))
            line.captured_charge_id = text(get("captured_charge_id"))
            line.account_id = text(get("account_id"))
            line.merchant_id = text(get("merchant_id"))
            line.status = text(get("status"))
            line.result_code = text(get("result_code"))
            line.result_text = text(get("result_text"))
            line.invoice_number = text(get("invoice_number"))
            line.po_number = text(get("po_number"))
            line.charge_type = text(get("charge_type"))
            line.charge_timestamp = _time(get("charge_timestamp"))
            line.last_updated_timestamp = _time(get("last_updated_timestamp"))
            line.total_amount = _amount(get("total_amount"))
            line.convenience_fee = _amount(get("convenience_fee"))
            line.supplemental_fee = _amount(get("supplemental_fee"))
            flag = get("reversal_flag")
            if flag is not None and type(flag) is not bool:
                return None
            line.reversal_flag = flag
            method = get("payment_method")
            line.payment_method = None if method is None else PaymentMethodLine(method)
            chargebacks = get("chargebacks")
            line.chargebacks = None if chargebacks is None else ChargebacksLine(chargebacks)
            returned = get("return")
            line.return_info = None if returned is None else ReturnLine(returned)
            line.tags = _tags(get("tags"))
            line.attributes = _attributes(get("attributes"))
        except _Odd:
            return None
        line.processor_messages = get("processor_messages")
        line.distributions = get("distributions")
        line.line_items = get("line_items")
        line.tokenize = get("tokenize")
        sent = _NAMED_FIELDS.intersection(raw)
        if "return" in raw:
            sent.add("return_info")
        line.model_fields_set = sent
        return line

    @property
    def unreadable_fields(self) -> dict[str, str]:
        """Nothing set aside: a row with a field it could not read is a `ChargeRow`."""
        return {}

    @property
    def http_status(self) -> None:
        return None
