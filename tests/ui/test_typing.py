"""Keys typed with no pause land field by field, in every form (issue 15, part 1).

Each form is typed in a burst (every key event posted into the app's queue at once, as a fast
typist on a busy machine delivers them) while a worker keeps the event loop busy; the card form and
the search line also in a burst alone. (One key after the other, `pilot.press`, is how every other
UI test types.) Then each field's exact value is checked, and that no other screen or dialog opened
(digits and letters are global keys beneath the forms).

Why a burst failed before: a `tab` was queued at the focused field like any key and moved focus
only after bubbling up to the screen's binding, by which time the keys typed after it were already
queued at the same field (`19.99⇥⇥⇥4111…` all in Amount). `tab` / `shift+tab` are now priority
bindings of the app, run when the app takes the key, before the next key is handed out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, Select, TextArea

from paytui.api.queries import ChargeQuery
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.confirm import MoneyActionModal
from paytui.ui.screens.modals.refund import RefundModal
from paytui.ui.screens.new_charge import NewChargeScreen
from paytui.ui.widgets.card_input import CardInput
from paytui.ui.widgets.query_input import QueryInput
from tests.ui.conftest import settle

pytestmark = pytest.mark.asyncio

AppFactory = Callable[..., PaytuiApp]


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


ACCOUNT = "pa_b4kfel3guxntcchyplvq"
#: Every form is typed in a burst on a busy loop (the burst posted while a worker keeps the loop
#: busy: the harder case); the card form and the search line also in a burst alone.
MODES = ["busy"]
BOTH_MODES = ["burst", "busy"]
_NAMES = {
    "\t": "tab",
    ".": "full_stop",
    "-": "minus",
    " ": "space",
    ",": "comma",
    "=": "equals_sign",
    "_": "underscore",
    ":": "colon",
    "\n": "enter",
    "/": "slash",
    ">": "greater_than_sign",
}


def key_events(text: str) -> list[events.Key]:
    """The key events a terminal sends for `text` (`\\t` is tab, `\\n` enter)."""
    return [
        events.Key(_NAMES.get(ch, ch), None if ch == "\t" else ("\r" if ch == "\n" else ch))
        for ch in text
    ]


async def busy_worker(rounds: int = 400) -> None:
    """Keeps the loop busy: CPU work in small slices between the key events."""
    for _ in range(rounds):
        sum(range(5_000))
        await asyncio.sleep(0)


async def type_text(app: PaytuiApp, pilot: Any, text: str, mode: str) -> None:
    if mode == "busy":
        app.run_worker(busy_worker(), group="busy")
    for key in key_events(text):
        app.post_message(key)
    await settle(app, pilot)
    await settle(app, pilot)


def stack(app: PaytuiApp) -> tuple[str, list[type]]:
    return app.current_mode, [type(screen) for screen in app.screen_stack]


def value(screen: Any, name: str) -> str:
    widget = screen.query_one(f"#{name}")
    if isinstance(widget, TextArea):
        return widget.text
    assert isinstance(widget, Input)
    return widget.value


async def open_new_charge(app: PaytuiApp, pilot: Any, method: str = "card") -> NewChargeScreen:
    await settle(app, pilot)
    app.account_in_focus = ACCOUNT
    await pilot.press("n")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, NewChargeScreen)
    assert value(screen, "account") == ACCOUNT and screen.focused is screen.query_one("#amount")
    if method != "card":
        screen.query_one("#method", Select).value = method
        await pilot.pause()
    return screen


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_new_charge_by_card(app_factory: AppFactory, mode: str) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_new_charge(app, pilot)
        before = stack(app)
        await type_text(app, pilot, "19.99\t\t\t4111111111111111\t2028-12\tGrace\tHopper", mode)
        assert stack(app) == before
        card = screen.query_one("#card", CardInput)
        assert (card.length, card.last4) == (16, "1111")
        assert [value(screen, n) for n in ("amount", "expiry", "first", "last")] == [
            "19.99",
            "2028-12",
            "Grace",
            "Hopper",
        ]
        assert screen.query_one("#type", Select).value == "sale"
        assert screen.query_one("#method", Select).value == "card"


@pytest.mark.parametrize("mode", MODES)
async def test_new_charge_by_bank_account(app_factory: AppFactory, mode: str) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_new_charge(app, pilot, "bank_account")
        before = stack(app)
        await type_text(app, pilot, "12.34\t\t\t021000021\t123456789\tAda\tLovelace", mode)
        assert stack(app) == before
        number = screen.query_one("#bank-number", CardInput)
        assert (number.length, number.last4) == (9, "6789")
        assert [value(screen, n) for n in ("amount", "routing", "first", "last")] == [
            "12.34",
            "021000021",
            "Ada",
            "Lovelace",
        ]


@pytest.mark.parametrize("mode", MODES)
async def test_new_charge_by_token(app_factory: AppFactory, mode: str) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_new_charge(app, pilot, "token")
        before = stack(app)
        await type_text(app, pilot, "5.00\t\t\tct_abc123\tINV-1\tPO-2\t1.25\t0.50\tvip,rush", mode)
        assert stack(app) == before
        names = ("amount", "token", "invoice", "po", "convenience", "supplemental", "tags")
        assert [value(screen, n) for n in names] == [
            "5.00",
            "ct_abc123",
            "INV-1",
            "PO-2",
            "1.25",
            "0.50",
            "vip,rush",
        ]


@pytest.mark.parametrize("mode", MODES)
async def test_letters_in_the_card_field_go_nowhere(app_factory: AppFactory, mode: str) -> None:
    """A letter in a number field is dropped there: `r`, `c`, `1`…`5` never reach a key beneath."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_new_charge(app, pilot)
        screen.set_focus(screen.query_one("#card"))
        before = stack(app)
        await type_text(app, pilot, "4111rcnq?x111111111111", mode)
        assert stack(app) == before
        card = screen.query_one("#card", CardInput)
        assert (card.length, card.last4) == (16, "1111")


