"""Channels, conversations and messages: the sandbox's store of them and its demo threads.

The spec grants their scopes (`urn:v2:channels:all`, `urn:v2:conversations:all`,
`urn:v2:messages:all`) and shows nothing more, so the shapes here are the sandbox's plausible
choice, written down in docs/api-assumptions.md "Channels, conversations and messages":

- a channel: ``channel_id``, ``name``, ``type`` (email, sms, chat), ``status``, a time;
- a conversation: ``conversation_id``, ``channel_id``, ``status`` (``open`` / ``closed``),
  ``subject``, ``participants``, optional links (``customer_id``, ``merchant_id``,
  ``charge_id``), its times (``closed_timestamp`` once closed), tags and attributes;
- a message: ``message_id``, ``conversation_id``, ``body``, ``direction`` (``inbound`` from the
  customer, ``outbound`` from the merchant's side), ``author``, ``created_timestamp`` and the
  ``attributes`` it was sent with (kept as sent, so a client's own marker comes back);
- a conversation's items (``/items``): its messages and its events (closing), oldest first.

Unlike customers, partners and devices they are in the database: closing a conversation and
sending a message change them. The demo threads (`seed_rows`) come from their own random stream,
so adding them left every charge of the demo data as it was.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from paytui.sandbox import search
from paytui.sandbox.errors import Conflict, NotFound
from paytui.sandbox.families import CUSTOMERS, envelope
from paytui.sandbox.store import Store, dumps, loads_doc
from paytui.sandbox.wire import iso_ms, money_out, parse_instant, prefixed_id

__all__ = [
    "CHANNELS",
    "CONVERSATION_STATUSES",
    "close",
    "create_channel",
    "create_conversation",
    "get_doc",
    "items_page",
    "patch_conversation",
    "seed_rows",
    "send_message",
]

CONVERSATION_STATUSES = ("open", "closed")
DIRECTIONS = ("inbound", "outbound")
AGENT = {"name": "Sam (support)", "role": "agent"}

CHANNELS: list[dict[str, Any]] = [
    {
        "channel_id": f"ch_{index:020d}",
        "name": name,
        "type": kind,
        "status": "active",
        "created_timestamp": f"2026-01-0{index}T08:00:00.000Z",
    }
    for index, (name, kind) in enumerate(
        [("Support email", "email"), ("Text messages", "sms"), ("Web chat", "chat")], start=1
    )
]

#: One key per table: what `get_doc` reads.
_KEYS = {"channels": "channel_id", "conversations": "conversation_id", "messages": "message_id"}
_NOUNS = {"channels": "channel", "conversations": "conversation", "messages": "message"}


def get_doc(store: Store, table: str, object_id: str) -> dict[str, Any]:
    """One channel, conversation or message (404 naming it when there is none)."""
    key = _KEYS[table]
    with store.read() as conn:
        row = conn.execute(
            f"SELECT doc FROM {table} WHERE {key} = ?",  # constant names
            (object_id,),
        ).fetchone()
    if row is None:
        raise NotFound(f"{_NOUNS[table]} {object_id} not found")
    return loads_doc(row[0])


def items_page(store: Store, conversation_id: str, limit: int, offset: int) -> dict[str, Any]:
    """A conversation's messages and events as one list, oldest first (404 for no such one)."""
    get_doc(store, "conversations", conversation_id)
    with store.read() as conn:
        rows = conn.execute(
            "SELECT ts, message_id, 'message', doc FROM messages WHERE conversation_id = ?"
            " UNION ALL SELECT ts, item_id, 'event', doc FROM conversation_events"
            " WHERE conversation_id = ? ORDER BY 1, 2",
            (conversation_id, conversation_id),
        ).fetchall()
    items = [{"item_id": item_id, "type": kind, **loads_doc(doc)} for _, item_id, kind, doc in rows]
    return envelope(items, limit, offset)


