"""`@`: the action log — this session's actions and the charge's, who, what, outcome, when;
read-only, and live on a team journal (a colleague's refund shows while it is open)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import httpx
from textual.widgets import DataTable

from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.api.queries import ChargeQuery
from paytui.ui import bindings as keys
from paytui.ui.screens.action_log import ActionLogScreen
from tests.ui.conftest import HANG_GUARD, frozen_clock, make_app, settle
from tests.ui.team import colleague_executor
from tests.ui.test_money_actions import find, open_detail


def _rows(screen: ActionLogScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def test_the_log_shows_this_session_and_the_charge_and_follows_a_colleague(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        # In the one description of keys: help (`?`) and the palette read these.
        live = {b.binding.id: b for b in keys.live_bindings(app.screen)}
        assert live["app.action_log"].binding.description == "Action log"
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20 and not c.chargebacks,
        )
        other_sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20 and c.charge_id != sale.charge_id,
        )
        mine = await app.actions.executor()
        assert (
            await mine.run("refund", other_sale.charge_id, refund_op.Params(Decimal("2.00")))
        ).succeeded
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("@")
        await settle(app, pilot)
        log = app.screen
        assert isinstance(log, ActionLogScreen) and log.charge_id == sale.charge_id
        rows = _rows(log)
        assert len(rows) == 1
        assert rows[0][1:] == ["you", "refund 2.00", other_sale.charge_id, "succeeded"]

        # A colleague refunds the charge in front of this agent: the open log shows it.
        changed = asyncio.Event()
        app.journal_changed.subscribe(log, lambda _entries: changed.set())
        with Journal(team_journal_url, clock=frozen_clock) as journal:
            colleague = colleague_executor(mine, journal, owner="ws-3", machine="ws-3")
            assert (
                await colleague.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
            ).succeeded
            await asyncio.wait_for(changed.wait(), HANG_GUARD)
        await settle(app, pilot)
        rows = _rows(log)
        assert [r[1:] for r in rows] == [
            ["support-12 (ws-3)", "refund 5.00", sale.charge_id, "succeeded"],
            ["you", "refund 2.00", other_sale.charge_id, "succeeded"],
        ]
        await pilot.press("@")  # the same key closes it
        await settle(app, pilot)
        assert not isinstance(app.screen, ActionLogScreen)


async def test_the_log_opens_from_a_money_dialog_on_its_charge_and_the_form_keeps_what_was_typed(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """In a form `@` is a character (typed into the reason, never a key); `ctrl+l` opens the
    log there, on the dialog's charge, and closing it gives the form back as it was."""
    from textual.widgets import Input

    from paytui.ui.screens.modals.refund import RefundModal
    from tests.ui.test_money_actions import modal

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20 and not c.chargebacks,
        )
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("r")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, RefundModal)
        await pilot.press("tab")  # the reason
        await pilot.press("a", "@", "b")
        await settle(app, pilot)
        reason = dialog.query_one("#reason", Input)
        assert reason.value == "a@b" and app.screen is dialog
        await pilot.press("ctrl+l")
        await settle(app, pilot)
        log = app.screen
        assert isinstance(log, ActionLogScreen) and log.charge_id == sale.charge_id
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is dialog and reason.value == "a@b"
