"""A team's journal, live in the dashboard: another agent's refund of the charge a dialog is
reviewing reaches the dialog before anything can be sent, naming the agent (issue 25, item 5).

The other agent is another executor on its own connection to the same PostgreSQL journal,
stamped as another machine's process: the dashboard learns of it by ``NOTIFY``, as it would
from another machine.
"""

from __future__ import annotations

from decimal import Decimal

import httpx
from textual.widgets import Button

from paytui.actions.actor import actor_name
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.policy import ActionPolicy
from paytui.api.queries import ChargeQuery
from tests.ui.conftest import frozen_clock, make_app, settle
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
        with Journal(team_journal_url, clock=frozen_clock) as journal:
            other = ActionExecutor(
                mine.client,
                journal,
                ActionPolicy(),
                profile="team",
                base_url=mine.base_url,
                clock=frozen_clock,
                actor=actor_name("the dashboard", "support-12"),
                agent="support-12",
            )
            other.owner = "ws-3:4242"  # another machine's process
            done = await other.refund(sale.charge_id, Decimal("5.00"))
            assert done.succeeded
            for _ in range(100):  # the watch thread hands the news to the app's loop
                if dialog._changed:
                    break
                await pilot.pause(0.05)
        told = message(dialog)
        assert "Changed since you looked" in told and "support-12" in told, told
        assert str(dialog.query_one("#go", Button).label) == "Review again"
        await pilot.press("enter")  # read again: nothing is sent
        await settle(app, pilot)
        assert dialog.step == "form"
        assert dialog.remaining == left_before - Decimal("5.00")
