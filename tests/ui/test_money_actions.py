"""Pilot tests of the money actions from the keyboard (issue 4): capture, refund, tag edit,
their refusals, the in-flight guard, and the drop-after-commit fault across a restart.

Assertions are on the SERVER's state afterwards (captures by `original_charge_id`, refunds by
charge id), not only on what the screen says. Workers are awaited, never slept on.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from textual.widgets import Input, Static, TextArea

from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery, RefundQuery
from paytui.sandbox.faults import Faults
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.capture import CaptureModal
from paytui.ui.screens.modals.confirm import MoneyActionModal
from paytui.ui.screens.modals.edit_tags import EditTagsModal
from paytui.ui.screens.modals.refund import RefundModal
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import (
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
    make_app,
    screen_text,
    settle,
)

AppFactory = Callable[..., PaytuiApp]
OPEN_AUTHS = ChargeQuery(charge_type="authorization", captured=False, status="success")


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


@pytest.fixture
def money_app(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> Callable[..., PaytuiApp]:
    def build(**kwargs: Any) -> PaytuiApp:
        kwargs.setdefault("journal_path", journal)
        return make_app(sandbox_transport, **kwargs)

    return build


class HeldCaptures(httpx.AsyncBaseTransport):
    """While `held` is an event, a capture request waits for it before it reaches the service:
    a send still in flight for as long as the test needs (a fixed delay could be over before a
    loaded machine's test looked)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.held: asyncio.Event | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        capture = request.method == "POST" and request.url.path.endswith("/capture")
        if self.held is not None and capture:
            await self.held.wait()
        return await self.inner.handle_async_request(request)


async def find(
    app: PaytuiApp, query: ChargeQuery, pick: Callable[[Charge], bool] | None = None
) -> Charge:
    client = await app.get_client()
    page = await client.search_charges_page(query, limit=100)
    for charge in page.items:
        if pick is None or pick(charge):
            return charge
    raise AssertionError(f"no seeded charge for {query.to_params()}")


async def captures_of(app: PaytuiApp, charge_id: str) -> list[Charge]:
    client = await app.get_client()
    page = await client.search_charges_page(ChargeQuery(original_charge_id=charge_id), limit=10)
    return page.items


async def refunds_of(app: PaytuiApp, charge_id: str) -> list[Any]:
    client = await app.get_client()
    page = await client.search_refunds_page(RefundQuery(charge_id=charge_id), limit=50)
    return page.items


async def open_detail(app: PaytuiApp, pilot: Any, charge_id: str) -> ChargeDetailScreen:
    screen = ChargeDetailScreen(charge_id)
    await app.push_screen(screen)
    await settle(app, pilot)
    assert app.screen is screen
    return screen


async def modal(app: PaytuiApp, pilot: Any) -> MoneyActionModal:
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, MoneyActionModal), type(screen)
    return screen


def message(screen: MoneyActionModal) -> str:
    return str(screen.query_one("#dialog-message").render())


def plain(renderable: Any) -> str:
    console = Console(width=200, file=io.StringIO(), color_system=None, record=True)
    console.print(renderable)
    return console.export_text(styles=False)


def notes(app: PaytuiApp) -> list[str]:
    return [n.message for n in app._notifications]


def assert_on_screen(dialog: MoneyActionModal, *ids: str) -> None:
    """Each widget is drawn whole: not cut by the form's edge, nor scrolled out of it."""
    for widget_id in ids:
        widget = dialog.query_one(f"#{widget_id}")
        geometry = dialog.find_widget(widget)
        shown = geometry.region.intersection(geometry.clip)
        assert geometry.region.height > 0 and shown == geometry.region, (widget_id, geometry)


# --- capture ----------------------------------------------------------------------------------


