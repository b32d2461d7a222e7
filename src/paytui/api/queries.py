"""Typed search filters for `GET /v2/charges` and `GET /v2/refunds`, and their wire form.

The UI, the search language (`paytui.search.query`) and the API client all speak `ChargeQuery`
instead of raw query strings, so the parameter names of `docs/api-assumptions.md` live in exactly
one place. The models are frozen (hence hashable): the charge list caches pages per query.

Validation here is limited to what the wire itself cannot carry (an attribute key containing `=`,
an empty tag, a negative amount or one with more than two places, a naive datetime). The finer
rules a person typing a query needs (id forms, status names, sort aliases) belong to the search
language, which can point at the offending characters; the client stays tolerant of values the
real service may accept that the sandbox does not.

No textual imports: this module is part of the API layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, field_validator

from paytui.api.money import has_cents_only

__all__ = [
    "ACH_RETURNS",
    "ALL",
    "CHARGEBACKS",
    "CHARGE_STATUSES",
    "CHARGE_TYPES",
    "METHODS",
    "OPEN_AUTHORIZATIONS",
    "QUICK_VIEWS",
    "SORT_COLUMNS",
    "ChargeQuery",
    "RefundQuery",
    "format_wire_amount",
    "format_wire_timestamp",
    "ignored_filters",
    "plain_contradictions",
]

#: Values of the `status` filter (`chargeback` and `return` find charges that had one).
CHARGE_STATUSES: tuple[str, ...] = ("success", "declined", "chargeback", "return")
#: Values of the `method` filter.
METHODS: tuple[str, ...] = ("card", "bank_account")
#: Values of the `charge_type` filter.
CHARGE_TYPES: tuple[str, ...] = ("sale", "authorization", "pre_authorization", "capture")
#: Columns `sort` accepts; a leading `-` sorts descending. Default: `-charge_timestamp`.
SORT_COLUMNS: tuple[str, ...] = (
    "charge_timestamp",
    "total_amount",
    "status",
    "result_code",
    "charge_type",
    "account_id",
    "method",
    "last4",
    "contact_name",
    "charge_id",
)


def format_wire_timestamp(value: datetime) -> str:
    """ISO 8601 UTC with `Z`, in the API's own millisecond form (`2026-01-01T00:00:00.000Z`).

    Sub-millisecond precision is kept (six digits) rather than rounded: rounding an exclusive
    `created_to` down, or an inclusive `created_from` up, would silently drop charges.
    """
    utc = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    # By hand: strftime("%Y") does not zero-pad years below 1000 on every platform.
    base = (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
    )
    if utc.microsecond % 1000:
        return f"{base}.{utc.microsecond:06d}Z"
    return f"{base}.{utc.microsecond // 1000:03d}Z"


def format_wire_amount(value: Decimal) -> str:
    """A plain decimal string (`25`, `25.5`), never exponent notation such as `1E+2`."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _sent(item: Any, name: str) -> bool:
    """Did the service send `name` on this item (a default is no evidence either way)?"""
    fields_set = getattr(item, "model_fields_set", None)
    return name in fields_set if fields_set is not None else getattr(item, name, None) is not None


def _fold(text: object) -> str:
    return str(text).casefold()


def _label_contradictions(query: Any, item: Any) -> list[str]:
    """`tag` / `attribute` filters an item contradicts (it was sent tags without the one asked)."""
    found: list[str] = []
    if query.tags and _sent(item, "tags"):
        have = {_fold(tag) for tag in getattr(item, "tags", ())}
        if any(_fold(tag) not in have for tag in query.tags):
            found.append("tag")
    if query.attributes and _sent(item, "attributes"):
        attrs = getattr(item, "attributes", {}) or {}
        if any(value not in attrs.get(key, ()) for key, value in query.attributes):
            found.append("attribute")
    return found


def _outside(moment: Any, start: datetime | None, end: datetime | None) -> bool:
    if not isinstance(moment, datetime):
        return False
    return (start is not None and moment < start) or (end is not None and moment >= end)


