"""Two processes on one journal (the app and `paytui refunds create`), and the audit trail.

Each "process" is its own `Journal` (its own SQLite connection, as another process has) and its
own `ActionExecutor`; they share the journal file and the service.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from paytui.actions.errors import ActionError, ActionRefused, PrecheckFailed
from paytui.actions.journal import Journal, JournalConflict, JournalEntry
from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import refund as refund_op
from paytui.actions.policy import ActionPolicy
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from tests.actions.support import (
    BASE_URL,
    PROFILE,
    FakeClock,
    WireTransport,
    clocked_executor,
    refunds_of,
)


@pytest.fixture
def journal_path(journal_location: Path | str) -> Path | str:
    """These tests run on both engines: a file, and a team's PostgreSQL."""
    return journal_location


async def test_two_processes_refunding_the_same_charge_at_once_send_one_refund(
    client: PaymentClient,
    wire: WireTransport,
    journal: Journal,
    journal_path: Path,
    clock: FakeClock,
    sale: Charge,
) -> None:
    with Journal(journal_path) as other_journal:
        app = clocked_executor(client, journal, clock, client_id="cli-client")
        cli = clocked_executor(client, other_journal, clock, client_id="cli-client")
        # Both looked at the charge before either sent: whichever order the two then run in
        # (the scheduler's choice), the second is measured against what its person saw.
        seen = [await actor.observe("refund", sale.charge_id) for actor in (app, cli)]
        results = await asyncio.gather(
            app.run("refund", sale.charge_id, refund_op.Params(reason="app"), basis=seen[0]),
            cli.run("refund", sale.charge_id, refund_op.Params(reason="cli"), basis=seen[1]),
            return_exceptions=True,
        )
    outcomes = [r for r in results if not isinstance(r, BaseException)]
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(outcomes) == 1 and outcomes[0].succeeded
    assert len(errors) == 1 and isinstance(errors[0], ActionError), errors
    assert len(wire.posts("/v2/refunds")) == 1
    assert len(await refunds_of(client, sale.charge_id)) == 1
    # The one that stood back is in the audit trail as refused, with its reason and client.
    refused = [row for row in journal.audit() if row.outcome == "refused"]
    assert [(r.operation, r.charge_id, r.client_id) for r in refused] == [
        ("refund", sale.charge_id, "cli-client")
    ]


def _capture_intent(journal: Journal, charge_id: str, seen: int) -> JournalEntry:
    return journal.record_intent(
        profile=PROFILE,
        base_url=BASE_URL,
        operation="capture",
        charge_id=charge_id,
        amount=None,
        request_summary={},
        guard_since=seen,
    )


def test_record_intent_refuses_an_unsettled_entry_of_the_same_target(journal_path: Path) -> None:
    with Journal(journal_path) as one, Journal(journal_path) as two:
        seen = two.last_id()
        first = _capture_intent(one, "c1", one.last_id())
        with pytest.raises(JournalConflict) as caught:
            _capture_intent(two, "c1", seen)
        assert caught.value.entry.id == first.id
        # Another charge is not in the way; neither is a settled failure.
        _capture_intent(two, "c2", seen)
        one.transition(first.id, "failed", expected={"pending"}, error="402 declined")
        _capture_intent(two, "c1", two.last_id())
        assert len(list(one.audit(limit=None))) == 3


def _ticking() -> Callable[[], datetime]:
    """A journal clock a second apart per call, so the trail's order is the order of events."""
    moments = itertools.count()
    start = datetime(2026, 11, 20, 10, tzinfo=UTC)
    return lambda: start + timedelta(seconds=next(moments))


async def test_refusals_and_failures_are_audited_and_filtered(
    client: PaymentClient, journal_path: Path, clock: FakeClock, sale: Charge
) -> None:
    journal = Journal(journal_path, clock=_ticking())
    read_only = clocked_executor(
        client, journal, clock, ActionPolicy(read_only=True), client_id="cli-client"
    )
    with pytest.raises(ActionRefused):
        await read_only.run("refund", sale.charge_id, refund_op.Params())
    runner = clocked_executor(client, journal, clock, client_id="cli-client")
    with pytest.raises(PrecheckFailed):
        await runner.run(
            "capture", sale.charge_id, capture_op.Params()
        )  # a sale is not an authorization
    outcome = await runner.run("refund", sale.charge_id, refund_op.Params(amount=sale.total_amount))
    assert outcome.succeeded
    again = await runner.run(
        "refund", sale.charge_id, refund_op.Params(amount=sale.total_amount)
    )  # the service says no
    assert again.state == "failed"

    rows = list(journal.audit())
    assert [(r.operation, r.outcome) for r in rows] == [
        ("refund", "failed"),
        ("refund", "succeeded"),
        ("capture", "refused"),
        ("refund", "refused"),
    ]
    assert rows[0].reason  # the service's reason is kept
    assert "read-only" in (rows[3].reason or "")
    assert all(r.client_id == "cli-client" and r.profile == PROFILE for r in rows)
    assert [r.outcome for r in journal.audit(outcome="refused", operation="capture")] == ["refused"]
    assert list(journal.audit(charge_id="nope")) == []
    journal.close()