async def test_capture_from_the_detail(money_app: AppFactory) -> None:
    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, OPEN_AUTHS)
        detail = await open_detail(app, pilot, auth.charge_id)
        await pilot.press("c")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, CaptureModal) and dialog.step == "form"
        info = str(dialog.query_one("#dialog-info").render())
        assert "Authorized" in info and "Card" in info and "Age" in info
        await pilot.press("enter")  # review (no fees)
        await pilot.pause()
        assert dialog.step == "review"
        await pilot.press("enter")  # capture
        await settle(app, pilot)
        assert dialog.step == "result"
        captures = await captures_of(app, auth.charge_id)
        assert len(captures) == 1
        assert captures[0].charge_id in message(dialog)
        assert "went through" in message(dialog)
        await pilot.press("enter")  # the focused "Open charge" button
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert app.screen.charge_id == captures[0].charge_id
        assert app.screen is not detail


async def test_capture_from_the_list_with_a_fee(money_app: AppFactory) -> None:
    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("O")  # open authorizations
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        auth = table.cursor_charge
        assert auth is not None and auth.charge_type == "authorization"
        await pilot.press("c")
        dialog = await modal(app, pilot)
        dialog.query_one("#convenience_fee", Input).value = "1.005"
        await pilot.press("enter")
        await pilot.pause()
        assert dialog.step == "form"  # three decimals: refused next to the field
        assert "two decimal places" in str(dialog.query_one("#convenience_fee-error").render())
        dialog.query_one("#convenience_fee", Input).value = "1.50"
        dialog.query_one("#convenience_fee", Input).focus()
        await pilot.press("enter", "enter")
        await settle(app, pilot)
        assert dialog.step == "result"
        captures = await captures_of(app, auth.charge_id)
        assert len(captures) == 1
        assert captures[0].convenience_fee == Decimal("1.50")


@pytest.mark.parametrize(
    ("query", "words"),
    [
        (ChargeQuery(charge_type="pre_authorization"), "pre-authorization"),
        (ChargeQuery(charge_type="sale", status="success"), "Only an authorization"),
        (ChargeQuery(charge_type="authorization", captured=True), "Already captured"),
    ],
    ids=["pre-auth", "sale", "captured"],
)
async def test_capture_refusals_explain(
    money_app: AppFactory, query: ChargeQuery, words: str
) -> None:
    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, query)
        detail = await open_detail(app, pilot, charge.charge_id)
        # Disabled with its reason (help and the key's notice), never opened only to say no.
        assert detail.check_action("capture", ()) is None
        assert words in (detail.disabled_reason("capture") or "")
        await pilot.press("c")
        await settle(app, pilot)
        assert app.screen is detail
        assert any(words in n.message for n in app._notifications)
        assert len(await captures_of(app, charge.charge_id)) == (1 if "Already" in words else 0)


