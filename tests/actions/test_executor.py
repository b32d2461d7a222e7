"""ActionExecutor against the real in-process sandbox: happy paths, refusals, the journal."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from paytui.actions.errors import (
    ActionRefused,
    ConfirmationRequired,
    NotRetryable,
    PrecheckFailed,
)
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import labels as labels_op
from paytui.actions.ops import refund as refund_op
from paytui.actions.policy import ActionPolicy
from paytui.actions.reconcile import REF_ATTRIBUTE
from paytui.api.client import PaymentClient
from paytui.api.models import CardPaymentMethodRequest, Charge, ChargeRequest, Contact
from paytui.api.queries import ChargeQuery
from paytui.sandbox import LIMITED_CLIENT_ID, LIMITED_CLIENT_SECRET
from tests.actions.support import (
    BASE_URL,
    HANG_GUARD,
    PROFILE,
    WireTransport,
    captures_of,
    made_for,
    refunds_of,
)

CARD = "4111111111111111"


async def test_capture_happy_path(
    executor: ActionExecutor, client: PaymentClient, authorization: Charge, wire: WireTransport
) -> None:
    outcome = await executor.run(
        "capture", authorization.charge_id, capture_op.Params(convenience_fee=Decimal("1.50"))
    )
    assert outcome.state == "succeeded" and outcome.succeeded
    captures = await captures_of(client, authorization.charge_id)
    assert [c.charge_id for c in captures] == [outcome.result_id]
    assert outcome.charge is not None and outcome.charge.charge_type == "capture"
    entry = executor.journal.get(outcome.entry_id)
    assert entry is not None
    assert (entry.state, entry.result_id) == ("succeeded", outcome.result_id)
    assert entry.amount == authorization.total_amount + Decimal("1.50")
    assert entry.request_summary == {"convenience_fee": "1.50"}
    assert len(wire.posts("/capture")) == 1
    assert outcome.message == f"Captured: new charge {outcome.result_id}"


async def test_capture_explains_what_cannot_be_captured(
    executor: ActionExecutor, client: PaymentClient, sale: Charge, wire: WireTransport
) -> None:
    pre = (
        await client.search_charges_page(ChargeQuery(charge_type="pre_authorization"), limit=1)
    ).items[0]
    with pytest.raises(PrecheckFailed, match="pre-authorization"):
        await executor.run("capture", pre.charge_id, capture_op.Params())
    with pytest.raises(PrecheckFailed, match="this is a sale"):
        await executor.run("capture", sale.charge_id, capture_op.Params())
    assert wire.posts() == []
    assert executor.journal.list() == []


async def test_refund_partial_carries_its_reference(
    executor: ActionExecutor, client: PaymentClient, sale: Charge
) -> None:
    outcome = await executor.run(
        "refund",
        sale.charge_id,
        refund_op.Params(
            Decimal("1.25"), reason="goodwill", tags=["support"], attributes={"ticket": ["T-9"]}
        ),
    )
    assert outcome.state == "succeeded"
    refunds = await refunds_of(client, sale.charge_id)
    assert [r.refund_id for r in refunds] == [outcome.result_id]
    refund = refunds[0]
    assert refund.total_amount == Decimal("1.25")
    assert refund.attributes[REF_ATTRIBUTE] == [outcome.client_reference]
    assert refund.attributes["ticket"] == ["T-9"]
    entry = executor.journal.get(outcome.entry_id)
    assert entry is not None and entry.amount == Decimal("1.25")
    assert entry.request_summary == {
        "total_amount": "1.25",
        "reason": "goodwill",
        "tags": ["support"],
        "attributes": {"ticket": ["T-9"]},
        "identity": "amount=1.25",
    }
    assert await executor.remaining_refundable(sale.charge_id) == sale.total_amount - Decimal(
        "1.25"
    )


async def test_refund_above_what_is_left_fails_definitely(
    executor: ActionExecutor, sale: Charge, wire: WireTransport
) -> None:
    """A refusal (4xx) is final: the service's reason, and no retry."""
    outcome = await executor.run(
        "refund", sale.charge_id, refund_op.Params(sale.total_amount + Decimal("0.01"))
    )
    assert outcome.state == "failed" and not outcome.retryable
    assert "Invalid request" in (outcome.message or "")
    assert len(wire.posts("/refunds")) == 1
    entry = executor.journal.get(outcome.entry_id)
    assert entry is not None and entry.state == "failed" and entry.error
    assert not entry.retryable
    with pytest.raises(NotRetryable, match="refusal is final"):
        await executor.retry(outcome.entry_id)
    assert len(wire.posts("/refunds")) == 1


