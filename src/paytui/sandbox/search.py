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
from paytui.sandbox.names import END, name_words
from paytui.sandbox.schema import COUNTED_COLUMNS
from paytui.sandbox.store import dumps
from paytui.sandbox.wire import AmountError, cents_from_decimal, iso_ms, parse_instant

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
#: `voided` is accepted (a service may show voided charges); the sandbox never voids one.
CHARGE_STATUSES = ("success", "declined", "chargeback", "return", "voided")
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
    """WHERE terms and their parameters, built up filter by filter.

    A term on an indexed column is a template with `{c}` where the column goes, so that it can
    be rendered as `+column` (see `sql`); other terms are plain SQL.
    """

    terms: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)
    columns: list[str | None] = field(default_factory=list)

    def add(self, term: str, *params: Any, column: str | None = None) -> None:
        self.terms.append(term)
        self.params.extend(params)
        self.columns.append(column)

    def on(self, column: str, template: str, *params: Any) -> None:
        """A term on an indexed column: `template` holds `{c}` for the column."""
        self.add(template, *params, column=column)

    def copy(self) -> Where:
        return Where(list(self.terms), list(self.params), list(self.columns))

    def ranges(self, column: str) -> bool:
        """Whether a term on `column` is a range (its index is then not in time order)."""
        pairs = zip(self.terms, self.columns, strict=True)
        return any("<" in term or ">" in term for term, col in pairs if col == column)

    def indexed_columns(self) -> list[str]:
        return list(dict.fromkeys(c for c in self.columns if c is not None))

    def only(self, column: str) -> Where:
        """The terms on one column (for counting what its index alone matches)."""
        result = Where()
        offset = 0
        for term, col in zip(self.terms, self.columns, strict=True):
            width = term.count("?")
            if col == column:
                result.add(term, *self.params[offset : offset + width], column=col)
            offset += width
        return result

    def equals(self, column: str) -> bool:
        """Whether the only term on `column` is an equality (one value: its count is kept)."""
        return self.only(column).terms == ["{c} = ?"]

    def sql(self, driver: str | tuple[str, ...] | None = None) -> str:
        """The WHERE clause; with `driver` (a column or several), terms on other columns are
        written `+column`, which keeps SQLite from using their indexes, so the driver's index is
        the one it walks."""
        if not self.terms:
            return ""
        drivers = (driver,) if isinstance(driver, str) else driver
        rendered = []
        for term, column in zip(self.terms, self.columns, strict=True):
            if column is not None:
                plus = "+" if drivers is not None and column not in drivers else ""
                term = term.format(c=plus + column)
            rendered.append(term)
        return " WHERE " + " AND ".join(rendered)


#: The largest offset a list accepts (far beyond any real result; keeps SQLite's integer safe).
MAX_OFFSET = 2**31 - 1


def paging(limit: int | None, offset: int | None) -> tuple[int, int]:
    """limit defaults to 50 and is clamped to 500; both must be sensible (422 otherwise)."""
    limit = DEFAULT_LIMIT if limit is None else limit
    offset = 0 if offset is None else offset
    if limit < 1:
        raise FieldInvalid("limit", "must be at least 1")
    if offset < 0:
        raise FieldInvalid("offset", "must not be negative")
    if offset > MAX_OFFSET:  # SQLite's OFFSET is a 64-bit integer: 2**63 would be a 500
        raise FieldInvalid("offset", f"must be at most {MAX_OFFSET}")
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


@dataclass(frozen=True)
class Label:
    """One tag or attribute condition, usable as a driving id list or as a per-row check."""

    table: str
    column_sql: str
    params: tuple[str, ...]
    #: One charge can match more than once (two name words with the prefix): count distinct ids.
    repeats: bool = False
    #: The name its match count is kept under in `charge_counts` (`tag`), if it is.
    counted_as: str | None = None

    def ids(self) -> str:
        return f"SELECT id FROM {self.table} WHERE {self.column_sql}"

    def count_sql(self) -> str:
        distinct = "DISTINCT " if self.repeats else ""
        return f"SELECT COUNT({distinct}id) FROM {self.table} WHERE {self.column_sql}"

    def size(self, conn: sqlite3.Connection) -> int:
        """How many charges match: read from `charge_counts` when kept there, else counted."""
        if self.counted_as is not None:
            return kept_count(conn, self.counted_as, self.params[0])
        return _count(conn, self.count_sql(), self.params)

    def join(self, alias: str) -> str:
        """A join on the id list, for a count: cheaper per row than EXISTS (no subquery run per
        row); only for a label that matches a charge once (`repeats` False)."""
        return f" CROSS JOIN ({self.ids()}) {alias} ON {alias}.id = charges.id"

    def in_term(self) -> str:
        return f"id IN ({self.ids()})"

    def exists_term(self, outer: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM {self.table} x WHERE x.id = {outer}.id AND {self.column_sql})"
        )