@pytest.mark.parametrize("mode", MODES)
async def test_keys_on_a_select_stay_in_the_form(app_factory: AppFactory, mode: str) -> None:
    """Focus on the Type select: digits and letters are dropped, never global keys."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_new_charge(app, pilot)
        screen.set_focus(screen.query_one("#type"))
        before = stack(app)
        await type_text(app, pilot, "41rcq", mode)
        assert stack(app) == before
        assert app.screen is screen


async def open_tokens(app: PaytuiApp, pilot: Any) -> Any:
    await settle(app, pilot)
    await pilot.press("2")
    await settle(app, pilot)
    return app.screen


@pytest.mark.parametrize("mode", MODES)
async def test_token_create(app_factory: AppFactory, mode: str) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_tokens(app, pilot)
        app.account_in_focus = ACCOUNT
        await pilot.press("N")
        await settle(app, pilot)
        form = app.screen
        assert value(form, "account") == ACCOUNT and form.focused is form.query_one("#card")
        before = stack(app)
        await type_text(app, pilot, "4111111111111111\t2029-01\tLin\tYu\t\t2030-01-31", mode)
        assert stack(app) == before
        card = form.query_one("#card", CardInput)
        assert (card.length, card.last4) == (16, "1111")
        names = ("expiry", "first", "last", "country", "token-expiry")
        assert [value(form, n) for n in names] == ["2029-01", "Lin", "Yu", "US", "2030-01-31"]


@pytest.mark.parametrize("mode", MODES)
async def test_token_update_and_charge(app_factory: AppFactory, mode: str) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        tokens = await open_tokens(app, pilot)
        token = tokens.current
        assert token is not None
        await pilot.press("u")
        await settle(app, pilot)
        form = app.screen
        for name in ("expiry", "first", "last", "country", "token-expiry"):
            form.query_one(f"#{name}", Input).value = ""
        form.set_focus(form.query_one("#expiry"))
        before = stack(app)
        await type_text(app, pilot, "2031-05\tMae\tJemison\tCA\t2032-02-29", mode)
        assert stack(app) == before
        names = ("expiry", "first", "last", "country", "token-expiry")
        assert [value(form, n) for n in names] == ["2031-05", "Mae", "Jemison", "CA", "2032-02-29"]
        await pilot.press("escape")
        await settle(app, pilot)
        if tokens.check_action("charge_token", ()) is not True:
            return  # an expired first token: charging it is disabled (tested in test_tokens)
        await pilot.press("n")
        await settle(app, pilot)
        charge = app.screen
        before = stack(app)
        await type_text(app, pilot, "7.25", mode)
        assert stack(app) == before
        assert value(charge, "amount") == "7.25"


async def open_money_dialog(app: PaytuiApp, pilot: Any, query: ChargeQuery, key: str) -> Any:
    await settle(app, pilot)
    client = await app.get_client()
    page = await client.search_charges_page(query, limit=1)
    detail = ChargeDetailScreen(page.items[0].charge_id)
    await app.push_screen(detail)
    await settle(app, pilot)
    await pilot.press(key)
    await settle(app, pilot)
    dialog = app.screen
    assert isinstance(dialog, MoneyActionModal) and dialog.step == "form"
    return dialog


@pytest.mark.parametrize("mode", MODES)
async def test_capture_fees(app_factory: AppFactory, mode: str, journal: Path) -> None:
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        query = ChargeQuery(charge_type="authorization", captured=False)
        dialog = await open_money_dialog(app, pilot, query, "c")
        before = stack(app)
        await type_text(app, pilot, "1.50\t0.25", mode)
        assert stack(app) == before
        assert [value(dialog, "convenience_fee"), value(dialog, "supplemental_fee")] == [
            "1.50",
            "0.25",
        ]


@pytest.mark.parametrize("mode", MODES)
async def test_refund(app_factory: AppFactory, mode: str, journal: Path) -> None:
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_money_dialog(
            app, pilot, ChargeQuery(charge_type="sale", status="success"), "r"
        )
        dialog.query_one("#amount", Input).value = ""
        before = stack(app)
        await type_text(app, pilot, "5.00\tcustomer asked\tvip, goodwill\torder=A-1", mode)
        assert stack(app) == before
        assert [value(dialog, n) for n in ("amount", "reason", "tags", "attributes")] == [
            "5.00",
            "customer asked",
            "vip, goodwill",
            "order=A-1",
        ]


@pytest.mark.parametrize("mode", MODES)
async def test_tags_editor(app_factory: AppFactory, mode: str, journal: Path) -> None:
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_money_dialog(app, pilot, ChargeQuery(charge_type="sale"), "e")
        dialog.query_one("#tags", Input).value = ""
        dialog.query_one("#attributes", TextArea).text = ""
        before = stack(app)
        await type_text(app, pilot, "vip, r2\tteam=blue\nshift=night", mode)
        assert stack(app) == before
        assert value(dialog, "tags") == "vip, r2"
        assert value(dialog, "attributes") == "team=blue\nshift=night"


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_search_line(app_factory: AppFactory, mode: str) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        await pilot.press("slash")
        await pilot.pause()
        before = stack(app)
        await type_text(app, pilot, "status:chargeback 1234 rcn", mode)
        assert stack(app) == before
        assert app.screen.query_one(QueryInput).value == "status:chargeback 1234 rcn"


@pytest.mark.parametrize("mode", MODES)
async def test_slash_and_the_query_in_one_burst(app_factory: AppFactory, mode: str) -> None:
    """`/Edsger` and `/status:return amount>=100` pasted at once: every letter after the slash
    lands in the query line (the first one went to the list, whose keys `E`, `s`, `a`... then
    ran as commands: the query read "dsger", or a re-sorted list and an empty query)."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        before = stack(app)
        await type_text(app, pilot, "/Edsger", mode)
        assert stack(app) == before
        assert screen.query_one(QueryInput).value == "Edsger"


