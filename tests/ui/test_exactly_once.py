"""Issue 10 from the keyboard: a money action is applied once, and History tells the truth.

Each test counts what the SERVER holds afterwards and reads History. No test waits in real time:
where the executor would wait out a request deadline it runs on a fake clock (`FakeClock`, whose
sleep moves it at once), and the late commits are a service on that clock (`ClockedService`: the
client's timeout and the commit's delay are seconds of the fake clock). Workers are awaited.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Button, Input

from paytui.actions import ActionExecutor, ActionPolicy, Journal
from paytui.actions.ops import refund as refund_op
from paytui.actions.reconcile import REF_ATTRIBUTE
from paytui.api.client import PaymentClient
from paytui.api.models import Charge, RefundRequest
from paytui.api.queries import ChargeQuery
from paytui.sandbox.faults import Faults
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.history import HistoryScreen
from paytui.ui.screens.modals.confirm import MoneyActionModal
from tests.actions.support import ClockedService, FakeClock, WireTransport
from tests.ui.conftest import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, make_app, settle
from tests.ui.test_history import history_rows
from tests.ui.test_money_actions import message, modal, open_detail, refunds_of

PROFILE = "sandbox (embedded)"
SALES = ChargeQuery(charge_type="sale", status="success", method="card")


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


async def unrefunded_sale(app: PaytuiApp) -> Charge:
    client = await app.get_client()
    page = await client.search_charges_page(SALES, limit=50)
    for charge in page.items:
        if charge.reversal_flag or charge.chargebacks:
            continue
        if not await refunds_of(app, charge.charge_id):
            return charge
    raise AssertionError("no unrefunded sale in the demo data")


async def refund_from_detail(app: PaytuiApp, pilot: Any, charge_id: str, amount: str) -> Any:
    """Open the charge, press r, type the amount over the default (ctrl+a, ctrl+k: to the start,
    delete the rest), review (enter) and send (enter)."""
    await open_detail(app, pilot, charge_id)
    await pilot.press("r")
    dialog = await modal(app, pilot)
    await pilot.press("ctrl+a", "ctrl+k", *amount)
    assert dialog.query_one("#amount", Input).value == amount, (dialog.step, message(dialog))
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press("enter")
    await settle(app, pilot)
    return dialog


async def history(app: PaytuiApp, pilot: Any) -> list[list[str]]:
    while isinstance(app.screen, MoneyActionModal):
        await pilot.press("escape")
        await settle(app, pilot)
    await pilot.press("5")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    return history_rows(screen)


async def test_refund_pressed_again_after_an_unknown_outcome_refunds_once_and_says_so(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults, journal: Path
) -> None:
    """The refund commits, its answer is lost and the network goes down: "still unknown". With
    the network back, `r` again with the same amount: the earlier refund is found, the user is
    told, and nothing new is sent."""
    wire = WireTransport(sandbox_transport)

    def network_goes_down(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path == "/v2/refunds":
            wire.fail_gets = True

    app = make_app(wire, journal_path=journal)
    clock = FakeClock()  # nothing real is late: the read-back's wait costs no real time
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await unrefunded_sale(app)
        sandbox_faults.drop_after_commit = {"refund"}
        wire.on_send = network_goes_down
        dialog = await refund_from_detail(app, pilot, sale.charge_id, "5.00")
        assert dialog.outcome is not None and dialog.outcome.state == "unknown"
        assert "Still unknown" in message(dialog)
        assert not dialog.query_one("#retry").display

        sandbox_faults.drop_after_commit = set()
        wire.on_send = None
        wire.fail_gets = False  # the network is back
        await pilot.press("escape")
        await settle(app, pilot)
        again = await refund_from_detail(app, pilot, sale.charge_id, "5.00")
        (refund,) = await refunds_of(app, sale.charge_id)
        told = message(again)
        assert "The refund of 5.00 sent at" in told
        assert f"did go through: refund {refund.refund_id}" in told
        assert "Nothing new was sent" in told
        assert again.step == "review"
        assert str(again.query_one("#go", Button).label) == "Send another"
        assert len(wire.posts("/v2/refunds")) == 1

        rows = await history(app, pilot)
        assert len(await refunds_of(app, sale.charge_id)) == 1
        # The second press stood back: the audit trail keeps it as refused, with the reason.
        assert [(row[1], row[4], row[5]) for row in rows] == [
            ("refund", "refused", "—"),
            ("refund", "succeeded", refund.refund_id),
        ]
        assert "did go through" in rows[0][6]


async def test_a_late_commit_is_waited_for_and_found(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    """The service holds the refund past the client's timeout, then commits. The dialog waits
    until that commit would show (the deadline plus the margin) and reports it as done."""
    # On the fake clock: the client gives up after 10 s, the service commits 11 s after the
    # request arrived, and the verdict waits 2 s past the deadline (the default margin).
    clock = FakeClock()
    service = ClockedService(sandbox_transport, clock, commit_after=11.0, gives_up_after=10.0)
    app = make_app(service, journal_path=journal, timeout=10.0)
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep, "settle_margin": 2.0}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await unrefunded_sale(app)
        dialog = await refund_from_detail(app, pilot, sale.charge_id, "3.00")
        assert dialog.outcome is not None and dialog.outcome.state == "succeeded", message(dialog)
        assert "went through" in message(dialog) and "answer was lost" in message(dialog)
        assert len(service.committed) == 1 and service.held == []
        (refund,) = await refunds_of(app, sale.charge_id)
        assert dialog.outcome.result_id == refund.refund_id
        rows = await history(app, pilot)
        assert [(row[4], row[5]) for row in rows] == [("succeeded", refund.refund_id)]


class _Dies(BaseException):
    """The process dies: nothing in paytui catches it."""


class _DiesAfterSending(httpx.AsyncBaseTransport):
    """The refund reaches the service and is committed; the process dies before the answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and request.url.path == "/v2/refunds":
            raise _Dies
        return response


