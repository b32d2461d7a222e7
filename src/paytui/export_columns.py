"""The columns of every list paytui writes: a charge export or search, the audit trail, refunds,
tokens, accounts — each column's key, how it is read from a row, its kind of cell and its help.

Its own module because which columns a list has is one concept (docs/export.md lists them), and
how a cell of a kind is written is another (`exporter.py`: masking, redaction, formula quoting,
exact money, UTC, one set of rules for every writer). A column never formats its own cell: it
says its `kind`, and the exporter applies that kind's rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from paytui.charge_state import dispute_state, refund_state

__all__ = [
    "ACCOUNT_COLUMNS",
    "AUDIT_COLUMNS",
    "CHARGE_COLUMNS",
    "DEFAULT_CHARGE_COLUMNS",
    "REFUND_COLUMNS",
    "TOKEN_COLUMNS",
    "Attribute",
    "Column",
    "Kind",
    "parse_columns",
]

#: How a cell is written (`exporter.cell_function`).
Kind = Literal["text", "money", "time", "id", "flag", "integer"]


@dataclass(frozen=True)
class Column:
    """One exported column: `key` (JSON Lines key, CSV header), how to read it, what it is."""

    key: str
    read: Callable[[Any], Any]
    kind: Kind = "text"
    help: str = ""


#: A method as a column writes it (``bank_account`` is ``bank``); any other as the row says.
_METHOD_WORDS = {"bank_account": "bank"}


def _method(charge: Any) -> str | None:
    method = getattr(charge, "method", None)
    return _METHOD_WORDS.get(method, method) if method else None


def _brand(charge: Any) -> str | None:
    pm = getattr(charge, "payment_method", None)
    brand = getattr(pm, "type", None) if pm is not None else None
    return str(brand) if brand else None


def _masked_number(charge: Any) -> str | None:
    """``XXXXXXXXXXXX1111``: rebuilt from the last four and the length, never the number."""
    last4 = str(getattr(charge, "last4", None) or "")
    if not last4:
        return None
    pm = getattr(charge, "payment_method", None)
    raw = str(getattr(pm, "card_number", None) or getattr(pm, "account_number", None) or "")
    length = len(raw) if 8 <= len(raw) <= 19 else 16
    return "X" * (length - len(last4)) + last4


def _attributes(charge: Any) -> str | None:
    attributes = getattr(charge, "attributes", None) or {}
    if not attributes:
        return None
    return ";".join(f"{key}={','.join(map(str, values))}" for key, values in attributes.items())


def _chargeback_total(charge: Any) -> Decimal | None:
    chargebacks = getattr(charge, "chargebacks", None)
    return getattr(chargebacks, "total_amount", None) if chargebacks is not None else None


def _return_code(charge: Any) -> str | None:
    info = getattr(charge, "return_info", None)
    return getattr(info, "return_code", None) if info is not None else None


def _refund_state_unread(charge: Any) -> str:
    """Without its refunds read (`with_refund_states` reads them): ``unknown`` unless the charge
    cannot have any."""
    return refund_state(charge, None)


class Attribute:
    """A column read from one attribute of a row (None when the row has no such attribute):
    named, so a writer of many rows can read it with `operator.attrgetter` (`exporter`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, obj: Any) -> Any:
        return getattr(obj, self.name, None)


def _attr(name: str) -> Attribute:
    return Attribute(name)


#: Every column a charge export can have, in a sensible order.
CHARGE_COLUMNS: dict[str, Column] = {
    column.key: column
    for column in (
        Column("time", _attr("charge_timestamp"), "time", "when the charge was made"),
        Column("charge_id", _attr("charge_id"), "id"),
        Column("status", _attr("status"), "id", "success, declined, chargeback, return"),
        Column("type", _attr("charge_type"), "id", "sale, authorization, capture, ..."),
        Column("result_code", _attr("result_code"), "id"),
        Column("result_text", _attr("result_text")),
        Column("amount", _attr("total_amount"), "money", "exact, as the service sent it"),
        Column("method", _method, "id", "card or bank"),
        Column("brand", _brand, "id"),
        Column("last4", _attr("last4"), "id"),
        Column("number", _masked_number, "id", "masked: XXXXXXXXXXXX1111"),
        Column("contact", _attr("contact_name")),
        Column("account_id", _attr("account_id"), "id"),
        Column("merchant_id", _attr("merchant_id"), "id"),
        Column("tags", lambda c: ",".join(map(str, getattr(c, "tags", None) or [])) or None),
        Column("attributes", _attributes, help="key=value;key=value"),
        Column("original_charge_id", _attr("original_charge_id"), "id"),
        Column("captured_charge_id", _attr("captured_charge_id"), "id"),
        Column("authorization_code", _attr("authorization_code"), "id"),
        Column("convenience_fee", _attr("convenience_fee"), "money"),
        Column("supplemental_fee", _attr("supplemental_fee"), "money"),
        Column("chargeback_amount", _chargeback_total, "money"),
        Column(
            "refund_state",
            _refund_state_unread,
            "id",
            "none, partial, full, unknown (the charge's refunds, read per row)",
        ),
        Column("dispute_state", dispute_state, "id", "none, open, won, lost, unknown"),
        Column("return_code", _return_code, "id"),
        Column("invoice_number", _attr("invoice_number")),
        Column("po_number", _attr("po_number")),
        Column("updated", _attr("last_updated_timestamp"), "time"),
    )
}
DEFAULT_CHARGE_COLUMNS: tuple[str, ...] = (
    "time",
    "charge_id",
    "status",
    "type",
    "result_code",
    "amount",
    "method",
    "brand",
    "last4",
    "contact",
    "account_id",
    "merchant_id",
    "tags",
    "original_charge_id",
    "captured_charge_id",
    # Last, so that a file's other columns keep their places: the money state by the lists'
    # rule; `unknown` where it is not known (an export reads no refunds: `with_refund_states`).
    "refund_state",
    "dispute_state",
)

