"""History (`5`) and the issue's "done when": with the sandbox dropping the answer after it
committed a capture, pressing capture repeatedly and restarting the app leaves exactly one
capture on the server, and History shows it as succeeded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable, Static

from paytui.actions import Journal
from paytui.actions.audit import AuditFilter
from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import refund as refund_op
from paytui.api.queries import ChargeQuery
from paytui.sandbox.faults import Faults
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.history import HistoryScreen, history_title
from paytui.ui.screens.modals.confirm import MoneyActionModal
from tests.ui.conftest import make_app, settle
from tests.ui.test_money_actions import OPEN_AUTHS, captures_of, find, notes, open_detail

AppFactory = Callable[..., PaytuiApp]


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def history_rows(screen: HistoryScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def capture_from_detail(app: PaytuiApp, pilot: Any, charge_id: str) -> MoneyActionModal:
    detail = await open_detail(app, pilot, charge_id)
    assert detail.charge is not None, notes(app)  # `c` is offered on a charge read, not before
    await pilot.press("c")
    await settle(app, pilot)
    dialog = app.screen
    assert isinstance(dialog, MoneyActionModal), (type(dialog).__name__, notes(app))
    return dialog


async def test_drop_after_commit_then_restart_leaves_one_capture(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults, journal: Path
) -> None:
    sandbox_faults.drop_after_commit = {"capture"}
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, OPEN_AUTHS)
        dialog = await capture_from_detail(app, pilot, auth.charge_id)
        await pilot.press("enter")  # review
        sandbox_faults.delay_seconds = 0.2
        await pilot.press("enter", "enter", "enter", "enter")  # capture, then impatient presses
        await settle(app, pilot)
        await app.actions.ready.aclose()
        await settle(app, pilot)
        sandbox_faults.delay_seconds = 0
        outcome = dialog.outcome
        assert outcome is not None and outcome.state == "succeeded"
        assert outcome.reconciled  # the answer was lost: proven by the read-back, not resent
        captures = await captures_of(app, auth.charge_id)
        assert len(captures) == 1
        assert outcome.result_id == captures[0].charge_id
        # Capture again: disabled on the detail, which read the captured authorization back.
        while (
            not isinstance(app.screen, ChargeDetailScreen) or app.screen.charge_id != auth.charge_id
        ):
            await pilot.press("escape")
            await settle(app, pilot)
        detail = app.screen
        await pilot.press("c")
        await settle(app, pilot)
        assert app.screen is detail
        assert "Already captured" in (detail.disabled_reason("capture") or "")
    # Restart: a new app on the same sandbox database and the same journal.
    sandbox_faults.drop_after_commit = set()
    restarted = make_app(sandbox_transport, journal_path=journal)
    async with restarted.run_test(size=(120, 40)) as pilot:
        await settle(restarted, pilot)
        assert len(await captures_of(restarted, auth.charge_id)) == 1
        await pilot.press("5")
        await settle(restarted, pilot)
        history = restarted.screen
        assert isinstance(history, HistoryScreen)
        rows = history_rows(history)
        assert len(rows) == 1
        assert rows[0][1] == "capture" and rows[0][2] == auth.charge_id
        assert rows[0][4] == "succeeded" and rows[0][5] == captures[0].charge_id


async def test_start_up_resolves_an_unknown_entry_and_says_so(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    """A crash after sending (journal says "sent"): the next start reads it back."""
    probe = make_app(sandbox_transport, journal_path=journal)
    async with probe.run_test(size=(120, 40)) as pilot:
        await settle(probe, pilot)
        auth = await find(probe, OPEN_AUTHS)
        client = await probe.get_client()
        capture = await client.capture(auth.charge_id)  # applied by the service...
    with Journal(journal) as book:  # ...but the app died before writing the outcome
        entry = book.record_intent(
            profile="sandbox (embedded)",
            base_url="http://sandbox",
            operation="capture",
            charge_id=auth.charge_id,
            amount=auth.total_amount,
            request_summary={},
        )
        book.transition(entry.id, "sent", expected={"pending"})
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await settle(app, pilot)
        assert any("1 unresolved action was resolved" in n.message for n in app._notifications)
        await pilot.press("5")
        await settle(app, pilot)
        rows = history_rows(app.screen)  # type: ignore[arg-type]
        assert rows[0][4] == "succeeded" and rows[0][5] == capture.charge_id


async def test_history_lists_newest_first_and_opens_the_charge(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, OPEN_AUTHS)
        executor = await app.actions.executor()
        await executor.run("capture", auth.charge_id, capture_op.Params())
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        await executor.run("refund", sale.charge_id, refund_op.Params())
        await pilot.press("5")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        rows = history_rows(history)
        assert [r[1] for r in rows] == ["refund", "capture"]
        title = str(history.query_one("#history-title", Static).render())
        assert title == "This machine's actions and refused attempts, newest first"
        assert history.check_action("retry", ()) is None  # succeeded: nothing to retry
        assert history.check_action("check_again", ()) is None
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert app.screen.charge_id == sale.charge_id


async def test_history_retries_only_what_did_not_happen(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults, journal: Path
) -> None:
    """A refusal (409) is final: no retry. A 5xx before the commit, proven not applied after the
    deadline (a fake executor clock: nothing real is late), is retried on t, once."""
    from decimal import Decimal

    from tests.actions.support import FakeClock

    app = make_app(sandbox_transport, journal_path=journal)
    clock = FakeClock()
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        executor = await app.actions.executor()
        sandbox_faults.fail_status = 409
        sandbox_faults.fail_path_prefix = "/v2/refunds"
        sandbox_faults.fail_method = "POST"
        sandbox_faults.fail_count = 1
        refused = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
        assert refused.state == "failed"
        sandbox_faults.fail_status = 503
        sandbox_faults.fail_count = 1
        failed = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("2.00")))
        assert failed.state == "not_applied"
        await pilot.press("5")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        assert history.check_action("retry", ()) is True  # the not-applied one, on top
        await pilot.press("down")
        assert history.check_action("retry", ()) is None  # the refusal
        await pilot.press("t")
        await settle(app, pilot)
        assert len(history_rows(history)) == 2  # nothing was sent
        await pilot.press("up", "t")
        await settle(app, pilot)
        # Not applied *so far* (a late commit may still land): read again, nothing sent (the
        # refusal is in the trail), and the next t on it is the go-ahead.
        assert [row[4] for row in history_rows(history)] == ["refused", "not applied", "failed"]
        assert any("press t again" in n.message for n in app._notifications)
        await pilot.press("t")
        await settle(app, pilot)
        rows = history_rows(history)
        # (The refusal and the retry carry the same time on this clock: their order is free.)
        assert sorted(row[4] for row in rows) == ["failed", "not applied", "refused", "succeeded"]
        (retried,) = [row for row in rows if row[4] == "succeeded"]
        assert "retry of" in retried[6]


async def test_unknown_that_did_not_happen_is_retried_only_by_the_user(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    """An unknown capture that never reached the service: start-up proves "not applied";
    nothing is resent until the user presses R in History."""
    from tests.ui.conftest import frozen_clock

    probe = make_app(sandbox_transport, journal_path=journal)
    async with probe.run_test(size=(120, 40)) as pilot:
        await settle(probe, pilot)
        auth = await find(probe, OPEN_AUTHS)
    with Journal(journal, clock=frozen_clock) as book:
        entry = book.record_intent(
            profile="sandbox (embedded)",
            base_url="http://sandbox",
            operation="capture",
            charge_id=auth.charge_id,
            amount=auth.total_amount,
            request_summary={},
        )
        book.transition(entry.id, "sent", expected={"pending"})
        book.transition(entry.id, "unknown", expected={"sent"}, error="Timed out")
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await settle(app, pilot)
        assert await captures_of(app, auth.charge_id) == []  # start-up never resends
        await pilot.press("5")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        assert history_rows(history)[0][4] == "not applied"
        assert history.check_action("retry", ()) is True
        await pilot.press("t")
        await settle(app, pilot)
        assert len(await captures_of(app, auth.charge_id)) == 1
        rows = history_rows(history)
        assert rows[0][4] == "succeeded" and f"retry of #{entry.id}" in rows[0][6]


def test_the_title_says_whose_actions_are_listed() -> None:
    """A team journal lists every agent's actions: its title never says "this machine"."""
    assert history_title("postgresql", "prod", AuditFilter()) == (
        "Every agent's actions and refused attempts on the team journal, newest first"
    )
    assert history_title("postgresql", "prod", AuditFilter(agent="ana", profile="eu")) == (
        "ana's actions and refused attempts on the team journal, profile eu, newest first"
    )
    assert history_title("sqlite", "prod", AuditFilter(profile="prod")) == (
        "This machine's actions and refused attempts, newest first"
    )


