"""Issue 10: exactly once, proven. Settle the past before sending; "not applied" only when a
read-back made after the request deadline (plus the margin) finds nothing; refusals are final;
pre-authorizations and distributions are journaled like every other action.

Where nothing real is late the executor runs on the fake clock (`FakeClock`: waiting out the
deadline costs nothing); where the late commit itself is the subject, the client's timeout is
short and the clock real.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.actions.errors import EarlierAttemptApplied, NotRetryable, PrecheckFailed
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.journal_schema import SCHEMA_VERSION
from paytui.actions.operation import NoParams
from paytui.actions.ops import labels as labels_op
from paytui.actions.ops import refund as refund_op
from paytui.actions.policy import ActionPolicy
from paytui.actions.reconcile import REF_ATTRIBUTE
from paytui.api.client import PaymentClient
from paytui.api.errors import TransportError
from paytui.api.models import CardPaymentMethodRequest, Charge, ChargeRequest, RefundRequest
from paytui.api.queries import ChargeQuery
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.faults import Faults
from tests.actions.support import (
    BASE_URL,
    PROFILE,
    ClockedService,
    FakeClock,
    WireTransport,
    clocked_executor,
    first_open,
    made_for,
    refund_intent,
    refunded_total,
    refunds_of,
)


async def test_refund_pressed_again_after_an_unknown_outcome_sends_nothing_and_says_so(
    executor: ActionExecutor,
    client: PaymentClient,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    """The refund commits, its answer is lost and the reads are down: unknown. With the network
    back, the same refund pressed again reads the first one back, finds it, and sends nothing;
    only an explicit acknowledgement of that entry sends a second one."""
    sandbox_faults.drop_after_commit = {"refund"}
    wire.fail_gets = True
    first = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    assert first.state == "unknown"
    sandbox_faults.drop_after_commit = set()
    wire.fail_gets = False

    with pytest.raises(EarlierAttemptApplied) as told:
        await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    (refund,) = await refunds_of(client, sale.charge_id)
    assert told.value.entry.id == first.entry_id
    assert "refund of 5.00 sent at" in told.value.message
    assert f"did go through: refund {refund.refund_id}" in told.value.message
    assert len(wire.posts("/refunds")) == 1
    # Pressing again without acknowledging still sends nothing.
    with pytest.raises(EarlierAttemptApplied):
        await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    assert len(wire.posts("/refunds")) == 1
    entry = executor.journal.get(first.entry_id)
    assert entry is not None and (entry.state, entry.result_id) == ("succeeded", refund.refund_id)

    second = await executor.run(
        "refund",
        sale.charge_id,
        refund_op.Params(Decimal("5.00")),
        acknowledge_earlier=first.entry_id,
    )
    assert second.state == "succeeded"
    assert await refunded_total(client, sale.charge_id) == Decimal("10.00")
    assert len(wire.posts("/refunds")) == 2


async def test_not_found_before_the_deadline_is_unknown_then_proven(
    executor: ActionExecutor, clock: FakeClock, sale: Charge, sandbox_faults: Faults
) -> None:
    """A 5xx before the commit: the read-back at once finds nothing, which proves nothing yet;
    the executor waits out the client's deadline plus the margin and reads again."""
    sandbox_faults.fail_status = 503
    sandbox_faults.fail_path_prefix = "/v2/refunds"
    sandbox_faults.fail_method = "POST"
    sandbox_faults.fail_count = 1
    outcome = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
    assert outcome.state == "not_applied" and outcome.retryable
    entry = executor.journal.get(outcome.entry_id)
    assert entry is not None and entry.sent_at is not None and entry.checked_at is not None
    assert entry.settle_seconds == executor.client.timeout + executor.settle_margin
    assert entry.checked_at >= entry.sent_at + timedelta(seconds=entry.settle_seconds)
    assert entry.proven(executor.settle_seconds)
    assert sum(clock.slept) >= executor.settle_seconds - 0.01


async def test_late_commit_after_the_timeout_is_found_not_called_not_applied(
    slow_client: PaymentClient,
    slow_service: ClockedService,
    clock: FakeClock,
    journal: Journal,
    sale: Charge,
) -> None:
    """The service holds the refund past the client's timeout and then commits. The read-back
    waits until that commit would show, so the verdict is "succeeded", and the server holds
    exactly one refund. The timeout is the subject, on the executor's clock (`ClockedService`:
    the client gives up after 10 s, the service commits 1 s later, within the 2 s margin): with
    the wall clock's 0.3 s and 0.45 s, a loaded machine could read back before a commit that
    arrived late."""
    executor = clocked_executor(slow_client, journal, clock)
    try:
        outcome = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("2.00")))
        assert outcome.state == "succeeded" and outcome.reconciled
        (refund,) = await refunds_of(slow_client, sale.charge_id)
        assert outcome.result_id == refund.refund_id
        assert len(slow_service.committed) == 1 and slow_service.held == []
    finally:
        await executor.aclose()