def labels(kind: str, tags: list[str], attributes: list[str]) -> list[Label]:
    """Every tag and every `key=value` must match (`key=` alone: the key is present)."""
    counted_as = "tag" if kind == "charge" else None
    result = [Label(f"{kind}_tags", "tag = ?", (tag,), counted_as=counted_as) for tag in tags]
    for item in attributes:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise FieldInvalid("attribute", "must be key=value (or key= for 'has the key')")
        if value:
            result.append(Label(f"{kind}_attrs", "key = ? AND value = ?", (key, value)))
        else:
            result.append(Label(f"{kind}_attrs", "key = ?", (key,)))
    return result


@dataclass(frozen=True)
class NameLabel(Label):
    """`contact_name`: every word typed begins a word of the name. One condition for all the
    words, so that its id list is an INTERSECT of index ranges (distinct ids, read from the
    name index alone) rather than one word's list checked row by row against the others."""

    words: int = 1

    def ids(self) -> str:
        one = f"SELECT id FROM {self.table} WHERE {self.column_sql}"
        return " INTERSECT ".join([one] * self.words) if self.words > 1 else one

    def count_sql(self) -> str:
        if self.words > 1:
            return f"SELECT COUNT(*) FROM ({self.ids()})"
        return super().count_sql()

    def exists_term(self, outer: str) -> str:
        return " AND ".join([super().exists_term(outer)] * self.words)


def name_labels(value: str | None) -> list[Label]:
    """`contact_name`: every word typed must begin a word of the contact's first or last name
    (folded alike: `names.name_words`), so "eds dij" finds Edsger Dijkstra."""
    if value is None:
        return []
    words = name_words(value)
    if not words:
        raise FieldInvalid("contact_name", "must hold at least one letter or digit")
    params = tuple(bound for word in words for bound in (word, word + END))
    return [
        NameLabel("charge_names", "word >= ? AND word < ?", params, repeats=True, words=len(words))
    ]


def charge_where(q: dict[str, Any]) -> Where:
    """WHERE of a charge search over the columns (labels apart; see `search_charges`).

    Values are validated here: a malformed one is a 422 naming its query parameter.
    """
    where = Where()
    if one_of(q.get("status"), CHARGE_STATUSES, "status"):
        where.on("status", "{c} = ?", q["status"])
    for name in ("account_id", "merchant_id", "original_charge_id"):
        if q.get(name):
            where.on(name, "{c} = ?", q[name])
    if (start := instant(q.get("created_from"), "created_from")) is not None:
        where.on("ts", "{c} >= ?", start)
    if (end := instant(q.get("created_to"), "created_to")) is not None:
        where.on("ts", "{c} < ?", end)
    if (low := amount(q.get("min_amount"), "min_amount")) is not None:
        where.on("amount_cents", "{c} >= ?", low)
    if (high := amount(q.get("max_amount"), "max_amount")) is not None:
        where.on("amount_cents", "{c} <= ?", high)
    if one_of(q.get("method"), METHODS, "method"):
        where.on("method", "{c} = ?", q["method"])
    if q.get("last4") is not None:
        if not _LAST4.match(q["last4"]):
            raise FieldInvalid("last4", "must be exactly four digits")
        where.on("last4", "{c} = ?", q["last4"])
    if one_of(q.get("charge_type"), CHARGE_TYPES, "charge_type"):
        where.on("charge_type", "{c} = ?", q["charge_type"])
    if q.get("captured") is not None:
        where.on("captured", "{c} = ?", int(q["captured"]))
    if q.get("charge_id") is not None:
        prefix = q["charge_id"].strip().lower()
        if not _HEX_PREFIX.match(prefix):
            raise FieldInvalid("charge_id", "must be a prefix of at least 4 hex characters")
        where.on("charge_id", "{c} >= ? AND {c} < ?", prefix, prefix + "g")
    return where


