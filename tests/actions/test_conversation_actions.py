"""Closing a conversation and sending a message go through the one executor and journal: sent
once, read back when the answer is lost ("not applied" only after the deadline), a refusal
recorded and final, gated by scope and read-only; the read-back trusts only what the service
shows (the second service keeps no attributes and says `resolved`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from paytui.actions.errors import ActionRefused, PrecheckFailed, RecentlyDone
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.operation import NoParams
from paytui.actions.ops import conversation as ops
from paytui.actions.policy import ActionPolicy
from paytui.api.client import PaymentClient
from paytui.api.conversations import closed_state, conversation_id_of, read_thread
from paytui.sandbox.faults import Faults
from tests.actions.support import FakeClock, WireTransport, clocked_executor
from tests.second_service.fixtures import client_for


async def _open_ids(client: PaymentClient) -> list[str]:
    page = await client.list_conversations_page(status="open", limit=100)
    return [cid for item in page.items if (cid := conversation_id_of(item))]


async def test_send_and_close_exactly_once_with_lost_answers(
    executor: ActionExecutor, client: PaymentClient, wire: WireTransport, sandbox_faults: Faults
) -> None:
    first, second, *_ = await _open_ids(client)
    sent = await executor.run(
        "send_message", first, ops.MessageParams("We refunded the 12.50.\nSam")
    )
    assert sent.state == "succeeded" and sent.result_id and sent.result_id.startswith("msg_")
    (post,) = wire.posts("/messages")
    assert post.body == {
        "conversation_id": first,
        "body": "We refunded the 12.50.\nSam",
        "attributes": {"paytui_ref": [sent.client_reference]},
    }
    thread = await read_thread(client, first)
    assert thread.entries[-1].text == "We refunded the 12.50.\nSam"
    assert thread.entries[-1].side == "us" and thread.unreadable == 0
    # The same text again needs "again": nothing is sent.
    with pytest.raises(RecentlyDone):
        await executor.run("send_message", first, ops.MessageParams("We refunded the 12.50.\nSam"))
    assert len(wire.posts("/messages")) == 1
    with pytest.raises(PrecheckFailed, match="empty"):
        await executor.run("send_message", first, ops.MessageParams("  \n"))

    # The answer is lost after the commit: found by its reference, never sent twice.
    sandbox_faults.drop_after_commit = {"message", "close"}
    lost = await executor.run("send_message", first, ops.MessageParams("Anything else?"))
    assert lost.state == "succeeded" and lost.reconciled
    assert [e.text for e in (await read_thread(client, first)).entries].count("Anything else?") == 1
    closed = await executor.run("close_conversation", first, NoParams())
    assert closed.state == "succeeded" and closed.reconciled and closed.result_id == first
    sandbox_faults.drop_after_commit = set()
    assert closed_state(await client.get_object("conversations", first)) is True
    assert len(wire.posts("/messages")) == 2 and len(wire.posts("/close")) == 1

    # The request dies before the service commits: "not applied", proven after the deadline.
    wire.post_timeout, wire.abandon = 0, False
    died = await executor.run("send_message", second, ops.MessageParams("Are you still there?"))
    wire.post_timeout, wire.abandon = None, True
    assert died.state == "not_applied" and died.retryable
    assert "Are you still there?" not in [
        e.text for e in (await read_thread(client, second)).entries
    ]

    # Closed: the registry's rule (the key's) refuses both writes before anything is sent,
    # and the refusal is kept in the audit trail.
    with pytest.raises(PrecheckFailed, match="conversation is closed"):
        await executor.run("close_conversation", first, NoParams())
    with pytest.raises(PrecheckFailed, match="conversation is closed"):
        await executor.run("send_message", first, ops.MessageParams("One more thing"))
    assert len(wire.posts("/messages")) == 3 and len(wire.posts("/close")) == 1  # none more
    (last, *_) = executor.journal.audit(operation="send_message", outcome="refused")
    assert last.charge_id == first and last.reason == "The conversation is closed"


def executor_name(operation: str) -> str:
    return {"close": "close_conversation", "send": "send_message"}[operation]


@pytest.mark.parametrize(
    ("policy", "operation", "reason"),
    [
        (ActionPolicy(read_only=True), "close", "read-only"),
        (ActionPolicy(granted_scopes=frozenset({"urn:v2:messages:all"})), "close", "conversations"),
        (ActionPolicy(granted_scopes=frozenset({"urn:v2:conversations:all"})), "send", "messages"),
    ],
)
async def test_scope_and_read_only_refuse_and_record(
    client: PaymentClient,
    journal: Journal,
    clock: FakeClock,
    wire: WireTransport,
    policy: ActionPolicy,
    operation: str,
    reason: str,
) -> None:
    executor = clocked_executor(client, journal, clock, policy)
    (cid, *_) = await _open_ids(client)
    with pytest.raises(ActionRefused, match=reason):
        if operation == "close":
            await executor.run("close_conversation", cid, NoParams())
        else:
            await executor.run("send_message", cid, ops.MessageParams("Hello"))
    assert wire.posts() == []
    (refusal,) = [row for row in journal.audit() if row.outcome == "refused"]
    assert (refusal.operation, refusal.charge_id) == (executor_name(operation), cid)
    await executor.aclose()


async def test_the_second_service_choices_are_read_and_proven(
    second_service: object, tmp_path: Path
) -> None:
    service = second_service()  # type: ignore[operator]
    async with client_for(service) as client:
        listed = await client.list_conversations_page(limit=50)
        ids = [conversation_id_of(c) for c in listed.items]
        assert ids == ["conv-0001", "conv-0004"]
        states = [closed_state(c) for c in listed.items]
        assert states == [False, True]  # active, resolved
        charge_id = service.store.charges[0].charge_id
        # The service ignores the filter: the rows are checked here, by the link they show.
        mine = await client.list_conversations_page(charge_id=charge_id)
        assert [conversation_id_of(c) for c in mine.items] == ["conv-0001"]
        assert mine.ignored_filters == ("charge_id",)
        # No /items: the thread is its messages (their filter ignored too, checked per row).
        thread = await read_thread(client, "conv-0001")
        assert [(e.side, e.text) for e in thread.entries] == [
            ("customer", "Hello, was I charged twice?"),
            ("us", "No: one charge, one hold."),
        ]
        with Journal(tmp_path / "journal.sqlite3") as journal:
            executor = ActionExecutor(client, journal, ActionPolicy(), profile="p", base_url="u")
            sent = await executor.run(
                "send_message", "conv-0001", ops.MessageParams("It is a hold, released in 3 days.")
            )
            assert sent.state == "succeeded" and sent.result_id and sent.result_id.startswith("msg")
            entry = journal.get(sent.entry_id)
            assert entry is not None
            # It keeps no attributes: the read-back finds the message by its exact text.
            found = await ops.read_back_send(client, entry, None)
            assert (found.state, found.result_id) == ("succeeded", sent.result_id)
            other = await ops.read_back_send(client, entry, {"body": "Never sent"})
            assert other.state == "not_applied"
            closed = await executor.run("close_conversation", "conv-0001", NoParams())
            assert closed.state == "succeeded"
            await executor.aclose()


async def test_a_message_the_client_cannot_read_is_never_proof_of_absence(
    executor: ActionExecutor, client: PaymentClient, sandbox_db: Path
) -> None:
    """A service whose message keeps our reference but holds its text under a key paytui does
    not know is still our message (never "not applied", which invites a second send); a row
    that cannot be read at all may be ours: absence is then not proven."""
    import sqlite3

    from paytui.actions.read_backs import Unprovable

    first, *_ = await _open_ids(client)
    sent = await executor.run("send_message", first, ops.MessageParams("It is a hold."))
    entry = executor.journal.get(sent.entry_id)
    assert sent.state == "succeeded" and entry is not None
    with sqlite3.connect(sandbox_db) as db:  # the service's other shape: the text as `content_html`
        (doc,) = db.execute("SELECT doc FROM messages WHERE message_id = ?", (sent.result_id,))
        shape = json.loads(doc[0])
        shape["content_html"] = shape.pop("body")
        db.execute(
            "UPDATE messages SET doc = ? WHERE message_id = ?", (json.dumps(shape), sent.result_id)
        )
    found = await ops.read_back_send(client, entry, None)
    assert (found.state, found.result_id) == ("succeeded", sent.result_id)
    # Another send's reference and text show nowhere, but that row is no message paytui can
    # read: it could be this one, so absence is not proven.
    other = dataclasses.replace(entry, client_reference="ref-of-another-send")
    with pytest.raises(Unprovable, match="could not be read"):
        await ops.read_back_send(client, other, {"body": "Never sent"})
