"""Bulk capture and bulk full refund against the in-process sandbox (`paytui.actions.batch`).

The two promises of the issue, proven on the service's own records: a bulk capture of 200
authorizations leaves exactly 200 captures (one per authorization), and a bulk refund killed half
way and resumed leaves exactly one refund per charge.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from paytui.actions.batch import BatchRunner, observe_plan, plan_batch, summarise
from paytui.actions.batch_log import BatchItem, BatchLog
from paytui.actions.errors import ConfirmationRequired
from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.actions.policy import ActionPolicy
from paytui.api.client import PaymentClient
from paytui.api.models import CardPaymentMethodRequest, Charge, ChargeRequest
from tests.actions.support import (
    BASE_URL,
    PROFILE,
    FakeClock,
    WireTransport,
    captures_of,
    clocked_executor,
    refunds_of,
)


async def _new_charges(
    client: PaymentClient, account_id: str, count: int, charge_type: str
) -> list[Charge]:
    """`count` fresh charges of one account (amounts 10.01, 10.02, ...)."""
    made = []
    for n in range(count):
        request = ChargeRequest(
            account_id=account_id,
            total_amount=Decimal("10.00") + Decimal(n + 1) / 100,
            charge_type=charge_type,
            payment_method=CardPaymentMethodRequest(
                card_number="4111111111111111", expiration_date="2030-12"
            ),
        )
        made.append(await client.create_charge(request))
    return made


def test_the_dry_run_uses_the_registrys_reasons() -> None:
    auth = SimpleNamespace(
        charge_id="ch_a", charge_type="authorization", status="success", total_amount=Decimal("5")
    )
    captured = SimpleNamespace(
        charge_id="ch_b",
        charge_type="authorization",
        status="success",
        captured_charge_id="ch_x",
        total_amount=Decimal("7"),
    )
    sale = SimpleNamespace(
        charge_id="ch_c", charge_type="sale", status="success", total_amount=Decimal("2.50")
    )
    plan = plan_batch("capture", [auth, captured, sale, auth])
    assert (plan.count, plan.total) == (1, Decimal("5"))
    assert [(s.charge_id, s.reason) for s in plan.skipped] == [
        ("ch_b", "Already captured as ch_x"),
        ("ch_c", "Only an authorization can be captured; this is a sale"),
    ]
    refund = plan_batch("refund", [auth, sale])
    assert refund.items == (("ch_c", Decimal("2.50")),)
    assert refund.skipped[0].reason.startswith("An open authorization moved no money")
    with pytest.raises(ValueError):
        plan_batch("distribute", [sale])


def test_a_status_paytui_does_not_know_is_acted_on_with_a_note() -> None:
    """Issue 38: a marked `settled` sale is refunded like any other, and the dry run says paytui
    does not know its status (the service will decide); a chargeback is still skipped."""
    from paytui.ui.screens.modals.bulk import dry_run_text

    settled = SimpleNamespace(
        charge_id="ch_s", charge_type="sale", status="settled", total_amount=Decimal("3")
    )
    charged_back = SimpleNamespace(
        charge_id="ch_cb", charge_type="sale", status="chargeback", total_amount=Decimal("4")
    )
    plan = plan_batch("refund", iter([settled, charged_back]))
    assert plan.items == (("ch_s", Decimal("3")),)
    assert [s.charge_id for s in plan.skipped] == ["ch_cb"]
    said = "paytui does not know the status `settled`; the service will decide"
    assert [(n.charge_id, n.note) for n in plan.notes] == [("ch_s", said)]
    assert f"ch_s: {said}" in dry_run_text(plan, needs_phrase=False).plain


async def test_bulk_capture_of_200_leaves_exactly_200_captures(
    client: PaymentClient, journal: Journal, clock: FakeClock, wire: WireTransport, sale: Charge
) -> None:
    auths = await _new_charges(client, sale.account_id or "", 200, "authorization")
    plan = plan_batch("capture", auths)
    assert (plan.count, plan.skipped) == (200, ())
    log = BatchLog(journal.path)
    progress: list[BatchItem] = []
    executor = clocked_executor(client, journal, clock)
    runner = BatchRunner(executor, log, on_item=progress.append)
    record = await runner.start(plan)

    assert len(progress) == 200 and {item.state for item in progress} == {"succeeded"}
    assert summarise(record).line("Capture").startswith("Capture: 200 done")
    assert len(wire.posts("/capture")) == 200
    captures = [await captures_of(client, auth.charge_id) for auth in auths[::20]]
    assert all(len(found) == 1 for found in captures)
    captured_ids = {item.result_id for item in record.items}
    assert len(captured_ids) == 200 and None not in captured_ids
    assert log.resumable(profile=PROFILE, base_url=BASE_URL) == []
    log.close()


def _finished_pid() -> int:
    """The id of a process that has ended (a killed paytui's, as far as the journal can tell)."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


async def test_a_bulk_refund_killed_half_way_and_resumed_refunds_each_charge_once(
    client: PaymentClient, journal_path: Path, clock: FakeClock, wire: WireTransport, sale: Charge
) -> None:
    sales = await _new_charges(client, sale.account_id or "", 24, "sale")
    plan = plan_batch("refund", sales)
    first_journal = Journal(journal_path)
    first = clocked_executor(client, first_journal, clock)
    # Its entries name a process that is gone by the resume, as a killed one is (not this one,
    # which is alive, so its entries would read as "being sent right now" by a live sender).
    first.owner = f"{socket.gethostname()}:{_finished_pid()}"
    # One item at a time, so that the kill finds one action in flight, its request on the wire.
    # With several, another could be cancelled just after its durable "sent" and before its
    # request left (a kill can land there too): the resume then rightly reads that one back
    # "not applied so far" and leaves it "unknown" for a person, never sending it blindly —
    # where the kill lands among them was up to the machine's speed.
    runner = BatchRunner(first, BatchLog(journal_path), concurrency=1)
    run = asyncio.ensure_future(runner.start(plan))

    def kill_at_the_twelfth(request: httpx.Request) -> None:
        # The process dies as the 12th refund leaves: the service still commits it, and every
        # action of this "process" stops where it is (the executor journals "interrupted").
        if request.method == "POST" and len(wire.posts("/refunds")) == 12:
            run.cancel()
            for slot in list(first.slots.values()):
                slot.task.cancel()

    wire.on_send = kill_at_the_twelfth
    # What left the process is read whole by the service and committed, however long a loaded
    # machine takes to get there: each POST is answered in a task of its own, which the "kill"
    # does not cancel (as a request already on the wire outlives its sender). Without it the
    # in-process sandbox saw its caller leave and committed only if it got to the commit within
    # `COMMIT_GRACE` (0.5 s of real time): under load it did not, and the resume, reading back
    # "not applied so far", rightly left that item "unknown".
    wire.post_timeout = 3600.0  # a bound of the test harness, never reached: the answer comes
    with pytest.raises(asyncio.CancelledError):
        await run
    await asyncio.gather(
        *(slot.task for slot in list(first.slots.values())), return_exceptions=True
    )
    await wire.drain()
    wire.on_send = None
    wire.post_timeout = None
    sent_before = len(wire.posts("/refunds"))
    assert sent_before == 12

    # A new process: the same files, a new executor; History offers the batch.
    journal = Journal(journal_path)
    log = BatchLog(journal_path)
    (left,) = log.resumable(profile=PROFILE, base_url=BASE_URL)
    assert 0 < len(left.open_items) < 24
    progress: list[BatchItem] = []
    resumed = await BatchRunner(
        clocked_executor(client, journal, clock), log, on_item=progress.append
    ).resume(left.id)

    assert {item.state for item in resumed.items} == {"succeeded"}, [
        (item.position, item.state, item.message)
        for item in resumed.items
        if item.state != "succeeded"
    ]
    # Each item resumed is reported once, and only open ones. (Not "as many as `left` lists": the
    # killed run's last batch-log writes are threads this in-process "kill" cannot stop, and one
    # can still mark an item done between the read of `left` and the resume's own read.)
    reported = [item.charge_id for item in progress]
    assert reported and len(reported) == len(set(reported))
    assert set(reported) <= {item.charge_id for item in left.open_items}
    for charge in sales:
        refunds = await refunds_of(client, charge.charge_id)
        assert len(refunds) == 1, charge.charge_id
        assert refunds[0].total_amount == charge.total_amount
    # Only what had not been sent before the kill was sent after it.
    assert len(wire.posts("/refunds")) == 24
    assert log.resumable(profile=PROFILE, base_url=BASE_URL) == []
    # A second resume finds nothing to do and sends nothing.
    again = await BatchRunner(clocked_executor(client, journal, clock), log).resume(left.id)

    def outcome(items: tuple[BatchItem, ...]) -> list[tuple[object, ...]]:
        # Not the message: a late batch-log write of the "killed" run (above) can still replace
        # "done before" with its own "Refunded" for the same entry and refund.
        return [(i.position, i.charge_id, i.state, i.entry_id, i.result_id) for i in items]

    assert outcome(again.items) == outcome(resumed.items) and len(wire.posts("/refunds")) == 24
    log.close()
    journal.close()
    first_journal.close()


async def test_cancel_stops_between_items_and_production_needs_the_typed_total(
    client: PaymentClient, journal: Journal, clock: FakeClock, wire: WireTransport, sale: Charge
) -> None:
    sales = await _new_charges(client, sale.account_id or "", 6, "sale")
    plan = plan_batch("refund", sales)
    log = BatchLog(journal.path)
    production = ActionPolicy(environment="production", confirm_threshold=Decimal("1"))
    executor = clocked_executor(client, journal, clock, production)

    with pytest.raises(ConfirmationRequired) as asked:
        await BatchRunner(executor, log).start(plan, confirmation="yes")
    assert asked.value.phrase == "60.21"
    assert wire.posts("/refunds") == [] and log.resumable(profile=PROFILE, base_url=BASE_URL) == []

    runner = BatchRunner(executor, log, concurrency=1)
    runner.on_item = lambda item: runner.cancel()
    record = await runner.start(plan, confirmation="60.21")
    summary = summarise(record)
    assert (summary.succeeded, summary.not_started, record.state) == (1, 5, "cancelled")
    assert "5 not started" in summary.line("Full refund")
    assert len(wire.posts("/refunds")) == 1
    assert [b.id for b in log.resumable(profile=PROFILE, base_url=BASE_URL)] == [record.id]
    log.close()


async def test_a_bulk_refund_sends_nothing_on_a_charge_someone_else_refunded(
    client: PaymentClient, journal: Journal, clock: FakeClock, wire: WireTransport, sale: Charge
) -> None:
    """The bulk's decision is tied to what its dry run read, as a single refund's is to its
    dialog: a charge another paytui refunded before the dry run is skipped and named; one
    refunded after it (before its item runs) is not sent, and the item says who did it."""
    sales = await _new_charges(client, sale.account_id or "", 3, "sale")
    other = clocked_executor(client, journal, clock, agent="support-07", actor="support-07")
    assert (
        await other.run("refund", sales[0].charge_id, refund_op.Params(None))
    ).succeeded  # before the dry run

    mine = clocked_executor(client, journal, clock, agent="support-02")
    listed = plan_batch("refund", sales)  # from the rows: all three, at most 30.06
    assert listed.count == 3
    reads: list[None] = []
    plan = await observe_plan(mine, listed, on_read=lambda: reads.append(None))
    assert len(reads) == 3
    assert [charge_id for charge_id, _ in plan.items] == [s.charge_id for s in sales[1:]]
    assert plan.total == Decimal("20.05")  # what is left of each, read just now
    (skipped,) = plan.skipped
    assert skipped.reason.startswith("nothing left to refund; refunded 10.01 by ")
    assert "support-07" in skipped.reason

    assert (
        await other.run("refund", sales[2].charge_id, refund_op.Params(Decimal("1.00")))
    ).succeeded  # after it
    posts_before = len(wire.posts("/refund"))
    log = BatchLog(journal.path)
    record = await BatchRunner(mine, log).start(plan)
    by_charge = {item.charge_id: item for item in record.items}
    assert by_charge[sales[1].charge_id].state == "succeeded"
    changed = by_charge[sales[2].charge_id]
    assert changed.state == "skipped" and changed.message is not None
    assert "changed since it was read" in changed.message and "support-07" in changed.message
    assert len(wire.posts("/refund")) == posts_before + 1  # the unchanged one only
    assert len(await refunds_of(client, sales[2].charge_id)) == 1  # only the other's 1.00
    log.close()