def _too_early_not_applied(journal: Journal, charge_id: str, amount: str) -> int:
    """A refund journaled the old way: "not_applied" from a read-back made at once."""
    entry = refund_intent(journal, charge_id, amount)
    journal.transition(entry.id, "sent", expected={"pending"})
    sent = journal.get(entry.id)
    assert sent is not None and sent.sent_at is not None
    journal.transition(entry.id, "not_applied", expected={"sent"}, checked_at=sent.sent_at)
    return entry.id


async def _commit_late(client: PaymentClient, journal: Journal, entry_id: int) -> str:
    """What the service did after that early look: it committed the refund after all."""
    entry = journal.get(entry_id)
    assert entry is not None and entry.amount is not None
    refund = await client.create_refund(
        RefundRequest(
            charge_id=entry.charge_id or "",
            total_amount=entry.amount,
            attributes={REF_ATTRIBUTE: [entry.client_reference]},
        )
    )
    return refund.refund_id


async def test_start_up_rechecks_a_not_applied_read_back_too_early(
    executor: ActionExecutor, client: PaymentClient, journal: Journal, sale: Charge
) -> None:
    entry_id = _too_early_not_applied(journal, sale.charge_id, "3.00")
    refund_id = await _commit_late(client, journal, entry_id)
    assert [e.id for e in journal.to_check(executor.settle_seconds)] == [entry_id]
    (settled,) = await executor.reconcile_all()
    assert (settled.state, settled.result_id) == ("succeeded", refund_id)
    assert settled.late and "Applied late" in (settled.error or "")
    assert journal.to_check(executor.settle_seconds) == []
    # A proven verdict is not read again at the next start.
    assert await executor.reconcile_all() == []


async def test_retry_after_a_late_commit_sends_nothing(
    executor: ActionExecutor,
    client: PaymentClient,
    journal: Journal,
    sale: Charge,
    wire: WireTransport,
) -> None:
    entry_id = _too_early_not_applied(journal, sale.charge_id, "4.00")
    refund_id = await _commit_late(client, journal, entry_id)
    with pytest.raises(NotRetryable, match=f"did happen after all: {refund_id}"):
        await executor.retry(entry_id)
    assert len(await refunds_of(client, sale.charge_id)) == 1
    assert len(wire.posts("/refunds")) == 1  # the late commit itself, nothing more


async def test_history_check_corrects_a_too_early_verdict(
    executor: ActionExecutor, client: PaymentClient, journal: Journal, sale: Charge
) -> None:
    entry_id = _too_early_not_applied(journal, sale.charge_id, "1.50")
    refund_id = await _commit_late(client, journal, entry_id)
    outcome = await executor.reconcile_entry(entry_id)
    assert (outcome.state, outcome.result_id) == ("succeeded", refund_id)
    assert "Applied late" in (outcome.message or "")


async def test_a_refusal_is_final(
    executor: ActionExecutor, sale: Charge, sandbox_faults: Faults, wire: WireTransport
) -> None:
    sandbox_faults.fail_status = 409
    sandbox_faults.fail_path_prefix = "/v2/refunds"
    sandbox_faults.fail_method = "POST"
    sandbox_faults.fail_count = 1
    outcome = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
    assert outcome.state == "failed" and not outcome.retryable
    assert "409" in (outcome.message or "")
    with pytest.raises(NotRetryable, match="refusal is final"):
        await executor.retry(outcome.entry_id)
    assert len(wire.posts("/refunds")) == 1


async def test_pre_authorization_is_journaled_at_zero(
    executor: ActionExecutor, sale: Charge
) -> None:
    request = ChargeRequest(
        account_id=sale.account_id or "",
        total_amount=Decimal("0"),
        charge_type="pre_authorization",
        payment_method=CardPaymentMethodRequest(
            card_number="4111111111111111", expiration_date="2030-12"
        ),
    )
    outcome = await executor.run("charge", *made_for(request))
    assert outcome.succeeded and outcome.charge is not None
    assert outcome.charge.charge_type == "pre_authorization"
    (entry,) = executor.journal.list()
    assert (entry.operation, entry.amount, entry.state) == ("charge", Decimal("0.00"), "succeeded")


