"""The refund key follows the action registry (issue 38, points 4 and 7), against the second
service with statuses of a charge's life the spec does not list (`settled`, ...).

On an open authorization (result `Authorized`, never captured; this service sends no
`charge_type`) refund is not offered — the footer shows it disabled, `?` says why, `r` sends
nothing — and capture is. On a sale whose status paytui does not know, refund is offered, with
"paytui does not know the status `settled`; the service will decide" in `?` and in the dialog.
"""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console

from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.help import HelpScreen
from paytui.ui.screens.modals.refund import RefundModal
from paytui.ui.widgets.footer import PaytuiFooter
from tests.second_service.app import CLIENT_ID, CLIENT_SECRET, SecondService
from tests.ui.conftest import make_app, screen_text, settle

NOTE = "paytui does not know the status `settled`; the service will decide"


def _app(service: SecondService) -> PaytuiApp:
    return make_app(service.transport, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)


def _help_text(help_screen: HelpScreen) -> str:
    console = Console(width=400, file=io.StringIO(), record=True)  # one line a key
    console.print(help_screen._table())
    return console.export_text()


async def _detail(app: PaytuiApp, pilot: object, charge_id: str) -> ChargeDetailScreen:
    screen = ChargeDetailScreen(charge_id)
    await app.push_screen(screen)
    await settle(app, pilot)
    assert app.screen is screen and screen.charge is not None
    return screen


async def test_refund_is_not_offered_on_an_open_authorization_and_capture_is(
    second_service: Callable[..., SecondService],
) -> None:
    service = second_service(lifecycle_statuses=True)
    auth = next(
        c
        for c in service.store.charges
        if c.charge_type == "authorization" and c.captured_charge_id is None
    )
    app = _app(service)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await _detail(app, pilot, auth.charge_id)
        assert screen.check_action("refund", ()) is None  # shown, disabled
        assert screen.check_action("capture", ()) is True
        refund = next(i for i in screen.query_one(PaytuiFooter).shown_items if i.action == "refund")
        assert not refund.enabled
        await pilot.press("r")
        await settle(app, pilot)
        assert app.screen is screen  # no dialog
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        why = next(live for live in app.screen.live if live.binding.action == "refund")
        assert not why.enabled and why.reason is not None
        assert why.reason.startswith("An open authorization moved no money: capture it")
        assert f"(not available: {why.reason})" in _help_text(app.screen)
    assert service.requests_to("/v2/refunds", "POST") == []


async def test_refund_is_offered_with_a_note_on_a_status_paytui_does_not_know(
    second_service: Callable[..., SecondService],
) -> None:
    service = second_service(lifecycle_statuses=True)
    sale = next(
        c for c in service.store.charges if c.status == "settled" and c.charge_type == "sale"
    )
    app = _app(service)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await _detail(app, pilot, sale.charge_id)
        assert screen.check_action("refund", ()) is True
        assert screen.action_note("refund") == NOTE
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        offered = next(live for live in app.screen.live if live.binding.action == "refund")
        assert offered.enabled and offered.note == NOTE
        assert f"({NOTE})" in _help_text(app.screen)
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, RefundModal)
        assert NOTE in screen_text(app)