async def test_amounts_are_checked_before_anything_is_written(
    executor: ActionExecutor, sale: Charge, wire: WireTransport
) -> None:
    for bad in (Decimal("0"), Decimal("1.005"), Decimal("NaN"), Decimal("-3")):
        with pytest.raises(ValueError):
            await executor.run("refund", sale.charge_id, refund_op.Params(bad))
    assert wire.posts() == [] and executor.journal.list() == []


async def test_read_only_sends_nothing(
    client: PaymentClient,
    journal: Journal,
    sale: Charge,
    authorization: Charge,
    wire: WireTransport,
) -> None:
    runner = ActionExecutor(
        client, journal, ActionPolicy(read_only=True), profile=PROFILE, base_url=BASE_URL
    )
    before = len(wire.sent)
    for call in (
        runner.run("capture", authorization.charge_id, capture_op.Params()),
        runner.run("refund", sale.charge_id, refund_op.Params(Decimal(1))),
        runner.run("update_charge", sale.charge_id, labels_op.Params(tags=["x"])),
    ):
        with pytest.raises(ActionRefused, match="read-only"):
            await call
    assert len(wire.sent) == before  # not even a read
    assert journal.list() == []


async def test_missing_scope_is_named_before_sending(
    client: PaymentClient, journal: Journal, sale: Charge, wire: WireTransport
) -> None:
    policy = ActionPolicy(granted_scopes=frozenset({"urn:v2:charges:all"}))
    runner = ActionExecutor(client, journal, policy, profile=PROFILE, base_url=BASE_URL)
    with pytest.raises(ActionRefused) as info:
        await runner.run("refund", sale.charge_id, refund_op.Params(Decimal(1)))
    assert info.value.decision.missing_scope == "urn:v2:refunds:all"
    assert wire.posts() == []


async def test_unknown_scopes_let_the_server_refuse(
    wire: WireTransport, journal: Journal, sale: Charge
) -> None:
    limited = PaymentClient(
        BASE_URL, client_id=LIMITED_CLIENT_ID, client_secret=LIMITED_CLIENT_SECRET, transport=wire
    )
    try:
        runner = ActionExecutor(
            limited, journal, ActionPolicy(), profile=PROFILE, base_url=BASE_URL
        )
        outcome = await runner.run("refund", sale.charge_id, refund_op.Params(Decimal(1)))
    finally:
        await limited.aclose()
    assert outcome.state == "failed"  # 403 is a definite "no": nothing happened
    assert "urn:v2:refunds:all" in (outcome.message or "")


async def test_production_needs_the_typed_amount(
    executor: ActionExecutor, sale: Charge, wire: WireTransport
) -> None:
    executor.policy = ActionPolicy(environment="production", confirm_threshold=Decimal("0.50"))
    with pytest.raises(ConfirmationRequired) as info:
        await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("2")))
    assert info.value.phrase == "2.00"
    with pytest.raises(ConfirmationRequired):
        await executor.run(
            "refund", sale.charge_id, refund_op.Params(Decimal("2")), confirmation="2.01"
        )
    assert wire.posts() == [] and executor.journal.list() == []
    small = await executor.run(
        "refund", sale.charge_id, refund_op.Params(Decimal("0.50"))
    )  # at the threshold: no typing
    typed = await executor.run(
        "refund", sale.charge_id, refund_op.Params(Decimal("2")), confirmation="2.00"
    )
    assert small.succeeded and typed.succeeded


