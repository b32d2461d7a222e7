"""A commit after the read-back (issue 38, point 3): "not applied" is proven only so far.

The second service commits a refund 15 s after it arrives, while the client gives up after its
10 s deadline and the read-back proves "not applied" at 12 s — the assumption the proof rests on
("committed within the deadline plus a margin, or never") broken, on the fake clock
(`ClockedService`). Within the profile's late window (10 min by default) paytui never says "you
may try again": a retry, or a fresh refund of the same charge, reads the service again first —
finds the late refund and records it "succeeded (late)", sending nothing — and while it is still
not there, sends nothing without the person's go-ahead naming it. `history check` (start-up's
reconciliation) reads such entries again within the window. One refund lands, never two.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.errors import EarlierAttemptApplied, NotAppliedSoFar, NotRetryable
from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from tests.actions.support import ClockedService, FakeClock, clocked_executor
from tests.second_service.app import SecondService
from tests.second_service.fixtures import client_for
from tests.second_service.test_answer_status import sale_of

FIVE = Decimal("5.00")


@asynccontextmanager
async def late_service(
    make: Callable[..., SecondService], tmp_path: Path, **options: Any
) -> AsyncIterator[tuple[SecondService, ClockedService, Any, FakeClock]]:
    """A service that commits a write 15 s after it arrives; the client gives up at 10 s."""
    service = make(echo_attributes=True)
    clock = FakeClock()
    held = ClockedService(service.transport, clock, commit_after=15, gives_up_after=10)
    async with client_for(service, transport=held, timeout=10.0) as client:
        with Journal(tmp_path / "journal.sqlite3") as journal:
            executor = clocked_executor(
                client, journal, clock, base_url=service.base_url, **options
            )
            try:
                yield service, held, executor, clock
            finally:
                await executor.aclose()


async def refund_read_back_too_soon(service: SecondService, executor: Any) -> tuple[Any, Any]:
    """5.00 of a sale refunded, and read back "not applied" before the service commits it: the
    sale and the outcome."""
    sale = sale_of(service)
    first = await executor.run("refund", sale.charge_id, refund_op.Params(FIVE))
    assert first.state == "not_applied"
    return sale, first


def refunds_made(service: SecondService, charge_id: str) -> int:
    return sum(1 for r in service.store.refunds if r.charge_id == charge_id)


async def test_a_refund_committed_after_the_read_back_is_found_and_never_sent_twice(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    async with late_service(second_service, tmp_path) as (service, held, executor, clock):
        # Read back after the deadline and the margin: nothing there — yet.
        sale, first = await refund_read_back_too_soon(service, executor)
        message = first.message or ""
        assert "try again" not in message.lower()
        assert "not applied so far" in message and "could still apply it until" in message
        assert " 12 s after it was sent" in message  # what was checked, and when
        # Retry pressed at once: read again, still not there, and nothing is sent.
        with pytest.raises(NotAppliedSoFar, match=f"#{first.entry_id}") as refused:
            await executor.retry(first.entry_id)
        assert "nor now at" in refused.value.message
        # A fresh refund of the same charge: the same.
        with pytest.raises(NotAppliedSoFar):
            await executor.run("refund", sale.charge_id, refund_op.Params(FIVE))
        assert len(held.committed) == 0 and refunds_made(service, sale.charge_id) == 0
        # The service commits it at 15 s. The next attempt finds it: succeeded (late).
        clock.now += timedelta(seconds=4)
        with pytest.raises(EarlierAttemptApplied) as found:
            await executor.run("refund", sale.charge_id, refund_op.Params(FIVE))
        assert not isinstance(found.value, NotAppliedSoFar)
        assert "did go through" in found.value.message and "Applied late" in found.value.message
        entry = executor.journal.get(first.entry_id)
        assert entry.state == "succeeded" and entry.late
        assert refunds_made(service, sale.charge_id) == 1
        # And a retry of it now says it happened after all.
        with pytest.raises(NotRetryable, match="happen after all"):
            await executor.retry(first.entry_id)
    assert refunds_made(service, sale.charge_id) == 1


async def test_history_check_reads_a_not_applied_again_within_the_window(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    async with late_service(second_service, tmp_path) as (service, _held, executor, clock):
        _sale, first = await refund_read_back_too_soon(service, executor)
        clock.now += timedelta(seconds=4)  # the late commit lands
        entries = await executor.reconcile_all(wait=True)
        assert [(e.id, e.state, e.late) for e in entries] == [(first.entry_id, "succeeded", True)]


async def test_the_go_ahead_naming_it_sends_another_and_after_the_window_none_is_needed(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    async with late_service(second_service, tmp_path) as (service, held, executor, _clock):
        _sale, one = await refund_read_back_too_soon(service, executor)
        # The person saw "not found so far" and confirms another, naming it: it is sent.
        with pytest.raises(NotAppliedSoFar) as refused:
            await executor.run("refund", one.charge_id, refund_op.Params(FIVE))
        again = await executor.run(
            "refund",
            one.charge_id,
            refund_op.Params(FIVE),
            acknowledge_earlier=refused.value.entry.id,
        )
        assert again.entry_id != one.entry_id
        assert len(held.held) + len(held.committed) == 2  # two sent, as the person asked
    # With a window of 0, a proven "not applied" is final at once: no second look is asked.
    async with late_service(second_service, tmp_path / "zero", late_window=timedelta(0)) as (
        service,
        held,
        executor,
        _clock,
    ):
        _sale, first = await refund_read_back_too_soon(service, executor)
        second = await executor.retry(first.entry_id)
        assert second.entry_id != first.entry_id
        assert len(held.held) + len(held.committed) == 2


async def test_a_bulk_refund_never_counts_a_not_applied_so_far_as_done(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    """A bulk refund of a charge whose earlier refund is only "not applied so far": nothing is
    sent (it may still land), and the item is not "succeeded" — no refund is there to show for
    it, and a resume must not take it as done — nor is the earlier entry marked as seen done."""
    from paytui.actions.batch import BatchRunner, plan_batch, summarise
    from paytui.actions.batch_log import BatchLog

    async with late_service(second_service, tmp_path) as (service, held, executor, _clock):
        sale, first = await refund_read_back_too_soon(service, executor)
        charge = await executor.client.get_charge(sale.charge_id)
        log = BatchLog(executor.journal.path)
        try:
            record = await BatchRunner(executor, log).start(plan_batch("refund", [charge]))
        finally:
            log.close()
        (item,) = record.items
        assert len(held.held) + len(held.committed) == 1  # the first refund only: none sent
        assert item.state == "unknown" and item.entry_id == first.entry_id
        assert item.message is not None and "not found" in item.message
        assert summarise(record).succeeded == 0
        assert executor.journal.get(first.entry_id).state == "not_applied"


async def test_a_go_ahead_given_on_not_found_so_far_does_not_cover_one_that_landed_since(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    """The go-ahead naming an earlier refund was given on "not found so far". If it has landed
    since, that view is stale: it is read again, recorded "succeeded (late)", and nothing is
    sent until the person is told it went through (and names it again)."""
    async with late_service(second_service, tmp_path) as (service, held, executor, clock):
        sale, first = await refund_read_back_too_soon(service, executor)
        with pytest.raises(NotAppliedSoFar) as refused:
            await executor.run("refund", sale.charge_id, refund_op.Params(FIVE))
        clock.now += timedelta(seconds=4)  # the late commit lands before the go-ahead arrives
        with pytest.raises(EarlierAttemptApplied) as found:
            await executor.run(
                "refund",
                sale.charge_id,
                refund_op.Params(FIVE),
                acknowledge_earlier=refused.value.entry.id,
            )
        assert not isinstance(found.value, NotAppliedSoFar)
        assert "did go through" in found.value.message
        assert executor.journal.get(first.entry_id).late
        assert refunds_made(service, sale.charge_id) == 1
        # Told it went through, the person names it again: now another one is sent.
        again = await executor.run(
            "refund", sale.charge_id, refund_op.Params(FIVE), acknowledge_earlier=first.entry_id
        )
        assert again.entry_id != first.entry_id
        assert len(held.held) + len(held.committed) == 2  # the second sent, as asked
