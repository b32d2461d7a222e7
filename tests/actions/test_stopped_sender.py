"""An entry left unsettled by a paytui that stopped is never "being sent right now".

Met under the journal's lock (its intent written between this action's look at the past and
its own intent, then its sender gone), it is read back, and the decision is taken again on
what that shows: here it never left — but a read-back proves that only *so far* (a late commit
may still land), so this refund is sent on the person's go-ahead naming it, once."""

from __future__ import annotations

import socket
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.errors import NotAppliedSoFar
from paytui.actions.journal import Journal, JournalEntry
from paytui.actions.ops import refund as refund_op
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from tests.actions.support import BASE_URL, PROFILE, FakeClock, WireTransport, clocked_executor


def _gone() -> str:
    """A "host:pid" of this machine no process has: above the kernel's largest pid."""
    with open("/proc/sys/kernel/pid_max", encoding="ascii") as limit:
        return f"{socket.gethostname()}:{int(limit.read()) + 1}"


class StoppedInTheWay(Journal):
    """Just before this paytui's intent, another one wrote the same refund's intent, marked it
    sent, and stopped (its process is gone): the intent then meets it under the lock."""

    target: tuple[str, Decimal] | None = None
    stopped: JournalEntry | None = None

    def record_intent(self, **kwargs: Any) -> JournalEntry:
        if self.target is not None and self.stopped is None:
            charge_id, amount = self.target
            self.stopped = super().record_intent(
                profile=PROFILE,
                base_url=BASE_URL,
                operation="refund",
                charge_id=charge_id,
                amount=amount,
                request_summary={"total_amount": str(amount)},
                owner=_gone(),
                actor="the command line of ada@desk",
            )
            assert self.transition(self.stopped.id, "sent", expected={"pending"})
        return super().record_intent(**kwargs)


async def test_an_entry_whose_sender_stopped_is_read_back_not_called_in_flight(
    journal_path: Path, client: PaymentClient, wire: WireTransport, clock: FakeClock, sale: Charge
) -> None:
    with StoppedInTheWay(journal_path, clock=clock) as journal:
        executor = clocked_executor(client, journal, clock)
        journal.target = (sale.charge_id, Decimal("5.00"))
        with pytest.raises(NotAppliedSoFar) as refused:
            await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        assert journal.stopped is not None and refused.value.entry.id == journal.stopped.id
        assert "being sent" not in refused.value.message
        left = journal.get(journal.stopped.id)
        assert left is not None and left.state == "not_applied"
        assert len(wire.posts("/v2/refunds")) == 0
        outcome = await executor.run(
            "refund",
            sale.charge_id,
            refund_op.Params(Decimal("5.00")),
            acknowledge_earlier=journal.stopped.id,
        )
        assert outcome.state == "succeeded", outcome.message
        assert len(wire.posts("/v2/refunds")) == 1
        await executor.aclose()
