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

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, field_validator

from paytui.api.money import has_cents_only
from paytui.api.window import format_wire_timestamp
from paytui.api.window import time_verdicts as _time_verdicts

__all__ = [
    "ACH_RETURNS",
    "ALL",
    "CHARGEBACKS",
    "CHARGE_STATUSES",
    "CHARGE_TYPES",
    "HERE_FILTERS",
    "METHODS",
    "OPEN_AUTHORIZATIONS",
    "QUICK_VIEWS",
    "SORT_COLUMNS",
    "ChargeQuery",
    "RefundQuery",
    "format_wire_amount",
    "format_wire_timestamp",
    "ignored_filters",
    "name_words",
    "plain_contradictions",
]

#: Values of the `status` filter (`chargeback` and `return` find charges that had one).
CHARGE_STATUSES: tuple[str, ...] = ("success", "declined", "chargeback", "return", "voided")
#: paytui's own filters (by their name in `ChargeQuery.verdicts`): never sent, proven on every
#: row here. A row one of them leaves out is said as filtered here, as any filter.
HERE_FILTERS: tuple[str, ...] = ("refund_state", "dispute_state", "not_tag", "not_status")
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


#: What a row shows of one filter: True, it matches; False, it does not (the service did not
#: apply the filter); None, it cannot tell (the row lacks the field). Only True is a proof.
Verdict = bool | None

_NAME_SPLIT = re.compile(r"[\s\-\u2010-\u2014]+")
_NAME_DROP = str.maketrans("", "", "'\u2019`.")


