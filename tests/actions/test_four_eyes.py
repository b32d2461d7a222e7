"""Four eyes above a threshold (`paytui.actions.four_eyes`), through the one executor, on the
real sandbox and on both journals (this person's SQLite file and a team's PostgreSQL): above
`approve_above` nothing is sent and a request waits; another agent approves and it is sent
exactly once; the requester cannot approve their own; a change of the charge since the request
voids it; a rejection is final and names who; ten agents approving at once send one refund."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.actions import four_eyes
from paytui.actions.errors import TargetChanged
from paytui.actions.journal import Journal
from paytui.actions.journal_approvals import ApprovalRefused, ApprovalRequired
from paytui.actions.ops import refund as refund_op
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from tests.actions.support import FakeClock, clocked_executor, refunds_of
from tests.actions.test_stale_view import _chargeback

ABOVE = Decimal("3.00")


@pytest.fixture
def journal_path(journal_location: Path | str) -> Path | str:
    return journal_location


def _agent(client: PaymentClient, journal: Journal, clock: FakeClock, name: str) -> Any:
    return clocked_executor(
        client, journal, clock, agent=name, actor=f"the dashboard of {name}", approve_above=ABOVE
    )


async def _request(ana: Any, charge_id: str, amount: str = "5.00") -> int:
    basis = (await ana.observe("refund", charge_id)).with_shown()
    with pytest.raises(ApprovalRequired) as queued:
        await ana.run("refund", charge_id, refund_op.Params(Decimal(amount)), basis=basis)
    assert f"Request #{queued.value.approval.id} (refund {amount} of" in queued.value.message
    return queued.value.approval.id


async def test_above_the_threshold_nothing_is_sent_and_a_request_waits(
    client: PaymentClient, journal: Journal, clock: FakeClock, sale: Charge
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    assert await refunds_of(client, sale.charge_id) == []
    assert journal.list(limit=10) == []  # no action entry: nothing was about to leave
    (waiting,) = journal.approvals()
    assert (waiting.id, waiting.state, waiting.amount) == (request, "waiting", Decimal("5.00"))
    assert (waiting.requested_by, waiting.operation, waiting.charge_id) == (
        "ana",
        "refund",
        sale.charge_id,
    )
    # At or under the threshold it goes as ever: the gate is the threshold's, not always on.
    small = await ana.run("refund", sale.charge_id, refund_op.Params(ABOVE))
    assert small.succeeded


async def test_another_agent_approves_and_it_is_sent_exactly_once(
    client: PaymentClient,
    journal: Journal,
    journal_path: Path | str,
    clock: FakeClock,
    sale: Charge,
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    with Journal(journal_path) as theirs:
        ben = _agent(client, theirs, clock, "ben")
        outcome = await four_eyes.approve(ben, request)
        assert outcome.succeeded and outcome.entry_id is not None
        (refund,) = await refunds_of(client, sale.charge_id)
        assert refund.total_amount == Decimal("5.00")
        sent = theirs.approval(request)
        assert sent is not None and (sent.state, sent.decided_by, sent.action_id) == (
            "sent",
            "ben",
            outcome.entry_id,
        )
        entry = theirs.get(outcome.entry_id)
        assert entry is not None and entry.agent == "ben"
        # Once: approving or sending it again sends nothing.
        with pytest.raises(ApprovalRefused, match=r"is sent by ben already"):
            await four_eyes.send_approved(ben, request)
        cy = _agent(client, theirs, clock, "cy")
        with pytest.raises(ApprovalRefused, match=r"is sent by ben already"):
            await four_eyes.approve(cy, request)
        assert len(await refunds_of(client, sale.charge_id)) == 1
        # Requester, approver and the send are links of a trail that verifies.
        assert theirs.verify().ok


async def test_the_requester_cannot_approve_their_own(
    client: PaymentClient, journal: Journal, clock: FakeClock, sale: Charge
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    with pytest.raises(ApprovalRefused, match="approver_is_not_requester"):
        await four_eyes.approve(ana, request)
    assert await refunds_of(client, sale.charge_id) == []
    still = journal.approval(request)
    assert still is not None and still.state == "waiting"


async def test_a_chargeback_since_the_request_voids_it_and_nothing_is_sent(
    client: PaymentClient,
    journal: Journal,
    journal_path: Path | str,
    clock: FakeClock,
    sale: Charge,
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    _chargeback(sandbox_transport, sale.charge_id)  # the view ana asked on is stale now
    with Journal(journal_path) as theirs:
        ben = _agent(client, theirs, clock, "ben")
        with pytest.raises(TargetChanged, match=r"a chargeback of 1\.00 arrived"):
            await four_eyes.approve(ben, request)
        void = theirs.approval(request)
        assert void is not None and void.state == "void"
        assert "a chargeback of 1.00 arrived" in (void.reason or "")
        with pytest.raises(
            ApprovalRefused, match="is void already: the charge changed since it was requested"
        ):
            await four_eyes.approve(ben, request)
    assert await refunds_of(client, sale.charge_id) == []


async def test_a_refund_by_a_colleague_since_the_request_voids_it(
    client: PaymentClient,
    journal: Journal,
    journal_path: Path | str,
    clock: FakeClock,
    sale: Charge,
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    with Journal(journal_path) as theirs:
        ben = _agent(client, theirs, clock, "ben")
        small = await ben.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
        assert small.succeeded
        with pytest.raises(TargetChanged, match=r"refunded 1\.00 by the dashboard of ben"):
            await four_eyes.approve(ben, request)
    assert len(await refunds_of(client, sale.charge_id)) == 1


async def test_a_rejection_is_final_and_says_by_whom(
    client: PaymentClient,
    journal: Journal,
    journal_path: Path | str,
    clock: FakeClock,
    sale: Charge,
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    with Journal(journal_path) as theirs:
        ben = _agent(client, theirs, clock, "ben")
        rejected = await four_eyes.reject(ben, request, "customer asked for store credit")
        assert (rejected.state, rejected.decided_by) == ("rejected", "ben")
        cy = _agent(client, theirs, clock, "cy")
        with pytest.raises(ApprovalRefused) as told:
            await four_eyes.approve(cy, request)
        assert "is rejected by ben already (a rejection is final" in told.value.message
        assert "customer asked for store credit" in told.value.message
    assert await refunds_of(client, sale.charge_id) == []


async def test_what_is_sent_must_be_what_was_approved(
    client: PaymentClient,
    journal: Journal,
    journal_path: Path | str,
    clock: FakeClock,
    sale: Charge,
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    with Journal(journal_path) as theirs:
        ben = _agent(client, theirs, clock, "ben")
        theirs.decide(request, approve=True, agent="ben", machine=None)
        approved = theirs.approval(request)
        assert approved is not None
        basis = await ben.observe("refund", sale.charge_id)
        with pytest.raises(ApprovalRefused, match="it is not what request"):
            await ben.run(
                "refund",
                sale.charge_id,
                refund_op.Params(Decimal("6.00")),
                basis=basis,
                approval=approved,
            )
        assert theirs.list(limit=10) == []
        still = theirs.approval(request)
        assert still is not None and still.state == "approved"
    assert await refunds_of(client, sale.charge_id) == []


async def test_ten_agents_approving_at_once_send_one_refund(
    client: PaymentClient,
    journal: Journal,
    journal_path: Path | str,
    clock: FakeClock,
    sale: Charge,
) -> None:
    ana = _agent(client, journal, clock, "ana")
    request = await _request(ana, sale.charge_id)
    journals = [Journal(journal_path) for _ in range(10)]
    try:
        agents = [_agent(client, j, clock, f"agent-{n}") for n, j in enumerate(journals)]
        results = await asyncio.gather(
            *(four_eyes.approve(agent, request) for agent in agents), return_exceptions=True
        )
    finally:
        for opened in journals:
            opened.close()
    sent = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, ApprovalRefused)]
    assert len(sent) == 1 and sent[0].succeeded and len(refused) == 9, results
    assert len(await refunds_of(client, sale.charge_id)) == 1