async def test_double_press_while_in_flight_sends_once(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    held = HeldCaptures(sandbox_transport)
    app = make_app(held, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, OPEN_AUTHS)
        await open_detail(app, pilot, auth.charge_id)
        await pilot.press("c")
        dialog = await modal(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        held.held = asyncio.Event()  # the capture stays in flight until released below
        await pilot.press("enter")
        await pilot.pause()
        assert dialog.step == "sending"
        assert dialog.query_one("#go").disabled
        dialog.go()  # a second press that reached the handler anyway
        await pilot.press("enter")
        held.held.set()
        await settle(app, pilot)
        await app.actions.ready.aclose()
        assert dialog.step == "result"
        assert len(await captures_of(app, auth.charge_id)) == 1
        assert len(app.actions.ready.history()) == 1


# --- refund -----------------------------------------------------------------------------------


async def test_partial_refund(money_app: AppFactory) -> None:
    """At 80x24: every field of the dialog is on screen, and each one tab reaches."""
    app = money_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success"),
            lambda c: (c.total_amount or 0) > 20,
        )
        before = await refunds_of(app, sale.charge_id)
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("r")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, RefundModal)
        amount = dialog.query_one("#amount", Input)
        assert Decimal(amount.value) == dialog.remaining  # defaults to what is left
        assert_on_screen(dialog, "amount", "reason", "tags", "attributes", "go", "close")
        for field in ("reason", "tags", "attributes"):
            await pilot.press("tab")
            await pilot.pause()
            assert dialog.focused is dialog.query_one(f"#{field}"), (field, dialog.focused)
            assert_on_screen(dialog, field)
        await pilot.press("shift+tab", "shift+tab", "shift+tab")
        assert dialog.focused is amount
        amount.value = str((dialog.remaining or 0) + 1)
        await pilot.press("enter")
        await pilot.pause()
        assert "More than the" in str(dialog.query_one("#amount-error").render())
        # Shorter (as when many earlier refunds are listed above the form): the form scrolls
        # within what is left, the buttons stay whole, a field tab reaches shows with its error.
        await pilot.resize_terminal(80, 16)
        await settle(app, pilot)
        await pilot.press("tab", "tab", "tab")
        await settle(app, pilot)  # scrolled, then drawn
        assert_on_screen(dialog, "attributes", "go", "close")
        await pilot.press("shift+tab", "shift+tab", "shift+tab")
        await settle(app, pilot)
        assert_on_screen(dialog, "amount", "amount-error", "go", "close")
        await pilot.resize_terminal(80, 24)
        amount.value = "10.00"
        dialog.query_one("#reason", Input).value = "customer request"
        dialog.query_one("#tags", Input).value = "goodwill, ui"
        dialog.query_one("#attributes", TextArea).text = "ticket=T-1\n"
        amount.focus()
        await pilot.press("enter", "enter")
        await settle(app, pilot)
        assert dialog.step == "result", message(dialog)
        after = await refunds_of(app, sale.charge_id)
        assert len(after) == len(before) + 1
        new = next(r for r in after if r.refund_id not in {b.refund_id for b in before})
        assert new.total_amount == Decimal("10.00")
        assert new.reason == "customer request"
        assert new.tags == ["goodwill", "ui"]
        assert new.attributes["ticket"] == ["T-1"]
        assert new.refund_id in message(dialog)
        await pilot.press("escape")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, ChargeDetailScreen)
        assert new.refund_id in plain(detail.query_one("#panel-refunds", Static).content)