@functools.lru_cache(maxsize=4096)
def name_words(text: str) -> tuple[str, ...]:
    """The words of a customer's name (or of a name typed in a search), folded as the search
    language defines `name:` (docs/search.md): accents removed, case folded, split at spaces and
    hyphens, apostrophes and dots dropped ("O'Brien" is `obrien`). Kept per text: every row of a
    page is checked against the name typed, and the same customers come back page after page."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    words = (word.translate(_NAME_DROP) for word in _NAME_SPLIT.split(plain))
    return tuple(dict.fromkeys(word for word in words if word))


def _name_verdict(wanted: str, name: str) -> Verdict:
    """Every word typed begins a word of the name; None when the row shows no name."""
    have, typed_words = name_words(name), name_words(wanted)
    if not have or not typed_words:
        return None
    return all(any(word.startswith(typed) for word in have) for typed in typed_words)


def _equal(item: Any, name: str, wanted: str) -> Verdict:
    value = getattr(item, name, None)
    if value is None or isinstance(value, Mapping | list):
        return None
    return str(value) == wanted


def _compare(value: Any, ok: bool) -> Verdict:
    return None if value is None else ok


def _label_verdicts(query: Any, item: Any) -> dict[str, Verdict]:
    """`tag` / `attribute`: proven only on an item that was sent its tags (attributes)."""
    found: dict[str, Verdict] = {}
    if query.tags:
        tags = [str(tag) for tag in getattr(item, "tags", ())]
        if not _sent(item, "tags"):
            found["tag"] = None
        elif all(tag in tags for tag in query.tags):
            found["tag"] = True  # exactly, as tags are matched (docs/search.md)
        elif all(_fold(tag) in {_fold(have) for have in tags} for tag in query.tags):
            found["tag"] = None  # only in another case: the service's matching is its own
        else:
            found["tag"] = False
    if query.attributes:
        attrs = getattr(item, "attributes", {}) or {}
        sent = _sent(item, "attributes")
        # `key=` (an empty value) asks for charges that have the key at all.
        matches = all(
            (key in attrs) if value == "" else (value in attrs.get(key, ()))
            for key, value in query.attributes
        )
        found["attribute"] = matches if sent else None
    return found


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


def _carries(charge: Any, kind: str) -> bool | None:
    """Does the charge show a chargeback (items, or an amount) or a return (a return code)?
    None: it carries the object empty, as some services send on every charge (no proof
    either way); False: it carries none."""
    if kind == "return":
        info = getattr(charge, "return_info", None)
        if info is None:
            return False
        return True if getattr(info, "return_code", None) else None
    chargebacks = getattr(charge, "chargebacks", None)
    if chargebacks is None:
        return False
    amount = getattr(chargebacks, "total_amount", None)
    return True if (getattr(chargebacks, "items", None) or amount) else None


def _sort_key(charge: Any, column: str) -> Any:
    """The value a charge sorts by in `column` (a `SORT_COLUMNS` name); None when not shown."""
    value = getattr(charge, column, None)
    if isinstance(value, str):
        return value.casefold() or None
    return value


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
    # paytui's own filters, never sent (the service has none): each row is proven here, by the
    # one rule of `paytui.charge_state` (`HERE_FILTERS`, docs/search.md).
    #: `refunded:` full, partial, none: the charge's refunds as read (the client reads them).
    refund_state: Literal["full", "partial", "none"] | None = None
    #: `dispute:` open, won, lost, none.
    dispute_state: Literal["open", "won", "lost", "none"] | None = None
    #: `-tag:` tags the charge must not carry.
    not_tags: tuple[str, ...] = ()
    #: `-status:` statuses the charge must not have.
    not_statuses: tuple[str, ...] = ()

    @field_validator("not_tags", "not_statuses", mode="after")
    @classmethod
    def _check_excluded(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(word == "" for word in value):
            raise ValueError("an excluded value cannot be empty")
        return _dedupe(value)

    @property
    def filters_here(self) -> bool:
        """Does the query hold a filter only paytui applies (`HERE_FILTERS`)? Then a page of
        the service is not a page of the answer (rows are left out here)."""
        return bool(self.refund_state or self.dispute_state or self.not_tags or self.not_statuses)

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
        elif self.dispute_state in ("open", "won", "lost"):
            # A dispute is on a charge with a chargeback: the spec's filter narrows the list
            # (the dispute itself is proven on each row, `verdicts`).
            params.append(("status", "chargeback"))
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

    def verdicts(self, charge: Any) -> dict[str, Verdict]:
        """What this charge shows of each filter asked (by its query parameter, in `to_params`
        order): True, it matches; False, it does not (the service ignored that filter);
        None, it cannot tell (the charge lacks the field: the real service echoes neither
        `charge_type` nor `tags` on every charge, and `captured_charge_id` is the sandbox's).

        Exceptions, by what the spec shows: a charge without `original_charge_id` is no capture
        of anything (False); an authorization is told by its result code when `charge_type` is
        not sent (`is_authorization`); `status:chargeback` / `status:return` match a charge that
        carries a chargeback / return whatever its status. `sort` is not a row filter
        (`sort_ignored_by`)."""
        from paytui.api.rows import is_authorization

        found: dict[str, Verdict] = {}
        if self.status:
            status = getattr(charge, "status", None)
            shown = (
                _carries(charge, self.status) if self.status in {"chargeback", "return"} else False
            )
            if status == self.status:
                found["status"] = True  # the row says so itself
            elif shown is not False:
                found["status"] = shown  # True: it carries one; None: an empty object
            else:
                found["status"] = _compare(status, status == self.status)
        found.update(_label_verdicts(self, charge))
        for name, wanted in (("account_id", self.account_id), ("merchant_id", self.merchant_id)):
            if wanted:
                found[name] = _equal(charge, name, wanted)
        found.update(
            _time_verdicts(
                getattr(charge, "charge_timestamp", None), self.created_from, self.created_to
            )
        )
        amount = getattr(charge, "total_amount", None)
        if self.min_amount is not None:
            found["min_amount"] = _compare(amount, amount is not None and amount >= self.min_amount)
        if self.max_amount is not None:
            found["max_amount"] = _compare(amount, amount is not None and amount <= self.max_amount)
        for name, wanted in (("method", self.method), ("last4", self.last4)):
            if wanted:
                value = getattr(charge, name, None)
                found[name] = _compare(value, value == wanted)
        if self.charge_type:
            kind = getattr(charge, "charge_type", None)
            code = getattr(charge, "result_code", None)
            if kind is not None:
                found["charge_type"] = kind == self.charge_type
            elif self.charge_type == "authorization" and is_authorization(None, code, amount):
                found["charge_type"] = True  # `Authorized` on a non-zero amount
            elif (
                self.charge_type == "authorization"
                and code is not None
                and getattr(charge, "status", None) == "success"
            ):
                found["charge_type"] = False  # a successful authorization shows `Authorized`
            else:  # a declined one, or no result code: a sale could look the same
                found["charge_type"] = None
        if self.captured is not None:
            captured = getattr(charge, "captured_charge_id", None) is not None
            sent = _sent(charge, "captured_charge_id")
            found["captured"] = (captured == self.captured) if sent else None
        if self.original_charge_id:
            found["original_charge_id"] = (
                getattr(charge, "original_charge_id", None) == self.original_charge_id
            )
        if self.charge_id:
            charge_id = str(getattr(charge, "charge_id", "") or "").lower()
            found["charge_id"] = charge_id.startswith(self.charge_id.strip().lower())
        if self.contact_name:
            found["contact_name"] = _name_verdict(
                self.contact_name, str(getattr(charge, "contact_name", "") or "")
            )
        found.update(self._here_verdicts(charge))
        return found

    def _here_verdicts(self, charge: Any) -> dict[str, Verdict]:
        """paytui's own filters on one row (`HERE_FILTERS`). `refund_state` from the row alone
        proves only a charge that cannot have refunds (``none``); the client reads the refunds
        of the others (`PaymentClient.search_charges_page`)."""
        from paytui.charge_state import dispute_state, refund_state

        found: dict[str, Verdict] = {}
        if self.dispute_state is not None:
            state = dispute_state(charge)
            found["dispute_state"] = None if state == "unknown" else state == self.dispute_state
        if self.refund_state is not None:
            state = refund_state(charge, None)
            found["refund_state"] = None if state == "unknown" else state == self.refund_state
        if self.not_tags:
            tags = [str(tag) for tag in getattr(charge, "tags", None) or ()]
            folded = {_fold(tag) for tag in tags}
            if not _sent(charge, "tags"):
                found["not_tag"] = None  # tags not shown: the tag cannot be proven absent
            elif any(tag in tags for tag in self.not_tags):
                found["not_tag"] = False
            elif any(_fold(tag) in folded for tag in self.not_tags):
                found["not_tag"] = None  # only in another case: the service's matching is its own
            else:
                found["not_tag"] = True
        if self.not_statuses:
            # The negation of `status:` as proven on the row (a charge carrying a chargeback
            # is `status:chargeback` whatever its status says).
            shown = [
                ChargeQuery(status=excluded).verdicts(charge).get("status")
                for excluded in self.not_statuses
            ]
            if any(verdict is True for verdict in shown):
                found["not_status"] = False
            else:
                found["not_status"] = None if None in shown else True
        return found

    def contradicted_by(self, charge: Any) -> list[str]:
        """The filters this charge shows the service ignored (`verdicts` False)."""
        return [name for name, verdict in self.verdicts(charge).items() if verdict is False]

    def unproven_by(self, charge: Any) -> list[str]:
        """The filters this charge cannot show it matches (`verdicts` None)."""
        return [name for name, verdict in self.verdicts(charge).items() if verdict is None]

    def sort_ignored_by(self, charges: Sequence[Any]) -> bool:
        """Do these charges, in the order sent, show that the service ignored `sort`? Told only
        from two neighbours that both carry the column and are out of order; a sort cannot be
        applied here across pages, so it is reported, never pretended."""
        if not self.sort:
            return False
        column = self.sort.lstrip("-")
        descending = self.sort.startswith("-")
        keys = [_sort_key(charge, column) for charge in charges]
        for before, after in itertools.pairwise(keys):
            if before is None or after is None:
                continue
            try:
                if (after > before) if descending else (after < before):
                    return True
            except TypeError:
                continue
        return False

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

    def verdicts(self, refund: Any) -> dict[str, Verdict]:
        """What this refund shows of each filter asked (see `ChargeQuery.verdicts`)."""
        found: dict[str, Verdict] = {}
        for name, wanted in (("charge_id", self.charge_id), ("account_id", self.account_id)):
            if wanted:
                found[name] = _equal(refund, name, wanted)
        found.update(_label_verdicts(self, refund))
        found.update(
            _time_verdicts(
                getattr(refund, "refund_timestamp", None), self.created_from, self.created_to
            )
        )
        return found

    def contradicted_by(self, refund: Any) -> list[str]:
        """The filters this refund shows the service ignored (`verdicts` False)."""
        return [name for name, verdict in self.verdicts(refund).items() if verdict is False]

    def unproven_by(self, refund: Any) -> list[str]:
        """The filters this refund cannot show it matches (`verdicts` None)."""
        return [name for name, verdict in self.verdicts(refund).items() if verdict is None]

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