async def test_intent_is_on_disk_before_the_request_leaves(
    executor: ActionExecutor,
    wire: WireTransport,
    journal_path: Path,
    sale: Charge,
    authorization: Charge,
) -> None:
    """At the moment the transport receives a POST, another connection to the journal file
    already sees the entry in state "sent" (committed, not just inside our transaction)."""
    seen: list[tuple[str, str]] = []

    def look(request: httpx.Request) -> None:
        if request.method == "GET":
            return
        with Journal(journal_path) as other:
            if request.url.path == "/v2/refunds":
                ref = json.loads(request.content)["attributes"][REF_ATTRIBUTE][0]
                entry = other.by_reference(ref)
            else:
                (entry,) = other.unresolved(operation="capture")
        assert entry is not None
        seen.append((entry.operation, entry.state))

    wire.on_send = look
    assert (await executor.run("refund", sale.charge_id, refund_op.Params(Decimal(1)))).succeeded
    assert (await executor.run("capture", authorization.charge_id, capture_op.Params())).succeeded
    assert seen == [("refund", "sent"), ("capture", "sent")]


async def test_create_charge_never_stores_the_card_number(
    executor: ActionExecutor, client: PaymentClient, sale: Charge, journal_path: Path
) -> None:
    request = ChargeRequest(
        account_id=sale.account_id or "",
        total_amount=Decimal("10.00"),
        payment_method=CardPaymentMethodRequest(
            card_number=CARD,
            expiration_date="2030-12",
            contact=Contact(first_name="Ada", last_name="L"),
        ),
        attributes={"note": ["card 4111 1111 1111 1111 by phone"]},
    )
    outcome = await executor.run("charge", *made_for(request))
    assert outcome.state == "succeeded"
    created = await client.get_charge(outcome.result_id or "")
    assert created.attributes[REF_ATTRIBUTE] == [outcome.client_reference]
    entry = executor.journal.get(outcome.entry_id)
    assert entry is not None
    assert entry.request_summary["payment_method"] == {"method": "card", "last4": "1111"}
    assert entry.request_summary["redacted"] is True
    raw = b"".join(p.read_bytes() for p in journal_path.parent.iterdir())
    assert CARD.encode() not in raw and b"4111 1111 1111 1111" not in raw
    # The masked summary cannot rebuild the card: retrying works only from this session's copy.
    fresh = ActionExecutor(
        client, executor.journal, ActionPolicy(), profile=PROFILE, base_url=BASE_URL
    )
    # The same request, written as a never-sent failure (a success's state is final).
    failed = executor.journal.record_intent(
        profile=PROFILE,
        base_url=entry.base_url,
        operation=entry.operation,
        charge_id=None,
        amount=entry.amount,
        request_summary=entry.request_summary,
    )
    executor.journal.transition(
        failed.id, "failed", expected={"pending"}, error="test", never_sent=True
    )
    with pytest.raises(NotRetryable, match="masked"):
        await fresh.retry(failed.id)


async def test_update_charge(executor: ActionExecutor, client: PaymentClient, sale: Charge) -> None:
    outcome = await executor.run(
        "update_charge",
        sale.charge_id,
        labels_op.Params(tags=["vip", "checked"], attributes={"case": ["42"]}),
    )
    assert outcome.succeeded and outcome.result_id == sale.charge_id
    charge = await client.get_charge(sale.charge_id)
    assert charge.tags == ["vip", "checked"] and charge.attributes == {"case": ["42"]}


async def test_caller_cancellation_does_not_abandon_the_action(
    executor: ActionExecutor,
    client: PaymentClient,
    authorization: Charge,
    sandbox_faults,
    wire: WireTransport,
) -> None:
    """Textual cancels an exclusive worker when a new one starts; the capture must still be
    journaled with its real outcome."""
    sandbox_faults.delay_seconds = 0.2
    # The caller is cancelled once the capture has left (an event), while the service holds
    # its answer: after a fixed sleep it could still be before the send on a loaded machine.
    sent = asyncio.Event()
    wire.on_send = lambda request: sent.set() if request.url.path.endswith("/capture") else None
    caller = asyncio.ensure_future(
        executor.run("capture", authorization.charge_id, capture_op.Params())
    )
    await asyncio.wait_for(sent.wait(), timeout=HANG_GUARD)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await executor.aclose()
    sandbox_faults.delay_seconds = 0
    (entry,) = executor.journal.list()
    assert entry.state == "succeeded"
    assert [c.charge_id for c in await captures_of(client, authorization.charge_id)] == [
        entry.result_id
    ]


def test_policy_can_be_replaced_when_scopes_become_known(executor: ActionExecutor) -> None:
    executor.policy = dataclasses.replace(executor.policy, granted_scopes=frozenset())
    assert executor.check("capture").missing_scope == "urn:v2:charges:all"
