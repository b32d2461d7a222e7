"""Crashes from keys and data, each pinned: the palette's PageDown before its list has a size, keys
typed during a profile switch, and one unreadable charge in a page of results.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
from textual.command import CommandList

from paytui.ui.screens.help import HelpScreen
from paytui.ui.textual_fixes import GuardedCommandPalette
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import (
    make_app,
    screen_text,
    settle,
    switchable_app,
)


async def test_palette_page_keys_before_its_list_is_laid_out_do_not_crash(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        palette = app.screen
        assert isinstance(palette, GuardedCommandPalette)
        commands = palette.query_one(CommandList)
        # The state right after ctrl+p: options and a highlight, but no size yet (this is where
        # Textual's OptionList._move_page raised KeyError: 0).
        commands.display = False
        await settle(app, pilot)
        assert not commands.scrollable_content_region
        commands._line_cache.clear()
        commands.display = True
        commands.highlighted = 0
        palette._action_command_list("page_down")
        palette._action_command_list("page_up")
        await settle(app, pilot)
        await pilot.press("pagedown", "pageup", "escape")
        await settle(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_keys_typed_during_a_profile_switch_do_not_crash(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app, connection = switchable_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app._switching_modes = True  # input in the middle of the rebuild is dropped
        await pilot.press("2", "j", "enter", "question_mark")
        assert app.current_mode == "charges" and not isinstance(app.screen, HelpScreen)
        app._switching_modes = False

        app.run_worker(app.apply_connection(connection), group="switch-profile")
        await pilot.press("2", "1", "j", "k", "enter", "escape", "question_mark", "escape", "5")
        await settle(app, pilot)
        assert app.session.profile_name == "alpha"
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)


def spoil_newest_charge(db: Path) -> str:
    """Give the newest charge a convenience fee of an impossible shape and its id under a bare
    ``id`` (without its `charge_id` it cannot be read; the fee alone would only make that field
    unreadable, tests/api/test_trust.py); its id."""
    conn = sqlite3.connect(db)
    try:
        rowid, charge_id, doc = conn.execute(
            "SELECT c.id, c.charge_id, d.doc FROM charges c JOIN charge_docs d ON d.id = c.id"
            " ORDER BY c.ts DESC, c.charge_id DESC LIMIT 1"
        ).fetchone()
        data = json.loads(doc)
        data["convenience_fee"] = {"amount": 1}
        data["id"] = data.pop("charge_id")
        conn.execute("UPDATE charge_docs SET doc = ? WHERE id = ?", (json.dumps(data), rowid))
        conn.commit()
    finally:
        conn.close()
    return str(charge_id)


async def test_one_unreadable_charge_shows_as_a_row_and_the_rest_of_the_page_shows(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_db: Path
) -> None:
    spoiled = spoil_newest_charge(sandbox_db)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        assert table.row_at(0).id == spoiled and table.charge_at(0) is None
        assert table.charge_at(1) is not None
        lines = screen_text(app).splitlines()
        row = next(line for line in lines if "unreadable row" in line)
        assert spoiled[:10] in row and "charge_id" in row
        assert sum(1 for line in lines if "success" in line or "declined" in line) > 10
        await pilot.press("enter")  # nothing to open on an unreadable row; no crash
        await settle(app, pilot)


async def test_a_journal_that_cannot_be_opened_turns_money_actions_off_in_one_line(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data directory should be")
    journal = blocker / "journal.sqlite3"
    app = make_app(sandbox_transport, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await settle(app, pilot)
        notes = [n.message for n in app._notifications if str(journal) in n.message]
        assert len(notes) == 1 and "\n" not in notes[0] and "Traceback" not in notes[0]
        assert "cannot be opened" in notes[0] and "No action without a journal" in notes[0]
        decision = app.actions.check("capture")
        assert not decision.allowed and str(journal) in (decision.reason or "")
        table = app.screen.query_one(ChargeTable)
        assert table.charge_at(0) is not None  # reading still works