async def test_a_crash_between_send_and_answer_is_settled_at_start_and_not_repeated(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    probe = make_app(sandbox_transport, journal_path=journal)
    async with probe.run_test(size=(120, 40)) as pilot:
        await settle(probe, pilot)
        sale = await unrefunded_sale(probe)
    # The first paytui: intent journaled, refund sent and committed, then the process died.
    client = PaymentClient(
        "http://sandbox",
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=_DiesAfterSending(sandbox_transport),
    )
    with Journal(journal) as book:
        executor = ActionExecutor(
            client, book, ActionPolicy(), profile=PROFILE, base_url="http://sandbox"
        )
        with pytest.raises(_Dies):
            await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("4.00")))
        (entry,) = book.list()
        assert entry.state == "sent"
    await client.aclose()

    app = make_app(sandbox_transport, journal_path=journal)
    # The restart waits out the dead request's deadline before its read-back proves anything:
    # on the fake clock, at once (the refund committed long ago; nothing real is late).
    clock = FakeClock()
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await settle(app, pilot)
        (refund,) = await refunds_of(app, sale.charge_id)
        assert any("resolved" in n.message for n in app._notifications)
        rows = await history(app, pilot)
        assert [(row[4], row[5]) for row in rows] == [("succeeded", refund.refund_id)]
        # The user was not shown that verdict yet: `r` again tells them, and sends nothing.
        await pilot.press("escape")
        await settle(app, pilot)
        again = await refund_from_detail(app, pilot, sale.charge_id, "4.00")
        assert f"did go through: refund {refund.refund_id}" in message(again)
        assert len(await refunds_of(app, sale.charge_id)) == 1


async def test_retry_after_a_late_commit_finds_it_and_sends_nothing(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    """A commit later than the deadline plus the margin: the dialog says what its read-back
    proves — not found *so far* — and never invites a retry. By the time the user presses Retry
    the commit has landed: Retry reads back first, finds it, says so and sends nothing; History
    shows it "succeeded (late)"."""
    # On the fake clock: the verdict is read back 12 s after sending (10 s deadline, 2 s
    # margin); the service commits 20 s after the request arrived.
    clock = FakeClock()
    service = ClockedService(sandbox_transport, clock, commit_after=20.0, gives_up_after=10.0)
    app = make_app(service, journal_path=journal, timeout=10.0)
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep, "settle_margin": 2.0}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await unrefunded_sale(app)
        dialog = await refund_from_detail(app, pilot, sale.charge_id, "2.50")
        assert dialog.outcome is not None and dialog.outcome.state == "not_applied"
        said = message(dialog)
        assert "not made so far" in said and "try again" not in said.lower()
        assert service.committed == [] and len(service.held) == 1
        clock.now += timedelta(seconds=10)  # the person reads; meanwhile the commit lands
        (refund,) = await refunds_of(app, sale.charge_id)
        assert len(service.committed) == 1

        await pilot.click("#retry")
        await settle(app, pilot)
        assert f"It did happen after all: {refund.refund_id}" in message(dialog)
        assert len(await refunds_of(app, sale.charge_id)) == 1
        assert len(service.committed) == 1  # Retry sent nothing
        rows = await history(app, pilot)
        assert [(row[4], row[5]) for row in rows] == [("succeeded (late)", refund.refund_id)]
        assert "Applied late" in rows[0][6]