def plain_contradictions(params: Iterable[tuple[str, str]], item: Any) -> list[str]:
    """Equality filters (`account_id=pa_1`, `status=approved`) an item contradicts: it carries
    the field with another value. An item without the field proves nothing either way."""
    found: list[str] = []
    for name, wanted in params:
        value = getattr(item, name, None)
        if value is not None and not isinstance(value, Mapping | list) and str(value) != wanted:
            found.append(name)
    return found


def ignored_filters(
    items: Iterable[Any], contradictions: Any, order: Iterable[str] = ()
) -> tuple[str, ...]:
    """The filters a page's items show the service ignored: each named by its query parameter,
    in the order asked (`order`). `contradictions(item)` lists the ones one item contradicts."""
    seen: set[str] = set()
    for item in items:
        seen.update(contradictions(item))
    ordered = [name for name in dict.fromkeys(order) if name in seen]
    return tuple(ordered + sorted(seen - set(ordered)))


def _utc(value: datetime | None) -> datetime | None:
    """Naive datetimes are taken as UTC, aware ones converted: the wire and the UI speak UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _dedupe(items: Iterable[Any]) -> tuple[Any, ...]:
    """Drop repeats but keep the order given: repeated filters AND together, so a repeat is a no-op,
    and keeping the order lets the query line show tags the way they were typed."""
    return tuple(dict.fromkeys(items))


def _coerce_attributes(value: Any) -> Any:
    """Accept the API's `{key: [values]}` (or `{key: value}`) shape as well as `(key, value)`
    pairs, so callers holding a charge's attributes can filter by them directly."""
    if isinstance(value, Mapping):
        pairs: list[tuple[Any, Any]] = []
        for key, values in value.items():
            if isinstance(values, str) or not isinstance(values, Iterable):
                pairs.append((key, values))
            else:
                pairs.extend((key, item) for item in values)
        return tuple(pairs)
    return value


