"""Presence in the dashboard on one PostgreSQL journal (docs/team.md, "Who else is on a charge").

The dashboard is one agent; the other is a `PresenceBoard` on its own connection to the same
journal, stamped as another machine's paytui: the dashboard learns of it by ``NOTIFY`` as it
would from another machine. Waits are on the app's `presence_changed` signal (an event), and the
lease lapses on a clock the test moves.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from textual.widgets import Static

from paytui.actions.journal import Journal
from paytui.actions.presence import PresenceBoard, presence_words
from paytui.api.queries import ChargeQuery
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from tests.actions.test_presence import Clock
from tests.ui.conftest import HANG_GUARD, make_app, settle
from tests.ui.test_money_actions import find, modal, open_detail


async def _next_change(app: Any, pilot: Any, bound: float = HANG_GUARD) -> dict[str, Any]:
    """The next `presence_changed` the app publishes (the bound only stops a hang)."""
    told: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    def got(people: dict[str, Any]) -> None:
        if not told.done():
            told.set_result(people)

    app.presence_changed.subscribe(app.screen, got)
    try:
        return await asyncio.wait_for(told, bound)
    finally:
        app.presence_changed.unsubscribe(app.screen)
        await pilot.pause()


async def _written(app: Any, pilot: Any) -> None:
    """Once the app is quiet, wait for its presence writes asked so far (one writer thread, in
    order: a no-op queued after them has run once they have)."""
    await settle(app, pilot)
    await asyncio.wrap_future(app.actions._presence_writer.submit(lambda: None))


def _row_text(table: ChargeTable, charge_id: str) -> str:
    for row in range(table.total):
        charge = table.row_at(row)
        if getattr(charge, "charge_id", None) == charge_id:
            table.cursor_row = row
            y = row - table.scroll_offset.y + 1
            return "".join(segment.text for segment in table.render_line(y))
    raise AssertionError(f"{charge_id} is not on the list")


async def test_each_agent_sees_the_other_on_a_charge_and_a_dead_one_goes_with_its_lease(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    clock = Clock()
    app = make_app(sandbox_transport, journal_path=team_journal_url)
    app.session.actions.executor_options["clock"] = clock
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        assert app.actions.presence is not None and app.actions.presence.available
        sale = await find(
            app, ChargeQuery(charge_type="sale", status="success"), lambda c: c.total_amount
        )
        with Journal(team_journal_url) as journal:
            ana = PresenceBoard(
                journal,
                base_url=app.actions.presence.base_url,
                agent="ana",
                machine="ws-3",
                owner="ws-3:4242",  # another machine's paytui
                clock=clock,
            )
            # ana opens the charge: the list shows it on its row and in the summary line.
            ana.show("detail", sale.charge_id)
            changed = asyncio.ensure_future(_next_change(app, pilot))
            await pilot.pause()
            ana.flush()
            people = await changed
            assert presence_words(people[sale.charge_id]) == "ana viewing"
            table = app.screen.query_one(ChargeTable)
            assert "◉ ana viewing" in _row_text(table, sale.charge_id)
            await settle(app, pilot)
            status = str(app.screen.query_one("#page-status", Static).render())
            assert "◉ ana viewing" in status, status

            # This agent opens the charge and its refund dialog: ana sees both, with the amount.
            detail = await open_detail(app, pilot, sale.charge_id)
            shown = str(detail.query_one("#detail-presence", Static).render())
            assert "ana viewing" in shown, shown
            me = app.actions.presence.agent
            await _written(app, pilot)
            ana.read()
            assert presence_words(ana.on(sale.charge_id)) == f"{me} viewing"
            await pilot.press("r")
            dialog = await modal(app, pilot)
            assert "Now on this charge: ana viewing" in str(
                dialog.query_one("#dialog-info", Static).render()
            )
            await pilot.press("enter")  # the review: the amount is known now
            await _written(app, pilot)
            ana.read()
            (mine,) = ana.on(sale.charge_id)
            assert mine.doing == "refunding" and mine.amount == dialog.params["amount"]
            assert mine.amount is not None and mine.amount > Decimal(0)

            # ana's paytui dies (no goodbye, no beat): gone once its lease lapses here.
            changed = asyncio.ensure_future(_next_change(app, pilot))
            await pilot.pause()
            clock.now += timedelta(seconds=31)
            people = await changed
            assert sale.charge_id not in people
            assert "ana" not in str(dialog.query_one("#dialog-info", Static).render())
            await pilot.press("escape", "escape")
            await _written(app, pilot)
            ana.read()
            assert ana.on(sale.charge_id) == ()  # this agent closed the charge: gone at once


def test_one_heartbeat_renews_presence_and_claims_together(
    team_journal_url: str, tmp_path: Path
) -> None:
    """The dashboard's watch thread beats once for both (`actions_service._keep_up`): a due beat
    renews this paytui's presence row and its claim in the same round; one not due, neither."""
    import math
    import time

    from paytui.actions.journal_anchor import Anchor
    from paytui.ui.actions_service import _keep_up

    clock = Clock()
    service, charge, anchor = "http://sandbox", "c" * 24, Anchor(tmp_path / "anchor.json")
    with Journal(team_journal_url, clock=clock) as journal:
        ana = PresenceBoard(
            journal, base_url=service, agent="ana", machine="ws-ana", owner="ana:1", clock=clock
        )
        journal.claim(service, charge, agent="ana", machine="ws-ana", owner=ana.owner)
        ana.show("detail", charge)
        assert ana.flush()

        def beats() -> tuple[object, object]:
            (claim,) = journal._store.rows("SELECT beat_at FROM claims")
            (row,) = journal._store.rows("SELECT beat_at FROM presence")
            return claim["beat_at"], row["beat_at"]

        clock.now += timedelta(seconds=15)
        before = beats()
        assert _keep_up(journal, ana.owner, anchor, time.monotonic(), ana)  # not due
        assert beats() == before
        _keep_up(journal, ana.owner, anchor, -math.inf, ana)
        claimed, present = beats()
        assert claimed != before[0] and present != before[1]
        assert claimed == present  # the same beat, the same moment
