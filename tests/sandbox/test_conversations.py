"""Channels, conversations and messages in the sandbox: demo threads, closing, sending, scopes."""

from __future__ import annotations

import httpx
import pytest

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.faults import operation_of
from tests.sandbox.helpers import get_token


async def test_demo_threads_link_customers_and_charges_some_about_chargebacks(
    api: httpx.AsyncClient,
) -> None:
    channels = (await api.get("/v2/channels")).json()["data"]
    assert {c["type"] for c in channels} == {"email", "sms", "chat"}
    listed = (await api.get("/v2/conversations", params={"limit": 100})).json()
    conversations = listed["data"]
    assert listed["total"] == len(conversations) >= 8
    assert {c["status"] for c in conversations} == {"open", "closed"}
    disputed = [c for c in conversations if "chargeback" in c["tags"]]
    assert 1 <= len(disputed) <= 4
    charge = (await api.get(f"/v2/charges/{disputed[0]['charge_id']}")).json()
    assert charge["status"] == "chargeback"
    customer = (await api.get(f"/v2/customers/{disputed[0]['customer_id']}")).json()
    name = f"{customer['first_name']} {customer['last_name']}"
    assert disputed[0]["participants"][0]["name"] == name
    # Filters: by customer and by charge, each proven on every row.
    mine = await api.get("/v2/conversations", params={"customer_id": customer["customer_id"]})
    assert mine.json()["data"] and all(
        c["customer_id"] == customer["customer_id"] for c in mine.json()["data"]
    )
    about = await api.get("/v2/conversations", params={"charge_id": charge["charge_id"]})
    assert [c["conversation_id"] for c in about.json()["data"]] == [disputed[0]["conversation_id"]]
    # The thread, oldest first, every message in the conversation's own list too.
    cid = disputed[0]["conversation_id"]
    items = (await api.get(f"/v2/conversations/{cid}/items")).json()["data"]
    stamps = [i["created_timestamp"] for i in items]
    assert stamps == sorted(stamps) and len(items) >= 3
    assert {i["direction"] for i in items if i["type"] == "message"} == {"inbound", "outbound"}
    messages = (await api.get("/v2/messages", params={"conversation_id": cid})).json()["data"]
    assert [m["message_id"] for m in messages] == [
        i["message_id"] for i in items if i["type"] == "message"
    ]
    one = await api.get(f"/v2/messages/{messages[0]['message_id']}")
    assert one.json() == messages[0]
    assert (await api.get("/v2/conversations", params={"status": "shut"})).status_code == 422


async def test_send_then_close_then_refuse_more(api: httpx.AsyncClient) -> None:
    listed = await api.get("/v2/conversations", params={"status": "open", "limit": 1})
    cid = listed.json()["data"][0]["conversation_id"]
    sent = await api.post(
        "/v2/messages",
        json={"conversation_id": cid, "body": "We refunded it.", "attributes": {"ref": ["x1"]}},
    )
    assert sent.status_code == 201, sent.text
    message = sent.json()
    assert (message["direction"], message["attributes"]) == ("outbound", {"ref": ["x1"]})
    items = (await api.get(f"/v2/conversations/{cid}/items")).json()["data"]
    assert items[-1]["message_id"] == message["message_id"]
    closed = await api.post(f"/v2/conversations/{cid}/close", json={})
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert closed.json()["closed_timestamp"]
    items = (await api.get(f"/v2/conversations/{cid}/items")).json()["data"]
    assert (items[-1]["type"], items[-1]["event"]) == ("event", "closed")
    again = await api.post(f"/v2/conversations/{cid}/close")
    late = await api.post("/v2/messages", json={"conversation_id": cid, "body": "One more"})
    assert (again.status_code, late.status_code) == (409, 409)
    blank = await api.post("/v2/messages", json={"conversation_id": cid, "body": "  "})
    long = await api.post("/v2/messages", json={"conversation_id": cid, "body": "x" * 4001})
    nowhere = await api.post("/v2/messages", json={"conversation_id": "cv_none", "body": "Hi"})
    assert (blank.status_code, long.status_code, nowhere.status_code) == (422, 422, 404)
    # The rest of the family: a channel, a conversation on it, a new subject.
    channel = await api.post("/v2/channels", json={"name": "Phone notes", "type": "chat"})
    opened = await api.post(
        "/v2/conversations",
        json={"channel_id": channel.json()["channel_id"], "subject": "Hello"},
    )
    assert opened.status_code == 201 and opened.json()["status"] == "open"
    renamed = await api.patch(
        f"/v2/conversations/{opened.json()['conversation_id']}", json={"subject": "Hi"}
    )
    assert renamed.json()["subject"] == "Hi"


@pytest.mark.parametrize(
    ("scope", "method", "path", "allowed"),
    [
        ("urn:v2:conversations:all", "GET", "/v2/conversations", True),
        ("urn:v2:conversations:all", "POST", "/v2/conversations/cv_x/close", True),
        ("urn:v2:conversations:all", "PATCH", "/v2/conversations/cv_x", True),
        ("urn:v2:conversations:all", "GET", "/v2/messages", False),
        ("urn:v2:messages:all", "POST", "/v2/messages", True),
        ("urn:v2:messages:all", "GET", "/v2/conversations/cv_x/items", False),
        ("urn:v2:channels:all", "GET", "/v2/channels", True),
        ("urn:v2:channels:all", "POST", "/v2/messages", False),
        ("urn:v2:charges:all", "GET", "/v2/conversations", False),
    ],
)
async def test_the_scope_table_gates_each_family(
    anon: httpx.AsyncClient, scope: str, method: str, path: str, allowed: bool
) -> None:
    token = await get_token(anon, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, scope=scope)
    response = await anon.request(
        method,
        path,
        json={} if method != "GET" else None,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert (response.status_code != 403) is allowed, response.text
    # DELETE is granted by no scope of these families: routing answers, never a 403 naming none.
    if not allowed:
        assert response.json()["required_scopes"]


def test_the_fault_switches_name_the_two_writes() -> None:
    assert operation_of("POST", "/v2/messages") == "message"
    assert operation_of("POST", "/v2/conversations/cv_1/close") == "close"
    assert operation_of("GET", "/v2/conversations/cv_1/items") is None