async def test_refund_refused_without_the_scope(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    app = make_app(
        sandbox_transport,
        client_id=LIMITED_CLIENT_ID,
        client_secret=LIMITED_CLIENT_SECRET,
        journal_path=journal,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await app.actions.executor()
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        assert screen.check_action("refund", ()) is None
        assert screen.check_action("capture", ()) is None
        decision = app.actions.check("refund")
        assert "urn:v2:refunds:all" in (decision.reason or "")
        # Run anyway (a stale palette entry): refused by check_action, says why, opens nothing.
        assert await app.run_action("refund", screen) is False
        await pilot.pause()
        assert any("urn:v2:refunds:all" in n for n in notes(app))
        assert not isinstance(app.screen, MoneyActionModal)


async def test_read_only_profile_disables_every_action(money_app: AppFactory) -> None:
    app = money_app()
    app.session.read_only = True
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        detail = await open_detail(app, pilot, sale.charge_id)
        before = await refunds_of(app, sale.charge_id)
        for action in ("capture", "refund", "edit"):
            assert detail.check_action(action, ()) is None
        await pilot.press("r")
        await pilot.pause()
        assert app.screen is detail  # no dialog opened
        assert await refunds_of(app, sale.charge_id) == before  # and nothing was sent
        # The executor refuses too, whatever a screen does.
        dialog = RefundModal(sale.charge_id)
        await app.push_screen(dialog)
        await settle(app, pilot)
        assert dialog.step == "blocked" and "read-only" in message(dialog)


# --- edit tags --------------------------------------------------------------------------------


async def test_edit_tags_shows_the_diff_then_patches(money_app: AppFactory) -> None:
    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(
            app, ChargeQuery(charge_type="sale", status="success"), lambda c: bool(c.tags)
        )
        await open_detail(app, pilot, charge.charge_id)
        await pilot.press("e")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, EditTagsModal)
        old = list(charge.tags)
        tags = dialog.query_one("#tags", Input)
        tags.value = ", ".join([*old[1:], "escalated"])
        dialog.query_one("#attributes", TextArea).text = "ticket=T-9"
        tags.focus()
        await pilot.press("enter")
        await pilot.pause()
        review = str(dialog.query_one("#dialog-review").render())
        assert "+ tag escalated" in review and f"- tag {old[0]}" in review
        assert "ticket = T-9" in review
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result", message(dialog)
        client = await app.get_client()
        after = await client.get_charge(charge.charge_id)
        assert after.tags == [*old[1:], "escalated"]
        assert after.attributes == {"ticket": ["T-9"]}


async def test_refund_tags_are_edited_like_a_charge_s(money_app: AppFactory) -> None:
    """E on the Refunds screen: the charge's form and diff, through the one executor and journal,
    and the refund on the service changed; E on the refunds panel of a charge with one refund."""
    from paytui.ui.screens.modals.edit_tags import EditRefundTagsModal
    from paytui.ui.screens.refunds import RefundsScreen

    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        page = await client.search_refunds_page(limit=50)
        refund = page.items[0]
        await app.push_screen(RefundsScreen())
        await settle(app, pilot)
        await pilot.press("ctrl+e")
        dialog = await modal(app, pilot)
        assert isinstance(dialog, EditRefundTagsModal) and dialog.charge_id == refund.refund_id
        tags = dialog.query_one("#tags", Input)
        tags.value = ", ".join([*refund.tags, "disputed"])
        tags.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "+ tag disputed" in str(dialog.query_one("#dialog-review").render())
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result", message(dialog)
        after = await client.get_refund(refund.refund_id)
        assert after.tags == [*refund.tags, "disputed"]
        executor = await app.actions.executor()
        [entry] = [e for e in executor.journal.list() if e.operation == "update_refund"]
        assert entry.state == "succeeded" and entry.charge_id == refund.refund_id

        # The refunds panel of a charge with exactly one refund: E opens that refund's edit.
        charge_id = refund.charge_id or ""
        detail = await open_detail(app, pilot, charge_id)
        await settle(app, pilot)
        mine = await refunds_of(app, charge_id)
        assert [r.refund_id for r in detail._refunds] == [r.refund_id for r in mine]
        await pilot.press("ctrl+e")
        await settle(app, pilot)
        if len(mine) == 1:
            second = await modal(app, pilot)
            assert isinstance(second, EditRefundTagsModal)
            assert second.charge_id == refund.refund_id
        else:  # several: the Refunds screen of this charge, to pick one
            assert isinstance(app.screen, RefundsScreen)
            assert app.screen.refund_query.charge_id == charge_id


# --- typed confirmation (production) and the Refunds screen -------------------------------------


async def test_production_capture_asks_for_the_typed_phrase(money_app: AppFactory) -> None:
    app = money_app(environment="production")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, OPEN_AUTHS)
        await open_detail(app, pilot, auth.charge_id)
        await pilot.press("c")
        dialog = await modal(app, pilot)
        await pilot.press("enter", "enter")  # review, capture → the executor asks for the phrase
        await settle(app, pilot)
        assert dialog.step == "review" and dialog.phrase is not None
        assert await captures_of(app, auth.charge_id) == []  # nothing sent
        phrase = dialog.query_one("#confirm-phrase", Input)
        assert phrase.has_focus
        await pilot.press(*"0000", "enter")  # wrong
        await settle(app, pilot)
        assert dialog.step == "review"
        assert "does not match" in str(dialog.query_one("#confirm-phrase-error").render())
        assert await captures_of(app, auth.charge_id) == []
        phrase.value = dialog.phrase
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result"
        assert len(await captures_of(app, auth.charge_id)) == 1


