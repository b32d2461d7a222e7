"""`x` in the app: the charges list exports its whole search, History its filtered audit trail.

One pilot run for the user's flow: search `type:auth`, `x`, choose JSON Lines and a file, enter;
the file holds every authorization (every page of the search, not the rows on screen) and the
path is shown. Then
History: a refused attempt is listed, `/outcome:refused` filters to it, `x` exports it.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from textual.widgets import DataTable, Input, Static

from paytui.actions import Journal
from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery
from paytui.ui.screens.history import HistoryScreen
from paytui.ui.screens.modals.export import ExportModal
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import make_app, screen_text, settle


async def _export(app: object, pilot: object, target: Path, fmt: str) -> ExportModal:
    dialog = app.screen  # type: ignore[attr-defined]
    assert isinstance(dialog, ExportModal)
    dialog.query_one("#export-format", Input).value = fmt
    dialog.query_one("#export-path", Input).value = str(target)
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(app, pilot)  # type: ignore[arg-type]
    return dialog


async def test_x_exports_every_page_of_the_search_and_the_filtered_audit_trail(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    journal_path = tmp_path / "journal.sqlite3"
    with Journal(journal_path) as journal:
        journal.record_refusal(
            profile="sandbox (embedded)",
            base_url="http://sandbox",
            operation="refund",
            charge_id="c" * 24,
            amount=None,
            reason="A charged-back charge cannot be refunded",
            client_id="paytui-demo",
        )
    app = make_app(sandbox_transport, journal_path=journal_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        app.screen.query_one("#query", Input).value = "type:auth"  # typing is tested elsewhere
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        target = tmp_path / "auths.jsonl"
        dialog = await _export(app, pilot, target, "jsonl")
        client = await app.get_client()
        expected = set()
        async for page in client.search_charges(
            ChargeQuery(charge_type="authorization"), page_size=100
        ):
            expected |= {charge.charge_id for charge in page.items}
        rows = [json.loads(line) for line in target.read_text().splitlines()]
        assert {row["charge_id"] for row in rows} == expected
        assert len(rows) == len(expected) > 100  # more than one page, many screens' worth
        status = str(dialog.query_one("#export-status", Static).content)
        assert f"Exported {len(rows)} rows to {target}" in status
        await pilot.press("escape")
        await settle(app, pilot)

        # With marks, `x` exports the marked rows only.
        table = app.screen.query_one(ChargeTable)
        table.focus()
        await pilot.press("space", "space")  # marks two rows (space moves down)
        await settle(app, pilot)
        marked_ids = {charge.charge_id for charge in table.marks.charges()}
        assert len(marked_ids) == 2
        await pilot.press("x")
        await settle(app, pilot)
        picked = tmp_path / "marked.jsonl"
        await _export(app, pilot, picked, "jsonl")
        assert {json.loads(line)["charge_id"] for line in picked.read_text().splitlines()} == (
            marked_ids
        )
        await pilot.press("escape")
        await settle(app, pilot)

        await pilot.press("5")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        assert [row.outcome for row in history.rows] == ["refused"]
        await pilot.press("slash")
        field = history.query_one("#history-filter", Input)
        assert app.focused is field
        field.value = "outcome:succeeded"
        await pilot.press("enter")
        await settle(app, pilot)
        assert history.query_one(DataTable).row_count == 0
        assert app.focused is field  # nothing to show: the filter keeps the keys
        field.value = "outcome:refused"
        await pilot.press("enter")
        await settle(app, pilot)
        assert history.query_one(DataTable).row_count == 1
        # A filter that cannot be read lists nothing (the rows before must not pass for its
        # result), says why once, and keeps the text to correct.
        await pilot.press("slash")
        field.value = "outcome:refusd"
        await pilot.press("enter")
        await settle(app, pilot)
        assert history.query_one(DataTable).row_count == 0
        assert "Filter not applied: outcome: one of" in screen_text(app)
        assert field.value == "outcome:refusd"
        field.value = "outcome:refused"
        await pilot.press("enter")
        await settle(app, pilot)
        assert history.query_one(DataTable).row_count == 1
        await pilot.press("x")
        await settle(app, pilot)
        audit = tmp_path / "audit.csv"
        await _export(app, pilot, audit, "csv")
        lines = audit.read_text().splitlines()
        assert lines[0].startswith("time (UTC),profile,service,client_id,action")
        assert len(lines) == 2 and "refused" in lines[1] and "charged-back" in lines[1]
        await pilot.press("escape")
        await settle(app, pilot)

        # Escape while an export runs cancels it, and no file is left (an explicit list: the
        # marked rows' way in).
        charges = [Charge.model_validate({"charge_id": f"{n:024x}"}) for n in range(250)]
        marked = ExportModal.for_charges(charges, "Export the marked charges")
        await app.push_screen(marked)
        await settle(app, pilot)
        cancelled = tmp_path / "cancelled.csv"
        marked.query_one("#export-path", Input).value = str(cancelled)
        marked.start()
        marked.action_close()  # before the first page is written
        await settle(app, pilot)
        assert not cancelled.exists() and not cancelled.with_name("cancelled.csv.part").exists()
        assert "Cancelled after 0 rows" in str(marked.query_one("#export-status", Static).content)