async def test_distribute_with_a_reset_connection_is_read_back(
    executor: ActionExecutor,
    client: PaymentClient,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    fresh = await client.create_charge(
        ChargeRequest(
            account_id=sale.account_id or "",
            total_amount=Decimal("42.10"),
            payment_method=CardPaymentMethodRequest(
                card_number="4111111111111111", expiration_date="2030-12"
            ),
        )
    )
    sandbox_faults.reset_after_commit = {"distribute"}
    outcome = await executor.run("distribute", fresh.charge_id, NoParams())
    sandbox_faults.reset_after_commit = set()
    assert outcome.state == "succeeded" and outcome.reconciled, outcome.message
    after = await client.get_charge(fresh.charge_id, expand="distributions")
    holding = [
        d.distribution_id
        for d in after.distributions or []
        for i in d.items or []
        if i.charge_id == fresh.charge_id
    ]
    assert holding == [outcome.result_id]
    # Already in it: the registry's rule (the key's) refuses it before anything is sent.
    with pytest.raises(PrecheckFailed, match="Already in a distribution"):
        await executor.run("distribute", fresh.charge_id, NoParams())
    assert len(wire.posts("/distribute")) == 1


def test_a_schema_1_journal_opens_and_its_verdicts_are_rechecked(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE actions (
            id INTEGER PRIMARY KEY AUTOINCREMENT, client_reference TEXT NOT NULL UNIQUE,
            profile TEXT NOT NULL, base_url TEXT NOT NULL,
            operation TEXT NOT NULL CHECK (operation IN ('capture', 'refund', 'charge',
                'update_charge')),
            charge_id TEXT, amount TEXT, request_summary TEXT NOT NULL,
            state TEXT NOT NULL, result_id TEXT, error TEXT,
            retry_of INTEGER REFERENCES actions(id), created_at TEXT NOT NULL, sent_at TEXT,
            updated_at TEXT NOT NULL, resolved_at TEXT
        );
        INSERT INTO actions VALUES (1, 'ref1', 'sandbox', 'http://sandbox', 'refund', 'c1',
            '5.00', '{}', 'not_applied', NULL, NULL, NULL, '2026-11-20T10:00:00.000Z',
            '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:01.000Z', '2026-11-20T10:00:01.000Z');
        INSERT INTO actions VALUES (2, 'ref2', 'sandbox', 'http://sandbox', 'refund', 'c1',
            '5.00', '{}', 'failed', NULL, '409', NULL, '2026-11-20T10:00:00.000Z',
            '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:01.000Z', '2026-11-20T10:00:01.000Z');
        PRAGMA user_version = 1;
        """
    )
    db.close()
    with Journal(path) as journal:
        assert (
            journal._store.connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        )
        old = journal.get(1)
        assert old is not None and old.state == "not_applied" and old.checked_at is None
        assert [e.id for e in journal.to_check(12.0)] == [1]  # never proven: read it again
        refused = journal.get(2)
        assert refused is not None and not refused.retryable  # a refusal stays final
        journal.record_intent(
            profile="sandbox",
            base_url="http://sandbox",
            operation="distribute",
            charge_id="c1",
            amount=None,
            request_summary={},
        )
    # Schema 2 (no update_refund in its CHECK) is rebuilt to 3 keeping every column.
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with Journal(path) as migrated:
        assert (
            migrated._store.connection.execute("PRAGMA user_version").fetchone()[0]
            == SCHEMA_VERSION
        )
        assert [e.state for e in migrated.list()] == ["pending", "failed", "not_applied"]
        migrated.record_intent(
            profile="sandbox",
            base_url="http://sandbox",
            operation="update_refund",
            charge_id="r1",
            amount=None,
            request_summary={"tags": ["x"]},
        )
    with Journal(path) as again:  # opening a current file changes nothing
        assert len(again.list()) == 4


async def test_the_deadline_is_the_clients_timeout(client: PaymentClient, journal: Journal) -> None:
    runner = ActionExecutor(
        client, journal, ActionPolicy(), profile=PROFILE, base_url=BASE_URL, settle_margin=1.5
    )
    client.timeout = 4.0
    assert runner.settle_seconds == 5.5
    client.timeout = 10.0
    assert runner.settle_seconds == 11.5


async def test_the_wait_for_the_deadline_is_visible_while_it_runs(
    executor: ActionExecutor, clock: FakeClock, sale: Charge, sandbox_faults: Faults
) -> None:
    """`settling()` names the entry being waited on and when its read-back proves the outcome
    (the dialog's countdown), and only while the wait lasts."""
    import asyncio

    waiting, release = asyncio.Event(), asyncio.Event()

    async def held_sleep(seconds: float) -> None:
        waiting.set()
        await release.wait()
        await clock.sleep(seconds)

    executor.sleep = held_sleep
    sandbox_faults.fail_status = 503
    sandbox_faults.fail_path_prefix = "/v2/refunds"
    sandbox_faults.fail_method = "POST"
    sandbox_faults.fail_count = 1
    running = asyncio.ensure_future(
        executor.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
    )
    await waiting.wait()
    settling = executor.settling("refund", sale.charge_id)
    assert settling is not None
    entry, ready = settling
    assert entry.sent_at is not None
    assert ready == entry.sent_at + timedelta(seconds=executor.settle_seconds)
    release.set()
    outcome = await running
    assert outcome.state == "not_applied"
    assert executor.settling("refund", sale.charge_id) is None


async def test_an_early_verdict_that_cannot_be_checked_again_blocks_repeat_and_retry(
    executor: ActionExecutor, journal: Journal, sale: Charge, wire: WireTransport
) -> None:
    """An unproven "not_applied" whose re-check fails proves nothing: neither a repeat of the
    refund nor a retry is sent."""
    from paytui.actions.errors import UnresolvedAction

    entry_id = _too_early_not_applied(journal, sale.charge_id, "2.00")
    wire.fail_gets = True
    with pytest.raises(UnresolvedAction):
        await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("2.00")))
    with pytest.raises(NotRetryable, match="Could not check again"):
        await executor.retry(entry_id)
    assert wire.posts("/refunds") == []


async def test_retry_of_an_entry_done_again_since_is_refused(
    executor: ActionExecutor, sale: Charge, sandbox_faults: Faults, wire: WireTransport
) -> None:
    """#1 proven not applied; the user refunds again (#2, done). Retrying #1 from History
    would refund twice: refused, nothing sent."""
    sandbox_faults.fail_status = 503
    sandbox_faults.fail_path_prefix = "/v2/refunds"
    sandbox_faults.fail_method = "POST"
    sandbox_faults.fail_count = 1
    first = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
    assert first.state == "not_applied"
    # Not applied *so far*: another is sent on the person's go-ahead naming it.
    again = await executor.run(
        "refund",
        sale.charge_id,
        refund_op.Params(Decimal("1.00")),
        acknowledge_earlier=first.entry_id,
    )
    assert again.succeeded
    with pytest.raises(NotRetryable, match=f"later refund \\(#{again.entry_id}\\)"):
        await executor.retry(first.entry_id)
    assert len(wire.posts("/refunds")) == 2


# ------------------------------------------------- the window starts when the request left


@pytest.fixture
def slow_service(sandbox_transport: httpx.AsyncBaseTransport, clock: FakeClock) -> ClockedService:
    """A service that commits 1 s after the client's 10 s deadline: within the 2 s margin."""
    return ClockedService(sandbox_transport, clock, commit_after=11.0, gives_up_after=10.0)


@pytest.fixture
async def slow_client(slow_service: ClockedService) -> AsyncIterator[PaymentClient]:
    api = PaymentClient(
        BASE_URL,
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=slow_service,
        timeout=10.0,
    )
    yield api
    await api.aclose()


class SlowDisk(Journal):
    """A journal whose durable "sent" write takes `seconds` of the clock (a loaded disk)."""

    def __init__(self, path: Path, clock: FakeClock, seconds: float) -> None:
        super().__init__(path)
        self.fake_clock, self.seconds = clock, seconds

    def transition(self, entry_id: int, new_state: str, **changes: Any) -> bool:
        if new_state == "sent":
            self.fake_clock.now += timedelta(seconds=self.seconds)
        return super().transition(entry_id, new_state, **changes)


async def test_a_slow_sent_write_does_not_shorten_the_wait_for_a_late_commit(
    slow_client: PaymentClient, slow_service: ClockedService, clock: FakeClock, tmp_path: Path
) -> None:
    """The chaos harness's tag edit under load: `sent_at` is stamped before the durable "sent"
    write; that write takes 3 s, so the PATCH leaves 3 s later and the client gives up at
    stamp + 13 s — past stamp + deadline + margin (12 s). The service commits 1 s after the
    client gave up. A read-back at once must not prove "not applied": the wait runs from when
    the client gave up, and the edit is found."""
    sale = await first_open(slow_client, ChargeQuery(charge_type="sale", status="success"))
    with SlowDisk(tmp_path / "journal.sqlite3", clock, seconds=3.0) as journal:
        executor = clocked_executor(slow_client, journal, clock)
        outcome = await executor.run(
            "update_charge", sale.charge_id, labels_op.Params(tags=["slow-disk"])
        )
        assert outcome.state == "succeeded", outcome.message
        entry = journal.get(outcome.entry_id)
        assert entry is not None and entry.sent_at is not None
        assert entry.settle_seconds == 10.0 + 3.0 + executor.settle_margin
        assert len(slow_service.committed) == 1 and slow_service.held == []
        assert (await slow_client.get_charge(sale.charge_id)).tags == ["slow-disk"]
        # Pressed again: nothing new is sent (the first one is known to have happened).
        again = await executor.run(
            "update_charge", sale.charge_id, labels_op.Params(tags=["slow-disk"])
        )
        assert again.succeeded and len(slow_service.committed) == 1


async def test_an_orphaned_sent_entry_waits_from_the_restart_not_from_its_stamp(
    slow_client: PaymentClient, slow_service: ClockedService, clock: FakeClock, journal: Journal
) -> None:
    """A process stamps a tag edit "sent", its disk stalls 10.5 s, the request leaves, and the
    process dies. The service commits 11 s after the request arrived (1 s past its deadline).
    The next process starts at once: the request left at some moment before that start, so
    "not found" proves nothing until the start + deadline + margin — not stamp + 12 s."""
    sale = await first_open(slow_client, ChargeQuery(charge_type="sale", status="success"))
    entry = journal.record_intent(
        profile=PROFILE,
        base_url=BASE_URL,
        operation="update_charge",
        charge_id=sale.charge_id,
        amount=None,
        request_summary={"tags": ["orphan"]},
        settle_seconds=12.0,
    )
    journal.transition(entry.id, "sent", expected={"pending"}, at=clock.now)
    clock.now += timedelta(seconds=10.5)
    slow_service.gives_up_after = 0.0  # it died at once
    with pytest.raises(TransportError):
        await slow_client.update_charge(sale.charge_id, tags=["orphan"])
    restarted = clocked_executor(slow_client, journal, clock)
    (settled,) = await restarted.reconcile_all(wait=True)
    assert settled.state == "succeeded", settled.error
    assert len(slow_service.committed) == 1


async def test_a_not_applied_verdict_is_proven_by_what_the_journal_stores(
    executor: ActionExecutor, clock: FakeClock, journal: Journal, sale: Charge
) -> None:
    """The journal keeps times to the millisecond; a window of 12.0004 s ends between two. A
    read-back 0.3 ms after it must not write a "not applied" whose stored `checked_at` (cut to
    the millisecond) is before the window's end: the verdict and its proof must agree."""
    entry = refund_intent(journal, sale.charge_id, "1.00", settle=12.0004)
    clock.now = clock.now.replace(microsecond=0)
    journal.transition(entry.id, "sent", expected={"pending"}, at=clock.now)
    journal.transition(entry.id, "unknown", expected={"sent"}, error="Timed out")
    clock.now += timedelta(seconds=12.0007)
    (settled,) = await executor.reconcile_all()
    assert settled.state in {"not_applied", "unknown"}
    assert (settled.state == "not_applied") == settled.proven(executor.settle_seconds)


async def test_the_wait_before_a_verdict_ends_on_a_whole_millisecond(
    executor: ActionExecutor, clock: FakeClock, journal: Journal, sale: Charge
) -> None:
    """A window of 12.0004 s ends inside a millisecond. The read-back after the wait is judged
    on its time cut to the millisecond, so the wait must run to the next whole one; otherwise
    the earlier refund stays "unknown" and the new one is refused (seen in a CI run)."""
    entry = refund_intent(journal, sale.charge_id, "1.00", settle=12.0004)
    clock.now = clock.now.replace(microsecond=0)
    journal.transition(entry.id, "sent", expected={"pending"}, at=clock.now)
    journal.transition(entry.id, "unknown", expected={"sent"}, error="Timed out")
    clock.now += timedelta(seconds=1)
    outcome = await executor.run(
        "refund", sale.charge_id, refund_op.Params(Decimal("1.00")), acknowledge_earlier=entry.id
    )
    earlier = journal.get(entry.id)
    assert earlier is not None and earlier.state == "not_applied"
    assert earlier.proven(executor.settle_seconds)
    assert outcome.state == "succeeded"
