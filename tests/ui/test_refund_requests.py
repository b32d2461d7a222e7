"""A refund from the dialog makes only the requests it needs (issue 24): the charge and its
refunds when the dialog opens (what the person decides on), again just before sending (did
anything change since?), the refund itself, and one read of the charge beneath once it went
through. The dialog's "Left" afterwards comes from the service's answer, not a read."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import httpx
from textual.widgets import Input, Static

from paytui.api.queries import ChargeQuery
from tests.actions.support import WireTransport
from tests.ui.conftest import make_app, settle
from tests.ui.test_money_actions import find, modal, open_detail


async def test_a_refund_reads_the_charge_once_per_decision(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    wire = WireTransport(sandbox_transport)
    app = make_app(wire, journal_path=tmp_path / "journal.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20,
        )
        await open_detail(app, pilot, sale.charge_id)
        wire.sent.clear()
        await pilot.press("r")
        dialog = await modal(app, pilot)
        await settle(app, pilot)
        left_before = dialog.remaining
        assert left_before is not None
        amount = dialog.query_one("#amount", Input)
        amount.value = "10.00"
        amount.focus()
        await pilot.press("enter", "enter")
        await settle(app, pilot)
        assert dialog.step == "result"
        sent = [
            (s.method, s.path.rsplit("/", 1)[-1] if "charges/" in s.path else s.path)
            for s in wire.sent
        ]
        charge_reads = [s for s in sent if s == ("GET", sale.charge_id)]
        assert sent.count(("POST", "/v2/refunds")) == 1
        assert len(charge_reads) == 3, sent  # open, before sending, the detail afterwards
        assert len(sent) == 7, sent
        assert dialog.remaining == left_before - Decimal("10.00")
        assert "10.00" in str(dialog.query_one("#dialog-info", Static).render())