def _event(conversation_id: str, event: str, at: str, author: dict[str, Any]) -> dict[str, Any]:
    return {
        "item_id": prefixed_id("ev_"),
        "conversation_id": conversation_id,
        "event": event,
        "author": author,
        "created_timestamp": at,
    }


def _conversation_row(conn: sqlite3.Connection, conversation_id: str) -> tuple[str, dict[str, Any]]:
    """The status and doc of a conversation, inside the caller's transaction (404: none)."""
    row = conn.execute(
        "SELECT status, doc FROM conversations WHERE conversation_id = ?", (conversation_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"conversation {conversation_id} not found")
    return str(row[0]), loads_doc(row[1])


def _save(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE conversations SET status = ?, doc = ? WHERE conversation_id = ?",
        (doc["status"], dumps(doc), doc["conversation_id"]),
    )


def close(store: Store, conversation_id: str) -> dict[str, Any]:
    """Close an open conversation (409 when it is closed already); a `closed` event is added."""
    now = store.now_iso()
    with store.write() as conn:
        status, doc = _conversation_row(conn, conversation_id)
        if status == "closed":
            raise Conflict(f"conversation {conversation_id} is closed already")
        doc.update(status="closed", closed_timestamp=now, last_updated_timestamp=now)
        _save(conn, doc)
        event = _event(conversation_id, "closed", now, AGENT)
        _insert_event(conn, event)
    return doc


def send_message(store: Store, fields: dict[str, Any]) -> dict[str, Any]:
    """A new message in an open conversation (404: no such conversation; 409: it is closed)."""
    conversation_id = str(fields["conversation_id"])
    now = store.now_iso()
    message = {
        "message_id": prefixed_id("msg_"),
        "conversation_id": conversation_id,
        "body": fields["body"],
        "direction": fields.get("direction") or "outbound",
        "author": fields.get("author") or AGENT,
        "created_timestamp": now,
        "attributes": fields.get("attributes") or {},
    }
    with store.write() as conn:
        status, doc = _conversation_row(conn, conversation_id)
        if status == "closed":
            raise Conflict(f"conversation {conversation_id} is closed; it takes no new message")
        doc.update(last_updated_timestamp=now, last_message_timestamp=now)
        _save(conn, doc)
        _insert_message(conn, message)
    return message


def create_conversation(store: Store, fields: dict[str, Any]) -> dict[str, Any]:
    """A new open conversation on an existing channel."""
    channel = get_doc(store, "channels", str(fields["channel_id"]))
    now = store.now_iso()
    doc = {
        "conversation_id": prefixed_id("cv_"),
        "channel_id": channel["channel_id"],
        "status": "open",
        "subject": fields.get("subject") or "",
        "participants": fields.get("participants") or [AGENT],
        **{k: fields[k] for k in ("customer_id", "merchant_id", "charge_id") if fields.get(k)},
        "created_timestamp": now,
        "last_updated_timestamp": now,
        "tags": fields.get("tags") or [],
        "attributes": fields.get("attributes") or {},
    }
    with store.write() as conn:
        _insert_conversation(conn, doc)
    return doc


def patch_conversation(
    store: Store, conversation_id: str, fields: dict[str, Any]
) -> dict[str, Any]:
    """Replace the subject, tags or attributes given; the rest is kept."""
    with store.write() as conn:
        _, doc = _conversation_row(conn, conversation_id)
        doc.update({k: v for k, v in fields.items() if v is not None})
        doc["last_updated_timestamp"] = store.now_iso()
        _save(conn, doc)
    return doc


def create_channel(store: Store, fields: dict[str, Any]) -> dict[str, Any]:
    doc = {
        "channel_id": prefixed_id("ch_"),
        "name": fields["name"],
        "type": fields.get("type") or "email",
        "status": "active",
        "created_timestamp": store.now_iso(),
    }
    with store.write() as conn:
        conn.execute("INSERT INTO channels VALUES (?, ?, ?)", _channel_values(doc))
    return doc


# One row per table from its doc: what a write and the demo seed insert alike.


def _channel_values(doc: dict[str, Any]) -> tuple[Any, ...]:
    return (doc["channel_id"], doc["created_timestamp"], dumps(doc))


def _conversation_values(doc: dict[str, Any]) -> tuple[Any, ...]:
    return (
        doc["conversation_id"],
        doc["channel_id"],
        doc["status"],
        doc.get("customer_id"),
        doc.get("charge_id"),
        doc["created_timestamp"],
        dumps(doc),
    )


def _item_values(doc: dict[str, Any], key: str) -> tuple[Any, ...]:
    """A message's (`message_id`) or an event's (`item_id`) row."""
    return (doc[key], doc["conversation_id"], doc["created_timestamp"], dumps(doc))


def _insert_conversation(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?, ?)", _conversation_values(doc)
    )