def _count(conn: sqlite3.Connection, sql: str, params: list[Any] | tuple[Any, ...]) -> int:
    return int(conn.execute(sql, params).fetchone()[0])


def kept_count(conn: sqlite3.Connection, name: str, value: Any) -> int:
    """The charges holding `value` in column `name` (or tag `value`), kept by triggers."""
    row = conn.execute(
        "SELECT n FROM charge_counts WHERE name = ? AND value = ?", (name, value)
    ).fetchone()
    return int(row[0]) if row else 0


def column_count(conn: sqlite3.Connection, where: Where, column: str) -> int:
    """The charges matching `where`'s terms on `column`: kept for one value, else counted from
    the column's index alone."""
    only = where.only(column)
    if column in COUNTED_COLUMNS and where.equals(column):
        return kept_count(conn, column, only.params[0])
    return _count(conn, f"SELECT COUNT(*) FROM charges{only.sql()}", only.params)


#: `charges_account_status` (account, status, id, amount): under one account and status the
#: count walks it in id order without reading a row (amount checked in it, tags probed in id
#: order, which keeps the probed pages hot).
COUNT_INDEX = ("account_id", "status")


@dataclass
class Plan:
    """How to run one charge search: WHERE for the page and the count, sort or walk."""

    page: Where
    page_driver: str | None
    count: Where | None
    count_driver: str | tuple[str, ...] | None
    total: int | None
    force_sort: bool
    #: Labels joined to the count (the others are terms of `count`).
    count_joins: list[Label] = field(default_factory=list)

    def count_sql(self) -> tuple[str, list[Any]]:
        """The exact total's statement and parameters (when `total` is not known already)."""
        assert self.count is not None
        joins = "".join(label.join(f"j{i}") for i, label in enumerate(self.count_joins))
        params = [param for label in self.count_joins for param in label.params]
        sql = f"SELECT COUNT(*) FROM charges{joins}{self.count.sql(self.count_driver)}"
        return sql, [*params, *self.count.params]


def plan_charge_search(
    conn: sqlite3.Connection,
    where: Where,
    found: list[Label],
    rows_wanted: int,
    sort_column: str = "ts",
) -> Plan:
    """Pick the cheapest way through the indexes, from exact counts instead of SQLite's averages.

    SQLite's statistics only know the average number of charges per status, tag, merchant..., so
    it may walk the merchant index (50,000 rows) for "chargebacks of this merchant" (150 rows).
    Here each filter's match count is exact and cheap (an index-only count), and:

    - the rarest column filter becomes the driver: the others are written `+column` so SQLite
      checks them per row instead of preferring their index;
    - of three shapes, the one touching the fewest rows wins: walk the sort order's index and
      stop after a page (about rows_wanted / selectivity rows), let the rarest tag/attribute's id
      list drive (its size), or let the driving column's index drive (its count), sorting after.
    """
    total_rows = _count(conn, "SELECT COALESCE(MAX(id), 0) FROM charges", ()) or 1
    sizes = [label.size(conn) for label in found]
    per_column = {column: column_count(conn, where, column) for column in where.indexed_columns()}
    driver = min(per_column, key=per_column.__getitem__) if per_column else None
    if driver is None:
        column_rows = float(total_rows)
    else:
        column_rows = float(per_column[driver])
        for column, size in per_column.items():
            if column != driver:
                column_rows *= size / total_rows
    estimate = column_rows
    for size in sizes:
        estimate *= size / total_rows
    # Every row walked also probes each tag / attribute / name condition (an index search each).
    walk = min(float(total_rows), rows_wanted * total_rows / max(estimate, 1.0)) * (1 + len(found))
    rarest = min(range(len(found)), key=sizes.__getitem__) if found else -1
    by_label = 2.0 * sizes[rarest] if found else float("inf")
    by_columns = 2.0 * per_column[driver] if driver is not None else float("inf")

    def combined(drive_label: bool) -> Where:
        result = where.copy()
        for index, label in enumerate(found):
            term = (
                label.in_term() if drive_label and index == rarest else label.exists_term("charges")
            )
            result.add(term, *label.params)
        return result

    exists_only = combined(drive_label=False)
    label_driven = combined(drive_label=True) if found else exists_only
    best = min(walk, by_label, by_columns)
    # "" matches no column: every column term is written +column, so the label id list drives.
    # A walk of the sort order's index writes a range on another column +column too (else SQLite
    # would rather read every match of that index and sort them: 12,800 for amount:100..250).
    page_driver: str | None
    if best == by_label:
        page, page_driver = label_driven, ""
    elif best == walk and driver is not None and driver != sort_column and where.ranges(driver):
        page, page_driver = exists_only, sort_column
    else:
        # An equality's index (column, ts, charge_id) is walked in time order as it is.
        page, page_driver = exists_only, driver
    plan = Plan(page, page_driver, None, None, None, force_sort=best != walk)
    if not found and len(per_column) <= 1:
        plan.total = per_column[driver] if driver is not None else total_rows
    elif not per_column and len(found) == 1:
        plan.total = sizes[0]
    elif found and sizes[rarest] < (per_column[driver] if driver is not None else total_rows):
        plan.count, plan.count_driver = label_driven, ""
    else:
        # The driver's index, each label joined (a name, which may match twice, as EXISTS).
        plan.count = where.copy()
        for label in found:
            if label.repeats:
                plan.count.add(label.exists_term("charges"), *label.params)
            else:
                plan.count_joins.append(label)
        plan.count_driver = driver
        if driver in COUNT_INDEX and all(where.equals(column) for column in COUNT_INDEX):
            plan.count_driver = COUNT_INDEX
    return plan


