"""Customers, partners and devices: families whose shapes the spec does not show.

The spec lists their scopes (`urn:v2:customers:all`, `urn:v2:partners:read`, `urn:v2:devices:all`)
and says nothing more, so the sandbox serves a small, fixed, plausible list of each — enough for
paytui's browser (docs/families.md) to have something to read — documented in
docs/api-assumptions.md "Customers, partners and devices". Partners and devices are not in the
database: nothing writes them, and every sandbox shows the same few. Customers are (the
`customers` table, seeded with the same few by every `Store`): `PATCH /v2/customers/{id}`
changes a customer's email and phone (`update_customer`), and a read afterwards shows it.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from paytui.sandbox.errors import NotFound

if TYPE_CHECKING:
    from paytui.sandbox.store import Store

__all__ = [
    "FAMILY_DATA",
    "customers_page",
    "envelope",
    "find",
    "get_customer",
    "page",
    "seed_customers",
    "update_customer",
]

_TS = "2026-01-{day:02d}T09:{minute:02d}:00.000Z"

CUSTOMERS: list[dict[str, Any]] = [
    {
        "customer_id": f"cu_{index:020d}",
        "first_name": first,
        "last_name": last,
        "email": f"{first.lower()}.{last.lower()}@example.com",
        "created_timestamp": _TS.format(day=index + 1, minute=index),
        "tags": tags,
        "attributes": {},
    }
    for index, (first, last, tags) in enumerate(
        [
            ("Ada", "Lovelace", ["vip"]),
            ("Grace", "Hopper", []),
            ("Edsger", "Dijkstra", ["wholesale"]),
            ("Barbara", "Liskov", []),
            ("Alan", "Turing", ["vip", "phone"]),
            ("Katherine", "Johnson", []),
        ],
        start=1,
    )
]
PARTNERS: list[dict[str, Any]] = [
    {
        "partner_id": f"pt_{index:020d}",
        "name": name,
        "status": status,
        "created_timestamp": _TS.format(day=index, minute=0),
    }
    for index, (name, status) in enumerate(
        [
            ("North Shore ISV", "active"),
            ("Harbor Payments Group", "active"),
            ("Old Mill POS", "inactive"),
        ],
        start=1,
    )
]
DEVICES: list[dict[str, Any]] = [
    {
        "device_id": f"dv_{index:020d}",
        "name": name,
        "model": model,
        "serial_number": f"SN-{4100 + index}",
        "status": status,
        "last_seen_timestamp": _TS.format(day=20 + index, minute=15),
    }
    for index, (name, model, status) in enumerate(
        [
            ("Front counter", "Countertop T2", "online"),
            ("Patio", "Handheld H1", "online"),
            ("Back office", "Countertop T2", "offline"),
            ("Delivery van", "Handheld H1", "online"),
        ],
        start=1,
    )
]

#: family -> (its objects, the id key).
FAMILY_DATA: dict[str, tuple[list[dict[str, Any]], str]] = {
    "customers": (CUSTOMERS, "customer_id"),
    "partners": (PARTNERS, "partner_id"),
    "devices": (DEVICES, "device_id"),
}


def page(family: str, limit: int, offset: int) -> dict[str, Any]:
    """One page in the sandbox's list envelope."""
    return envelope(FAMILY_DATA[family][0], limit, offset)


def envelope(items: list[dict[str, Any]], limit: int, offset: int) -> dict[str, Any]:
    """A page of a list held whole, in the sandbox's list envelope."""
    chunk = items[offset : offset + limit]
    return {
        "data": chunk,
        "total": len(items),
        "limit": limit,
        "offset": offset,
        "has_more": offset + len(chunk) < len(items),
    }


def find(family: str, object_id: str) -> dict[str, Any] | None:
    items, key = FAMILY_DATA[family]
    return next((item for item in items if item[key] == object_id), None)


# -- customers, in the database ----------------------------------------------------------------


def seed_customers(conn: sqlite3.Connection) -> None:
    """The fixed customers, in a database that lacks them (a change made since is kept)."""
    from paytui.sandbox.store import dumps

    conn.executemany(
        "INSERT OR IGNORE INTO customers VALUES (?, ?, ?)",
        [(c["customer_id"], c["created_timestamp"], dumps(c)) for c in CUSTOMERS],
    )


def customers_page(store: Store, limit: int, offset: int) -> dict[str, Any]:
    from paytui.sandbox.store import loads_doc

    with store.read() as conn:
        rows = conn.execute("SELECT doc FROM customers ORDER BY created_ts, customer_id").fetchall()
    return envelope([loads_doc(doc) for (doc,) in rows], limit, offset)


def _customer(conn: sqlite3.Connection, customer_id: str) -> dict[str, Any]:
    from paytui.sandbox.store import loads_doc

    row = conn.execute("SELECT doc FROM customers WHERE customer_id = ?", (customer_id,)).fetchone()
    if row is None:
        raise NotFound(f"customer {customer_id} not found")
    return loads_doc(row[0])


def get_customer(store: Store, customer_id: str) -> dict[str, Any]:
    with store.read() as conn:
        return _customer(conn, customer_id)


def update_customer(store: Store, customer_id: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Replace the email and/or phone given (`models.CustomerPatch` checked them); the rest is
    kept."""
    from paytui.sandbox.store import dumps

    with store.write() as conn:
        doc = _customer(conn, customer_id)
        doc.update(fields)
        doc["last_updated_timestamp"] = store.now_iso()
        conn.execute(
            "UPDATE customers SET doc = ? WHERE customer_id = ?", (dumps(doc), customer_id)
        )
    return doc