class _QueryBase(BaseModel):
    """Shared configuration and validation of the tag / attribute / time filters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    if TYPE_CHECKING:  # declared (with their defaults) by each query model
        tags: tuple[str, ...]
        attributes: tuple[tuple[str, str], ...]

    @field_validator("tags", mode="after", check_fields=False)
    @classmethod
    def _check_tags(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(tag == "" for tag in value):
            raise ValueError("a tag cannot be empty")
        return _dedupe(value)

    @field_validator("attributes", mode="before", check_fields=False)
    @classmethod
    def _coerce_attrs(cls, value: Any) -> Any:
        return _coerce_attributes(value)

    @field_validator("attributes", mode="after", check_fields=False)
    @classmethod
    def _check_attributes(cls, value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        for key, _ in value:
            # The service splits `attribute=key=value` at the first `=`.
            if key == "" or "=" in key:
                raise ValueError(f"attribute key {key!r} must be non-empty and contain no '='")
        return _dedupe(value)

    @field_validator("created_from", "created_to", mode="after", check_fields=False)
    @classmethod
    def _check_time(cls, value: datetime | None) -> datetime | None:
        return _utc(value)

    def evolve(self, **changes: Any) -> Self:
        """A copy with some fields changed, validated again (unlike `model_copy(update=...)`)."""
        return type(self).model_validate({**self.model_dump(), **changes})

    def _common_params(self) -> list[tuple[str, str]]:
        params: list[tuple[str, str]] = [("tag", tag) for tag in self.tags]
        params += [("attribute", f"{key}={val}") for key, val in self.attributes]
        return params


class ChargeQuery(_QueryBase):
    """Filters for `GET /v2/charges`; every field left at its default is simply not sent.

    `created_to` is exclusive and `created_from` inclusive (so consecutive days never overlap);
    `min_amount` / `max_amount` are both inclusive. `charge_id` is a prefix of the charge id.
    `contact_name` is words, each the beginning of a word of the customer's first or last name.
    `sort` is the wire value (`-total_amount`); `None` leaves the service default (newest first).
    """

    status: str | None = None
    tags: tuple[str, ...] = ()
    attributes: tuple[tuple[str, str], ...] = ()
    account_id: str | None = None
    merchant_id: str | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None
    min_amount: Decimal | None = None
    max_amount: Decimal | None = None
    method: Literal["card", "bank_account"] | None = None
    last4: str | None = None
    charge_type: Literal["sale", "authorization", "pre_authorization", "capture"] | None = None
    captured: bool | None = None
    original_charge_id: str | None = None
    charge_id: str | None = None
    contact_name: str | None = None
    sort: str | None = None

    @field_validator("contact_name", mode="after")
    @classmethod
    def _check_name(cls, value: str | None) -> str | None:
        """Words of the customer's name, one space apart (blank: no name filter)."""
        if value is None:
            return None
        return " ".join(value.split()) or None

    @field_validator("min_amount", "max_amount", mode="after")
    @classmethod
    def _check_amount(cls, value: Decimal | None) -> Decimal | None:
        """Money has two places on the wire; a third would be silently rounded by someone."""
        if value is None:
            return None
        if not value.is_finite():
            raise ValueError("an amount must be a finite number")
        if value < 0:
            raise ValueError("an amount cannot be negative")
        if not has_cents_only(value):
            raise ValueError("an amount has at most two decimal places")
        return value

    def to_params(self) -> list[tuple[str, str]]:
        """The query parameters, in the order `docs/api-assumptions.md` lists them.

        A list of pairs, not a dict, because `tag` and `attribute` repeat; httpx takes it as is.
        """
        params: list[tuple[str, str]] = []
        if self.status:
            params.append(("status", self.status))
        params += self._common_params()
        for name, text in (("account_id", self.account_id), ("merchant_id", self.merchant_id)):
            if text:
                params.append((name, text))
        if self.created_from is not None:
            params.append(("created_from", format_wire_timestamp(self.created_from)))
        if self.created_to is not None:
            params.append(("created_to", format_wire_timestamp(self.created_to)))
        if self.min_amount is not None:
            params.append(("min_amount", format_wire_amount(self.min_amount)))
        if self.max_amount is not None:
            params.append(("max_amount", format_wire_amount(self.max_amount)))
        for name, text in (
            ("method", self.method),
            ("last4", self.last4),
            ("charge_type", self.charge_type),
        ):
            if text:
                params.append((name, text))
        if self.captured is not None:
            params.append(("captured", "true" if self.captured else "false"))
        for name, text in (
            ("original_charge_id", self.original_charge_id),
            ("charge_id", self.charge_id),
            ("contact_name", self.contact_name),
            ("sort", self.sort),
        ):
            if text:
                params.append((name, text))
        return params

    def contradicted_by(self, charge: Any) -> list[str]:
        """The filters this charge contradicts (by their query parameter): proof that the service
        ignored them. Only what the charge itself shows counts; a field it does not carry proves
        nothing, except `original_charge_id`: a charge without one is no capture of anything.
        `contact_name` is not checked (the service's word matching is its own)."""
        from paytui.api.models import is_authorization

        found: list[str] = []
        status = getattr(charge, "status", None)
        if self.status and status is not None and status != self.status:
            kept = {"chargeback": "chargebacks", "return": "return_info"}.get(self.status)
            if kept is None or getattr(charge, kept, None) is None:
                found.append("status")
        found += _label_contradictions(self, charge)
        found += plain_contradictions(
            [
                (n, v)
                for n, v in (("account_id", self.account_id), ("merchant_id", self.merchant_id))
                if v
            ],
            charge,
        )
        if _outside(getattr(charge, "charge_timestamp", None), self.created_from, None):
            found.append("created_from")
        if _outside(getattr(charge, "charge_timestamp", None), None, self.created_to):
            found.append("created_to")
        amount = getattr(charge, "total_amount", None)
        if amount is not None and self.min_amount is not None and amount < self.min_amount:
            found.append("min_amount")
        if amount is not None and self.max_amount is not None and amount > self.max_amount:
            found.append("max_amount")
        method = getattr(charge, "method", None)
        if self.method and method is not None and method != self.method:
            found.append("method")
        last4 = getattr(charge, "last4", None)
        if self.last4 and last4 is not None and last4 != self.last4:
            found.append("last4")
        kind = getattr(charge, "charge_type", None)
        if self.charge_type and kind is not None and kind != self.charge_type:
            found.append("charge_type")
        elif self.charge_type == "authorization" and kind is None:
            code = getattr(charge, "result_code", None)
            if code is not None and not is_authorization(None, code, amount):
                found.append("charge_type")
        if self.captured is False and getattr(charge, "captured_charge_id", None):
            found.append("captured")
        if self.original_charge_id and (
            getattr(charge, "original_charge_id", None) != self.original_charge_id
        ):
            found.append("original_charge_id")
        charge_id = str(getattr(charge, "charge_id", "") or "")
        if self.charge_id and not charge_id.lower().startswith(self.charge_id.strip().lower()):
            found.append("charge_id")
        return found

    def ignored_by(self, charges: Iterable[Any]) -> tuple[str, ...]:
        """The filters of this query a page of charges shows the service ignored."""
        order = [name for name, _ in self.to_params()]
        return ignored_filters(charges, self.contradicted_by, order)

    @property
    def is_empty(self) -> bool:
        """True when nothing filters (the sort may still be set): the "All charges" view."""
        return self.model_dump(exclude={"sort"}) == ChargeQuery().model_dump(exclude={"sort"})


