"""Undo, `ctrl+z` (issue 44, item 3): the person's last tag and attribute edit put back through
the one verb and journaled as its own entry, tied to what it showed (changed since: nothing is
sent and the person is told by whom); a claim let go of and taken again; money never undone."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input, TextArea

from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.edit_tags import EditTagsModal
from paytui.ui.screens.modals.undo import UndoClaimModal, UndoEditModal
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import make_app, settle
from tests.ui.test_money_actions import find, message, modal, notes, open_detail

SALES = ChargeQuery(charge_type="sale", status="success")


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


@pytest.fixture
def app(sandbox_transport: httpx.AsyncBaseTransport, journal: Path) -> PaytuiApp:
    return make_app(sandbox_transport, journal_path=journal)


async def _edit(app: PaytuiApp, pilot: Any, charge: Charge, tags: str, attrs: str) -> None:
    """Edit the charge's tags and attributes through its dialog, as a person does."""
    await open_detail(app, pilot, charge.charge_id)
    await pilot.press("e")
    dialog = await modal(app, pilot)
    assert isinstance(dialog, EditTagsModal)
    dialog.query_one("#tags", Input).value = tags
    dialog.query_one("#attributes", TextArea).text = attrs
    dialog.query_one("#tags", Input).focus()
    await pilot.press("enter", "enter")
    await settle(app, pilot)
    assert dialog.step == "result", message(dialog)
    await pilot.press("escape")
    await settle(app, pilot)


def _entries(journal: Path) -> list[Any]:
    with Journal(journal) as read:
        return list(reversed(read.list(limit=50)))


async def test_ctrl_z_puts_the_last_edit_back_through_the_journal(
    app: PaytuiApp, journal: Path
) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, SALES, lambda c: bool(c.tags))
        before_tags, before_attrs = list(charge.tags), dict(charge.attributes)
        await _edit(app, pilot, charge, "escalated", "ticket=T-9")
        client = await app.get_client()
        assert (await client.get_charge(charge.charge_id)).tags == ["escalated"]
        await pilot.press("ctrl+z")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, UndoEditModal)
        await pilot.press("enter")
        await pilot.pause()
        review = str(dialog.query_one("#dialog-review").render())
        assert "- tag escalated" in review and f"+ tag {before_tags[0]}" in review
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result", message(dialog)
        after = await client.get_charge(charge.charge_id)
        assert after.tags == before_tags and after.attributes == before_attrs
        # Journaled as its own entry, through the same operation, naming what it undid.
        edit, undo = _entries(journal)[-2:]
        assert (undo.operation, undo.state) == ("update_charge", "succeeded")
        assert undo.request_summary["undoes"] == edit.id
        await pilot.press("escape")
        await settle(app, pilot)
        # One level, as vi's u: the undo is the last change, so ctrl+z again puts it back.
        await pilot.press("ctrl+z")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, UndoEditModal) and dialog.entry.id == undo.id
        await pilot.press("enter", "enter")
        await settle(app, pilot)
        assert (await client.get_charge(charge.charge_id)).tags == ["escalated"]


async def test_changed_since_nothing_is_sent_and_the_person_is_told(
    app: PaytuiApp, journal: Path
) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, SALES, lambda c: bool(c.tags))
        await _edit(app, pilot, charge, "escalated", "")
        client = await app.get_client()
        # The dialog reads the charge as it is, and shows what comes back.
        await pilot.press("ctrl+z")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, UndoEditModal)
        await pilot.press("enter")
        await settle(app, pilot)
        # Meanwhile someone tags it outside paytui: the undo is refused, nothing sent.
        await client.update_charge(charge.charge_id, tags=["escalated", "fraud"])
        entries = len(_entries(journal))
        await pilot.press("enter")
        await settle(app, pilot)
        said = message(dialog)
        assert "Nothing was sent" in said and "fraud" in said and "outside paytui" in said, said
        assert len(_entries(journal)) == entries
        assert (await client.get_charge(charge.charge_id)).tags == ["escalated", "fraud"]
        await pilot.press("escape")
        await settle(app, pilot)
        # Opened again now: it says so at once, with no way to send.
        await pilot.press("ctrl+z")
        dialog = await modal(app, pilot)
        assert dialog.step == "blocked"
        assert "no longer shows what" in message(dialog)


async def test_money_is_never_undone(app: PaytuiApp, journal: Path) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, SALES)
        executor = await app.actions.executor()
        outcome = await executor.run(
            "refund", charge.charge_id, refund_op.Params(amount=Decimal("1.00"))
        )
        assert outcome.succeeded
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        said = notes(app)[-1]
        assert "moved money" in said and "never undone" in said, said


async def test_a_claim_is_let_go_of_and_taken_again(app: PaytuiApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        table = screen.query_one(ChargeTable)
        first = table.charge_at(0)
        assert first is not None
        await pilot.press("m")
        await settle(app, pilot)
        executor = await app.actions.executor()
        assert first.charge_id in await executor.claimed([first.charge_id])
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert isinstance(app.screen, UndoClaimModal)
        await pilot.press("n")  # no: nothing changes
        await settle(app, pilot)
        assert first.charge_id in await executor.claimed([first.charge_id])
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert first.charge_id not in await executor.claimed([first.charge_id])
        assert notes(app)[-1] == f"Released {first.charge_id}."
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert first.charge_id in await executor.claimed([first.charge_id])
        assert notes(app)[-1] == f"Claimed {first.charge_id} again."