@pytest.mark.parametrize("mode", ["burst", "busy"])
async def test_keys_typed_at_once_after_the_opening_key_land_in_the_new_field(
    app_factory: AppFactory, journal: Path, mode: str
) -> None:
    """`r` then `5.00`, and `n` then `19.99`, each in one burst (and again while a worker keeps
    the loop busy): the dialog opens and the digits land in its first field (the refund's
    once it has read the charge), never on the list beneath, where `5` is History and `1`
    Charges. One app for both keys."""
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        assert screen.check_action("refund", ()) is True  # the first row: a sale with money left
        await type_text(app, pilot, "r5.00", mode)
        dialog = app.screen
        assert isinstance(dialog, RefundModal)
        assert stack(app) == ("charges", [ChargeSearchScreen, RefundModal])
        # Typed before the dialog had read the charge: held until it has, then typed over
        # what is left (selected in the focused field); never dropped, split, appended, or
        # given to the list.
        assert value(dialog, "amount") == "5.00"
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        app.account_in_focus = ACCOUNT
        await type_text(app, pilot, "n19.99", mode)
        form = app.screen
        assert stack(app) == ("charges", [ChargeSearchScreen, NewChargeScreen])
        assert isinstance(form, NewChargeScreen)
        assert value(form, "amount") in {"19.99", ""}  # in the first field whole, or dropped
        assert [value(form, n) for n in ("expiry", "first", "last", "tags")] == ["", "", "", ""]


