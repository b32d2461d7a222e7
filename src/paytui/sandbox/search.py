"""List queries: the charge search of GET /v2/charges, refunds, and the small lists.

Filters become WHERE terms on indexed columns (tags and attributes as `id IN (...)` over their
own value-first tables); ORDER BY always ends in a unique column, so paging with limit/offset is
stable. Pages are assembled from the stored JSON docs by string joining, without re-encoding.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from paytui.sandbox.errors import FieldInvalid
from paytui.sandbox.store import dumps
from paytui.sandbox.wire import AmountError, cents_from_decimal, iso_ms, parse_instant

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
CHARGE_STATUSES = ("success", "declined", "chargeback", "return")
CHARGE_TYPES = ("sale", "authorization", "pre_authorization", "capture")
METHODS = ("card", "bank_account")
SORT_COLUMNS = {
    "charge_timestamp": "ts",
    "total_amount": "amount_cents",
    "status": "status",
    "result_code": "result_code",
    "charge_type": "charge_type",
    "account_id": "account_id",
    "method": "method",
    "last4": "last4",
    "contact_name": "contact_name",
    "charge_id": "charge_id",
}
_HEX_PREFIX = re.compile(r"^[0-9a-f]{4,24}$")
_LAST4 = re.compile(r"^\d{4}$")


@dataclass
class Where:
    """WHERE terms and their parameters, built up filter by filter."""

    terms: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, term: str, *params: Any) -> None:
        self.terms.append(term)
        self.params.extend(params)

    def sql(self) -> str:
        return " WHERE " + " AND ".join(self.terms) if self.terms else ""


def paging(limit: int | None, offset: int | None) -> tuple[int, int]:
    """limit defaults to 50 and is clamped to 500; both must be sensible (422 otherwise)."""
    limit = DEFAULT_LIMIT if limit is None else limit
    offset = 0 if offset is None else offset
    if limit < 1:
        raise FieldInvalid("limit", "must be at least 1")
    if offset < 0:
        raise FieldInvalid("offset", "must not be negative")
    return min(limit, MAX_LIMIT), offset


def one_of(value: str | None, allowed: tuple[str, ...], name: str) -> str | None:
    if value is not None and value not in allowed:
        raise FieldInvalid(name, f"must be one of {', '.join(allowed)}")
    return value


def instant(value: str | None, name: str) -> str | None:
    """A bound as the fixed-width text form the ts columns hold, so text order is time order."""
    if value is None:
        return None
    try:
        return iso_ms(parse_instant(value))
    except ValueError as exc:
        raise FieldInvalid(name, "must be an ISO 8601 date or timestamp") from exc


def amount(value: str | None, name: str) -> int | None:
    if value is None:
        return None
    try:
        return cents_from_decimal(value.strip())
    except AmountError as exc:
        raise FieldInvalid(name, f"{exc} (an amount such as 25.50)") from exc


def label_terms(where: Where, kind: str, tags: list[str], attributes: list[str]) -> None:
    """Every tag and every `key=value` must match (`key=` alone: the key is present)."""
    for tag in tags:
        where.add(f"id IN (SELECT id FROM {kind}_tags WHERE tag = ?)", tag)
    for item in attributes:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise FieldInvalid("attribute", "must be key=value (or key= for 'has the key')")
        if value:
            where.add(
                f"id IN (SELECT id FROM {kind}_attrs WHERE key = ? AND value = ?)", key, value
            )
        else:
            where.add(f"id IN (SELECT id FROM {kind}_attrs WHERE key = ?)", key)


def charge_where(q: dict[str, Any]) -> Where:
    """WHERE of a charge search from the raw query values (validated here, 422 per parameter)."""
    where = Where()
    if one_of(q.get("status"), CHARGE_STATUSES, "status"):
        where.add("status = ?", q["status"])
    label_terms(where, "charge", q.get("tag") or [], q.get("attribute") or [])
    for name in ("account_id", "merchant_id", "original_charge_id"):
        if q.get(name):
            where.add(f"{name} = ?", q[name])
    if (start := instant(q.get("created_from"), "created_from")) is not None:
        where.add("ts >= ?", start)
    if (end := instant(q.get("created_to"), "created_to")) is not None:
        where.add("ts < ?", end)
    if (low := amount(q.get("min_amount"), "min_amount")) is not None:
        where.add("amount_cents >= ?", low)
    if (high := amount(q.get("max_amount"), "max_amount")) is not None:
        where.add("amount_cents <= ?", high)
    if one_of(q.get("method"), METHODS, "method"):
        where.add("method = ?", q["method"])
    if q.get("last4") is not None:
        if not _LAST4.match(q["last4"]):
            raise FieldInvalid("last4", "must be exactly four digits")
        where.add("last4 = ?", q["last4"])
    if one_of(q.get("charge_type"), CHARGE_TYPES, "charge_type"):
        where.add("charge_type = ?", q["charge_type"])
    if q.get("captured") is not None:
        where.add("captured = ?", int(q["captured"]))
    if q.get("charge_id") is not None:
        prefix = q["charge_id"].strip().lower()
        if not _HEX_PREFIX.match(prefix):
            raise FieldInvalid("charge_id", "must be a prefix of at least 4 hex characters")
        where.add("charge_id >= ? AND charge_id < ?", prefix, prefix + "g")
    return where


def charge_order(sort: str | None) -> str:
    """ORDER BY for `sort`; ties always fall back to timestamp and id in the same direction."""
    sort = sort or "-charge_timestamp"
    descending = sort.startswith("-")
    column = SORT_COLUMNS.get(sort.lstrip("-"))
    if column is None:
        raise FieldInvalid("sort", f"must be one of {', '.join(SORT_COLUMNS)} (optionally with -)")
    direction = "DESC" if descending else "ASC"
    if column == "charge_id":
        return f" ORDER BY charge_id {direction}"
    if column == "ts":
        return f" ORDER BY ts {direction}, charge_id {direction}"
    return f" ORDER BY {column} {direction}, ts {direction}, charge_id {direction}"


def envelope(docs: list[str], total: int, limit: int, offset: int) -> str:
    """The list envelope as JSON text, embedding the stored docs as they are."""
    meta = dumps(
        {"total": total, "limit": limit, "offset": offset, "has_more": offset + len(docs) < total}
    )
    return '{"data":[' + ",".join(docs) + "]," + meta[1:]


def page(
    conn: sqlite3.Connection,
    select: str,
    table: str,
    where: Where,
    order: str,
    limit: int,
    offset: int,
) -> str:
    """One page plus the total count of a filtered list."""
    sql_where = where.sql()
    docs = [
        row[0]
        for row in conn.execute(
            f"SELECT {select} FROM {table}{sql_where}{order} LIMIT ? OFFSET ?",
            [*where.params, limit, offset],
        )
    ]
    total = conn.execute(f"SELECT COUNT(*) FROM {table}{sql_where}", where.params).fetchone()[0]
    return envelope(docs, int(total), limit, offset)


def search_charges(conn: sqlite3.Connection, q: dict[str, Any], limit: int, offset: int) -> str:
    return page(conn, "doc", "charges", charge_where(q), charge_order(q.get("sort")), limit, offset)


def search_refunds(conn: sqlite3.Connection, q: dict[str, Any], limit: int, offset: int) -> str:
    where = Where()
    for name in ("charge_id", "account_id"):
        if q.get(name):
            where.add(f"{name} = ?", q[name])
    label_terms(where, "refund", q.get("tag") or [], q.get("attribute") or [])
    if (start := instant(q.get("created_from"), "created_from")) is not None:
        where.add("ts >= ?", start)
    if (end := instant(q.get("created_to"), "created_to")) is not None:
        where.add("ts < ?", end)
    return page(conn, "doc", "refunds", where, " ORDER BY ts DESC, refund_id DESC", limit, offset)