def test_outcome_words() -> None:
    from paytui.actions import ActionOutcome
    from paytui.ui.screens.modals.confirm import outcome_text

    def said(state: str, **kwargs: Any) -> str:
        outcome = ActionOutcome(1, "capture", "c1", state, **kwargs)
        return outcome_text(outcome, "capture").plain

    assert said("succeeded", result_id="new1").startswith("The capture went through: new1")
    assert said("not_applied").startswith("Not found at the service")
    assert "Retry" not in said("not_applied")
    assert said("failed", message="Invalid (422)").endswith("Invalid (422)")
    assert said("unknown").startswith("Still unknown — check again in History")


async def test_production_retry_from_history_asks_for_the_phrase(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults, journal: Path
) -> None:
    from decimal import Decimal

    from paytui.api.queries import RefundQuery
    from paytui.ui.screens.modals.confirm import TypedConfirmModal
    from tests.actions.support import FakeClock

    app = make_app(sandbox_transport, journal_path=journal, environment="production")
    clock = FakeClock()
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        executor = await app.actions.executor()
        sandbox_faults.fail_status = 503
        sandbox_faults.fail_path_prefix = "/v2/refunds"
        sandbox_faults.fail_method = "POST"
        sandbox_faults.fail_count = 1
        failed = await executor.run(
            "refund", sale.charge_id, refund_op.Params(Decimal("1.00")), confirmation="1.00"
        )
        assert failed.state == "not_applied"
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        await pilot.press("t")  # the second: the go-ahead for one not applied so far
        await settle(app, pilot)
        prompt = app.screen
        assert isinstance(prompt, TypedConfirmModal) and prompt.phrase == "1.00"
        await pilot.press(*"1.00", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)
        client = await app.get_client()
        page = await client.search_refunds_page(RefundQuery(charge_id=sale.charge_id))
        assert sum(1 for r in page.items if r.total_amount == Decimal("1.00")) >= 1
        assert [e.state for e in executor.history()] == ["succeeded", "not_applied"]