async def test_refunds_screen_searches_by_charge_and_pages(money_app: AppFactory) -> None:
    from paytui.ui.screens.refunds import RefundsScreen

    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.action_refunds()
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, RefundsScreen)
        assert len(screen.items) == 50
        assert screen.more.has_more  # the demo data has 196 refunds: more than one page
        await pilot.press("G")  # scrolling to the end reads the next page under the first
        await settle(app, pilot)
        ids = [r.refund_id for r in screen.items]
        assert len(ids) == 100 and len(set(ids)) == 100
        assert "Showing 100 of 196" in screen_text(app)
        refund = screen.items[0]
        await pilot.press("slash")
        await pilot.press(*refund.charge_id, "enter")
        await settle(app, pilot)
        assert screen.items and {r.charge_id for r in screen.items} == {refund.charge_id}
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert app.screen.charge_id == refund.charge_id


async def test_closing_the_dialog_while_sending_still_reports_the_answer(
    sandbox_transport: httpx.AsyncBaseTransport, journal: Path
) -> None:
    held = HeldCaptures(sandbox_transport)
    app = make_app(held, journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, OPEN_AUTHS)
        detail = await open_detail(app, pilot, auth.charge_id)
        await pilot.press("c")
        dialog = await modal(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        held.held = asyncio.Event()  # the capture stays in flight until released below
        await pilot.press("enter")
        await pilot.pause()
        assert dialog.step == "sending"
        await pilot.press("escape")  # closes the dialog; the capture goes on
        held.held.set()
        await settle(app, pilot)
        assert app.screen is detail
        captures = await captures_of(app, auth.charge_id)
        assert len(captures) == 1
        assert any(f"went through: {captures[0].charge_id}" in n for n in notes(app))


async def test_a_refused_refund_offers_no_retry(
    money_app: AppFactory, sandbox_faults: Faults
) -> None:
    """A refusal (4xx) is final: the service's reason, and no Retry."""
    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        before = await refunds_of(app, sale.charge_id)
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("r")
        dialog = await modal(app, pilot)
        dialog.query_one("#amount", Input).value = "1.00"
        await pilot.press("enter")
        await pilot.pause()
        sandbox_faults.fail_status = 409
        sandbox_faults.fail_path_prefix = "/v2/refunds"
        sandbox_faults.fail_method = "POST"
        sandbox_faults.fail_count = 1
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result" and dialog.outcome is not None
        assert dialog.outcome.state == "failed" and not dialog.outcome.retryable
        assert "The service refused it" in message(dialog)
        assert "forced status 409" in message(dialog)
        assert not dialog.query_one("#retry").display
        assert len(await refunds_of(app, sale.charge_id)) == len(before)


async def test_a_proven_not_applied_refund_is_retried_from_the_dialog_only_on_request(
    money_app: AppFactory, sandbox_faults: Faults
) -> None:
    """A 5xx before the commit: read back after the deadline (the executor's clock is a fake
    one here: nothing real is late), not applied *so far*: Retry reads it again and sends
    nothing (a late commit may still land); "Send another" on it then sends it, once."""
    from tests.actions.support import FakeClock

    app = money_app()
    clock = FakeClock()
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        before = await refunds_of(app, sale.charge_id)
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("r")
        dialog = await modal(app, pilot)
        dialog.query_one("#amount", Input).value = "1.00"
        await pilot.press("enter")
        await pilot.pause()
        sandbox_faults.fail_status = 503
        sandbox_faults.fail_path_prefix = "/v2/refunds"
        sandbox_faults.fail_method = "POST"
        sandbox_faults.fail_count = 1
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result" and dialog.outcome is not None
        assert dialog.outcome.state == "not_applied"
        said = message(dialog)
        assert "not made so far" in said and "try again" not in said.lower()
        assert len(await refunds_of(app, sale.charge_id)) == len(before)  # nothing resent
        await pilot.click("#retry")
        await settle(app, pilot)
        assert "nor now at" in message(dialog)  # read again: still not there, nothing sent
        assert len(await refunds_of(app, sale.charge_id)) == len(before)
        await pilot.click("#go")  # "Send another": the go-ahead naming it
        await settle(app, pilot)
        assert dialog.outcome.state == "succeeded", message(dialog)
        assert len(await refunds_of(app, sale.charge_id)) == len(before) + 1
        entries = app.actions.ready.history()
        assert [e.state for e in entries] == ["succeeded", "not_applied"]
        assert entries[0].retry_of == entries[1].id


@pytest.mark.parametrize("answers_429", [1, 2])
async def test_a_rate_limited_refund_is_sent_once_more_or_offered_again(
    answers_429: int, money_app: AppFactory, sandbox_faults: Faults
) -> None:
    """A 429 proves the service did not act: waited out (a fake sleep) and sent once more under
    the same entry; a second 429 is "not sent", with Retry — never "a refusal is final"."""
    from tests.actions.support import FakeClock

    app = money_app()
    clock = FakeClock()
    app.actions.executor_options = {"clock": clock, "sleep": clock.sleep}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        before = await refunds_of(app, sale.charge_id)
        await open_detail(app, pilot, sale.charge_id)
        await pilot.press("r")
        dialog = await modal(app, pilot)
        dialog.query_one("#amount", Input).value = "1.00"
        await pilot.press("enter")
        await pilot.pause()
        sandbox_faults.fail_status = 429
        sandbox_faults.fail_path_prefix = "/v2/refunds"
        sandbox_faults.fail_method = "POST"
        sandbox_faults.fail_count = answers_429
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result" and dialog.outcome is not None
        entries = app.actions.ready.history()
        assert len(entries) == 1  # one intent, whatever the number of sends
        if answers_429 == 1:
            assert dialog.outcome.state == "succeeded", message(dialog)
            assert len(await refunds_of(app, sale.charge_id)) == len(before) + 1
            return
        assert dialog.outcome.state == "failed" and dialog.outcome.retryable
        assert "It did not happen" in message(dialog)
        assert "Not sent: the service is limiting requests" in message(dialog)
        assert "refusal is final" not in message(dialog)
        assert len(await refunds_of(app, sale.charge_id)) == len(before)
        await pilot.click("#retry")
        await settle(app, pilot)
        assert dialog.outcome.state == "succeeded", message(dialog)
        assert len(await refunds_of(app, sale.charge_id)) == len(before) + 1


async def test_a_refunds_list_that_fails_is_said_as_itself_not_as_the_charge(
    money_app: AppFactory, sandbox_faults: Faults
) -> None:
    """The refund dialog reads the charge, then its refunds: when only the refunds list fails
    (503), the dialog names the refunds, not the charge it did read."""
    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        sandbox_faults.fail_status = 503
        sandbox_faults.fail_path_prefix = "/v2/refunds"
        sandbox_faults.fail_method = "GET"
        dialog = RefundModal(sale.charge_id)
        await app.push_screen(dialog)
        await settle(app, pilot)
        said = message(dialog)
        assert dialog.step == "blocked"
        assert said.startswith("Could not read the charge's refunds: "), said


async def test_a_journal_failure_is_said_as_one_and_logged_not_as_a_charge_read(
    money_app: AppFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The dialog reads the journal's mark before the charge: when the journal fails, the
    dialog says the journal failed (not "Could not read the charge") and the log keeps it."""
    import logging
    import sqlite3

    from paytui.actions.journal import Journal

    def broken(self: Journal) -> int:
        raise sqlite3.OperationalError("disk I/O error")

    app = money_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        monkeypatch.setattr(Journal, "last_id", broken)
        with caplog.at_level(logging.WARNING, logger="paytui"):
            dialog = RefundModal(sale.charge_id)
            await app.push_screen(dialog)
            await settle(app, pilot)
        said = message(dialog)
        assert dialog.step == "blocked"
        assert said == "The journal could not be read: disk I/O error"
        assert "Could not read the charge" not in said
        (record,) = [r for r in caplog.records if r.name == "paytui.ui.actions"]
        assert sale.charge_id in record.getMessage() and "disk I/O error" in str(record.exc_info)
