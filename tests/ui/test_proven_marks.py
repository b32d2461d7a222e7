"""Mark-all marks only rows proven to match (issue 23): against a service that ignores `tag` and
does not show charges' tags, `M M` on `tag:vip` marks nothing and says why, so a bulk refund
(`B`) has nothing to act on; a name it ignores is applied here, and only the matches are marked.
"""

from __future__ import annotations

from pathlib import Path

from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.bulk import BulkActionModal
from paytui.ui.widgets.charge_table import ChargeTable
from paytui.ui.widgets.query_input import QueryInput
from tests.api.test_proven_filters import status_only_service
from tests.ui.conftest import make_app, screen_text, settle


async def search(app: object, pilot: object, text: str) -> ChargeSearchScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ChargeSearchScreen)
    field = screen.query_one(QueryInput)
    field.value = text
    await pilot.press("/")  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(app, pilot)  # type: ignore[arg-type]
    return screen


async def test_mark_all_marks_only_rows_proven_to_match(tmp_path: Path) -> None:
    app = make_app(status_only_service(), journal_path=tmp_path / "journal.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await search(app, pilot, "tag:vip")
        table = screen.query_one(ChargeTable)
        assert "not proven to match (tag not shown by the service)" in screen_text(app)
        for _ in range(2):
            await pilot.press("escape")  # back to the list from the query line
            await pilot.press("M")
            await settle(app, pilot)
        assert len(table.marks) == 0
        said = [note.message for note in app._notifications]
        assert said[-1] == (
            "Marked 0 more (0 marked). Not marked: 120 rows not proven to match"
            " (tag not shown by the service)."
        )

        screen = await search(app, pilot, "name:ada")
        table = screen.query_one(ChargeTable)
        assert "Filtered here: contact_name" in screen_text(app)
        for _ in range(2):
            await pilot.press("escape")
            await pilot.press("M")
            await settle(app, pilot)
        assert len(table.marks) == 24
        assert {charge.contact_name for charge in table.marks.charges()} == {"Ada Lovelace"}
        # The bulk dry run says how its rows were chosen.
        await pilot.press("B")
        await settle(app, pilot)
        assert isinstance(app.screen, BulkActionModal)
        assert "Marked: 24 by mark all on 'name:ada', each row showing it matches." in screen_text(
            app
        )


async def test_rows_not_proven_are_marked_in_the_list_and_left_out_of_its_export(
    tmp_path: Path,
) -> None:
    """Every row of `tag:vip` on a service that does not show tags carries the `?` sign before
    it (drawn, not only said in the status line), and `x` writes none of them: the file holds
    only rows proven to match (here none) and the done line counts the rest."""
    from textual.widgets import Input, Static

    from paytui.ui.screens.modals.export import ExportModal
    from paytui.ui.widgets.charge_table import UNPROVEN

    app = make_app(status_only_service(), journal_path=tmp_path / "journal.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await search(app, pilot, "tag:vip")
        table = screen.query_one(ChargeTable)
        assert table.total > 0 and len(table.unproven) >= min(table.total, ChargeTable.PAGE_SIZE)
        rows = [table.render_line(y).text for y in range(1, 6)]
        assert all(row.startswith(UNPROVEN) for row in rows), rows
        assert f"{UNPROVEN} 50 rows not proven to match (tag not shown" in screen_text(app)

        await pilot.press("escape")  # to the list, then export the search
        await pilot.press("x")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportModal)
        target = tmp_path / "vip.csv"
        dialog.query_one("#export-format", Input).value = "csv"
        dialog.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await settle(app, pilot)
        status = str(dialog.query_one("#export-status", Static).content)
        assert f"Exported 0 rows to {target}; 120 not proven to match left out" in status, status
        assert target.read_text(encoding="utf-8").splitlines()[1:] == []