def test_countdown_words() -> None:
    from datetime import UTC, datetime, timedelta

    from paytui.ui.screens.modals.confirm import settling_text

    sent = datetime(2026, 11, 23, 14, 2, 11, tzinfo=UTC)
    ready = sent + timedelta(seconds=12)
    text = settling_text("refund", 7, sent, ready, sent + timedelta(seconds=3)).plain
    assert text == (
        "Checking the refund #7 sent at 14:02:11 UTC: an answer still in flight would show"
        " by 14:02:23 — 9 s"
    )


async def test_history_rechecks_a_not_applied_read_back_too_early(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    """A "not applied" from a read-back made before a commit in flight could show is no
    verdict: opening History reads it back again, and a commit found since corrects it."""
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await unrefunded_sale(app)
        with Journal(journal) as book:  # what an early look wrote after start-up
            entry = book.record_intent(
                profile=PROFILE,
                base_url="http://sandbox",
                operation="refund",
                charge_id=sale.charge_id,
                amount=Decimal("3.00"),
                request_summary={"total_amount": "3.00"},
                settle_seconds=12.0,
            )
            book.transition(entry.id, "sent", expected={"pending"})
            sent = book.get(entry.id)
            assert sent is not None
            book.transition(entry.id, "not_applied", expected={"sent"}, checked_at=sent.sent_at)
        client = await app.get_client()
        refund = await client.create_refund(  # ...and the service committed it after all
            RefundRequest(
                charge_id=sale.charge_id,
                total_amount=Decimal("3.00"),
                attributes={REF_ATTRIBUTE: [entry.client_reference]},
            )
        )
        await history(app, pilot)
        await settle(app, pilot)  # the re-check runs in History's loader
        rows = history_rows(app.screen)  # type: ignore[arg-type]
        assert [(row[4], row[5]) for row in rows] == [("succeeded (late)", refund.refund_id)]
        assert "Applied late" in rows[0][6]
        assert len(await refunds_of(app, sale.charge_id)) == 1


async def test_a_script_refunding_while_the_dialog_is_open_stops_the_dialogs_refund(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    """The refund dialog is at its review ("Refund 5.00 of the … left"); meanwhile a script on
    the same journal refunds the same charge. Enter sends nothing: the dialog says what changed,
    by whom; "Review again" reads the charge anew (the amount typed is kept) and only then can
    the person send — one refund from the script, one they chose knowingly."""
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await unrefunded_sale(app)
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("r")
        dialog = await modal(app, pilot)
        await pilot.press("ctrl+a", "ctrl+k", *"5.00")
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "review"

        client = PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=sandbox_transport,
        )
        with Journal(journal) as book:
            script = ActionExecutor(
                client,
                book,
                ActionPolicy(),
                profile="script",
                base_url="http://sandbox",
                actor="the command line of ana@desk-3",
            )
            done = await script.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        await client.aclose()
        assert done.succeeded

        await pilot.press("enter")
        await settle(app, pilot)
        told = message(dialog)
        assert "Nothing was sent" in told
        assert "refunded 5.00 by the command line of ana@desk-3" in told
        assert str(dialog.query_one("#go", Button).label) == "Review again"
        assert len(await refunds_of(app, sale.charge_id)) == 1

        await pilot.press("enter")  # review again: the form, with the new state and "5.00"
        await settle(app, pilot)
        assert dialog.step == "form"
        assert dialog.query_one("#amount", Input).value == "5.00"
        assert dialog.remaining == (sale.total_amount or 0) - Decimal("5.00")
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result" and dialog.outcome is not None
        assert dialog.outcome.succeeded
        assert len(await refunds_of(app, sale.charge_id)) == 2