def charge_order(sort: str | None, *, force_sort: bool = False) -> str:
    """ORDER BY for `sort`; ties always fall back to timestamp and id in the same direction.

    `force_sort` writes the terms as `+column`, which SQLite cannot serve from an index, so it
    sorts the (few) matching rows instead of walking the whole ordering index.
    """
    sort = sort or "-charge_timestamp"
    descending = sort.startswith("-")
    column = SORT_COLUMNS.get(sort.lstrip("-"))
    if column is None:
        raise FieldInvalid("sort", f"must be one of {', '.join(SORT_COLUMNS)} (optionally with -)")
    direction = "DESC" if descending else "ASC"
    columns = (
        [column] if column == "charge_id" else list(dict.fromkeys([column, "ts", "charge_id"]))
    )
    plus = "+" if force_sort else ""
    return " ORDER BY " + ", ".join(f"{plus}{name} {direction}" for name in columns)


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


def _docs(conn: sqlite3.Connection, ids: list[int]) -> list[str]:
    """The stored docs of `ids`, in that order."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    found = dict(conn.execute(f"SELECT id, doc FROM charge_docs WHERE id IN ({marks})", ids))
    return [found[i] for i in ids]


def search_charges(conn: sqlite3.Connection, q: dict[str, Any], limit: int, offset: int) -> str:
    """One page of charges (newest first unless `sort`) with the total count."""
    charge_order(q.get("sort"))  # validate before any work
    found = labels("charge", q.get("tag") or [], q.get("attribute") or [])
    found += name_labels(q.get("contact_name"))
    sort_column = SORT_COLUMNS[(q.get("sort") or "-charge_timestamp").lstrip("-")]
    plan = plan_charge_search(conn, charge_where(q), found, limit + offset, sort_column)
    order = charge_order(q.get("sort"), force_sort=plan.force_sort)
    # The ids first, then their docs: were the doc in the sorted SELECT, SQLite would read the
    # doc of every matching row into its sorter (thousands of kilobyte docs for a page of 100).
    ids = [
        row[0]
        for row in conn.execute(
            f"SELECT id FROM charges{plan.page.sql(plan.page_driver)}{order} LIMIT ? OFFSET ?",
            [*plan.page.params, limit, offset],
        )
    ]
    docs = _docs(conn, ids)
    total = plan.total
    if total is None:
        total = _count(conn, *plan.count_sql())
    return envelope(docs, total, limit, offset)


def search_refunds(conn: sqlite3.Connection, q: dict[str, Any], limit: int, offset: int) -> str:
    where = Where()
    for name in ("charge_id", "account_id"):
        if q.get(name):
            where.add(f"{name} = ?", q[name])
    for label in labels("refund", q.get("tag") or [], q.get("attribute") or []):
        where.add(label.in_term(), *label.params)
    if (start := instant(q.get("created_from"), "created_from")) is not None:
        where.add("ts >= ?", start)
    if (end := instant(q.get("created_to"), "created_to")) is not None:
        where.add("ts < ?", end)
    return page(conn, "doc", "refunds", where, " ORDER BY ts DESC, refund_id DESC", limit, offset)