def _insert_message(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
    conn.execute("INSERT INTO messages VALUES (?, ?, ?, ?)", _item_values(doc, "message_id"))


def _insert_event(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO conversation_events VALUES (?, ?, ?, ?)", _item_values(doc, "item_id")
    )


# -- the demo threads --------------------------------------------------------------------------


@dataclass(frozen=True)
class SeedCharge:
    """What a demo thread needs of a seeded charge."""

    charge_id: str
    ts: str
    merchant_id: str
    status: str
    amount_cents: int
    contact_name: str  # casefolded, as the charges table keeps it


#: (subject, lines): `c` the customer, `a` the agent; {amount} and {day} name the charge.
Script = tuple[str, tuple[tuple[str, str], ...]]
CHARGEBACK_THREADS: tuple[Script, ...] = (
    (
        "Chargeback on {amount}",
        (
            ("a", "Hello, we received a chargeback for your payment of {amount} on {day}."
             " Could you tell us what went wrong with the order?"),
            ("c", "I did not recognise the name on my statement, so I called my bank."),
            ("a", "That was us: the statement shows our legal name. Would you withdraw the"
             " dispute with your bank if we send the receipt?"),
            ("c", "Yes, please send it. I will call them tomorrow."),
        ),
    ),
    (
        "Disputed payment of {amount}",
        (
            ("c", "My bank reversed the {amount} payment of {day}. The parcel never came."),
            ("a", "Sorry to hear that. The carrier shows it delivered to a neighbour;"
             " I have asked them for the photo."),
            ("c", "I will wait for the photo before I talk to my bank again."),
        ),
    ),
)  # fmt: skip
CHARGE_THREADS: tuple[Script, ...] = (
    (
        "Receipt for {amount}",
        (
            ("c", "Could I have a receipt for the {amount} I paid on {day}?"),
            ("a", "Of course, it is on its way to your email address."),
            ("c", "Got it, thank you!"),
        ),
    ),
    (
        "Charged twice?",
        (
            ("c", "I see {amount} on {day}. Was I charged twice? My banking app shows two lines."),
            ("a", "Only one payment reached us; the other line is a hold that your bank releases"
             " within a few days."),
        ),
    ),
    (
        "Refund question",
        (
            ("c", "When will the refund of my {amount} order of {day} arrive?"),
            ("a", "Refunds reach your card in 5 to 10 business days."),
            ("c", "OK. And if it is not there by then? [bold red]URGENT[/]\x1b[2J"),
        ),
    ),
)  # fmt: skip


def seed_rows(
    charges: list[SeedCharge], *, seed: int, anchor: datetime
) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of `channels`, `conversations`, `messages` and `conversation_events` for the demo:
    threads with some customers of the `customers` family about their charges, a few about
    chargebacks, some closed. From `random.Random(seed)` alone (not the charges' stream)."""
    rng = random.Random(seed)
    customer_of = {f"{c['first_name']} {c['last_name']}".casefold(): c for c in CUSTOMERS}
    theirs = [c for c in charges if c.contact_name in customer_of and c.amount_cents > 0]
    theirs.sort(key=lambda c: c.ts, reverse=True)  # recent charges: what support talks about
    disputed = [c for c in theirs if c.status == "chargeback"][:4]
    settled = [c for c in theirs if c.status == "success"][:40]
    chosen = [(c, CHARGEBACK_THREADS[i % 2]) for i, c in enumerate(disputed)]
    picks = rng.sample(settled, min(6, len(settled)))
    chosen += [(c, CHARGE_THREADS[i % len(CHARGE_THREADS)]) for i, c in enumerate(picks)]
    rows: dict[str, list[tuple[Any, ...]]] = {
        "channels": [_channel_values(c) for c in CHANNELS],
        "conversations": [],
        "messages": [],
        "conversation_events": [],
    }
    for index, (charge, (subject, lines)) in enumerate(chosen):
        customer = customer_of[charge.contact_name]
        amount = f"{money_out(charge.amount_cents):.2f}"
        start = parse_instant(charge.ts) + timedelta(hours=rng.uniform(20, 60))
        gaps = [timedelta(minutes=rng.uniform(4, 300)) for _ in lines]
        start = min(start, anchor - sum(gaps, timedelta()) - timedelta(hours=1))
        conversation_id = f"cv_{rng.getrandbits(96):024x}"
        name = f"{customer['first_name']} {customer['last_name']}"
        person = {"name": name, "role": "customer"}
        closed = index % 3 == 2
        words = {"amount": amount, "day": charge.ts[:10]}
        moment = start
        stamps = []
        for number, ((who, text), gap) in enumerate(zip(lines, gaps, strict=True), start=1):
            moment += gap
            stamps.append(iso_ms(moment))
            message = {
                "message_id": f"msg_{conversation_id[3:]}{number:03d}",
                "conversation_id": conversation_id,
                "body": text.format(**words),
                "direction": "inbound" if who == "c" else "outbound",
                "author": {**person, "customer_id": customer["customer_id"]}
                if who == "c"
                else AGENT,
                "created_timestamp": stamps[-1],
                "attributes": {},
            }
            rows["messages"].append(_item_values(message, "message_id"))
        doc: dict[str, Any] = {
            "conversation_id": conversation_id,
            "channel_id": CHANNELS[index % len(CHANNELS)]["channel_id"],
            "status": "closed" if closed else "open",
            "subject": subject.format(**words),
            "participants": [{**person, "customer_id": customer["customer_id"]}, AGENT],
            "customer_id": customer["customer_id"],
            "merchant_id": charge.merchant_id,
            "charge_id": charge.charge_id,
            "created_timestamp": iso_ms(start),
            "last_updated_timestamp": stamps[-1],
            "last_message_timestamp": stamps[-1],
            "tags": ["chargeback"] if charge.status == "chargeback" else [],
            "attributes": {},
        }
        if closed:
            at = iso_ms(parse_instant(stamps[-1]) + timedelta(minutes=30))
            doc.update(closed_timestamp=at, last_updated_timestamp=at)
            event = _event(conversation_id, "closed", at, AGENT)
            event["item_id"] = f"ev_{conversation_id[3:]}"
            rows["conversation_events"].append(_item_values(event, "item_id"))
        rows["conversations"].append(_conversation_values(doc))
    return rows


def insert_seed(conn: sqlite3.Connection, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    """Bulk-insert `seed_rows` (inside the seed's one transaction)."""
    for table, values in rows.items():
        if values:
            marks = ", ".join("?" * len(values[0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", values)  # constant names


def list_page(
    store: Store, table: str, filters: dict[str, str | None], limit: int, offset: int
) -> str:
    """A page of channels, conversations or messages, filtered by equality, in the list
    envelope: conversations and channels newest first, messages oldest first (a thread)."""
    where = search.Where()
    for column, value in filters.items():
        if value is not None:
            where.add(f"{column} = ?", value)
    key = _KEYS[table]
    order = (
        f" ORDER BY ts, {key}" if table == "messages" else f" ORDER BY created_ts DESC, {key} DESC"
    )
    with store.read() as conn:
        return search.page(conn, "doc", table, where, order, limit, offset)
