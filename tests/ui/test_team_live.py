"""A team's journal, live in the dashboard: another agent's refund of the charge a dialog is
reviewing reaches the dialog before anything can be sent, naming the agent (issue 25, item 5).

The other agent is another executor on its own connection to the same PostgreSQL journal,
stamped as another machine's process: the dashboard learns of it by ``NOTIFY``, as it would
from another machine.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

import httpx
from textual.widgets import Button

from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.api.queries import ChargeQuery
from tests.ui.conftest import HANG_GUARD, frozen_clock, make_app, settle
from tests.ui.team import colleague_executor
from tests.ui.test_money_actions import find, message, modal, open_detail


async def test_a_dialog_is_told_when_another_agent_refunds_its_charge(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20,
        )
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("r")
        dialog = await modal(app, pilot)
        await settle(app, pilot)
        left_before = dialog.remaining
        assert left_before is not None and dialog.step == "form"
        mine = await app.actions.executor()
        # The watch thread hands the news to the app's loop (`journal_changed`): waited for as
        # that event, however long a loaded machine takes, then handled by the dialog.
        heard = asyncio.Event()
        app.journal_changed.subscribe(app, lambda _entries: heard.set(), immediate=True)
        with Journal(team_journal_url, clock=frozen_clock) as journal:
            other = colleague_executor(mine, journal)  # another machine's process
            done = await other.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
            assert done.succeeded
            await asyncio.wait_for(heard.wait(), timeout=HANG_GUARD)
        await settle(app, pilot)
        told = message(dialog)
        assert "Changed since you looked" in told and "support-12" in told, told
        assert str(dialog.query_one("#go", Button).label) == "Review again"
        await pilot.press("enter")  # read again: nothing is sent
        await settle(app, pilot)
        assert dialog.step == "form"
        assert dialog.remaining == left_before - Decimal("5.00")


async def test_history_names_the_agents_on_a_team_journal(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    """One person's journal: no Agent column. Two agents on it: History says who did what."""
    from textual.widgets import DataTable

    from paytui.ui.screens.history import HistoryScreen
    from paytui.ui.widgets.fit_table import FitTable

    app = make_app(sandbox_transport, journal_path=tmp_path / "journal.sqlite3")
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(app, pilot)
        executor = await app.actions.executor()

        def refused(charge: str, agent: str, machine: str) -> None:
            executor.journal.record_refusal(
                profile=executor.profile,
                base_url=executor.base_url,
                operation="refund",
                charge_id=charge,
                amount=None,
                reason="read-only profile",
                agent=agent,
                machine=machine,
            )

        refused("a" * 24, "support-07", "ws-17")
        refused("b" * 24, "support-07", "ws-17")
        await pilot.press("5")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        table = history.query_one(DataTable)
        assert isinstance(table, FitTable) and table.row_count == 2
        assert "Agent" not in table.shown_columns
        refused("c" * 24, "support-12", "ws-3")
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert "Agent" in table.shown_columns
        agents = [str(table.get_row_at(n)[-1]) for n in range(table.row_count)]
        assert agents == ["support-12", "support-07", "support-07"]