async def test_a_long_burst_in_the_query_line_starts_one_search(app_factory: AppFactory) -> None:
    """A key costs the same at any length of the query (issue 22, item 5): a burst of 600 keys
    starts no worker per key (each used to cancel every one before it, still queued: 6 ms a
    key at 1,500), and the search follows the pause with the whole text."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        started: list[object] = []
        run_worker = screen.run_worker

        def counting(*args: Any, **kwargs: Any) -> Any:
            started.append(kwargs.get("group"))
            return run_worker(*args, **kwargs)

        screen.run_worker = counting  # type: ignore[method-assign]
        # The clock stands still while the keys are handled, however long a loaded machine
        # takes over them: every key after the first is within the burst, as typed.
        now = [1000.0]
        screen.monotonic = lambda: now[0]
        text = "eds " * 150
        for event in key_events(text):
            app.post_message(event)
        line = screen.query_one(QueryInput)
        for _ in range(500):  # until every key is handled (the wait never ends on its own)
            if line.value == text:
                break
            await pilot.pause()
        assert line.value == text
        # The first key searched at once; the 599 after it started one wait between them.
        assert (started.count("search"), started.count("typing")) == (1, 1), started
        now[0] += ChargeSearchScreen.TYPE_DELAY  # the pause
        await settle(app, pilot)
        assert (started.count("search"), started.count("typing")) == (2, 1), started
        assert screen._typed == text and screen._typing_wait is None


@pytest.mark.parametrize("leave", ["down", "escape"])
async def test_a_key_typed_right_after_leaving_the_query_line_lands_on_the_results(
    app_factory: AppFactory, leave: str
) -> None:
    """`/Ed`, down (or escape), `?` in one burst, as a browser or a fast typist sends them: the
    line leaves in its own turn, after the App has taken the keys behind it, so `?` waited for
    the focus to move and opens help instead of becoming a character of the query."""
    from paytui.ui.screens.help import HelpScreen

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        burst = [
            *key_events("/Ed"),
            events.Key(leave, None),
            events.Key("question_mark", "?"),
        ]
        for event in burst:
            app.post_message(event)
        await settle(app, pilot)
        assert screen.query_one(QueryInput).value == "Ed"
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_n_and_the_whole_form_in_one_burst_make_the_charge(
    app_factory: AppFactory, journal: Path, mode: str
) -> None:
    """Issue 44: `n` followed by a whole form at paste speed put the text in the charge search
    and made no charge. The keys after `n` are for the form `n` opens: they land there, in
    order, and ctrl+s at the end of the burst sends the charge."""
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.account_in_focus = ACCOUNT
        charges = app.screen
        typed = "n19.99\t\t\t4111111111111111\t2028-12\tGrace\tHopper"
        await type_text(app, pilot, typed, mode)
        screen = app.screen
        assert isinstance(screen, NewChargeScreen), stack(app)
        assert str(charges.query_one("#query", Input).value) == ""  # nothing in the search
        assert [value(screen, n) for n in ("amount", "expiry", "first", "last")] == [
            "19.99",
            "2028-12",
            "Grace",
            "Hopper",
        ]
        app.post_message(events.Key("ctrl+s", None))
        await settle(app, pilot)
        await settle(app, pilot)
        assert screen.result is not None and screen.result.total_amount == Decimal("19.99")
