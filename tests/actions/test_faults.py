"""The point of issue 4: whatever the user presses, a capture or refund is applied once.

The sandbox commits and then drops the answer (`drop_after_commit`), or answers too late
(`delay_seconds` beyond the client's patience). Every test counts on the *server* what exists,
and on the *wire* how many requests that change data were sent.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import httpx
import pytest

from paytui.actions.errors import (
    ActionInFlight,
    EarlierAttemptApplied,
    NotRetryable,
    PrecheckFailed,
    UnresolvedAction,
)
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import labels as labels_op
from paytui.actions.ops import refund as refund_op
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.faults import Faults
from tests.actions.support import (
    BASE_URL,
    PROFILE,
    FakeClock,
    WireTransport,
    captures_of,
    clocked_executor,
    refunded_total,
    refunds_of,
)


async def test_dropped_capture_pressed_repeatedly_captures_once(
    executor: ActionExecutor,
    client: PaymentClient,
    authorization: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    sandbox_faults.drop_after_commit = {"capture"}
    first = await executor.run("capture", authorization.charge_id, capture_op.Params())
    assert first.state == "succeeded" and first.reconciled
    assert "answer was lost" in (first.message or "")
    for _ in range(3):
        with pytest.raises(PrecheckFailed) as info:
            await executor.run("capture", authorization.charge_id, capture_op.Params())
        assert info.value.result_id == first.result_id
    captures = await captures_of(client, authorization.charge_id)
    assert [c.charge_id for c in captures] == [first.result_id]
    assert len(wire.posts("/capture")) == 1
    (entry,) = executor.journal.list()
    assert (entry.state, entry.result_id) == ("succeeded", first.result_id)


async def test_dropped_capture_pressed_concurrently_sends_once(
    executor: ActionExecutor,
    client: PaymentClient,
    authorization: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    sandbox_faults.drop_after_commit = {"capture"}
    results = await asyncio.gather(
        *(executor.run("capture", authorization.charge_id, capture_op.Params()) for _ in range(5)),
        return_exceptions=True,
    )
    outcomes = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, ActionInFlight)]
    assert len(outcomes) == 1 and len(refused) == 4
    assert outcomes[0].state == "succeeded"
    # The refused presses can still join the running action and see its answer.
    captures = await captures_of(client, authorization.charge_id)
    assert [c.charge_id for c in captures] == [outcomes[0].result_id]
    assert len(wire.posts("/capture")) == 1
    assert [e.state for e in executor.journal.list()] == ["succeeded"]


async def test_in_flight_press_can_join_the_running_action(
    executor: ActionExecutor, authorization: Charge, sandbox_faults: Faults
) -> None:
    sandbox_faults.delay_seconds = 0.1
    first = asyncio.ensure_future(
        executor.run("capture", authorization.charge_id, capture_op.Params())
    )
    await asyncio.sleep(0)
    assert executor.in_flight("capture", authorization.charge_id)
    with pytest.raises(ActionInFlight) as info:
        await executor.run("capture", authorization.charge_id, capture_op.Params())
    joined = await info.value.wait()
    assert joined == await first
    assert not executor.in_flight("capture", authorization.charge_id)


async def test_dropped_full_refund_pressed_repeatedly_refunds_once(
    executor: ActionExecutor,
    client: PaymentClient,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    sandbox_faults.drop_after_commit = {"refund"}
    first = await executor.run("refund", sale.charge_id, refund_op.Params())  # "whatever is left"
    assert first.state == "succeeded" and first.reconciled
    assert first.refund is not None and first.refund.total_amount == sale.total_amount
    for _ in range(2):
        again = await executor.run("refund", sale.charge_id, refund_op.Params())
        assert again.state == "failed"  # nothing left to refund: the service says no
    assert len(await refunds_of(client, sale.charge_id)) == 1
    assert await refunded_total(client, sale.charge_id) == sale.total_amount
    entry = executor.journal.get(first.entry_id)
    assert entry is not None and (entry.state, entry.result_id) == ("succeeded", first.result_id)
    assert entry.amount == sale.total_amount


async def test_dropped_partial_refund_pressed_concurrently_refunds_once(
    executor: ActionExecutor,
    client: PaymentClient,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    sandbox_faults.drop_after_commit = {"refund"}
    results = await asyncio.gather(
        *(
            executor.run("refund", sale.charge_id, refund_op.Params(Decimal("2.00")))
            for _ in range(5)
        ),
        return_exceptions=True,
    )
    outcomes = [r for r in results if not isinstance(r, BaseException)]
    assert len(outcomes) == 1 and outcomes[0].state == "succeeded"
    assert sum(isinstance(r, ActionInFlight) for r in results) == 4
    assert await refunded_total(client, sale.charge_id) == Decimal("2.00")
    assert len(wire.posts("/refunds")) == 1


async def test_unknown_refund_blocks_a_second_press_until_settled(
    executor: ActionExecutor,
    client: PaymentClient,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    """The answer is lost AND the read-back fails: the outcome stays unknown, and pressing
    refund again is refused instead of risking a second refund."""
    sandbox_faults.drop_after_commit = {"refund"}
    wire.fail_gets = True
    first = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("3.00")))
    assert first.state == "unknown" and not first.retryable
    with pytest.raises(UnresolvedAction):
        await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("3.00")))
    with pytest.raises(NotRetryable, match="not known yet"):
        await executor.retry(first.entry_id)
    assert len(wire.posts("/refunds")) == 1
    wire.fail_gets = False
    checked = await executor.reconcile_entry(first.entry_id)
    assert checked.state == "succeeded" and checked.refund is not None
    assert await refunded_total(client, sale.charge_id) == Decimal("3.00")


async def test_answer_later_than_the_timeout_is_reconciled_not_resent(
    executor: ActionExecutor,
    client: PaymentClient,
    authorization: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    """The service takes 0.4 s, the client gives up after 0.15 s; the service still commits.
    The read-back (itself delayed) finds the capture."""
    sandbox_faults.delay_seconds = 0.4
    wire.post_timeout = 0.15
    outcome = await executor.run("capture", authorization.charge_id, capture_op.Params())
    assert outcome.state == "succeeded" and outcome.reconciled
    assert "Timed out" in (outcome.message or "")
    await wire.drain()
    sandbox_faults.delay_seconds = 0
    captures = await captures_of(client, authorization.charge_id)
    assert [c.charge_id for c in captures] == [outcome.result_id]
    assert len(wire.posts("/capture")) == 1


async def test_timed_out_and_never_applied_is_retried_only_on_request(
    executor: ActionExecutor,
    client: PaymentClient,
    authorization: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    """The request dies with the client's timeout: proven not applied; nothing is resent
    until the user asks, then exactly once, as a new journal entry."""
    sandbox_faults.delay_seconds = 0.3
    wire.post_timeout = 0.1
    wire.abandon = False
    outcome = await executor.run("capture", authorization.charge_id, capture_op.Params())
    sandbox_faults.delay_seconds = 0
    wire.post_timeout = None
    assert outcome.state == "not_applied" and outcome.retryable
    assert "not applied so far" in (outcome.message or "")
    assert "try again" not in (outcome.message or "")
    await asyncio.sleep(0.4)  # anything late would have landed by now
    assert await captures_of(client, authorization.charge_id) == []
    assert len(wire.posts("/capture")) == 1

    # Within its late window, only with the person's go-ahead naming it.
    retried = await executor.retry(outcome.entry_id, acknowledge_earlier=outcome.entry_id)
    assert retried.state == "succeeded" and retried.entry_id != outcome.entry_id
    new = executor.journal.get(retried.entry_id)
    assert new is not None and new.retry_of == outcome.entry_id
    with pytest.raises(NotRetryable, match="Already retried"):
        await executor.retry(outcome.entry_id)
    with pytest.raises(NotRetryable, match="already happened"):
        await executor.retry(retried.entry_id)
    assert [c.charge_id for c in await captures_of(client, authorization.charge_id)] == [
        retried.result_id
    ]
    assert len(wire.posts("/capture")) == 2


async def test_forced_5xx_is_unknown_then_proven_not_applied(
    executor: ActionExecutor, sale: Charge, sandbox_faults: Faults, wire: WireTransport
) -> None:
    sandbox_faults.fail_status = 503
    sandbox_faults.fail_path_prefix = "/v2/refunds"
    sandbox_faults.fail_method = "POST"
    sandbox_faults.fail_count = 1  # the POST only; the read-back works
    outcome = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
    assert outcome.state == "not_applied"
    assert len(wire.posts("/refunds")) == 1


async def test_restart_reconciles_unresolved_entries(
    executor: ActionExecutor,
    clock: FakeClock,
    journal_path,
    client: PaymentClient,
    authorization: Charge,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    """Press capture with the answer dropped and reads failing (so the app cannot settle it),
    press again, then "restart": a fresh client, journal and executor settle it on start."""
    sandbox_faults.drop_after_commit = {"capture"}

    def reads_go_down(request: httpx.Request) -> None:
        if request.method == "POST":
            wire.fail_gets = True

    wire.on_send = reads_go_down
    first = await executor.run("capture", authorization.charge_id, capture_op.Params())
    assert first.state == "unknown"
    with pytest.raises(UnresolvedAction):  # cannot check the first one: nothing is sent
        await executor.run("capture", authorization.charge_id, capture_op.Params())
    wire.on_send = None
    # A refund whose intent was written, and then the app died before sending it.
    with Journal(journal_path) as crashed:
        pending = crashed.record_intent(
            profile=PROFILE,
            base_url=BASE_URL,
            operation="refund",
            charge_id=sale.charge_id,
            amount=Decimal("4.00"),
            request_summary={"total_amount": "4.00"},
        )
        other = crashed.record_intent(
            profile="production",
            base_url="https://api.example.com",
            operation="refund",
            charge_id=sale.charge_id,
            amount=Decimal("4.00"),
            request_summary={"total_amount": "4.00"},
        )
    wire.fail_gets = False

    restarted = PaymentClient(
        BASE_URL, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET, transport=wire
    )
    try:
        with Journal(journal_path) as journal:
            runner = clocked_executor(restarted, journal, clock)
            settled = await runner.reconcile_all()
            states = {e.id: (e.state, e.result_id) for e in settled}
            captures = await captures_of(restarted, authorization.charge_id)
            assert [c.charge_id for c in captures] == [captures[0].charge_id]
            assert states == {
                first.entry_id: ("succeeded", captures[0].charge_id),
                pending.id: ("not_applied", None),
            }
            untouched = journal.get(other.id)
            assert untouched is not None and untouched.state == "pending"
            # Pressing capture after the restart sends nothing: first the user is told that the
            # earlier capture did go through, and even when they acknowledge it, it is captured.
            with pytest.raises(EarlierAttemptApplied, match="did go through") as told:
                await runner.run("capture", authorization.charge_id, capture_op.Params())
            assert told.value.entry.id == first.entry_id
            with pytest.raises(PrecheckFailed, match="Already captured"):
                await runner.run(
                    "capture",
                    authorization.charge_id,
                    capture_op.Params(),
                    acknowledge_earlier=first.entry_id,
                )
            # The proven-not-applied refund is sent only when asked, once.
            assert await refunds_of(restarted, sale.charge_id) == []
            retried = await runner.retry(pending.id)
            assert retried.state == "succeeded"
            assert await refunded_total(restarted, sale.charge_id) == Decimal("4.00")
    finally:
        await restarted.aclose()
    assert len(wire.posts("/capture")) == 1
    assert len(wire.posts("/refunds")) == 1


async def test_edit_with_lost_answer_is_checked_against_the_charge(
    executor: ActionExecutor,
    client: PaymentClient,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    """PATCH: a 500 before the service acted reads back as not applied; a late answer after it
    acted reads back as succeeded (the charge shows exactly the tags and attributes sent)."""
    sandbox_faults.fail_status = 500
    sandbox_faults.fail_path_prefix = f"/v2/charges/{sale.charge_id}"
    sandbox_faults.fail_count = 1
    failed = await executor.run("update_charge", sale.charge_id, labels_op.Params(tags=["first"]))
    assert failed.state == "not_applied"

    sandbox_faults.delay_seconds = 0.3
    wire.post_timeout = 0.1
    late = await executor.run(
        "update_charge",
        sale.charge_id,
        labels_op.Params(tags=["late"], attributes={"k": ["v"]}),
        acknowledge_earlier=failed.entry_id,
    )
    await wire.drain()
    sandbox_faults.delay_seconds = 0
    assert late.state == "succeeded" and late.reconciled
    charge = await client.get_charge(sale.charge_id)
    assert charge.tags == ["late"] and charge.attributes == {"k": ["v"]}
    assert len(wire.posts(sale.charge_id)) == 2
