"""No money on a stale view (`paytui.actions.stale`): what the person saw is compared just before
sending — status, refunds, capture, chargebacks, tags — and anything new since, by anyone,
through paytui or not, stops the action with the change and who made it.

The changes are real ones on the in-process sandbox (its practice chargeback, a PATCH of tags),
made between the read (`observe`) and the send; the command line's case answers its prompt only
after the chargeback landed.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.actions.errors import PrecheckFailed, TargetChanged
from paytui.actions.journal import Journal
from paytui.actions.ops import labels as labels_op
from paytui.actions.ops import refund as refund_op
from paytui.actions.stale import check_unchanged
from paytui.api.client import PaymentClient
from paytui.api.models import Charge, RefundRequest
from paytui.api.queries import ChargeQuery
from paytui.commands import main
from paytui.commands.runtime import Io
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.actions.support import FakeClock, clocked_executor, refunds_of


def _chargeback(transport: httpx.AsyncBaseTransport, charge_id: str) -> None:
    """A chargeback arrives at the service (the sandbox's practice endpoint's own code)."""
    from paytui.sandbox import ledger
    from paytui.sandbox.models import ChargebackIn

    store = transport.app.state.store  # type: ignore[attr-defined]
    ledger.add_chargeback(store, charge_id, ChargebackIn(total_amount=Decimal("1.00")))


async def test_a_chargeback_between_review_and_send_stops_the_refund(
    client: PaymentClient,
    journal: Journal,
    clock: FakeClock,
    sale: Charge,
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    person = clocked_executor(client, journal, clock, actor="the dashboard of bo@desk-7")
    basis = (await person.observe("refund", sale.charge_id)).with_shown()
    assert basis.chargebacks == ()
    _chargeback(sandbox_transport, sale.charge_id)
    with pytest.raises(TargetChanged) as told:
        await person.run("refund", sale.charge_id, refund_op.Params(Decimal("2.00")), basis=basis)
    assert "a chargeback of 1.00 arrived (open), outside paytui" in told.value.message
    assert await refunds_of(client, sale.charge_id) == []
    # Reviewed again, the charge as it is now: a charged-back charge is not refunded at all.
    with pytest.raises(PrecheckFailed, match="charged-back"):
        await person.observe("refund", sale.charge_id)


async def test_tags_changed_through_paytui_name_who_and_outside_paytui_says_so(
    client: PaymentClient, journal: Journal, journal_path: Path, clock: FakeClock, sale: Charge
) -> None:
    person = clocked_executor(client, journal, clock, actor="the dashboard of bo@desk-7")
    with Journal(journal_path) as other:
        colleague = clocked_executor(
            client, other, clock, actor="the command line of ana@ws-3", agent="ana"
        )
        basis = (await person.observe("refund", sale.charge_id)).with_shown()
        edited = await colleague.run(
            "update_charge", sale.charge_id, labels_op.Params(tags=[*sale.tags, "do-not-refund"])
        )
        assert edited.succeeded
        with pytest.raises(TargetChanged) as told:
            await person.run(
                "refund", sale.charge_id, refund_op.Params(Decimal("2.00")), basis=basis
            )
    assert "tagged do-not-refund by the command line of ana@ws-3" in told.value.message
    assert told.value.earlier is not None and told.value.earlier.agent == "ana"
    # The same kind of change made on the service directly: no journal entry, so "outside".
    basis = (await person.observe("refund", sale.charge_id)).with_shown()
    await client.update_charge(sale.charge_id, tags=list(sale.tags))
    with pytest.raises(TargetChanged) as told:
        await person.run("refund", sale.charge_id, refund_op.Params(Decimal("2.00")), basis=basis)
    assert "untagged do-not-refund outside paytui" in told.value.message
    assert await refunds_of(client, sale.charge_id) == []


async def test_a_refund_whose_sender_has_not_recorded_it_yet_names_that_sender(
    client: PaymentClient, journal: Journal, journal_path: Path, clock: FakeClock, sale: Charge
) -> None:
    """Another agent's request landed but its answer is not back: the service already lists
    the refund, the journal's entry still holds no refund id. That agent made it — the person
    is told who is sending it, never "outside paytui"."""
    person = clocked_executor(client, journal, clock, actor="the dashboard of bo@desk-7")
    basis = (await person.observe("refund", sale.charge_id)).with_shown()
    with Journal(journal_path) as other:
        entry = other.record_intent(
            profile="sandbox",
            base_url=person.base_url,
            operation="refund",
            charge_id=sale.charge_id,
            amount=Decimal("2.00"),
            request_summary={"total_amount": "2.00"},
            actor="the command line of ana@ws-3",
            agent="ana",
            owner="ws-3:4242",
            machine="ws-3",
        )
        other.transition(entry.id, "sent", expected={"pending"})
    refund = await client.create_refund(
        RefundRequest(charge_id=sale.charge_id, total_amount="2.00")
    )
    with pytest.raises(TargetChanged) as told:
        await check_unchanged(person, basis)
    assert (
        f"(refund {refund.refund_id}): a refund is being sent by the command line of ana@ws-3"
        in (told.value.message)
    )
    assert "outside paytui" not in told.value.message
    assert told.value.earlier is not None and told.value.earlier.id == entry.id


class _AnswerAfter(io.StringIO):
    """The terminal's answer "y", typed only after `then` ran (the service changed meanwhile)."""

    def __init__(self, then: Any) -> None:
        super().__init__()
        self.then = then

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        self.then()
        return "y\n"


def test_the_command_line_refuses_a_stale_read_with_exit_8(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    def demo_client() -> PaymentClient:
        return PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=sandbox_transport,
        )

    async def a_sale() -> str:
        async with demo_client() as client:
            page = await client.search_charges_page(
                ChargeQuery(charge_type="sale", status="success", method="card"), limit=50
            )
            for charge in page.items:
                if not charge.chargebacks and not await refunds_of(client, charge.charge_id):
                    return charge.charge_id
        raise AssertionError("no plain sale")

    charge_id = asyncio.run(a_sale())
    out, err = io.StringIO(), io.StringIO()

    # As `tests.cli_support.cli_runner`, with an answer typed only after the service changed.
    @contextlib.asynccontextmanager
    async def connector(_connection: Any) -> Any:
        async with demo_client() as client:
            yield client

    code = main(
        ["refunds", "create", charge_id, "--amount", "2.00"],
        io=Io(
            out=out,
            err=err,
            inp=_AnswerAfter(lambda: _chargeback(sandbox_transport, charge_id)),
            interactive=True,
        ),
        connector=connector,
        journal_path=tmp_path / "journal.sqlite3",
        environ={},
    )
    assert code == 8, err.getvalue()
    told = err.getvalue()
    assert "Nothing was sent: the charge changed since it was read" in told, told
    assert "a chargeback of 1.00 arrived (open), outside paytui" in told, told
    assert "Run the command again" in told and "Traceback" not in told


async def test_the_stale_view_harness_sends_nothing_on_a_stale_view(postgres_server: str) -> None:
    """`python -m benchmarks.chaos --team`'s small fixed-seed sample: every change refused and
    named, the control sent."""
    from benchmarks.chaos_stale import run_stale

    result = await run_stale(8, 7, postgres_server)  # every kind of change
    assert result["sent_on_stale"] == 0 and result["failures"] == 0, result
    assert result["refused"] == result["named"] == 8 - result["by_change"]["none"].get("runs", 0)
    assert result["control_sent"] == result["by_change"]["none"].get("runs", 0)
