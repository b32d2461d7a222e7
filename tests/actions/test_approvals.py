"""Four eyes in the journal (`paytui.actions.journal_approvals`), on both engines: the database
refuses the requester as approver, a changed amount voids a request, each step is a link of a
trail that verifies, and of ten agents approving at once one wins."""

from __future__ import annotations

import threading
from decimal import Decimal
from pathlib import Path

import pytest

from paytui.actions.journal import Journal
from paytui.actions.journal_approvals import ApprovalRefused
from tests.actions.support import raw_sql

SERVICE = "http://sandbox"


def _request(journal: Journal, amount: str = "900.00") -> int:
    made = journal.request_approval(
        profile="production",
        base_url=SERVICE,
        operation="refund",
        charge_id="c" * 24,
        amount=Decimal(amount),
        agent="ana",
        machine="ws-1",
    )
    assert made.state == "waiting" and made.bound
    return made.id


def test_the_requester_cannot_approve_their_own(journal_location: Path | str) -> None:
    with Journal(journal_location) as journal:
        request = _request(journal)
        # Around paytui, straight in SQL: the database itself refuses it.
        with pytest.raises(Exception, match=r"approver_is_not_requester|CHECK constraint"):
            journal._store.run(
                "UPDATE approvals SET state = 'approved', decided_by = requested_by WHERE id = ?",
                (request,),
            )
        with pytest.raises(Exception, match=r"approver_is_not_requester|CHECK constraint"):
            journal.decide(request, approve=True, agent="ana", machine="ws-1")
        waiting = journal.approval(request)
        assert waiting is not None and waiting.state == "waiting"
        approved = journal.decide(request, approve=True, agent="ben", machine="ws-2")
        assert (approved.state, approved.decided_by) == ("approved", "ben")


def test_a_changed_amount_voids_the_request(journal_location: Path | str) -> None:
    with Journal(journal_location) as journal:
        request = _request(journal)
    raw_sql(journal_location, f"UPDATE approvals SET amount = '9000.00' WHERE id = {request};")
    with Journal(journal_location) as journal:
        with pytest.raises(ApprovalRefused, match="it is void; nothing was sent"):
            journal.decide(request, approve=True, agent="ben", machine="ws-2")
        void = journal.approval(request)
        assert void is not None and void.state == "void" and void.decided_by is None
        with pytest.raises(ApprovalRefused, match="is void already"):
            journal.decide(request, approve=True, agent="cy", machine="ws-3")


def test_requester_approver_and_send_are_links_of_a_trail_that_verifies(
    journal_location: Path | str,
) -> None:
    with Journal(journal_location) as journal:
        request = _request(journal)
        journal.decide(request, approve=True, agent="ben", machine="ws-2")
        entry = journal.record_intent(
            profile="production",
            base_url=SERVICE,
            operation="refund",
            charge_id="c" * 24,
            amount=Decimal("900.00"),
            request_summary={"total_amount": "900.00"},
            agent="ben",
            machine="ws-2",
        )
        assert journal.mark_sent(request, entry.id)
        assert not journal.mark_sent(request, entry.id)  # once
        links = journal._store.rows("SELECT kind, body FROM trail ORDER BY seq")
        steps = [row["body"] for row in links if row["kind"] == "approval"]
        assert ['"state":"waiting"' in steps[0], '"decided_by":"ben"' in steps[1]] == [True, True]
        assert f'"action_id":{entry.id}' in steps[2] and '"state":"sent"' in steps[2]
        assert journal.verify().ok


def test_ten_agents_approving_at_once_one_wins(journal_location: Path | str) -> None:
    with Journal(journal_location) as journal:
        request = _request(journal)
    journals = [Journal(journal_location) for _ in range(10)]
    won: list[str] = []
    told: list[str] = []
    start = threading.Barrier(10)

    def approve(n: int) -> None:
        start.wait()
        try:
            journals[n].decide(request, approve=True, agent=f"agent-{n}", machine=None)
        except ApprovalRefused as refused:
            told.append(str(refused))
        else:
            won.append(f"agent-{n}")

    threads = [threading.Thread(target=approve, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(won) == 1 and len(told) == 9
        assert all(f"is approved by {won[0]} already" in line for line in told), told
        assert journals[0].mark_sent(request, _intent_id(journals[0]))
        assert sum(j.mark_sent(request, 1) for j in journals[1:]) == 0
    finally:
        for journal in journals:
            journal.close()


def _intent_id(journal: Journal) -> int:
    entry = journal.record_intent(
        profile="production",
        base_url=SERVICE,
        operation="refund",
        charge_id="c" * 24,
        amount=Decimal("900.00"),
        request_summary={},
    )
    return entry.id