#: The audit trail's columns (`paytui history --format`, the History screen's export).
AUDIT_COLUMNS: dict[str, Column] = {
    column.key: column
    for column in (
        Column("time", _attr("time"), "time"),
        Column("profile", _attr("profile")),
        Column("service", _attr("base_url")),
        Column("client_id", _attr("client_id")),
        Column("action", _attr("operation"), "id"),
        Column("charge_id", _attr("charge_id"), "id"),
        Column("amount", _attr("amount"), "money"),
        Column("outcome", _attr("outcome"), "id", "succeeded, failed, refused, unknown, ..."),
        Column("reason", _attr("reason"), help="the service's (or the policy's) reason"),
        Column("result_id", _attr("result_id"), "id"),
        Column("entry", lambda row: f"{'#' if row.kind == 'action' else 'refused-'}{row.id}", "id"),
        # Last: a file's columns before them keep their places (scripts reading by position).
        Column("agent", _attr("agent"), help="who acted (a team journal's agent)"),
        Column("machine", _attr("machine"), help="the agent's machine"),
    )
}


#: Refunds (`paytui refunds list`).
REFUND_COLUMNS: dict[str, Column] = {
    column.key: column
    for column in (
        Column("time", _attr("refund_timestamp"), "time"),
        Column("refund_id", _attr("refund_id"), "id"),
        Column("charge_id", _attr("charge_id"), "id"),
        Column("status", _attr("status"), "id"),
        Column("amount", _attr("total_amount"), "money"),
        Column("reason", _attr("reason")),
        Column("account_id", _attr("account_id"), "id"),
        Column("tags", lambda r: ",".join(map(str, getattr(r, "tags", None) or [])) or None),
    )
}
#: Stored card tokens (`paytui tokens list|show`): the number only ever masked.
TOKEN_COLUMNS: dict[str, Column] = {
    column.key: column
    for column in (
        Column("token_id", _attr("token_id"), "id"),
        Column("account_id", _attr("account_id"), "id"),
        Column("brand", _brand, "id"),
        Column("number", _masked_number, "id", "masked: XXXXXXXXXXXX1111"),
        Column(
            "card_expires",
            lambda t: getattr(getattr(t, "payment_method", None), "expiration_date", None),
            "id",
        ),
        Column("contact", lambda t: _contact_of(getattr(t, "payment_method", None))),
        Column("created", _attr("created_timestamp"), "time"),
        Column("token_expires", _attr("token_expiration_date"), "time"),
    )
}
#: Merchant accounts (`paytui accounts list|show|watch`).
ACCOUNT_COLUMNS: dict[str, Column] = {
    column.key: column
    for column in (
        Column("account_id", _attr("account_id"), "id"),
        Column("name", _attr("name")),
        Column("status", _attr("status"), "id"),
        Column("status_message", _attr("status_message")),
        Column("merchant_id", _attr("merchant_id"), "id"),
        Column("mcc", _attr("merchant_category_code"), "id"),
        Column("created", _attr("created_timestamp"), "time"),
        Column("updated", _attr("last_updated_timestamp"), "time"),
    )
}


def _contact_of(method: Any) -> str | None:
    contact = getattr(method, "contact", None)
    if contact is None:
        return None
    name = " ".join(p for p in (contact.first_name, contact.last_name) if p)
    return name or None


def parse_columns(text: str | None, table: dict[str, Column], default: Sequence[str]) -> list[str]:
    """`"time,amount,status"` as column keys (ValueError naming an unknown one); None: default."""
    if text is None or not text.strip():
        return list(default)
    keys = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [key for key in keys if key not in table]
    if unknown:
        raise ValueError(f"unknown column {unknown[0]!r}; choose from: {', '.join(table)}")
    return keys
