"""Today (`0`): the queue by deadline, the time left in words, phases, `enter` opens the item."""

from __future__ import annotations

from typing import Any

import httpx

from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.today import PHASES, TodayScreen
from paytui.ui.widgets.nav_table import NavTable
from tests.ui.conftest import make_app, screen_text, settle


async def open_today(app: PaytuiApp, pilot: Any) -> TodayScreen:
    await settle(app, pilot)
    await pilot.press("0")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, TodayScreen)
    return screen


async def test_zero_opens_today_sorted_by_deadline(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        assert screen.state == "results"
        assert screen.query_one("#pulse")  # the pulse's slot
        table = screen.query_one(NavTable)
        labels = [str(column.label) for column in table.ordered_columns]
        assert labels[:6] == ["Kind", "What", "Customer", "Amount", "Due (local)", "Time left"]
        assert "Claimed by" not in labels  # a file journal: no claims to show
        due = [item.due_at for item in screen.items]
        assert due == sorted(due) and table.row_count == len(due)
        text = screen_text(app)
        assert "≈ overdue" in text and "≈ due in" in text  # words, not colour alone
        assert {"chargeback", "authorization", "return", "account"} <= {
            i.kind for i in screen.items
        }
        assert "ACH return" in text and "capture by" in text

        # `f` steps to "due today": only items due before the end of the local day.
        await pilot.press("f")
        await settle(app, pilot)
        assert PHASES[screen.phase].name == "due today"
        assert len(screen.items) < len(due)
        await pilot.press(
            *["f"] * (next(i for i, p in enumerate(PHASES) if p.name == "chargebacks") - 1)
        )
        await settle(app, pilot)
        assert screen.items and {item.kind for item in screen.items} == {"chargeback"}

        # `enter` opens the charge of a chargeback.
        first = screen.items[0]
        table.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert first.id in screen_text(app)


async def test_claimed_by_shows_on_a_team_journal(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    from paytui.actions.journal import Journal
    from paytui.config.urls import service_key
    from tests.ui.conftest import frozen_clock

    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_today(app, pilot)
        labels = [str(column.label) for column in screen.query_one(NavTable).ordered_columns]
        assert "Claimed by" in labels  # a team journal: the column, "nobody" where free
        first = next(item for item in screen.items if item.target == "charge")
        with Journal(team_journal_url, clock=frozen_clock) as other:
            other.claim(
                service_key("http://sandbox"),
                first.target_id,
                agent="support-12",
                machine="ws-3",
                owner="ws-3:4242",
            )
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert screen.claimed_by is not None
            assert screen.claimed_by[first.target_id].startswith("support-12")
            assert "support-12" in screen_text(app)


async def test_a_hold_captured_meanwhile_leaves_the_queue(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        authorizations = [i for i in screen.items if i.kind == "authorization"]
        hold = authorizations[-1]  # one still due (its hold not lapsed)
        await pilot.press("1")  # another screen on top meanwhile
        await settle(app, pilot)
        await (await app.get_client()).capture(hold.id)
        app.charges_changed_by(hold.id)  # what the executor says after a capture
        await pilot.press("0")
        await settle(app, pilot)
        assert app.screen is screen
        left = [i.id for i in screen.items if i.kind == "authorization"]
        assert hold.id not in left and len(left) == len(authorizations) - 1


async def test_capture_from_today_on_an_authorization_only(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from paytui.ui.screens.modals.capture import CaptureModal

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        accounts = next(i for i, p in enumerate(PHASES) if p.name == "accounts")
        await pilot.press(*["f"] * accounts)
        await settle(app, pilot)
        assert screen.items and screen.items[0].kind == "account"
        assert screen.check_action("capture", ()) is None  # off: an account is no charge
        await pilot.press("c")
        await settle(app, pilot)
        assert app.screen is screen

        holds = next(i for i, p in enumerate(PHASES) if p.name == "authorizations")
        await pilot.press(*["f"] * ((holds - accounts) % len(PHASES)))
        await settle(app, pilot)
        assert screen.items and screen.items[0].kind == "authorization"
        assert screen.check_action("capture", ()) is True
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, CaptureModal)
        assert app.screen.charge_id == screen.items[0].id
