"""Claims in the dashboard (issue 25, item 6): `m` claims the highlighted charge or releases it,
another agent's claim shows on the row and in the detail, the refund dialog warns before the
person reviews, `ctrl+n` claims the next free charge and goes to it, and quitting lets go of
this paytui's claims.

The other agent is another connection to the same journal file, its claims stamped as another
machine's process ("ws-3:4242"), as `test_team_live` does. What the dashboard shows and does is
the same on either engine; the journal's claims themselves (claim, claim next, who holds what,
release, ten agents at once) are proven on SQLite and on a team's PostgreSQL in
`tests/actions/test_team_journal.py`, and from the command line on both in
`tests/test_claim_command.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.actions.journal import Journal
from paytui.config.urls import service_key
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import CLAIMED, CLAIMED_MINE, ChargeTable
from tests.ui.conftest import frozen_clock, make_app, screen_text, settle
from tests.ui.test_money_actions import assert_on_screen, modal, notes

SERVICE = service_key("http://sandbox")
OTHER = {"agent": "support-12", "machine": "ws-3", "owner": "ws-3:4242"}


@pytest.fixture
def location(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


async def _told(app: Any, pilot: Any, words: str) -> str:
    """The newest notification, once one holding `words` came (claims run in workers)."""
    for _ in range(100):
        await settle(app, pilot)
        said = [n for n in notes(app) if words in n]
        if said:
            return said[-1]
    raise AssertionError(f"never said {words!r}: {notes(app)}")


async def test_claim_see_the_others_be_warned_and_release(
    sandbox_transport: httpx.AsyncBaseTransport, location: Path
) -> None:
    with Journal(location, clock=frozen_clock) as other:
        app = make_app(sandbox_transport, journal_path=location)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, ChargeSearchScreen)
            table = screen.query_one(ChargeTable)
            first, second, third = (table.charge_at(row) for row in range(3))
            assert first is not None and second is not None and third is not None
            # Another agent claims the second row; the list shows it once it reads again.
            other.claim(SERVICE, second.charge_id, **OTHER)
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert set(table.claims) == {second.charge_id}
            # m: the first row is this agent's now, marked as such on its row.
            await pilot.press("m")
            said = await _told(app, pilot, "Claimed")
            assert said == f"Claimed {first.charge_id} — yours until you release it (m) or quit."
            assert table.claims[first.charge_id].mine(table.claim_owner)
            text = screen_text(app)
            assert CLAIMED_MINE in text and CLAIMED in text, text
            # The other's row says who, in the summary line (at 80 columns too).
            await pilot.press("j")
            await settle(app, pilot)
            summary = next(line for line in screen_text(app).splitlines() if "Showing" in line)
            assert f"{CLAIMED} claimed by support-12" in summary, summary
            # m on it: who holds it, nothing taken.
            await pilot.press("m")
            said = await _told(app, pilot, "is claimed by")
            held = "support-12 on ws-3 since 18:30 UTC (0 s)"  # frozen clocks: held for 0 s
            assert said == f"{second.charge_id} is claimed by {held}."
            # The refund dialog warns before the person reviews.
            await pilot.press("r")
            dialog = await modal(app, pilot)
            assert dialog.step == "form"
            info = str(dialog.query_one("#dialog-info").render())
            warning = f"Claimed by {held} — they may be working on it"
            assert warning in info, info
            assert_on_screen(dialog, "dialog-info", "go")  # whole at 80x24, buttons too
            await pilot.press("escape")
            await settle(app, pilot)
            # The detail says it too.
            await app.push_screen(ChargeDetailScreen(second.charge_id))
            await settle(app, pilot)
            line = str(app.screen.query_one("#detail-claim").render())
            assert line == f"{CLAIMED} {warning}", line
            await pilot.press("escape")
            await settle(app, pilot)
            # m on our own row releases it.
            await pilot.press("k", "m")
            said = await _told(app, pilot, "Released")
            assert said == f"Released {first.charge_id}."
            assert first.charge_id not in table.claims
            assert set(other.claims(SERVICE)) == {second.charge_id}
            # ctrl+n: the first free from the cursor down (the other took the first row now),
            # claimed and gone to.
            other.claim(SERVICE, first.charge_id, **OTHER)
            await pilot.press("ctrl+n")
            said = await _told(app, pilot, "Claimed " + third.charge_id)
            assert table.cursor_row == 2
            assert other.claims(SERVICE)[third.charge_id].agent != "support-12"
            # The detail of our claim says so; m there releases it.
            await pilot.press("enter")
            await settle(app, pilot)
            detail = app.screen
            assert isinstance(detail, ChargeDetailScreen)
            line = str(detail.query_one("#detail-claim").render())
            assert line.startswith(f"{CLAIMED_MINE} Claimed by you"), line
            await pilot.press("m")
            await _told(app, pilot, f"Released {third.charge_id}")
            assert not detail.query_one("#detail-claim").display
            await pilot.press("m")  # and claims it again, for the exit below
            await _told(app, pilot, f"Claimed {third.charge_id}")
            assert third.charge_id in other.claims(SERVICE)
        # Quitting lets go of this paytui's claims; the other agent's stay.
        assert set(other.claims(SERVICE)) == {first.charge_id, second.charge_id}
        assert other.verify().ok
