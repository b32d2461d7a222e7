"""A conversation's thread is read from whatever plausible shape the service sends, oldest
first; an odd item is an unreadable row (counted); open or closed only from what it shows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from paytui.api.client import PaymentClient
from paytui.api.conversations import as_time, closed_state, entry_of, read_thread
from paytui.api.families import GenericObject

ITEMS: list[Any] = [
    {
        "item_id": "i2",
        "type": "message",
        "body": "No: one charge, one hold.",
        "direction": "outbound",
        "author": {"name": "Sam", "role": "agent"},
        "created_timestamp": "2026-10-02T09:20:00.000Z",
    },
    {  # another service's shape: nested, other names, a naive time
        "id": "i1",
        "kind": "message",
        "message": {
            "text": "Was I charged twice?",
            "sender": "Ada Lovelace",
            "sent_at": "2026-10-02T09:10:00",
        },
        "direction": "incoming",
    },
    {"id": "i3", "event": "resolved", "created_at": "2026-10-02T09:30:00Z"},
    5,  # not an object
    {"id": "i4", "type": "message", "attachments": []},  # nothing to read as a line
]


async def test_any_plausible_shape_reads_as_a_thread_and_odd_items_are_counted() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v2/conversations/cv_1/items"
        return httpx.Response(200, json={"items": ITEMS, "total": len(ITEMS)})

    async with PaymentClient(
        "http://x.test", token="t", transport=httpx.MockTransport(handle)
    ) as client:
        thread = await read_thread(client, "cv_1")
    assert [(e.side, e.who, e.text, e.kind) for e in thread.entries] == [
        ("customer", "Ada Lovelace", "Was I charged twice?", "message"),
        ("us", "Sam", "No: one charge, one hold.", "message"),
        ("", None, "resolved", "event"),
    ]
    assert thread.unreadable == 2
    assert all(e.at is not None and e.at.tzinfo is not None for e in thread.entries)


def test_open_or_closed_only_from_what_the_conversation_shows() -> None:
    def state(**fields: Any) -> bool | None:
        return closed_state(GenericObject.model_validate({"id": "c", **fields}))

    assert state(status="closed") is state(state="Resolved") is True
    assert state(status="open", closed_timestamp="2026-01-01T00:00:00Z") is False  # reopened
    assert state(closed_at="2026-01-01T00:00:00Z") is True
    assert state(status="snoozed") is None and state() is None


def test_a_time_at_the_edge_of_the_calendar_is_no_time_not_a_crash() -> None:
    """Year 9999 west of UTC (or year 1 east of it) has no UTC form: one such row made every
    listing of its conversation fail ("date value out of range"); it shows no time instead."""
    import io

    from paytui.commands.conversations import thread_columns
    from paytui.exporter import write_listing

    assert as_time("9999-12-31T23:59:59-23:59") is None
    assert as_time("0001-01-01T00:00:00+23:59") is None
    assert as_time("2026-10-02T09:10:00+02:00") == datetime(2026, 10, 2, 7, 10, tzinfo=UTC)
    entry = entry_of(
        {"id": "m1", "body": "Hello", "created_timestamp": "9999-12-31T23:59:59-23:59"}
    )
    assert entry is not None and entry.at is None
    for fmt in ("table", "csv", "json"):
        out = io.StringIO()
        write_listing(out, [entry], fmt, thread_columns())
        assert "Hello" in out.getvalue()


async def test_a_customer_is_found_by_email_whatever_its_case_folding() -> None:
    """The email is compared case-folded on both sides: "straße" typed (and lower-cased by the
    jump line) finds the customer the service spells "STRASSE"."""
    from paytui.api.conversations import customer_conversations

    customer = {"customer_id": "cu_1", "first_name": "Jörg", "last_name": "Weiß"}
    conversation = {"conversation_id": "cv_1", "status": "open", "customer_id": "cu_1"}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/customers":
            data = [{**customer, "email": "JOERG@STRASSE.EXAMPLE"}]
            return httpx.Response(200, json={"data": data, "total": 1})
        assert request.url.path == "/v2/conversations"
        return httpx.Response(200, json={"data": [conversation], "total": 1})

    async with PaymentClient(
        "http://x.test", token="t", transport=httpx.MockTransport(handle)
    ) as client:
        found, notes = await customer_conversations(client, email="joerg@straße.example")
    assert [c.fields()["conversation_id"] for c in found] == ["cv_1"], notes
