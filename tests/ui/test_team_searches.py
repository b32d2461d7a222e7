"""The team's saved searches (issue 25, item 7): published from the saved-searches list with
F3 (the team), listed for everyone on the journal as ``team/NAME`` with who shared them,
run by ``:saved team/NAME``, removed for everyone with delete. Another agent's share shows at
the next opening of the list."""

from __future__ import annotations

from pathlib import Path

import httpx
from textual.widgets import DataTable, Static

from paytui.actions.journal import Journal
from paytui.config.searches import save_search, saved_searches
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.query_input import QueryInput
from tests.ui.conftest import make_app, settle


async def test_a_search_shared_with_the_team_runs_by_its_team_name(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    from paytui.ui.screens.modals.saved_searches import SavedSearchesModal

    journal_path = tmp_path / "journal.sqlite3"
    save_search("cb", "status:chargeback")
    with Journal(journal_path) as other:  # another agent shared one already
        other.share_search("auths", "type:authorization", agent="support-12")
    app = make_app(sandbox_transport, journal_path=journal_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await app.run_action("saved_searches")
        await settle(app, pilot)
        listing = app.screen
        assert isinstance(listing, SavedSearchesModal)
        assert list(listing.searches) == ["cb", "team/auths"]
        row = listing.query_one(DataTable).get_row("team/auths")
        assert str(row[0]) == "team/auths (support-12)"
        await pilot.press("f3")  # publish "cb" to the team (highlighted first)
        await settle(app, pilot)
        assert list(listing.searches) == ["cb", "team/auths", "team/cb"]
        with Journal(journal_path) as other:
            assert other.team_searches()["cb"][0] == "status:chargeback"
        await pilot.press("down", "delete")  # the team's "auths": gone for everyone
        await settle(app, pilot)
        assert list(listing.searches) == ["cb", "team/cb"]
        assert saved_searches() == {"cb": "status:chargeback"}  # the own one stays
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("colon")
        app.screen.query_one("#jump-line").value = ":saved team/cb"
        await pilot.press("enter")
        await settle(app, pilot)
        charges = app.screen
        assert isinstance(charges, ChargeSearchScreen)
        assert charges.query_one(QueryInput).value == "status:chargeback"
        assert str(charges.query_one("#view-name", Static).content) == "Saved: team/cb"
    with Journal(journal_path) as journal:
        assert set(journal.team_searches()) == {"cb"}
        assert journal.verify().ok