class RefundQuery(_QueryBase):
    """Filters for `GET /v2/refunds`: `charge_id` here is the exact id of the refunded charge."""

    charge_id: str | None = None
    account_id: str | None = None
    tags: tuple[str, ...] = ()
    attributes: tuple[tuple[str, str], ...] = ()
    created_from: datetime | None = None
    created_to: datetime | None = None

    def to_params(self) -> list[tuple[str, str]]:
        """The query parameters of `GET /v2/refunds`, `None` and empty values left out."""
        params: list[tuple[str, str]] = []
        if self.charge_id:
            params.append(("charge_id", self.charge_id))
        if self.account_id:
            params.append(("account_id", self.account_id))
        params += self._common_params()
        if self.created_from is not None:
            params.append(("created_from", format_wire_timestamp(self.created_from)))
        if self.created_to is not None:
            params.append(("created_to", format_wire_timestamp(self.created_to)))
        return params

    def contradicted_by(self, refund: Any) -> list[str]:
        """The filters this refund contradicts (see `ChargeQuery.contradicted_by`)."""
        found = plain_contradictions(
            [
                (n, v)
                for n, v in (("charge_id", self.charge_id), ("account_id", self.account_id))
                if v
            ],
            refund,
        )
        found += _label_contradictions(self, refund)
        moment = getattr(refund, "refund_timestamp", None)
        if _outside(moment, self.created_from, None):
            found.append("created_from")
        if _outside(moment, None, self.created_to):
            found.append("created_to")
        return found

    def ignored_by(self, refunds: Iterable[Any]) -> tuple[str, ...]:
        """The filters of this query a page of refunds shows the service ignored."""
        order = [name for name, _ in self.to_params()]
        return ignored_filters(refunds, self.contradicted_by, order)


# Quick views: the searches support staff run all day, one key away in the charge list.
ALL = ChargeQuery()
CHARGEBACKS = ChargeQuery(status="chargeback")
ACH_RETURNS = ChargeQuery(status="return")
OPEN_AUTHORIZATIONS = ChargeQuery(charge_type="authorization", captured=False)

#: (label, query) in the order the UI offers them.
QUICK_VIEWS: tuple[tuple[str, ChargeQuery], ...] = (
    ("All charges", ALL),
    ("Chargebacks", CHARGEBACKS),
    ("ACH returns", ACH_RETURNS),
    ("Open authorizations", OPEN_AUTHORIZATIONS),
)