async def test_at_80_columns_a_refusal_keeps_its_reason(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    """80x24 (issue 22, item 10): a refusal's reason (Message) stays and the result id goes
    first; with no message on any row, no Message column takes the ids' room."""
    from decimal import Decimal

    from tests.ui.conftest import screen_text

    app = make_app(sandbox_transport, journal_path=tmp_path / "journal.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        executor = await app.actions.executor()
        await executor.record_refusal(
            "refund", "0123456789abcdef01234567", "Nothing left to refund", Decimal("5.00")
        )
        await pilot.press("5")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)
        text = screen_text(app)
        assert "Message" in text and "Nothing lef" in text, text


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_reason_is_read_whole_at_80_and_120_columns(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path, size: tuple[int, int]
) -> None:
    """Issue 44: History cut a refusal's reason to 11 characters at 120 columns and dropped it
    at 80. The row under the cursor has its reason whole under the table, wrapped."""
    from tests.ui.conftest import screen_text

    reason = (
        "A charged-back charge cannot be refunded: the money already went back to the"
        " cardholder through the dispute (case 4853, opened by the issuer)"
    )
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        executor = await app.actions.executor()
        await executor.record_refusal("refund", "e595fb048717b865fd4611bd", reason, None)
        await pilot.press("5")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)
        shown = " ".join(screen_text(app).split())
        assert f"Reason: {reason}" in shown, shown
