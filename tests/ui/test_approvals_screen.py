"""Approvals waiting (`ctrl+a` on Today): a colleague's large refund waits for this agent, who
approves it with enter pressed twice — sent once, through the app's executor — or rejects it."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest
from textual.widgets import DataTable, Static

from paytui.actions.journal import Journal
from paytui.actions.journal_approvals import ApprovalRequired
from paytui.actions.ops import refund as refund_op
from paytui.api.queries import ChargeQuery, RefundQuery
from paytui.ui import bindings as keys
from paytui.ui.screens.approvals import ApprovalsScreen
from tests.ui.conftest import frozen_clock, make_app, settle
from tests.ui.team import colleague_executor
from tests.ui.test_money_actions import find


def _rows(screen: ApprovalsScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def test_a_colleagues_request_is_approved_with_enter_twice_and_sent_once(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20 and not c.chargebacks,
        )
        mine = await app.actions.executor()
        with Journal(team_journal_url, clock=frozen_clock) as journal:
            colleague = colleague_executor(mine, journal)
            colleague.approve_above = Decimal("3.00")
            basis = await colleague.observe("refund", sale.charge_id)
            with pytest.raises(ApprovalRequired) as queued:
                await colleague.run(
                    "refund", sale.charge_id, refund_op.Params(Decimal("9.00")), basis=basis
                )
        request = queued.value.approval.id
        await pilot.press("0")
        await settle(app, pilot)
        notes = app.screen.query_one("#today-notes", Static)
        assert "1 approval waits: ctrl+a" in str(notes.render())
        live = {b.binding.id: b for b in keys.live_bindings(app.screen)}
        assert live["today.approvals"].binding.description == "Approvals"
        await pilot.press("ctrl+a")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ApprovalsScreen)
        assert _rows(screen)[0][:4] == [
            str(request),
            "support-12",
            "refund 9.00",
            sale.charge_id,
        ]
        client = await app.get_client()

        async def refunds() -> int:
            page = await client.search_refunds_page(RefundQuery(charge_id=sale.charge_id), limit=50)
            return len([r for r in page.items if r.charge_id == sale.charge_id])

        await pilot.press("enter")  # says what the second press does; sends nothing
        await settle(app, pilot)
        assert await refunds() == 0
        await pilot.press("enter")
        await settle(app, pilot)
        assert await refunds() == 1
        approved = mine.journal.approval(request)
        assert approved is not None and (approved.state, approved.decided_by) == (
            "sent",
            mine.agent,
        )
        assert _rows(screen) == []


async def test_delete_twice_rejects_and_the_line_names_who(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: object
) -> None:
    from pathlib import Path

    journal_path = Path(str(tmp_path)) / "journal.sqlite3"
    app = make_app(sandbox_transport, journal_path=journal_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20 and not c.chargebacks,
        )
        mine = await app.actions.executor()
        colleague = colleague_executor(mine, mine.journal)  # a shared desk: one file
        colleague.approve_above = Decimal("3.00")
        basis = await colleague.observe("refund", sale.charge_id)
        with pytest.raises(ApprovalRequired) as queued:
            await colleague.run(
                "refund", sale.charge_id, refund_op.Params(Decimal("8.00")), basis=basis
            )
        await pilot.press("0")
        await settle(app, pilot)
        await pilot.press("ctrl+a")
        await settle(app, pilot)
        assert isinstance(app.screen, ApprovalsScreen)
        await pilot.press("delete", "delete")
        await settle(app, pilot)
        rejected = mine.journal.approval(queued.value.approval.id)
        assert rejected is not None and (rejected.state, rejected.decided_by) == (
            "rejected",
            mine.agent,
        )
